"""The routes of live attempts (docs/service.md, Live attempts and moderation queue): start one,
send its steps, give up, read it. Each reads and bounds the request and checks who sends it;
the attempt itself is :mod:`cruel_tools.site.live`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final, TypeVar

from fastapi import APIRouter, Depends, Request
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..puzzles import Puzzle
from ..site import live
from ..site.attempts import (
    AttemptFull,
    AttemptOver,
    AttemptState,
    BadStep,
    IllegalStep,
    NoSuchAttempt,
    NothingToUndo,
    NotYourAttempt,
    TooManyAttempts,
    TooManyOpenAttempts,
    parse_attempt,
    parse_steps,
)
from ..site.keys import throttle
from .bodies import parse_off_loop
from .context import Context
from .deps import Arrival, Ctx, arrival, credentials, params_first
from .errors import ApiError, json_response, read_body
from .openapi import BEARER, WRITE_ERRORS, body_doc
from .params import PuzzleId

__all__ = [
    "AttemptId",
    "REFUSALS",
    "owner",
    "Owner",
    "router",
    "start",
    "steps",
    "give_up",
    "read",
]

#: The library's refusals of a step, answered with their own status and code.
REFUSALS: Final = (
    NoSuchAttempt,
    NotYourAttempt,
    AttemptOver,
    AttemptFull,
    NothingToUndo,
    BadStep,
    IllegalStep,
)

AttemptId = Annotated[
    str, PathParam(max_length=64, description="A live attempt's id (from its start).")
]

_T = TypeVar("_T")

_STEP_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    **WRITE_ERRORS,
    403: {**WRITE_ERRORS[403], "description": "Another sender's attempt (not-your-attempt)"},
    404: {**WRITE_ERRORS[401], "description": "No such attempt (no-such-attempt)"},
    409: {
        **WRITE_ERRORS[401],
        "description": "The attempt has ended (attempt-over), or holds the most steps an "
        "attempt may record (attempt-full)",
    },
    422: {
        **WRITE_ERRORS[401],
        "description": "A step the engine refuses (its own code and words, at /steps/k), not a "
        "step (bad-step), or nothing to undo (nothing-to-undo): nothing is kept",
    },
}

#: A start's answers: the name's bounds (docs/service.md, Storage bounds), with Retry-After.
_START_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    **WRITE_ERRORS,
    409: {
        **WRITE_ERRORS[401],
        "description": "The player holds the most open attempts a name may "
        "(too-many-open-attempts; Retry-After: when the oldest expires)",
    },
    429: {
        **WRITE_ERRORS[401],
        "description": "Rate limited (rate-limited), or the player has started the most attempts "
        "a minute or a day allows (too-many-attempts); Retry-After",
    },
}


async def _refused(call: Callable[..., _T], *args: Any) -> _T:
    """``call(*args)`` in a worker thread (a wait for the database never holds up the loop),
    its refusals answered as errors."""
    try:
        return await run_in_threadpool(call, *args)
    except REFUSALS as exc:
        if isinstance(exc, IllegalStep | BadStep | NothingToUndo | AttemptFull):
            where = ("body", exc.path if isinstance(exc, IllegalStep) else "/steps")
        else:
            where = ("path", "attempt")
        raise ApiError(exc.status, exc.code, str(exc), *where) from None


async def _sender(ctx: Context, request: Request, player: str) -> Any:
    """Who sends this request for ``player``, as an attempt records its starter: a site key's
    id, ``("player", name)`` for any of the player's own tokens (a second device continues the
    game), or the keyless sender of an ``--open`` server. 401/403 as every write's."""
    sender = await ctx.sender(request, player)
    if (await ctx.credentials(request)).token is not None:
        return ("player", player)
    return sender


async def owner(request: Request, ctx: Ctx, attempt: AttemptId) -> tuple[Puzzle, Any]:
    """The attempt's puzzle and who sends this request for its player (401/403 as a write's,
    the credentials checked first by the router; the attempt's own starter is checked in its
    transaction)."""
    puzzle_id, player = await _refused(ctx.stores.attempts.owner, attempt)
    puzzle = ctx.puzzles.get(puzzle_id)
    if puzzle is None:  # the puzzle set changed under a running server
        raise ApiError(404, "no-such-attempt", "the attempt's puzzle is gone", "path", "attempt")
    return puzzle, await _sender(ctx, request, player)


