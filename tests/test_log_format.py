"""The cruel-log/1 model: card spellings, compact moves, rules overrides, limits."""

from __future__ import annotations

import itertools
import json
import re

import orjson
import pytest

from cruel_tools.game import cards
from cruel_tools.game.game import REDEAL, Move
from cruel_tools.game.log import (
    CARD_PATTERN,
    COMPACT_PATTERN,
    Limits,
    LogFormatError,
    from_object,
    load,
    parse_compact,
    step_entry,
    to_step,
)
from cruel_tools.game.rules import PRESETS

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback

BASE = {"format": "cruel-log/1", "deal": {"number": 3}}


def test_card_pattern_accepts_exactly_the_spellings_we_read() -> None:
    # Every string of up to 3 characters over an alphabet holding every character that matters
    # (plus look-alikes): the schema's pattern and the reader must agree on each one.
    alphabet = "0123456789ATJQKatjqkSHDCshdcX♠♥♦♣\ufe0fſ "
    pattern = re.compile(CARD_PATTERN)
    for n in (1, 2, 3):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            assert bool(pattern.fullmatch(text)) == (text in cards.BY_TEXT), text
    assert len({cards.BY_TEXT[t] for t in cards.BY_TEXT}) == 52


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("3F", Move(3, None)),
        ("3f", Move(3, None)),
        ("12-1", Move(12, 1)),
        ("3-7x2", Move(3, 7, 2)),
        ("R", REDEAL),
        ("r", REDEAL),
    ],
)
def test_compact_moves(text: str, step: object) -> None:
    assert parse_compact(text) == step
    assert re.fullmatch(COMPACT_PATTERN, text)


@pytest.mark.parametrize(
    "text", ["0F", "14F", "3", "3-", "3-14", "3 F", " R", "R\n", "3-7x0", "3-7x13", "F3", "", "RR"]
)
def test_not_compact_moves(text: str) -> None:
    with pytest.raises(ValueError):
        parse_compact(text)
    with pytest.raises(LogFormatError) as info:
        from_object({**BASE, "moves": [text]})
    assert info.value.path == "/moves/0" and info.value.code == "schema"


def test_object_and_compact_forms_give_the_same_steps() -> None:
    log = from_object(
        {
            **BASE,
            "moves": [
                {"type": "move", "from": 3, "to": "foundation", "card": "4d"},
                {"type": "move", "from": 3, "to": 7, "count": 2},
                {"type": "redeal"},
                "3F",
                "3-7x2",
                "R",
            ],
        }
    )
    steps = [to_step(e) for e in log.moves]
    assert steps[0] == Move(3, None, 1, cards.parse("4D"))
    assert steps[1] == steps[4] == Move(3, 7, 2)
    assert steps[2] == steps[5] == REDEAL
    assert log.steps() == steps


def test_step_entry_round_trip() -> None:
    for step in (Move(3, None), Move(3, 7, 2, cards.parse("9C")), REDEAL):
        entry = step_entry(step)
        assert to_step(from_object({**BASE, "moves": [entry]}).moves[0]) == step


def test_rules_by_name_and_by_override() -> None:
    assert from_object(BASE).resolved_rules() == PRESETS["cruel"]
    assert from_object({**BASE, "rules": "pysolfc"}).resolved_rules() == PRESETS["pysolfc"]
    custom = from_object(
        {**BASE, "rules": {"preset": "perseverance", "max_redeals": 5}}
    ).resolved_rules()
    assert custom.run_moves and custom.max_redeals == 5 and custom.preset == "perseverance"
    unlimited = from_object(
        {**BASE, "rules": {"preset": "cruel-limited-3", "max_redeals": None}}
    ).resolved_rules()
    assert unlimited.max_redeals is None
    with pytest.raises(LogFormatError) as info:
        from_object({**BASE, "rules": {"preset": "cruel", "shuffle": True}})
    assert info.value.path == "/rules/shuffle"


def test_meta_is_free_form_but_nothing_else_is() -> None:
    from_object({**BASE, "meta": {"player": "ann", "anything": [1, {"x": None}]}})
    for where, doc in [
        ("/x", {**BASE, "x": 1}),
        ("/deal/seed", {**BASE, "deal": {"number": 3, "seed": 1}}),
        ("/claim/score", {**BASE, "claim": {"score": 1}}),
    ]:
        with pytest.raises(LogFormatError) as info:
            from_object(doc)
        assert info.value.path == where and "unknown key" in info.value.message


def test_limits() -> None:
    doc = orjson.dumps({**BASE, "moves": ["R"] * 11})
    with pytest.raises(LogFormatError) as info:
        load(doc, Limits(max_moves=10))
    assert info.value.code == "too-many-moves" and info.value.path == "/moves"
    assert len(load(doc, Limits(max_moves=11)).moves) == 11
    with pytest.raises(LogFormatError) as info:
        load(doc, Limits(max_bytes=len(doc) - 1))
    assert info.value.code == "too-large"
    load(doc, Limits(max_bytes=len(doc)))


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "not-json"),
        (b"{", "not-json"),
        (b"\xff", "not-json"),
        (b"[]", "schema"),
        (b"null", "schema"),
        (b"[" * 5000, "not-json"),
        (b'{"format": "cruel-log/1"}', "schema"),
    ],
)
def test_unreadable_bytes(data: bytes, code: str) -> None:
    with pytest.raises(LogFormatError) as info:
        load(data)
    assert info.value.code == code
    assert "\n" not in str(info.value)


