"""``cruel serve`` as a real server: a process on a free loopback port, spoken to over HTTP."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import Any

import orjson
import pytest

from cruel_tools.game.game import REDEAL, Move
from cruel_tools.game.log import compact, load, to_step

from .helpers import other_win, published_puzzles, puzzle_log

ROOT = Path(__file__).parent.parent
PUZZLE_ID = "2027-01-05-medium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cruel(*args: str) -> list[str]:
    return [sys.executable, "-m", "cruel_tools.cli.app", *args]


def start(db: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """A running ``cruel serve`` and its port (the test waits until it answers)."""
    port = free_port()
    args = ["serve", "--port", str(port), "--db", str(db), "--today", "2027-01-05", *extra]
    args += ["--head-timeout", "2"]
    proc = subprocess.Popen(
        cruel(*args, "--puzzles", str(ROOT / "puzzles"), "--no-access-log"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if request(port, "GET", "/v1/health")[0] == 200:
                return proc, port
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            err = proc.stderr.read().decode() if proc.stderr else ""
            pytest.fail(f"cruel serve did not come up: {err}")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    # Par logs rank here as they are sent (their review: tests/test_live_attempts.py), and
    # untimed logs rank (--rank-untimed): these tests are about ranking over HTTP.
    proc, port = start(
        tmp_path_factory.mktemp("serve") / "cruel.sqlite",
        "--open",
        "--rank-untimed",
        "--no-review-par",
    )
    try:
        yield port
    finally:
        stop(proc)


def request(
    port: int, method: str, path: str, body: bytes | None = None, key: str | None = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_a_game_goes_from_submission_to_leaderboard_over_http(server: int) -> None:
    status, health = request(server, "GET", "/v1/health")
    assert health["today"] == "2027-01-05" and health["puzzles"] == 360
    status, daily = request(server, "GET", "/v1/puzzles/daily/today?tier=medium")
    assert status == 200 and daily["puzzles"][0]["id"] == PUZZLE_ID
    log = puzzle_log(published_puzzles().get(PUZZLE_ID))
    status, report = request(server, "POST", "/v1/verify", orjson.dumps(log))
    assert status == 200 and report["outcome"] == "won"
    body = orjson.dumps({"player": "ada", "log": log})
    status, result = request(server, "POST", f"/v1/puzzles/{PUZZLE_ID}/submissions", body)
    assert status == 201 and result["accepted"] is True
    status, again = request(server, "POST", f"/v1/puzzles/{PUZZLE_ID}/submissions", body)
    assert status == 200 and again["duplicate"] is True
    status, board = request(server, "GET", f"/v1/puzzles/{PUZZLE_ID}/leaderboard")
    assert [e["player"] for e in board["entries"]] == ["ada"]
    status, solution = request(server, "GET", "/v1/puzzles/2027-01-04-easy/solution")
    assert status == 200 and solution["log"]["format"] == "cruel-log/1"


def test_a_future_puzzle_is_404_puzzle_not_open_over_http(server: int) -> None:
    # The server's today is 2027-01-05 (in UTC, the default --tz): 2027-01-06 has not begun.
    future, missing = "2027-01-06-medium", "2027-01-06-mediux"
    body = orjson.dumps({"player": "ada", "log": puzzle_log(published_puzzles().get(future))})
    for method, suffix in [
        ("GET", ""),
        ("GET", "/solution"),
        ("GET", "/leaderboard"),
        ("POST", "/submissions"),
    ]:
        sent = body if method == "POST" else None
        status, error = request(server, method, f"/v1/puzzles/{future}{suffix}", sent)
        assert (status, error["code"]) == (404, "puzzle-not-open"), (suffix, error)
        assert request(server, method, f"/v1/puzzles/{missing}{suffix}", sent) == (
            404,
            {**error, "message": error["message"].replace(future, missing)},
        )
    status, error = request(server, "GET", "/v1/puzzles/daily/2027-01-06")
    assert (status, error["code"]) == (404, "puzzle-not-open")


def test_a_live_attempt_is_played_and_timed_by_the_server_process(server: int) -> None:
    puzzle = "2027-01-05-easy"
    body = orjson.dumps({"format": "cruel-attempt/1", "player": "tim", "auto": "off"})
    status, started = request(server, "POST", f"/v1/puzzles/{puzzle}/attempts", body)
    assert status == 201 and started["format"] == "cruel-attempt-state/1"
    time.sleep(0.3)
    # The whole win in one request: the server times it, and no person plays so.
    steps = [compact(to_step(e)) for e in published_puzzles().get(puzzle).solution]
    url = f"/v1/attempts/{started['attempt']}/steps"
    status, won = request(server, "POST", url, orjson.dumps({"steps": steps}))
    assert status == 200 and won["status"] == "won", won
    assert 300 <= won["elapsed_ms"] < 60_000 and "batched" in won["flags"]
    assert won["entry"]["accepted"] and won["entry"]["rank"] is None  # waits for a moderator
    status, board = request(server, "GET", f"/v1/puzzles/{puzzle}/leaderboard?by=time")
    assert board["entries"] == []
    # The old flow, a log naming the attempt, is refused.
    log = puzzle_log(published_puzzles().get(puzzle))
    sent = {"player": "tim", "log": log, "attempt": started["attempt"]}
    url = f"/v1/puzzles/{puzzle}/submissions"
    status, result = request(server, "POST", url, orjson.dumps(sent))
    assert (status, result["reason"]["code"]) == (200, "bad-attempt")
    status, error = request(server, "POST", "/v1/puzzles/2027-01-06-easy/attempts", body)
    assert (status, error["code"]) == (404, "puzzle-not-open")


def moves_redeals(steps: list[Any]) -> tuple[int, int]:
    return sum(isinstance(s, Move) for s in steps), sum(s == REDEAL for s in steps)


def test_equal_games_share_rank_1_and_a_worse_one_is_3_over_http(server: int) -> None:
    puzzle = published_puzzles().get("2027-01-05-hard")
    par = load(orjson.dumps(puzzle_log(puzzle))).steps()
    worse = next(
        steps
        for seed in range(1, 60)
        if moves_redeals(steps := other_win(puzzle, seed)) > moves_redeals(par)
    )
    url = f"/v1/puzzles/{puzzle.id}/submissions"
    sent = [("early", puzzle_log(puzzle)), ("worse", puzzle_log(puzzle, worse))]
    sent.append(("late", puzzle_log(puzzle)))
    for player, log in sent:
        status, result = request(server, "POST", url, orjson.dumps({"player": player, "log": log}))
        assert status == 201 and result["accepted"] is True, result
        time.sleep(0.05)  # the two equal games arrive at different times
    status, board = request(server, "GET", f"/v1/puzzles/{puzzle.id}/leaderboard")
    assert status == 200
    entries = board["entries"]
    assert [(e["player"], e["rank"]) for e in entries] == [("early", 1), ("late", 1), ("worse", 3)]
    assert entries[0]["submitted_at"] < entries[1]["submitted_at"]
    assert (entries[0]["moves"], entries[0]["redeals"]) == moves_redeals(par)


def test_player_names_are_checked_over_http(server: int) -> None:
    puzzle = published_puzzles().get("2027-01-05-expert")
    url = f"/v1/puzzles/{puzzle.id}/submissions"
    log = puzzle_log(puzzle)
    refused = {
        "ada\U0001d173": "U+1D173 MUSICAL SYMBOL BEGIN BEAM",
        "ada\u3164": "U+3164 HANGUL FILLER",
        "ada\u034f": "U+034F COMBINING GRAPHEME JOINER",
    }
    for name, code_point in refused.items():
        status, error = request(server, "POST", url, orjson.dumps({"player": name, "log": log}))
        assert (status, error["code"], error["path"]) == (422, "bad-player-name", "/player")
        assert f"{code_point} is disallowed by PRECIS UsernameCasePreserved" in error["message"]
    status, result = request(server, "POST", url, orjson.dumps({"player": "ada", "log": log}))
    assert status in (200, 201) and result["accepted"] is True, result
    fake = orjson.dumps({"player": "\u0430da", "log": log})  # a Cyrillic а
    status, result = request(server, "POST", url, fake)
    assert (status, result["accepted"], result["reason"]["code"]) == (
        200,
        False,
        "player-name-confusable",
    )
    status, board = request(server, "GET", f"/v1/puzzles/{puzzle.id}/leaderboard")
    assert [e["player"] for e in board["entries"]] == ["ada"]


def raw(port: int, data: bytes) -> bytes:
    """Send bytes as they are (no client library to tidy them up); the first line back."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        return s.recv(65536).split(b"\r\n", 1)[0]


