"""Searches over the game: the exact solver, the fewest-actions search, analysis, hints and grading.

- :mod:`.solver` (won / unwinnable / unknown), :mod:`.optimal` (par: the fewest actions),
  :mod:`.analysis` (a played game's mistakes), :mod:`.hints`, :mod:`.grading` (tiers and metrics).

They play through :mod:`cruel_tools.game` and check no rule themselves.
"""

__all__: list[str] = []
