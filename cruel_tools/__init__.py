"""cruel-tools: the reference toolkit for the patience game Cruel.

The public API, importable from here (every name below is typed; the package ships ``py.typed``)::

    from cruel_tools import Game, deal_piles, verify_bytes

    game = Game.from_deal(deal_piles(17))
    report = verify_bytes(b'{"format": "cruel-log/1", "deal": {"number": 17}, "moves": ["R"]}')

- the engine: :class:`Game`, :class:`Move`, :data:`REDEAL`, :class:`Rules`, :data:`PRESETS`,
  :func:`deal_piles`, cards as ints (:mod:`cruel_tools.cards`);
- logs: :class:`GameLog`, :func:`load`, :func:`play` (the one traversal) with :class:`Visitor`;
- verifying: :func:`verify_bytes`, :class:`VerifyReport` (for a parsed log,
  ``cruel_tools.verify.verify``);
- solving and grading: :func:`solve`, :class:`SolveReport`, :func:`grade`, :class:`Grade`;
- puzzles: :class:`Puzzle`;
- errors: every error raised on bad input is a :class:`CruelError` (a ``ValueError``) with a
  stable ``code``; the more precise ones are listed in ``docs/verify.md``.

No exported name is also a module's name (``cruel_tools.traversal`` holds :func:`play`), so
``import cruel_tools.verify`` is always the module. Modules hold the rest
(``cruel_tools.render`` for text replays, ``cruel_tools.service`` for the HTTP service, ...),
each with its own ``__all__``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers; at run time each name is imported on first use (below)
    from .cards import Card, CardError
    from .deals import BadDeal, DealNumberError, deal_piles
    from .errors import CruelError
    from .game import REDEAL, Game, IllegalMove, Move, Outcome, PositionError, Redeal, Step
    from .grading import Grade, grade
    from .log import GameLog, Limits, LogFormatError, load
    from .puzzles import Puzzle, PuzzleSetError
    from .rules import PRESETS, Rules
    from .solver import SolveReport, SolveResult, solve
    from .traversal import ErrorInfo, Played, Visitor, play
    from .verify import VerifyReport, verify_bytes

    __version__: str

#: The module that defines each public name. Importing them all made every ``cruel`` command
#: pay for the solver, grading and puzzles at start-up (issue #22); a name's module is now
#: imported when the name is first asked for (PEP 562), and ``from cruel_tools import X`` is
#: unchanged.
_HOMES = {
    "Card": "cards",
    "CardError": "cards",
    "BadDeal": "deals",
    "DealNumberError": "deals",
    "deal_piles": "deals",
    "CruelError": "errors",
    "REDEAL": "game",
    "Game": "game",
    "IllegalMove": "game",
    "Move": "game",
    "Outcome": "game",
    "PositionError": "game",
    "Redeal": "game",
    "Step": "game",
    "Grade": "grading",
    "grade": "grading",
    "GameLog": "log",
    "Limits": "log",
    "LogFormatError": "log",
    "load": "log",
    "Puzzle": "puzzles",
    "PuzzleSetError": "puzzles",
    "PRESETS": "rules",
    "Rules": "rules",
    "SolveReport": "solver",
    "SolveResult": "solver",
    "solve": "solver",
    "ErrorInfo": "traversal",
    "Played": "traversal",
    "Visitor": "traversal",
    "play": "traversal",
    "VerifyReport": "verify",
    "verify_bytes": "verify",
}


def _package_version() -> str:
    # importlib.metadata costs ~20 ms to import: only ``__version__`` pays for it.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cruel-tools")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _package_version()
    elif name in _HOMES:
        value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # once found, a plain attribute: __getattr__ is not asked again
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "PRESETS",
    "REDEAL",
    "BadDeal",
    "Card",
    "CardError",
    "CruelError",
    "DealNumberError",
    "ErrorInfo",
    "Game",
    "GameLog",
    "Grade",
    "IllegalMove",
    "Limits",
    "LogFormatError",
    "Move",
    "Outcome",
    "Played",
    "PositionError",
    "Puzzle",
    "PuzzleSetError",
    "Redeal",
    "Rules",
    "SolveReport",
    "SolveResult",
    "Step",
    "VerifyReport",
    "Visitor",
    "__version__",
    "deal_piles",
    "grade",
    "load",
    "play",
    "solve",
    "verify_bytes",
]
