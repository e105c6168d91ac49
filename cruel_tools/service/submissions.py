"""The routes that write a player's game: submissions and server-timed attempts. Each reads and
bounds the request; the submission flow itself is :func:`cruel_tools.submitting.submit`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..attempts import AttemptStarted, parse_attempt
from ..keys import throttle
from ..submissions import SubmissionResult, parse_submission
from ..submitting import submit as submit_game
from .context import Context
from .errors import json_response, read_body
from .openapi import BEARER, WRITE_ERRORS, body_doc
from .params import PuzzleId

__all__ = ["router"]


def router(ctx: Context) -> APIRouter:
    """``POST /v1/puzzles/{id}/submissions`` and ``POST /v1/puzzles/{id}/attempts``."""
    router = APIRouter()

    @router.post(
        "/v1/puzzles/{id}/submissions",
        response_model=SubmissionResult,
        status_code=201,
        responses={
            200: {"model": SubmissionResult, "description": "Rejected, or a duplicate"},
            **WRITE_ERRORS,
        },
        openapi_extra={**body_doc("Submission"), "security": [{BEARER: []}]},
    )
    async def submit(id: PuzzleId, request: Request) -> Response:
        """Verify a player's log against the puzzle; a legal win goes on the leaderboard.

        Needs a site's API key (``Authorization: Bearer <key>``), unless the server is open.
        201: a new entry. 200: a verdict without a new entry (rejected, or already there).
        """
        arrived_at = ctx.settings.wall_clock()  # a server-timed attempt ends here
        sender = await ctx.submitter(request)
        throttle(ctx.key_buckets, sender, "from this key")
        puzzle = ctx.puzzle_or_404(id)
        body = await read_body(request, ctx.settings.max_body)
        submission = parse_submission(body, ctx.limits)
        # In a worker thread: a write, or a wait for another process, never holds up the loop.
        result = await run_in_threadpool(
            submit_game,
            ctx.stores,
            puzzle,
            submission,
            sender,
            arrived_at,
            ctx.settings.today(),
            ctx.player_buckets,
        )
        created = result.accepted and not result.duplicate
        return json_response(result, 201 if created else 200)

    @router.post(
        "/v1/puzzles/{id}/attempts",
        response_model=AttemptStarted,
        status_code=201,
        responses=WRITE_ERRORS,
        openapi_extra={**body_doc("AttemptRequest"), "security": [{BEARER: []}]},
    )
    async def start_attempt(id: PuzzleId, request: Request) -> Response:
        """Start a server-timed attempt of a player on an open puzzle: a submission naming its
        id is timed by the server, from now to its arrival. Keys, roles, rate limits (the
        submissions' buckets) and the embargo are those of submissions."""
        now = ctx.settings.wall_clock()
        sender = await ctx.submitter(request)
        throttle(ctx.key_buckets, sender, "from this key")
        puzzle = ctx.puzzle_or_404(id)
        asked = parse_attempt(await read_body(request, ctx.settings.max_body))
        throttle(ctx.player_buckets, asked.player, "for this player", "/player")
        # In a worker thread: a database held by another process is waited for there.
        attempts = ctx.stores.attempts
        started = await run_in_threadpool(attempts.start, puzzle.id, asked.player, sender, now)
        return json_response(started, 201)

    return router
