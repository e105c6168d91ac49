"""Which puzzles a command reads: one lookup for every command (issue #34).

Every command that reads puzzles (``cruel serve``, ``verify --puzzle-id``, ``analyze
--puzzle-id``, ``ratings``) finds its set where ``cruel serve`` does
(:func:`~cruel_tools.puzzles.location.resolve_puzzles`: ``--puzzles``, ``CRUEL_PUZZLES``,
``./puzzles``, the data folder, the packaged demo set). The set is a folder of puzzle files,
or a database (an SQLite file, a ``postgresql://`` URL): then its puzzles are the days ``cruel
serve`` published ahead into it (``published_puzzles``), read in one snapshot and never
written. Either way the command gets a :class:`PuzzleSet` of the same puzzles a folder of the
same days gives, and ``cruel daily --export`` writes a database's days as that folder
(:func:`export_published`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..constants import DB_TIMEOUT
from ..puzzles.files import Puzzle, PuzzleSet, PuzzleSetError, find_puzzle, puzzle_from_bytes
from ..puzzles.generation import write_days
from ..puzzles.location import ENV_PUZZLES, PuzzleSource, resolve_puzzles
from .database import (
    NoSuchDatabase,
    StoreError,
    database_errors,
    describe,
    is_postgres,
    one_line,
    open_database,
)

__all__ = [
    "PUBLIC_STREAM",
    "Published",
    "is_database",
    "locate",
    "read_published",
    "load_set",
    "open_puzzles",
    "find_in",
    "export_published",
]

#: What ``published_puzzles.stream`` says of the public stream (a secret's: its fingerprint).
PUBLIC_STREAM: Final = "public"
#: The first bytes of every SQLite database file.
_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_ROWS: Final = "SELECT day, tier, document, stream FROM published_puzzles ORDER BY day, tier"


def is_database(target: Path | str) -> bool:
    """Whether ``target`` names a database rather than a folder: a ``postgresql://`` URL, or
    a file that begins as SQLite's files do."""
    if is_postgres(str(target)):
        return True
    path = Path(target)
    try:
        if not path.is_file():
            return False
        with path.open("rb") as f:
            return f.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER
    except OSError:
        return False


def locate(
    option: str | None, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> tuple[Path | str, PuzzleSource]:
    """Where a command's puzzles are, and which setting said so: :func:`resolve_puzzles`,
    but a ``postgresql://`` URL given by ``--puzzles`` or ``CRUEL_PUZZLES`` is kept as text
    (a :class:`~pathlib.Path` would fold its ``//``)."""
    env = os.environ if env is None else env
    if option is not None:
        return (option, "--puzzles") if is_postgres(option) else _resolved(Path(option), env, cwd)
    if is_postgres(env.get(ENV_PUZZLES, "")):
        return env[ENV_PUZZLES], "CRUEL_PUZZLES"
    return _resolved(None, env, cwd)


def _resolved(
    option: Path | None, env: Mapping[str, str], cwd: Path | None
) -> tuple[Path | str, PuzzleSource]:
    found = resolve_puzzles(option, env, cwd)
    return found.path, found.source


@dataclass(frozen=True)
class Published:
    """The days published into a database: its puzzles, by day and tier, and the streams
    they were made from (one, unless someone mixed them by hand)."""

    puzzles: list[Puzzle]
    streams: frozenset[str]


def read_published(db: Path | str, timeout: float = DB_TIMEOUT) -> Published:
    """The days published into ``db``, read in one snapshot. Never writes and never makes a
    database: one that is not there is :class:`~cruel_tools.site.database.NoSuchDatabase`, one that
    cannot be read a :class:`~cruel_tools.site.database.StoreError`, a row that is not a puzzle a
    :class:`PuzzleSetError`. A cruel-tools database made before days were published (no
    ``published_puzzles``) has none."""
    name = describe(db)
    try:
        database = open_database(db, timeout, create=False)
    except database_errors() as exc:
        raise StoreError(f"{name}: cannot use as a database: {one_line(exc)}") from None
    try:
        with database.read() as conn:
            if not conn.has_table("published_puzzles"):
                if not conn.has_table("submissions"):  # no table of cruel-tools at all
                    raise NoSuchDatabase(f"{name}: no such database")
                rows = []
            else:
                rows = conn.execute(_ROWS).fetchall()
    except database_errors() as exc:
        raise StoreError(f"{name}: cannot use as a database: {one_line(exc)}") from None
    finally:
        database.close()
    puzzles = [
        puzzle_from_bytes(str(document).encode(), f"{name}: published puzzle {day}-{tier}")
        for day, tier, document, _stream in rows
    ]
    return Published(puzzles, frozenset(str(row[3]) for row in rows))


def load_set(where: Path | str) -> PuzzleSet:
    """The puzzles at ``where`` (:func:`locate`): a database's published days, or a folder's
    files (:meth:`PuzzleSet.load`, which refuses anything else as not a folder of puzzles)."""
    if is_database(where):
        return PuzzleSet(read_published(where).puzzles)
    return PuzzleSet.load(Path(where))


def open_puzzles(option: str | None) -> PuzzleSet:
    """The set a command reads: ``--puzzles`` (``option``), else where ``cruel serve`` finds
    its puzzles."""
    return load_set(locate(option)[0])


def find_in(where: Path | str, puzzle_id: str) -> Puzzle:
    """The puzzle ``puzzle_id`` at ``where``; ``KeyError`` (its message for players) if the
    set has none. A folder's puzzle is found by its file's name, without reading the rest."""
    if not is_database(where):
        return find_puzzle(Path(where), puzzle_id)
    found = load_set(where).get(puzzle_id)
    if found is None:
        raise KeyError(f"no puzzle {puzzle_id!r} in {describe(where)}")
    return found


def export_published(db: Path | str, out: Path) -> list[Path]:
    """Write the days published into ``db`` into the folder ``out``, as ``cruel daily --out``
    writes the same days (:func:`~cruel_tools.puzzles.generation.write_days`): the files,
    then the index (the last path returned). Nothing is written when no day is published;
    days of several streams in one database are refused (``secret-mismatch``)."""
    published = read_published(db)
    if not published.puzzles:
        return []
    if len(published.streams) > 1:
        streams = ", ".join(sorted(published.streams))
        raise PuzzleSetError(
            f"{describe(db)}: its days were published from several streams ({streams}): "
            "they are not one puzzle set",
            "secret-mismatch",
        )
    (stream,) = published.streams
    return write_days(out, published.puzzles, None if stream == PUBLIC_STREAM else stream)