# --- issue #15, point 11: errors that say what to write ----------------------------------------


def test_a_leading_utf8_bom_is_accepted() -> None:
    doc = orjson.dumps({**BASE, "moves": ["R", "3F"]})
    plain = load(doc)
    for data in (b"\xef\xbb\xbf" + doc, "\ufeff" + doc.decode()):
        assert load(data) == plain
        assert load(data).steps() == plain.steps()  # the fast path took it, not only the model
    # the model path too: a log the fast path leaves to pydantic (rules with overrides)
    custom = orjson.dumps({**BASE, "rules": {"preset": "cruel"}})
    assert load(b"\xef\xbb\xbf" + custom) == load(custom)


def test_a_bom_elsewhere_is_still_not_json() -> None:
    doc = orjson.dumps(BASE)
    for data in (b"\xef\xbb\xbf" * 2 + doc, b" \xef\xbb\xbf" + doc):
        with pytest.raises(LogFormatError) as info:
            load(data)
        assert info.value.code == "not-json"


@pytest.mark.parametrize(
    ("deal", "words"),
    [
        (17, 'a deal is an object, not 17: write {"number": 17} for deal 17'),
        ("17", """a deal is an object, not '17': write {"number": 17} for deal 17"""),
        ([1], 'a deal is an object, not an array: {"number": N} or {"piles": [...]}'),
    ],
)
def test_a_deal_that_is_not_an_object_is_shown_how_to_write_it(deal: object, words: str) -> None:
    with pytest.raises(LogFormatError) as info:
        load(orjson.dumps({**BASE, "deal": deal}))
    assert (info.value.code, info.value.path, info.value.message) == ("schema", "/deal", words)


@pytest.mark.parametrize(
    ("move", "path", "words"),
    [
        ("4-14", "/moves/0", "not a move: '4-14': piles are numbered 1 to 13"),
        ("14F", "/moves/0", "not a move: '14F': piles are numbered 1 to 13"),
        ("0-3", "/moves/0", "not a move: '0-3': piles are numbered 1 to 13"),
        ("3-7x13", "/moves/0", "not a move: '3-7x13': a run is 1 to 12 cards"),
        ("3-7y", "/moves/0", "not a move: '3-7y' (compact moves are like 3F, 3-7, 3-7x2 or R)"),
        ({"type": "move", "from": 14, "to": 2}, "/moves/0/from", "no pile 14: piles are numbered"),
        ({"type": "move", "from": 1, "to": 0}, "/moves/0/to", "no pile 0: piles are numbered"),
        ({"type": "move", "from": 1, "to": 2, "count": 0}, "/moves/0/count", "count 0: a run is"),
    ],
)
def test_a_pile_out_of_range_says_piles_are_1_to_13(move: object, path: str, words: str) -> None:
    with pytest.raises(LogFormatError) as info:
        load(orjson.dumps({**BASE, "moves": [move]}))
    assert info.value.path == path
    assert info.value.message.startswith(words), info.value.message


def test_a_run_of_13_is_refused_by_both_readers() -> None:
    """The fast reader took a count of 13 (piles go to 13) where the model refuses it."""
    entry = {"type": "move", "from": 1, "to": 2, "count": 13}
    for rules in ("perseverance", {"preset": "perseverance"}):
        doc = {"format": "cruel-log/1", "rules": rules, "deal": {"number": 1}, "moves": [entry]}
        with pytest.raises(LogFormatError) as caught:
            load(json.dumps(doc))
        assert (caught.value.code, caught.value.path) == ("schema", "/moves/0/count")
        assert "a run is 1 to 12 cards" in caught.value.message


def test_overrides_must_make_a_game_of_their_preset() -> None:
    # Each override alone is a valid value; on ripple-fan-pysolfc's 13 piles, aces on the
    # foundations leave 48 cards for 52 places.
    doc = {
        "format": "cruel-log/1",
        "rules": {"preset": "ripple-fan-pysolfc", "foundation_base": "ace"},
        "deal": {"number": 1},
    }
    with pytest.raises(LogFormatError) as caught:
        load(json.dumps(doc))
    assert (caught.value.code, caught.value.path) == ("schema", "/rules")
    assert "13 piles of 4 do not hold the 48 cards" in caught.value.message
    doc["rules"] = {"preset": "perseverance", "max_redeals": 4}
    assert load(json.dumps(doc)).resolved_rules() == PRESETS["perseverance"].model_copy(
        update={"max_redeals": 4}
    )
