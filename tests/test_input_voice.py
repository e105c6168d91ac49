"""One voice (issue #34): every input problem has one wording and one exit status in every
command, both from one function, ``cruel_tools.errors.problem``, whose table docs/cli.md shows.

Every command that reads a log or a deal runs on every problem of the table, in process (Typer's
runner: the whole module takes a few seconds); a few cases run ``cruel`` as a real process, for
the exit status a shell sees.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.errors import DEAL_OR_LOG, INPUT_PROBLEMS, LOG, problem

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

#: The commands that read a log or a deal from a path or standard input.
READERS = ("verify", "replay", "show", "stats", "solve", "analyze", "hint", "grade")
#: Of those, the ones whose DEAL is a deal or a log, read as one JSON document whatever its name.
DEALS = ("show", "solve", "grade")
#: The others, and why no input problem but an unknown option is theirs.
OTHERS = {
    "deal": "takes a deal number, never a file",
    "schema": "writes the schemas, reads nothing",
    "rules": "reads nothing",
    "generate": "reads a secret file at most",
    "daily": "reads a secret file or a database at most",
    "serve": "reads a puzzle set and a database, not logs",
    "keys": "reads a database",
    "moderate": "reads a database",
    "ratings": "reads a database",
    "sweep": "reads a database",
    "study": "takes a deal range; reads its own results file, refused in its own words",
    "check-proof": "reads certificates, not logs or deals: its own one-line refusals, exit 2",
}
FILE_PROBLEMS = [row.code for row in INPUT_PROBLEMS if row.report]

#: Pretty-printed JSON of a log with a bad deal: read whole (as a DEAL is), it is refused for
#: that deal (exit 1), so pretty JSON read as one document is told from JSON Lines at once.
PRETTY = json.dumps(
    {"format": "cruel-log/1", "deal": {"piles": [["2S", "3S", "4S", "5S"]]}, "moves": []},
    indent=2,
).encode()


def inputs(tmp: Path, code: str, command: str) -> tuple[list[str], bytes | None, dict[str, Any]]:
    """The arguments that give ``command`` the input problem ``code``, its standard input, and
    the fields of its wording."""
    path = tmp / {"empty-folder": "empty", "no-logs": "notes"}.get(code, "input.json")
    if code == "unreadable":
        return [str(path)], None, {"name": str(path), "detail": "No such file or directory"}
    if code in ("empty-folder", "no-logs"):
        path.mkdir()
        if code == "no-logs":
            (path / "readme.txt").write_text("not a log\n")
        return [str(path)], None, {"name": str(path)}
    if code == "pretty-json-as-jsonl":
        if command in ("verify", "stats"):  # the ones with --jsonl, for standard input
            return ["--jsonl", "-"], PRETTY, {"name": "-:1"}
        path = tmp / "games.jsonl"
        path.write_bytes(PRETTY)
        return [str(path)], None, {"name": f"{path}:1"}
    data, fields = {
        "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", {}),
        "not-json": (b"not json\n", {"detail": "expected ident at line 1 column 2"}),
        "not-a-log": (b'{"player": "ada"}', {"wanted": DEAL_OR_LOG if command in DEALS else LOG}),
    }[code]
    path.write_bytes(data)
    return [str(path)], None, {"name": str(path), **fields}


@pytest.mark.parametrize("code", FILE_PROBLEMS)
@pytest.mark.parametrize("command", READERS)
def test_every_command_says_every_input_problem_in_its_one_wording(
    tmp_path: Path, command: str, code: str
) -> None:
    args, stdin, fields = inputs(tmp_path, code, command)
    result = runner.invoke(app, [command, *args], input=stdin)
    assert "Traceback" not in result.output and "surrogates" not in result.output
    if code == "pretty-json-as-jsonl" and command in DEALS:  # a DEAL is never JSON Lines
        assert result.exit_code == 1, result.output
        assert "a deal has 12 piles, this one has 1" in result.stderr
        return
    said = problem(code, **fields)
    assert result.exit_code == said.exit == 2, result.output
    if command == "verify":  # the input's report line, and the summary
        assert result.stdout == f"{said.line}\n"
        assert result.stderr == "verified 1 log: 0 valid, 0 invalid, 1 unreadable\n"
    elif command == "stats":  # the record all the same, the input left out in that wording
        assert result.stdout.startswith("Record: 0 logs counted, 1 left out\n")
        assert result.stdout.endswith(f"Left out:\n  {said.line}\n")
        assert result.stderr == "error: 1 input could not be used (listed as left out)\n"
    else:
        assert result.stderr == f"{said.line}\n"
        assert result.stdout == ""  # replay heads only the logs it replays


def command_paths() -> list[list[str]]:
    """Every command of ``cruel``, subcommands too, and ``cruel`` itself."""
    paths: list[list[str]] = []

    def walk(group: Any, prefix: list[str]) -> None:
        paths.append(prefix)
        for name, command in getattr(group, "commands", {}).items():
            walk(command, [*prefix, name])

    walk(typer.main.get_command(app), [])
    return paths


def test_every_command_is_a_reader_or_says_why_not() -> None:
    top = {path[0] for path in command_paths() if len(path) == 1}
    assert top == set(READERS) | set(OTHERS)
    assert not set(READERS) & set(OTHERS)


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "cruel")
def test_an_unknown_option_is_one_line_everywhere(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--bogus"], prog_name="cruel")
    said = problem("unknown-option", "--bogus", command=" ".join(["cruel", *path]))
    assert result.exit_code == said.exit == 2
    assert result.stderr == f"{said.line}\n" and result.stdout == ""


@pytest.mark.parametrize(
    ("args", "close"),
    [
        (["verify", "--jsno"], ["--json"]),  # two letters swapped
        (["stats", "--plaer", "ada"], ["--player"]),  # a letter missing
        (["replay", "--fron", "2"], ["--from"]),  # a letter changed
        (["solve", "--max-state", "9"], ["--max-states"]),
        (["verify", "--jsonx"], ["--json", "--jsonl"]),  # as close to both
        (["verify", "--bogus"], []),  # Click offered --jobs
        (["solve", "--bogus"], []),  # and --out
        (["serve", "--bogus"], []),  # and --host
        (["verify", "--ot"], []),  # a short name: one edit only
    ],
)
def test_only_a_close_spelling_is_suggested(args: list[str], close: list[str]) -> None:
    result = runner.invoke(app, args, prog_name="cruel")
    said = problem("unknown-option", args[1], command=f"cruel {args[0]}", close=close)
    assert result.exit_code == 2
    assert result.stderr == f"{said.line}\n"
    assert ("did you mean" in said.line) == bool(close)


def docs_table() -> list[tuple[str, str, str, int]]:
    """The rows of docs/cli.md's table of input problems."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("\n### Input problems\n", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| (.+?) \| `([a-z-]+)` \| `(.+)` \| (\d+) \|$", section, re.MULTILINE)
    return [(p, code, wording, int(exit_)) for p, code, wording, exit_ in rows]


