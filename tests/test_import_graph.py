"""The package imports in one direction: a walk of every module's imports (inside functions too)
finds no cycle, and every module alone imports (issue #23: no lazy import left to break a loop).

The command modules of cli/, cli/console.py and __init__.py import inside functions for
start-up speed (a command's modules when it runs, a public name when it is first asked for):
those imports are edges of the graph here all the same, so a lazy import can never hide a loop.
The folders are layers (issue #35): every arrow points down (benchmarks/layout.py's measure).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import layout

PACKAGE = Path(__file__).resolve().parent.parent / "cruel_tools"


def module_names() -> list[str]:
    """Every module of the package, by its dotted name (``cruel_tools.puzzles.files``)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


MODULES = module_names()


def source_of(module: str) -> Path:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def resolve(module: str, node: ast.ImportFrom) -> list[str]:
    """The package's modules a ``from ... import ...`` names (a name may be a module)."""
    if node.level:
        is_package = source_of(module).name == "__init__.py"
        base = module.split(".")[: len(module.split(".")) - node.level + is_package]
        root = ".".join(base + ([node.module] if node.module else []))
    else:
        root = node.module or ""
    found = [root] if root in MODULES else []
    found += [f"{root}.{a.name}" for a in node.names if f"{root}.{a.name}" in MODULES]
    return found


def imports_of(module: str) -> set[str]:
    """The package's modules ``module`` imports anywhere in its text: at the top, under ``if``,
    inside functions. Type-checking-only imports count too: they must not loop either."""
    tree = ast.parse(source_of(module).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.update(resolve(module, node))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in MODULES)
    # A module imports its parent packages' __init__ first; that is Python's order, no edge.
    return {m for m in found if m != module and not module.startswith(m + ".")}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a path that starts and ends at one module, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if state.get(after) == 1:
                return path[path.index(after) :] + [after]
            if after not in state and (cycle := visit(after)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_walk_sees_imports_inside_functions() -> None:
    graph = {m: imports_of(m) for m in MODULES}
    assert "cruel_tools.service" in graph["cruel_tools.cli.serving"]  # inside serve_command
    assert "cruel_tools.site.database" in graph["cruel_tools.site.tables"]
    assert "cruel_tools.puzzles.files" in graph["cruel_tools.puzzles"]


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_package_imports_in_one_direction() -> None:
    graph = {m: imports_of(m) for m in MODULES}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


STORE_MODULES = [
    "site.database",
    "site.tables",
    "site.judging",
    "site.records",
    "site.leaderboard",
    "site.keys",
    "site.attempts",
    "site.moderation",
    "site.integrity",
    "site.stores",
    "site.publishing",
]


@pytest.mark.parametrize("module", STORE_MODULES)
def test_each_store_module_imports_alone(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import cruel_tools.{module}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_the_folders_are_layers_with_every_arrow_downward() -> None:
    shape = layout().measure()
    assert shape["upward_arrows"] == [], "a module imports from a layer above its own"
    assert shape["folders"]["top"]["modules"] <= 20, "the top of the package is its public face"
    # Can fail: every folder of the package is a layer the measure knows.
    assert set(shape["folders"]) == set(layout().LAYERS)


def test_an_upward_arrow_is_found() -> None:
    measure = layout()
    graph = {
        "cruel_tools.game.render": {"cruel_tools.terminal", "cruel_tools.cli.app"},
        "cruel_tools.site.live": {"cruel_tools.puzzles.files", "cruel_tools.advice.analysis"},
    }
    found = measure.upward(graph)
    assert found == ["cruel_tools.game.render -> cruel_tools.cli.app"]
