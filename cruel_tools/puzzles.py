"""Puzzles: graded deals chosen from a seeded stream of deal numbers, and the daily set.

A puzzle is a deal the solver wins, with its tier, par and par solution (``cruel_tools.grading``).
Choosing is deterministic: a string seed gives a stream of deal numbers (:func:`candidates`), and a
tier's puzzles are the first deals of the stream with that tier. The daily set (puzzles/README.md)
uses the seed ``daily-<date>`` and gives each date one puzzle of each tier.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import islice
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

import orjson
from pydantic import BaseModel, Field

from . import cards, deals
from .documents import document_config
from .game import Game
from .grading import (
    GRADER_VERSION,
    TIERS,
    Budget,
    Classified,
    Grade,
    Metrics,
    Par,
    Tier,
    classify,
    grade,
)
from .log import GameLog, LogEntry
from .rules import DEFAULT, Rules
from .solver import DealInfo
from .verify import ErrorInfo, Source, VerifyReport, verify

PUZZLE_FORMAT: Final = "cruel-puzzle/1"
INDEX_FORMAT: Final = "cruel-puzzle-index/1"
GENERATOR: Final = f"cruel-tools {GRADER_VERSION}"
#: Most candidates graded for one day before its missing tiers are given up.
MAX_CANDIDATES: Final = 1000
_JSON_OPTIONS: Final = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
T = TypeVar("T")
U = TypeVar("U")


class PuzzleFacts(BaseModel):
    """What a puzzle is, for anyone to see: everything but its solution."""

    id: str = Field(description='e.g. "2027-01-05-hard" (daily) or "<seed>-hard-1" (generate).')
    date: dt.date | None = Field(description="The day of a daily puzzle; null otherwise.")
    tier: Tier
    rules: Rules
    deal: DealInfo
    par: Par = Field(description="The shortest solution found: card moves and redeals.")
    metrics: Metrics
    generator: str = Field(description='What made it, e.g. "cruel-tools 1" (grader version).')


class Puzzle(PuzzleFacts):
    """One published puzzle: a graded deal with its par solution."""

    model_config = document_config("Cruel puzzle v1", "puzzle")

    format: Literal["cruel-puzzle/1"] = PUZZLE_FORMAT
    solution: list[LogEntry] = Field(description="The par solution as cruel-log/1 moves.")


# --- choosing deals ------------------------------------------------------------------------------


def candidates(seed: str) -> Iterator[int]:
    """Deal numbers from a string seed, no repeats: mulberry32 seeded with the seed's CRC-32."""
    seen: set[int] = set()
    for number in deals.mulberry32(zlib.crc32(seed.encode("utf-8"))):
        if number not in seen:
            seen.add(number)
            yield number


def _classified(number: int, rules: Rules, budget: Budget) -> Classified:
    return classify(Game.from_deal(deals.deal_piles(number), rules), budget)


def grade_deal(
    number: int,
    rules: Rules = DEFAULT,
    budget: Budget = Budget(),
    found: Classified | None = None,
) -> Grade:
    return grade(deals.deal_piles(number), number, rules, budget, found)


def _grade_chosen(item: tuple[int, Classified], rules: Rules, budget: Budget) -> Grade:
    return grade_deal(item[0], rules, budget, item[1])


def puzzle_from_grade(
    graded: Grade, date: dt.date | None, tier: Tier | None = None, puzzle_id: str | None = None
) -> Puzzle:
    """The puzzle of a won grade; ``id`` defaults to ``<date>-<tier>``."""
    tier = tier or graded.tier
    if tier is None or graded.tier != tier or graded.metrics is None or graded.solution is None:
        raise ValueError(f"deal {graded.deal.number} is not a won {tier} deal")
    if puzzle_id is None:
        if date is None:
            raise ValueError("a puzzle without a date needs an id")
        puzzle_id = f"{date.isoformat()}-{tier}"
    return Puzzle(
        id=puzzle_id,
        date=date,
        tier=tier,
        rules=graded.rules,
        deal=graded.deal,
        par=graded.metrics.par,
        solution=graded.solution,
        metrics=graded.metrics,
        generator=GENERATOR,
    )


