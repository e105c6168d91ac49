"""Puzzles: graded deals chosen from a seeded stream of deal numbers, their files, the daily set,
and the documents a service shows of them (puzzles/README.md).

The modules, each importing only those above it in this list (and the rest of ``cruel_tools``):

- :mod:`.location`: where the puzzle set is (``--puzzles``, ``CRUEL_PUZZLES``, ``./puzzles``, the
  data folder, the packaged demo set): :func:`resolve_puzzles`, one setting shown at start-up;
- :mod:`.files`: the ``cruel-puzzle/1`` model, reading and writing puzzle files and a set's index,
  a set read once (:class:`PuzzleSet`), :class:`PuzzleSetError`;
- :mod:`.generation`: candidate streams, grading deals, :func:`generate` and :func:`daily`;
- :mod:`.solutions`: a puzzle's par solution as a log, a player's log checked against a puzzle
  (:class:`PuzzleCheck`, the batch verifier's checker for ``cruel verify --puzzle``);
- :mod:`.documents`: the service's documents (public puzzle, solution, a day's puzzles);

Which puzzles a command reads (a folder, or the days a database holds published) is
:mod:`cruel_tools.site.puzzle_sources`: a database is the site's layer, above this one.

Everything public is importable from here: ``from cruel_tools.puzzles import Puzzle``.
"""

from __future__ import annotations

from .documents import (
    DAILY_FORMAT,
    PAST_FORMAT,
    PUBLIC_FORMAT,
    SOLUTION_FORMAT,
    DailyPuzzles,
    PastDays,
    PublicPuzzle,
    PuzzleSolution,
    day_is_open,
    is_open,
    public,
    published_solution,
    solution_from,
    solution_is_public,
)
from .files import (
    INDEX_FORMAT,
    PUZZLE_FORMAT,
    Puzzle,
    PuzzleFacts,
    PuzzleSet,
    PuzzleSetError,
    daily_path,
    find_puzzle,
    index_bytes,
    load_puzzle,
    puzzle_bytes,
    puzzle_files,
    puzzle_from_bytes,
)
from .generation import (
    GENERATOR,
    MAX_CANDIDATES,
    MIN_SECRET_BITS,
    WeakSecret,
    candidates,
    check_secret,
    daily,
    daily_puzzles,
    generate,
    grade_deal,
    key_fingerprint,
    new_secret,
    puzzle_from_grade,
    secret_bits,
    write_days,
    write_new_secret,
)
from .location import (
    ENV_PUZZLES,
    PuzzleLocation,
    PuzzleSource,
    data_folder,
    demo_day,
    packaged_puzzles,
    resolve_puzzles,
)
from .solutions import (
    PuzzleCheck,
    check_against_puzzle,
    entry_log,
    puzzle_solution_log,
    verify_for_puzzle,
    versus,
    versus_par,
)

__all__ = [
    "ENV_PUZZLES",
    "PuzzleLocation",
    "PuzzleSource",
    "data_folder",
    "demo_day",
    "packaged_puzzles",
    "resolve_puzzles",
    "DAILY_FORMAT",
    "PAST_FORMAT",
    "GENERATOR",
    "INDEX_FORMAT",
    "MAX_CANDIDATES",
    "MIN_SECRET_BITS",
    "PUBLIC_FORMAT",
    "PUZZLE_FORMAT",
    "SOLUTION_FORMAT",
    "DailyPuzzles",
    "PastDays",
    "PublicPuzzle",
    "Puzzle",
    "PuzzleCheck",
    "PuzzleFacts",
    "PuzzleSet",
    "PuzzleSetError",
    "PuzzleSolution",
    "WeakSecret",
    "candidates",
    "check_against_puzzle",
    "check_secret",
    "daily",
    "daily_puzzles",
    "daily_path",
    "day_is_open",
    "entry_log",
    "find_puzzle",
    "generate",
    "grade_deal",
    "index_bytes",
    "is_open",
    "key_fingerprint",
    "load_puzzle",
    "new_secret",
    "public",
    "published_solution",
    "puzzle_bytes",
    "puzzle_files",
    "puzzle_from_grade",
    "puzzle_solution_log",
    "secret_bits",
    "solution_from",
    "solution_is_public",
    "verify_for_puzzle",
    "versus",
    "versus_par",
    "write_days",
    "write_new_secret",
    "puzzle_from_bytes",
]
