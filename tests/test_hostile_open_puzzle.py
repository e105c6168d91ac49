"""No recipe while a puzzle is open (issue #33, finding 8).

The attack: on 2027-01-06, ``GET /v1/puzzles/2027-01-06-easy`` published
``metrics.ladder.player2: true``; player 2's rule is documented (docs/grading.md), so playing it
on the deal wins the open puzzle, and ``critical_decisions`` said how many traps there were. The
public documents now leave every grader metric out until the puzzle closes (its solution public);
this module asks every GET route of the app, from its own router list, on the open day.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute

from cruel_tools import service
from cruel_tools.game import cards
from cruel_tools.game.game import Game
from cruel_tools.game.log import compact, to_step
from cruel_tools.puzzles import Puzzle
from cruel_tools.search.grading import Budget, player2
from cruel_tools.service.pages import _SWAGGER, STATIC

from .helpers import published_puzzles, puzzle_log

ROOT = Path(__file__).parent.parent
OPEN_DAY = dt.date(2027, 1, 6)
ATTACKED = "2027-01-06-easy"
#: What the grader's metrics hold beyond the tier and par (grading.Metrics' fields).
RECIPE_KEYS = ("ladder", "critical_decisions", "solver_states", "random_win_rate")


def _settings(db: Path, today: dt.date) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=today,
        open=True,
        key_limit=None,
        player_limit=None,
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(service.create_app(_settings(tmp_path / "db.sqlite", OPEN_DAY))) as c:
        yield c


def _open_puzzles() -> list[Puzzle]:
    found: list[Puzzle] = published_puzzles().on(OPEN_DAY)
    assert found, "the committed set has puzzles on the open day"
    return found


def test_the_attack_player2s_documented_rule_wins_the_attacked_deal() -> None:
    """What the leaked ladder result was worth: player 2 (docs/grading.md) wins this deal."""
    puzzle = published_puzzles().get(ATTACKED)
    assert puzzle.metrics.ladder == {"player1": False, "player2": True}
    piles = [[cards.parse(t) for t in pile] for pile in puzzle.deal.piles]
    assert player2(Game.from_deal(piles, puzzle.resolved_rules()), Budget()) is not None


def test_the_open_puzzle_names_no_winning_player(client: TestClient) -> None:
    got = client.get(f"/v1/puzzles/{ATTACKED}")
    assert got.status_code == 200
    doc = got.json()
    assert doc["metrics"] is None, "the ladder's results of an open puzzle are a recipe"
    assert doc["tier"] == "easy" and doc["par"]["actions"] == 56  # how hard, not how


def test_a_closed_puzzle_shows_its_metrics(tmp_path: Path) -> None:
    with TestClient(service.create_app(_settings(tmp_path / "db.sqlite", OPEN_DAY))) as c:
        closed = c.get("/v1/puzzles/2027-01-05-easy").json()  # yesterday's: closed
    assert closed["metrics"]["ladder"] and "critical_decisions" in closed["metrics"]
    later = OPEN_DAY + dt.timedelta(days=1)
    with TestClient(service.create_app(_settings(tmp_path / "db2.sqlite", later))) as c:
        shown = c.get(f"/v1/puzzles/{ATTACKED}").json()
    assert shown["metrics"]["ladder"] == {"player1": False, "player2": True}


# --- every public route, on the open day ----------------------------------------------------------


def _routes(routes: list[BaseRoute]) -> Iterator[Any]:
    """Every route of the app, through included routers (FastAPI keeps them nested)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


#: Routes that are not public: an admin's key or a player's own token (tests/test_moderation.py,
#: tests/test_player_tokens.py); asked here without one, they must refuse.
PRIVATE = {"/v1/admin/queue", "/v1/admin/audit", "/v1/players/{name}/data"}


def _fills(attempt: str, entry: int) -> dict[str, list[str]]:
    """Values of each path parameter worth asking for: every open puzzle and day, entries,
    names, and every static file by name."""
    ids = [p.id for p in _open_puzzles()] + ["2027-01-05-easy"]
    return {
        "id": ids,
        "date": [OPEN_DAY.isoformat(), "today"],
        "name": ["ada", "bob"],
        "number": ["1", "11982"],
        "attempt": [attempt],
        "submission_id": [str(entry)],
    }


