"""The game: Cruel's rules and everything that reads a log by them, with no database and no web.

- :mod:`.cards` (cards as ints), :mod:`.rules` (the rules profile; its presets are
  :mod:`cruel_tools.spec`'s), :mod:`.game` (**the rules engine**: the one statement of the rules),
  :mod:`.deals` (deal numbers), :mod:`.engine` (the choice of engine: the native core or ``game``);
- :mod:`.log` (the ``cruel-log/1`` format), :mod:`.duplicates`, :mod:`.traversal` (the one
  traversal of a log), :mod:`.verify`, :mod:`.render`, :mod:`.stats`, :mod:`.inputs`.

Each module imports only those listed before it (and the top-level :mod:`cruel_tools.errors`,
:mod:`cruel_tools.constants`): the layer below every other.
"""

__all__: list[str] = []
