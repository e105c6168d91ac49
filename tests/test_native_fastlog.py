"""The verifier's native fast path (cruel_tools/native/fastlog.hpp) against the Python path.

The fast path may only shortcut the Python path: on every log it takes, it must give what the
Python path gives (status, outcome, counts, final position, or the index and code of the first
illegal step), and the lines `cruel verify` prints must be byte for byte the same; everything
else it hands back. These tests drive both on the repository's logs, generated games, thousands
of mutated logs and hypothesis-made ones, and check that the fast path does take the ordinary
logs (a fast path that handed everything back would pass the rest).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruel_tools.game import cards, deals, engine, log
from cruel_tools.game.inputs import iter_units
from cruel_tools.game.log import Limits
from cruel_tools.game.rules import PRESETS
from cruel_tools.game.verify import (
    PLAIN,
    LineBlock,
    Source,
    block_units,
    fast_log,
    render_many,
    report_json,
    report_line,
    verify_bytes,
)

from .helpers import log_dict, random_game

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "benchmarks" / "data" / "won-logs.jsonl"
NATIVE_REQUIRED = os.environ.get(engine.ENV, "").strip().lower() == "native"


@pytest.fixture(scope="module")
def core() -> Any:
    """The native core's fast path, or skip (unless CRUEL_ENGINE=native: then fail)."""
    fast = fast_log()
    if fast is None:
        pytest.skip(f"the native core is not in use ({engine.engine_line()})")
    return fast


def repo_logs() -> list[tuple[str, bytes]]:
    """Every log of tests/data and samples/ (files as they are: indented, with line ends)."""
    paths = sorted([*ROOT.glob("samples/*.json"), *ROOT.glob("tests/data/*.json")])
    return [(str(p.relative_to(ROOT)), p.read_bytes()) for p in paths]


def games(count: int, seed: int, max_steps: int = 200) -> list[bytes]:
    """Random legal games of every preset, in the shapes logs come in."""
    rng = random.Random(seed)
    names = sorted(PRESETS)
    out = []
    for i in range(count):
        name = names[i % len(names)]
        number = rng.randrange(deals.MAX_DEAL_NUMBER + 1)
        piles, steps, game = random_game(number, rng, PRESETS[name], max_steps=max_steps)
        doc = log_dict(piles, steps, name)
        shape = rng.randrange(4)
        if shape == 0:
            doc["deal"] = {"number": number}
        elif shape == 1:
            doc["deal"]["number"] = number
        if rng.random() < 0.4:
            doc["moves"] = [log.compact(s) for s in steps]
        if rng.random() < 0.6:
            doc["claim"] = {
                "outcome": game.outcome(),
                "foundation_cards": game.foundation_cards,
                "moves": game.moves,
                "redeals": game.redeals,
            }
        if rng.random() < 0.5:
            doc["meta"] = {"player": "ada", "n": -12, "ok": True, "none": None, "é": "ü"}
        if name == "cruel" and rng.random() < 0.3:
            del doc["rules"]
        out.append(json.dumps(doc, indent=rng.choice([None, 1]), ensure_ascii=False).encode())
    return out


def python_report(data: bytes, source: Source | None = None) -> Any:
    """The Python path's report (verify_bytes never uses the core)."""
    return verify_bytes(data, source)


def check_one(fast: Any, data: bytes, source: Source | None = None) -> str:
    """Compare the fast path with the Python path on one log: 'taken' or 'handed back'."""
    report = python_report(data, source)
    got = fast.play(data)
    if got is not None:
        error = report.error
        assert got.status == report.status, data[:300]
        assert (got.error_index, got.error_path, got.error_code) == (
            (error.index, error.path, error.code) if error else (None, None, None)
        ), data[:300]
        assert (got.outcome, got.foundation_cards, got.moves, got.redeals) == (
            report.outcome,
            report.foundation_cards,
            report.moves,
            report.redeals,
        )
        assert got.preset == report.rules.preset and got.deal_number == report.deal_number
        assert report.final is not None
        assert [[cards.name(c) for c in p] for p in got.piles] == report.final.piles
        assert got.foundations == list(report.final.foundations.values())
    shown = orjson.dumps(source.model_dump()) if source else b"null"
    text = str(source).encode() if source else b"log"
    for as_json in (True, False):
        line = fast.render(data, shown, text, as_json)
        if report.status == "valid" and got is not None:
            want = report_json(report) if as_json else report_line(report).encode()
            assert line == want
        else:
            assert line is None, (report.status, data[:200])
    return "taken" if got is not None else "handed back"


