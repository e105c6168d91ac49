"""``POST /v1/replay``'s budget (issue #33, finding 1): a window of steps per answer, a cap on the
answer's bytes, a rate limit per client address and a cap on replays at once.

A whole 10,000-step log was 0.28 s of CPU and a 3.5 MB answer; 256 of them at once from 8
addresses held ``/v1/health`` for 40 s and grew the process by 850 MB. Now an answer shows at
most :data:`~cruel_tools.constants.REPLAY_MAX_STEPS` steps and
:data:`~cruel_tools.constants.REPLAY_MAX_BYTES` bytes of them: a longer window is cut, never
refused (a web replay shows the first steps at once and asks for the rest), and the answer's
``window`` says which steps it holds and where the next window starts
(``POST /v1/replay?from=N``). Replays run in ``--max-replays`` processes of their own
(:mod:`.workers`; in threads they held the interpreter's lock that the event loop needs), at most
that many at once (more: 503 ``busy``), each address with its bucket (``--replay-rate``,
``--replay-burst``; 429 ``rate-limited``).
"""

from __future__ import annotations

import functools
from typing import Any, Final

import orjson

from ..constants import REPLAY_MAX_BYTES, REPLAY_MAX_STEPS
from ..game.log import GameLog
from ..game.render import EmptyWindow, ReplayOptions, ReplayWindow, check_window, replay_json
from .config import Settings
from .costly import CostlyGate, KindLimit
from .errors import ApiError

__all__ = [
    "REPLAYS",
    "REPLAY_BUSY_RETRY",
    "REPLAY_NICE",
    "replay",
    "replay_gate",
    "windowed_replay",
]

#: The kind of costly request a replay is (the gate's words: "too many replays ...").
REPLAYS: Final = "replays"
#: Seconds a client is told to wait after a ``busy`` replay (one takes at most about 0.1 s).
REPLAY_BUSY_RETRY: Final = 1
#: How much lower the replays' processes run than the server's: as the hints', under the
#: server (whose cheap requests come first) and above the analyses.
REPLAY_NICE: Final = 5


def _cut_to_bytes(steps: list[dict[str, object]], budget: int) -> list[dict[str, object]]:
    """The first of ``steps`` whose JSON fits in ``budget`` bytes (at least one: a step is a
    few hundred bytes, so the answer stays bounded)."""
    if len(orjson.dumps(steps)) <= budget:  # the common case: one dump, not one a step
        return steps
    total = 0
    for n, step in enumerate(steps):
        total += len(orjson.dumps(step)) + 1
        if total > budget and n > 0:
            return steps[:n]
    return steps


def windowed_replay(
    game_log: GameLog,
    first: int = 1,
    last: int | None = None,
    max_steps: int = REPLAY_MAX_STEPS,
    max_bytes: int = REPLAY_MAX_BYTES,
) -> dict[str, Any]:
    """``cruel replay --json --from first --to last`` of ``game_log``, cut at ``max_steps``
    steps and ``max_bytes`` bytes of them, with its ``window``. To run off the event loop."""
    moves = len(game_log.moves)
    bound = first + max_steps - 1
    options = ReplayOptions(first=first, last=bound if last is None else min(last, bound))
    doc = replay_json(game_log, options)
    steps = _cut_to_bytes(doc["steps"], max_bytes)  # type: ignore[arg-type]
    doc["steps"] = steps
    shown = steps[-1]["step"] if steps else None
    error = doc["error"]
    # The steps the log plays: up to its first illegal one (the error says it), or all.
    index = error.get("index") if isinstance(error, dict) else None
    played = moves if index is None else index
    wanted = played if last is None else min(last, played)
    after = first if shown is None else int(str(shown)) + 1
    window = ReplayWindow(
        first=first,
        last=None if shown is None else int(str(shown)),
        steps=moves,
        next=after if after <= wanted else None,
        cut=after <= wanted,
    )
    doc["window"] = window.model_dump(mode="json")
    return doc


def replay_gate(settings: Settings) -> CostlyGate:
    """One app's replays, through the costly routes' one gate (:mod:`.costly`): a bucket per
    client address (``settings.replay_limit``), ``settings.max_replays`` places (one client may
    hold them all: a web page asks window after window) and processes of their own."""
    return CostlyGate(
        settings,
        REPLAYS,
        most=settings.max_replays,
        nice=REPLAY_NICE,
        limits={REPLAYS: KindLimit(REPLAYS, settings.replay_limit, settings)},
        share=settings.max_replays,
        retry=REPLAY_BUSY_RETRY,
    )


async def replay(gate: CostlyGate, game_log: GameLog, first: int, last: int | None) -> bytes:
    """The windowed replay's JSON, made in one of ``gate``'s processes (the engine and the
    positions' words are Python: about 40 ms for a full window, so never on the event loop nor
    on a thread beside it); 422 ``empty-window`` when the window can show no step of the log."""
    try:
        check_window(ReplayOptions(first=first, last=last), len(game_log.moves))
    except EmptyWindow:
        words = _empty(first, last, game_log)
        raise ApiError(422, EmptyWindow.code, words, "query", "from") from None
    return await gate.run(functools.partial(_answer, game_log, first, last))


def _answer(game_log: GameLog, first: int, last: int | None) -> bytes:
    """The answer's bytes, made in one trip to a replay process (the JSON is made there too:
    bytes come back cheaper than a document of positions)."""
    return orjson.dumps(windowed_replay(game_log, first, last))


def _empty(first: int, last: int | None, game_log: GameLog) -> str:
    """:func:`~cruel_tools.game.render.check_window`'s words, with the query's parameters."""
    if last is not None and last < first:
        return f"from={first}&to={last}: the range is backwards (empty)"
    return f"from={first} shows no step: the log has {len(game_log.moves)} steps"
