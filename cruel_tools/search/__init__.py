"""Searches over the game: the exact solver, the fewest-actions search and grading.

- :mod:`.solver` (won / unwinnable / unknown), :mod:`.optimal` (par: the fewest actions),
  :mod:`.grading` (the ladder, tiers and metrics).

They play through :mod:`cruel_tools.game` and check no rule themselves. What a player is told
about a game (analysis, hints) is :mod:`cruel_tools.advice`, a layer above the puzzles.
"""

__all__: list[str] = []
