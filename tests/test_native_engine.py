"""The native engine (cruel_tools/native/engine.hpp) against game.py, the statement of the rules.

Random games of every preset the core plays, with refused steps mixed in: after every step the
two engines must agree on the refusal code (for a refused step), or on the position, the outcome, the
counters and every legal step in the same order (for a played one). The core plays a whole game
per call (``_native.trace``), so the boundary is crossed once per game, as everywhere else.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cruel_tools.game import engine
from cruel_tools.game.deals import MAX_DEAL_NUMBER, deal_piles
from cruel_tools.game.game import REDEAL, Game, IllegalMove, Move, Redeal, Step, start_foundations
from cruel_tools.game.rules import PRESETS, Rules

from .helpers import random_step

NATIVE = engine.native() if os.environ.get(engine.ENV) != "python" else None
pytestmark = pytest.mark.skipif(NATIVE is None, reason="the native core is not built here")

#: The presets the core plays: every one, Cruel's own layout and the rest of the family.
CORE_PRESETS = list(PRESETS)
#: The rest of the family (13 piles, kings down or no base, alternate colours, one at a time).
VARIANT_PRESETS = [name for name, rules in PRESETS.items() if not rules.cruel_layout]


def test_the_core_plays_every_preset() -> None:
    assert VARIANT_PRESETS == [
        "ripple-fan",
        "royal-family",
        "ripple-fan-pysolfc",
        "royal-family-pysolfc",
    ]
    cruel = engine.native_rules(PRESETS["cruel"])
    assert (cruel.top_down, cruel.max_redeals, cruel.when_stuck, cruel.runs) == (
        False,
        -1,
        False,
        False,
    )
    assert engine.native_rules(PRESETS["royal-family-pysolfc"]) == NATIVE.NativeRules(
        top_down=True,
        max_redeals=1,
        when_stuck=False,
        runs=False,
        piles=12,
        base=1,
        build=2,
        one_at_a_time=False,
    )
    ripple = engine.native_rules(PRESETS["ripple-fan-pysolfc"])
    assert (ripple.piles, ripple.base, ripple.build, ripple.one_at_a_time) == (13, 2, 0, False)


def as_tuple(step: Step) -> tuple[int, int, int]:
    """A step as the core reports it: (source, target, count); a redeal is (0, 0, 1)."""
    if isinstance(step, Redeal):
        return (0, 0, 1)
    return (step.source, step.target or 0, step.count)


def as_attempt(step: Step) -> Any:
    """A step as the core takes it (a CoreStep): card -1 when the step names none."""
    assert NATIVE is not None
    if isinstance(step, Redeal):
        return NATIVE.CoreStep(source=0, target=0, count=1)
    card = -1 if step.card is None else step.card
    target = 0 if step.target is None else step.target
    return NATIVE.CoreStep(source=step.source, target=target, count=step.count, card=card)


def reported(traced: Any) -> tuple[list[tuple[int, int, int]], Any]:
    """What the core reports after a played step (a TraceStep), in :func:`snapshot`'s form."""
    after = traced.after
    legal = [(s.source, s.target, s.count) for s in traced.legal]
    return legal, (after.piles, after.foundations, after.moves, after.redeals, after.outcome)


def refused_step(rng: random.Random, game: Game) -> Move | Redeal:
    """A step chosen to break the rules in many ways: bad piles, empty piles, wrong cards,
    wrong targets, runs, redeals at the wrong time (it may happen to be legal)."""
    kind = rng.random()
    if kind < 0.12:
        return REDEAL
    n = game.rules.pile_count
    source = rng.choice([*range(1, n + 1), 1, 2, 13, 14, -1, 99])
    target: int | None = rng.choice([None, None, *range(1, n + 1), 13, 14, -3])
    count = rng.choice([1, 1, 1, 1, 2, 3, 0, 12])
    card = rng.choice([None, None, rng.randrange(52)])
    if card is None and rng.random() < 0.3:
        pile = game.piles[source - 1] if 1 <= source <= n else []
        if pile:
            card = pile[-1]
    return Move(source, target, count, card)


def play_both(
    piles: list[list[int]], rules: Rules, rng: random.Random, max_steps: int, refusals: int
) -> tuple[int, int]:
    """One random game in both engines; returns (steps played, refusals checked)."""
    game = Game.from_deal(piles, rules)
    attempts: list[Step] = []
    expected: list[Any] = []
    played = refused = 0
    for _ in range(max_steps):
        for _ in range(refusals):
            step = refused_step(rng, game)
            try:
                game.push(step)
            except IllegalMove as exc:
                attempts.append(step)
                expected.append(exc.code)
                refused += 1
            else:
                attempts.append(step)
                expected.append(snapshot(game))
                played += 1
        step = random_step(game, rng)
        if step is None:
            break
        game.push(step)
        attempts.append(step)
        expected.append(snapshot(game))
        played += 1
    assert NATIVE is not None
    got = NATIVE.trace(
        piles, start_foundations(rules), engine.native_rules(rules), list(map(as_attempt, attempts))
    )
    for i, (step, want, traced) in enumerate(zip(attempts, expected, got, strict=True)):
        code = traced.code
        if isinstance(want, str):
            assert code == want, f"step {i} {step}: native {code!r}, game.py {want!r}"
        else:
            assert code == "", f"step {i} {step}: native refused it ({code}), game.py played it"
            assert reported(traced) == want, f"step {i} {step}: positions differ"
    assert len(got) == len(attempts)
    return played, refused


