"""The class that plays a profile is chosen once (``game.game_class``), by every constructor.

``Game`` plays Cruel's own layout on its fast path and ``VariantGame`` every other profile; an
object never changes class after it is made (issue #23).
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import REDEAL, Game, IllegalMove, Move, Step, VariantGame, game_class
from cruel_tools.game.rules import PRESETS, Rules

CRUEL_LAYOUT = [name for name, rules in PRESETS.items() if rules.cruel_layout]
VARIANTS = [name for name, rules in PRESETS.items() if not rules.cruel_layout]


def test_both_kinds_of_profile_exist() -> None:
    assert "cruel" in CRUEL_LAYOUT and "royal-family" in VARIANTS and "ripple-fan" in VARIANTS


def made(rules: Rules) -> dict[str, Game]:
    """A game of deal 5 under ``rules`` from every way there is to make one."""
    piles = deal_piles(5, rules)
    played = Game.from_deal(piles, rules)
    return {
        "Game(...)": Game(piles, None, rules),
        "Game(piles, foundations, rules)": Game(piles, played.foundations, rules),
        "from_deal": played,
        "trusted": Game.trusted([list(p) for p in piles], rules),
        "copy": played.copy(),
        "pickle": pickle.loads(pickle.dumps(played)),
        "deepcopy": copy.deepcopy(played),
    }


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_constructor_picks_the_class_of_the_rules(name: str) -> None:
    rules = PRESETS[name]
    expected = Game if rules.cruel_layout else VariantGame
    assert game_class(rules) is expected
    for how, game in made(rules).items():
        assert type(game) is expected, how
        assert game.rules == rules and game.piles == deal_piles(5, rules), how


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_variant_game_named_by_the_caller_is_kept(name: str) -> None:
    # As chess.variant lets a caller name the board class: VariantGame plays every profile.
    rules = PRESETS[name]
    piles = deal_piles(5, rules)
    assert game_class(rules, VariantGame) is VariantGame
    assert type(VariantGame(piles, None, rules)) is VariantGame
    assert type(VariantGame.from_deal(piles, rules)) is VariantGame
    assert type(VariantGame.trusted([list(p) for p in piles], rules)) is VariantGame


class CruelOnly(Game):
    """A subclass of the fast class: it would play any profile by Cruel's rules."""

    __slots__ = ()


@pytest.mark.parametrize("name", VARIANTS)
def test_a_cruel_only_class_refuses_a_variant(name: str) -> None:
    rules = PRESETS[name]
    piles = deal_piles(5, rules)
    words = f"CruelOnly plays only Cruel's own layout, not {rules.preset}'s"
    for make in (
        lambda: CruelOnly(piles, None, rules),
        lambda: CruelOnly.from_deal(piles, rules),
        lambda: CruelOnly.trusted([list(p) for p in piles], rules),
    ):
        with pytest.raises(TypeError, match=words):
            make()
    assert type(CruelOnly.from_deal(deal_piles(5), PRESETS["cruel"])) is CruelOnly


def attempts(game: Game, rng: random.Random) -> list[Step]:
    """Every legal step and some likely illegal ones (every error path, in time)."""
    steps: list[Step] = [*game.legal_steps(), REDEAL]
    n = game.rules.pile_count
    for _ in range(6):
        source, target = rng.randint(0, n + 1), rng.choice([None, rng.randint(0, n + 1)])
        card = rng.choice([None, None, rng.randrange(52)])  # a wrong card: card-mismatch
        steps.append(Move(source, target, rng.choice([1, 1, 2, 3]), card))
    return steps


def outcome(game: Game, step: Step) -> tuple[object, ...]:
    after = game.copy()
    try:
        after.push(step)
    except IllegalMove as exc:
        return (type(exc), str(exc), game.piles == after.piles)
    return (after.piles, after.foundations, after.moves, after.redeals, after.outcome())


@pytest.mark.parametrize("name", CRUEL_LAYOUT)
def test_variant_game_plays_cruels_layout_as_game_does(name: str) -> None:
    # A caller may name VariantGame for any profile: it must then play Game's rules, step for
    # step, with the same legal steps in the same order and the same refusals, words included.
    rules, rng = PRESETS[name], random.Random(name)
    for number in range(1, 9):
        fast = Game.from_deal(deal_piles(number, rules), rules)
        plain = VariantGame.from_deal(deal_piles(number, rules), rules)
        for _ in range(200):
            assert list(plain.legal_steps()) == list(fast.legal_steps())
            for step in attempts(fast, rng):
                assert outcome(plain, step) == outcome(fast, step), step
            legal = list(fast.legal_steps())
            if not legal:
                break
            step = rng.choice(legal)
            fast.push(step)
            plain.push(step)
