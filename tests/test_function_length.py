"""No function of the HTTP service or the command line is longer than can be read at once
(issue #35): at most :data:`MOST` lines from its ``def`` to its last line, decorators left out."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cruel_tools"
#: The most lines a function of the folders below may take.
MOST: Final = 80


def too_long(folder: Path) -> list[str]:
    """Every function of ``folder``'s modules longer than :data:`MOST`, as ``path:line name
    (n lines)``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MOST:
                    where = path.relative_to(PACKAGE.parent)
                    found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


@pytest.mark.parametrize("folder", ["service", "cli"])
def test_no_function_is_over_80_lines(folder: str) -> None:
    found = too_long(PACKAGE / folder)
    assert not found, f"functions over {MOST} lines in cruel_tools/{folder}/: {found}"


def test_the_count_reads_the_source() -> None:
    # Can fail: a folder with a long function is found (search/ holds the solver's loop).
    assert too_long(PACKAGE / "search")