# --- the pieces -------------------------------------------------------------------------------


def test_deal_numbers_are_those_of_deals_py(core: Any) -> None:
    native = engine.native()
    rng = random.Random(5)
    numbers = [*range(300), deals.MAX_DEAL_NUMBER, *(rng.getrandbits(32) for _ in range(300))]
    for n in numbers:
        assert native.deal_order(n) == list(deals.deal_order(n)), n


def test_cards_are_exactly_the_card_table(core: Any) -> None:
    native = engine.native()
    for text, card in cards.BY_TEXT.items():
        assert native.card_from(text.encode()) == card, text
    for text in [
        "",
        "1",
        "1H",
        "11H",
        "0H",
        "AX",
        "10",
        "A♠x",
        "A\ufe0f",
        "A♠\ufe0e",
        "ah ",
        " AH",
    ]:
        assert native.card_from(text.encode()) == -1, text


@given(st.text(max_size=6))
def test_a_card_text_is_a_card_only_if_the_table_says_so(text: str) -> None:
    native = engine.native()
    if native is None:
        return
    assert native.card_from(text.encode()) == cards.BY_TEXT.get(text, -1)


# --- whole logs -------------------------------------------------------------------------------


def test_repository_logs(core: Any) -> None:
    kinds = {name: check_one(core, data, Source(file=name)) for name, data in repo_logs()}
    # Every ordinary log is taken (the daily file is no log: it has no "format").
    assert kinds["samples/won.json"] == "taken" and kinds["samples/illegal.json"] == "taken"
    assert kinds["tests/data/won-deal-34.json"] == "taken"


#: The presets the fast path plays (Cruel's own layout: Ripple Fan and Royal Family, which the
#: core's engine and solver play too, are handed back to the Python path).
NATIVE_PRESETS = sorted(n for n, r in PRESETS.items() if r.cruel_layout)


def test_generated_games_of_every_preset(core: Any) -> None:
    logs = games(300, seed=1)
    kinds = [check_one(core, data) for data in logs]
    for data, kind in zip(logs, kinds, strict=True):
        preset = json.loads(data).get("rules", "cruel")
        # All in the ordinary shape: taken exactly when the core plays the preset.
        assert (kind == "taken") == (preset in NATIVE_PRESETS), preset
    assert len(NATIVE_PRESETS) == 6


