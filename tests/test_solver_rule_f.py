"""Rule F (docs/solver.md): frozen sets. Hand-built positions, near misses, and the rule against
plain exhaustive search: it never fires on a position from which a win exists."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruel_tools.game import cards, engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.rules import PRESETS
from cruel_tools.search.solver import exhaustive, frozen_cards, pile1_lock, solve

from .helpers import pile, position

pytestmark = pytest.mark.fallback


def names(frozen: list[int]) -> set[str]:
    return {cards.name(c) for c in frozen}


# Deal 206's first two piles: K♠ tops pile 1 over 3♦ 10♣ 4♣ and waits for Q♠, which K♦ covers in
# pile 2; K♦ waits for 3♦ under K♠. No redeal separates them: nothing can be built on K♠ but Q♠.
CYCLE = ["3D 10C 4C KS", "QD QS KD 4S"]


def test_a_cycle_of_kings_across_two_piles_is_frozen() -> None:
    game = position(CYCLE)
    assert pile1_lock(game) is None  # rule L does not see it
    assert {"3D", "10C", "4C", "KS", "QD", "QS", "KD"} <= names(frozen_cards(game))
    result = solve(game)
    assert result.verdict == "unwinnable" and "rule F" in result.reason
    assert result.stats.expanded == 0


def small(*piles: str) -> Game:
    """Only the named piles hold cards; every card of a suit below the lowest named is home."""
    named = [pile(p) for p in piles]
    heights = [13] * 4
    for c in (c for p in named for c in p):
        heights[c // 13] = min(heights[c // 13], c % 13)
    return Game(named + [[] for _ in range(12 - len(named))], heights)


# The smallest such cycle: K♠ waits for Q♠, which K♦ covers; K♦ waits for Q♦, under K♠.
SMALL = ("QD KC QC KS", "QS KD")


def test_the_smallest_cycle_is_frozen_and_lost() -> None:
    game = small(*SMALL)
    assert pile1_lock(game) is None
    assert names(frozen_cards(game)) == {"QD", "KC", "QC", "KS", "QS", "KD"}
    assert exhaustive(game.copy()) is False
    assert solve(game.copy()).verdict == "unwinnable"


@pytest.mark.parametrize(
    "piles",
    [
        # Q♠ on top of K♦: it goes home, then K♠, the clubs, Q♦, K♦.
        ("QD KC QC KS", "KD QS"),
        # The same cards cut differently mid-deal: pile 1 ends at K♠ (index 2), so Q♣ is the
        # last card of the first packet after a redeal and goes home; then Q♠ tops pile 1.
        ("QD KC KS", "QC QS KD"),
        # A king on a lower card of its suit outside pile 1's bottom four (docs/solver.md, ideas
        # that are not rules): Q♥ goes home, the redeal ends the first packet with Q♣, which is
        # built onto K♣.
        ("KH JC KD QH", "QC KC"),
    ],
)
def test_near_misses_are_not_frozen(piles: tuple[str, ...]) -> None:
    game = small(*piles)
    assert frozen_cards(game) == []
    assert exhaustive(game.copy()) is True
    assert solve(game.copy()).verdict == "won"


def test_rule_f_finds_every_rule_l_lock() -> None:
    for first in ("7H 7D 7S KH", "6D JD 10H 10D", "KC 6C 8D QC"):
        rest = [c for c in cards.DECK if cards.rank(c) != 1 and c not in pile(first)]
        piles = [pile(first)] + [rest[i : i + 4] for i in range(0, 44, 4)]
        assert frozen_cards(Game.from_deal(piles)) != []


def test_rule_f_is_off_where_its_proof_does_not_hold() -> None:
    for name in ("pysolfc", "perseverance", "ripple-fan", "royal-family"):
        rules = PRESETS[name]
        if rules.pile_count != 12:
            continue
        assert frozen_cards(position(CYCLE, rules=rules)) == []
    assert frozen_cards(position(CYCLE, rules=PRESETS["cruel-when-stuck"])) != []


# --- against exhaustive search --------------------------------------------------------------------


def small_position(seed: int, left: int, rules_name: str, packed: bool) -> Game:
    """``left`` cards in the piles (a few high cards of each suit), the rest home; the piles are
    packets of 4 (as after a redeal) or cut at random."""
    rng = random.Random(seed)
    heights = [13] * 4
    for _ in range(left):
        s = rng.choice([i for i in range(4) if heights[i] > 1])
        heights[s] -= 1
    remaining = [13 * s + r for s in range(4) for r in range(heights[s], 13)]
    rng.shuffle(remaining)
    if rng.random() < 0.5:  # kings early: cycles of kings and low cards are what rule F finds
        remaining.sort(key=lambda c: (c % 13 != 12 or rng.random() < 0.5, rng.random()))
    piles: list[list[int]] = [[] for _ in range(12)]
    if packed:
        for i, c in enumerate(remaining):
            piles[i // 4].append(c)
    else:
        k = 0
        for c in remaining:
            if k < 11 and piles[k] and rng.random() < 0.35:
                k += 1
            piles[k].append(c)
    return Game(piles, heights, PRESETS[rules_name])


def reachable_verdicts(start: Game, max_states: int) -> dict[tuple, tuple[Game, bool]] | None:
    """Every position reachable from ``start`` (unlimited redeals) with whether it can be won;
    None past ``max_states``."""
    games: dict[tuple, Game] = {start.key(): start}
    parents: dict[tuple, list[tuple]] = {}
    stack = [start]
    while stack:
        game = stack.pop()
        k = game.key()
        for step in game.legal_steps():
            child = game.copy()
            child.push(step)
            ck = child.key()
            parents.setdefault(ck, []).append(k)
            if ck not in games:
                games[ck] = child
                if len(games) > max_states:
                    return None
                stack.append(child)
    win = {k for k, g in games.items() if g.is_won()}
    todo = list(win)
    while todo:
        k = todo.pop()
        for p in parents.get(k, []):
            if p not in win:
                win.add(p)
                todo.append(p)
    return {k: (g, k in win) for k, g in games.items()}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**32),
    st.integers(4, 14),
    st.sampled_from(["cruel", "cruel-when-stuck"]),
    st.booleans(),
)
def test_rule_f_never_fires_on_a_winnable_position(
    seed: int, left: int, name: str, packed: bool
) -> None:
    game = small_position(seed, left, name, packed)
    verdicts = reachable_verdicts(game, 20_000)
    if verdicts is None:
        return  # too big to check exhaustively
    for g, winnable in verdicts.values():
        if winnable:
            assert frozen_cards(g) == [], g.piles


def test_rule_f_fires_often_and_only_on_lost_positions() -> None:
    """The rule is not idle on small positions: a deterministic sample where it fires often,
    each firing confirmed lost by exhaustive search, and the solver agrees with it."""
    fired = checked = 0
    for seed in range(400):
        game = small_position(seed, 6 + seed % 9, "cruel", packed=seed % 2 == 0)
        truth = exhaustive(game.copy(), max_states=50_000)
        if truth is None:
            continue
        checked += 1
        if frozen_cards(game):
            fired += 1
            assert truth is False, game.piles
        assert solve(game.copy(), max_states=10**6).verdict == ("won" if truth else "unwinnable")
    assert checked >= 300 and fired >= 20, (checked, fired)


@pytest.mark.skipif(engine.native() is None, reason="the native core is not built here")
@pytest.mark.parametrize("number", [36, 48, 76, 87, 206, 259, 310, 783])
def test_both_engines_apply_rule_f_node_for_node(number: int) -> None:
    # Deals the old solver left undecided (and 36, frozen at the deal): the same verdict, reason,
    # solution and counts (expanded, unique, pruned) in the core and in Python.
    from .test_native_solver import facts, solve_with

    game = Game.from_deal(deal_piles(number))
    native = solve_with("native", game, max_states=3000)
    python = solve_with("python", game, max_states=3000)
    assert facts(native) == facts(python)


@pytest.mark.skipif(engine.native() is None, reason="the native core is not built here")
@pytest.mark.parametrize("number", [36, 206, 259])
def test_without_rule_f_both_engines_search_as_before_it(number: int) -> None:
    # Grading version 2 searches without rule F (grading._RULE_F): both engines must then leave
    # it out alike, and never name it; with it, deal 206 is lost at once.
    from .test_native_solver import facts, solve_with

    game = Game.from_deal(deal_piles(number))
    native = solve_with("native", game, max_states=3000, rule_f=False)
    python = solve_with("python", game, max_states=3000, rule_f=False)
    assert facts(native) == facts(python)
    assert "rule F" not in native.reason
    if number == 206:
        assert native.stats.expanded > 0
        assert "rule F" in solve(game.copy(), max_states=3000).reason
