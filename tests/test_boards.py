"""Boards against one name filling them (issue #24, finding 5): each player's best entry by
default, every entry on request, and a cap of entries per player per puzzle."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.game.log import load
from cruel_tools.puzzles import Puzzle
from cruel_tools.site.judging import Submission, judge
from cruel_tools.site.leaderboard import MAX_ENTRIES, TOO_MANY_ENTRIES, Leaderboards

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import store_target

__all__ = ["store_target"]  # the fixture: both engines

pytestmark = pytest.mark.integration  # servers and databases (as tests/test_service.py)

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
PUZZLE_ID = "2027-01-05-hard"  # open on TODAY


def submission(player: str, log: dict[str, Any]) -> Submission:
    return Submission.model_construct(
        format="cruel-submission/1", player=player, log=load(orjson.dumps(log)), attempt=None
    )


def variants(
    puzzle: Puzzle, count: int, base: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``count`` different wins of ``puzzle`` with the score of ``base`` (default: its par
    solution): ``base`` with one or two pairs of neighbouring moves swapped where the game stays
    a win (what finding 5's attacker submitted: 20 reorderings, all rank 1)."""
    base = base or puzzle_log(puzzle)
    moves = base["moves"]

    def swapped(at: tuple[int, ...]) -> dict[str, Any]:
        out = list(moves)
        for i in at:
            out[i], out[i + 1] = out[i + 1], out[i]
        return base | {"moves": out}

    def wins(log: dict[str, Any]) -> bool:
        return judge(puzzle, submission("x", log), TODAY).reason is None

    def key(log: dict[str, Any]) -> bytes:
        return orjson.dumps(log["moves"])

    seen = {key(base)}  # different games only: swapping two equal moves changes nothing
    found: list[dict[str, Any]] = []
    singles = [i for i in range(len(moves) - 1) if wins(swapped((i,)))]
    tries = [(i,) for i in singles] + [p for p in itertools.combinations(singles, 2)]
    for at in tries:
        if len(found) >= count:
            break
        log = swapped(at)
        if key(log) not in seen and (len(at) == 1 or (at[1] - at[0] >= 2 and wins(log))):
            seen.add(key(log))
            found.append(log)
    assert len(found) >= count, f"only {len(found)} variants of par"
    return found[:count]


@pytest.fixture(scope="module")
def puzzle() -> Puzzle:
    found: Puzzle = published_puzzles().get(PUZZLE_ID)
    return found


@pytest.fixture
def client(store_target: Path | str) -> Iterator[TestClient]:
    settings = service.Settings(
        puzzles=ROOT / "puzzles",
        db=store_target,
        fixed_today=TODAY,
        open=True,
        key_limit=None,
        player_limit=None,
        rank_untimed=True,  # keyless logs rank here: these are tests of the boards' order
    )
    with TestClient(service.create_app(settings)) as c:
        yield c


def post(client: TestClient, player: str, log: dict[str, Any]) -> Any:
    body = orjson.dumps({"player": player, "log": log})
    return client.post(f"/v1/puzzles/{PUZZLE_ID}/submissions", content=body)


def test_one_name_with_twenty_variant_games_does_not_fill_the_default_board(
    client: TestClient, puzzle: Puzzle
) -> None:
    # Finding 5: bob wins once, ada sends 20 reorderings of the same win. Before: the default
    # board held 21 entries, 20 of them ada's, all rank 1. (A win over par: one at par or
    # better without a live attempt waits for a moderator, and is on no board.)
    win = puzzle_log(puzzle, other_win(puzzle, 1))
    assert post(client, "bob", win).status_code == 201
    answers = [post(client, "ada", log) for log in variants(puzzle, 20, win)]
    board = client.get(f"/v1/puzzles/{PUZZLE_ID}/leaderboard").json()
    assert board["best_per_player"] is True
    assert [(e["player"], e["rank"]) for e in board["entries"]] == [("bob", 1), ("ada", 1)]
    assert board["total"] == 2
    # The cap: ada's first MAX_ENTRIES games are entries, the rest refused with their own code.
    stored = [a for a in answers if a.status_code == 201]
    refused = [a.json() for a in answers if a.status_code != 201]
    assert len(stored) == MAX_ENTRIES and len(refused) == 20 - MAX_ENTRIES
    for answer in refused:
        assert answer["accepted"] is False and answer["reason"]["code"] == TOO_MANY_ENTRIES
        assert answer["reason"]["path"] == "/player"
        assert answer["reason"]["message"] == (
            f"player 'ada' has {MAX_ENTRIES} entries of puzzle {PUZZLE_ID} already, the most "
            "one player may store"
        )
    # Every entry on request.
    every = client.get(
        f"/v1/puzzles/{PUZZLE_ID}/leaderboard", params={"best_per_player": "false"}
    ).json()
    assert every["best_per_player"] is False and every["total"] == 1 + MAX_ENTRIES
    assert [e["player"] for e in every["entries"]].count("ada") == MAX_ENTRIES


def test_the_cap_counts_hidden_entries_and_a_resent_game_is_still_a_duplicate(
    store_target: Path | str, puzzle: Puzzle
) -> None:
    boards = Leaderboards(store_target)
    boards.max_entries = 2
    now = dt.datetime(2027, 1, 5, 12, tzinfo=dt.UTC)
    try:
        logs = variants(puzzle, 3)
        first, second, third = (
            boards.submit(puzzle, submission("ada", log), now, TODAY) for log in logs
        )
        assert first.accepted and second.accepted
        assert not third.accepted and third.reason is not None
        assert third.reason.code == TOO_MANY_ENTRIES and third.submission_id is None
        again = boards.submit(puzzle, submission("ada", logs[0]), now, TODAY)
        assert again.accepted and again.duplicate  # the same game: its entry, not a new one
        # Another player is not held by ada's cap.
        assert boards.submit(puzzle, submission("bob", logs[2]), now, TODAY).accepted
        # A hidden entry still counts: hiding opens no room for another variant.
        with boards.database.write() as db:
            db.execute(
                "INSERT INTO hidden_submissions (submission, hidden_at)"
                " VALUES (?, '2027-01-05T12:00:00+00:00')",
                (first.submission_id,),
            )
        refused = boards.submit(puzzle, submission("ada", logs[2]), now, TODAY)
        assert refused.reason is not None and refused.reason.code == TOO_MANY_ENTRIES
    finally:
        boards.close()
