"""Ranked boards rank what someone timed (issue #33, finding 4, and the speed floor).

The attacks: with a player's token, a par+1 win (the optimal line with one redeal inserted)
was accepted at rank 3, ``elapsed_ms`` null, nothing queued; and a solver's line played through
a live attempt at a jittered 0.22-0.34 s a step won par unflagged, rank 1. Now a log nothing
timed (a player's token, ``--open``) is stored unranked unless ``cruel serve --rank-untimed``,
a site key's log ranks, every answer says why an entry has no rank, and a par-or-better live win
under ``--par-pace`` (1 s) a step is flagged ``fast-par`` for a moderator.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.game import cards
from cruel_tools.game.game import REDEAL, Game, Step
from cruel_tools.game.log import compact, to_step
from cruel_tools.puzzles import Puzzle
from cruel_tools.site.keys import KeyStore

from .helpers import published_puzzles, puzzle_log

ROOT = Path(__file__).parent.parent
PUZZLE = "2027-01-05-easy"
BOARD = f"/v1/puzzles/{PUZZLE}/leaderboard"
T0 = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)


class WallClock:
    """The server's time, moved only when told."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> dt.datetime:
        return self.now


def _settings(db: Path, wall: WallClock, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=dt.date(2027, 1, 5),
        clock=lambda: 1000.0,
        wall_clock=wall,
        key_limit=None,
        player_limit=None,
        **fields,
    )


@pytest.fixture
def wall() -> WallClock:
    return WallClock()


@pytest.fixture
def client(tmp_path: Path, wall: WallClock) -> Iterator[TestClient]:
    with TestClient(service.create_app(_settings(tmp_path / "db.sqlite", wall))) as c:
        yield c


@pytest.fixture
def site(tmp_path: Path, client: TestClient) -> Iterator[dict[str, str]]:
    store = KeyStore(tmp_path / "db.sqlite")
    yield {"Authorization": f"Bearer {store.add('example.com', 'site')[1]}"}
    store.close()


def _puzzle() -> Puzzle:
    found: Puzzle = published_puzzles().get(PUZZLE)
    return found


def _par_plus_one() -> list[Step]:
    """The attacker's line: the par solution with one redeal inserted where it still wins."""
    puzzle = _puzzle()
    par = [to_step(e) for e in puzzle_log(puzzle)["moves"]]
    rules = puzzle.resolved_rules()
    for at in range(len(par) - 1, -1, -1):
        line = [*par[:at], REDEAL, *par[at:]]
        game = Game.from_deal([[cards.parse(t) for t in p] for p in puzzle.deal.piles], rules)
        try:
            for step in line:
                game.push(step)
        except Exception:  # an illegal redeal here (or a later step): try earlier
            continue
        if game.is_won():
            return line
    raise AssertionError("no par+1 line found")


def _submit(client: TestClient, player: str, headers: dict[str, str], steps: Any = None) -> Any:
    log = puzzle_log(_puzzle(), steps)
    body = orjson.dumps({"player": player, "log": log})
    return client.post(f"/v1/puzzles/{PUZZLE}/submissions", content=body, headers=headers)


def _claim(client: TestClient, player: str) -> dict[str, str]:
    made = client.post("/v1/players", json={"player": player})
    assert made.status_code == 201, made.text
    return {"Authorization": f"Player {made.json()['token']}"}


def _ranked(client: TestClient) -> list[tuple[str, int | None]]:
    board = client.get(BOARD).json()
    assert board["ranked"] is True
    return [(e["player"], e["rank"]) for e in board["entries"]]


