"""Hypothesis properties of the engine and the verifier."""

from __future__ import annotations

import random
from collections import Counter

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruel_tools.game import cards
from cruel_tools.game.deals import MAX_DEAL_NUMBER
from cruel_tools.game.game import (
    REDEAL,
    Game,
    IllegalMove,
    Move,
    Redeal,
    Step,
    is_packed,
    redeal_piles,
    tableau_sequence,
)
from cruel_tools.game.log import load, step_entry, to_step
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.game.verify import verify_bytes

from .helpers import log_dict, random_game

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback

deal_numbers = st.integers(0, MAX_DEAL_NUMBER)
seeds = st.integers(0, 2**32)
profiles = st.sampled_from(sorted(PRESETS))
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# An independent statement of the single-card rules, written from the seeds rather than from
# cruel_tools.game.game, so the engine is checked against something other than itself.
def oracle_card_moves(
    piles: list[list[int]], foundations: list[int], rules: Rules = PRESETS["cruel"]
) -> set[tuple[int, int | None]]:
    legal: set[tuple[int, int | None]] = set()
    red = {"S": False, "H": True, "D": True, "C": False}
    for i, p in enumerate(piles, 1):
        if not p:
            continue
        card = p[-1]
        suit, rank = cards.suit(card), cards.rank(card)
        # foundations count their cards: up from the ace, or down from the king
        if rules.foundation_direction == "up" and foundations[suit] == rank - 1:
            legal.add((i, None))
        if rules.foundation_direction == "down" and foundations[suit] == 13 - rank:
            legal.add((i, None))
        for j, q in enumerate(piles, 1):
            if j == i or not q:
                continue
            other, orank = cards.suit(q[-1]), cards.rank(q[-1])
            colours_differ = red["SHDC"[suit]] != red["SHDC"[other]]
            if rules.tableau_build == "down-in-suit":
                ok = other == suit and orank == rank + 1
            elif rules.tableau_build == "up-alternate-colour":
                ok = colours_differ and orank == rank - 1
            else:
                ok = colours_differ and abs(orank - rank) == 1
            if ok:
                legal.add((i, j))
    return legal


@FAST
@given(
    deal_numbers,
    seeds,
    st.sampled_from(
        [
            "cruel",
            "cruel-when-stuck",
            "cruel-limited-3",
            "pysolfc",
            "ripple-fan",
            "royal-family",
            "ripple-fan-pysolfc",
            "royal-family-pysolfc",
        ]
    ),
)
def test_card_moves_match_the_oracle_along_random_games(number: int, seed: int, name: str) -> None:
    rng = random.Random(seed)
    game = Game.from_deal(random_game(number, rng, PRESETS[name], 0)[0], PRESETS[name])
    for _ in range(40):
        engine = {(m.source, m.target) for m in game.card_moves()}
        assert engine == oracle_card_moves(game.piles, game.foundations, PRESETS[name])
        options = list(game.legal_steps())
        if not options:
            break
        game.push(rng.choice(options))


@FAST
@given(deal_numbers, seeds, profiles)
def test_random_legal_games_verify_with_the_right_outcome(
    number: int, seed: int, name: str
) -> None:
    rules = PRESETS[name]
    piles, steps, game = random_game(number, random.Random(seed), rules, max_steps=80)
    claim = {
        "outcome": game.outcome(),
        "foundation_cards": game.foundation_cards,
        "moves": game.moves,
        "redeals": game.redeals,
    }
    report = verify_bytes(orjson.dumps(log_dict(piles, steps, name, claim=claim)))
    assert report.valid and report.status == "valid", report.error
    assert report.outcome == game.outcome()
    assert (report.moves, report.redeals) == (game.moves, game.redeals)
    assert report.final is not None
    assert report.final.piles == [[cards.name(x) for x in p] for p in game.piles]


def _all_steps(count_max: int) -> list[Step]:
    steps: list[Step] = [REDEAL]
    for s in range(1, 13):
        steps.append(Move(s, None))
        for t in range(1, 13):
            for k in range(1, count_max + 1):
                steps.append(Move(s, t, k))
    return steps