def snapshot(game: Game) -> tuple[list[tuple[int, int, int]], Any]:
    """What the core reports after a played step, computed by game.py."""
    legal = [as_tuple(s) for s in game.legal_steps()]
    state = (
        [p[:] for p in game.piles],
        game.foundations[:],
        game.moves,
        game.redeals,
        game.outcome(),
    )
    return legal, state


def agree_over(preset: str, steps: int) -> None:
    """Random games until ``steps`` steps are played, with about 3 refusals for every 4 steps."""
    rules = PRESETS[preset]
    rng = random.Random(f"native-{preset}")
    played = refused = 0
    number = 0
    while played < steps:
        number += 1
        p, r = play_both(deal_piles(number, rules), rules, rng, max_steps=250, refusals=1)
        played += p
        refused += r
    assert refused >= steps * 5 // 8


@pytest.mark.heavy
@pytest.mark.parametrize("preset", [p for p in CORE_PRESETS if PRESETS[p].cruel_layout])
def test_random_games_agree_step_by_step(preset: str) -> None:
    """The default tier's: about 10,000 steps and 7,500 refusals per preset of Cruel's layout."""
    agree_over(preset, 10_000)


@pytest.mark.slow
@pytest.mark.parametrize("preset", CORE_PRESETS)
def test_many_random_games_agree_step_by_step(preset: str) -> None:
    """About 40,000 steps and 30,000 refusals per preset: 400,000 and 300,000 in all."""
    agree_over(preset, 40_000)


@pytest.mark.parametrize("preset", CORE_PRESETS)
def test_a_few_random_games_agree_step_by_step(preset: str) -> None:
    """The quick subset's version: 2,000 steps per preset."""
    agree_over(preset, 2_000)


@pytest.mark.heavy
def test_overridden_profiles_agree() -> None:
    """Profiles made by overrides, not presets: runs with a top-down redeal, a redeal limit
    with redeals only when stuck."""
    rng = random.Random(5)
    for rules in (
        Rules(preset="perseverance", run_moves=True, max_redeals=None, redeal_order="top-down"),
        Rules(preset="cruel", max_redeals=1, redeal_only_when_stuck=True),
        Rules(preset="cruel", max_redeals=0),
        # The rest of the family's fields in combinations no preset has.
        Rules(preset="ripple-fan", redeal_deal="one-at-a-time", redeal_order="top-down"),
        Rules(preset="royal-family", tableau_build="up-or-down-alternate-colour", max_redeals=2),
        Rules(
            preset="ripple-fan-pysolfc",
            pile_count=13,
            foundation_base="none",
            redeal_deal="one-at-a-time",
            tableau_build="up-alternate-colour",
            redeal_only_when_stuck=True,
        ),
        Rules(
            preset="royal-family-pysolfc",
            foundation_base="king",
            foundation_direction="down",
            tableau_build="down-in-suit",
            redeal_deal="one-at-a-time",
            max_redeals=3,
        ),
    ):
        for number in range(1, 60):
            play_both(deal_piles(number, rules), rules, rng, max_steps=200, refusals=2)


@settings(max_examples=60, deadline=None)
@given(
    number=st.integers(0, MAX_DEAL_NUMBER),
    preset=st.sampled_from(CORE_PRESETS),
    seed=st.integers(0, 2**32),
)
def test_any_deal_agrees(number: int, preset: str, seed: int) -> None:
    rules = PRESETS[preset]
    play_both(deal_piles(number, rules), rules, random.Random(seed), max_steps=120, refusals=2)


def test_a_won_game_refuses_everything_as_game_py_does() -> None:
    """A won position: every move is move-after-end (or bad-pile), a redeal too."""
    rules = PRESETS["cruel"]
    piles = [[] for _ in range(12)]
    assert NATIVE is not None
    got = NATIVE.trace(
        piles,
        [13, 13, 13, 13],
        engine.native_rules(rules),
        [
            NATIVE.CoreStep(source=0, target=0, count=1),
            NATIVE.CoreStep(source=3, target=0, count=1),
            NATIVE.CoreStep(source=13, target=1, count=1),
        ],
    )
    assert [g.code for g in got] == ["move-after-end", "move-after-end", "bad-pile"]


def test_positions_that_are_not_a_deck_are_refused_at_the_boundary() -> None:
    assert NATIVE is not None
    rules = engine.native_rules(PRESETS["cruel"])
    piles = deal_piles(1)
    for bad_piles, found in (
        (piles[:11], [1, 1, 1, 1]),  # 11 piles
        ([[0, *piles[0]], *piles[1:]], [1, 1, 1, 1]),  # the ace of spades twice
        ([[99], *piles[1:]], [1, 1, 1, 1]),  # no such card
        (piles, [1, 1, 1, 14]),  # a foundation past the king
        (piles, [0, 1, 1, 1]),  # the ace of spades nowhere
    ):
        with pytest.raises(ValueError, match="position"):
            NATIVE.trace(bad_piles, found, rules, [])
