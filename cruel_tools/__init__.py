"""cruel-tools: the reference toolkit for the patience game Cruel.

The public API, importable from here (every name below is typed; the package ships ``py.typed``)::

    from cruel_tools import Game, deal_piles, verify_bytes

    game = Game.from_deal(deal_piles(17))
    report = verify_bytes(b'{"format": "cruel-log/1", "deal": {"number": 17}, "moves": ["R"]}')

- the engine: :class:`Game`, :class:`Move`, :data:`REDEAL`, :class:`Rules`, :data:`PRESETS`,
  :func:`deal_piles`, cards as ints (:mod:`cruel_tools.game.cards`);
- logs: :class:`GameLog`, :func:`load`, :func:`play` (the one traversal) with :class:`Visitor`;
- verifying: :func:`verify_bytes`, :class:`VerifyReport` (for a parsed log,
  ``cruel_tools.game.verify.verify``);
- solving and grading: :func:`solve`, :class:`SolveReport`, :func:`grade`, :class:`Grade`;
- puzzles: :class:`Puzzle`;
- errors: every error raised on bad input is a :class:`CruelError` (a ``ValueError``) with a
  stable ``code``; the more precise ones are listed in ``docs/verify.md``.

No exported name is also a module's name (``cruel_tools.game.traversal`` holds :func:`play`), so
``import cruel_tools.game.verify`` is always the module. Modules hold the rest
(``cruel_tools.game.render`` for text replays, ``cruel_tools.service`` for the HTTP service, ...),
each with its own ``__all__``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers; at run time each name is imported on first use (below)
    from .errors import CruelError
    from .game.cards import Card, CardError
    from .game.deals import BadDeal, DealNumberError, deal_piles
    from .game.game import REDEAL, Game, IllegalMove, Move, Outcome, PositionError, Redeal, Step
    from .game.log import GameLog, Limits, LogFormatError, load
    from .game.rules import PRESETS, Rules
    from .game.traversal import ErrorInfo, Played, Visitor, play
    from .game.verify import VerifyReport, verify_bytes
    from .puzzles import Puzzle, PuzzleSetError
    from .search.grading import Grade, grade
    from .search.solver import SolveReport, SolveResult, solve

    __version__: str

#: The module that defines each public name. Importing them all made every ``cruel`` command
#: pay for the solver, grading and puzzles at start-up (issue #22); a name's module is now
#: imported when the name is first asked for (PEP 562), and ``from cruel_tools import X`` is
#: unchanged.
_HOMES = {
    "Card": "game.cards",
    "CardError": "game.cards",
    "BadDeal": "game.deals",
    "DealNumberError": "game.deals",
    "deal_piles": "game.deals",
    "CruelError": "errors",
    "REDEAL": "game.game",
    "Game": "game.game",
    "IllegalMove": "game.game",
    "Move": "game.game",
    "Outcome": "game.game",
    "PositionError": "game.game",
    "Redeal": "game.game",
    "Step": "game.game",
    "Grade": "search.grading",
    "grade": "search.grading",
    "GameLog": "game.log",
    "Limits": "game.log",
    "LogFormatError": "game.log",
    "load": "game.log",
    "Puzzle": "puzzles",
    "PuzzleSetError": "puzzles",
    "PRESETS": "game.rules",
    "Rules": "game.rules",
    "SolveReport": "search.solver",
    "SolveResult": "search.solver",
    "solve": "search.solver",
    "ErrorInfo": "game.traversal",
    "Played": "game.traversal",
    "Visitor": "game.traversal",
    "play": "game.traversal",
    "VerifyReport": "game.verify",
    "verify_bytes": "game.verify",
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
