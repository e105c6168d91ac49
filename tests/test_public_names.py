"""Each library module's ``__all__`` lists its public names, and what cli.py and service.py use."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cruel_tools"

#: The modules with an ``__all__`` (tracker issue 14).
MODULES = [
    "api",
    "attempts",
    "cards",
    "console",
    "constants",
    "dates",
    "deals",
    "documents",
    "errors",
    "game",
    "guard",
    "integrity",
    "keys",
    "leaderboard",
    "moderation",
    "rules",
    "schemas",
    "stats",
]


def defined_names(module: str) -> set[str]:
    """Names a module defines at its top level (not imported), without a leading underscore."""
    names = set()
    body = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8")).body
    # A name may be defined under a top-level `if` (such as `if TYPE_CHECKING:`).
    body += [n for node in body if isinstance(node, ast.If) for n in node.body + node.orelse]
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def used_names(user: str) -> set[tuple[str, str]]:
    """(module, name) for every name ``user`` imports from a module of the package, whether
    ``from .module import name`` or ``from . import module`` and then ``module.name``."""
    tree = ast.parse((PACKAGE / f"{user}.py").read_text(encoding="utf-8"))
    level = user.count("/") + 1  # the package's own modules, from a module of a subpackage too
    used, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == level:
            if node.module is None:  # from . import cards, stats as player_stats
                aliases.update({a.asname or a.name: a.name for a in node.names})
            else:
                used.update((node.module, a.name) for a in node.names)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            used.add((aliases[node.value.id], node.attr))
    return used


@pytest.mark.parametrize("module", MODULES)
def test_all_lists_the_public_names(module: str) -> None:
    listed = importlib.import_module(f"cruel_tools.{module}").__all__
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert set(listed) == defined_names(module)


SERVICE = sorted(f"service/{p.stem}" for p in (PACKAGE / "service").glob("*.py"))


def test_the_service_uses_the_library() -> None:
    used = {m for user in SERVICE for m, _ in used_names(user)}
    assert {"keys", "leaderboard", "moderation", "store"} <= used, "is the parsing still right?"


@pytest.mark.parametrize("user", ["cli", *SERVICE])
def test_the_cli_and_the_service_use_only_public_names(user: str) -> None:
    used = [(m, n) for m, n in used_names(user) if m in MODULES]
    for module, name in used:
        assert name in importlib.import_module(f"cruel_tools.{module}").__all__, (
            f"{user}.py uses {module}.{name}, which {module}.__all__ does not list"
        )