def test_benchmark_shape(core: Any) -> None:
    """Logs as benchmarks/verify_bench.py writes them (24 relabellings of a won game)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import verify_bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    found = verify_bench._solve(1)
    assert found is not None
    lines = verify_bench._logs_for(*found)
    assert len(lines) == 24
    assert all(
        check_one(core, line, Source(file="f.jsonl", line=i)) == "taken"
        for i, line in enumerate(lines)
    )


# The changes a stranger's log may carry, each applied to the bytes or to the document.
def dump(doc: Any) -> bytes:
    """JSON text as a client might write it: UTF-8 as is (a lone surrogate as invalid UTF-8)."""
    return json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")


def mutations(data: bytes, rng: random.Random) -> Iterator[bytes]:
    n = max(len(data), 1)
    for _ in range(3):
        i = rng.randrange(n)
        yield data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]  # byte changed
        yield data[:i]  # truncated
        yield data[:i] + data[i + 1 :]  # byte dropped
        yield (
            data[:i]
            + rng.choice([b" ", b"\t", b"\r\n", b"\x0c", b"\\", b'"', b",", b"0"])
            + data[i:]
        )
    yield b"\xef\xbb\xbf" + data
    yield data + b"\x00"
    try:
        doc = json.loads(data)
    except ValueError:
        return  # no longer JSON: only the bytes can change
    if not isinstance(doc, dict):
        return
    moves = doc.get("moves", [])
    if not isinstance(moves, list):
        return
    if len(moves) >= 2:
        d = json.loads(data)
        i = rng.randrange(len(moves) - 1)
        d["moves"][i], d["moves"][i + 1] = d["moves"][i + 1], d["moves"][i]  # swapped
        yield dump(d)
        d = json.loads(data)
        i = rng.randrange(len(moves))
        entry = d["moves"][i]
        if isinstance(entry, dict) and entry.get("type") == "move":
            key = rng.choice(["from", "to", "card", "count"])
            entry[key] = rng.choice([1, 5, 12, 13, 0, "foundation", "KH", "2S", True, None, 1.0, 2])
        else:
            d["moves"][i] = rng.choice(["1F", "3-7", "3-7x2", "13F", "R", "x", 3])
        yield dump(d)  # a move corrupted
        d = json.loads(data)
        del d["moves"][rng.randrange(len(moves))]
        yield dump(d)  # a move left out
    for key in ["format", "rules", "deal", "moves", "claim", "meta"]:
        if key in doc:
            d = dict(doc)
            d[key + "s"] = d.pop(key)  # key renamed
            yield dump(d)
    d = dict(doc, claim={"outcome": "won", "moves": rng.randrange(200), "redeals": 3})
    yield dump(d)
    d = dict(doc, meta={"a": rng.choice([1.5, [1], {"b": 1}, 10**20, "\ud800", "x\\y"])})
    yield dump(d)
    d = dict(doc, rules=rng.choice(sorted(PRESETS) + ["nope", {"preset": "cruel"}]))
    yield dump(d)
    text = json.dumps(doc, ensure_ascii=False)
    once = text.replace('"format"', '"format": "cruel-log/1", "format"', 1)  # twice
    yield once.encode("utf-8", "surrogatepass")
    yield text.replace('"type"', '"\\u0074ype"', 1).encode("utf-8", "surrogatepass")  # escaped
    yield json.dumps(doc).encode()  # non-ASCII meta as escapes


def test_mutated_logs(core: Any) -> None:
    rng = random.Random(22)
    bases = [data for _, data in repo_logs()] + games(80, seed=2, max_steps=120)
    taken = total = 0
    for base in bases:
        for data in mutations(base, rng):
            taken += check_one(core, data) == "taken"
            total += 1
    assert total > 2000
    assert taken > total // 10  # many mutated logs are still ordinary (illegal moves, false claims)


def repeats(data: bytes) -> Iterator[tuple[bytes, str]]:
    """``data`` (a log) with one key given twice, in each of its objects in turn (the same value
    and another), and the path the Python path must name (docs/log-format.md, Duplicate keys)."""

    def obj(pairs: list[tuple[str, str]]) -> str:  # an object's text from its members' texts
        return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}"

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    doc = json.loads(data)
    top = [(k, dump(v)) for k, v in doc.items()]
    for i, (key, value) in enumerate(top):
        for first in (value, '"x"'):
            yield obj(top[:i] + [(key, first)] + top[i:]).encode(), f"/{key}"
    deal = [(k, dump(v)) for k, v in doc["deal"].items()]
    at = [k for k, _ in top].index("deal")
    for i, (key, value) in enumerate(deal):
        twice = obj(deal[:i] + [(key, value)] + deal[i:])
        yield obj(top[:at] + [("deal", twice)] + top[at + 1 :]).encode(), f"/deal/{key}"
    moves = doc.get("moves", [])
    for i, entry in enumerate(moves[:3]):
        if isinstance(entry, dict):
            members = [(k, dump(v)) for k, v in entry.items()]
            texts = [dump(m) for m in moves]
            texts[i] = obj(members + [members[0]])
            rest = [(k, v) for k, v in top if k != "moves"]
            whole = obj(rest + [("moves", "[" + ", ".join(texts) + "]")])
            yield whole.encode(), f"/moves/{i}/{members[0][0]}"
    rest = [(k, v) for k, v in top if k not in ("claim", "meta")]
    yield obj(rest + [("claim", '{"moves": 1, "moves": 1}')]).encode(), "/claim/moves"
    yield obj(rest + [("meta", '{"a": "b", "a": "b"}')]).encode(), "/meta/a"


def test_a_key_given_twice_is_handed_back_and_named_by_python(
    core: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #24, finding 10: the core never reads a repeated key (which value would it keep?);
    it hands the log back and the Python path answers duplicate-key at the second member."""
    logs = [data for _, data in repo_logs() if isinstance(json.loads(data).get("deal"), dict)]
    bases = logs + games(12, seed=24, max_steps=40)
    lines = []
    for base in bases:
        for data, path in repeats(base):
            assert core.play(data) is None, data[:200]
            report = python_report(data)
            assert report.status == "unreadable" and report.error is not None
            assert (report.error.code, report.error.path) == ("duplicate-key", path), data[:200]
            check_one(core, data)
            lines.append(data.replace(b"\n", b" "))
    assert len(lines) > 100
    batch = tmp_path / "repeats.jsonl"
    batch.write_bytes(b"\n".join(lines[::5] + [orjson.dumps(json.loads(b)) for b in bases]))
    both_paths(monkeypatch, [str(batch)])


