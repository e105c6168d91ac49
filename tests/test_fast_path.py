"""The fast reader of logs (orjson, plain checks, the table decoder) against the pydantic model.

The model is the one definition of the format. The fast path may only *shortcut* it: whatever
it accepts, the model accepts with the same meaning, and whatever it refuses goes to the model,
which names the error. These tests hold it to that: for valid logs and for mutated ones, the
report of `verify_bytes` must be byte for byte the report of the model-only path.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruel_tools.game import cards
from cruel_tools.game import log as log_module
from cruel_tools.game.deals import MAX_DEAL_NUMBER
from cruel_tools.game.log import (
    CARD_PATTERN,
    COMPACT_PATTERN,
    COMPACT_STEPS,
    GameLog,
    LogFormatError,
    decode,
    load,
)
from cruel_tools.game.rules import PRESETS
from cruel_tools.game.verify import report_json, verify_bytes

from .helpers import log_dict, random_game

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback


def dumps(doc: Any) -> bytes:
    """JSON text of ``doc``; the standard library writes integers of any size (orjson does not)."""
    return json.dumps(doc, ensure_ascii=False).encode()


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def model_only_report(data: bytes) -> bytes:
    """The report as it was before the fast path: pydantic reads every log."""
    fast = log_module._read_fast
    log_module._read_fast = lambda data, limits: None  # type: ignore[assignment]
    try:
        return report_json(verify_bytes(data))
    finally:
        log_module._read_fast = fast


# --- the tables are the patterns --------------------------------------------------------------


def test_compact_table_is_exactly_the_compact_pattern() -> None:
    pattern = re.compile(COMPACT_PATTERN)
    assert all(pattern.fullmatch(text) for text in COMPACT_STEPS)
    # The pattern's language, counted: R or r; per source pile, F or f, or "-" and a target
    # pile, optionally followed by x or X and a count of 1-12. Piles 1-13: a 13-pile profile
    # (ripple-fan-pysolfc) names pile 13; under 12 piles the engine refuses it (bad-pile).
    assert len(COMPACT_STEPS) == 2 + 13 * (2 + 13 * (1 + 2 * 12))


@given(st.from_regex(COMPACT_PATTERN.rstrip("$") + r"\Z", fullmatch=True))
def test_every_compact_move_the_pattern_accepts_is_in_the_table(text: str) -> None:
    assert text in COMPACT_STEPS


def test_card_table_is_exactly_the_card_pattern() -> None:
    pattern = re.compile(CARD_PATTERN.rstrip("$") + r"\Z")
    assert all(pattern.match(text) for text in cards.BY_TEXT)


@given(st.from_regex(CARD_PATTERN.rstrip("$") + r"\Z", fullmatch=True))
def test_every_card_the_pattern_accepts_is_in_the_table(text: str) -> None:
    assert text in cards.BY_TEXT


# --- mutated logs -----------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 3.0, 12.0, 0.5]),
    st.sampled_from(["3F", "3f", "R", "r", "3-7", "3-7x2", "13F", "0F", "3-3", "x", "", "F"]),
    st.sampled_from(["move", "redeal", "foundation", "10H", "TH", "th", "4♦", "4♦\ufe0f", "1H"]),
    st.sampled_from(["cruel", "pysolfc", "perseverance", "nope", "cruel-log/1", "won"]),
    st.text(max_size=5),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
ENTRY_KEYS = ["type", "from", "to", "card", "count", "extra"]
TOP_KEYS = ["format", "rules", "deal", "moves", "claim", "meta", "extra"]


def _mutate(doc: dict[str, Any], rng: random.Random, value: Any) -> None:
    """One random change to ``doc``, in place: an entry, a key, a part of the log."""
    moves = doc["moves"] if isinstance(doc.get("moves"), list) else []
    deal = doc["deal"] if isinstance(doc.get("deal"), dict) else {}
    kind = rng.randrange(9)
    if kind == 0 and moves:
        moves[rng.randrange(len(moves))] = value
    elif kind == 1 and moves:
        i = rng.randrange(len(moves))
        entry = moves[i] if isinstance(moves[i], dict) else {"type": "move", "from": 1, "to": 2}
        entry = dict(entry)
        entry[rng.choice(ENTRY_KEYS)] = value
        moves[i] = entry
    elif kind == 2 and moves:
        i = rng.randrange(len(moves))
        if isinstance(moves[i], dict) and moves[i]:
            entry = dict(moves[i])
            del entry[rng.choice(sorted(entry))]
            moves[i] = entry
    elif kind == 3:
        doc[rng.choice(TOP_KEYS)] = value
    elif kind == 4:
        doc.pop(rng.choice(TOP_KEYS), None)
    elif kind == 5:
        deal = dict(deal)
        deal[rng.choice(["number", "piles", "extra"])] = value
        doc["deal"] = deal
    elif kind == 6:
        claim = dict(doc["claim"]) if isinstance(doc.get("claim"), dict) else {}
        claim[rng.choice(["outcome", "foundation_cards", "moves", "redeals", "extra"])] = value
        doc["claim"] = claim
    elif kind == 7:
        doc["meta"] = {"player": "p", "x": value}
    else:
        piles = deal.get("piles")
        if isinstance(piles, list) and piles and isinstance(piles[0], list) and piles[0]:
            piles[0][rng.randrange(len(piles[0]))] = value


@st.composite
def logs(draw: st.DrawFn) -> dict[str, Any]:
    rng = random.Random(draw(st.integers(0, 2**32)))
    name = draw(st.sampled_from(sorted(PRESETS)))
    piles, steps, game = random_game(draw(st.integers(0, MAX_DEAL_NUMBER)), rng, PRESETS[name])
    doc = log_dict(piles, steps, name)
    if draw(st.booleans()):
        doc["deal"]["number"] = 0  # usually not this deal's number: a bad-deal report
    if draw(st.booleans()):
        doc["moves"] = [
            log_module.compact(s) if rng.random() < 0.5 else e
            for s, e in zip(steps, doc["moves"], strict=True)
        ]
    if draw(st.booleans()):
        doc["claim"] = {"outcome": game.outcome(), "moves": game.moves, "redeals": game.redeals}
    for _ in range(draw(st.integers(0, 3))):
        _mutate(doc, rng, draw(json_values))
    return doc


@SETTINGS
@given(logs())
def test_fast_path_reports_what_the_model_reports(doc: dict[str, Any]) -> None:
    data = dumps(doc)
    assert report_json(verify_bytes(data)) == model_only_report(data)


@SETTINGS
@given(logs())
def test_whatever_the_fast_path_accepts_the_model_accepts_alike(doc: dict[str, Any]) -> None:
    data = dumps(doc)
    fast = log_module._read_fast(data, log_module.Limits())
    if fast is None:
        return  # the model decides: the test above compares the reports
    model = GameLog.model_validate_json(data)
    assert fast.model_dump() == model.model_dump()
    assert fast.steps() == model.steps()


@pytest.mark.parametrize(
    "text",
    [
        # duplicate keys: both parsers keep the last one
        b'{"format":"x","format":"cruel-log/1","deal":{"number":1},"moves":["1F"]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[{"type":"move","from":true,"to":"foundation"}]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[{"type":"move","from":1.0,"to":"foundation"}]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[],"meta":{"a":'
        + b"[" * 300
        + b"]" * 300
        + b"}}",
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[],"meta":{"a":123456789012345678901234567890}}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[],"meta":{"a":1e400}}',
        b'{"format":"cruel-log/1","deal":{"number":1.0},"moves":[]}',
        b'{"format":"cruel-log/1","deal":{"number":null,"piles":null},"moves":[]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[{"type":"redeal","to":1}]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[{"type":"move","from":1,"to":"foundation","card":null}]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[{"type":"move","from":1,"to":2,"count":1}]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":["1F"],"claim":{"outcome":null,"moves":true}}',
        b'{"format":"cruel-log/1","rules":{"preset":"cruel"},"deal":{"number":1},"moves":["1F"]}',
        b'\xef\xbb\xbf{"format":"cruel-log/1","deal":{"number":1},"moves":[]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":["\\ud800"]}',
        b'{"format":"cruel-log/1","deal":{"number":1},"moves":[NaN]}',
    ],
)
def test_edge_cases_where_parsers_differ(text: bytes) -> None:
    assert report_json(verify_bytes(text)) == model_only_report(text)


def test_decode_refuses_what_the_model_refuses() -> None:
    ok = {"type": "move", "from": 3, "to": "foundation"}
    assert decode([ok, "R", {"type": "redeal"}]) is not None
    for bad in [
        {**ok, "from": True},
        {**ok, "from": 3.0},
        {**ok, "to": 14},
        {**ok, "card": None},
        {**ok, "card": "1H"},
        {**ok, "count": 0},
        {**ok, "count": True},
        {**ok, "extra": 1},
        {"type": "redeal", "x": 1},
        {"from": 3, "to": "foundation"},
        "14F",
        3,
        None,
        [],
    ]:
        assert decode([ok, bad]) is None, bad
        with pytest.raises(LogFormatError):
            load(orjson.dumps({"format": "cruel-log/1", "deal": {"number": 1}, "moves": [bad]}))


def test_the_fast_path_takes_the_common_logs() -> None:
    rng = random.Random(7)
    piles, steps, _ = random_game(11, rng)
    doc = log_dict(piles, steps, "cruel", meta={"player": "ada", "started_at": "2027-01-01"})
    fast = log_module._read_fast(dumps(doc), log_module.Limits())
    assert fast is not None and fast.steps() == steps
    doc["moves"] = [log_module.compact(s) for s in steps]
    assert log_module._read_fast(dumps(doc), log_module.Limits()) is not None
