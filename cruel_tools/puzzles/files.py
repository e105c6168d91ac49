"""Puzzle files: the ``cruel-puzzle/1`` model, a set's files and index, and a set read once.

The layout and the file format are in puzzles/README.md. Everything that reads a puzzle file goes
through :func:`load_puzzle`, so a file that is not a puzzle is always a :class:`PuzzleSetError`.
"""

from __future__ import annotations

import bisect
import datetime as dt
from pathlib import Path
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, Field, ValidationError, field_validator

from ..errors import CruelError
from ..formats import document_config
from ..game.log import LogEntry, LogFormatError, refuse_duplicates
from ..game.rules import PRESETS, PresetName, Rules
from ..search.grading import TIERS, Metrics, Par, Tier
from ..search.solver import DealInfo

__all__ = [
    "PUZZLE_FORMAT",
    "INDEX_FORMAT",
    "PuzzleFacts",
    "Puzzle",
    "PuzzleSetError",
    "puzzle_bytes",
    "daily_path",
    "load_puzzle",
    "puzzle_from_bytes",
    "puzzle_files",
    "index_bytes",
    "PuzzleSet",
    "find_puzzle",
]

PUZZLE_FORMAT: Final = "cruel-puzzle/1"
INDEX_FORMAT: Final = "cruel-puzzle-index/1"
_JSON_OPTIONS: Final = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


class PuzzleFacts(BaseModel):
    """What a puzzle is, for anyone to see: everything but its solution."""

    id: str = Field(description='e.g. "2027-01-05-hard" (daily) or "<seed>-hard-1" (generate).')
    date: dt.date | None = Field(description="The day of a daily puzzle; null otherwise.")
    tier: Tier
    rules: PresetName | Rules = Field(
        description="The preset's name when the rules are a preset (as a cruel-log/1 log names "
        "them), else the whole profile."
    )
    deal: DealInfo
    par: Par = Field(
        description="The fewest actions (card moves + redeals) found for a win, whether that is "
        "proven optimal, and the proven lower bound."
    )
    metrics: Metrics
    generator: str = Field(description='What made it, e.g. "cruel-tools 1" (grader version).')

    @field_validator("rules")
    @classmethod
    def _preset_by_name(cls, rules: PresetName | Rules) -> PresetName | Rules:
        """Rules that are a preset are kept, and so written, as the preset's name: one spelling
        per profile, so that a puzzle read back equals the one written."""
        if isinstance(rules, Rules) and rules == PRESETS[rules.preset]:
            return rules.preset
        return rules

    def resolved_rules(self) -> Rules:
        """The rules profile (a preset's name looked up)."""
        return PRESETS[self.rules] if isinstance(self.rules, str) else self.rules


class Puzzle(PuzzleFacts):
    """One published puzzle: a graded deal with its par solution."""

    model_config = document_config("Cruel puzzle v1", "puzzle")

    format: Literal["cruel-puzzle/1"] = PUZZLE_FORMAT
    solution: list[LogEntry] = Field(description="The par solution as cruel-log/1 moves.")


class PuzzleSetError(CruelError):
    """A puzzle file or folder that cannot be used. ``code`` says why:

    - ``not-a-puzzle``: a file that cannot be read, or is not a ``cruel-puzzle/1`` document;
    - ``duplicate-puzzle-id``: two puzzles of one set with the same id;
    - ``not-a-puzzle-folder``: a set's folder that is not a folder;
    - ``outside-the-set``: a file of a set that leads (by a symbolic link) out of its folder;
    - ``secret-mismatch``: a daily set made with another secret, or with none when one is given
      (or the other way round), or whose ``index.json`` cannot tell (``generation.daily``).

    The message names the file and what is wrong with it.
    """

    code = "not-a-puzzle"
    codes = (
        "not-a-puzzle",
        "duplicate-puzzle-id",
        "not-a-puzzle-folder",
        "outside-the-set",
        "secret-mismatch",
    )

    def __init__(self, message: str, code: str = "not-a-puzzle") -> None:
        super().__init__(message)
        self.code = code


# --- files ---------------------------------------------------------------------------------------


def puzzle_bytes(puzzle: Puzzle) -> bytes:
    """A puzzle file's exact bytes (sorted keys, 2-space indent, final newline)."""
    return orjson.dumps(puzzle.model_dump(mode="json"), option=_JSON_OPTIONS) + b"\n"


def daily_path(out: Path, date: dt.date, tier: Tier) -> Path:
    return out / f"{date.year:04d}" / f"{date.isoformat()}-{tier}.json"


def load_puzzle(path: Path) -> Puzzle:
    """Read a puzzle file: ``OSError`` if it cannot be read, :class:`PuzzleSetError` (never
    pydantic's ``ValidationError``) if it is not a ``cruel-puzzle/1`` document."""
    return puzzle_from_bytes(path.read_bytes(), str(path))


