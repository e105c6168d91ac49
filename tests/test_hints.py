"""Hints (issue #27): the library call (:func:`cruel_tools.advice.hints.hint`), ``cruel hint``, and
``POST /v1/hint`` under the help guard and the analyses' gate."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cruel_tools import service
from cruel_tools.advice import hints
from cruel_tools.advice.analysis import AnalysisRefused
from cruel_tools.cli.app import app as cli_app
from cruel_tools.game.log import from_object, load
from cruel_tools.game.verify import verify
from cruel_tools.service import costly
from cruel_tools.site.embargo import PILES_NEED_KEY, PUZZLE_OPEN, puzzle_piles
from cruel_tools.site.keys import KeyStore, RateLimit

from .helpers import puzzle_log
from .test_help_guard import (
    CLOSED,
    LOST,
    SWAP,
    TODAYS,
    Clock,
    bearer,
    by_number,
    by_piles,
    make_settings,
    puzzle,
    relabel,
)

ROOT = Path(__file__).parent.parent
#: A deal lost from the start by rule L: the king of clubs under pile 1 can never leave.
DEAD = {"format": "cruel-log/1", "deal": {"number": 18}, "moves": []}


def log_of(doc: dict[str, Any]) -> Any:
    return from_object(doc)


# --- the library ---------------------------------------------------------------------------------


def test_a_closed_puzzle_is_won_from_its_start_by_hints_alone() -> None:
    doc = puzzle_log(puzzle(CLOSED), steps=[])
    for _ in range(500):
        found = hints.hint(log_of(doc))
        if found.status == "won":
            break
        assert found.status == "win-next", found
        assert found.next_step is not None and found.actions_to_win is not None
        assert found.next_step.index == len(doc["moves"])
        doc["moves"].append(found.next_step.entry)
    else:
        pytest.fail("500 hints and no win")
    report = verify(log_of(doc))
    assert report.valid and report.outcome == "won"
    assert found.outcome == "won" and found.next_step is None and found.expanded == 0


def test_a_win_next_step_is_the_first_of_a_win_in_words_and_as_an_entry() -> None:
    found = hints.hint(log_of({"format": "cruel-log/1", "deal": {"number": 1}, "moves": []}))
    assert found.format == "cruel-hint/1" and found.status == "win-next"
    assert found.next_step is not None
    assert found.next_step.entry == {"type": "move", "from": 8, "to": 2, "card": "5H"}
    assert found.next_step.words == "5♥ pile 8 → pile 2, onto 6♥"
    assert found.actions_to_win == 77 and found.reason is None
    assert hints.text_lines(found) == [
        "next: 5♥ pile 8 → pile 2, onto 6♥ (a win in 77 actions from here)"
    ]


def test_a_dead_deal_is_no_win_with_rule_ls_words() -> None:
    found = hints.hint(log_of(DEAD))
    assert found.status == "no-win" and found.next_step is None
    assert found.reason == "K♣ in pile 1 can never leave (rule L)".replace("K♣", "KC")
    assert hints.text_lines(found) == ["no win from here: KC in pile 1 can never leave (rule L)"]


def test_a_won_log_is_won() -> None:
    found = hints.hint(load((ROOT / "samples" / "won.json").read_bytes()))
    assert (found.status, found.outcome, found.steps) == ("won", "won", 69)
    assert hints.text_lines(found) == ["already won"]


def test_a_tiny_budget_is_unknown_and_says_so() -> None:
    doc = {"format": "cruel-log/1", "deal": {"number": 48}, "moves": []}
    found = hints.hint(log_of(doc), max_states=100)
    assert (found.status, found.max_states) == ("unknown", 100)
    assert found.reason == "state budget of 100 spent" and found.expanded <= 100


def test_an_illegal_log_is_refused_as_analysis_refuses_it() -> None:
    with pytest.raises(AnalysisRefused) as caught:
        hints.hint(load((ROOT / "samples" / "illegal.json").read_bytes()))
    error = caught.value.report.error
    assert error is not None and (error.code, error.path) == ("wrong-rank", "/moves/10")


def test_the_cli_prints_the_hint_and_refuses_an_illegal_log(tmp_path: Path) -> None:
    path = tmp_path / "dead.json"
    path.write_bytes(orjson.dumps(DEAD))
    done = CliRunner().invoke(cli_app, ["hint", str(path)])
    assert (done.exit_code, done.stdout) == (
        0,
        "no win from here: KC in pile 1 can never leave (rule L)\n",
    )
    done = CliRunner().invoke(cli_app, ["hint", str(path), "--json", "--max-states", "7"])
    assert done.exit_code == 0 and orjson.loads(done.stdout)["max_states"] == 7
    done = CliRunner().invoke(cli_app, ["hint", str(ROOT / "samples" / "illegal.json")])
    assert done.exit_code == 1 and "[wrong-rank]" in done.stdout + done.stderr


# --- the route -----------------------------------------------------------------------------------


@pytest.fixture
def quick_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hints run at once in this process (the route is under test, not the pool)."""

    async def run(self: costly.CostlyGate, work: Any) -> Any:
        return work()

    monkeypatch.setattr(costly.CostlyGate, "run", run)


def refused(response: Any, code: str = PUZZLE_OPEN) -> None:
    assert response.status_code == 403, response.text
    body = response.json()
    assert (body["format"], body["code"]) == ("cruel-error/1", code)
    assert "next_step" not in body


