"""`cruel verify` and `cruel deal` driven end to end: exit codes, error codes, paths, batches.

Most tests run the real Typer app in-process with ``CliRunner``; a few run a real subprocess to
prove that no traceback ever reaches stderr. Logs are built by playing deal 17 with the engine.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.game import cards
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Move
from cruel_tools.game.log import step_entry

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback

ROOT = Path(__file__).resolve().parents[1]
NUMBER = 17

runner = CliRunner()


# --- builders -----------------------------------------------------------------------------------


def play(n_steps: int = 10, number: int = NUMBER) -> tuple[list[dict[str, Any]], list[Game]]:
    """Play ``n_steps`` deterministic legal steps of deal ``number`` (card moves first, else a
    redeal); return the log entries and the position before each step plus the final one."""
    game = Game.from_deal(deal_piles(number))
    entries: list[dict[str, Any]] = []
    positions = [game.copy()]
    for i in range(n_steps):
        step = next(game.card_moves(), None) or next(iter(game.legal_steps()))
        if isinstance(step, Move) and i % 2:  # name the moving card on every other move
            step = step._replace(card=game.piles[step.source - 1][-step.count])
        game.push(step)
        entries.append(step_entry(step))
        positions.append(game.copy())
    return entries, positions


ENTRIES, POSITIONS = play()
FINAL = POSITIONS[-1]


def log(moves: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "format": "cruel-log/1",
        "rules": "cruel",
        "deal": {"number": NUMBER},
        "moves": copy.deepcopy(ENTRIES if moves is None else moves),
    }
    obj.update(extra)
    return obj


def dump(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else dump(data))
    return path


def pile_names(game: Game) -> list[list[str]]:
    return [[cards.name(c) for c in p] for p in game.piles]


def foundations(game: Game) -> dict[str, int]:
    return dict(zip("SHDC", game.foundations, strict=True))


def illegal_for(game: Game) -> dict[str, Any]:
    """A move that is illegal in ``game``: a top card that cannot go to its foundation."""
    for i, p in enumerate(game.piles, 1):
        if p and game.foundations[p[-1] // 13] != p[-1] % 13:
            return {"type": "move", "from": i, "to": "foundation"}
    raise AssertionError("every top card could go to the foundation")


# --- running the CLI ----------------------------------------------------------------------------


def run(args: list[str], input: bytes | None = None) -> Any:
    """Invoke the app in-process; any exception other than a normal exit fails the test."""
    result = runner.invoke(app, [str(a) for a in args], input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r} from {args}") from result.exception
    assert "Traceback" not in result.output
    return result


def json_reports(result: Any) -> list[dict[str, Any]]:
    lines = result.stdout.splitlines()
    return [json.loads(line) for line in lines]


def verify_one(tmp_path: Path, data: Any, *opts: str, name: str = "log.json") -> tuple[Any, dict]:
    """Verify one file with --json; return the run and its single report."""
    path = write(tmp_path / name, data)
    result = run(["verify", "--json", *opts, path])
    reports = json_reports(result)
    assert len(reports) == 1, result.stdout
    assert reports[0]["source"] == {"file": str(path), "line": None}
    return result, reports[0]


def summary(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert lines, "no summary on stderr"
    return lines[-1]


# --- one valid log ------------------------------------------------------------------------------


def test_valid_log_human_line_and_exit_0(tmp_path: Path) -> None:
    path = write(tmp_path / "ok.json", log())
    result = run(["verify", path])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}: valid")
    assert f"{FINAL.foundation_cards} foundation cards" in lines[0]
    assert f"{FINAL.moves} moves" in lines[0] and f"{FINAL.redeals} redeals" in lines[0]
    assert summary(result) == "verified 1 log: 1 valid, 0 invalid, 0 unreadable"


def test_valid_log_json_report(tmp_path: Path) -> None:
    result, rep = verify_one(tmp_path, log())
    assert result.exit_code == 0
    assert {
        "valid",
        "outcome",
        "foundation_cards",
        "moves",
        "redeals",
        "error",
        "final",
        "source",
    } <= rep.keys()
    assert rep["valid"] is True and rep["status"] == "valid" and rep["error"] is None
    assert rep["outcome"] == FINAL.outcome() == "in_progress"
    assert rep["foundation_cards"] == FINAL.foundation_cards > 4
    assert rep["moves"] == FINAL.moves and rep["redeals"] == FINAL.redeals >= 1
    final = rep["final"]
    assert final["foundations"] == foundations(FINAL)
    assert all(type(v) is int for v in final["foundations"].values())
    assert len(final["piles"]) == 12
    assert final["piles"] == pile_names(FINAL)
    for pile in final["piles"]:
        for name in pile:
            cards.parse(name)


def test_compact_moves_and_card_spellings_are_valid(tmp_path: Path) -> None:
    compact: list[Any] = []
    for i, e in enumerate(ENTRIES):
        if e["type"] == "redeal":
            compact.append("rR"[i % 2])
        elif e["to"] == "foundation":
            compact.append(f"{e['from']}{'fF'[i % 2]}")
        elif i % 3 == 0:  # a move object with the card written in lower case / with a symbol
            card = cards.parse(e.get("card", "AS"))
            compact.append(dict(e, card=cards.symbol(card)) if "card" in e else e)
        else:
            compact.append(f"{e['from']}-{e['to']}")
    assert any(isinstance(m, str) and "-" in m for m in compact)
    result, rep = verify_one(tmp_path, log(compact))
    assert result.exit_code == 0 and rep["valid"] is True
    assert rep["final"]["piles"] == pile_names(FINAL)


def test_meta_is_free_form(tmp_path: Path) -> None:
    meta = {"player": "ann", "anything": {"nested": [1, {"x": None}]}, "moves": "not checked"}
    result, rep = verify_one(tmp_path, log(meta=meta))
    assert result.exit_code == 0 and rep["valid"] is True


# --- an illegal move ----------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 3, 9])
def test_illegal_move_at_index_k(tmp_path: Path, k: int) -> None:
    moves = ENTRIES[:k] + [illegal_for(POSITIONS[k])] + ENTRIES[k + 1 :]
    result, rep = verify_one(tmp_path, log(moves))
    assert result.exit_code == 1
    assert rep["valid"] is False and rep["status"] == "invalid"
    err = rep["error"]
    assert err["index"] == k
    assert err["path"] == f"/moves/{k}"
    assert err["code"] == "not-next-on-foundation"
    assert err["message"].startswith(f"move {k + 1}:")
    assert "foundation" in err["message"]
    # the final position is the one before the illegal move
    assert rep["final"]["piles"] == pile_names(POSITIONS[k])
    assert rep["moves"] == POSITIONS[k].moves
    human = run(["verify", tmp_path / "log.json"])
    assert human.exit_code == 1
    assert f"invalid: move {k + 1}:" in human.stdout and f"(at /moves/{k})" in human.stdout


def test_wrong_card_named_is_card_mismatch(tmp_path: Path) -> None:
    k = 4
    moves = copy.deepcopy(ENTRIES)
    assert moves[k]["type"] == "move"
    real = POSITIONS[k].piles[moves[k]["from"] - 1][-1]
    moves[k]["card"] = cards.name((real + 1) % 52)
    result, rep = verify_one(tmp_path, log(moves))
    assert result.exit_code == 1
    assert rep["error"]["code"] == "card-mismatch"
    assert rep["error"]["path"] == f"/moves/{k}"
    assert rep["error"]["message"].startswith(f"move {k + 1}:")


# --- hostile inputs: exit 2, one line, no traceback --------------------------------------------


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def with_move(**fields: Any) -> dict[str, Any]:
    move = dict(ENTRIES[0])
    move.update(fields)
    return log([move] + ENTRIES[1:])


HOSTILE: list[tuple[str, Any, str, str, str]] = [
    # id, file content, code, path, words in the message
    ("empty", b"", "not-json", "/", "not JSON"),
    ("nope", b"nope", "not-json", "/", "not JSON"),
    ("truncated", dump(log())[:40], "not-json", "/", "not JSON"),
    # JSON that is no log at all, and bytes that are not text: input problems (docs/cli.md)
    ("array", b"[]", "not-a-log", "/", "JSON, but not a game log"),
    ("string", b'"cruel-log/1"', "not-a-log", "/", "JSON, but not a game log"),
    ("null", b"null", "not-a-log", "/", "JSON, but not a game log"),
    ("deep-100000", deep(100_000), "not-json", "/", "not JSON"),
    (
        "invalid-utf8",
        b'{"format": "cruel-log/1", "deal": {"number": 17}, "meta": {"p": "\xff\xfe"}}',
        "binary",
        "/",
        "not UTF-8 text",
    ),
    (
        "lone-surrogate",
        b'{"format": "cruel-log/1", "deal": {"number": 17}, "x\\ud800": 1}',
        "not-json",
        "/",
        "not JSON",
    ),
    ("bom-twice", b"\xef\xbb\xbf" * 2 + dump(log()), "not-json", "/", "not JSON"),
    ("from-str", with_move(**{"from": "3"}), "schema", "/moves/0/from", ""),
    ("from-float", with_move(**{"from": 3.0}), "schema", "/moves/0/from", ""),
    ("from-bool", with_move(**{"from": True}), "schema", "/moves/0/from", ""),
    ("to-0", with_move(to=0), "schema", "/moves/0/to", "no pile 0: piles are numbered 1 to 13"),
    ("to-14", with_move(to=14), "schema", "/moves/0/to", "no pile 14: piles are numbered 1 to 13"),
    ("card-int", with_move(card=5), "schema", "/moves/0/card", ""),
    ("card-1H", with_move(card="1H"), "schema", "/moves/0/card", "not a card: '1H'"),
    ("count-0", with_move(count=0), "schema", "/moves/0/count", "a run is 1 to 12 cards"),
    ("move-type", log([{"type": "jump", "from": 1, "to": 2}]), "schema", "/moves/0", "jump"),
    ("move-no-type", log([{"from": 1, "to": 2}]), "schema", "/moves/0", '"type"'),
    ("compact-14F", log(["14F"]), "schema", "/moves/0", "not a move: '14F': piles are numbered"),
    ("compact-4-14", log(["4-14"]), "schema", "/moves/0", "'4-14': piles are numbered 1 to 13"),
    ("compact-run-13", log(["3-7x13"]), "schema", "/moves/0", "a run is 1 to 12 cards"),
    ("deal-int", log(deal=17), "schema", "/deal", 'write {"number": 17} for deal 17'),
    ("deal-str", log(deal="17"), "schema", "/deal", '{"number": 17}'),
    ("moves-not-list", log(moves=None) | {"moves": "2F"}, "schema", "/moves", ""),
    ("unknown-top", log(colour="red"), "schema", "/colour", "unknown key 'colour'"),
    (
        "unknown-deal",
        log(deal={"number": NUMBER, "seed": 1}),
        "schema",
        "/deal/seed",
        "unknown key 'seed'",
    ),
    ("unknown-move", with_move(note="x"), "schema", "/moves/0/note", "unknown key 'note'"),
    ("unknown-claim", log(claim={"score": 3}), "schema", "/claim/score", "unknown key 'score'"),
    # unknown keys that happen to share a name with a key used elsewhere in the format
    ("unknown-top-piles", log(piles=[]), "schema", "/piles", "unknown key 'piles'"),
    (
        "unknown-claim-count",
        log(claim={"count": 3}),
        "schema",
        "/claim/count",
        "unknown key 'count'",
    ),
    ("format-2", log(format="cruel-log/2"), "schema", "/format", "cruel-log/1"),
    (
        "no-format",
        {k: v for k, v in log().items() if k != "format"},
        "not-a-log",
        "/",
        "JSON, but not a game log",
    ),
    ("no-deal", {k: v for k, v in log().items() if k != "deal"}, "schema", "/deal", "missing"),
    ("deal-empty", log(deal={}), "schema", "/deal", '"number" or "piles"'),
    ("deal-null-number", log(deal={"number": None}), "schema", "/deal", '"number" or "piles"'),
    ("deal-number--1", log(deal={"number": -1}), "schema", "/deal/number", "greater than"),
    ("deal-number-2**32", log(deal={"number": 2**32}), "schema", "/deal/number", "4294967295"),
    ("deal-number-2**64", log(deal={"number": 2**64}), "schema", "/deal/number", ""),
    ("deal-number-float", log(deal={"number": 17.0}), "schema", "/deal/number", ""),
    ("rules-unknown", log(rules="cruelest"), "schema", "/rules", "cruel-when-stuck"),
    (
        "rules-override-unknown",
        log(rules={"preset": "cruel", "undo": True}),
        "schema",
        "/rules/undo",
        "unknown key 'undo'",
    ),
    (
        "rules-override-bad-value",
        log(rules={"preset": "cruel", "max_redeals": -1}),
        "schema",
        "/rules/max_redeals",
        "",
    ),
    ("claim-moves-bool", log(claim={"moves": True}), "schema", "/claim/moves", ""),
    ("pile-card-bad", log(deal={"piles": [["XX"]]}), "schema", "/deal/piles/0/0", "not a card"),
]


@pytest.mark.parametrize(
    ("data", "code", "path", "words"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE]
)
def test_hostile_input_exits_2(tmp_path: Path, data: Any, code: str, path: str, words: str) -> None:
    result, rep = verify_one(tmp_path, data)
    assert result.exit_code == 2, rep
    assert rep["status"] == "unreadable" and rep["valid"] is False
    err = rep["error"]
    assert (err["code"], err["path"]) == (code, path), err
    assert words in err["message"]
    assert "\n" not in err["message"]
    assert rep["final"] is None
    human = run(["verify", tmp_path / "log.json"])
    assert human.exit_code == 2
    lines = human.stdout.splitlines()
    assert len(lines) == 1
    assert "unreadable" in lines[0] and f"[{code}]" in lines[0]
    assert summary(human) == "verified 1 log: 0 valid, 0 invalid, 1 unreadable"


@pytest.mark.parametrize("levels", [100, 250, 300, 900, 1000, 1020, 1100])
@pytest.mark.parametrize("where", ["moves", "deal", "meta", "top"])
def test_deep_nesting_is_unreadable_never_internal(tmp_path: Path, levels: int, where: str) -> None:
    """Nesting just under and over any JSON parser's depth limit: exit 2 (not-json, schema, or
    not-a-log for an array), never an internal error (exit 3) from a recursion deeper than
    Python allows."""
    head = b'{"format": "cruel-log/1", "deal": '
    data = {
        "moves": head + b'{"number": 17}, "moves": [' + deep(levels) + b"]}",
        "deal": head + deep(levels) + b"}",
        "meta": head + b'{"number": 17}, "meta": {"x": ' + deep(levels) + b'}, "colour": 1}',
        "top": deep(levels),
    }[where]
    result, rep = verify_one(tmp_path, data)
    assert rep["status"] == "unreadable", rep["error"]
    assert rep["error"]["code"] in ("not-json", "schema", "not-a-log")
    assert result.exit_code == 2


def test_too_large_file_and_max_bytes(tmp_path: Path) -> None:
    data = dump(log(meta={"pad": "x" * (2 << 20)}))
    assert len(data) > 2 << 20
    result, rep = verify_one(tmp_path, data)
    assert result.exit_code == 2
    assert rep["error"]["code"] == "too-large" and rep["error"]["path"] == "/"
    assert "over the limit of 1048576" in rep["error"]["message"]
    result, rep = verify_one(tmp_path, data, "--max-bytes", "3000000")
    assert result.exit_code == 0 and rep["valid"] is True


def test_file_of_exactly_max_bytes_is_accepted(tmp_path: Path) -> None:
    data = dump(log())
    assert (
        run(["verify", "--max-bytes", len(data), write(tmp_path / "a.json", data)]).exit_code == 0
    )
    assert run(["verify", "--max-bytes", len(data) - 1, tmp_path / "a.json"]).exit_code == 2


def test_too_many_moves_and_max_moves(tmp_path: Path) -> None:
    data = log(["R"] * 10_001)
    result, rep = verify_one(tmp_path, data)
    assert result.exit_code == 2
    err = rep["error"]
    assert (err["code"], err["path"]) == ("too-many-moves", "/moves")
    assert "10001 moves" in err["message"] and "10000" in err["message"]
    # raised limit: the log is read and replayed (its first redeal changes nothing: exit 1)
    result, rep = verify_one(tmp_path, data, "--max-moves", "20000")
    assert result.exit_code == 1
    assert (rep["error"]["code"], rep["error"]["path"]) == ("redeal-unchanged", "/moves/0")
    # exactly the default limit is accepted
    result, rep = verify_one(tmp_path, log(["R"] * 10_000))
    assert result.exit_code == 1 and rep["error"]["code"] == "redeal-unchanged"


def test_missing_file_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = run(["verify", "--json", missing])
    assert result.exit_code == 2
    [rep] = json_reports(result)
    assert rep["source"]["file"] == str(missing)
    assert (rep["error"]["code"], rep["error"]["path"]) == ("unreadable", "/")
    assert rep["error"]["message"] == f"cannot read {missing}: No such file or directory"


def test_directory_without_logs_exits_2(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    write(folder / "notes.txt", b"not a log")
    result = run(["verify", folder])
    assert result.exit_code == 2, (result.stdout, result.stderr)


# --- bad deals: exit 1, bad-deal ----------------------------------------------------------------


def piles_of(number: int = NUMBER) -> list[list[str]]:
    return [[cards.name(c) for c in p] for p in deal_piles(number)]


def _eleven() -> dict:
    return {"piles": piles_of()[:11]}


def _five() -> dict:
    p = piles_of()
    p[0].append(p[1].pop())
    return {"piles": p}


def _dup() -> dict:
    p = piles_of()
    p[5][2] = p[1][3]
    return {"piles": p}


def _ace() -> dict:
    p = piles_of()
    p[3][1] = "AS"
    return {"piles": p}


def _disagree() -> dict:
    return {"number": NUMBER, "piles": piles_of(NUMBER + 1)}


BAD_DEALS = [
    ("11-piles", _eleven(), "/deal/piles", ["12 piles", "11"]),
    ("pile-of-5", _five(), "/deal/piles/0", ["pile 1 has 5 cards"]),
    ("duplicate", _dup(), "/deal/piles/5/2", ["pile 2", "again in pile 6"]),
    ("ace", _ace(), "/deal/piles/3/1", ["A♠", "aces"]),
    ("number-vs-piles", _disagree(), "/deal/piles/0", ["not that of deal 17"]),
]


@pytest.mark.parametrize(
    ("deal", "path", "words"), [b[1:] for b in BAD_DEALS], ids=[b[0] for b in BAD_DEALS]
)
def test_bad_deal_exits_1(tmp_path: Path, deal: dict, path: str, words: list[str]) -> None:
    result, rep = verify_one(tmp_path, log([], deal=deal))
    assert result.exit_code == 1
    err = rep["error"]
    assert (err["code"], err["path"]) == ("bad-deal", path), err
    assert err["message"].startswith("deal:")
    for w in words:
        assert w in err["message"]
    assert rep["status"] == "invalid" and rep["valid"] is False


def test_deal_by_piles_and_by_both_agree(tmp_path: Path) -> None:
    for deal in ({"piles": piles_of()}, {"number": NUMBER, "piles": piles_of()}):
        result, rep = verify_one(tmp_path, log(deal=deal))
        assert result.exit_code == 0, rep
        assert rep["final"]["piles"] == pile_names(FINAL)


# --- claims -------------------------------------------------------------------------------------


TRUE_CLAIM = {
    "outcome": FINAL.outcome(),
    "foundation_cards": FINAL.foundation_cards,
    "moves": FINAL.moves,
    "redeals": FINAL.redeals,
}


def test_true_claim_is_valid(tmp_path: Path) -> None:
    result, rep = verify_one(tmp_path, log(claim=TRUE_CLAIM))
    assert result.exit_code == 0 and rep["valid"] is True and rep["error"] is None


@pytest.mark.parametrize(
    ("field", "lie"),
    [
        ("moves", FINAL.moves + 1),
        ("outcome", "won"),
        ("foundation_cards", FINAL.foundation_cards + 1),
        ("redeals", FINAL.redeals + 1),
    ],
)
def test_false_claim_exits_1(tmp_path: Path, field: str, lie: Any) -> None:
    claim = dict(TRUE_CLAIM, **{field: lie})
    result, rep = verify_one(tmp_path, log(claim=claim))
    assert result.exit_code == 1
    err = rep["error"]
    assert (err["code"], err["path"], err["index"]) == ("claim-mismatch", f"/claim/{field}", None)
    assert field in err["message"] and str(lie) in err["message"]


# --- batches ------------------------------------------------------------------------------------


def make_batch(root: Path) -> tuple[Path, list[tuple[str, int | None, str]]]:
    """A directory of logs; returns it and the expected (file, line, status) in order."""
    batch = root / "batch"
    illegal = ENTRIES[:2] + [illegal_for(POSITIONS[2])]
    write(batch / "a.json", log())
    write(batch / "m" / "x.json", log(illegal))
    write(batch / "m" / "y.json", b"nope")
    write(batch / "n.json", log(claim=TRUE_CLAIM))
    write(batch / "readme.txt", b"ignored")
    lines = [dump(log()), dump(log(illegal)), b"", b"   ", b"{broken", dump(log(ENTRIES[:3]))]
    write(batch / "z.jsonl", b"\n".join(lines) + b"\n")
    b = str(batch)
    expected = [
        (f"{b}/a.json", None, "valid"),
        (f"{b}/m/x.json", None, "invalid"),
        (f"{b}/m/y.json", None, "unreadable"),
        (f"{b}/n.json", None, "valid"),
        (f"{b}/z.jsonl", 1, "valid"),
        (f"{b}/z.jsonl", 2, "invalid"),
        (f"{b}/z.jsonl", 5, "unreadable"),
        (f"{b}/z.jsonl", 6, "valid"),
    ]
    return batch, expected


def test_batch_directory_and_jsonl(tmp_path: Path) -> None:
    batch, expected = make_batch(tmp_path)
    result = run(["verify", "--json", batch])
    reports = json_reports(result)
    got = [(r["source"]["file"], r["source"]["line"], r["status"]) for r in reports]
    assert got == expected
    assert summary(result) == "verified 8 logs: 4 valid, 2 invalid, 2 unreadable"
    assert result.exit_code == 2
    # human lines name each source, with :line for JSON Lines
    human = run(["verify", batch])
    lines = human.stdout.splitlines()
    assert [ln.split(": ")[0] for ln in lines] == [
        f if n is None else f"{f}:{n}" for f, n, _ in expected
    ]
    assert [ln.split(": ")[1] for ln in lines] == [s for _, _, s in expected]
    assert human.exit_code == 2
    quiet = run(["verify", "-q", batch])
    assert len(quiet.stdout.splitlines()) == 4 and ": valid:" not in quiet.stdout


def test_batch_jobs_2_is_byte_identical(tmp_path: Path) -> None:
    batch, _ = make_batch(tmp_path)
    for mode in (["--json"], []):
        one = run(["verify", *mode, "--jobs", "1", batch])
        two = run(["verify", *mode, "--jobs", "2", batch])
        assert one.stdout_bytes == two.stdout_bytes
        assert one.stdout_bytes.count(b"\n") == 8
        assert (one.exit_code, two.exit_code) == (2, 2)
        assert summary(one) == summary(two)


@pytest.mark.parametrize(
    ("names", "code"),
    [
        (["ok"], 0),
        (["ok", "bad"], 1),
        (["bad", "ok"], 1),
        (["junk", "ok", "bad"], 2),
        (["ok", "bad", "junk"], 2),
        (["bad", "junk", "bad", "ok"], 2),
    ],
)
def test_exit_code_is_the_worst(tmp_path: Path, names: list[str], code: int) -> None:
    content = {"ok": log(), "bad": log([illegal_for(POSITIONS[0])]), "junk": b"[1,"}
    paths = [write(tmp_path / f"{i}.json", content[n]) for i, n in enumerate(names)]
    result = run(["verify", *paths])
    assert result.exit_code == code
    assert len(result.stdout.splitlines()) == len(names)


def test_jsonl_line_over_max_bytes_is_skipped(tmp_path: Path) -> None:
    small = dump(log())
    big = dump(log(meta={"pad": "y" * 5000}))
    path = write(tmp_path / "logs.jsonl", b"\n".join([small, big, small, big]) + b"\n" + small)
    result = run(["verify", "--json", "--max-bytes", len(small) + 100, path])
    reports = json_reports(result)
    assert [(r["source"]["line"], r["status"]) for r in reports] == [
        (1, "valid"),
        (2, "unreadable"),
        (3, "valid"),
        (4, "unreadable"),
        (5, "valid"),
    ]
    for r in reports[1], reports[3]:
        assert r["error"]["code"] == "too-large"
    assert result.exit_code == 2
    assert summary(result) == "verified 5 logs: 3 valid, 0 invalid, 2 unreadable"


def test_jsonl_line_of_exactly_max_bytes_is_accepted(tmp_path: Path) -> None:
    """A line as long as --max-bytes (its newline aside) is accepted, as a file of that size is."""
    small = dump(log())
    path = write(tmp_path / "logs.jsonl", small + b"\n" + small + b"\n")
    result = run(["verify", "--json", "--max-bytes", len(small), path])
    assert [r["status"] for r in json_reports(result)] == ["valid", "valid"], result.stdout
    assert result.exit_code == 0


# --- standard input -----------------------------------------------------------------------------


def test_stdin_one_log() -> None:
    result = run(["verify", "--json", "-"], input=dump(log()))
    [rep] = json_reports(result)
    assert result.exit_code == 0 and rep["valid"] is True
    assert rep["source"] == {"file": "-", "line": None}


def test_stdin_one_bad_log() -> None:
    result = run(["verify", "-"], input=b"{")
    assert result.exit_code == 2
    assert result.stdout.startswith("-: unreadable:") and "[not-json]" in result.stdout


def test_stdin_jsonl() -> None:
    data = b"\n".join([dump(log()), b"", dump(log([illegal_for(POSITIONS[0])])), b"nope"]) + b"\n"
    result = run(["verify", "--json", "--jsonl", "-"], input=data)
    got = [(r["source"]["file"], r["source"]["line"], r["status"]) for r in json_reports(result)]
    assert got == [("-", 1, "valid"), ("-", 3, "invalid"), ("-", 4, "unreadable")]
    assert result.exit_code == 2
    assert summary(result) == "verified 3 logs: 1 valid, 1 invalid, 1 unreadable"


# --- cruel deal ---------------------------------------------------------------------------------


def test_deal_17() -> None:
    result = run(["deal", "17"])
    assert result.exit_code == 0
    obj = json.loads(result.stdout)
    assert obj["number"] == 17
    assert len(obj["piles"]) == 12 and all(len(p) == 4 for p in obj["piles"])
    assert obj["piles"] == piles_of(17)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-1"], "-1"),
        (["--", "-1"], "out of range"),
        (["4294967296"], "out of range"),
        (["seventeen"], "Invalid value"),
    ],
)
def test_deal_out_of_range(args: list[str], words: str) -> None:
    result = run(["deal", *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert words in result.stderr


# --- real subprocesses: nothing but one-line errors on stderr ---------------------------------


def cli(*args: Any, input: bytes | None = None, cwd: Path | None = None) -> Any:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "cruel_tools.cli.app", *map(str, args)],
        input=input,
        capture_output=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )


def test_subprocess_hostile_batch_no_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "hostile"
    hostile = [h for h in HOSTILE if not h[0].startswith("deep-1000")]  # tested on their own
    for i, h in enumerate(hostile):
        write(folder / f"{i:03d}.json", h[1])
    write(folder / "zz.json", log())
    proc = cli("verify", folder, tmp_path / "missing.json", input=b"")
    assert b"Traceback" not in proc.stderr and b"Traceback" not in proc.stdout
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == len(hostile) + 2
    assert lines[-2].startswith(f"{folder / 'zz.json'}: valid:")
    assert lines[-1].startswith(f"{tmp_path / 'missing.json'}: unreadable:")
    assert all(": unreadable: " in ln for ln in lines[:-2])
    assert proc.stderr.decode().strip().splitlines() == [
        f"verified {len(hostile) + 2} logs: 1 valid, 0 invalid, {len(hostile) + 1} unreadable"
    ]
    assert proc.returncode == 2


def test_subprocess_deep_nesting_is_a_schema_error_not_internal(tmp_path: Path) -> None:
    path = write(
        tmp_path / "deep.json",
        b'{"format": "cruel-log/1", "deal": {"number": 17}, "moves": [' + deep(1000) + b"]}",
    )
    proc = cli("verify", path)
    assert b"Traceback" not in proc.stderr
    assert b"internal" not in proc.stdout + proc.stderr
    assert proc.returncode == 2, (proc.stdout, proc.stderr)


def test_subprocess_non_utf8_file_name(tmp_path: Path) -> None:
    folder = tmp_path / "names"
    folder.mkdir()
    try:
        (folder / os.fsdecode(b"bad\xff.json")).write_bytes(dump(log()))
    except (OSError, UnicodeError):
        pytest.skip("file system refuses non-UTF-8 names")
    runs = {mode: cli("verify", *mode.split(), folder) for mode in ("", "--json")}
    tails = {
        m: p.stderr.decode(errors="replace").strip().splitlines()[-1:] for m, p in runs.items()
    }
    assert all(b"Traceback" not in p.stderr for p in runs.values()), tails
    assert [p.returncode for p in runs.values()] == [0, 0]
    assert [len(p.stdout.splitlines()) for p in runs.values()] == [1, 1]


def test_subprocess_deal_errors(tmp_path: Path) -> None:
    good = cli("deal", "17")
    assert good.returncode == 0 and json.loads(good.stdout)["number"] == 17
    for args in (["deal", "4294967296"], ["deal", "-1"]):
        proc = cli(*args)
        assert proc.returncode != 0
        assert b"Traceback" not in proc.stderr and proc.stderr.strip()