Owner = Annotated[tuple[Puzzle, Any], Depends(owner)]

#: ``POST /v1/puzzles/{id}/attempts`` and ``/v1/attempts/{attempt}`` (steps, give-up): the
#: parameters, the arrival time (a step is timed at it), then the credentials.
router = APIRouter(
    prefix="/v1", dependencies=[Depends(params_first), Depends(arrival), Depends(credentials)]
)


@router.post(
    "/puzzles/{id}/attempts",
    response_model=AttemptState,
    status_code=201,
    responses=_START_ERRORS,
    openapi_extra={**body_doc("AttemptRequest"), "security": [{BEARER: []}]},
)
async def start(id: PuzzleId, request: Request, ctx: Ctx, now: Arrival) -> Response:
    """Start a live attempt of a player on an open puzzle: its steps are then sent to
    ``/v1/attempts/{attempt}/steps``, played, timed and kept by the server. Credentials,
    rate limits and the embargo are those of submissions."""
    puzzle = ctx.puzzle_or_404(id)
    asked = await parse_off_loop(await read_body(request, ctx.settings.max_body), parse_attempt)
    sender = await _sender(ctx, request, asked.player)
    throttle(ctx.player_buckets, asked.player, "for this player", "/player")
    try:
        started = await run_in_threadpool(
            live.start, ctx.stores, puzzle, asked.player, asked.auto, sender, now
        )
    except (TooManyAttempts, TooManyOpenAttempts) as exc:  # the name's storage bounds
        wait = {"Retry-After": str(exc.retry_after)}
        raise ApiError(exc.status, exc.code, str(exc), "body", "/player", wait) from None
    return json_response(started, 201)


@router.post(
    "/attempts/{attempt}/steps",
    response_model=AttemptState,
    responses=_STEP_ERRORS,
    openapi_extra={**body_doc("StepsRequest"), "security": [{BEARER: []}]},
)
async def steps(
    attempt: AttemptId, request: Request, ctx: Ctx, now: Arrival, owned: Owner
) -> Response:
    """Play steps of the attempt, all or none, timed by the server's clock at arrival; the
    server's automatic moves follow each player step. A win is stored as the attempt's
    entry (``entry``)."""
    puzzle, sender = owned
    body = await read_body(request, ctx.settings.max_body)
    try:
        played = await parse_off_loop(body, parse_steps)  # a big body in a process (.bodies)
    except BadStep as exc:
        raise ApiError(exc.status, exc.code, str(exc), "body", "/steps") from None
    today = ctx.settings.today()
    found = await _refused(live.play, ctx.stores, puzzle, attempt, played, sender, now, today)
    return json_response(found)


@router.post(
    "/attempts/{attempt}/give-up",
    response_model=AttemptState,
    responses=_STEP_ERRORS,
    openapi_extra={"security": [{BEARER: []}]},
)
async def give_up(attempt: AttemptId, ctx: Ctx, now: Arrival, owned: Owner) -> Response:
    """End the attempt as given up (blocked, when no step was legal)."""
    puzzle, sender = owned
    today = ctx.settings.today()
    return json_response(
        await _refused(live.give_up, ctx.stores, puzzle, attempt, sender, now, today)
    )


@router.get(
    "/attempts/{attempt}",
    response_model=AttemptState,
    responses=_STEP_ERRORS,
    openapi_extra={"security": [{BEARER: []}]},
)
async def read(attempt: AttemptId, ctx: Ctx, now: Arrival, owned: Owner) -> Response:
    """The attempt as it stands (for its starter only); one found expired is ended now."""
    puzzle, sender = owned
    today = ctx.settings.today()
    return json_response(
        await _refused(live.state, ctx.stores, puzzle, attempt, sender, now, today)
    )
