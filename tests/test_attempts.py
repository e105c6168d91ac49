"""Server-timed attempts (docs/service.md, Server-timed attempts): the server's clock times a win."""

from __future__ import annotations

import dataclasses
import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.attempts import Attempts, parse_attempt
from cruel_tools.game import Move
from cruel_tools.keys import KeyStore
from cruel_tools.leaderboard import Leaderboards
from cruel_tools.log import LogFormatError, load
from cruel_tools.schema import DB_VERSION
from cruel_tools.submissions import judge, parse_submission

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import sqlite_only, store_target

__all__ = ["sqlite_only", "store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
PUZZLE = "2027-01-05-easy"
OTHER = "2027-01-05-medium"
FUTURE = "2027-01-06-easy"
T0 = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)


class WallClock:
    """The server's time, moved only when told."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@pytest.fixture
def db(store_target: Path | str) -> Path | str:
    """The store: an SQLite file, or a fresh PostgreSQL schema (tests.stores)."""
    return store_target


@pytest.fixture
def wall() -> WallClock:
    return WallClock()


def settings(db: Path, wall: WallClock, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        clock=lambda: 1000.0,
        wall_clock=wall,
        **fields,
    )


@pytest.fixture
def keys(db: Path) -> Iterator[KeyStore]:
    store = KeyStore(db)
    yield store
    store.close()


@pytest.fixture
def client(db: Path, wall: WallClock) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings(db, wall))) as c:
        yield c


@pytest.fixture
def key(keys: KeyStore, client: TestClient) -> str:
    return keys.add("example.com", "site")[1]


def bearer(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def start(
    client: TestClient, key: str | None, player: str = "ada", puzzle: str = PUZZLE, **body: Any
) -> Any:
    doc = {"format": "cruel-attempt/1", "player": player, **body}
    return client.post(
        f"/v1/puzzles/{puzzle}/attempts", content=orjson.dumps(doc), headers=bearer(key)
    )


def attempt_id(client: TestClient, key: str | None, player: str = "ada", **kw: Any) -> str:
    response = start(client, key, player, **kw)
    assert response.status_code == 201, response.text
    found: str = response.json()["attempt"]
    return found


def win(puzzle: str = PUZZLE, steps: Any = None) -> dict[str, Any]:
    return puzzle_log(published_puzzles().get(puzzle), steps)


def submit(
    client: TestClient,
    key: str | None,
    player: str = "ada",
    attempt: str | None = None,
    log: dict[str, Any] | None = None,
    puzzle: str = PUZZLE,
) -> Any:
    doc: dict[str, Any] = {"player": player, "log": log or win(puzzle)}
    if attempt is not None:
        doc["attempt"] = attempt
    return client.post(
        f"/v1/puzzles/{puzzle}/submissions", content=orjson.dumps(doc), headers=bearer(key)
    )


def board(client: TestClient, **query: Any) -> Any:
    """Every entry, unless ``best_per_player`` (the API's default) is asked for."""
    query = {"best_per_player": False} | query
    response = client.get(f"/v1/puzzles/{PUZZLE}/leaderboard", params=query)
    assert response.status_code == 200, response.text
    return response.json()


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert (body["format"], body["code"]) == ("cruel-error/1", code)
    return body


def rejected(response: Any) -> str:
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["accepted"] is False and result["submission_id"] is None
    assert (result["reason"]["code"], result["reason"]["path"]) == ("bad-attempt", "/attempt")
    message: str = result["reason"]["message"]
    return message


# --- starting ------------------------------------------------------------------------------------


def test_an_attempt_starts_at_the_servers_time(client: TestClient, key: str) -> None:
    response = start(client, key)
    assert response.status_code == 201
    body = response.json()
    assert body["format"] == "cruel-attempt-started/1"
    assert (body["puzzle"], body["player"]) == (PUZZLE, "ada")
    assert dt.datetime.fromisoformat(body["started_at"]) == T0
    assert len(body["attempt"]) >= 22
    assert attempt_id(client, key) != body["attempt"]  # a new id each time


def test_an_attempt_needs_a_site_key(client: TestClient, keys: KeyStore) -> None:
    error(start(client, None), 401, "missing-key")
    error(start(client, "cruel_nope"), 401, "bad-key")
    error(start(client, keys.add("moderator", "admin")[1]), 403, "wrong-role")


def test_an_attempt_on_a_puzzle_not_open_is_404(client: TestClient, key: str) -> None:
    future = error(start(client, key, puzzle=FUTURE), 404, "puzzle-not-open")
    missing = error(start(client, key, puzzle="2027-01-06-easx"), 404, "puzzle-not-open")
    assert missing["message"] == future["message"].replace(FUTURE, "2027-01-06-easx")


def test_an_attempt_names_its_player_as_a_submission_does(client: TestClient, key: str) -> None:
    body = error(start(client, key, player="ada\u200b"), 422, "bad-player-name")
    assert body["path"] == "/player"
    # The name is stored in its enforced form, as a submission's.
    assert start(client, key, player="\uff41da").json()["player"] == "ada"
    assert error(start(client, key, extra=1), 422, "schema")["path"] == "/extra"
    response = client.post(f"/v1/puzzles/{PUZZLE}/attempts", content=b"{", headers=bearer(key))
    error(response, 400, "not-json")


def test_parse_attempt_takes_an_optional_format() -> None:
    assert parse_attempt(b'{"player": "ada"}').player == "ada"
    with pytest.raises(LogFormatError) as info:
        parse_attempt(b'{"format": "cruel-attempt/2", "player": "ada"}')
    assert (info.value.code, info.value.path) == ("schema", "/format")


def test_attempts_are_rate_limited_with_submissions(db: Path, wall: WallClock) -> None:
    from cruel_tools.keys import RateLimit

    limited = settings(db, wall, open=True, player_limit=RateLimit(rate=1.0, burst=2))
    with TestClient(service.create_app(limited)) as client:
        first = attempt_id(client, None)
        assert submit(client, None, attempt=first).status_code == 201
        response = error(start(client, None), 429, "rate-limited")
        assert response["path"] == "/player"


def test_an_open_server_starts_keyless_attempts(db: Path, wall: WallClock) -> None:
    with TestClient(service.create_app(settings(db, wall, open=True))) as client:
        attempt = attempt_id(client, None)
        wall.advance(seconds=5)
        assert submit(client, None, attempt=attempt).json()["elapsed_ms"] == 5000


# --- timing --------------------------------------------------------------------------------------


def test_the_time_is_the_servers_not_the_logs(
    client: TestClient, key: str, wall: WallClock
) -> None:
    attempt = attempt_id(client, key)
    wall.advance(seconds=83, milliseconds=250)
    forged = win() | {"meta": {"elapsed_ms": 1, "started_at": "2027-01-05T09:00:00Z", "time": 1}}
    response = submit(client, key, attempt=attempt, log=forged)
    assert response.status_code == 201, response.text
    result = response.json()
    assert result["accepted"] and result["elapsed_ms"] == 83250
    assert dt.datetime.fromisoformat(result["submitted_at"]) == wall.now
    [entry] = board(client)["entries"]
    assert entry["elapsed_ms"] == 83250
    # Sent again (a retry), the entry is a duplicate and keeps its time, however late.
    wall.advance(hours=2)
    again = submit(client, key, attempt=attempt, log=forged).json()
    assert again["duplicate"] and again["elapsed_ms"] == 83250


def test_a_submission_without_an_attempt_is_untimed(client: TestClient, key: str) -> None:
    result = submit(client, key, log=win() | {"meta": {"elapsed_ms": 1}}).json()
    assert result["accepted"] and result["elapsed_ms"] is None
    assert board(client)["entries"][0]["elapsed_ms"] is None
    assert board(client, by="time") | {"entries": []} == {
        "format": "cruel-leaderboard/1",
        "puzzle": PUZZLE,
        "best_per_player": False,
        "by": "time",
        "total": 0,
        "offset": 0,
        "entries": [],
    }


def test_an_unknown_attempt_is_rejected(client: TestClient, key: str) -> None:
    assert rejected(submit(client, key, attempt="x" * 22)) == "no such attempt"
    assert board(client)["total"] == 0
    body = submit(client, key, attempt="x" * 65)
    assert error(body, 422, "schema")["path"] == "/attempt"


def test_a_foreign_attempt_is_rejected(
    client: TestClient, key: str, keys: KeyStore, wall: WallClock
) -> None:
    bobs = attempt_id(client, key, "bob")
    assert "another player" in rejected(submit(client, key, "ada", bobs))
    other_puzzle = attempt_id(client, key, puzzle=OTHER)
    assert "another puzzle" in rejected(submit(client, key, "ada", other_puzzle))
    other_key = keys.add("elsewhere.example", "site")[1]
    elsewhere = attempt_id(client, other_key)
    assert "another API key" in rejected(submit(client, key, "ada", elsewhere))
    assert board(client)["total"] == 0
    # A rejection does not use the attempt up: its own player's win is timed by it.
    wall.advance(seconds=1)
    assert submit(client, key, "bob", bobs).json()["elapsed_ms"] == 1000


def test_an_attempt_times_one_entry_only(client: TestClient, key: str, wall: WallClock) -> None:
    puzzle = published_puzzles().get(PUZZLE)
    attempt = attempt_id(client, key)
    wall.advance(seconds=10)
    first = submit(client, key, attempt=attempt).json()
    assert first["accepted"] and first["elapsed_ms"] == 10000
    # Another win of the same player, naming the used attempt.
    response = submit(client, key, attempt=attempt, log=win(steps=other_win(puzzle, seed=1)))
    assert f"already timed entry {first['submission_id']}" in rejected(response)
    assert board(client)["total"] == 1


def test_a_used_attempt_is_settled_in_the_write(tmp_path: Path) -> None:
    puzzle = published_puzzles().get(PUZZLE)
    path = tmp_path / "lb.sqlite"
    boards, attempts = Leaderboards(path), Attempts(path)
    started = attempts.start(PUZZLE, "ada", 7, T0)
    claim = attempts.use(started.attempt, PUZZLE, "ada", 7, T0 + dt.timedelta(seconds=3))
    par = dataclasses.replace(
        judge(puzzle, parse_submission(orjson.dumps({"player": "ada", "log": win()})), TODAY),
        attempt=claim,
    )
    assert boards.store(par).elapsed_ms == 3000
    twin = dataclasses.replace(par, game="another game", log="another")
    result = boards.store(twin)
    assert result.reason is not None and result.reason.code == "bad-attempt"
    boards.close()
    attempts.close()


# --- leaderboards by time ------------------------------------------------------------------------


def test_by_time_ranks_timed_wins_fastest_first_and_ties_share(
    client: TestClient, key: str, wall: WallClock
) -> None:
    puzzle = published_puzzles().get(PUZZLE)
    par = win()
    par_moves = sum(isinstance(m, Move) for m in load(orjson.dumps(par)).steps())
    wins = (other_win(puzzle, seed) for seed in range(1, 40))
    longer = next(s for s in wins if sum(isinstance(m, Move) for m in s) > par_moves)

    def timed(player: str, seconds: float, log: dict[str, Any]) -> None:
        attempt = attempt_id(client, key, player)
        wall.advance(seconds=seconds)
        assert submit(client, key, player, attempt, log).status_code == 201

    timed("carol", 50, par)
    timed("bob", 30, win(steps=longer))  # as fast as ada, more moves: listed after her
    timed("ada", 30, par)
    timed("erin", 20, par)
    assert submit(client, key, "dave").status_code == 201  # untimed
    by_time = board(client, by="time")
    assert by_time["by"] == "time" and by_time["total"] == 4
    ranked = [(e["player"], e["rank"], e["elapsed_ms"]) for e in by_time["entries"]]
    assert ranked == [("erin", 1, 20000), ("ada", 2, 30000), ("bob", 2, 30000), ("carol", 4, 50000)]
    # A page starting inside the tie shows the tie's rank.
    page = board(client, by="time", offset=2, limit=1)["entries"]
    assert [(e["player"], e["rank"]) for e in page] == [("bob", 2)]
    # By actions (the default), every entry, with its time when it has one.
    by_actions = board(client)
    assert by_actions["by"] == "actions" and by_actions["total"] == 5
    times = {e["player"]: e["elapsed_ms"] for e in by_actions["entries"]}
    assert times == {"carol": 50000, "ada": 30000, "erin": 20000, "dave": None, "bob": 30000}
    assert by_actions["entries"][-1]["player"] == "bob"  # the longer game
    error(client.get(f"/v1/puzzles/{PUZZLE}/leaderboard?by=speed"), 422, "bad-parameter")


def test_by_time_with_best_per_player_takes_each_players_fastest(
    client: TestClient, key: str, wall: WallClock
) -> None:
    puzzle = published_puzzles().get(PUZZLE)
    slow = attempt_id(client, key)
    wall.advance(seconds=40)
    assert submit(client, key, "ada", slow).status_code == 201
    fast = attempt_id(client, key)
    wall.advance(seconds=10)
    log = win(steps=other_win(puzzle, seed=1))
    assert submit(client, key, "ada", fast, log).status_code == 201
    bobs = attempt_id(client, key, "bob")
    wall.advance(seconds=20)
    assert submit(client, key, "bob", bobs).status_code == 201
    best = board(client, by="time", best_per_player="true")
    assert [(e["player"], e["rank"], e["elapsed_ms"]) for e in best["entries"]] == [
        ("ada", 1, 10000),
        ("bob", 2, 20000),
    ]


# --- the database ----------------------------------------------------------------------------------


def test_a_version_2_database_gets_elapsed_ms(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, puzzle TEXT NOT NULL,"
            " player TEXT NOT NULL, game TEXT NOT NULL, moves INTEGER NOT NULL, redeals INTEGER"
            " NOT NULL, log TEXT NOT NULL, submitted_at TEXT NOT NULL, UNIQUE (puzzle, player,"
            " game)); CREATE TABLE players (player TEXT PRIMARY KEY, skeleton TEXT NOT NULL);"
            " INSERT INTO submissions (puzzle, player, game, moves, redeals, log, submitted_at)"
            " VALUES ('p', 'ada', 'g', 70, 1, '', '2027-01-01T00:00:00+00:00');"
            " INSERT INTO players VALUES ('ada', 'ada'); PRAGMA user_version = 2;"
        )
    boards = Leaderboards(path)
    [entry] = boards.leaderboard("p").entries
    assert entry.elapsed_ms is None and entry.player == "ada"
    assert boards.leaderboard("p", by="time").total == 0
    boards.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == DB_VERSION


def test_a_players_fastest_win_is_the_servers_time_of_a_timed_win(
    client: TestClient, key: str, wall: WallClock
) -> None:
    assert submit(client, key).status_code == 201  # untimed: no time to count
    assert client.get("/v1/players/ada").json()["fastest_win_seconds"] is None
    attempt = attempt_id(client, key)
    wall.advance(seconds=75, milliseconds=500)
    other = win(steps=other_win(published_puzzles().get(PUZZLE), seed=1))
    other["meta"] = {"started_at": "2027-01-05T09:00:00Z", "finished_at": "2027-01-05T09:00:01Z"}
    assert submit(client, key, attempt=attempt, log=other).status_code == 201
    record = client.get("/v1/players/ada").json()
    assert record["wins"] == 2 and record["fastest_win_seconds"] == 75.5  # not meta's 1 s
