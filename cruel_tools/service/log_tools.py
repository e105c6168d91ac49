"""The routes that read a game log: verify, replay and analyse (what ``cruel verify --json``,
``cruel replay --json`` and ``cruel analyze --json`` print).

Analysis helps towards a win, so it goes through the help guard (:mod:`.help_guard`: no help for a
puzzle not closed) and, being costly, through the gate of :mod:`.costly` (rate limits, a cap on
analyses at once). Verify and replay give no help: they say what a log already holds."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel

from ..advice import analysis
from ..api import ErrorResponse
from ..constants import REPLAY_MAX_STEPS
from ..game.log import GameLog
from ..game.render import ReplayDocument
from ..game.verify import VerifyReport, report_json, verify
from ..puzzles import Puzzle, check_against_puzzle, solution_is_public
from ..site.keys import ApiKey
from .bodies import parse_log, read_log
from .context import Context
from .costly import CostlyGate
from .deps import AnalysesGate, Ctx, Guard, HelpKey, ReplaysGate, params_first
from .errors import ApiError, json_response, read_body
from .help_guard import HelpGuard
from .openapi import body_doc
from .replaying import REPLAYS, replay

__all__ = [
    "ANALYZE_MAX_STATES",
    "ANALYZE_TOTAL_STATES",
    "ANALYZE_WIN_STATES",
    "ANALYZE_CERTIFICATE_POSITIONS",
    "costly_help",
    "analyze_request",
    "refused_log",
    "analyses_free",
    "replays_free",
    "router",
    "verify_log",
    "replay_log",
    "analyze_log",
]

#: ``POST /v1/analyze``: most positions one solve may expand (the ``max_states`` query parameter,
#: at most this), all the solves of one lost game together, and the fewest-actions search of a
#: won game (docs/service.md). Positions, not seconds, so that an answer is the same on every
#: machine; chosen so that a request costs at most about 1.5 s of one core with the native
#: engine (benchmarks/analyze_cost.py, benchmarks/RESULTS.md issue #24: a lost game's 200,000
#: positions are native solves, 0.1 s at most; a win's search is mostly Python, about 0.1 ms a
#: position, so 50,000 of them cost 4-6 s, the issue's finding 2).
ANALYZE_MAX_STATES: Final = analysis.MAX_STATES
ANALYZE_TOTAL_STATES: Final = 4 * analysis.MAX_STATES
ANALYZE_WIN_STATES: Final = 10_000
#: The positions the certificates of one lost game's unwinnable verdicts may hold together
#: (docs/solver.md, "Certificates"): a closure is a Python search of about 20,000 positions a
#: second, so at most about 0.5 s more; past it a certificate is null. Deals 1-2,000 need at most
#: 330.
ANALYZE_CERTIFICATE_POSITIONS: Final = 10_000


#: The answers only replay gives, in the OpenAPI document (docs/service.md).
_REPLAY_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        422: "Not a cruel-log/1 log, or a window that shows no step of it (empty-window)",
        429: "Too many replays from this address (rate-limited); with Retry-After",
        503: "As many replays running as the server allows (busy); with Retry-After",
    }.items()
}


#: The answers only analyze gives, in the OpenAPI document (docs/service.md).
_ANALYZE_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        401: "An unknown key (bad-key) or a revoked one (revoked-key); no key is fine",
        403: "The deal of a puzzle not closed, up to suits (puzzle-open), or a deal given as "
        "piles without a site or admin key that is no closed puzzle's (piles-need-key)",
        429: "Too many analyses from this address or key (rate-limited); with Retry-After",
        503: "As many analyses running as the server allows (busy), or a key that cannot be "
        "checked (store-unavailable); with Retry-After",
    }.items()
}


def refused_log(exc: analysis.AnalysisRefused) -> ApiError:
    """The 422 of a log that is not a legal game, for the routes that help (analyze, hint): the
    verifier's own code, message and path."""
    error = exc.report.error
    code, message = (error.code, error.message) if error else (exc.code, str(exc))
    return ApiError(422, code, message, "body", error.path if error else "/")


async def costly_help(
    request: Request,
    ctx: Context,
    guard: HelpGuard,
    gate: CostlyGate,
    key: ApiKey | None,
    kind: str,
    work: Callable[[GameLog], Callable[[], BaseModel]],
) -> Response:
    """The one order of a request for help (``POST /v1/analyze``, ``POST /v1/hint``), after its
    router's dependencies: 503 ``busy`` before the body is read when every place is taken (a
    flood costs no reading and parsing: :func:`refuse_when_full`), then the ``key`` from the
    headers (:data:`~.deps.HelpKey`); here, the body's bytes read (with the size limit) before
    a place is taken, so that a slow client never holds one; then, inside the gate of ``kind``
    (``analyses`` or ``hints``: a place and a token, else 503 or 429 with the body unparsed),
    the body parsed off the event loop (issue #33: a 1 MB body of nested meta was 0.16 s of
    the loop's time before any limit), the help guard's refusal (it takes a token too: asking
    which deals are open puzzles is as slow as asking for help) and ``work(game_log)`` in the
    analyses' own process; a log that is not a legal game is a 422."""
    body = await read_body(request, ctx.settings.max_body)
    with gate.admit(request, key, kind):
        game_log = await parse_log(body, ctx.limits)
        guard.refuse(game_log, key)
        try:
            result = await gate.run(work(game_log))
        except analysis.AnalysisRefused as exc:
            raise refused_log(exc) from None
    return json_response(result)


