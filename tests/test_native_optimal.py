"""The native fewest-actions search (cruel_tools/native/optimal.cpp) against the Python one.

The core runs optimal.py's beam and A* node for node (the same children in the same order, the
same ranks, ties, pathmax and reopening), so for one budget in positions both engines give the
same answer with the same counts: compared exactly, and both against exhaustive breadth-first
search on small positions. The core's bound is optimal.py's ``actions_bound`` exactly. Its
budgets (positions, memory) end a search with a proven bound, never a crash; Ctrl-C ends it as
KeyboardInterrupt.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.rules import PRESETS
from cruel_tools.search import optimal
from cruel_tools.search.optimal import OptimalResult, OptimalStats, actions_bound, optimize

from .test_optimal import FULL, HYPOTHESIS, SMALL, exhaustive_or_skip, small_position

NATIVE = engine.native() if os.environ.get(engine.ENV) != "python" else None
pytestmark = pytest.mark.skipif(NATIVE is None, reason="the native core is not built here")

#: The presets the core's fewest-actions search plays (Cruel's own layout); the rest of the
#: family stays on the Python search (optimal.py), whatever the core's solver plays.
CORE_PRESETS = sorted(name for name, rules in PRESETS.items() if rules.cruel_layout)
ROOT = Path(__file__).resolve().parent.parent


def under(engine_name: str, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """``fn(*args, **kwargs)`` under one engine (CRUEL_ENGINE is read at each call)."""
    old = os.environ.get(engine.ENV)
    os.environ[engine.ENV] = engine_name
    try:
        return fn(*args, **kwargs)
    finally:
        if old is None:
            del os.environ[engine.ENV]
        else:
            os.environ[engine.ENV] = old


def native_bound(game: Game) -> int:
    assert NATIVE is not None
    rules = engine.native_rules(game.rules)
    assert rules is not None
    return int(NATIVE.actions_bound(game.piles, game.foundations, game.redeals, rules))


def walked(seed: int, left: int, name: str, walk: int) -> Game:
    """A small position of a core preset, then ``walk`` random legal steps (redeals among them,
    so positions with redeals used, under a limit too, are drawn)."""
    game = small_position(seed, left, PRESETS[name])
    rng = random.Random(seed)
    for _ in range(walk):
        steps = list(game.legal_steps())
        if not steps:
            break
        game.push(rng.choice(steps))
    return game


def positions(most: int, walk: int = 12) -> st.SearchStrategy[Game]:
    return st.builds(
        walked,
        st.integers(0, 10**9),
        st.integers(3, most),
        st.sampled_from(CORE_PRESETS),
        st.integers(0, walk),
    )


def facts(r: OptimalResult) -> tuple[object, ...]:
    s = r.stats
    return (r.verdict, r.steps, r.lower_bound, r.reason, s.expanded, s.unique, s.pruned)


# --- the bound -----------------------------------------------------------------------------------


@settings(max_examples=300, **HYPOTHESIS)  # type: ignore[arg-type]
@given(positions(48, walk=40))
def test_the_native_bound_is_pythons(game: Game) -> None:
    assert native_bound(game) == actions_bound(game)


@pytest.mark.parametrize("name", CORE_PRESETS)
def test_the_native_bound_is_pythons_along_played_deals(name: str) -> None:
    # Full deals and the positions of random games from them (tall piles, many redeals).
    rules = PRESETS[name]
    rng = random.Random(name)
    for number in range(1, 6):
        game = Game.from_deal(deal_piles(number, rules), rules)
        for _ in range(150):
            assert native_bound(game) == actions_bound(game), (number, game.piles)
            steps = list(game.legal_steps())
            if not steps:
                break
            game.push(rng.choice(steps))


@settings(max_examples=60, **HYPOTHESIS)  # type: ignore[arg-type]
@given(positions(10))
def test_the_native_bound_never_overestimates(game: Game) -> None:
    truth = exhaustive_or_skip(game, SMALL)
    if truth is not None:
        assert native_bound(game) <= truth


# --- the search ----------------------------------------------------------------------------------


def agree_with_python_and_breadth_first_search(game: Game, cap: int) -> None:
    truth = exhaustive_or_skip(game, cap)
    for width in (optimal.BEAM_WIDTH, 0):  # with the beams' upper bound, and by A* alone
        native = under("native", optimize, game.copy(), 10**7, beam_width=width)
        python = under("python", optimize, game.copy(), 10**7, beam_width=width)
        assert facts(native) == facts(python)  # node for node: the same counts
        if truth is None:
            assert native.verdict == "unwinnable" and native.steps == []
        else:
            assert native.verdict == "optimal", native.reason
            assert (native.actions or 0) == truth == native.lower_bound  # 0: won already


@settings(max_examples=40, **HYPOTHESIS)  # type: ignore[arg-type]
@given(positions(9))
def test_native_optimize_is_python_optimize_is_breadth_first_search(game: Game) -> None:
    agree_with_python_and_breadth_first_search(game, SMALL)


@pytest.mark.slow
@settings(max_examples=150, **HYPOTHESIS)  # type: ignore[arg-type]
@given(positions(15))
def test_native_optimize_is_python_optimize_is_breadth_first_search_at_full_size(
    game: Game,
) -> None:
    agree_with_python_and_breadth_first_search(game, FULL)


@settings(max_examples=40, **HYPOTHESIS)  # type: ignore[arg-type]
@given(positions(12), st.integers(1, 300))
def test_a_spent_budget_gives_a_proven_bound(game: Game, budget: int) -> None:
    truth = exhaustive_or_skip(game, SMALL)
    native = under("native", optimize, game.copy(), budget)
    assert facts(native) == facts(under("python", optimize, game.copy(), budget))
    if truth is None:
        assert native.verdict in ("unwinnable", "unknown")
        return
    assert native.lower_bound <= truth
    if native.steps:
        assert native.actions is not None and native.actions >= truth
        assert native.optimal == (native.actions == native.lower_bound)


@pytest.mark.heavy
@pytest.mark.parametrize("name", CORE_PRESETS)
def test_deals_node_for_node_with_python(name: str) -> None:
    # Whole deals, a small budget in positions: beams, the plain solver and A* alike.
    rules = PRESETS[name]
    for number in (1, 2):
        game = Game.from_deal(deal_piles(number, rules), rules)
        native = under("native", optimize, game.copy(), 3000)
        python = under("python", optimize, game.copy(), 3000)
        assert facts(native) == facts(python), number


def test_the_2027_01_04_easy_puzzle_is_proven_optimal_at_57() -> None:
    rows = json.loads((ROOT / "tests" / "data" / "daily-2027-01-01-04.json").read_text())
    row = next(r for r in rows["puzzles"] if r["id"] == "2027-01-04-easy")
    result = under("native", optimize, Game.from_deal(deal_piles(row["deal"])), 100_000)
    assert (result.verdict, result.actions, result.lower_bound) == ("optimal", 57, 57)


@pytest.mark.heavy
def test_the_budget_in_positions_gives_best_found_with_a_bound() -> None:
    game = Game.from_deal(deal_piles(5))  # not proven within 2 million positions
    small = under("native", optimize, game.copy(), 20_000)
    large = under("native", optimize, game.copy(), 300_000)
    for result in (small, large):
        assert result.verdict == "best-found"
        assert result.actions is not None and result.lower_bound < result.actions
    # Every bound is at most every win: each is proven, whatever the budget.
    assert max(small.lower_bound, large.lower_bound) <= min(small.actions, large.actions)  # type: ignore[type-var]
    assert small.lower_bound <= large.lower_bound


@pytest.mark.heavy
def test_the_memory_budget_ends_the_search_with_a_bound() -> None:
    game = Game.from_deal(deal_piles(5))
    # Too small for even the first block: no beam, no solver pass, no A*; the bound still holds.
    none = under("native", optimize, game.copy(), 10**9, max_memory=1 << 20)
    assert (none.verdict, none.steps) == ("unknown", [])
    assert none.lower_bound == actions_bound(game)
    # Enough for the beams, not for the A* that would prove the optimum.
    some = under("native", optimize, game.copy(), 10**9, max_memory=24 << 20)
    assert some.verdict == "best-found" and some.actions is not None
    assert actions_bound(game) <= some.lower_bound < some.actions
    assert NATIVE is not None
    rules = engine.native_rules(game.rules)
    out = NATIVE.shortest(game.piles, game.foundations, 0, rules, 1 << 30, 10**9, 60.0, 24 << 20)
    assert (out.why, out.steps) == ("memory", []) and out.bound >= actions_bound(game)
    assert 0 < out.peak_bytes <= 24 << 20 and out.expanded > 1000


@pytest.mark.usefixtures("sigint_soon")
def test_ctrl_c_stops_the_native_a_star_cleanly() -> None:
    game = Game.from_deal(deal_piles(5))
    began = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        under("native", optimal.shortest, game, None, 10**9, 60.0, None, OptimalStats())
    assert time.perf_counter() - began < 5
    # The core is still sound after it: the next search runs and answers as before.
    easy = Game.from_deal(deal_piles(1))
    assert under("native", optimize, easy, 200_000).verdict == "optimal"


def test_the_rest_of_the_family_stays_on_the_python_search() -> None:
    # Ripple Fan and Royal Family: the reduced game and bound C are not the core's; optimize
    # answers there as the Python search does, whichever engine is chosen.
    for name in sorted(n for n, rules in PRESETS.items() if not rules.cruel_layout):
        game = small_position(3, 6, PRESETS[name])
        native = under("native", optimize, game.copy(), 20_000)
        assert facts(native) == facts(under("python", optimize, game.copy(), 20_000)), name
