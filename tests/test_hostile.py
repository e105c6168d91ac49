"""``cruel serve`` under hostile clients and faults (issue #13): whole-request time limits,
connection caps answered in JSON, a log that a client cannot flood, a database file deleted,
replaced, damaged or full, and workers that end with their supervisor.

Every server here listens on 127.0.0.1; the limits are set small so that each test takes a few
seconds, and every wait is bounded generously (the machines are small and shared).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.service.connections import RateLimitedLog

from .helpers import child_processes, published_puzzles, puzzle_log

ROOT = Path(__file__).parent.parent
PUZZLE_ID = "2027-01-05-medium"
SUBMIT = f"/v1/puzzles/{PUZZLE_ID}/submissions"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A ``cruel serve`` process whose standard error goes to a file."""

    def __init__(self, tmp: Path, *extra: str, port: int | None = None) -> None:
        self.port = port or free_port()
        self.db = tmp / "cruel.sqlite"
        self.err = tmp / f"stderr-{self.port}-{time.monotonic_ns()}.txt"
        args = [sys.executable, "-m", "cruel_tools.cli.app", "serve", "--port", str(self.port)]
        args += ["--db", str(self.db), "--today", "2027-01-05", "--no-access-log", "--open"]
        args += ["--puzzles", str(ROOT / "puzzles"), *extra]
        with self.err.open("wb") as err:
            self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError):
                if request(self.port, "GET", "/v1/health")[0] in (200, 503):
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"cruel serve did not come up: {self.stderr()}")
            time.sleep(0.1)

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def serving(tmp: Path, *extra: str) -> Iterator[Server]:
    server = Server(tmp, *extra)
    try:
        yield server
    finally:
        server.stop()


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    source: str = "127.0.0.1",
    timeout: float = 10.0,
) -> tuple[int, Any]:
    """One request on a connection of its own, from ``source``: its status and JSON."""
    address = (source, 0)
    with socket.create_connection(
        ("127.0.0.1", port), timeout=timeout, source_address=address
    ) as s:
        head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        if body is not None:
            head += f"Content-Length: {len(body)}\r\n"
        s.sendall(head.encode() + b"\r\n" + (body or b""))
        return parse(read_all(s))


def read_all(s: socket.socket) -> bytes:
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def parse(answer: bytes) -> tuple[int, Any]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body) if body else None


def second_address() -> str:
    """Another loopback address (Linux answers all of 127.0.0.0/8): another client."""
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("127.0.0.2 cannot be bound here: no second client address on loopback")
    return "127.0.0.2"


def submission(player: str) -> bytes:
    log = puzzle_log(published_puzzles().get(PUZZLE_ID))
    return orjson.dumps({"player": player, "log": log})


# --- time limits -----------------------------------------------------------------------------


def test_a_body_that_never_comes_is_answered_408_in_json(tmp_path: Path) -> None:
    # Complete headers promising 100 bytes, then nothing: held for ever before issue #13.
    with serving(tmp_path, "--head-timeout", "5", "--body-timeout", "1") as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=15) as s:
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            began = time.monotonic()
            answer = read_all(s)  # to the server's close: a hang is a timeout error
            took = time.monotonic() - began
        status, body = parse(answer)
        assert (status, body["format"], body["code"]) == (408, "cruel-error/1", "request-timeout")
        assert "--body-timeout" in body["message"]
        assert 0.8 <= took < 10
        assert request(server.port, "GET", "/v1/health")[0] == 200
    assert "Traceback" not in server.stderr()


def test_a_body_trickled_byte_by_byte_is_cut_off_by_the_whole_request_limit(
    tmp_path: Path,
) -> None:
    # Each byte arrives well within any idle timeout; the request as a whole does not.
    with serving(tmp_path, "--head-timeout", "5", "--body-timeout", "1.5") as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=15) as s:
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            began = time.monotonic()
            s.settimeout(0.25)
            answer = b""
            while time.monotonic() - began < 12:
                with contextlib.suppress(OSError):
                    s.sendall(b" ")
                try:
                    chunk = s.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                answer += chunk
            took = time.monotonic() - began
    assert parse(answer)[0] == 408 and parse(answer)[1]["code"] == "request-timeout"
    assert 1.2 <= took < 10


def test_a_slow_head_still_closes_and_a_prompt_request_is_untouched(tmp_path: Path) -> None:
    with serving(tmp_path, "--head-timeout", "1", "--body-timeout", "1") as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=15) as s:
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            assert s.recv(65536) == b""  # closed, unanswered: the head never ended
        status, report = request(
            server.port, "POST", "/v1/verify", (ROOT / "samples/won.json").read_bytes()
        )
        assert status == 200 and report["valid"] is True


# --- connection caps ---------------------------------------------------------------------------