class _Workers:
    """``map`` in order, in this process (jobs 1) or in a pool of ``jobs`` processes."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(jobs, 1)
        self.pool: Pool | None = None
        if self.jobs > 1:
            context = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
            self.pool = context.Pool(self.jobs)

    def map(self, fn: Callable[[U], T], items: Iterable[U]) -> Iterator[T]:
        """Results in input order, computed in chunks of ``2 * jobs`` (input may be endless)."""
        it = iter(items)
        while chunk := list(islice(it, 2 * self.jobs)):
            if self.pool is None:
                yield from map(fn, chunk)
            else:
                yield from self.pool.imap(fn, chunk)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()


def generate(
    tier: Tier,
    count: int,
    seed: str,
    rules: Rules = DEFAULT,
    jobs: int = 1,
    exclude: Iterable[int] = (),
    budget: Budget = Budget(),
    max_candidates: int | None = None,
) -> list[Puzzle]:
    """The first ``count`` deals of tier ``tier`` in the stream of ``seed`` (skipping
    ``exclude``), as puzzles ``<seed>-<tier>-1``, ``-2``... The same arguments give the same
    puzzles whatever ``jobs`` is. Fewer come back if ``max_candidates`` runs out first."""
    skip = set(exclude)
    stream: Iterator[int] = (n for n in candidates(seed) if n not in skip)
    if max_candidates is not None:
        stream = islice(stream, max_candidates)
    workers = _Workers(jobs)
    try:
        chosen: list[tuple[int, Classified]] = []
        if count > 0:
            for number, found in _tiers(stream, workers, rules, budget):
                if found.tier == tier:
                    chosen.append((number, found))
                    if len(chosen) == count:
                        break
        grades = list(workers.map(partial(_grade_chosen, rules=rules, budget=budget), chosen))
    finally:
        workers.close()
    return [puzzle_from_grade(g, None, tier, f"{seed}-{tier}-{k}") for k, g in enumerate(grades, 1)]


def _tiers(
    numbers: Iterable[int], workers: _Workers, rules: Rules, budget: Budget
) -> Iterator[tuple[int, Classified]]:
    """``(number, classification)`` for each number, in order."""
    return workers.map(partial(_number_and_tier, rules=rules, budget=budget), numbers)


def _number_and_tier(number: int, rules: Rules, budget: Budget) -> tuple[int, Classified]:
    return number, _classified(number, rules, budget)


# --- the daily set -------------------------------------------------------------------------------


def puzzle_bytes(puzzle: Puzzle) -> bytes:
    """A puzzle file's exact bytes (sorted keys, 2-space indent, final newline)."""
    return orjson.dumps(puzzle.model_dump(mode="json"), option=_JSON_OPTIONS) + b"\n"


def daily_path(out: Path, date: dt.date, tier: Tier) -> Path:
    return out / f"{date.year:04d}" / f"{date.isoformat()}-{tier}.json"


def load_puzzle(path: Path) -> Puzzle:
    """Read a puzzle file (raises ``OSError`` or pydantic's ``ValidationError``)."""
    return Puzzle.model_validate_json(path.read_bytes())


def puzzle_files(puzzles_dir: Path) -> list[Path]:
    """Every puzzle file of a set: ``<YYYY>/*.json``, sorted."""
    return sorted(p for p in puzzles_dir.glob("[0-9][0-9][0-9][0-9]/*.json") if p.is_file())


def find_puzzle(puzzles_dir: Path, puzzle_id: str) -> Puzzle:
    """The puzzle ``puzzle_id`` of a set; ``KeyError`` if it has none, :class:`PuzzleSetError`
    if the set cannot be read."""
    for path in puzzle_files(puzzles_dir):
        if path.stem == puzzle_id:
            puzzle = load_puzzle(path)
            if puzzle.id == puzzle_id:
                return puzzle
    found = PuzzleSet.load(puzzles_dir).get(puzzle_id)  # a file named otherwise: read them all
    if found is None:
        raise KeyError(f"no puzzle {puzzle_id!r} in {puzzles_dir}")
    return found


def index_bytes(out: Path) -> bytes:
    """``index.json`` for every puzzle file under ``out``, sorted by id."""
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
    doc = {"format": INDEX_FORMAT, "puzzles": entries}
    return orjson.dumps(doc, option=_JSON_OPTIONS) + b"\n"


