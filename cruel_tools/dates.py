"""Dates as every part of ``cruel_tools`` reads them: exactly ``YYYY-MM-DD``.

One parser for the command line (``--today``, ``--start``) and the service (``/daily/{date}``),
so that both take and refuse the same texts with the same words.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from .errors import CruelError

__all__ = ["BadDate", "parse_date"]

#: ASCII digits only (``re`` with a str pattern would take any Unicode digit for ``\d``).
_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class BadDate(CruelError):
    """Text that is not a day written ``YYYY-MM-DD``."""

    code = "bad-date"


def parse_date(text: str) -> dt.date:
    """The day ``text`` names, written exactly ``YYYY-MM-DD`` (``2027-01-05``).

    :func:`datetime.date.fromisoformat` alone also takes ``20270105`` and week dates such as
    ``2027-W01-1`` (Python 3.11 and later); those are refused here, as are ``2027-1-5`` and days
    that do not exist (``2027-02-30``).

    :raises BadDate: with a one-line message quoting (the start of) ``text``.
    """
    if _DATE.fullmatch(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:  # 2027-02-30, 2027-13-01, 0000-01-01
            pass
    raise BadDate(f"not a date: {text[:40]!r} (use YYYY-MM-DD, like 2027-01-31)")
