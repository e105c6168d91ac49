"""Timed play (docs/service.md, Live attempts and moderation queue): an attempt is started, its
steps are played by the server, and its win is timed by the server's clock. The old flow (start,
then submit a log naming the attempt) is refused; the by-time board ranks live attempts only.
The attacks of issue #24 are in tests/test_live_attempts.py."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.game.game import Move, Step
from cruel_tools.game.log import LogFormatError, compact, to_step
from cruel_tools.site.attempts import parse_attempt
from cruel_tools.site.keys import KeyStore
from cruel_tools.site.leaderboard import Leaderboards
from cruel_tools.site.tables import DB_VERSION

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import sqlite_only, store_target

__all__ = ["sqlite_only", "store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
PUZZLE = "2027-01-05-easy"
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


def settings(db: Path | str, wall: WallClock, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        clock=lambda: 1000.0,
        wall_clock=wall,
        # These par wins take 20-90 s (a third of a second a step and up): the mechanics of
        # timing, not the fast-par flag (tests/test_hostile_ranking.py).
        **{"key_limit": None, "par_pace_ms": 0, **fields},
    )


@pytest.fixture
def keys(db: Path | str) -> Iterator[KeyStore]:
    store = KeyStore(db)
    yield store
    store.close()


@pytest.fixture
def client(db: Path | str, wall: WallClock) -> Iterator[TestClient]:
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
    doc = {"format": "cruel-attempt/1", "player": player, "auto": "off", **body}
    return client.post(
        f"/v1/puzzles/{puzzle}/attempts", content=orjson.dumps(doc), headers=bearer(key)
    )


def attempt_id(client: TestClient, key: str | None, player: str = "ada", **kw: Any) -> str:
    response = start(client, key, player, **kw)
    assert response.status_code == 201, response.text
    found: str = response.json()["attempt"]
    return found


def par_steps(puzzle: str = PUZZLE) -> list[Step]:
    return [to_step(e) for e in published_puzzles().get(puzzle).solution]


def play(
    client: TestClient,
    key: str | None,
    wall: WallClock,
    player: str,
    seconds: float,
    steps: list[Step] | None = None,
) -> dict[str, Any]:
    """A live attempt of ``player`` winning with ``steps`` (default: par) in ``seconds`` of
    the server's time, at a person's uneven pace; its last state."""
    line = [compact(s) for s in (steps or par_steps())]
    attempt = attempt_id(client, key, player)
    rng = random.Random(player)
    weights = [0.5 + rng.random() for _ in line]
    total, done, began = round(seconds * 1000), 0.0, wall.now
    state: dict[str, Any] = {}
    for step, weight in zip(line, weights, strict=True):
        done += weight  # whole milliseconds from the start, ending at exactly `seconds`
        wall.now = began + dt.timedelta(milliseconds=round(total * done / sum(weights)))
        response = client.post(
            f"/v1/attempts/{attempt}/steps",
            content=orjson.dumps({"steps": [step]}),
            headers=bearer(key),
        )
        assert response.status_code == 200, response.text
        state = response.json()
    assert state["status"] == "won" and state["flags"] == [], state
    return state


def submit(
    client: TestClient,
    key: str | None,
    player: str = "ada",
    attempt: str | None = None,
    log: dict[str, Any] | None = None,
) -> Any:
    doc: dict[str, Any] = {"player": player, "log": log or win()}
    if attempt is not None:
        doc["attempt"] = attempt
    return client.post(
        f"/v1/puzzles/{PUZZLE}/submissions", content=orjson.dumps(doc), headers=bearer(key)
    )


def win(steps: Any = None) -> dict[str, Any]:
    return puzzle_log(published_puzzles().get(PUZZLE), steps)


def longer_win() -> list[Step]:
    """A win of the puzzle in more moves than par (not flagged when submitted untimed)."""
    par = sum(isinstance(m, Move) for m in par_steps())
    wins = (other_win(published_puzzles().get(PUZZLE), seed) for seed in range(1, 40))
    return next(s for s in wins if sum(isinstance(m, Move) for m in s) > par)


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


# --- starting ------------------------------------------------------------------------------------


def test_an_attempt_starts_at_the_servers_time(client: TestClient, key: str) -> None:
    response = start(client, key)
    assert response.status_code == 201
    body = response.json()
    assert body["format"] == "cruel-attempt-state/1"
    assert (body["puzzle"], body["player"], body["status"]) == (PUZZLE, "ada", "playing")
    assert dt.datetime.fromisoformat(body["started_at"]) == T0
    assert dt.datetime.fromisoformat(body["expires_at"]) == T0 + dt.timedelta(minutes=30)
    assert body["line"] == [] and body["elapsed_ms"] == 0 and body["entry"] is None
    assert len(body["attempt"]) >= 22
    assert attempt_id(client, key) != body["attempt"]  # a new id each time


def test_an_attempt_needs_credentials(client: TestClient, keys: KeyStore) -> None:
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
    assert error(start(client, key, auto="all"), 422, "schema")["path"] == "/auto"
    response = client.post(f"/v1/puzzles/{PUZZLE}/attempts", content=b"{", headers=bearer(key))
    error(response, 400, "not-json")


def test_a_lookalike_name_gets_no_attempt(client: TestClient, key: str) -> None:
    # Issue #24, finding 10: Cyrillic "аdа" got an attempt and a public player record.
    assert start(client, key, player="ada").status_code == 201
    body = error(start(client, key, player="\u0430d\u0430"), 422, "player-name-confusable")
    assert body["path"] == "/player"


def test_parse_attempt_takes_an_optional_format_and_auto() -> None:
    asked = parse_attempt(b'{"player": "ada"}')
    assert (asked.player, asked.auto) == ("ada", "foundations")
    with pytest.raises(LogFormatError) as info:
        parse_attempt(b'{"format": "cruel-attempt/2", "player": "ada"}')
    assert (info.value.code, info.value.path) == ("schema", "/format")


def test_attempts_are_rate_limited_per_player(db: Path, wall: WallClock) -> None:
    from cruel_tools.site.keys import RateLimit

    limited = settings(db, wall, open=True, player_limit=RateLimit(rate=1.0, burst=2))
    with TestClient(service.create_app(limited)) as client:
        attempt_id(client, None)
        attempt_id(client, None)
        response = error(start(client, None), 429, "rate-limited")
        assert response["path"] == "/player"


def test_an_open_server_plays_keyless_attempts(db: Path, wall: WallClock) -> None:
    with TestClient(service.create_app(settings(db, wall, open=True))) as client:
        won = play(client, None, wall, "ada", 90)
        assert won["elapsed_ms"] == 90_000 and won["entry"]["rank"] == 1


# --- timing --------------------------------------------------------------------------------------


def test_a_submission_naming_an_attempt_is_refused(client: TestClient, key: str) -> None:
    # The old flow: start, then submit a log naming the attempt, timed to its arrival. The log
    # was the client's: it is refused, and the attempt is not used up.
    attempt = attempt_id(client, key)
    result = submit(client, key, attempt=attempt, log=win(longer_win())).json()
    assert not result["accepted"] and result["submission_id"] is None
    reason = result["reason"]
    assert (reason["code"], reason["path"]) == ("bad-attempt", "/attempt")
    assert "live attempt" in reason["message"]
    assert board(client)["total"] == 0
    body = submit(client, key, attempt="x" * 65)
    assert error(body, 422, "schema")["path"] == "/attempt"


def test_a_submission_is_untimed(client: TestClient, key: str) -> None:
    log = win(longer_win()) | {"meta": {"elapsed_ms": 1}}
    result = submit(client, key, log=log).json()
    assert result["accepted"] and result["elapsed_ms"] is None and result["rank"] == 1
    assert board(client)["entries"][0]["elapsed_ms"] is None
    assert board(client, by="time") | {"entries": []} == {
        "format": "cruel-leaderboard/1",
        "puzzle": PUZZLE,
        "best_per_player": False,
        "by": "time",
        "ranked": True,
        "total": 0,
        "offset": 0,
        "entries": [],
    }


def test_the_time_is_the_servers_from_the_start_to_the_winning_step(
    client: TestClient, key: str, wall: WallClock
) -> None:
    won = play(client, key, wall, "ada", 83.25)
    assert won["elapsed_ms"] == 83250
    entry = won["entry"]
    assert entry["accepted"] and entry["elapsed_ms"] == 83250
    assert dt.datetime.fromisoformat(entry["submitted_at"]) == wall.now
    [listed] = board(client)["entries"]
    assert listed["elapsed_ms"] == 83250
    # Read later, the attempt still says what its win was.
    wall.advance(hours=2)
    again = client.get(f"/v1/attempts/{won['attempt']}", headers=bearer(key)).json()
    assert again["entry"] == entry and again["elapsed_ms"] == 83250


# --- leaderboards by time ------------------------------------------------------------------------


def test_by_time_ranks_timed_wins_fastest_first_and_ties_share(
    client: TestClient, key: str, wall: WallClock
) -> None:
    longer = longer_win()
    play(client, key, wall, "carol", 50)
    play(client, key, wall, "bob", 30, longer)  # as fast as ada, more moves: listed after her
    play(client, key, wall, "ada", 30)
    play(client, key, wall, "erin", 20)
    assert submit(client, key, "dave", log=win(longer)).status_code == 201  # untimed
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
    error(client.get(f"/v1/puzzles/{PUZZLE}/leaderboard?by=speed"), 422, "bad-parameter")


def test_by_time_with_best_per_player_takes_each_players_fastest(
    client: TestClient, key: str, wall: WallClock
) -> None:
    play(client, key, wall, "ada", 400)
    play(client, key, wall, "ada", 100, longer_win())
    play(client, key, wall, "bob", 200)
    best = board(client, by="time", best_per_player="true")
    assert [(e["player"], e["rank"], e["elapsed_ms"]) for e in best["entries"]] == [
        ("ada", 1, 100000),
        ("bob", 2, 200000),
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
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"live_attempts", "attempt_steps", "review_queue"} <= tables


def test_a_players_fastest_win_is_the_servers_time_of_a_live_win(
    client: TestClient, key: str, wall: WallClock
) -> None:
    assert submit(client, key, log=win(longer_win())).status_code == 201  # untimed
    assert client.get("/v1/players/ada").json()["fastest_win_seconds"] is None
    play(client, key, wall, "ada", 75.5)
    record = client.get("/v1/players/ada").json()
    assert record["wins"] == 2 and record["fastest_win_seconds"] == 75.5
