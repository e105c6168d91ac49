"""Defaults the library uses and the ``cruel`` command's help shows, stated once, here, where
importing them costs nothing.

The CLI builds every command's help at each start; taking these from :mod:`cruel_tools.analysis`
and :mod:`cruel_tools.grading` made every command import the solver and the puzzles first
(issue #22). Those modules re-export them under their own names (``analysis.MAX_STATES``,
``grading.Tier``), which the rest of the code uses. So do ``cruel serve``'s options: the service,
the guard, the stores and the integrity watch take their defaults from here, and the CLI's
options show the same values without importing the web stack (issue #23: one source).
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "ANALYSIS_MAX_STATES",
    "ANALYSIS_NATIVE_MAX_STATES",
    "ANALYSIS_DEEP_STATES",
    "SOLVE_MAX_STATES",
    "HINT_MAX_STATES",
    "Tier",
    "DEFAULT_DB",
    "MAX_BODY",
    "DB_TIMEOUT",
    "CHECK_INTERVAL",
    "KEY_RATE",
    "KEY_BURST",
    "PLAYER_RATE",
    "PLAYER_BURST",
    "HEAD_TIMEOUT",
    "BODY_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_PER_CLIENT",
    "ANALYZE_RATE",
    "ANALYZE_BURST",
    "HINT_RATE",
    "HINT_BURST",
    "MAX_ANALYSES",
    "PUBLISH_AHEAD",
]

#: Positions each solve of the analysis may expand (where the win was lost) on the Python engine,
#: and the fewest-actions search of a won game (and ``POST /v1/analyze``'s solves, at most).
ANALYSIS_MAX_STATES: Final = 50_000
#: Positions each solve of a lost game's analysis may expand by default where the native core
#: plays the profile (issue #25; docs/analysis.md, Budgets): a hundred times faster, so forty
#: times the budget.
ANALYSIS_NATIVE_MAX_STATES: Final = 2_000_000
#: Positions a hint's solve may expand (``cruel hint``, ``POST /v1/hint``; issue #27): chosen so
#: that a hint of a closed published puzzle's position answers in under 200 ms at the p95 with
#: the native core (benchmarks/hint_bench.py, benchmarks/RESULTS.md issue #27).
HINT_MAX_STATES: Final = 100_000
#: Positions each fewest-actions search of the analysis may expand with ``deep`` (one per
#: position of the log).
ANALYSIS_DEEP_STATES: Final = 5_000
#: Positions ``cruel solve`` and grading's solver may expand by default (``--max-states``).
SOLVE_MAX_STATES: Final = 200_000

#: The tiers, easiest first. mypy and pydantic need a Literal written out (mypy cannot read one
#: built from a table at run time), so this repeats the tier column of ``grading.LADDER``; the
#: rows are typed ``Tier`` (mypy refuses a row with another tier) and, below the table, an
#: import-time check refuses a Literal that is not exactly the table's tiers in order.
Tier = Literal["easy", "medium", "hard", "expert"]

# --- the service (cruel serve) and its stores ----------------------------------------------------

#: The store ``cruel serve`` and ``cruel keys`` use without ``--db``: an SQLite file here.
DEFAULT_DB: Final = "cruel.sqlite"
#: Largest request body, in bytes (``--max-body``; the log limit of ``cruel verify`` too).
MAX_BODY: Final = 1 << 20
#: Seconds a write waits for a database locked by another process (then 503 busy).
DB_TIMEOUT: Final = 10.0
#: Seconds between two ``quick_check`` runs of a running server (``--check-interval``).
CHECK_INTERVAL: Final = 60.0
#: Submissions a second each API key may send, and at once (``--rate-key``, ``--burst-key``).
KEY_RATE: Final = 10.0
KEY_BURST: Final = 50
#: Submissions a second each player name may get from all keys, and at once
#: (``--rate-player``, ``--burst-player``).
PLAYER_RATE: Final = 1.0
PLAYER_BURST: Final = 5
#: Seconds a request's line and headers may take, and its body after them (``--head-timeout``,
#: ``--body-timeout``).
HEAD_TIMEOUT: Final = 10.0
BODY_TIMEOUT: Final = 20.0
#: Open connections before 503s, and from one client address before 429s
#: (``--max-connections``, ``--max-per-client``).
MAX_CONNECTIONS: Final = 256
MAX_PER_CLIENT: Final = 32
#: ``POST /v1/analyze``, the costly route (issue #24): analyses a second from each client address
#: and each API key, and at once (``--analyze-rate``, ``--analyze-burst``); analyses running at
#: once in one server process, more answered 503 busy (``--max-analyses``).
ANALYZE_RATE: Final = 0.1
ANALYZE_BURST: Final = 10
#: ``POST /v1/hint`` (issue #27): hints a second from each client address and each API key, and
#: at once (``--hint-rate``, ``--hint-burst``). Looser than analyses: a player in practice may ask
#: at every step (a win is 50-90 of them; a hint's budget is a twentieth of an analysis'), and
#: hints share the analyses' cap and process (``--max-analyses``).
HINT_RATE: Final = 0.5
HINT_BURST: Final = 30
MAX_ANALYSES: Final = 1
#: Days after today ``cruel serve`` keeps published (``--ahead``; docs/service.md, Publishing
#: ahead).
PUBLISH_AHEAD: Final = 7
