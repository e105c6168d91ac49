"""Probes (docs/solver.md, "Probes: one redeal left"): royal-family-pysolfc before its redeal.

A probe plays a seeded walk of card moves, the redeal, and a short search; it only ever answers
``won`` (a win replayed through the engine) or ``unknown``. Checked here: the deals the old
search left undecided at 60 s are won, with a log the verifier accepts; a probe never wins a
position exhaustive search proves lost and never says ``unwinnable``; the solver still equals
exhaustive search on small positions; budgets hold; the probes are deterministic, and the same
in both engines (their searches run node for node, tests/test_native_solver.py).
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import REDEAL, Game, Redeal
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.search.solver import (
    SolveResult,
    exhaustive,
    probe,
    probes_apply,
    solution_log,
    solve,
)

from .helpers import cards_off, spread

pytestmark = pytest.mark.fallback

RFP = PRESETS["royal-family-pysolfc"]


def deal(number: int, rules: Rules = RFP) -> Game:
    return Game.from_deal(deal_piles(number, rules), rules)


def facts(r: SolveResult) -> tuple[object, ...]:
    return (r.verdict, r.reason, r.steps, r.stats.expanded, r.stats.unique, r.stats.pruned)


def test_probes_apply_before_the_one_redeal_only() -> None:
    game = deal(1)
    assert probes_apply(game)
    game.push(next(s for s in game.legal_steps() if s != REDEAL))
    game.redeal()
    assert not probes_apply(game)  # after the last redeal: rules V and S, no probes
    for name in ("cruel", "pysolfc", "cruel-limited-3", "royal-family", "ripple-fan"):
        assert not probes_apply(deal(1, PRESETS[name])), name
    # Deal 2342 is blocked at the deal (no card move, and a redeal would change nothing): no
    # probes, and the full pass proves it lost at once.
    blocked = deal(2342)
    assert blocked.outcome() == "blocked" and not probes_apply(blocked)
    result = solve(blocked, max_states=1_000)
    assert result.verdict == "unwinnable" and result.stats.expanded <= 2  # one a pass
    # The rest of the family with one redeal left, as a log may set it.
    custom = Rules(**{**PRESETS["royal-family"].model_dump(), "max_redeals": 1})
    assert probes_apply(deal(1, custom))


@pytest.mark.parametrize("number", [1, 3, 4])
def test_deals_the_old_search_left_undecided_are_won(number: int) -> None:
    # Deals 1, 3 and 4 were unknown after 12-23 million positions at 60 s and 4 GiB (issue #25).
    game = deal(number)
    result = solve(game.copy(), max_states=200_000)
    assert result.verdict == "won"
    assert sum(isinstance(s, Redeal) for s in result.steps) == 1
    doc = solution_log(number, deal_piles(number, RFP), RFP, result.steps)  # the verifier
    assert doc["claim"]["outcome"] == "won"


def test_probes_keep_their_budget_and_are_deterministic() -> None:
    game = deal(1)
    for budget in (1, 7, 130, 2_500):
        first = probe(game.copy(), budget)
        assert first.stats.expanded <= budget
        assert first.verdict in ("won", "unknown")
        assert facts(probe(game.copy(), budget)) == facts(first)
    lost = probe(game.copy(), 50)
    assert lost.verdict == "unknown" and "proves nothing" in lost.reason


@pytest.mark.skipif(
    engine.native() is None or os.environ.get(engine.ENV) == "python",
    reason="the native core is not built here",
)
def test_the_probes_are_the_same_in_both_engines() -> None:
    old = os.environ.get(engine.ENV)
    try:
        for number in (1, 2, 3):
            got = {}
            for name in ("native", "python"):
                os.environ[engine.ENV] = name
                got[name] = facts(solve(deal(number), max_states=2_500))
            assert got["native"] == got["python"], number
    finally:
        if old is None:
            os.environ.pop(engine.ENV, None)
        else:
            os.environ[engine.ENV] = old


def small(seed: int, left: int) -> Game:
    """A random position of royal-family-pysolfc with ``left`` cards in piles and its redeal
    still to come."""
    rng = random.Random(seed)
    heights, rest = cards_off(rng, left, RFP)
    return Game(spread(rng, rest, RFP.pile_count, 0.45), heights, RFP, redeals=0)


def check(game: Game) -> str:
    truth = exhaustive(game.copy(), max_states=200_000)
    assert truth is not None
    found = probe(game.copy(), 3_000)
    assert found.verdict in ("won", "unknown")
    if found.verdict == "won":
        assert truth, "a probe won a lost position"
        replay = game.copy()
        for step in found.steps:
            replay.push(step)
        assert replay.is_won()
    result = solve(game.copy(), max_states=10**7)
    assert result.verdict == ("won" if truth else "unwinnable"), result.reason
    return found.verdict


@pytest.mark.heavy
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(2, 10))
def test_probes_and_solve_agree_with_exhaustive_search(seed: int, left: int) -> None:
    check(small(seed, left))


@pytest.mark.heavy
def test_probes_win_small_positions_and_never_claim_a_loss() -> None:
    verdicts = [check(small(seed, 3 + seed % 8)) for seed in range(60)]
    assert verdicts.count("won") > 10  # the probes do win here, not only the passes after them
