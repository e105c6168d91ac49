"""What an operator sees (issue #24, finding 8): repeated store errors logged once per interval
with a count, and a database that went missing refused at start instead of made anew empty."""

from __future__ import annotations

import datetime as dt
import logging
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.service import errors
from cruel_tools.site.database import StoreError
from cruel_tools.site.statefile import STATE_FORMAT, DatabaseState, state_path
from cruel_tools.site.stores import open_stores

from .helpers import failing_leaderboard, published_puzzles, puzzle_log
from .stores import FreshSchema, needs_postgres

pytestmark = pytest.mark.integration  # servers and databases (as tests/test_service.py)

ROOT = Path(__file__).parent.parent
PUZZLE_ID = "2027-01-05-hard"
BOARD = f"/v1/puzzles/{PUZZLE_ID}/leaderboard"
TODAY = dt.date(2027, 1, 5)


def settings(db: Path | str, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles", db=db, fixed_today=TODAY, key_limit=None, player_limit=None,
        **fields,
    )  # fmt: skip


class Lines(logging.Handler):
    """The lines of the loggers an operator reads: the server's and psycopg's pool."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        # What a server prints: uvicorn's configuration shows its own loggers from INFO, other
        # libraries' (psycopg's) reach Python's last-resort handler, WARNING and above.
        if record.name.startswith("uvicorn") or record.levelno >= logging.WARNING:
            self.lines.append(record.getMessage())


@pytest.fixture
def lines() -> Iterator[list[str]]:
    handler = Lines()
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "psycopg.pool")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield handler.lines
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


# --- repeated store errors -----------------------------------------------------------------------


def test_repeated_store_errors_are_one_line_per_interval_with_a_count(
    tmp_path: Path, lines: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = failing_leaderboard(tmp_path / "db.sqlite", monkeypatch)
    app = service.create_app(settings(tmp_path / "db.sqlite"), stores)
    now = [0.0]
    app.state.store_log.clock = lambda: now[0]
    with TestClient(app) as client:
        for k in range(36):  # finding 8: 36 failed requests in 20 s
            now[0] = k * 20 / 36
            answer = client.get(BOARD)
            assert answer.status_code == 503 and answer.json()["code"] == "store-unavailable"
    mine = [line for line in lines if line.startswith("store error")]
    first = (
        "store error, answered 503 store-unavailable: the database failed (disk I/O error); "
        "the server is checking the file, try again later"
    )
    # One line at 0 s, one at 10 s counting the 17 left out between, and so on.
    assert mine == [
        first,
        f"{first} (and 17 more since the last such line)",
    ], mine
    assert all("\n" not in line for line in lines)


def test_the_pools_reconnection_warnings_are_one_line_per_interval(
    tmp_path: Path, lines: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [100.0]
    monkeypatch.setattr(errors.POOL_LOG, "clock", lambda: now[0])
    monkeypatch.setattr(errors.POOL_LOG, "_last", -float("inf"))
    monkeypatch.setattr(errors.POOL_LOG, "_left_out", 0)
    with TestClient(service.create_app(settings(tmp_path / "db.sqlite"))):  # installs it
        pool = logging.getLogger("psycopg.pool")
        for k in range(8):  # psycopg's own words: two lines, twice per attempt
            now[0] = 100.0 + k * 2
            pool.warning("error connecting in 'cruel': connection failed\n\tThis probably means")
        pool.error("an error is a warning too")
    assert lines == [
        "error connecting in 'cruel': connection failed This probably means",
        "error connecting in 'cruel': connection failed This probably means "
        "(and 4 more since the last such line)",
    ]


class Proxy:
    """A TCP proxy to the PostgreSQL server that can be cut: an outage without stopping the
    server other tests use."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.up = True
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            server = socket.create_connection(self.target)
            self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for end in (a, b):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.up = False
        for end in self.open:
            try:
                end.shutdown(socket.SHUT_RDWR)
                end.close()
            except OSError:
                pass
        self.open = []

    def close(self) -> None:
        self.cut()
        self.sock.close()


