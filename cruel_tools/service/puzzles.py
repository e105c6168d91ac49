"""The routes of puzzles: a day's set, past days, one puzzle, its solution once public, and an
entry's game once the puzzle is closed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, Final

import orjson
from fastapi import APIRouter, Depends, Query
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..api import ErrorResponse
from ..dates import BadDate, parse_date
from ..game.log import GameLog
from ..puzzles import (
    DailyPuzzles,
    PastDays,
    PublicPuzzle,
    Puzzle,
    PuzzleSolution,
    day_is_open,
    entry_log,
    public,
    published_solution,
    solution_from,
    solution_is_public,
)
from ..search.grading import Tier
from ..site.database import StoreError, database_errors
from ..site.publishing import Publisher
from .context import NOT_OPEN, Context
from .deps import Ctx, publisher
from .errors import ApiError, json_response
from .params import PuzzleId

__all__ = [
    "MAX_PAST_DAYS",
    "PUBLISHING_TODAY",
    "router",
    "Ahead",
    "coming",
    "rated",
    "daily",
    "past",
    "get_puzzle",
    "get_solution",
    "entry_game",
]

#: What a store out of reach raises (the puzzles are then served unrated).
_UNREACHABLE: Final[tuple[type[Exception], ...]] = (StoreError, *database_errors())

#: The most days ``GET /v1/puzzles/past`` lists at once.
MAX_PAST_DAYS: Final = 31

#: The code of a 503 for today's puzzles while they are being published.
PUBLISHING_TODAY: Final = "publishing-today"
#: Retry-After (seconds) of today's puzzles after a failed try: the publisher's next tries come
#: after a growing wait (publishing.py), so no estimate is honest.
_RETRY: Final = 60


#: The routes under ``/v1/puzzles`` that read puzzles (not those that write games).
router = APIRouter(prefix="/v1/puzzles")


#: The days published ahead (:func:`~.deps.publisher`): today's puzzles on their way are a 503,
#: not an empty day.
Ahead = Annotated[Publisher | None, Depends(publisher)]


def coming(day: dt.date, today: dt.date, ahead: Publisher | None) -> ApiError | None:
    """503 ``publishing-today`` when ``day`` is today and its puzzles are being published by
    ``ahead``: a first start of a site, or a new day still being made (docs/service.md,
    Publishing ahead); after a failed try, the same code: the server tries again."""
    status = None if ahead is None or day != today else ahead.status()
    if status is None or status.today_ready or status.stream == "none":
        return None
    seconds = status.today_seconds()
    if seconds is None:  # the last try failed (health says why)
        message, seconds = "today's puzzles are not published yet: trying again", _RETRY
    else:
        message = f"today's puzzles are being published (about {seconds} s)"
    return ApiError(503, PUBLISHING_TODAY, message, "path", "date", {"Retry-After": str(seconds)})


def rated(ctx: Context, puzzles: list[Puzzle]) -> list[PublicPuzzle]:
    """The puzzles as the public sees them, each with its rating from play (one read). The
    puzzles come from files: with the store out of reach they are still served, unrated."""
    try:
        standings = ctx.stores.ratings.of("puzzle", [p.id for p in puzzles])
    except _UNREACHABLE:  # the routes that write games say 503
        standings = {}
    shown = {pid: s.shown() for pid, s in standings.items()}
    today = ctx.settings.today()  # an open puzzle's metrics are left out (finding 8, #33)
    return [public(p, today, shown.get(p.id)) for p in puzzles]


@router.get(
    "/daily/{date}",
    response_model=DailyPuzzles,
    responses={
        503: {
            "model": ErrorResponse,
            "description": "Today's puzzles are being published (publishing-today; with "
            "Retry-After, the estimate in whole seconds); or the database stayed locked too "
            "long (busy), cannot be used (store-unavailable), or its disk is full (disk-full)",
        }
    },
)
async def daily(
    ctx: Ctx,
    ahead: Ahead,
    date: Annotated[
        str,
        PathParam(
            description="YYYY-MM-DD, or today (server time).",
            # Documents what _parse_day accepts (it checks, so that the error is bad-date).
            json_schema_extra={"anyOf": [{"format": "date"}, {"const": "today"}]},
        ),
    ],
    tier: Annotated[Tier | None, Query(description="Only this tier's puzzle.")] = None,
) -> Response:
    """One day's puzzles, without their solutions: none before the day begins (404
    ``puzzle-not-open``, whether or not it has puzzles)."""
    today = ctx.settings.today()
    day = _parse_day(date, lambda: today)
    if not day_is_open(day, today):
        raise ApiError(
            404, NOT_OPEN, f"the puzzles of {day.isoformat()} are not open yet", "path", "date"
        )
    found = ctx.puzzles.on(day, tier)
    if not found and (later := coming(day, today, ahead)) is not None:
        raise later
    if not found:
        which = f"{tier} puzzle" if tier else "puzzles"
        raise ApiError(404, "no-puzzles", f"no {which} for {day.isoformat()}", "path", "date")
    shown = await run_in_threadpool(rated, ctx, found)
    return json_response(DailyPuzzles(date=day, puzzles=shown))


@router.get("/past", response_model=PastDays)
async def past(
    ctx: Ctx,
    before: Annotated[
        str,
        Query(
            description="YYYY-MM-DD, or today (server time): list days before it.",
            json_schema_extra={"anyOf": [{"format": "date"}, {"const": "today"}]},
        ),
    ] = "today",
    limit: Annotated[int, Query(ge=1, le=MAX_PAST_DAYS, description="Days at most.")] = 7,
) -> Response:
    """The latest days with puzzles before a date, latest first, each with its puzzles
    (without solutions): what the front page lists as past days. Only open days are listed,
    so a ``before`` in the future lists no day that is not open yet; an empty list is an
    answer, not an error."""
    today = ctx.settings.today()
    day = _parse_day(before, lambda: today, "query", "before")
    if day > today:  # no day after today is open: list from today on down
        day = today + dt.timedelta(days=1)
    listed = {d: ctx.puzzles.on(d) for d in ctx.puzzles.days_before(day, limit)}
    shown = await run_in_threadpool(rated, ctx, [p for ps in listed.values() for p in ps])
    by_id = {p.id: p for p in shown}
    days = [DailyPuzzles(date=d, puzzles=[by_id[p.id] for p in ps]) for d, ps in listed.items()]
    return json_response(PastDays(before=day, days=days))


@router.get("/{id}", response_model=PublicPuzzle)
async def get_puzzle(ctx: Ctx, id: PuzzleId) -> Response:
    """One puzzle, without its solution, with its rating from play once enough live
    attempts have rated it (docs/service.md, Ratings)."""
    puzzle = ctx.puzzle_or_404(id)
    return json_response((await run_in_threadpool(rated, ctx, [puzzle]))[0])


@router.get(
    "/{id}/solution",
    response_model=PuzzleSolution,
    responses={403: {"model": ErrorResponse, "description": "Not public yet"}},
)
async def get_solution(ctx: Ctx, id: PuzzleId) -> Response:
    """The par solution, as a game log: only once the puzzle's date is past (server time)."""
    puzzle = ctx.puzzle_or_404(id)
    if not solution_is_public(puzzle, ctx.settings.today()):
        public_from = solution_from(puzzle)
        when = f"published on {public_from}" if public_from else "never published (no date)"
        raise ApiError(
            403,
            "solution-not-public",
            f"the solution of {puzzle.id} is {when}",
            "path",
            "id",
        )
    return json_response(published_solution(puzzle))


