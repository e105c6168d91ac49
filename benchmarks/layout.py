"""The package's shape in numbers (issue #35): modules per folder, import arrows, floors, loops,
and the longest function of each folder.

    .venv/bin/python benchmarks/layout.py          # a table, for CONTRIBUTING.md
    .venv/bin/python benchmarks/layout.py --json   # the same as JSON

Modules are rooms, folders are layers; an arrow is one module importing another (any import,
at the top or in a function body, ``TYPE_CHECKING`` included); a floor is a module's height
in the import graph (a module that imports nothing of ours is on floor 1). Read from the source
with :mod:`ast`: nothing is imported, so the numbers cost nothing and need no native core.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cruel_tools"
#: The layers, lowest first: a module may import its own layer and those below it. The spec (the
#: data every engine reads) is below even the top-level base (errors reads its words there).
LAYERS = ("spec", "top", "game", "search", "puzzles", "advice", "site", "service", "cli")
#: Top-level modules that sit above the layers they gather (the public face, the schema
#: writer) or between two (the memory budget of grading): named, so that nothing else is.
ABOVE = {"cruel_tools": "cli", "cruel_tools.schemas": "cli", "cruel_tools.memory": "search"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def folder_of(module: str) -> str:
    parts = module.split(".")
    is_package = (PACKAGE.joinpath(*parts[1:]) / "__init__.py").exists()
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and is_package) else "top"


def layer_of(module: str) -> str:
    return ABOVE.get(module, folder_of(module))


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ours that ``module`` imports anywhere in its source."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            if node.level:
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # ``from . import log`` imports the module log
                if f"{target}.{alias.name}" in known:
                    found.add(f"{target}.{alias.name}")
                elif target == "cruel_tools":  # __version__, _native (the core): no layer's
                    continue
                elif target in known:
                    found.add(target)
    found.discard(module)
    return found


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    height: dict[str, int] = {}

    def visit(m: str, path: tuple[str, ...]) -> int:
        if m in height:
            return height[m]
        if m in path:
            raise SystemExit("import loop: " + " -> ".join((*path, m)))
        height[m] = 1 + max((visit(d, (*path, m)) for d in graph[m]), default=0)
        return height[m]

    for m in graph:
        visit(m, ())
    return height


def functions(path: Path) -> list[tuple[int, str]]:
    """(lines, name) of every function: def line to last line, decorators left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.end_lineno - node.lineno + 1, node.name)  # type: ignore[operator]
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def upward(graph: dict[str, set[str]]) -> list[str]:
    """The arrows of ``graph`` from a module to one of a layer above its own."""
    return sorted(
        f"{m} -> {d}"
        for m, deps in graph.items()
        for d in deps
        if LAYERS.index(layer_of(d)) > LAYERS.index(layer_of(m))
    )


def measure() -> dict[str, object]:
    found = modules()
    known = set(found)
    graph = {m: imports_of(m, p, known) for m, p in found.items()}
    height = floors(graph)
    per_folder: dict[str, dict[str, object]] = {}
    longest: dict[str, tuple[int, str]] = {}
    over: Counter[str] = Counter()
    for m, p in found.items():
        folder = folder_of(m)
        for lines, name in functions(p):
            if lines > longest.get(folder, (0, ""))[0]:
                longest[folder] = (lines, f"{m}.{name}")
            over[folder] += lines > 80
    counts = Counter(folder_of(m) for m in found)
    for folder in sorted(counts, key=lambda f: LAYERS.index(f) if f in LAYERS else 99):
        per_folder[folder] = {
            "modules": counts[folder],
            "longest_function": {"lines": longest[folder][0], "name": longest[folder][1]},
            "functions_over_80_lines": over[folder],
        }
    between: Counter[str] = Counter()
    for m, deps in graph.items():
        for d in deps:
            a, b = layer_of(m), layer_of(d)
            if a != b:
                between[f"{a} -> {b}"] += 1
    return {
        "modules": len(found),
        "arrows": sum(len(d) for d in graph.values()),
        "floors": max(height.values()),
        "import_loops": 0,  # floors() stops on the first one
        "folders": per_folder,
        "arrows_between_layers": dict(sorted(between.items())),
        "upward_arrows": upward(graph),
    }


def main() -> None:
    shape = measure()
    if "--json" in sys.argv:
        sys.stdout.write(orjson.dumps(shape, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    print(
        f"{shape['modules']} modules, {shape['arrows']} import arrows, {shape['floors']} floors, "
        f"{shape['import_loops']} import loops, {len(shape['upward_arrows'])} upward arrows"  # type: ignore[arg-type]
    )
    print("| folder | modules | longest function (lines) | functions over 80 lines |")
    print("|---|---|---|---|")
    folders: dict[str, dict[str, object]] = shape["folders"]  # type: ignore[assignment]
    for folder, row in folders.items():
        fn: dict[str, object] = row["longest_function"]  # type: ignore[assignment]
        print(
            f"| {folder} | {row['modules']} | `{fn['name']}` ({fn['lines']}) "
            f"| {row['functions_over_80_lines']} |"
        )
    for arrow in shape["upward_arrows"]:  # type: ignore[attr-defined]
        print("upward:", arrow)


if __name__ == "__main__":
    main()