def _queries(path: str) -> list[str]:
    """The query strings of a route that change what it shows."""
    later = (OPEN_DAY + dt.timedelta(days=3)).isoformat()
    return {
        "/v1/puzzles/past": ["", f"?before={later}", "?before=today&limit=31"],
        "/v1/puzzles/daily/{date}": ["", "?tier=easy"],
        "/v1/puzzles/{id}/leaderboard": ["", "?by=time", "?best_per_player=false"],
    }.get(path, [""])


def _urls(path: str, fills: dict[str, list[str]]) -> list[str]:
    if path == "/static/{name}":
        return [f"/static/{name}" for name in STATIC]
    if path == "/static/swagger/{name}":
        return [f"/static/swagger/{name}" for name in _SWAGGER]
    urls = [path]
    for name in re.findall(r"{(\w+)}", path):
        assert name in fills, f"a new path parameter {name!r} in {path}: give it values here"
        urls = [u.replace("{" + name + "}", v) for u in urls for v in fills[name]]
    return [u + q for u in urls for q in _queries(path)]


def _recipe_in(doc: Any, open_ids: set[str], where: str) -> None:
    """Fail if a JSON document shows an open puzzle's metrics anywhere inside it."""
    if isinstance(doc, list):
        for item in doc:
            _recipe_in(item, open_ids, where)
        return
    if not isinstance(doc, dict):
        return
    names = (doc.get("id"), doc.get("puzzle"))
    if any(isinstance(n, str) and n in open_ids for n in names):
        assert doc.get("metrics") is None, f"{where}: metrics of an open puzzle"
        for key in RECIPE_KEYS:
            assert key not in doc, f"{where}: {key} of an open puzzle"
    for value in doc.values():
        _recipe_in(value, open_ids, where)


def _solution_texts(puzzle: Puzzle) -> list[bytes]:
    """How the open puzzle's par solution would read in any answer: its first steps in compact
    form, and as log entries (JSON)."""
    entries = puzzle_log(puzzle)["moves"][:6]
    steps = " ".join(compact(to_step(e)) for e in entries)
    return [steps.encode(), orjson.dumps(entries)[1:-1]]


def test_no_public_route_shows_the_open_puzzles_recipe(client: TestClient) -> None:
    puzzle = published_puzzles().get(ATTACKED)
    # Something on the boards: a submitted win (its log is the par's) and a live attempt.
    won = client.post(
        f"/v1/puzzles/{ATTACKED}/submissions",
        content=orjson.dumps({"player": "ada", "log": puzzle_log(puzzle)}),
    )
    assert won.status_code == 201, won.text
    started = client.post(f"/v1/puzzles/{ATTACKED}/attempts", json={"player": "bob"})
    assert started.status_code == 201, started.text
    fills = _fills(started.json()["attempt"], won.json()["submission_id"])
    open_ids = {p.id for p in _open_puzzles()}
    secrets = [t for p in _open_puzzles() for t in _solution_texts(p)]
    ladders = re.compile(rb'"player\d"\s*:\s*(true|false)')
    asked = 0
    for route in _routes(client.app.routes):  # type: ignore[attr-defined]
        if "GET" not in (getattr(route, "methods", None) or ()):
            continue
        for url in _urls(route.path, fills):
            got = client.get(url)
            asked += 1
            if route.path in PRIVATE:
                assert got.status_code in (401, 403), url
                continue
            assert got.status_code < 500, url
            for secret in secrets:
                assert secret not in got.content, f"{url}: the open puzzle's solution"
            if got.headers.get("content-type", "").startswith("application/json"):
                doc = got.json()
                _recipe_in(doc, open_ids, url)
                if route.path in ("/v1/openapi.json",):  # a schema: no puzzle's data at all
                    assert not ladders.search(got.content), url
            else:  # pages, scripts, styles, docs: no grader data of any puzzle
                assert not ladders.search(got.content), url
                assert b"critical_decisions" not in got.content, url
    assert asked > len(STATIC) + 20  # every route was walked, with every value
