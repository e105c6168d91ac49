"""Duplicate JSON keys (issue #24, finding 10; docs/log-format.md, Duplicate keys).

Each test is the attack: a document whose object gives a key twice, which orjson and pydantic
read as the last value and other readers as the first. Before the fix every one was accepted.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.game import duplicates
from cruel_tools.game.inputs import deal_or_log
from cruel_tools.game.log import LogFormatError, load
from cruel_tools.puzzles import PuzzleSetError, load_puzzle
from cruel_tools.site.judging import parse_submission

ROOT = Path(__file__).resolve().parent.parent
WON = (ROOT / "samples" / "won.json").read_bytes()
MESSAGE = (
    "key {!r} is given twice in one object: give each key once (JSON readers differ on which "
    "of the two values they keep)"
)
runner = CliRunner()


def refused(data: bytes | str, path: str, key: str) -> None:
    with pytest.raises(LogFormatError) as caught:
        load(data)
    assert (caught.value.code, caught.value.path) == ("duplicate-key", path)
    assert caught.value.message == MESSAGE.format(key)


# --- logs: both paths of log.load ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path", "key"),
    [
        # The attack of the issue: a win under one reader, another deal under the other.
        ('{"format": "cruel-log/1", "deal": {"number": 1, "number": 2}}', "/deal/number", "number"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "deal": {"number": 2}}', "/deal", "deal"),
        ('{"format": "cruel-log/2", "format": "cruel-log/1", "deal": {"number": 1}}', "/format", "format"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "moves": [{"type": "move", "from": 1, "to": 2, "to": 3}]}', "/moves/0/to", "to"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "moves": ["R", {"type": "redeal", "type": "redeal"}]}', "/moves/1/type", "type"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "claim": {"moves": 1, "moves": 2}}', "/claim/moves", "moves"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "meta": {"player": "ada", "player": "bob"}}', "/meta/player", "player"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "meta": {"a/b~": 1, "a/b~": 1}}', "/meta/a~1b~0", "a/b~"),
        # The same value twice, and a key spelt with an escape: still the same key twice.
        ('{"format": "cruel-log/1", "deal": {"number": 1, "number": 1}}', "/deal/number", "number"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "form\\u0061t": "cruel-log/1"}', "/format", "format"),
        # Colons inside strings do not hide a repeat from the count of the fast path.
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "meta": {"t": "10:00:00", "t": 1}}', "/meta/t", "t"),
        # Rules as an object (the validating path), nested meta.
        ('{"format": "cruel-log/1", "rules": {"preset": "cruel", "preset": "cruel"}, "deal": {"number": 1}}', "/rules/preset", "preset"),
        ('{"format": "cruel-log/1", "deal": {"number": 1}, "meta": {"a": [{"b": 1, "b": 2}]}}', "/meta/a/0/b", "b"),
        # The first repeat in reading order, whatever else repeats or is wrong after it.
        ('{"format": "cruel-log/1", "deal": {"number": 1, "number": 2}, "deal": 3, "x": 1}', "/deal/number", "number"),
        ('{"format": "x", "deal": {"number": 1}, "moves": [], "moves": 7}', "/moves", "moves"),
    ],
)  # fmt: skip
def test_a_key_given_twice_is_refused_where_it_is(text: str, path: str, key: str) -> None:
    refused(text, path, key)
    refused(text.encode(), path, key)
    refused(b"\xef\xbb\xbf" + text.encode(), path, key)  # after a byte order mark too


def test_a_won_log_with_one_key_repeated_is_refused_on_the_fast_path() -> None:
    """The log the fast path takes (orjson, no validation): every object of it in turn."""
    load(WON)  # taken as it is
    doc = orjson.loads(WON)
    text = json.dumps(doc)
    for key, path in [("format", "/format"), ("deal", "/deal"), ("moves", "/moves")]:
        twice = text.replace(f'"{key}": ', f'"{key}": {json.dumps(doc[key])}, "{key}": ', 1)
        refused(twice, path, key)
    first = json.dumps(doc["moves"][0])
    twice = text.replace(first, first[:-1] + ', "type": "move"}', 1)
    refused(twice, "/moves/0/type", "type")


def test_not_json_comes_first() -> None:
    text = b'{"format": "cruel-log/1", "deal": {"number": 1, "number": 2}'
    with pytest.raises(LogFormatError) as caught:
        load(text)
    assert caught.value.code == "not-json"
    # A lone surrogate: Python's json reads it, pydantic's reader does not.
    with pytest.raises(LogFormatError) as caught:
        load(
            '{"format": "cruel-log/1", "deal": {"number": 1, "number": 2}, "meta": {"a": "\\ud800"}}'
        )
    assert caught.value.code == "not-json"


def test_logs_without_repeats_read_as_before() -> None:
    for path in sorted([*ROOT.glob("samples/*.json"), *ROOT.glob("tests/data/*.json")]):
        try:
            load(path.read_bytes())
        except LogFormatError as exc:
            assert exc.code != "duplicate-key", path
    # Escapes and colons everywhere, no repeat: the exact check says so.
    load(
        '{"format": "cruel-log/1", "deal": {"number": 1}, "meta": {"a:b": "c:\\u003a", "\\u0062": 1, "a": 2}}'
    )


# --- the detector ---------------------------------------------------------------------------------

keys = st.sampled_from(["a", "b", "a:b", ":", "\u00e9", "~/", ""])
scalars = st.one_of(
    st.integers(-5, 5), st.booleans(), st.none(), st.sampled_from(["x", "1:2", "::", "\u00e9:"])
)


def members(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(st.tuples(keys, children), max_size=4).map(lambda pairs: ("object", pairs)),
    )


trees = st.recursive(scalars, members, max_leaves=20)


def write(node: Any, rng: random.Random) -> str:
    """JSON text of a tree whose objects are lists of pairs (repeats kept), with random
    whitespace and, now and then, a key or a string written with escapes."""

    def space() -> str:
        return rng.choice(["", " ", "\n ", "\t"])

    if isinstance(node, tuple):
        parts = [f"{space()}{text(k, rng)}{space()}:{space()}{write(v, rng)}" for k, v in node[1]]
        return "{" + ",".join(parts) + space() + "}"
    if isinstance(node, list):
        return "[" + ",".join(space() + write(v, rng) for v in node) + space() + "]"
    return text(node, rng) if isinstance(node, str) else json.dumps(node)


def text(s: str, rng: random.Random) -> str:
    return json.dumps(s, ensure_ascii=rng.random() < 0.2)


def first_repeat(node: Any, at: str = "") -> tuple[str, str] | None:
    """The reference: the first repeat in reading order, by a plain walk of the pairs."""
    if isinstance(node, tuple):
        seen: set[str] = set()
        for key, value in node[1]:
            if key in seen:
                return at, key
            seen.add(key)
            found = first_repeat(value, f"{at}/{key.replace('~', '~0').replace('/', '~1')}")
            if found:
                return found
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found = first_repeat(value, f"{at}/{i}")
            if found:
                return found
    return None


@settings(max_examples=150, deadline=None)
@given(trees, st.integers(0, 2**32))
def test_find_names_the_first_repeat_and_the_cheap_check_never_misses_one(
    tree: Any, seed: int
) -> None:
    data = write(tree, random.Random(seed)).encode()
    expected = first_repeat(tree)
    assert duplicates.find(data) == expected
    if expected is not None:
        assert not duplicates.surely_unique(data, orjson.loads(data))


def test_the_cheap_check_knows_a_plain_document_has_no_repeat() -> None:
    assert duplicates.surely_unique(WON, orjson.loads(WON))
    data = b'{"a": "1:2", "b:c": [{"d": null}]}'
    assert duplicates.surely_unique(data, orjson.loads(data))


# --- the other documents read from outside ------------------------------------------------------


def test_a_submission_with_a_key_twice_is_refused() -> None:
    log = WON.decode()
    for body, path in [
        ('{"player": "ada", "player": "bob", "log": ' + log + "}", "/player"),
        ('{"player": "ada", "log": ' + log.replace('"format"', '"format": "x", "format"', 1) + "}", "/log/format"),
    ]:  # fmt: skip
        with pytest.raises(LogFormatError) as caught:
            parse_submission(body.encode())
        assert (caught.value.code, caught.value.path) == ("duplicate-key", path)


def test_a_deal_file_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    # the verifier's error, so that every command words it as cruel verify does (docs/cli.md)
    with pytest.raises(LogFormatError, match=r"^/number: key 'number' is given twice ") as caught:
        deal_or_log(b'{"number": 1, "number": 2}', "d.json")
    assert (caught.value.code, caught.value.path) == ("duplicate-key", "/number")
    deal = tmp_path / "deal.json"
    deal.write_bytes(b'{"number": 1, "number": 2}')
    for command in (["show", str(deal)], ["grade", str(deal)], ["solve", str(deal)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert "given twice" in result.stderr and "(at /number)" in result.stderr


def test_cruel_verify_reports_the_repeat(tmp_path: Path) -> None:
    batch = tmp_path / "logs.jsonl"
    batch.write_bytes(
        WON.replace(b"\n", b"")
        + b"\n"
        + b'{"format": "cruel-log/1", "deal": {"number": 1}, "deal": {"number": 2}}\n'
    )
    result = runner.invoke(app, ["verify", "--json", str(batch)])
    assert result.exit_code == 2
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert reports[0]["status"] == "valid"
    assert reports[1]["status"] == "unreadable"
    assert (reports[1]["error"]["code"], reports[1]["error"]["path"]) == ("duplicate-key", "/deal")


def test_a_puzzle_file_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    source = next(iter(sorted((ROOT / "puzzles").glob("[0-9]*/*.json"))))
    load_puzzle(source)
    text = source.read_text()
    bad = tmp_path / source.name
    bad.write_text(text.replace('"id":', '"id": "x", "id":', 1))
    with pytest.raises(PuzzleSetError, match="given twice.*at /id|/id: key 'id' is given twice"):
        load_puzzle(bad)


def test_a_sets_index_with_a_fingerprint_twice_is_refused(tmp_path: Path) -> None:
    """Which secret made this set? With key_fingerprint twice, each reader could say another."""
    from cruel_tools.puzzles import INDEX_FORMAT, generation

    (tmp_path / "index.json").write_bytes(
        b'{"format": "%s", "key_fingerprint": null, "key_fingerprint": "ab12"}'
        % INDEX_FORMAT.encode()
    )
    with pytest.raises(PuzzleSetError) as caught:
        generation._check_same_stream(tmp_path, None)
    assert caught.value.code == "secret-mismatch"
    assert "key 'key_fingerprint' is given twice" in str(caught.value)
    assert "(at /key_fingerprint)" in str(caught.value)