def puzzle_from_bytes(data: bytes, where: str) -> Puzzle:
    """A puzzle file's bytes (from a file, or a database's ``published_puzzles``) as a puzzle;
    :class:`PuzzleSetError` naming ``where`` if they are not a ``cruel-puzzle/1`` document."""
    try:
        refuse_duplicates(data)
    except LogFormatError as exc:
        raise PuzzleSetError(f"{where}: not a cruel-puzzle/1 file: {exc}") from None
    try:
        return Puzzle.model_validate_json(data)
    except ValidationError as exc:
        first = str(exc).splitlines()[0]
        raise PuzzleSetError(f"{where}: not a cruel-puzzle/1 file: {first}") from None


def puzzle_files(puzzles_dir: Path) -> list[Path]:
    """Every puzzle file of a set: ``<YYYY>/*.json``, sorted."""
    return sorted(p for p in puzzles_dir.glob("[0-9][0-9][0-9][0-9]/*.json") if p.is_file())


def index_bytes(out: Path, key_fingerprint: str | None = None) -> bytes:
    """``index.json`` for every puzzle file under ``out``, sorted by id. ``key_fingerprint``
    (that of the secret of a keyed daily stream) is written when given; the public stream's
    index has none."""
    entries: list[dict[str, Any]] = []
    for path in puzzle_files(out):
        p = load_puzzle(path)
        entries.append(
            {
                "id": p.id,
                "date": p.date.isoformat() if p.date else None,
                "tier": p.tier,
                "deal": p.deal.number,
                "par": p.par.model_dump(),
                "file": path.relative_to(out).as_posix(),
            }
        )
    entries.sort(key=lambda e: str(e["id"]))
    doc: dict[str, Any] = {"format": INDEX_FORMAT, "puzzles": entries}
    if key_fingerprint is not None:
        doc["key_fingerprint"] = key_fingerprint
    return orjson.dumps(doc, option=_JSON_OPTIONS) + b"\n"


# --- a set ---------------------------------------------------------------------------------------


def _read_member(path: Path) -> Puzzle:
    """A puzzle file of a set: whatever is wrong with it is a :class:`PuzzleSetError`."""
    try:
        return load_puzzle(path)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise PuzzleSetError(f"{path}: not a cruel-puzzle/1 file: {reason}") from None


class PuzzleSet:
    """Every puzzle of a folder (``<YYYY>/*.json``), read once, found by id or by date.

    Only files inside the folder are read (a symbolic link leading out of it is refused), and
    only when the set is loaded: nothing asked of the set later touches the file system.
    """

    def __init__(self, puzzles: list[Puzzle]) -> None:
        self.by_id: dict[str, Puzzle] = {}
        self.by_date: dict[dt.date, list[Puzzle]] = {}
        self.dates: list[dt.date] = []
        self.add(puzzles)

    def add(self, puzzles: list[Puzzle]) -> None:
        """Take in more puzzles (``cruel serve``'s days published ahead, while it serves): a
        day's list and the dates are replaced whole, so a reader in another thread sees the
        set before or after, never half of it."""
        seen = set(self.by_id)
        for p in puzzles:
            if p.id in seen:
                raise PuzzleSetError(f"two puzzles have the id {p.id!r}", "duplicate-puzzle-id")
            seen.add(p.id)
        for p in puzzles:
            self.by_id[p.id] = p
        for date in {p.date for p in puzzles if p.date is not None}:
            day = self.by_date.get(date, []) + [p for p in puzzles if p.date == date]
            day.sort(key=lambda p: TIERS.index(p.tier))
            self.by_date[date] = day
        self.dates = sorted(self.by_date)  # for days_before: a bisection, not a scan

    @classmethod
    def load(cls, folder: Path) -> PuzzleSet:
        root = folder.resolve()
        if not root.is_dir():
            raise PuzzleSetError(f"{folder}: not a folder of puzzles", "not-a-puzzle-folder")
        puzzles = []
        for path in puzzle_files(root):
            if not path.resolve().is_relative_to(root):
                raise PuzzleSetError(f"{path}: leads outside {folder}", "outside-the-set")
            puzzles.append(_read_member(path))
        return cls(puzzles)

    def __len__(self) -> int:
        return len(self.by_id)

    def get(self, puzzle_id: str) -> Puzzle | None:
        return self.by_id.get(puzzle_id)

    def days_before(self, day: dt.date, limit: int) -> list[dt.date]:
        """The latest ``limit`` dates with puzzles strictly before ``day``, latest first."""
        end = bisect.bisect_left(self.dates, day)
        return self.dates[max(0, end - limit) : end][::-1]

    def on(self, date: dt.date, tier: Tier | None = None) -> list[Puzzle]:
        """The puzzles of ``date`` (only its ``tier`` one, if given), easiest first."""
        return [p for p in self.by_date.get(date, []) if tier is None or p.tier == tier]


def find_puzzle(puzzles_dir: Path, puzzle_id: str) -> Puzzle:
    """The puzzle ``puzzle_id`` of a set; ``KeyError`` if it has none, :class:`PuzzleSetError`
    if the set cannot be read."""
    for path in puzzle_files(puzzles_dir):
        if path.stem == puzzle_id:
            puzzle = _read_member(path)
            if puzzle.id == puzzle_id:
                return puzzle
    found = PuzzleSet.load(puzzles_dir).get(puzzle_id)  # a file named otherwise: read them all
    if found is None:
        raise KeyError(f"no puzzle {puzzle_id!r} in {puzzles_dir}")
    return found