def test_a_par_plus_one_log_with_a_players_token_is_not_ranked(
    client: TestClient, site: dict[str, str]
) -> None:
    line = _par_plus_one()
    assert len(line) == _puzzle().par.actions + 1
    mallory = _claim(client, "mallory")
    got = _submit(client, "mallory", mallory, line)
    assert got.status_code == 201, got.text
    answer = got.json()
    assert answer["accepted"] and answer["versus_par"] == 1 and answer["elapsed_ms"] is None
    # The old answer: rank 3 on a board of two, nothing queued. Now: stored, said unranked.
    assert (answer["rank"], answer["ranked"], answer["unranked_reason"]) == (None, False, "untimed")
    assert answer["flags"] == []
    assert _ranked(client) == []
    apart = client.get(f"{BOARD}?ranked=false").json()
    assert apart["ranked"] is False and apart["total"] == 1
    assert [(e["player"], e["rank"], e["actions"]) for e in apart["entries"]] == [
        ("mallory", None, len(line))
    ]
    # Her record still counts the win: it is hers, verified.
    assert client.get("/v1/players/mallory").json()["wins"] == 1
    # The same line from a site, which vouches for its timing: ranked.
    vouched = _submit(client, "ada", site, line).json()
    assert (vouched["rank"], vouched["ranked"], vouched["unranked_reason"]) == (1, True, None)
    assert _ranked(client) == [("ada", 1)]


def test_an_open_servers_logs_are_unranked_unless_it_ranks_untimed(
    tmp_path: Path, wall: WallClock
) -> None:
    line = _par_plus_one()
    for rank_untimed, expected in [(False, None), (True, 1)]:
        fields = {"open": True, "rank_untimed": rank_untimed}
        db = tmp_path / f"{rank_untimed}.sqlite"
        with TestClient(service.create_app(_settings(db, wall, **fields))) as c:
            answer = _submit(c, "bob", {}, line).json()
            assert (answer["rank"], answer["ranked"]) == (expected, rank_untimed)
            assert _ranked(c) == ([] if expected is None else [("bob", 1)])


def test_a_held_submission_says_why(client: TestClient, site: dict[str, str]) -> None:
    # A site's par log: nothing timed it at par, so a moderator looks first (as before); the
    # answer now says so instead of a bare rank null.
    answer = _submit(client, "ada", site).json()
    assert answer["accepted"] and answer["versus_par"] == 0
    assert (answer["rank"], answer["ranked"]) == (None, False)
    assert (answer["unranked_reason"], answer["flags"]) == ("held-for-review", ["untimed-par"])


# --- the speed floor: a solver's line at a program's pace ----------------------------------------


def _live_par(client: TestClient, site: dict[str, str], wall: WallClock, gaps: list[float]) -> Any:
    started = client.post(
        f"/v1/puzzles/{PUZZLE}/attempts", json={"player": "bot", "auto": "off"}, headers=site
    )
    assert started.status_code == 201, started.text
    attempt = started.json()["attempt"]
    line = [compact(to_step(e)) for e in _puzzle().solution]
    state: dict[str, Any] = {}
    for step, gap in zip(line, gaps, strict=True):
        wall.now += dt.timedelta(milliseconds=gap)
        sent = client.post(f"/v1/attempts/{attempt}/steps", json={"steps": [step]}, headers=site)
        assert sent.status_code == 200, sent.text
        state = sent.json()
    return state


def test_a_solvers_line_at_a_programs_pace_is_flagged(
    client: TestClient, site: dict[str, str], wall: WallClock
) -> None:
    rng = random.Random(33)
    gaps = [rng.uniform(220, 340) for _ in _puzzle().solution]  # the attacker's jitter
    won = _live_par(client, site, wall, gaps)
    assert won["status"] == "won"
    # The old flags' floor (250 ms a step on average) let this through: rank 1, by time too.
    assert won["flags"] == ["fast-par"]
    entry = won["entry"]
    assert (entry["rank"], entry["ranked"], entry["unranked_reason"]) == (
        None,
        False,
        "held-for-review",
    )
    assert _ranked(client) == [] and client.get(f"{BOARD}?by=time").json()["entries"] == []


def test_par_at_a_persons_pace_ranks(
    client: TestClient, site: dict[str, str], wall: WallClock
) -> None:
    rng = random.Random(34)
    gaps = [rng.uniform(1100, 4000) for _ in _puzzle().solution]
    won = _live_par(client, site, wall, gaps)
    assert won["status"] == "won" and won["flags"] == []
    assert (won["entry"]["rank"], won["entry"]["ranked"]) == (1, True)
