"""The one base of every error ``cruel_tools`` raises on bad input.

Like python-chess's ``IllegalMoveError``, every such error is a :class:`ValueError` (bad input is
a bad value) and carries a stable, documented ``code``, so a caller can catch them all with one
``except CruelError`` and still tell them apart without parsing messages.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = ["CruelError"]


class CruelError(ValueError):
    """Input that ``cruel_tools`` refuses. ``code`` is a stable string (docs list every one).

    Every subclass sets ``code`` on itself, distinct from every other class's (docs/verify.md,
    "Errors of the library", lists them all; tests/test_errors.py finds every subclass). A class
    that covers several codes sets one per instance and lists them all in ``codes``
    (:class:`cruel_tools.log.LogFormatError`); a class that reports another error, and carries
    its code, names the classes it reports in ``reports`` (:class:`cruel_tools.inputs.InvalidLog`).
    """

    code: str = "cruel-error"
    #: Every code an instance may carry, for a class that covers several.
    codes: ClassVar[tuple[str, ...]] = ()
    #: The classes whose errors this one reports, carrying their code.
    reports: ClassVar[tuple[type[CruelError], ...]] = ()
