"""Every Python example in README.md and docs/ runs, and prints what the page says it prints.

A page marks expected output with a comment line ``# → text`` right after a ``print(...)``
line: that print's output must be exactly ``text``. Examples run from the repository's root, as
a reader who cloned it would run them.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for k, block in enumerate(BLOCK.findall(page.read_text(encoding="utf-8")), 1):
            found.append((f"{page.relative_to(ROOT)}#{k}", block))
    return found


def expected_outputs(block: str) -> dict[int, str]:
    """The print calls of ``block`` (numbered from 0, in order) that have an expected line."""
    expected, prints = {}, -1
    for line in block.splitlines():
        if re.match(r"\s*print\(", line):
            prints += 1
        elif line.startswith("# → "):
            expected[prints] = line.removeprefix("# → ")
    return expected


def test_there_are_examples() -> None:
    assert len(examples()) >= 2


@pytest.mark.parametrize(("where", "block"), examples(), ids=[w for w, _ in examples()])
def test_example_runs_and_prints_what_the_page_says(where: str, block: str) -> None:
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(block, where, "exec"), {"__name__": "__example__"})
    finally:
        os.chdir(cwd)
    lines = out.getvalue().splitlines()
    for index, text in expected_outputs(block).items():
        assert lines[index] == text, f"{where}: print {index + 1}"
