"""A published set as the service shows it: public puzzles, solutions once public, a day's set."""

from __future__ import annotations

import datetime as dt
from typing import Final, Literal

from pydantic import BaseModel, Field

from ..formats import PlayRating, document_config
from ..game.log import GameLog
from ..search.grading import Metrics, Par
from .files import Puzzle, PuzzleFacts
from .solutions import puzzle_solution_log

__all__ = [
    "PUBLIC_FORMAT",
    "SOLUTION_FORMAT",
    "DAILY_FORMAT",
    "PAST_FORMAT",
    "PublicPuzzle",
    "PuzzleSolution",
    "DailyPuzzles",
    "PastDays",
    "solution_from",
    "day_is_open",
    "is_open",
    "solution_is_public",
    "public",
    "published_solution",
]

PUBLIC_FORMAT: Final = "cruel-puzzle-public/1"
SOLUTION_FORMAT: Final = "cruel-solution/1"
DAILY_FORMAT: Final = "cruel-daily/1"
PAST_FORMAT: Final = "cruel-past/1"


class PublicPuzzle(PuzzleFacts):
    """A puzzle as players may see it: everything but the solution, and while it is open
    (until its solution is public) nothing of how it was solved either (``metrics`` null)."""

    model_config = document_config("Cruel public puzzle v1", "puzzle-public")

    format: Literal["cruel-puzzle-public/1"] = PUBLIC_FORMAT
    # Null while open (issue #33, finding 8): the ladder's results name a player whose
    # documented rule wins the deal, and critical_decisions counts the traps, so either is a
    # recipe. The tier and par's length stay: they say how hard, not how.
    metrics: Metrics | None = Field(  # type: ignore[assignment]
        description="The grader's metrics (the ladder's results, critical decisions, the "
        "solver's effort, random playouts): null while the puzzle is open, shown once its "
        "solution is public. An undated puzzle never closes, so they are never shown."
    )
    solution_from: dt.date | None = Field(
        description="The first day the solution is published (the day after the puzzle's date); "
        "null: never, for a puzzle without a date."
    )
    rating: PlayRating | None = Field(
        None,
        description="The puzzle's rating from play (docs/service.md, Ratings); null until "
        "enough live attempts have rated it.",
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


class PastDays(BaseModel):
    """Days before a date with their puzzles, latest first (``GET /v1/puzzles/past``)."""

    model_config = document_config("Cruel past days v1", "past")

    format: Literal["cruel-past/1"] = PAST_FORMAT
    before: dt.date = Field(description="Only days strictly before this date are listed.")
    days: list[DailyPuzzles] = Field(description="Days with puzzles, latest first.")


def solution_from(puzzle: Puzzle) -> dt.date | None:
    """The day a puzzle's solution becomes public: the day after its date (never if undated)."""
    return None if puzzle.date is None else puzzle.date + dt.timedelta(days=1)


def day_is_open(day: dt.date, today: dt.date) -> bool:
    """Whether the puzzles dated ``day`` are open ``today``: from the start of their date (in
    the service's time zone, which decides ``today``). Before that, clients see none of them."""
    return day <= today


def is_open(puzzle: Puzzle, today: dt.date) -> bool:
    """Whether clients may see ``puzzle`` ``today`` (:func:`day_is_open`); undated: always."""
    return puzzle.date is None or day_is_open(puzzle.date, today)


def solution_is_public(puzzle: Puzzle, today: dt.date) -> bool:
    """Whether the solution is public ``today``; from then on the puzzle also takes no more
    leaderboard entries (anyone could copy the solution)."""
    public_from = solution_from(puzzle)
    return public_from is not None and today >= public_from


def public(puzzle: Puzzle, today: dt.date, rating: PlayRating | None = None) -> PublicPuzzle:
    """``puzzle`` without its solution, with its ``rating`` from play; its metrics only once
    the puzzle is closed ``today`` (:func:`solution_is_public`)."""
    fields = {name: getattr(puzzle, name) for name in PuzzleFacts.model_fields}
    if not solution_is_public(puzzle, today):
        fields["metrics"] = None
    return PublicPuzzle.model_construct(
        **fields, solution_from=solution_from(puzzle), rating=rating
    )


def published_solution(puzzle: Puzzle) -> PuzzleSolution:
    return PuzzleSolution(
        puzzle=puzzle.id,
        date=puzzle.date,
        par=puzzle.par,
        log=GameLog.model_validate(puzzle_solution_log(puzzle)),
    )
