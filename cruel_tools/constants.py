"""Values the ``cruel`` command's help shows, stated here, where importing them costs nothing.

The CLI builds every command's help at each start; taking these from :mod:`cruel_tools.analysis`
and :mod:`cruel_tools.grading` made every command import the solver and the puzzles first
(issue #22). Those modules re-export them under their own names (``analysis.MAX_STATES``,
``grading.Tier``), which the rest of the code uses.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["ANALYSIS_MAX_STATES", "ANALYSIS_DEEP_STATES", "Tier"]

#: Positions each solve of the analysis may expand (where the win was lost).
ANALYSIS_MAX_STATES: Final = 50_000
#: Positions each fewest-actions search of the analysis may expand with ``deep`` (one per
#: position of the log).
ANALYSIS_DEEP_STATES: Final = 5_000

#: The tiers, easiest first. mypy and pydantic need a Literal written out (mypy cannot read one
#: built from a table at run time), so this repeats the tier column of ``grading.LADDER``; the
#: rows are typed ``Tier`` (mypy refuses a row with another tier) and, below the table, an
#: import-time check refuses a Literal that is not exactly the table's tiers in order.
Tier = Literal["easy", "medium", "hard", "expert"]