@pytest.mark.integration
@pytest.mark.slow  # a 12 s outage; the interval itself is tested in-process above
def test_a_postgresql_outage_logs_a_few_lines_not_one_per_failure(lines: list[str]) -> None:
    # Finding 8: 36 failed requests during a PostgreSQL outage wrote 68 log lines in 20 s.
    from psycopg.conninfo import conninfo_to_dict

    fresh = FreshSchema(needs_postgres())
    info = conninfo_to_dict(fresh.url)
    proxy = Proxy(str(info.get("host", "127.0.0.1")), int(str(info.get("port", 5432))))
    url = fresh.url.replace(f":{info.get('port', 5432)}/", f":{proxy.port}/")
    try:
        app = service.create_app(settings(url, db_timeout=2.0))
        with TestClient(app) as client:
            assert client.get("/v1/health").json()["status"] == "ok"
            proxy.cut()
            before, started = len(lines), time.monotonic()
            failed = 0
            while time.monotonic() - started < 12:
                failed += client.get(BOARD).status_code == 503
            during = lines[before:]
    finally:
        proxy.close()
        fresh.drop()
    assert failed >= 8
    # In 12 s, intervals of 10 s: at most two lines of the store's errors and two of the pool.
    assert len(during) <= 4, during
    assert all("\n" not in line for line in during)
    assert any(line.startswith("store error, answered 503 store-unavailable") for line in during)


# --- a database gone missing -------------------------------------------------------------------


def test_a_first_start_makes_the_database_and_its_state_file(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"
    open_stores(db, create=True).close()
    state = tmp_path / "cruel.sqlite.state"
    assert state_path(db) == state and db.exists() and state.exists()
    doc = DatabaseState.model_validate_json(state.read_bytes())
    assert doc.format == STATE_FORMAT and doc.database == str(db.resolve())
    written = state.read_bytes()
    open_stores(db, create=True).close()  # a later start keeps it as it is
    assert state.read_bytes() == written
    assert state_path(":memory:") is None and state_path("postgresql://h/db") is None


def test_a_state_file_that_cannot_be_written_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cruel_tools.site import statefile

    def refused(*args: Any) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("cruel_tools.site.statefile.os.open", refused)
    with pytest.raises(StoreError) as info:
        statefile.record_database(tmp_path / "cruel.sqlite")
    assert str(info.value) == f"cannot write {tmp_path / 'cruel.sqlite.state'}: Permission denied"


def test_a_database_made_before_state_files_gets_one(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"
    open_stores(db, create=True).close()
    (tmp_path / "cruel.sqlite.state").unlink()
    open_stores(db, create=False).close()  # an upgrade: the file is there, so is now its state
    assert (tmp_path / "cruel.sqlite.state").exists()


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_database_missing_beside_its_state_file_is_refused(tmp_path: Path, how: str) -> None:
    # Finding 8: after the SQLite file was deleted, a restart made an empty one: health ok,
    # every key 401.
    db = tmp_path / "cruel.sqlite"
    stores = open_stores(db, create=True)
    made, key = stores.keys.add("example.com", "site")
    stores.close()
    with TestClient(service.create_app(settings(db))) as client:
        answer = client.post(
            f"/v1/puzzles/{PUZZLE_ID}/submissions",
            content=orjson.dumps(
                {"player": "ada", "log": puzzle_log(published_puzzles().get(PUZZLE_ID))}
            ),
            headers={"Authorization": f"Bearer {key}"},
        )
        assert answer.status_code == 201
    for path in tmp_path.glob("cruel.sqlite*"):
        if path.suffix != ".state":
            path.unlink()
    if how == "emptied":
        db.touch()  # SQLite would take a file of no bytes for a new database
    state = tmp_path / "cruel.sqlite.state"
    expected = (
        f"{db} is missing, but {state} says the service has run with it since "
        f"{dt.date.today():%Y-%m-%d}: restore the database from a backup, or remove {state} to "
        "start with an empty one"
    )
    with pytest.raises(StoreError) as info:
        service.create_app(settings(db))
    assert str(info.value) == expected
    assert not db.exists() or db.stat().st_size == 0  # nothing was made
    # What the line says to do: removing the state file starts an empty database.
    state.unlink()
    with TestClient(service.create_app(settings(db))) as client:
        assert client.get("/v1/health").json()["submissions"] == 0
    assert state.exists()


@pytest.mark.integration
def test_cruel_serve_refuses_a_missing_database_in_one_line(tmp_path: Path) -> None:
    from .test_serve_process import cruel, free_port, start, stop

    db = tmp_path / "cruel.sqlite"
    proc, _ = start(db)  # a fresh machine: the first start makes both files
    stop(proc)
    assert db.exists() and (tmp_path / "cruel.sqlite.state").exists()
    db.unlink()
    args = ["serve", "--port", str(free_port()), "--db", str(db), "--open"]
    done = subprocess.run(
        cruel(*args, "--puzzles", str(ROOT / "puzzles")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {db} is missing, but {db}.state says the service ")
    assert done.stderr.count("\n") == 1
    assert not db.exists()
