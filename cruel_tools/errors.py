"""The one base of every error ``cruel_tools`` raises on bad input.

Like python-chess's ``IllegalMoveError``, every such error is a :class:`ValueError` (bad input is
a bad value) and carries a stable, documented ``code``, so a caller can catch them all with one
``except CruelError`` and still tell them apart without parsing messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from .spec import SPEC

__all__ = [
    "CruelError",
    "EXIT_INPUT",
    "LOG",
    "DEAL_OR_LOG",
    "ProblemRow",
    "INPUT_PROBLEMS",
    "Problem",
    "problem",
]


class CruelError(ValueError):
    """Input that ``cruel_tools`` refuses. ``code`` is a stable string (docs list every one).

    Every subclass sets ``code`` on itself, distinct from every other class's (docs/verify.md,
    "Errors of the library", lists them all; tests/test_errors.py finds every subclass). A class
    that covers several codes sets one per instance and lists them all in ``codes``
    (:class:`cruel_tools.game.log.LogFormatError`); a class that reports another error, and carries
    its code, names the classes it reports in ``reports``
    (:class:`cruel_tools.game.inputs.InvalidLog`).
    """

    code: str = "cruel-error"
    #: Every code an instance may carry, for a class that covers several.
    codes: ClassVar[tuple[str, ...]] = ()
    #: The classes whose errors this one reports, carrying their code.
    reports: ClassVar[tuple[type[CruelError], ...]] = ()


# --- the input problems of the `cruel` commands -------------------------------------------------

#: The exit status of an input that cannot be used, and of a wrong command line (docs/cli.md).
EXIT_INPUT: Final = 2
#: What a command that reads logs wants (``{wanted}``), and one that reads a deal (show, solve,
#: grade: a deal, or a log whose deal it takes).
LOG: Final = "a game log"
DEAL_OR_LOG: Final = "a deal or a game log"


@dataclass(frozen=True)
class ProblemRow:
    """A row of the table of input problems (docs/cli.md, "Input problems"): the problem, its
    code, its message (a template: ``{name}``, ``{detail}``, ``{wanted}``, ``{command}``) and
    its exit status. A problem of an input is printed as a log's report line, in the verifier's
    words (``report``); a problem of the command line as an ``error:`` line."""

    problem: str
    code: str
    message: str
    exit: int = EXIT_INPUT
    report: bool = True

    @property
    def wording(self) -> str:
        """The whole line, as the table in docs/cli.md writes it."""
        if self.report:
            return f"{{name}}: unreadable: {self.message} [{self.code}]"
        return f"error: {self.message}"


#: Every input problem, each with its one wording and exit status in every command: the spec's
#: (cruel_tools/spec/errors.json, "input").
INPUT_PROBLEMS: Final[tuple[ProblemRow, ...]] = tuple(
    ProblemRow(
        row["problem"],
        row["code"],
        row["message"],
        row.get("exit", EXIT_INPUT),
        row.get("report", True),
    )
    for row in SPEC.errors["input"]
)
_ROWS: Final = {row.code: row for row in INPUT_PROBLEMS}


@dataclass(frozen=True)
class Problem:
    """An input problem as a command says it: ``message`` (a report's ``error.message``),
    ``line`` (the whole line printed) and ``exit`` (the command's exit status)."""

    code: str
    message: str
    line: str
    exit: int


def problem(
    code: str,
    name: str = "",
    detail: str = "",
    wanted: str = LOG,
    command: str = "cruel",
    close: Sequence[str] = (),
) -> Problem:
    """The one wording and exit status of an input problem (a code of :data:`INPUT_PROBLEMS`),
    for every command: ``name`` the input as the command names it (a path, ``-``, ``FILE:LINE``;
    an option as typed), ``detail`` the system's or the parser's words, ``wanted`` :data:`LOG` or
    :data:`DEAL_OR_LOG`, ``command`` the command (``cruel verify``), ``close`` the options whose
    spelling is close to an unknown one (a "did you mean" then follows it)."""
    row = _ROWS[code]
    if close:
        detail = f", did you mean {' or '.join(close)}?"
    fields = {"name": name, "detail": detail, "wanted": wanted, "command": command}
    return Problem(code, row.message.format(**fields), row.wording.format(**fields), row.exit)
