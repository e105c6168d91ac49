"""``POST /v1/hint`` (issue #27): the next step of a win from a log's last position
(:func:`cruel_tools.advice.hints.hint`), under the rule and the bounds of ``POST /v1/analyze``: the
help
guard (:mod:`.help_guard`: no help for a puzzle not closed), then the costly gate
(:mod:`.costly`: rate limits of their own, ``--hint-rate``; places and processes of their own,
``--max-hints``, apart from the analyses': issue #33, finding 3; docs/service.md, Hints)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from ..advice import hints
from ..api import ErrorResponse
from ..game.log import GameLog
from .deps import Ctx, Guard, HelpKey, HintsGate, params_first
from .log_tools import costly_help
from .openapi import body_doc

__all__ = ["HINT_MAX_STATES", "hint_request", "hints_free", "router", "hint_log"]

#: ``POST /v1/hint``: most positions a hint's solve may expand (``?max_states=``, at most this).
#: A full budget costs about 0.15 s of one core with the native core (benchmarks/RESULTS.md,
#: issue #27); positions of closed published puzzles answer in far less.
HINT_MAX_STATES: Final = hints.MAX_STATES

_HINT_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        401: "An unknown key (bad-key) or a revoked one (revoked-key); no key is fine",
        403: "The deal of a puzzle not closed, up to suits (puzzle-open), or a deal given as "
        "piles without a site or admin key that is no closed puzzle's (piles-need-key)",
        429: "Too many hints from this address or key (rate-limited); with Retry-After",
        503: "As many hints running as the server allows, or as one client may (busy), or a key "
        "that cannot be checked (store-unavailable); with Retry-After",
    }.items()
}


def hint_request(game_log: GameLog, max_states: int = HINT_MAX_STATES) -> Callable[[], hints.Hint]:
    """The work of one ``POST /v1/hint``, to call in the hints' process (picklable). It
    raises :class:`~cruel_tools.advice.analysis.AnalysisRefused` for a log that is not a legal
    game."""
    return functools.partial(hints.hint, game_log, max_states)


async def hints_free(gate: HintsGate) -> None:
    """503 ``busy`` before the body is read when every hint's place is taken."""
    gate.refuse_when_full()


#: ``POST /v1/hint``, through the help guard and the hints' own gate beside the analyses'
#: (:meth:`~.costly.CostlyGate.hints`: their rate limits, their own places); the parameters
#: checked first, as analyze's.
router = APIRouter(prefix="/v1", dependencies=[Depends(params_first)])


@router.post(
    "/hint",
    response_model=hints.Hint,
    responses=_HINT_ERRORS,
    openapi_extra=body_doc("GameLog"),
    dependencies=[Depends(hints_free)],
)
async def hint_log(
    request: Request,
    ctx: Ctx,
    guard: Guard,
    gate: HintsGate,
    key: HelpKey,
    max_states: Annotated[
        int,
        Query(ge=1, le=HINT_MAX_STATES, description="Most positions the solve may expand."),
    ] = HINT_MAX_STATES,
) -> Response:
    """A hint for a ``cruel-log/1`` game log's last position: what ``cruel hint --json``
    prints (``win-next`` with the next step, ``no-win`` with the proof's words, ``won``, or
    ``unknown`` within the budget). A log that is not a legal game is a 422 with the
    verifier's error code and path, as for ``POST /v1/analyze``.

    No hint for a puzzle not closed (403 ``puzzle-open``) or a deal given as piles without
    a site or admin key (403 ``piles-need-key``); hints have rate limits of their own
    (429 ``rate-limited``, ``--hint-rate``) and places of their own, apart from the
    analyses' (503 ``busy``, ``--max-hints``)."""
    work = functools.partial(hint_request, max_states=max_states)
    return await costly_help(request, ctx, guard, gate, key, "hints", work)