@router.get(
    "/{id}/submissions/{submission_id}/log",
    response_model=GameLog,
    responses={403: {"model": ErrorResponse, "description": "The puzzle is still open"}},
)
async def entry_game(
    ctx: Ctx,
    id: PuzzleId,
    submission_id: Annotated[int, PathParam(ge=1, le=2**62, description="From an entry.")],
) -> Response:
    """A leaderboard entry's game, as a ``cruel-log/1`` log (the player in ``meta``): only
    once the puzzle is closed (its solution public), so that no one can copy a win while
    the puzzle still takes entries. A hidden entry is not found."""
    puzzle = ctx.puzzle_or_404(id)
    if not solution_is_public(puzzle, ctx.settings.today()):
        raise ApiError(
            403,
            "puzzle-not-closed",
            f"the games of {puzzle.id} are shown once it closes ({solution_from(puzzle)})",
            "path",
            "id",
        )
    found = await run_in_threadpool(ctx.stores.boards.entry_moves, puzzle.id, submission_id)
    if found is None:
        raise ApiError(
            404,
            "unknown-submission",
            f"{puzzle.id} has no listed entry {submission_id}",
            "path",
            "submission_id",
        )
    player, moves = found
    return Response(orjson.dumps(entry_log(puzzle, moves, player)), media_type="application/json")


def _parse_day(
    text: str, today: Callable[[], dt.date], location: str = "path", name: str = "date"
) -> dt.date:
    """``today`` or a day as :func:`cruel_tools.dates.parse_date` reads it (and words its error,
    as the command line does)."""
    if text == "today":
        return today()
    try:
        return parse_date(text)
    except BadDate as exc:
        raise ApiError(422, exc.code, str(exc), location, name) from None
