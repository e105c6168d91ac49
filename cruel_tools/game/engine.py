"""Which engine runs: the native core (``cruel_tools._native``, C++) or the Python engine.

:mod:`cruel_tools.game.game` is the statement of the rules and always works. The native core is a
compiled second engine for speed (the verifier's fast path, the solver), held to ``game.py`` by
differential tests; it is optional, built by ``pip install`` where a C++ compiler works.

The environment variable ``CRUEL_ENGINE`` chooses:

* unset or ``auto``: the native core when it is built, else the Python engine;
* ``python``: the Python engine, even where the core is built;
* ``native``: the native core, and an error (:class:`NativeCoreMissing`) where it is not built.

This module is the one place that decides; callers ask :func:`native` for the core (``None``:
use Python) and never read the variable themselves. It imports nothing heavy: ``cruel --version``
reads :func:`engine_line` at start-up.
"""

from __future__ import annotations

import os
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

from ..errors import CruelError

if TYPE_CHECKING:
    from .._native import NativeRules
    from .rules import Rules

__all__ = [
    "ENV",
    "NativeCoreMissing",
    "native",
    "engine_name",
    "engine_line",
    "native_rules",
]

ENV = "CRUEL_ENGINE"
_CHOICES = ("auto", "python", "native")


class NativeCoreMissing(CruelError):
    """``CRUEL_ENGINE=native`` and the compiled core cannot be imported (or the variable names
    no engine)."""

    code = "no-native-core"


@cache
def _load() -> tuple[ModuleType | None, str]:
    """The compiled module, or None and why not."""
    try:
        from .. import _native  # type: ignore[attr-defined,unused-ignore]
    except ImportError as exc:
        return None, f"no compiled core: {exc}"
    return _native, ""


def _choice() -> str:
    choice = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if choice not in _CHOICES:
        raise NativeCoreMissing(f"{ENV}={choice!r}: use one of {', '.join(_CHOICES)}")
    return choice


def native() -> ModuleType | None:
    """The native core to use, or None to use the Python engine.

    :raises NativeCoreMissing: ``CRUEL_ENGINE=native`` and the core is not built, or
        ``CRUEL_ENGINE`` names no engine.
    """
    choice = _choice()
    if choice == "python":
        return None
    module, why = _load()
    if module is None and choice == "native":
        raise NativeCoreMissing(
            f"{ENV}=native but the native core is not available ({why}); "
            "reinstall with a C++17 compiler (g++ or clang++) on the PATH"
        )
    return module


def engine_name() -> str:
    """``native`` or ``python``: which engine :func:`native` picks.

    :raises NativeCoreMissing: as :func:`native`.
    """
    return "python" if native() is None else "native"


def engine_line() -> str:
    """What ``cruel --version``, ``cruel serve`` and ``/v1/health`` say about the engine:
    ``engine: native``, or ``engine: python (...)`` with the reason.

    :raises NativeCoreMissing: as :func:`native`.
    """
    if native() is not None:
        return "engine: native"
    if _choice() == "python":
        return f"engine: python ({ENV}=python)"
    return f"engine: python ({_load()[1]})"


@cache  # Rules are frozen (hashable) and NativeRules read-only: one per profile, made once
def native_rules(rules: Rules) -> NativeRules:
    """The profile as the core takes it: a ``cruel_tools._native.NativeRules``, each field named
    (the core checks the combination, as rules.py's validator does).

    The core plays every profile in its engine and its solver; the verifier's fast path and the
    fewest-actions search take Cruel's own layout only (``Rules.cruel_layout``), and ask for it
    themselves.

    :raises NativeCoreMissing: the core is not built (callers ask :func:`native` first).
    """
    core, why = _load()
    if core is None:
        raise NativeCoreMissing(f"the native core is not available ({why})")
    made: NativeRules = core.NativeRules(
        top_down=rules.redeal_order == "top-down",
        max_redeals=-1 if rules.max_redeals is None else rules.max_redeals,
        when_stuck=rules.redeal_only_when_stuck,
        runs=rules.run_moves,
        piles=rules.pile_count,
        base=_BASES[rules.foundation_base],
        build=_BUILDS[rules.tableau_build],
        one_at_a_time=rules.redeal_deal == "one-at-a-time",
    )
    return made


#: The core's numbers for Rules.foundation_base and Rules.tableau_build (engine.hpp's Base, Build).
_BASES: dict[str, int] = {"ace": 0, "king": 1, "none": 2}
_BUILDS: dict[str, int] = {
    "down-in-suit": 0,
    "up-alternate-colour": 1,
    "up-or-down-alternate-colour": 2,
}