def analyze_request(
    game_log: GameLog,
    max_states: int = ANALYZE_MAX_STATES,
    total_states: int = ANALYZE_TOTAL_STATES,
    win_states: int = ANALYZE_WIN_STATES,
    puzzle: Puzzle | None = None,
    certificate_positions: int = ANALYZE_CERTIFICATE_POSITIONS,
) -> Callable[[], analysis.Analysis]:
    """The work of one ``POST /v1/analyze``, to call: the analysis at the service's budget (what
    benchmarks/analyze_cost.py measures), against ``puzzle`` when the log is its game
    (:func:`_closed_puzzle`). Picklable, for the analyses' process (:mod:`.costly`), whose
    interpreter then imports only the library. It raises
    :class:`~cruel_tools.advice.analysis.AnalysisRefused` for a log that is not a legal game."""
    return functools.partial(
        analysis.analyze,
        game_log,
        puzzle=puzzle,
        max_states=max_states,
        total_states=total_states,
        win_states=win_states,
        certificate_positions=certificate_positions,
    )


def _closed_puzzle(ctx: Context, game_log: GameLog) -> Puzzle | None:
    """The closed puzzle ``game_log`` is a game of (its very deal and rules), or None. Its par,
    proven with a budget far larger than a request's, then settles the optimum the request's
    search may leave open (docs/analysis.md): the replay page of a puzzle's solution must not
    say "at least 56" beside "par 58, optimal" (issue #34)."""
    today = ctx.settings.today()
    number, piles = game_log.deal.number, game_log.deal.piles
    for puzzle in list(ctx.puzzles.by_id.values()):  # a copy: days published ahead join it
        if (puzzle.deal.number == number) if number is not None else (puzzle.deal.piles == piles):
            if solution_is_public(puzzle, today) and not check_against_puzzle(game_log, puzzle):
                return puzzle
    return None


async def analyses_free(gate: AnalysesGate) -> None:
    """503 ``busy`` before the body is read when every analysis' place is taken."""
    gate.refuse_when_full()


async def replays_free(gate: ReplaysGate) -> None:
    """503 ``busy`` before the body is read when every replay's place is taken."""
    gate.refuse_when_full()


#: ``POST /v1/verify``, ``/v1/replay`` and ``/v1/analyze``: a log in the body, read as ``cruel
#: verify`` reads a file (its errors answered by :mod:`.errors`). The parameters of replay and
#: analyze are checked before their gates' places (a malformed request is a 422, never a
#: ``busy``); verify, the most frequent and cheapest, has neither and pays for neither.
router = APIRouter(prefix="/v1")


@router.post("/verify", response_model=VerifyReport, openapi_extra=body_doc("GameLog"))
async def verify_log(request: Request, ctx: Ctx) -> Response:
    """Verify a ``cruel-log/1`` game log: the report ``cruel verify --json`` prints.

    An illegal game is a report (200, ``valid`` false); a body that is not a log is an error.
    """
    # A small body is parsed on the event loop, a big one in a process (.bodies says why);
    # the replay runs here: the engine plays the longest log allowed in about 10 ms, and a
    # trip to a worker thread costs more than most verifies take (benchmarks/RESULTS.md).
    game_log = await read_log(request, ctx.settings.max_body, ctx.limits)
    return Response(report_json(verify(game_log)), media_type="application/json")


@router.post(
    "/replay",
    response_model=ReplayDocument,
    responses=_REPLAY_ERRORS,
    openapi_extra=body_doc("GameLog"),
    dependencies=[Depends(params_first), Depends(replays_free)],
)
async def replay_log(
    request: Request,
    ctx: Ctx,
    replays: ReplaysGate,
    first: Annotated[
        int,
        Query(
            alias="from",
            ge=1,
            description="The first step shown (1-based), as cruel replay --from.",
        ),
    ] = 1,
    last: Annotated[
        int | None,
        Query(
            alias="to",
            ge=1,
            description="The last step shown, as cruel replay --to; the answer shows at "
            f"most {REPLAY_MAX_STEPS} steps from `from` whatever it says.",
        ),
    ] = None,
) -> Response:
    """Replay a ``cruel-log/1`` game log: what ``cruel replay --json --from --to`` prints
    for it, each step in words with the position after it, and the first illegal step, if
    any (the web replay shows these words, so that they are the CLI's).

    One answer shows a window of at most 2,000 steps and 1 MiB of them (issue #33): a
    longer one is cut, and ``window.next`` is the ``from`` of the next window (null: none
    left). 429 ``rate-limited`` and 503 ``busy`` with Retry-After bound the cost."""
    body = await read_body(request, ctx.settings.max_body)
    with replays.admit(request, None, REPLAYS):
        game_log = await parse_log(body, ctx.limits)
        answer = await replay(replays, game_log, first, last)
    return Response(answer, media_type="application/json")


@router.post(
    "/analyze",
    response_model=analysis.Analysis,
    responses=_ANALYZE_ERRORS,
    openapi_extra=body_doc("GameLog"),
    dependencies=[Depends(params_first), Depends(analyses_free)],
)
async def analyze_log(
    request: Request,
    ctx: Ctx,
    guard: Guard,
    gate: AnalysesGate,
    key: HelpKey,
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
    a 422 with the verifier's error code and path (``wrong-rank``, ``bad-deal``, ...).

    No analysis of a puzzle not closed (403 ``puzzle-open``), of a deal given as piles
    without a site or admin key (403 ``piles-need-key``, unless it is a closed puzzle's);
    429 ``rate-limited`` and 503 ``busy`` with Retry-After bound the cost."""

    # Solves: CPU work bounded by the budget, in the analyses' own process.
    def work(game_log: GameLog) -> Callable[[], analysis.Analysis]:
        puzzle = _closed_puzzle(ctx, game_log)
        return analyze_request(game_log, max_states=max_states, puzzle=puzzle)

    return await costly_help(request, ctx, guard, gate, key, "analyses", work)