@st.composite
def hostile(draw: st.DrawFn) -> bytes:
    rng = random.Random(draw(st.integers(0, 2**32)))
    base = games(1, seed=draw(st.integers(0, 2**32)), max_steps=draw(st.integers(0, 80)))[0]
    data = base
    for _ in range(draw(st.integers(0, 3))):
        data = rng.choice(list(mutations(data, rng)) or [data])
    return data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile())
def test_property_fast_path_answers_what_python_answers(data: bytes) -> None:
    fast = fast_log()
    if fast is None:
        if NATIVE_REQUIRED:
            raise AssertionError("CRUEL_ENGINE=native without the core")
        return
    check_one(fast, data)


# --- batches: the lines `cruel verify` prints ---------------------------------------------------


def both_paths(
    monkeypatch: pytest.MonkeyPatch, paths: list[str], limits: Limits = Limits(), jobs: int = 1
) -> None:
    """`cruel verify`'s lines over ``paths``, native and Python, text and JSON: the same."""
    for as_json in (True, False):
        native = list(render_many(iter_units(paths, limits), limits, jobs, as_json, PLAIN))
        with monkeypatch.context() as m:
            m.setenv(engine.ENV, "python")
            python = list(render_many(iter_units(paths, limits), limits, jobs, as_json, PLAIN))
        assert native == python


