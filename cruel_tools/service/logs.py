"""The routes that read a game log: verify, replay and analyse (what ``cruel verify --json``,
``cruel replay --json`` and ``cruel analyze --json`` print)."""

from __future__ import annotations

import functools
from typing import Annotated, Final

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from .. import analysis
from ..log import GameLog, load
from ..render import ReplayDocument, replay_json
from ..verify import VerifyReport, report_json, verify
from .context import Context
from .errors import ApiError, json_response, read_body
from .openapi import body_doc

__all__ = ["ANALYZE_MAX_STATES", "ANALYZE_TOTAL_STATES", "router"]

#: ``POST /v1/analyze``: most positions one solve may expand (the ``max_states`` query parameter,
#: at most this), and all the solves of one request together (docs/service.md): about 4 s of
#: one core at worst. Positions, not seconds, so that an answer is the same on every machine.
ANALYZE_MAX_STATES: Final = analysis.MAX_STATES
ANALYZE_TOTAL_STATES: Final = 4 * analysis.MAX_STATES


def router(ctx: Context) -> APIRouter:
    """``POST /v1/verify``, ``/v1/replay`` and ``/v1/analyze``: a log in the body, read as
    ``cruel verify`` reads a file (its errors answered by :mod:`.errors`)."""
    router = APIRouter()

    async def read_log(request: Request) -> GameLog:
        return load(await read_body(request, ctx.settings.max_body), ctx.limits)

    @router.post("/v1/verify", response_model=VerifyReport, openapi_extra=body_doc("GameLog"))
    async def verify_log(request: Request) -> Response:
        """Verify a ``cruel-log/1`` game log: the report ``cruel verify --json`` prints.

        An illegal game is a report (200, ``valid`` false); a body that is not a log is an error.
        """
        # Parsing and replaying run here, on the event loop: the limits bound them (a few ms for
        # the largest log), and a trip to a worker thread would cost more than most take.
        game_log = await read_log(request)
        return Response(report_json(verify(game_log)), media_type="application/json")

    @router.post("/v1/replay", response_model=ReplayDocument, openapi_extra=body_doc("GameLog"))
    async def replay_log(request: Request) -> Response:
        """Replay a ``cruel-log/1`` game log: what ``cruel replay --json`` prints for it, each
        step in words with the position after it, and the first illegal step, if any (the web
        replay shows these words, so that they are the CLI's)."""
        game_log = await read_log(request)
        # A position per step: for the longest log allowed, too long for the event loop.
        doc = await run_in_threadpool(replay_json, game_log)
        return Response(orjson.dumps(doc), media_type="application/json")

    @router.post("/v1/analyze", response_model=analysis.Analysis, openapi_extra=body_doc("GameLog"))
    async def analyze_log(
        request: Request,
        max_states: Annotated[
            int,
            Query(
                ge=1,
                le=ANALYZE_MAX_STATES,
                description="Most positions each solve may expand; the request's solves expand "
                f"at most {ANALYZE_TOTAL_STATES} in all.",
            ),
        ] = ANALYZE_MAX_STATES,
    ) -> Response:
        """Analyse a ``cruel-log/1`` game log: what ``cruel analyze --json`` prints for it (never
        ``--deep``), within a budget of positions per request. A log that is not a legal game is
        a 422 with the verifier's error code and path (``wrong-rank``, ``bad-deal``, ...)."""
        game_log = await read_log(request)
        # Solves: CPU work bounded by the budget, on a worker thread, never on the event loop.
        try:
            result = await run_in_threadpool(
                functools.partial(
                    analysis.analyze,
                    game_log,
                    max_states=max_states,
                    total_states=ANALYZE_TOTAL_STATES,
                )
            )
        except analysis.AnalysisRefused as exc:
            error = exc.report.error
            code, message = (error.code, error.message) if error else (exc.code, str(exc))
            raise ApiError(422, code, message, "body", error.path if error else "/") from None
        return json_response(result)

    return router
