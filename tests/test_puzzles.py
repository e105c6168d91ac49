"""Puzzles: the model and its schema, deterministic generation, the daily set, and verifying
players' logs against a puzzle. Small grading budgets keep this file fast; the published set
uses the default budget."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError
from typer.testing import CliRunner, Result

from cruel_tools import puzzles
from cruel_tools.cli.app import app
from cruel_tools.errors import CruelError
from cruel_tools.game.rules import DEFAULT, PRESETS, Rules
from cruel_tools.game.verify import verify_bytes
from cruel_tools.search.grading import TIERS

from .helpers import SMALL

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = Draft202012Validator(orjson.loads((ROOT / "schemas" / "puzzle.schema.json").read_bytes()))
START = dt.date(2027, 1, 1)
runner = CliRunner()


def cli(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), result.exception
    return result


@cache
def hard_puzzles() -> tuple[puzzles.Puzzle, ...]:
    return tuple(puzzles.generate("hard", 2, "test", budget=SMALL))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def check_puzzle(puzzle: puzzles.Puzzle) -> None:
    """Valid by model and schema, and its solution wins at par when verified."""
    doc = puzzle.model_dump(mode="json")
    SCHEMA.validate(doc)
    assert puzzles.Puzzle.model_validate_json(orjson.dumps(doc)) == puzzle
    assert puzzle.tier in TIERS
    report = verify_bytes(orjson.dumps(puzzles.puzzle_solution_log(puzzle)))
    assert report.valid, report.error
    assert report.outcome == "won"
    assert (report.moves, report.redeals) == (puzzle.par.moves, puzzle.par.redeals)
    # every published par solution wins with exactly par.actions actions
    assert report.moves + report.redeals == puzzle.par.actions
    assert puzzle.par.lower_bound <= puzzle.par.actions
    assert puzzle.par.optimal == (puzzle.par.lower_bound == puzzle.par.actions)


# --- the model ---------------------------------------------------------------------------------


def test_candidates_are_deterministic_valid_and_seeded() -> None:
    first = [n for _, n in zip(range(50), puzzles.candidates("abc"), strict=False)]
    again = [n for _, n in zip(range(50), puzzles.candidates("abc"), strict=False)]
    other = [n for _, n in zip(range(50), puzzles.candidates("abd"), strict=False)]
    assert first == again != other
    assert len(set(first)) == 50
    assert all(0 <= n <= 2**32 - 1 for n in first)


def test_puzzle_round_trip_and_schema() -> None:
    for puzzle in hard_puzzles():
        check_puzzle(puzzle)
        assert puzzle.format == "cruel-puzzle/1"
        assert puzzle.generator.startswith("cruel-tools ")
        assert puzzle.date is None


def test_schema_rejects_extra_fields() -> None:
    doc = hard_puzzles()[0].model_dump(mode="json")
    assert not SCHEMA.is_valid({**doc, "extra": 1})
    assert not SCHEMA.is_valid({**doc, "tier": "impossible"})


def test_rules_are_written_as_a_preset_name_when_they_are_a_preset(tmp_path: Path) -> None:
    puzzle = hard_puzzles()[0]
    doc = puzzle.model_dump(mode="json")
    assert puzzle.rules == doc["rules"] == "cruel"
    assert puzzle.resolved_rules() == PRESETS["cruel"]
    assert puzzles.public(puzzle, dt.date(2000, 1, 1)).rules == "cruel"
    # a file that spells the preset out (as files did before) is the same puzzle
    spelt = {**doc, "rules": PRESETS["cruel"].model_dump(mode="json")}
    SCHEMA.validate(spelt)
    assert puzzles.Puzzle.model_validate_json(orjson.dumps(spelt)) == puzzle
    for name, rules in PRESETS.items():
        named = puzzles.Puzzle.model_validate({**doc, "rules": rules.model_dump(mode="json")})
        assert named.rules == name and named.resolved_rules() == rules
        assert orjson.loads(puzzles.puzzle_bytes(named))["rules"] == name
    # rules that are no preset stay whole
    custom = Rules(preset="cruel", max_redeals=7)
    other = puzzles.Puzzle.model_validate({**doc, "rules": custom.model_dump(mode="json")})
    assert other.rules == other.resolved_rules() == custom
    written = orjson.loads(puzzles.puzzle_bytes(other))
    assert written["rules"] == custom.model_dump(mode="json")
    SCHEMA.validate(written)
    assert puzzles.Puzzle.model_validate_json(orjson.dumps(written)) == other
    # a name that is no preset is refused
    assert not SCHEMA.is_valid({**doc, "rules": "nope"})
    (tmp_path / "nope.json").write_bytes(orjson.dumps({**doc, "rules": "nope"}))
    with pytest.raises(puzzles.PuzzleSetError, match="rules"):
        puzzles.load_puzzle(tmp_path / "nope.json")


def test_a_log_is_checked_against_the_puzzles_resolved_rules() -> None:
    from cruel_tools.game.log import GameLog

    puzzle = hard_puzzles()[0]
    log = GameLog.model_validate(puzzles.puzzle_solution_log(puzzle))
    assert log.rules == "cruel" and puzzles.check_against_puzzle(log, puzzle) == []
    spelt = log.model_copy(update={"rules": PRESETS["cruel"]})
    assert puzzles.check_against_puzzle(spelt, puzzle) == []
    other = log.model_copy(update={"rules": "cruel-when-stuck"})
    assert puzzles.check_against_puzzle(other, puzzle) == [
        f"the log's rules (cruel-when-stuck) are not those of puzzle {puzzle.id} (cruel)"
    ]


def test_puzzle_from_grade_refuses_unwon_deals() -> None:
    from cruel_tools.search.grading import Grade
    from cruel_tools.search.solver import DealInfo

    lost = Grade(
        deal=DealInfo(number=1, piles=[]),
        rules=DEFAULT,
        verdict="unknown",
        tier=None,
        metrics=None,
        solution=None,
    )
    with pytest.raises(ValueError):
        puzzles.puzzle_from_grade(lost, START, "hard")


# --- the package ---------------------------------------------------------------------------------

#: The package's modules, in the order data flows: each imports only modules before it.
MODULES = ["location", "files", "generation", "solutions", "documents"]


def test_the_package_re_exports_every_public_name() -> None:
    import ast
    import importlib

    folder = ROOT / "cruel_tools" / "puzzles"
    assert sorted(p.stem for p in folder.glob("*.py")) == sorted([*MODULES, "__init__"])
    defined: dict[str, str] = {}
    for module in MODULES:
        for node in ast.parse((folder / f"{module}.py").read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                continue
            for name in names:
                if not name.startswith("_") and name not in ("T", "U"):
                    assert name not in defined, f"{name} in {module} and {defined[name]}"
                    defined[name] = module
    assert sorted(puzzles.__all__) == sorted(defined)
    for name, module in defined.items():
        source = importlib.import_module(f"cruel_tools.puzzles.{module}")
        assert getattr(puzzles, name) is getattr(source, name)


def test_data_flows_one_way_through_the_package() -> None:
    import ast

    folder = ROOT / "cruel_tools" / "puzzles"
    for k, module in enumerate(MODULES):
        tree = ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))
        siblings = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1
        }
        assert None not in siblings, f"{module}: from . import ..."
        assert siblings <= set(MODULES[:k]), f"{module} imports {siblings - set(MODULES[:k])}"


# --- generate ----------------------------------------------------------------------------------


@pytest.mark.heavy
def test_generate_is_deterministic_whatever_the_jobs() -> None:
    once = hard_puzzles()
    assert [p.id for p in once] == ["test-hard-1", "test-hard-2"]
    assert all(p.tier == "hard" for p in once)
    assert puzzles.generate("hard", 2, "test", budget=SMALL) == list(once)
    assert puzzles.generate("hard", 2, "test", jobs=2, budget=SMALL) == list(once)


def test_generate_skips_excluded_deals() -> None:
    once = hard_puzzles()
    numbers = {p.deal.number for p in once if p.deal.number is not None}
    later = puzzles.generate("hard", 1, "test", exclude=numbers, budget=SMALL)
    assert later[0].deal.number not in numbers


def test_cli_generate_jsonl_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = puzzles.generate
    monkeypatch.setattr(
        puzzles, "generate", lambda *a, budget=None, **k: real(*a, budget=SMALL, **k)
    )
    result = cli("generate", "--tier", "hard", "--count", "2", "--seed", "test")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [puzzles.Puzzle.model_validate_json(x) for x in lines] == list(hard_puzzles())
    result = cli("generate", "--tier", "hard", "--seed", "test", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert puzzles.load_puzzle(tmp_path / "test-hard-1.json") == hard_puzzles()[0]
    assert cli("generate", "--tier", "nope", "--seed", "x").exit_code == 2


# --- daily -------------------------------------------------------------------------------------


def run_daily(out: Path, days: int = 2, start: dt.date = START, jobs: int = 1) -> list[Path]:
    return puzzles.daily(start, days, out, jobs, budget=SMALL, max_candidates=60)


@pytest.mark.heavy
def test_daily_is_byte_identical_on_rerun_and_never_reuses_a_deal(tmp_path: Path) -> None:
    written = run_daily(tmp_path)
    assert written[-1] == tmp_path / "index.json"
    first = snapshot(tmp_path)
    run_daily(tmp_path, jobs=2)
    assert snapshot(tmp_path) == first
    # a rerun of the second day alone rewrites the same bytes too (it excludes day 1's deals)
    run_daily(tmp_path, days=1, start=START + dt.timedelta(days=1))
    assert snapshot(tmp_path) == first

    files = puzzles.puzzle_files(tmp_path)
    assert files == sorted(written[:-1])
    numbers = []
    for path in files:
        puzzle = puzzles.load_puzzle(path)
        assert path.name == f"{puzzle.id}.json"
        assert puzzle.date is not None
        assert path == puzzles.daily_path(tmp_path, puzzle.date, puzzle.tier)
        assert puzzle.id == f"{puzzle.date.isoformat()}-{puzzle.tier}"
        check_puzzle(puzzle)
        numbers.append(puzzle.deal.number)
    assert len(numbers) == len(set(numbers))
    assert len(files) >= 6  # most tiers are common; expert may be missing with small budgets
    for day in (START, START + dt.timedelta(days=1)):
        tiers = [
            p.stem.removeprefix(f"{day.isoformat()}-") for p in files if day.isoformat() in p.name
        ]
        assert set(tiers) <= set(TIERS) and {"medium", "hard"} <= set(tiers)

    index = orjson.loads(first["index.json"])
    assert index["format"] == "cruel-puzzle-index/1"
    ids = [e["id"] for e in index["puzzles"]]
    assert ids == sorted(ids) and len(ids) == len(files)
    for entry in index["puzzles"]:
        puzzle = puzzles.load_puzzle(tmp_path / entry["file"])
        assert entry == {
            "id": puzzle.id,
            "date": str(puzzle.date),
            "tier": puzzle.tier,
            "deal": puzzle.deal.number,
            "par": puzzle.par.model_dump(),
            "file": entry["file"],
        }
    assert first["index.json"].endswith(b"}\n")


def test_daily_reports_progress(tmp_path: Path) -> None:
    seen: list[int] = []
    puzzles.daily(START, 1, tmp_path, progress=seen.append, budget=SMALL, max_candidates=20)
    assert seen == [0]


@pytest.mark.heavy
def test_cli_daily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real: Callable[..., Any] = puzzles.daily
    monkeypatch.setattr(
        puzzles, "daily", lambda *a, **k: real(*a, **{**k, "budget": SMALL, "max_candidates": 20})
    )
    result = cli("daily", "--start", "2027-03-01", "--days", "1", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "index.json").exists()
    assert puzzles.puzzle_files(tmp_path)
    assert cli("daily", "--start", "March", "--out", str(tmp_path)).exit_code == 2


# --- verifying a player's log against a puzzle -------------------------------------------------


def write_puzzle_and_logs(tmp_path: Path) -> tuple[Path, Path, Path]:
    puzzle, other = hard_puzzles()
    puzzle_path = tmp_path / "puzzle.json"
    puzzle_path.write_bytes(puzzles.puzzle_bytes(puzzle))
    own = tmp_path / "own.json"
    own.write_bytes(orjson.dumps(puzzles.puzzle_solution_log(puzzle)))
    foreign = tmp_path / "foreign.json"
    foreign.write_bytes(orjson.dumps(puzzles.puzzle_solution_log(other)))
    return puzzle_path, own, foreign


def test_cli_verify_puzzle_accepts_its_solution(tmp_path: Path) -> None:
    puzzle_path, own, _ = write_puzzle_and_logs(tmp_path)
    puzzle = puzzles.load_puzzle(puzzle_path)
    result = cli("verify", "--puzzle", str(puzzle_path), str(own))
    assert result.exit_code == 0, result.output
    par = puzzle.par
    proven = "optimal" if par.optimal else f"optimum >= {par.lower_bound}"
    at_par = "at par (optimal)" if par.optimal else "at par"
    assert result.stdout.strip().endswith(
        f"; par {par.actions} actions ({proven}); you: {par.actions} actions "
        f"({par.moves} moves, {par.redeals} redeals), {at_par}"
    )
    result = cli("verify", "--json", "--puzzle", str(puzzle_path), str(own))
    assert result.exit_code == 0 and json.loads(result.stdout)["valid"] is True


def test_cli_verify_puzzle_rejects_another_deal(tmp_path: Path) -> None:
    puzzle_path, _, foreign = write_puzzle_and_logs(tmp_path)
    result = cli("verify", "--puzzle", str(puzzle_path), str(foreign))
    assert result.exit_code == 1
    line = result.stdout.strip()
    assert len(line.splitlines()) == 1
    assert "[puzzle-mismatch]" in line and "not the deal of puzzle test-hard-1" in line
    # without --puzzle the same log is fine
    assert cli("verify", str(foreign)).exit_code == 0


def test_cli_verify_rejects_other_rules(tmp_path: Path) -> None:
    puzzle_path, own, _ = write_puzzle_and_logs(tmp_path)
    doc = orjson.loads(own.read_bytes())
    doc["rules"] = "cruel-when-stuck"
    own.write_bytes(orjson.dumps(doc))
    result = cli("verify", "--puzzle", str(puzzle_path), str(own))
    assert result.exit_code == 1 and "[puzzle-mismatch]" in result.stdout


def test_cli_verify_by_puzzle_id(tmp_path: Path) -> None:
    _, own, foreign = write_puzzle_and_logs(tmp_path)
    puzzle = hard_puzzles()[0]
    sets = tmp_path / "set"
    (sets / "2027").mkdir(parents=True)
    (sets / "2027" / f"{puzzle.id}.json").write_bytes(puzzles.puzzle_bytes(puzzle))
    base = ("verify", "--puzzles", str(sets), "--puzzle-id")
    assert cli(*base, puzzle.id, str(own)).exit_code == 0
    assert cli(*base, puzzle.id, str(foreign)).exit_code == 1
    result = cli(*base, "2027-13-01-hard", str(own))
    assert result.exit_code == 2 and "no puzzle" in result.stderr
    assert cli("verify", "--puzzles", str(sets), str(own)).exit_code == 2


def puzzle_batch(tmp_path: Path) -> tuple[Path, Path]:
    """A puzzle and a folder of its logs: its solution, another puzzle's, other rules, an
    illegal move, junk, and a JSON Lines file of 300 logs (more than one chunk per worker)."""
    puzzle_path, own, foreign = write_puzzle_and_logs(tmp_path)
    batch = tmp_path / "batch"
    batch.mkdir()
    doc = orjson.loads(own.read_bytes())
    (batch / "a-own.json").write_bytes(own.read_bytes())
    (batch / "b-foreign.json").write_bytes(foreign.read_bytes())
    (batch / "c-rules.json").write_bytes(orjson.dumps({**doc, "rules": "cruel-when-stuck"}))
    (batch / "d-illegal.json").write_bytes(orjson.dumps({**doc, "moves": ["1F"] * 3}))
    (batch / "e-junk.json").write_bytes(b"[1,")
    lines = [own.read_bytes(), foreign.read_bytes(), b"{broken"] * 100
    (batch / "f-many.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return puzzle_path, batch


def test_cli_verify_puzzle_jobs_2_is_byte_identical(tmp_path: Path) -> None:
    puzzle_path, batch = puzzle_batch(tmp_path)
    for mode in (["--json"], []):
        one = cli("verify", *mode, "--puzzle", str(puzzle_path), str(batch))
        two = cli("verify", *mode, "--puzzle", str(puzzle_path), "--jobs", "2", str(batch))
        assert one.stdout_bytes == two.stdout_bytes
        assert one.stdout_bytes.count(b"\n") == 305
        assert (one.exit_code, two.exit_code) == (2, 2)
        assert one.stderr == two.stderr
        assert one.stderr.splitlines()[-1] == (
            "verified 305 logs: 101 valid, 103 invalid, 101 unreadable"
        )
    lines = one.stdout.splitlines()
    puzzle = puzzles.load_puzzle(puzzle_path)
    par = f"par {puzzle.par.actions} actions ("
    assert lines[0].endswith(
        f"; you: {puzzle.par.actions} actions ({puzzle.par.moves} moves, "
        f"{puzzle.par.redeals} redeals), at par" + (" (optimal)" if puzzle.par.optimal else "")
    )
    assert sum(par in line for line in lines) == 101  # every valid line, and no other
    assert "[puzzle-mismatch]" in lines[1] and "[puzzle-mismatch]" in lines[2]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("where", ["check_against_puzzle", "versus_par"])
def test_cli_verify_puzzle_bug_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str, where: str
) -> None:
    """A bug in checking a log against the puzzle, or in wording its line, is that log's
    internal-error report and exit 3 (the batch verifier's guard), never a traceback."""
    puzzle_path, own, foreign = write_puzzle_and_logs(tmp_path)

    def broken(*args: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(puzzles.solutions, where, broken)  # the workers are forked: they see it too
    result = cli("verify", "--puzzle", str(puzzle_path), "--jobs", jobs, str(own), str(foreign))
    assert result.exit_code == 3, result.output
    first, second = result.stdout.splitlines()
    assert first == (
        f"{own}: internal-error: cruel-tools failed on this log (RuntimeError); please report it "
        "[internal-error]"
    )
    if where == "versus_par":  # only valid lines show par: the other log is unaffected
        assert "[puzzle-mismatch]" in second
    else:
        assert second.startswith(f"{foreign}: internal-error: ")
    assert result.stderr.splitlines()[-1].endswith("internal errors")
    if where == "check_against_puzzle":
        reports = cli("verify", "--json", "--puzzle", str(puzzle_path), "--jobs", jobs, str(own))
        assert reports.exit_code == 3
        assert json.loads(reports.stdout)["status"] == "internal-error"


# --- unreadable puzzles --------------------------------------------------------------------------

COMMITTED_HARD = ROOT / "puzzles" / "2027" / "2027-01-05-hard.json"
CORRUPT = {
    "empty-object": b"{}",
    "not-json": b"not json",
    "bad-tier": COMMITTED_HARD.read_bytes().replace(b'"tier": "hard"', b'"tier": "impossible"'),
    "bad-solution": COMMITTED_HARD.read_bytes().replace(b'"from": ', b'"from": 13, "x": ', 1),
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_corrupt_puzzle_file_is_a_puzzle_set_error(tmp_path: Path, name: str) -> None:
    """Never pydantic's ValidationError: whoever reads a puzzle file catches one error."""
    folder = tmp_path / "set"
    (folder / "2027").mkdir(parents=True)
    path = folder / "2027" / COMMITTED_HARD.name
    path.write_bytes(CORRUPT[name])
    readers: list[Callable[[], object]] = [
        lambda: puzzles.load_puzzle(path),
        lambda: puzzles.find_puzzle(folder, "2027-01-05-hard"),  # the file of that name
        lambda: puzzles.find_puzzle(folder, "2027-01-06-hard"),  # reads the whole set
        lambda: puzzles.PuzzleSet.load(folder),
    ]
    for read in readers:
        with pytest.raises(puzzles.PuzzleSetError) as caught:
            read()
        assert not isinstance(caught.value, ValidationError)
        assert isinstance(caught.value, CruelError) and isinstance(caught.value, ValueError)
        assert caught.value.code == "not-a-puzzle"
        assert str(caught.value).startswith(f"{path}: not a cruel-puzzle/1 file: ")
    result = cli("verify", "--puzzle", str(path), str(COMMITTED_HARD))
    # --puzzle FILE: no puzzle at all is an input problem, in its one wording (docs/cli.md)
    said = {
        "empty-object": f"{path}: unreadable: JSON, but not a puzzle (cruel-puzzle/1) [not-a-log]",
        "not-json": f"{path}: unreadable: not JSON: expected ident at line 1 column 2 [not-json]",
    }.get(name, f"error: {path}: not a cruel-puzzle/1 file: ")
    assert result.exit_code == 2 and result.stderr.startswith(said), result.stderr
    result = cli("verify", "--puzzles", str(folder), "--puzzle-id", "2027-01-05-hard", "x.json")
    assert result.exit_code == 2 and "not a cruel-puzzle/1 file" in result.stderr


def test_an_unreadable_file_of_a_set_is_a_puzzle_set_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "set"
    (folder / "2027").mkdir(parents=True)
    path = folder / "2027" / COMMITTED_HARD.name
    path.write_bytes(COMMITTED_HARD.read_bytes())
    real = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self.name == path.name:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(PermissionError):  # one file: the caller decides what an OSError means
        puzzles.load_puzzle(path)
    for read in (
        lambda: puzzles.find_puzzle(folder, "2027-01-05-hard"),
        lambda: puzzles.PuzzleSet.load(folder),
    ):
        with pytest.raises(puzzles.PuzzleSetError, match="Permission denied") as caught:
            read()
        assert caught.value.code == "not-a-puzzle"


def test_puzzle_set_error_codes(tmp_path: Path) -> None:
    def code_of(folder: Path) -> str:
        with pytest.raises(puzzles.PuzzleSetError) as caught:
            puzzles.PuzzleSet.load(folder)
        return caught.value.code

    assert code_of(tmp_path / "missing") == "not-a-puzzle-folder"
    folder = tmp_path / "set"
    (folder / "2027").mkdir(parents=True)
    (folder / "2027" / "a.json").write_bytes(COMMITTED_HARD.read_bytes())
    (folder / "2027" / "b.json").write_bytes(COMMITTED_HARD.read_bytes())
    assert code_of(folder) == "duplicate-puzzle-id"
    (folder / "2027" / "b.json").unlink()
    (tmp_path / "outside.json").write_bytes(COMMITTED_HARD.read_bytes())
    (folder / "2027" / "c.json").symlink_to(tmp_path / "outside.json")
    assert code_of(folder) == "outside-the-set"


@pytest.mark.heavy
def test_cli_grade() -> None:
    result = cli("grade", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "deal 1: easy"
    assert "par: " in result.stdout and "random win rate: " in result.stdout
    doc = json.loads(cli("grade", "1", "--json").stdout)
    assert doc["tier"] == "easy" and doc["format"] == "cruel-grade/1"
    grade_schema = json.loads((ROOT / "schemas" / "grade.schema.json").read_text())
    Draft202012Validator(grade_schema).validate(doc)
    assert cli("grade", "1", "--rules", "nope").exit_code == 2
    assert cli("grade", str(2**32)).exit_code == 2


# --- the committed set ---------------------------------------------------------------------------

# The set is part of the repository: an empty one is a broken checkout, never a reason to pass.
COMMITTED = puzzles.puzzle_files(ROOT / "puzzles")


def test_the_committed_set_is_there() -> None:
    assert len(COMMITTED) >= 4 * 90, "puzzles/ should hold 90 days of four puzzles"
    assert {puzzles.load_puzzle(p).tier for p in COMMITTED} == set(TIERS)


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_puzzle(path: Path) -> None:
    puzzle = puzzles.load_puzzle(path)
    SCHEMA.validate(orjson.loads(path.read_bytes()))
    assert path.read_bytes() == puzzles.puzzle_bytes(puzzle)
    assert path.name == f"{puzzle.id}.json"
    check_puzzle(puzzle)


def test_committed_index_lists_every_puzzle() -> None:
    folder = ROOT / "puzzles"
    assert COMMITTED
    assert (folder / "index.json").read_bytes() == puzzles.index_bytes(folder)


@pytest.mark.slow  # a full-budget regeneration (about a minute); the small rerun test above runs always
def test_regenerating_a_committed_day_gives_identical_records(tmp_path: Path) -> None:
    # The first published day depends on no earlier day, so it can be rebuilt from scratch.
    root = Path(__file__).resolve().parent.parent / "puzzles"
    day = dt.date(2027, 1, 1)
    committed = sorted((root / "2027").glob("2027-01-01-*.json"))
    assert len(committed) == len(TIERS)
    puzzles.daily(day, 1, tmp_path)
    rebuilt = sorted((tmp_path / "2027").glob("2027-01-01-*.json"))
    assert [p.name for p in rebuilt] == [p.name for p in committed]
    for new, old in zip(rebuilt, committed, strict=True):
        assert new.read_bytes() == old.read_bytes(), new.name
