"""decide(): the proof search within its share of the budget, then beams that only look for a win
(cruel_tools/search/decide.py, docs/solver.md "Deciding a deal")."""

from __future__ import annotations

import pytest

from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.rules import PRESETS
from cruel_tools.search.decide import BEAM_SHARE, decide
from cruel_tools.search.solver import solve

RULES = PRESETS["cruel"]


def deal(number: int) -> Game:
    return Game.from_deal(deal_piles(number, RULES), RULES)


def test_no_share_is_the_proof_search_itself() -> None:
    for number in (1, 2, 5, 48, 205):
        a, b = solve(deal(number), 3000), decide(deal(number), 3000, beam_share=0.0)
        assert (a.verdict, a.steps, a.reason, a.stats.expanded) == (
            b.verdict,
            b.steps,
            b.reason,
            b.stats.expanded,
        )


def test_a_deal_decided_by_the_proof_search_is_decided_the_same() -> None:
    # Deal 205 is unwinnable (a whole search), deal 2 won, deal 1 won: within half the budget the
    # proof search answers as it does with all of it (its narrow passes' shares scale with the
    # budget, so the positions differ), and the beams never run.
    cases = [(1, 10_000), (2, 10_000)]
    if engine.native() is not None:  # 1.3 million positions: a second in the core, minutes here
        cases.append((205, 4_000_000))
    for number, budget in cases:
        whole, shared = solve(deal(number), budget), decide(deal(number), budget)
        assert shared.verdict == whole.verdict != "unknown"
        assert shared.stats.expanded <= budget // 2


@pytest.mark.heavy
def test_a_beam_wins_what_the_proof_search_did_not() -> None:
    # Deal 2100: undecided by the proof search after 16 million positions (90 s); the first
    # beam (10,000 a level) wins it in 164,717 (issue #38).
    if engine.native() is None:
        pytest.skip("the beam of this deal takes minutes in Python")
    alone = solve(deal(2100), 400_000)
    assert alone.verdict == "unknown"
    found = decide(deal(2100), 400_000)
    assert found.verdict == "won" and found.reason == ""
    assert found.stats.expanded <= 400_000
    game = deal(2100)
    for step in found.steps:
        game.push(step)
    assert game.is_won()


@pytest.mark.parametrize("budget", [6, 17, 300, 3000, 25_000])
def test_the_positions_budget_holds_exactly(budget: int) -> None:
    # Deal 48 stays undecided: the proof search takes its share, the beams the rest, and the
    # count never passes the budget (a beam stops within a level: exact=True).
    found = decide(deal(48), budget)
    assert found.verdict == "unknown"
    assert found.stats.expanded == budget
    assert found.reason == f"state budget of {budget} spent"


def test_the_time_budget_names_the_whole_budget() -> None:
    found = decide(deal(48), 10**12, max_seconds=0.4)
    assert found.verdict == "unknown"
    assert found.reason == "time budget of 0.4 s spent"
    assert found.stats.seconds < 0.4 + 0.5


def test_the_share_is_half() -> None:
    # The measured split (benchmarks/RESULTS.md, "issue #38: deciding"): a proof search decides
    # almost all it will in its first second, the beams win more of the rest.
    assert BEAM_SHARE == 0.5


@pytest.mark.parametrize("budget", [7, 400, 2500])
def test_both_engines_decide_alike(monkeypatch: pytest.MonkeyPatch, budget: int) -> None:
    # The Python beam and the core's stop at the same position (exact), so the counts and the
    # verdicts of the two engines agree for a budget in positions.
    if engine.native() is None:
        pytest.skip("needs the native core to compare with")
    answers = []
    for name in ("native", "python"):
        monkeypatch.setenv("CRUEL_ENGINE", name)
        found = decide(deal(48), budget)
        answers.append((found.verdict, found.stats.expanded, found.reason))
    assert answers[0] == answers[1] == ("unknown", budget, f"state budget of {budget} spent")
