"""Every module's ``__all__`` lists its public names, and modules use only each other's public names.

The modules are found by walking the package (``pkgutil.walk_packages``, the subpackages
``puzzles`` and ``service`` included), so a new module is checked without being named here.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import cruel_tools

PACKAGE = Path(cruel_tools.__file__).resolve().parent


def walk() -> list[str]:
    """Every module of the package written in Python, as ``cruel_tools.x.y``, the package itself
    first (the walk yields only what is under it).

    The compiled core (``_native``) has no source to read; its names are in ``_native.pyi``.
    """
    found = pkgutil.walk_packages(cruel_tools.__path__, "cruel_tools.")
    return ["cruel_tools", *sorted(i.name for i in found if source(i.name).suffix == ".py")]


def source(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    return Path(spec.origin)


MODULES = walk()


def defined_names(name: str) -> set[str]:
    """Names a module defines at its top level (not imported), without a leading underscore:
    what "public" means here. A name defined under a top-level ``if`` (``if TYPE_CHECKING:``)
    counts too."""
    names = set()
    body = ast.parse(source(name).read_text(encoding="utf-8")).body
    body += [n for node in body if isinstance(node, ast.If) for n in node.body + node.orelse]
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def is_package(name: str) -> bool:
    return source(name).name == "__init__.py"


def used_names(user: str) -> set[tuple[str, str]]:
    """(module, name) for every name ``user`` imports from another module of the package,
    whether ``from .module import name``, ``from ..module import name`` or ``from . import
    module`` and then ``module.name``; modules as ``cruel_tools.x.y``."""
    tree = ast.parse(source(user).read_text(encoding="utf-8"))
    # The package a relative import of level 1 starts from: a package's own, or its module's.
    here = user.split(".") if is_package(user) else user.split(".")[:-1]
    used, aliases = set(), {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = ".".join(here[: len(here) - node.level + 1])
            module = f"{base}.{node.module}" if node.module else base
        elif node.module and node.module.split(".")[0] == "cruel_tools":
            module = node.module
        else:
            continue
        for alias in node.names:
            if f"{module}.{alias.name}" in MODULES:  # from . import cards as c
                aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
            else:
                used.add((module, alias.name))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            used.add((aliases[node.value.id], node.attr))
    return {(m, n) for m, n in used if m in MODULES and m != user}


def test_the_walk_finds_every_module() -> None:
    # Can fail: a walk that stopped at the top level would miss these.
    assert {"cruel_tools.game.game", "cruel_tools.puzzles.files", "cruel_tools.service.app"} <= set(
        MODULES
    )
    assert len(MODULES) == len(
        [p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] != "web"]
    )


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    listed = getattr(module, "__all__", None)
    assert listed is not None, f"{name} has no __all__"
    assert len(listed) == len(set(listed)), "a name is listed twice"
    missing = defined_names(name) - set(listed)
    assert not missing, f"{name}.__all__ does not list {sorted(missing)}"
    if not is_package(name):
        # A module lists only what it defines; a package re-exports its modules' names.
        assert set(listed) == defined_names(name)
    for public in listed:
        assert hasattr(module, public), f"{name}.__all__ lists {public}, which it lacks"


@pytest.mark.parametrize(
    "name", [m for m in MODULES if is_package(m) and m != "cruel_tools"], ids=str
)
def test_a_subpackage_re_exports_its_modules(name: str) -> None:
    package = importlib.import_module(name)
    modules = [m for m in MODULES if m.rpartition(".")[0] == name]
    assert modules, "is the walk still right?"
    every: set[str] = set()
    for child in modules:
        every.update(importlib.import_module(child).__all__)
    if name == "cruel_tools.puzzles":  # "everything public is importable from here"
        assert set(package.__all__) == every
    else:  # the service re-exports its app and settings, not every router's names
        assert set(package.__all__) <= every


def test_the_check_of_used_names_reads_imports() -> None:
    used = {
        m for user in MODULES if user.startswith("cruel_tools.service") for m, _ in used_names(user)
    }
    assert {
        "cruel_tools.site.keys",
        "cruel_tools.site.leaderboard",
        "cruel_tools.site.moderation",
        "cruel_tools.site.database",
        "cruel_tools.service.errors",
    } <= used, "is the parsing still right?"
    assert ("cruel_tools.search.optimal", "MAX_STATES") in used_names("cruel_tools.cli.solving")


@pytest.mark.parametrize("user", MODULES)
def test_modules_use_only_each_others_public_names(user: str) -> None:
    for module, name in sorted(used_names(user)):
        if name.startswith("_"):
            continue  # a deliberate use of another module's private helper, visible as such
        listed: ModuleType = importlib.import_module(module)
        assert name in listed.__all__, (
            f"{user} uses {module}.{name}, which {module}.__all__ does not list"
        )