def _write_if_changed(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def daily(
    start: dt.date,
    days: int,
    out: Path,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    budget: Budget = Budget(),
    max_candidates: int = MAX_CANDIDATES,
) -> list[Path]:
    """Write the daily puzzles of ``days`` days from ``start`` into ``out``, and its index.

    Each day takes, for each tier, the first deal of the stream ``daily-<date>`` with that tier
    that no puzzle of an *earlier* date uses (the puzzles in ``out`` dated before ``start``, and
    this run's earlier days). Later dates are never looked at, so rerunning a range rewrites the
    same bytes. A tier not found within ``max_candidates`` deals is left out that day.
    Returns the puzzle files written, then the index.
    """
    used = {
        p.deal.number
        for p in map(load_puzzle, puzzle_files(out))
        if p.date is not None and p.date < start and p.deal.number is not None
    }
    written: list[Path] = []
    workers = _Workers(jobs)
    try:
        for k in range(days):
            date = start + dt.timedelta(days=k)
            open_tiers = set(TIERS)
            chosen: dict[Tier, int] = {}
            stream = islice(
                (n for n in candidates(f"daily-{date.isoformat()}") if n not in used),
                max_candidates,
            )
            found_of: dict[int, Classified] = {}
            for number, found in _tiers(stream, workers, DEFAULT, budget):
                tier = found.tier
                if tier in open_tiers:
                    assert tier is not None
                    open_tiers.discard(tier)
                    chosen[tier] = number
                    found_of[number] = found
                    if not open_tiers:
                        break
            order = [t for t in TIERS if t in chosen]
            grader = partial(_grade_chosen, rules=DEFAULT, budget=budget)
            picks = [(chosen[t], found_of[chosen[t]]) for t in order]
            grades = list(workers.map(grader, picks))
            for tier, graded in zip(order, grades, strict=True):
                path = daily_path(out, date, tier)
                _write_if_changed(path, puzzle_bytes(puzzle_from_grade(graded, date, tier)))
                written.append(path)
            for tier in TIERS:
                stale = daily_path(out, date, tier)
                if tier not in chosen and stale.exists():
                    stale.unlink()
            used.update(chosen.values())
            if progress is not None:
                progress(k)
    finally:
        workers.close()
    index = out / "index.json"
    _write_if_changed(index, index_bytes(out))
    written.append(index)
    return written


# --- players' logs against a puzzle --------------------------------------------------------------


def solution_log(puzzle: Puzzle) -> dict[str, Any]:
    """The puzzle's par solution as a ``cruel-log/1`` document."""
    deal: dict[str, Any] = (
        {"number": puzzle.deal.number}
        if puzzle.deal.number is not None
        else {"piles": puzzle.deal.piles}
    )
    return {
        "format": "cruel-log/1",
        "rules": puzzle.rules.model_dump(),
        "deal": deal,
        "moves": list(puzzle.solution),
    }


def check_against_puzzle(log: GameLog, puzzle: Puzzle) -> list[str]:
    """What makes ``log`` a game of something else than ``puzzle`` (empty: it is the puzzle's).

    A log whose deal is not a deal at all passes here: the verifier reports it.
    """
    problems: list[str] = []
    try:
        piles = deals.resolve_deal(log.deal.number, log.deal.piles)
    except deals.BadDeal:
        piles = None
    if piles is not None and [[cards.name(c) for c in p] for p in piles] != puzzle.deal.piles:
        shown = f"deal {log.deal.number}" if log.deal.number is not None else "a deal by piles"
        problems.append(f"the log plays {shown}, not the deal of puzzle {puzzle.id}")
    rules = log.resolved_rules()
    if rules != puzzle.rules:
        problems.append(
            f"the log's rules ({rules.preset}) are not those of puzzle {puzzle.id} "
            f"({puzzle.rules.preset})"
        )
    return problems


def verify_for_puzzle(log: GameLog, puzzle: Puzzle, source: Source | None = None) -> VerifyReport:
    """Verify ``log`` as a game of ``puzzle``: another deal or rules is ``puzzle-mismatch``."""
    problems = check_against_puzzle(log, puzzle)
    if not problems:
        return verify(log, source)
    error = ErrorInfo(index=None, path="/deal", code="puzzle-mismatch", message="; ".join(problems))
    return VerifyReport(
        source=source,
        status="invalid",
        valid=False,
        rules=log.resolved_rules(),
        deal_number=log.deal.number,
        error=error,
    )


def versus_par(report: VerifyReport, puzzle: Puzzle) -> str:
    """``par 64 moves 5 redeals; you: 70 moves 6 redeals``."""
    return (
        f"par {puzzle.par.moves} moves {puzzle.par.redeals} redeals; "
        f"you: {report.moves or 0} moves {report.redeals or 0} redeals"
    )


# --- a published set, as a service shows it ------------------------------------------------------

PUBLIC_FORMAT: Final = "cruel-puzzle-public/1"
SOLUTION_FORMAT: Final = "cruel-solution/1"
DAILY_FORMAT: Final = "cruel-daily/1"


class PublicPuzzle(PuzzleFacts):
    """A puzzle as players may see it before its day is over: everything but the solution."""

    model_config = document_config("Cruel public puzzle v1", "puzzle-public")

    format: Literal["cruel-puzzle-public/1"] = PUBLIC_FORMAT
    solution_from: dt.date | None = Field(
        description="The first day the solution is published (the day after the puzzle's date); "
        "null: never, for a puzzle without a date."
    )


class PuzzleSolution(BaseModel):
    """A puzzle's par solution, published once the puzzle's day is over."""

    model_config = document_config("Cruel puzzle solution v1", "solution")

    format: Literal["cruel-solution/1"] = SOLUTION_FORMAT
    puzzle: str
    date: dt.date | None
    par: Par
    log: GameLog = Field(description="The par solution as a complete cruel-log/1 game log.")


class DailyPuzzles(BaseModel):
    """One day's puzzles, easiest tier first."""

    model_config = document_config("Cruel daily puzzles v1", "daily")

    format: Literal["cruel-daily/1"] = DAILY_FORMAT
    date: dt.date
    puzzles: list[PublicPuzzle]


def solution_from(puzzle: Puzzle) -> dt.date | None:
    """The day a puzzle's solution becomes public: the day after its date (never if undated)."""
    return None if puzzle.date is None else puzzle.date + dt.timedelta(days=1)


def solution_is_public(puzzle: Puzzle, today: dt.date) -> bool:
    """Whether the solution is public ``today``; from then on the puzzle also takes no more
    leaderboard entries (anyone could copy the solution)."""
    public_from = solution_from(puzzle)
    return public_from is not None and today >= public_from


def public(puzzle: Puzzle) -> PublicPuzzle:
    """``puzzle`` without its solution."""
    fields = {name: getattr(puzzle, name) for name in PuzzleFacts.model_fields}
    return PublicPuzzle.model_construct(**fields, solution_from=solution_from(puzzle))


def published_solution(puzzle: Puzzle) -> PuzzleSolution:
    return PuzzleSolution(
        puzzle=puzzle.id,
        date=puzzle.date,
        par=puzzle.par,
        log=GameLog.model_validate(solution_log(puzzle)),
    )


class PuzzleSetError(ValueError):
    """A puzzle folder that cannot be served: an unreadable file, or two puzzles with one id."""


class PuzzleSet:
    """Every puzzle of a folder (``<YYYY>/*.json``), read once, found by id or by date.

    Only files inside the folder are read (a symbolic link leading out of it is refused), and
    only when the set is loaded: nothing asked of the set later touches the file system.
    """

    def __init__(self, puzzles: list[Puzzle]) -> None:
        self.by_id: dict[str, Puzzle] = {}
        self.by_date: dict[dt.date, list[Puzzle]] = {}
        for p in puzzles:
            if p.id in self.by_id:
                raise PuzzleSetError(f"two puzzles have the id {p.id!r}")
            self.by_id[p.id] = p
            if p.date is not None:
                self.by_date.setdefault(p.date, []).append(p)
        for day in self.by_date.values():
            day.sort(key=lambda p: TIERS.index(p.tier))

    @classmethod
    def load(cls, folder: Path) -> PuzzleSet:
        root = folder.resolve()
        if not root.is_dir():
            raise PuzzleSetError(f"{folder}: not a folder of puzzles")
        puzzles = []
        for path in puzzle_files(root):
            if not path.resolve().is_relative_to(root):
                raise PuzzleSetError(f"{path}: leads outside {folder}")
            try:
                puzzles.append(load_puzzle(path))
            except (OSError, ValueError) as exc:
                first = str(exc).splitlines()[0]
                raise PuzzleSetError(f"{path}: not a cruel-puzzle/1 file: {first}") from None
        return cls(puzzles)

    def __len__(self) -> int:
        return len(self.by_id)

    def get(self, puzzle_id: str) -> Puzzle | None:
        return self.by_id.get(puzzle_id)

    def on(self, date: dt.date, tier: Tier | None = None) -> list[Puzzle]:
        """The puzzles of ``date`` (only its ``tier`` one, if given), easiest first."""
        return [p for p in self.by_date.get(date, []) if tier is None or p.tier == tier]