def test_the_route_refuses_todays_puzzles_and_answers_closed_ones(
    tmp_path: Path, quick_work: None
) -> None:
    db = tmp_path / "cruel.sqlite"
    store = KeyStore(db)
    site = store.add("a site", "site")[1]
    store.close()
    with TestClient(service.create_app(make_settings(db))) as client:
        for puzzle_id in TODAYS:
            refused(client.post("/v1/hint", content=by_number(puzzle(puzzle_id).deal.number or 0)))
            doc = puzzle_log(puzzle(puzzle_id))
            doc["moves"] = doc["moves"][:5]  # a few steps in: the same deal
            refused(client.post("/v1/hint", content=orjson.dumps(doc)))
        piles = puzzle_piles(puzzle(TODAYS[1]))
        for perm in itertools.permutations(range(4)):  # relabelled, even to a site key
            body = by_piles(relabel(piles, perm))
            refused(client.post("/v1/hint", content=body, headers=bearer(site)))
        refused(client.post("/v1/hint", content=by_piles(relabel(piles, SWAP))))
        # Piles that are no closed puzzle's: a site key only.
        from cruel_tools.game.deals import deal_piles

        refused(client.post("/v1/hint", content=by_piles(deal_piles(3))), PILES_NEED_KEY)
        ok = client.post("/v1/hint", content=by_piles(deal_piles(3)), headers=bearer(site))
        assert ok.status_code == 200, ok.text
        # A closed puzzle: by number, as piles and relabelled, for anyone.
        closed = puzzle(CLOSED)
        for body in (
            by_number(closed.deal.number or 0),
            by_piles(puzzle_piles(closed)),
            by_piles(relabel(puzzle_piles(closed), SWAP)),
        ):
            r = client.post("/v1/hint", content=body)
            assert r.status_code == 200, r.text
            assert r.json()["format"] == "cruel-hint/1" and r.json()["status"] == "win-next"


def test_hostile_bodies_get_the_answers_of_analyze(tmp_path: Path, quick_work: None) -> None:
    with TestClient(service.create_app(make_settings(tmp_path / "cruel.sqlite"))) as client:
        illegal = (ROOT / "samples" / "illegal.json").read_bytes()
        for path in ("/v1/hint", "/v1/analyze"):
            r = client.post(path, content=illegal)
            assert r.status_code == 422 and r.json()["code"] == "wrong-rank"
            assert r.json()["path"] == "/moves/10" and r.json()["location"] == "body"
        for body, status, code in (
            (b"{", 400, "not-json"),
            (b'{"format":"cruel-log/2","deal":{"number":1}}', 422, "schema"),
            (
                b'{"format":"cruel-log/1","deal":{"number":1},"claim":{"outcome":"won"}}',
                422,
                "claim-mismatch",
            ),
            (b'{"format":"cruel-log/1","deal":{"number":1,"piles":[]}}', 422, "bad-deal"),
            (b"[]", 422, "schema"),
        ):
            r = client.post("/v1/hint", content=body)
            assert (r.status_code, r.json()["code"]) == (status, code), r.text
        r = client.post("/v1/hint?max_states=100001", content=orjson.dumps(LOST))
        assert (r.status_code, r.json()["code"], r.json()["location"]) == (
            422,
            "bad-parameter",
            "query",
        )
        r = client.post("/v1/hint?max_states=50", content=orjson.dumps(LOST))
        assert r.status_code == 200 and r.json()["max_states"] == 50


def test_hints_have_their_own_rate_limit_and_analyses_theirs(
    tmp_path: Path, quick_work: None
) -> None:
    clock = Clock()
    settings = make_settings(
        tmp_path / "cruel.sqlite",
        analyze_limit=RateLimit(rate=1 / 60, burst=1),
        hint_limit=RateLimit(rate=1 / 60, burst=2),
        clock=clock,
    )
    body = orjson.dumps(LOST)
    with TestClient(service.create_app(settings), client=("192.0.2.1", 1000)) as client:
        assert client.post("/v1/analyze", content=body).status_code == 200
        r = client.post("/v1/analyze", content=body)
        assert r.status_code == 429 and "too many analyses from this address" in r.json()["message"]
        # The analyses' empty bucket leaves the hints' whole: a player in practice asks for a
        # hint at every step, and these buckets are their own (--hint-rate).
        assert client.post("/v1/hint", content=body).status_code == 200
        assert client.post("/v1/hint", content=body).status_code == 200
        r = client.post("/v1/hint", content=body)
        assert r.status_code == 429 and r.json()["code"] == "rate-limited"
        assert r.json()["message"] == "too many hints from this address; retry in 60 s"
        assert r.headers["Retry-After"] == "60"
        clock.now += 60
        # A refusal takes a token too: then the bucket is empty again.
        open_deal = by_number(puzzle(TODAYS[0]).deal.number or 0)
        assert [client.post("/v1/hint", content=open_deal).status_code for _ in range(2)] == [
            403,
            429,
        ]


def test_the_default_hint_limit_lets_a_player_ask_at_every_step_of_a_win() -> None:
    # A win is 50-90 actions; the bucket holds 30 and fills by one every 2 s: a player who
    # thinks two seconds a step is never refused (docs/service.md, Hints).
    limit = service.Settings(puzzles=ROOT / "puzzles").hint_limit
    assert limit is not None and limit.burst >= 30 and limit.rate >= 0.5
    assert service.Settings(puzzles=ROOT / "puzzles").analyze_limit != limit


@pytest.mark.integration  # hints run in the analyses' own process (spawned)
def test_a_hint_and_a_refusal_cross_the_analyses_process(tmp_path: Path) -> None:
    with TestClient(service.create_app(make_settings(tmp_path / "cruel.sqlite"))) as client:
        r = client.post("/v1/hint", content=by_number(puzzle(CLOSED).deal.number or 0))
        assert r.status_code == 200 and r.json()["status"] == "win-next", r.text
        r = client.post("/v1/hint", content=(ROOT / "samples" / "illegal.json").read_bytes())
        assert r.status_code == 422 and r.json()["code"] == "wrong-rank"