def test_the_docs_table_is_the_functions_table() -> None:
    table = [(row.problem, row.code, row.wording, row.exit) for row in INPUT_PROBLEMS]
    assert docs_table() == table
    assert len({row.code for row in INPUT_PROBLEMS}) == len(INPUT_PROBLEMS)


def test_a_problem_has_one_wording_with_its_fields_filled() -> None:
    said = problem("not-json", "a.json", "expected value at line 1 column 1")
    assert said.line == "a.json: unreadable: not JSON: expected value at line 1 column 1 [not-json]"
    assert said.message == "not JSON: expected value at line 1 column 1"
    assert problem("not-a-log", "d.json", wanted=DEAL_OR_LOG).message == (
        "JSON, but not a deal or a game log"
    )


# --- real processes: the exit status a shell sees ------------------------------------------------


def cruel(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cruel_tools.cli.app", *args],
        input=None if stdin is None else stdin.decode(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


@pytest.mark.integration
def test_pretty_json_on_stdin_as_json_lines_is_said_once() -> None:
    done = cruel("verify", "--jsonl", "-", stdin=(ROOT / "samples" / "won.json").read_bytes())
    assert done.returncode == 2
    assert done.stdout == problem("pretty-json-as-jsonl", "-:1").line + "\n"
    assert done.stderr == "verified 1 log: 0 valid, 0 invalid, 1 unreadable\n"


@pytest.mark.integration
def test_a_binary_deal_file_and_a_missing_log_exit_2(tmp_path: Path) -> None:
    binary = tmp_path / "deal.bin"
    binary.write_bytes(b"\xff\xfe\x00{")
    shown = cruel("show", str(binary))
    assert (shown.returncode, shown.stdout) == (2, "")
    assert shown.stderr == problem("binary", str(binary)).line + "\n"
    missing = str(tmp_path / "nosuch.json")
    counted = cruel("stats", missing, "samples/won.json")
    assert counted.returncode == 2
    assert counted.stdout.startswith("Record of ada: 1 log counted, 1 left out\n")
    line = problem("unreadable", missing, "No such file or directory").line
    assert counted.stdout.endswith(f"Left out:\n  {line}\n")
    assert counted.stderr == "error: 1 input could not be used (listed as left out)\n"


#: The file of ``--puzzle FILE`` (verify, analyze), refused in the same words as a log.
PUZZLE_FILE_PROBLEMS = {
    "unreadable": (None, {"detail": "No such file or directory"}),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", {}),
    "not-json": (b"not json\n", {"detail": "expected ident at line 1 column 2"}),
    "not-a-log": (b'{"player": "ada"}', {"wanted": "a puzzle (cruel-puzzle/1)"}),
}


@pytest.mark.parametrize("code", sorted(PUZZLE_FILE_PROBLEMS))
@pytest.mark.parametrize("command", ["verify", "analyze"])
def test_a_puzzle_file_that_cannot_be_used_is_said_in_the_one_wording(
    tmp_path: Path, command: str, code: str
) -> None:
    data, fields = PUZZLE_FILE_PROBLEMS[code]
    path = tmp_path / "puzzle.json"
    if data is not None:
        path.write_bytes(data)
    won = str(ROOT / "samples" / "won.json")
    result = runner.invoke(app, [command, "--puzzle", str(path), won])
    said = problem(code, name=str(path), **fields)
    assert result.exit_code == said.exit == 2, result.output
    assert result.stderr == f"{said.line}\n"
    assert result.stdout == ""
