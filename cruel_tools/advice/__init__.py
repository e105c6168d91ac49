"""What a player is told about a game: its analysis and a hint for the next step.

- :mod:`.analysis`: a played game's mistakes, its win against par (a puzzle's, when given), the
  positions where it was lost;
- :mod:`.hints`: the next step that keeps a game winnable.

They sit above :mod:`cruel_tools.puzzles` (an analysis reads a puzzle's par, and checks the log
is that puzzle's game) and play through :mod:`cruel_tools.search`; the service guards them
(no help towards an open puzzle's win, ``service/help_guard.py``).
"""

__all__: list[str] = []
