"""Every shell example of the docs runs, and prints what the page says it prints (issue #15).

The notation (CONTRIBUTING.md, "Examples in the docs"):

- A ```` ```console ```` block is run. A line starting ``$ `` is a command; the lines after it, up
  to the next command, are what it prints (standard output and standard error together, as on a
  terminal). ``...`` in a line matches any text within that line; a line of just ``...`` matches
  any number of lines (none too). Trailing spaces and blank lines at the end are ignored.
- A ```` ```sh ```` block is an example that is *not* run: it needs a running server, a secret
  file, the network or minutes. Any other block that holds a shell command (a line starting
  ``$ ``, or a first line starting ``cruel ``) is refused, so no example goes untested unseen.
- A block whose info string names a file (```` ```json file=example.json ````) is written into
  the working folder under that name before the examples run, so a page's logs are the ones its
  commands read.

Commands run with ``bash`` in one temporary working folder (shared by every page), with the
venv's ``cruel`` first on ``PATH``, 80 columns, no colour. The folder holds ``samples/`` and
``puzzles/`` and ``docs/`` (the repository's), every ``file=`` block, and what docs/verify.md describes in
words: ``batch/`` and ``empty-source.json``. ``$?`` in a command is the exit status of the
command before it in the block (``$ echo $?``). A command that needs ``node`` is skipped, saying
so, when Node is not installed (as tests/test_deal_numbers.py does).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    ROOT / "puzzles" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
FENCE = re.compile(r"^( *)```(.*)$")
RUN, NOT_RUN = "console", "sh"
TIMEOUT = 60


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    info: str
    body: list[str]

    @property
    def lang(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    @property
    def file(self) -> str | None:
        match = re.search(r"\bfile=(\S+)", self.info)
        return match.group(1) if match else None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        k = 0
        while k < len(lines):
            opening = FENCE.match(lines[k])
            if not opening:
                k += 1
                continue
            indent = len(opening.group(1))
            end = k + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            body = [line[indent:] for line in lines[k + 1 : end]]
            found.append(Block(str(page.relative_to(ROOT)), k + 1, opening.group(2).strip(), body))
            k = end + 1
    return found


def console_blocks() -> list[Block]:
    # ```console server blocks need a server: tests/test_doc_http_examples.py runs them.
    return [b for b in blocks() if b.lang == RUN and "server" not in b.info.split()[1:]]


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """The block's commands, each with the lines it is expected to print."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.body:
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"{block.where}: output before the first '$ ' command"
            steps[-1][1].append(line)
    return steps


def pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in _trimmed(expected):
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(p) for p in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def _trimmed(lines: list[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def matches(expected: list[str], actual: str) -> bool:
    text = "".join(line + "\n" for line in _trimmed(actual.splitlines()))
    return pattern(expected).fullmatch(text) is not None


# --- the working folder ------------------------------------------------------------------------

P = ["2F", "R", "4F", "R", "6F", "11F", "3F", "R"]  # docs/verify.md: pile 12 is empty after it


def _log(moves: list[str]) -> str:
    log = {"format": "cruel-log/1", "deal": {"number": 17}, "moves": moves}
    return json.dumps(log)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("docs")
    (work / "samples").symlink_to(ROOT / "samples")
    (work / "puzzles").symlink_to(ROOT / "puzzles")
    (work / "docs").symlink_to(ROOT / "docs")
    for block in blocks():
        if block.file:
            (work / block.file).write_text("\n".join(block.body) + "\n", encoding="utf-8")
    # docs/verify.md's batch/ and empty-source.json, as the page describes them
    example = (work / "example.json").read_text(encoding="utf-8")
    compact = " ".join(example.split())
    batch = work / "batch"
    (batch / "b").mkdir(parents=True)
    (batch / "sub").mkdir()
    (batch / "a.json").write_text(_log(["4-9"]))
    (batch / "b" / "game.json").write_text(example)
    (batch / "sub" / "won.json").write_text((work / "won17.json").read_text(encoding="utf-8"))
    (batch / "sub" / "games.jsonl").write_text(f"{compact}\n\n{_log(['3-3'])}\n{{oops\n")
    (batch / "readme.txt").write_text("not a log\n")
    (work / "empty-source.json").write_text(_log([*P, "12F"]))
    return work


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORCE_COLOR", "CLICOLOR"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        COLUMNS="80",
        LINES="24",
        NO_COLOR="1",
        TERM="dumb",
        PYTHONUNBUFFERED="1",
        PYTHONIOENCODING="utf-8",
    )
    return env


# --- the tests ---------------------------------------------------------------------------------


def test_there_are_shell_examples_run_as_tests() -> None:
    assert len(console_blocks()) >= 10
    assert all(commands(b) for b in console_blocks())


def test_every_shell_example_is_marked_run_or_not_run() -> None:
    unmarked = [
        b.where
        for b in blocks()
        if b.lang not in (RUN, NOT_RUN)
        and (
            any(line.startswith("$ ") for line in b.body)
            or (b.body and b.body[0].startswith("cruel "))
        )
    ]
    assert unmarked == [], "mark these ```console (run) or ```sh (not run)"


def test_the_notation_matches_as_documented() -> None:
    assert matches(["a ... c"], "a b b c\n")
    assert matches(["a", "...", "z"], "a\nb\nc\nz\n")
    assert matches(["a", "...", "z"], "a\nz\n")
    assert not matches(["a ... c"], "a b\nc\n")
    assert not matches(["a"], "a\nb\n")
    assert matches(["a", ""], "a  \n\n")


@pytest.mark.parametrize("block", console_blocks(), ids=lambda b: b.where)
def test_shell_example_prints_what_the_page_says(block: Block, workdir: Path) -> None:
    status = 0
    for command, expected in commands(block):
        if command.startswith("node ") and shutil.which("node") is None:
            pytest.skip(f"{block.where}: node is not installed")
        script = f"(exit {status}); {command}"
        run = subprocess.run(
            ["bash", "-c", script],
            cwd=workdir,
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=TIMEOUT,
            check=False,
        )
        status = run.returncode
        actual = run.stdout.decode("utf-8", "replace")
        assert "Traceback (most recent call last)" not in actual, f"{block.where}: $ {command}"
        shown = "\n".join(expected)
        assert matches(expected, actual), (
            f"{block.where}: $ {command}\n--- the page says:\n{shown}\n--- it prints:\n{actual}"
        )
