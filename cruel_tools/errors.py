"""The one base of every error ``cruel_tools`` raises on bad input.

Like python-chess's ``IllegalMoveError``, every such error is a :class:`ValueError` (bad input is
a bad value) and carries a stable, documented ``code``, so a caller can catch them all with one
``except CruelError`` and still tell them apart without parsing messages.
"""

from __future__ import annotations

__all__ = ["CruelError"]


class CruelError(ValueError):
    """Input that ``cruel_tools`` refuses. ``code`` is a stable string (docs list every one).

    Subclasses set ``code`` as a class attribute, or per instance where one class covers several
    codes (:class:`cruel_tools.log.LogFormatError`).
    """

    code: str = "cruel-error"