@FAST
@given(deal_numbers, seeds, profiles, st.data())
def test_a_corrupted_move_is_caught_at_its_index(
    number: int, seed: int, name: str, data: st.DataObject
) -> None:
    rules = PRESETS[name]
    rng = random.Random(seed)
    piles, steps, _ = random_game(number, rng, rules, max_steps=40)
    if not steps:
        return
    k = data.draw(st.integers(0, len(steps) - 1), label="index")
    before = Game.from_deal(piles, rules)
    for step in steps[:k]:
        before.push(step)
    legal = set(before.legal_steps())
    illegal = [s for s in _all_steps(3 if rules.run_moves else 1) if s not in legal]
    bad = data.draw(st.sampled_from(illegal), label="illegal step")
    # The engine agrees the step is illegal here (independently of how we picked it).
    probe = before.copy()
    try:
        probe.push(bad)
        raise AssertionError(f"{bad} was accepted")
    except IllegalMove:
        pass
    corrupted = steps[:k] + [bad] + steps[k + 1 :]
    report = verify_bytes(orjson.dumps(log_dict(piles, corrupted, name)))
    assert not report.valid and report.status == "invalid"
    assert report.error is not None
    assert report.error.index == k and report.error.path == f"/moves/{k}"
    assert report.error.message.startswith(f"move {k + 1}: ")
    assert report.moves == before.moves and report.redeals == before.redeals


@FAST
@given(deal_numbers, seeds, st.sampled_from(["bottom-up", "top-down"]))
def test_redeal_keeps_order_and_cards(number: int, seed: int, order: str) -> None:
    _, _, game = random_game(number, random.Random(seed), PRESETS["cruel"], max_steps=30)
    before = [p[:] for p in game.piles]
    after = redeal_piles(before, order)
    assert before == game.piles  # redeal_piles does not touch its input
    assert tableau_sequence(after, order) == tableau_sequence(before, order)
    assert Counter(x for p in after for x in p) == Counter(x for p in before for x in p)
    sizes = [len(p) for p in after]
    n = sum(sizes)
    assert sizes == [4] * (n // 4) + ([n % 4] if n % 4 else []) + [0] * (12 - -(-n // 4))
    assert redeal_piles(after, order) == after  # a second redeal changes nothing


@FAST
@given(deal_numbers, seeds, st.sampled_from(["bottom-up", "top-down"]), st.integers(0, 80))
def test_is_packed_says_whether_a_redeal_changes_the_layout(
    number: int, seed: int, order: str, steps: int
) -> None:
    # Game.redeal compares the new piles with the old; redeal_problem asks is_packed: the two
    # must agree on every position, or a redeal would be legal by one and not by the other.
    _, _, game = random_game(number, random.Random(seed), PRESETS["cruel"], max_steps=steps)
    piles = game.piles
    assert is_packed(piles) == (redeal_piles(piles, order) == piles)
    packed = redeal_piles(piles, order)
    assert is_packed(packed) and redeal_piles(packed, order) == packed


@FAST
@given(deal_numbers, seeds, profiles)
def test_steps_round_trip_through_log_entries(number: int, seed: int, name: str) -> None:
    piles, steps, _ = random_game(number, random.Random(seed), PRESETS[name], max_steps=30)
    compact = []
    for s in steps:
        if isinstance(s, Redeal):
            compact.append("R")
        elif s.target is None:
            compact.append(f"{s.source}F")
        else:
            compact.append(f"{s.source}-{s.target}" + (f"x{s.count}" if s.count > 1 else ""))
    doc = log_dict(piles, steps, name)
    doc["moves"] = compact
    by_compact = verify_bytes(orjson.dumps(doc))
    by_object = verify_bytes(orjson.dumps(log_dict(piles, steps, name)))
    assert by_compact.valid and by_object.valid
    assert by_compact.final == by_object.final
    # Read back, the entries are the steps played: object entries with their cards (where
    # random_game named them), compact entries without.
    assert load(orjson.dumps(log_dict(piles, steps, name))).steps() == steps
    assert [to_step(step_entry(s)) for s in steps] == steps
    assert load(orjson.dumps(doc)).steps() == [
        s._replace(card=None) if isinstance(s, Move) else s for s in steps
    ]
