"""A site's state: every module that runs SQL, and the library calls the service makes of them.

- the database: :mod:`.database` (one store interface, SQLite and PostgreSQL), :mod:`.tables`
  (the layout: every table, migrations, the score order), :mod:`.stores` (``open_stores``),
  :mod:`.statefile`, :mod:`.integrity`;
- players: :mod:`.names` (names that cannot look alike), :mod:`.registry`, :mod:`.players`;
- play: :mod:`.judging` (a submission judged, no database), :mod:`.submissions` (the submission
  flow), :mod:`.attempts` and :mod:`.live` (live attempts), :mod:`.leaderboard`, :mod:`.records`,
  :mod:`.ratings`;
- the operator: :mod:`.keys` (API keys, rate limits), :mod:`.moderation`, :mod:`.publishing`
  (days published ahead), :mod:`.embargo` (no help towards an open puzzle's win).

No web stack here: :mod:`cruel_tools.service` reads HTTP and calls these.
"""

__all__: list[str] = []
