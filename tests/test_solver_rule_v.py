"""Rules V and S (docs/solver.md): the rest of the family once no redeal can come. Hand-built
positions, near misses, and both rules against plain exhaustive search on small positions."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruel_tools.game import cards
from cruel_tools.game.game import Game, Move
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.search.solver import exhaustive, last_deal, safe_home_move, solve, stuck_cards

from .helpers import cards_off, pile, spread

pytestmark = pytest.mark.fallback

RFP = PRESETS["royal-family-pysolfc"]  # kings down, up or down in alternate colours, one redeal

#: Profiles whose redeal limit can be used up: PySolFC's Royal Family, and the other variants
#: with no redeal at all (custom profiles, as a log may give them).
PROFILES = {
    "royal-family-pysolfc": RFP,
    **{
        f"{name}+0": Rules(**{**PRESETS[name].model_dump(), "max_redeals": 0})
        for name in ("royal-family", "ripple-fan", "ripple-fan-pysolfc")
    },
}


def low_cards(*piles: str, rules: Rules = RFP, redeals: int = 1, **home: int) -> Game:
    """Only the named piles hold cards (the lowest of their suits: foundations build down from
    the kings); each suit's foundation holds the rest."""
    named = [pile(p) for p in piles]
    counts = [13 - sum(1 for p in named for c in p if c // 13 == s) for s in range(4)]
    empty: list[list[int]] = [[] for _ in range(rules.pile_count - len(named))]
    return Game(named + empty, counts, rules, redeals=redeals)


def test_an_ace_over_its_two_with_nowhere_to_go_is_stuck() -> None:
    # A♥ waits for 2♥ under it; it could go onto a black 2 only, and both are home.
    game = low_cards("2H AH")
    assert last_deal(game)
    assert {cards.name(c) for c in stuck_cards(game)} == {"2H", "AH"}
    assert exhaustive(game.copy()) is False
    result = solve(game.copy())
    assert result.verdict == "unwinnable" and "rule V" in result.reason
    assert result.stats.expanded == 0


def test_near_misses_are_not_stuck() -> None:
    # The two on top: it goes home, then the ace.
    assert stuck_cards(low_cards("AH 2H")) == []
    # A black 2 on top elsewhere: A♥ goes onto 2♠, 2♥ goes home, then A♥, 2♠, A♠.
    near = low_cards("2H AH", "AS 2S")
    assert stuck_cards(near) == []
    assert exhaustive(near.copy()) is True and solve(near.copy()).verdict == "won"
    # With the redeal still to come the rule does not apply (the redeal may separate them).
    before = low_cards("2H AH", "AC 3C 2C", redeals=0)
    assert not last_deal(before) and stuck_cards(before) == []


def test_a_host_covered_by_the_set_is_no_host() -> None:
    # A♥ waits for 2♥ and could go onto 2♠; A♠ waits for 2♠ and could go onto 2♥: each host is
    # covered by the other ace. A cycle across two piles, lost.
    game = low_cards("2H AH", "2S AS")
    assert {cards.name(c) for c in stuck_cards(game)} == {"2H", "AH", "2S", "AS"}
    assert exhaustive(game.copy()) is False
    assert solve(game.copy()).verdict == "unwinnable"


def test_safe_home_move() -> None:
    # 2♥ may go home, and every card that could be built onto it (black aces and threes) is home.
    assert safe_home_move(low_cards("AH 2H")) == Move(1, None)
    # A black ace in play could still go onto 2♥: not safe.
    assert safe_home_move(low_cards("AH 2H", "AS")) is None
    # Before the last redeal: never (the redeal's packets would shift).
    assert safe_home_move(low_cards("AH 2H", redeals=0)) is None
    # Cruel's own profiles: never (the native core plays them node for node as Python).
    assert safe_home_move(Game([[25]] + [[] for _ in range(11)], [13, 12, 13, 13])) is None


def small(seed: int, left: int, name: str, redeals: int) -> Game:
    """A random position of profile ``name`` with ``left`` cards in piles, often with a card over
    one its foundation takes first."""
    rng = random.Random(seed)
    rules = PROFILES[name]
    heights, rest = cards_off(rng, left, rules)
    piles = spread(rng, rest, rules.pile_count, 0.45)
    limit = rules.max_redeals or 0
    return Game(piles, heights, rules, redeals=min(redeals, limit))


def check(game: Game) -> bool:
    """Both rules against exhaustive search on ``game``; the solver's verdict too. Returns
    whether either rule fired."""
    truth = exhaustive(game.copy(), max_states=200_000)
    assert truth is not None
    fired = False
    if stuck_cards(game):
        assert truth is False, "rule V cut a winnable position"
        fired = True
    move = safe_home_move(game)
    if move is not None:
        after = game.copy()
        after.push(move)
        assert exhaustive(after, max_states=200_000) is truth, "rule S lost a win"
        fired = True
    result = solve(game.copy(), max_states=10**7)
    assert result.verdict == ("won" if truth else "unwinnable"), result.reason
    if truth:
        replay = game.copy()
        for step in result.steps:
            replay.push(step)
        assert replay.is_won()
    return fired


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**32),
    st.integers(2, 10),
    st.sampled_from(sorted(PROFILES)),
    st.integers(0, 1),
)
def test_rules_v_and_s_agree_with_exhaustive_search(
    seed: int, left: int, name: str, redeals: int
) -> None:
    check(small(seed, left, name, redeals))


def test_the_rules_fire_often_on_small_positions_and_never_wrongly() -> None:
    # Every reachable position of a few starts, not only the starts: the rules meet the
    # positions the search meets. Counts show the test exercises them.
    fired = total = 0
    for seed in range(30):
        start = small(seed, 3 + seed % 6, "royal-family-pysolfc", redeals=1)
        seen = {start.key()}
        todo = [start]
        while todo and total < 60 * (seed + 1):
            game = todo.pop()
            total += 1
            fired += check(game)
            for step in game.legal_steps():
                child = game.copy()
                child.push(step)
                if child.key() not in seen:
                    seen.add(child.key())
                    todo.append(child)
    assert total > 300 and fired > 30, (total, fired)
