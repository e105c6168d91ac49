"""The route that writes a player's submitted game. It reads and bounds the request; the
submission flow itself is :func:`cruel_tools.site.submissions.submit` (live attempts:
:mod:`cruel_tools.service.attempts`)."""

from __future__ import annotations

import functools

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..site.judging import SubmissionResult, parse_submission
from ..site.submissions import submit as submit_game
from .bodies import parse_off_loop
from .deps import Arrival, Creds, Ctx, arrival, credentials, params_first
from .errors import json_response, read_body
from .openapi import BEARER, WRITE_ERRORS, body_doc
from .params import PuzzleId

__all__ = ["router", "submit"]


#: ``POST /v1/puzzles/{id}/submissions``: the parameters, the arrival time, then the
#: credentials, checked and rate-limited before the body is read.
router = APIRouter(
    prefix="/v1/puzzles",
    dependencies=[Depends(params_first), Depends(arrival), Depends(credentials)],
)


@router.post(
    "/{id}/submissions",
    response_model=SubmissionResult,
    status_code=201,
    responses={
        200: {"model": SubmissionResult, "description": "Rejected, or a duplicate"},
        **WRITE_ERRORS,
    },
    openapi_extra={**body_doc("Submission"), "security": [{BEARER: []}]},
)
async def submit(
    id: PuzzleId, request: Request, ctx: Ctx, arrived_at: Arrival, found: Creds
) -> Response:
    """Verify a player's log against the puzzle; a legal win goes on the leaderboard.

    Needs a site's API key (``Authorization: Bearer <key>``) or the player's own token
    (``Authorization: Player <token>``); on an ``--open`` server, an unclaimed name needs
    neither. 201: a new entry. 200: a verdict without a new entry (rejected, or already
    there). A site key's log is ranked (the site vouches for its time); a player's token's
    or an ``--open`` one is stored unranked (``ranked: false``, ``unranked_reason:
    untimed``) unless the server runs with ``--rank-untimed``.
    """
    ranked = found.key is not None or ctx.settings.rank_untimed
    puzzle = ctx.puzzle_or_404(id)
    body = await read_body(request, ctx.settings.max_body)
    # A big body in the parsing process, never on the event loop (issue #33; .bodies).
    submission = await parse_off_loop(body, functools.partial(parse_submission, limits=ctx.limits))
    sender = await ctx.sender(request, submission.player)  # the name's token, if claimed
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
        ctx.settings.review_untimed_par,
        ranked,
    )
    created = result.accepted and not result.duplicate
    return json_response(result, 201 if created else 200)