def test_connections_over_the_per_client_cap_are_refused_in_json(tmp_path: Path) -> None:
    other = second_address()
    args = ("--head-timeout", "20", "--max-per-client", "4", "--max-connections", "50")
    with serving(tmp_path, *args) as server:
        held = [
            socket.create_connection(("127.0.0.1", server.port), 10, (other, 0)) for _ in range(4)
        ]
        try:
            time.sleep(0.3)  # the server has accepted them
            status, body = request(server.port, "GET", "/v1/health", source=other)
            assert (status, body["format"], body["code"]) == (
                429,
                "cruel-error/1",
                "too-many-connections",
            )
            assert f"{other} has 4 connections open" in body["message"]
            assert request(server.port, "GET", "/v1/health")[0] == 200  # another address
        finally:
            for s in held:
                s.close()
        deadline = time.monotonic() + 10
        while request(server.port, "GET", "/v1/health", source=other)[0] != 200:
            assert time.monotonic() < deadline, "places not given back"
            time.sleep(0.1)


def test_connections_over_max_connections_are_a_json_503(tmp_path: Path) -> None:
    args = ("--head-timeout", "20", "--max-per-client", "100", "--max-connections", "3")
    with serving(tmp_path, *args) as server:
        held = [socket.create_connection(("127.0.0.1", server.port), 10) for _ in range(3)]
        try:
            time.sleep(0.3)
            status, body = request(server.port, "GET", "/v1/health")
            assert (status, body["code"]) == (503, "server-full")
        finally:
            for s in held:
                s.close()


def test_hundreds_of_stalled_clients_do_not_starve_health(tmp_path: Path) -> None:
    other = second_address()
    args = ("--head-timeout", "3", "--body-timeout", "3", "--max-per-client", "8")
    with serving(tmp_path, *args) as server:
        stalled = []
        try:
            for _ in range(200):
                s = socket.create_connection(("127.0.0.1", server.port), 10, (other, 0))
                s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n")
                stalled.append(s)
            answered = [request(server.port, "GET", "/v1/health")[0] for _ in range(10)]
            assert answered == [200] * 10
            refused = 0
            for s in stalled:
                s.settimeout(10)
                with contextlib.suppress(OSError):
                    answer = s.recv(65536)
                    refused += answer.startswith(b"HTTP/1.1 429")
            assert refused >= 150  # all but the 8 admitted (a few may be reset before reading)
        finally:
            for s in stalled:
                s.close()


# --- the log -----------------------------------------------------------------------------------


def test_clients_that_drop_their_bodies_make_a_few_lines_not_tracebacks(tmp_path: Path) -> None:
    with serving(tmp_path, "--head-timeout", "5") as server:
        before = len(server.stderr())
        began = time.monotonic()
        for _ in range(300):
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
                s.sendall(
                    b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 58\r\n\r\n"
                    b'{"format":"cruel-log/1","d'
                )
        for _ in range(100):  # not HTTP at all: uvicorn's own line, rate-limited too
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
                s.sendall(b"\x00\x01garbage\r\n\r\n")
                read_all(s)
        seconds = time.monotonic() - began
        time.sleep(0.5)
        assert request(server.port, "GET", "/v1/health")[0] == 200
        log = server.stderr()[before:]
    assert "Traceback" not in log and "Exception in ASGI application" not in log
    lines = log.splitlines()
    assert 1 <= len(lines) <= seconds + 3, log
    assert len(log) < 200 * (seconds + 3)
    failures = ("closed the connection before its request body", "Invalid HTTP request")
    assert all(any(f in x for f in failures) for x in lines), log


def test_a_rate_limited_log_counts_the_lines_it_leaves_out() -> None:
    now = [0.0]
    lines: list[str] = []

    class Logger:
        def warning(self, fmt: str, *args: object) -> None:
            lines.append(fmt % args)

    log = RateLimitedLog(Logger(), interval=1.0, clock=lambda: now[0])  # type: ignore[arg-type]
    for k in range(5):
        now[0] = k * 0.3
        log.warning(f"line {k}")
    assert lines == ["line 0", "line 4 (and 3 more since the last such line)"]


# --- the database file -------------------------------------------------------------------------


def open_settings(db: Path) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=published_puzzles().get(PUZZLE_ID).date,
        open=True,
        key_limit=None,
        player_limit=None,
    )