def test_json_lines_batch(core: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    lines = [orjson.dumps(json.loads(d)) for d in games(80, seed=3)]
    lines += [orjson.dumps(json.loads(d)) for _, d in repo_logs()[:3]]
    lines += [b"", b"   ", b"\t\x0b\x0c", b"not json", b"{}", lines[0] + b"\r", lines[1] + b"\r\r"]
    rng.shuffle(lines)
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\n".join(lines))  # the last line without a line end
    (tmp_path / "one.json").write_bytes(lines[5])
    both_paths(monkeypatch, [str(path), str(tmp_path / "one.json"), str(path)])
    both_paths(monkeypatch, [str(path)], jobs=2)
    # And the core wrote the valid lines itself (no quiet fallback to Python).
    out = core.render_lines(path.read_bytes(), b'"g"', b"g", 1, True)
    assert out.next_line == len(lines) + 1
    mine = [i for i in out.items if type(i) is bytes]
    assert len(mine) >= 40 and all(line.startswith(b'{"format":"cruel-verify') for line in mine)


def test_lines_over_the_size_limit(
    core: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = [orjson.dumps(json.loads(d)) for d in games(6, seed=4, max_steps=20)]
    limit = max(map(len, good)) + 10
    limits = Limits(max_bytes=limit)
    long = b'{"format":"cruel-log/1","meta":{"a":"' + b"x" * (limit * 3) + b'"}}'
    huge = b"y" * (limit * 40)  # past inputs.SKIP_FACTOR: the rest of the file is not read
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\n".join([good[0], long, good[1], good[2] + b"\r", b"", good[3]]) + b"\n")
    both_paths(monkeypatch, [str(path)], limits)
    path.write_bytes(b"\n".join([good[0], huge, good[1]]) + b"\n")
    both_paths(monkeypatch, [str(path)], limits)
    path.write_bytes(b"\n".join([good[4], b"z" * (limit + 1)]))  # over the limit, unterminated
    both_paths(monkeypatch, [str(path)], limits)


def test_limits_are_the_python_paths(
    core: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = [orjson.dumps(json.loads(d)) for d in games(10, seed=6, max_steps=40)]
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\n".join(data) + b"\n")
    for max_moves in (0, 5, 20, 40):
        both_paths(monkeypatch, [str(path)], Limits(max_moves=max_moves))
    size = sorted(map(len, data))[5]
    for max_bytes in (size - 1, size, size + 1):
        both_paths(monkeypatch, [str(path)], Limits(max_bytes=max_bytes))


def test_block_units_read_lines_as_iter_units_does(tmp_path: Path) -> None:
    data = b"a\n\n  \r\nb\r\r\n\x0c\nc"
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    units = [(s.line, d) for s, d in iter_units([str(path)])]
    assert [(s.line, d) for s, d in block_units(LineBlock(str(path), 1, data))] == units
    assert units == [(1, b"a"), (4, b"b"), (6, b"c")]


# --- the slow tier ------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_whole_benchmark_fixture(core: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    if not FIXTURE.exists():
        pytest.skip(f"no {FIXTURE.relative_to(ROOT)}: run benchmarks/verify_bench.py --logs 40000")
    both_paths(monkeypatch, [str(FIXTURE)])
    lines = FIXTURE.read_bytes().splitlines()
    assert all(core.play(line) is not None for line in lines)  # every one taken


@pytest.mark.slow
def test_many_more_mutated_logs(core: Any) -> None:
    rng = random.Random(2222)
    for base in games(400, seed=8, max_steps=150):
        for data in mutations(base, rng):
            check_one(core, data)


FUZZ_SOURCE = ROOT / "cruel_tools" / "native" / "fuzz_fastlog.cpp"


@pytest.mark.slow
def test_fuzz_the_fast_path(tmp_path: Path) -> None:
    """libFuzzer with ASan and UBSan on the fast path, seeded with the repository's logs."""
    clang = shutil.which("clang++")
    binary = tmp_path / "fuzz_fastlog"
    build = [
        clang or "clang++",
        "-std=c++17",
        "-O1",
        "-g",
        "-DCRUEL_FUZZ",
        "-fsanitize=fuzzer,address,undefined",
        "-fno-sanitize-recover=all",
        str(FUZZ_SOURCE),
        "-o",
        str(binary),
    ]
    built = subprocess.run(build, capture_output=True, text=True) if clang else None
    if built is None or built.returncode != 0:
        why = "no clang++" if built is None else built.stderr[-400:]
        if NATIVE_REQUIRED:
            raise AssertionError(f"cannot build the fuzz target: {why}")
        pytest.skip(f"cannot build the fuzz target (clang++ with libFuzzer): {why}")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = [d for _, d in repo_logs()] + games(20, seed=10, max_steps=60)
    for i, data in enumerate(seeds):
        (corpus / f"seed-{i}").write_bytes(data)
        (corpus / f"line-{i}").write_bytes(orjson.dumps(json.loads(data)) + b"\n" + data)
    seconds = os.environ.get("CRUEL_FUZZ_SECONDS", "60")
    run = subprocess.run(
        [
            str(binary),
            f"-max_total_time={seconds}",
            "-max_len=8192",
            "-rss_limit_mb=1024",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        timeout=int(seconds) + 120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
