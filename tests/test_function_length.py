"""No function of the HTTP service or the command line is longer than can be read at once
(issue #35): at most :data:`MOST` lines from its ``def`` to its last line, decorators left out."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from .helpers import layout

PACKAGE = Path(__file__).resolve().parent.parent / "cruel_tools"
#: The most lines a function of the folders below may take.
MOST: Final = 80


def too_long(folder: Path) -> list[str]:
    """Every function of ``folder``'s modules longer than :data:`MOST`, as ``path name (n
    lines)``: counted by benchmarks/layout.py, the one count of CONTRIBUTING.md's table."""
    functions = layout().functions
    return [
        f"{path.relative_to(PACKAGE.parent)} {name} ({lines} lines)"
        for path in sorted(folder.rglob("*.py"))
        for lines, name in functions(path)
        if lines > MOST
    ]


@pytest.mark.parametrize("folder", ["service", "cli"])
def test_no_function_is_over_80_lines(folder: str) -> None:
    found = too_long(PACKAGE / folder)
    assert not found, f"functions over {MOST} lines in cruel_tools/{folder}/: {found}"


def test_the_count_reads_the_source() -> None:
    # Can fail: a folder with a long function is found (search/ holds the solver's loop).
    assert too_long(PACKAGE / "search")