def test_a_huge_declared_body_is_refused_before_it_is_sent(server: int) -> None:
    head = b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000000\r\n\r\n"
    assert raw(server, head) == b"HTTP/1.1 413 Request Entity Too Large"


@pytest.mark.parametrize("sent", [b"", b"GET /v1/health HTTP/1.1\r\nHost: x"])
def test_a_connection_whose_request_head_is_late_is_closed(server: int, sent: bytes) -> None:
    # Silent, or stopped half-way through its headers: either would hold a connection for ever.
    with socket.create_connection(("127.0.0.1", server), timeout=10) as s:
        s.sendall(sent)
        assert s.recv(65536) == b""  # closed by the server (a hang would time out: an error)


def test_garbage_and_malformed_requests_get_4xx_and_the_server_lives_on(server: int) -> None:
    assert raw(server, b"\x00\x01garbage\r\n\r\n").startswith(b"HTTP/1.1 400")
    bad_length = b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"
    assert raw(server, bad_length).startswith(b"HTTP/1.1 400")
    status, error = request(server, "POST", "/v1/verify", b"\xff\xfe{")
    assert status == 400 and error["code"] == "not-json"
    assert request(server, "GET", "/v1/health")[0] == 200


def test_the_start_up_line_and_health_name_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An operator sees a server on the slow engine without a request, and health says so."""
    monkeypatch.setenv("CRUEL_ENGINE", "python")
    proc, port = start(tmp_path / "cruel.sqlite")
    try:
        health = request(port, "GET", "/v1/health")[1]
    finally:
        stop(proc)
    assert (health["engine"], health["engine_line"]) == (
        "python",
        "engine: python (CRUEL_ENGINE=python)",
    )
    assert proc.stderr is not None
    first = proc.stderr.read().decode().splitlines()[0]
    assert first == f"cruel {version('cruel-tools')}, engine: python (CRUEL_ENGINE=python)"


def test_a_port_in_use_is_one_line_and_exit_2(server: int) -> None:
    done = subprocess.run(
        cruel("serve", "--port", str(server)), cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{server}: ")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--puzzles", "no/such/folder"], "not a folder of puzzles"),
        (["--today", "someday"], "--today: not a date"),
        (["--tz", "Nowhere/City"], "--tz: unknown time zone 'Nowhere/City'"),
        (["--db", "{tmp}/notes.txt"], "cannot use as a database"),
    ],
)
def test_serve_refuses_to_start_with_one_line(args: list[str], words: str, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a database, " * 200)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run(
        cruel("serve", "--port", str(free_port()), *args),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and words in done.stderr
    assert "Traceback" not in done.stderr


def test_worker_processes_share_one_leaderboard(tmp_path: Path) -> None:
    proc, port = start(
        tmp_path / "cruel.sqlite",
        "--workers",
        "2",
        "--open",
        "--rank-untimed",
        "--rate-player",
        "off",
        "--no-review-par",
    )
    try:
        log = puzzle_log(published_puzzles().get(PUZZLE_ID))
        url = f"/v1/puzzles/{PUZZLE_ID}/submissions"
        bodies = [orjson.dumps({"player": f"p{k % 4}", "log": log}) for k in range(24)]
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda b: request(port, "POST", url, b), bodies))
        assert sorted(status for status, _ in answers) == [200] * 20 + [201] * 4
        ids = {body["player"]: body["submission_id"] for _, body in answers}
        board = request(port, "GET", f"/v1/puzzles/{PUZZLE_ID}/leaderboard")[1]
        assert {e["player"]: e["submission_id"] for e in board["entries"]} == ids
    finally:
        stop(proc)


def test_keys_made_and_revoked_by_the_cli_rule_a_running_server(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"

    def keys(*args: str) -> str:
        done = subprocess.run(
            cruel("keys", *args, "--db", str(db)), capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    made = dict(
        line.split(" ", 1)
        for line in keys("add", "--role", "site", "--name", "s", "--create").split("\n")
        if line
    )
    proc, port = start(db, "--rate-player", "2/h", "--burst-player", "1")
    try:
        url = f"/v1/puzzles/{PUZZLE_ID}/submissions"
        body = orjson.dumps(
            {"player": "ada", "log": puzzle_log(published_puzzles().get(PUZZLE_ID))}
        )
        status, error = request(port, "POST", url, body)
        assert (status, error["code"]) == (401, "missing-key")
        status, result = request(port, "POST", url, body, made["key"])
        assert status == 201 and result["accepted"] is True
        # ada's bucket (one token, a new one every 30 minutes) is empty now.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", url, body, {"Authorization": f"Bearer {made['key']}"})
        response = conn.getresponse()
        assert (response.status, json.loads(response.read())["code"]) == (429, "rate-limited")
        assert 1795 <= int(response.headers["Retry-After"]) <= 1800
        conn.close()
        keys("revoke", made["id"])
        status, error = request(port, "POST", url, body, made["key"])
        assert (status, error["code"]) == (401, "revoked-key")
    finally:
        stop(proc)
    assert proc.stderr is not None and b"--open" not in proc.stderr.read()


def test_an_open_server_takes_keyless_submissions_and_warns(tmp_path: Path) -> None:
    proc, port = start(tmp_path / "cruel.sqlite", "--open")
    try:
        url = f"/v1/puzzles/{PUZZLE_ID}/submissions"
        body = orjson.dumps(
            {"player": "ada", "log": puzzle_log(published_puzzles().get(PUZZLE_ID))}
        )
        assert request(port, "POST", url, body)[0] == 201
        status, error = request(port, "POST", url, body, "cruel_not-a-key")
        assert (status, error["code"]) == (401, "bad-key")  # a key sent is checked all the same
    finally:
        stop(proc)
    assert proc.stderr is not None
    assert b"warning: --open: submissions need no API key" in proc.stderr.read()


def test_an_admin_key_made_by_the_cli_bans_and_unbans_over_http(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"

    def key(role: str) -> str:
        done = subprocess.run(
            cruel(
                "keys", "add", "--role", role, "--name", f"{role} 1", "--db", str(db), "--create"
            ),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return dict(line.split(" ", 1) for line in done.stdout.split("\n") if line)["key"]

    site, admin = key("site"), key("admin")
    proc, port = start(db, "--no-review-par")  # the published par line ranks at once
    try:
        url = f"/v1/puzzles/{PUZZLE_ID}/submissions"
        body = orjson.dumps(
            {"player": "ada", "log": puzzle_log(published_puzzles().get(PUZZLE_ID))}
        )
        status, result = request(port, "POST", url, body, site)
        assert status == 201 and result["rank"] == 1
        ban = "/v1/admin/players/ada/ban"
        assert request(port, "POST", ban, None, site)[1]["code"] == "wrong-role"
        status, done = request(port, "POST", ban, b'{"reason": "test"}', admin)
        assert status == 200 and (done["action"], done["banned"]) == ("ban", True)
        board = request(port, "GET", f"/v1/puzzles/{PUZZLE_ID}/leaderboard")[1]
        assert board["entries"] == [] and board["total"] == 0
        status, error = request(port, "POST", url, body, site)
        assert (status, error["code"]) == (403, "player-banned")
        status, done = request(port, "POST", "/v1/admin/players/ada/unban", None, admin)
        assert status == 200 and done["listed"] == 1
        board = request(port, "GET", f"/v1/puzzles/{PUZZLE_ID}/leaderboard")[1]
        assert [(e["rank"], e["player"]) for e in board["entries"]] == [(1, "ada")]
        status, audit = request(port, "GET", "/v1/admin/audit", None, admin)
        assert status == 200 and audit["total"] == 2
        assert [(e["action"], e["key_name"], e["reason"]) for e in audit["entries"]] == [
            ("unban", "admin 1", None),
            ("ban", "admin 1", "test"),
        ]
    finally:
        stop(proc)
