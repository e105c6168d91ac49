"""``GET /v1/players/{name}``: a player's record from the store, by the rules of ``cruel stats``."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.game.stats import Game, Record, aggregate
from cruel_tools.puzzles import puzzle_bytes
from cruel_tools.site.judging import judge, parse_submission
from cruel_tools.site.leaderboard import Leaderboards

from .helpers import published_puzzles, puzzle_log

ROOT = Path(__file__).parent.parent


@pytest.fixture
def settings(tmp_path: Path) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=tmp_path / "db.sqlite",
        fixed_today=dt.date(2027, 1, 1),
        open=True,
        key_limit=None,
        player_limit=None,
        review_untimed_par=False,  # par logs rank here (tests/test_live_attempts.py: queued)
    )


@pytest.fixture
def client(settings: service.Settings) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings)) as c:
        yield c


def win_on(client: TestClient, settings: service.Settings, puzzle_id: str, player: str) -> int:
    """Submit the par win of ``puzzle_id`` on its own day (the server's today); its moves."""
    puzzle = published_puzzles().get(puzzle_id)
    settings.fixed_today = puzzle.date
    body = orjson.dumps({"player": player, "log": puzzle_log(puzzle)})
    response = client.post(f"/v1/puzzles/{puzzle_id}/submissions", content=body)
    assert response.status_code == 201, response.text
    moves: int = response.json()["moves"]
    return moves


def record(client: TestClient, name: str) -> dict[str, Any]:
    response = client.get(f"/v1/players/{quote(name)}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = response.json()
    Record.model_validate(body)
    return body


def test_wins_on_consecutive_puzzle_days_make_streaks(
    client: TestClient, settings: service.Settings
) -> None:
    days = ["2027-01-01", "2027-01-02", "2027-01-03", "2027-01-05"]
    moves = [win_on(client, settings, f"{d}-hard", "ada") for d in days]
    moves.append(win_on(client, settings, "2027-01-05-easy", "ada"))  # two wins on one day
    win_on(client, settings, "2027-01-04-hard", "bob")  # another player's win counts for bob
    settings.fixed_today = dt.date(2027, 1, 5)
    body = record(client, "ada")
    assert body == {
        "format": "cruel-stats/1",
        "played": 5,
        "wins": 5,
        "win_rate": 1.0,
        "fastest_win_seconds": None,  # no server-timed attempts: never the client's meta
        "fewest_moves_win": min(moves),
        "best_score": 52,
        "current_streak": 1,  # 2027-01-04 has no win: the run of 1-3 January ended there
        "best_streak": 3,
        "reference_day": "2027-01-05",
        "players": ["ada"],
        "excluded": [],
        "rating": None,  # submitted wins are not rated: only live attempts are
    }
    # The same facts through the aggregation that `cruel stats` uses give the same record.
    games = [
        Game(day=dt.date.fromisoformat(d), won=True, moves=m, foundation_cards=52)
        for d, m in zip([*days, "2027-01-05"], moves, strict=True)
    ]
    assert aggregate(games, dt.date(2027, 1, 5), ["ada"]).model_dump(mode="json") == body
    # The reference day is the service's today: a day not played yet keeps the streak alive,
    # the day after it is over.
    settings.fixed_today = dt.date(2027, 1, 6)
    assert (record(client, "ada")["current_streak"], record(client, "bob")["current_streak"]) == (
        1,
        0,
    )
    settings.fixed_today = dt.date(2027, 1, 7)
    assert record(client, "ada")["current_streak"] == 0
    assert record(client, "ada")["reference_day"] == "2027-01-07"
    settings.fixed_today = dt.date(2027, 1, 4)
    assert record(client, "bob")["current_streak"] == 1


def test_an_unknown_player_is_404(client: TestClient, settings: service.Settings) -> None:
    win_on(client, settings, "2027-01-01-hard", "ada")
    for name in ["bob", "Ada", "ada lovelace"]:  # the name as stored: case is kept
        response = client.get(f"/v1/players/{quote(name)}")
        assert response.status_code == 404
        body = response.json()
        assert body["format"] == "cruel-error/1"
        assert (body["code"], body["location"], body["path"]) == ("unknown-player", "path", "name")


@pytest.mark.parametrize("name", ["ada\u200b", " ada", "ada  lovelace", "x" * 65])
def test_a_name_that_cannot_be_a_player_is_422(client: TestClient, name: str) -> None:
    response = client.get(f"/v1/players/{quote(name)}")
    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["location"], body["path"]) == ("bad-player-name", "path", "name")


def test_the_name_is_normalised_as_submissions_are(
    client: TestClient, settings: service.Settings
) -> None:
    win_on(client, settings, "2027-01-01-hard", "\uff41\uff44\uff41")  # full-width ａｄａ
    win_on(client, settings, "2027-01-02-hard", "ada")  # the same player
    win_on(client, settings, "2027-01-02-easy", "Ada Lovelace")
    for name in ["ada", "\uff41\uff44\uff41", "a\uff44a"]:
        body = record(client, name)
        assert (body["players"], body["played"], body["best_streak"]) == (["ada"], 2, 2)
    assert record(client, "Ada Lovelace")["players"] == ["Ada Lovelace"]
    assert client.get("/v1/players/Ada%20Lovelace").json()["played"] == 1


def test_an_undated_puzzle_counts_for_the_servers_date_of_its_entry(
    settings: service.Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "set"
    (folder / "2027").mkdir(parents=True)
    free = (
        published_puzzles()
        .get("2027-01-04-hard")
        .model_copy(update={"date": None, "id": "free-hard-1"})
    )
    (folder / "2027" / "free-hard-1.json").write_bytes(puzzle_bytes(free))
    dated = published_puzzles().get("2027-01-05-hard")
    (folder / "2027" / "2027-01-05-hard.json").write_bytes(puzzle_bytes(dated))
    settings.puzzles, settings.tz = folder, "Asia/Tokyo"
    # Stored at 23:30 UTC on 3 January: 4 January in Tokyo, the service's time zone.
    boards = Leaderboards(settings.db)
    submission = parse_submission(orjson.dumps({"player": "ada", "log": puzzle_log(free)}))
    at = dt.datetime(2027, 1, 3, 23, 30, tzinfo=dt.UTC)
    assert boards.store(judge(free, submission, dt.date(2027, 1, 3)), now=at).accepted
    boards.close()
    with TestClient(service.create_app(settings)) as client:
        win_on(client, settings, "2027-01-05-hard", "ada")
        body = record(client, "ada")
    assert (body["played"], body["current_streak"], body["best_streak"]) == (2, 2, 2)


def start_on(client: TestClient, settings: service.Settings, puzzle_id: str, player: str) -> str:
    """Start a server-timed attempt of ``puzzle_id`` on its own day; its id."""
    settings.fixed_today = published_puzzles().get(puzzle_id).date
    doc = {"format": "cruel-attempt/1", "player": player}
    response = client.post(f"/v1/puzzles/{puzzle_id}/attempts", content=orjson.dumps(doc))
    assert response.status_code == 201, response.text
    attempt: str = response.json()["attempt"]
    return attempt


def timed_win_on(
    client: TestClient, settings: service.Settings, puzzle_id: str, player: str, attempt: str
) -> int:
    """Play the par win of ``puzzle_id`` in the live ``attempt``, a step every second or two of
    the server's clock (a person's pace: not flagged); its moves."""
    import random

    from cruel_tools.game.log import compact, to_step

    puzzle = published_puzzles().get(puzzle_id)
    settings.fixed_today = puzzle.date
    rng, now = random.Random(attempt), [dt.datetime.now(dt.UTC)]
    settings.wall_clock = lambda: now[0]
    state: dict[str, Any] = {}
    for entry in puzzle.solution:
        now[0] += dt.timedelta(milliseconds=rng.randrange(600, 3000))
        body = orjson.dumps({"steps": [compact(to_step(entry))]})
        response = client.post(f"/v1/attempts/{attempt}/steps", content=body)
        assert response.status_code == 200, response.text
        state = response.json()
        if state["status"] == "won":  # the server's automatic moves may finish it
            break
    assert state["status"] == "won" and state["flags"] == [] and state["entry"]["accepted"]
    assert state["entry"]["elapsed_ms"] is not None
    moves: int = state["moves"]
    return moves


def test_attempts_without_an_entry_are_games_played_not_won(
    client: TestClient, settings: service.Settings
) -> None:
    won = start_on(client, settings, "2027-01-01-hard", "ada")
    start_on(client, settings, "2027-01-01-easy", "ada")  # never finished
    moves = timed_win_on(client, settings, "2027-01-01-hard", "ada", won)
    settings.fixed_today = dt.date(2027, 1, 1)
    body = record(client, "ada")
    assert (body["played"], body["wins"], body["win_rate"]) == (2, 1, 0.5)
    # The attempt that timed the win is that win, counted once; the other's moves are unknown.
    assert (body["fewest_moves_win"], body["best_score"]) == (moves, 52)
    assert body["fastest_win_seconds"] is not None
    assert (body["current_streak"], body["best_streak"]) == (1, 1)
    # A win submitted without an attempt counts as before.
    win_on(client, settings, "2027-01-02-hard", "ada")
    settings.fixed_today = dt.date(2027, 1, 2)
    body = record(client, "ada")
    assert (body["played"], body["wins"], body["current_streak"]) == (3, 2, 2)


def test_an_attempt_without_a_win_on_the_latest_day_ends_the_streak(
    client: TestClient, settings: service.Settings
) -> None:
    win_on(client, settings, "2027-01-01-hard", "ada")
    win_on(client, settings, "2027-01-02-hard", "ada")
    settings.fixed_today = dt.date(2027, 1, 3)
    assert record(client, "ada")["current_streak"] == 2  # 3 January not played yet
    start_on(client, settings, "2027-01-03-hard", "ada")  # played, not won
    settings.fixed_today = dt.date(2027, 1, 3)
    body = record(client, "ada")
    assert (body["played"], body["wins"], body["current_streak"], body["best_streak"]) == (
        3,
        2,
        0,
        2,
    )
    # The same facts through the aggregation of `cruel stats` give the same record.
    games = [
        Game(
            day=dt.date(2027, 1, 1), won=True, moves=body["fewest_moves_win"], foundation_cards=52
        ),
        Game(day=dt.date(2027, 1, 2), won=True, moves=None, foundation_cards=52),
        Game(day=dt.date(2027, 1, 3), won=False, moves=None, foundation_cards=4),
    ]
    expected = aggregate(games, dt.date(2027, 1, 3), ["ada"]).model_dump(mode="json")
    assert {k: v for k, v in body.items() if k != "fewest_moves_win"} == {
        k: v for k, v in expected.items() if k != "fewest_moves_win"
    }


def test_a_player_with_attempts_only_has_a_record(
    client: TestClient, settings: service.Settings
) -> None:
    start_on(client, settings, "2027-01-02-easy", "bob")
    settings.fixed_today = dt.date(2027, 1, 2)
    body = record(client, "bob")
    assert (body["played"], body["wins"], body["win_rate"]) == (1, 0, 0.0)
    # Its moves are unknown; its score is the four aces every game starts with.
    assert (body["fewest_moves_win"], body["best_score"], body["fastest_win_seconds"]) == (
        None,
        4,
        None,
    )
    assert (body["current_streak"], body["best_streak"]) == (0, 0)


def test_moderation_applies_to_attempts_as_to_wins(
    client: TestClient, settings: service.Settings
) -> None:
    won = start_on(client, settings, "2027-01-01-hard", "ada")
    timed_win_on(client, settings, "2027-01-01-hard", "ada", won)
    start_on(client, settings, "2027-01-01-easy", "ada")
    start_on(client, settings, "2027-01-01-easy", "bob")
    settings.fixed_today = dt.date(2027, 1, 1)
    assert record(client, "ada")["played"] == 2
    with sqlite3.connect(settings.db) as db:
        (entry,) = db.execute("SELECT id FROM submissions WHERE player = 'ada'").fetchone()
        db.execute(
            "INSERT INTO hidden_submissions VALUES (?, '2027-01-01T00:00:00+00:00')", (entry,)
        )
        db.execute("INSERT INTO banned_players VALUES ('bob', '2027-01-01T00:00:00+00:00')")
    db.close()
    # A hidden entry counts nowhere, nor its attempt; the unfinished attempt still counts.
    body = record(client, "ada")
    assert (body["played"], body["wins"], body["best_score"]) == (1, 0, 4)
    # A banned player's record shows nothing.
    assert record(client, "bob")["played"] == 0