def wait_for_health(client: TestClient, status: int, seconds: float = 15) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        answer = client.get("/v1/health")
        if answer.status_code == status:
            body: dict[str, Any] = answer.json()
            return body
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.1)


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_database_file_deleted_or_replaced_while_serving_is_503(tmp_path: Path, how: str) -> None:
    db = tmp_path / "db.sqlite"
    with TestClient(service.create_app(open_settings(db))) as client:
        assert client.post(SUBMIT, content=submission("ada")).status_code == 201
        if how == "replaced":
            shutil.copy(db, tmp_path / "copy.sqlite")
        for path in tmp_path.glob("db.sqlite*"):
            path.unlink()
        if how == "replaced":
            (tmp_path / "copy.sqlite").rename(db)
        health = wait_for_health(client, 503)  # the file's identity is looked at every second
        assert (health["status"], health["problem"]["code"]) == ("unavailable", "store-unavailable")
        assert f"was {how} while the server ran" in health["problem"]["message"]
        assert health["submissions"] is None
        answer = client.post(SUBMIT, content=submission("bob"))
        assert answer.status_code == 503 and answer.json()["code"] == "store-unavailable"
        answer = client.get(f"/v1/puzzles/{PUZZLE_ID}/leaderboard")
        assert answer.status_code == 503 and answer.json()["code"] == "store-unavailable"
        assert client.get(f"/v1/puzzles/{PUZZLE_ID}").status_code == 200  # puzzles still served


def filled_database(path: Path, players: int = 300) -> None:
    """A database with ``players`` entries, checkpointed into its main file."""
    with TestClient(service.create_app(open_settings(path))) as client:
        for k in range(players):
            assert client.post(SUBMIT, content=submission(f"p{k}")).status_code == 201
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def damage(path: Path) -> None:
    """Overwrite one page two thirds into the file: the file still opens and its tables are
    still found (a start that only opens it would pass), but ``quick_check`` fails."""
    page = (path.stat().st_size // 4096) * 2 // 3
    with path.open("r+b") as f:
        f.seek(page * 4096 + 100)
        f.write(b"\xa5" * 3000)


def test_a_damaged_file_is_refused_at_start_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"
    filled_database(db)
    damage(db)
    done = subprocess.run(
        [sys.executable, "-m", "cruel_tools.cli.app", "serve", "--port", str(free_port())]
        + ["--db", str(db), "--puzzles", str(ROOT / "puzzles")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {db}: failed SQLite's integrity check: ")
    assert done.stderr.count("\n") == 1


def test_a_file_damaged_while_serving_is_found_at_the_next_check(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    filled_database(db)
    settings = open_settings(db)
    settings.check_interval = 0.5
    with TestClient(service.create_app(settings)) as client:
        assert wait_for_health(client, 200)["submissions"] == 300
        damage(db)
        health = wait_for_health(client, 503)
        assert health["problem"]["code"] == "store-unavailable"
        assert "is damaged" in health["problem"]["message"]
        answer = client.post(SUBMIT, content=submission("late"))
        assert answer.status_code == 503 and answer.json()["code"] == "store-unavailable"


def test_a_full_disk_is_disk_full_not_busy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cruel_tools.site.leaderboard import Leaderboards

    insert = Leaderboards._insert

    def on_a_full_disk(self: Leaderboards, *args: Any) -> Any:
        # SQLite's own SQLITE_FULL: no page may be added to the file.
        db = self.database.connection  # type: ignore[attr-defined]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return insert(self, *args)

    monkeypatch.setattr(Leaderboards, "_insert", on_a_full_disk)
    with TestClient(service.create_app(open_settings(tmp_path / "db.sqlite"))) as client:
        codes = []
        for k in range(60):  # a page fills after a few entries
            answer = client.post(SUBMIT, content=submission(f"p{k}"))
            codes.append(answer.status_code if answer.status_code != 503 else answer.json()["code"])
            if codes[-1] == "disk-full":
                break
        assert codes[-1] == "disk-full" and set(codes[:-1]) <= {201}, codes
        assert answer.headers["retry-after"] == "10"
        health = wait_for_health(client, 503, 1)
        assert (health["status"], health["problem"]["code"]) == ("unavailable", "disk-full")
        assert health["submissions"] == len(codes) - 1  # reads go on


# --- workers and their supervisor --------------------------------------------------------------


def children(pid: int) -> list[int]:
    return child_processes(pid)


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow  # two servers of two workers each, a kill and a wait: 9-13 s
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_workers_end_with_a_killed_supervisor_and_the_port_can_be_served_again(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path, "--workers", "2")
    try:
        deadline = time.monotonic() + 30
        while len(workers := [p for p in children(server.proc.pid) if alive(p)]) < 2:
            assert time.monotonic() < deadline, "no workers"
            time.sleep(0.1)
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(timeout=10)
        deadline = time.monotonic() + 30
        while any(alive(p) for p in workers):
            assert time.monotonic() < deadline, f"workers {workers} outlived their supervisor"
            time.sleep(0.1)
        with pytest.raises(OSError):
            request(server.port, "GET", "/v1/health")  # no one serves the port
        again = Server(tmp_path, "--workers", "2", port=server.port)
        try:
            assert request(again.port, "GET", "/v1/health")[0] == 200
        finally:
            again.stop()
        assert "Address already in use" not in again.stderr()
    finally:
        server.stop()
        for pid in workers if "workers" in locals() else []:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
