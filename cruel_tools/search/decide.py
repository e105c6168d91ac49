"""Deciding a deal: the proof search first, then beams that only look for a win.

:func:`.solver.solve` answers ``won`` or ``unwinnable`` for almost every deal within a second,
or not at all: of deals 1-10,000 under ``cruel`` at 10 s a deal, one deal was won and one proven
lost after its first second, and 29 stayed ``unknown`` (benchmarks/RESULTS.md, "issue #38:
deciding"). A beam of the reduced game (:func:`.optimal.beam`: the most cards home first, a
level per build or redeal) wins 8 of those 29 in under 7 s, 4 of them in 0.3 s, where the
proof search had not in 90 s. So :func:`decide` gives the proof search ``1 - BEAM_SHARE`` of the
budget and, when it ends undecided, spends the rest on beams of growing width
(:data:`BEAM_WIDTHS`). A beam proves nothing when it finds no win, so the verdict it adds is
``won`` only, and a win is replayed through the engine before it is returned.

Grading keeps :func:`.solver.solve` alone: a puzzle's recorded effort and par are measured with
the search of its grader version (:mod:`.grading`).
"""

from __future__ import annotations

import time
from typing import Final

from ..game.game import Game
from .optimal import beam
from .solver import MAX_MEMORY, Memo, SolveResult, SolveStats, check_win, solve

__all__ = ["BEAM_SHARE", "BEAM_WIDTHS", "SOLVER_VERSION", "decide"]

#: What :func:`decide` is, for the results that name it (a study's header): 1 was
#: :func:`.solver.solve` alone, 2 adds the beams (issue #38).
SOLVER_VERSION: Final = 2

#: The share of the budget (positions and seconds) kept for the beams: the proof search decides
#: nearly all it will in its first second, the beams win more of the rest (module docstring).
BEAM_SHARE: Final = 0.5
#: The beams' widths, tried in turn while budget is left: each costs about four times the one
#: before, so a beam cut short by the budget wastes at most a quarter of what the beams spent.
BEAM_WIDTHS: Final = (10_000, 40_000, 160_000, 640_000, 2_560_000)


def decide(
    start: Game,
    max_states: int = 200_000,
    max_seconds: float | None = None,
    memo: Memo | None = None,
    max_memory: int = MAX_MEMORY,
    beam_share: float = BEAM_SHARE,
) -> SolveResult:
    """:func:`.solver.solve` within ``1 - beam_share`` of the budget, then, if it is undecided,
    beams for a win within the rest of the positions, seconds and the same ``max_memory``.

    ``beam_share`` 0 is :func:`.solver.solve` itself. Deterministic for a budget in positions.
    An ``unknown`` verdict names the whole budget.
    """
    began = time.perf_counter()
    share = min(max(beam_share, 0.0), 1.0)
    proof_states = max(1, int(max_states * (1 - share)))
    proof_seconds = None if max_seconds is None else max_seconds * (1 - share)
    result = solve(start, proof_states, proof_seconds, memo=memo, max_memory=max_memory)
    if result.verdict != "unknown" or share == 0.0:
        return result
    stats = SolveStats()
    stats.add(result.stats)
    deadline = None if max_seconds is None else began + max_seconds
    for width in BEAM_WIDTHS:
        left = max_states - stats.expanded
        if left <= 0 or (deadline is not None and time.perf_counter() >= deadline):
            break
        win, used = beam(start, width, left, max_memory=max_memory, deadline=deadline, exact=True)
        stats.expanded += used
        if win is not None:
            check_win(start, win, "beam")
            result = SolveResult("won", win)
            break
    stats.seconds = time.perf_counter() - began
    result.stats = stats
    if result.verdict == "unknown":
        result.reason = _undecided(result.reason, stats.expanded, max_states, max_seconds, began)
    return result


def _undecided(
    proof: str, expanded: int, max_states: int, max_seconds: float | None, began: float
) -> str:
    """Why a deal is undecided, in :func:`.solver.solve`'s words for the whole budget (not the
    proof search's share of it)."""
    if max_seconds is not None and time.perf_counter() - began >= max_seconds:
        return f"time budget of {max_seconds} s spent"
    if expanded >= max_states:
        return f"state budget of {max_states} spent"
    return f"{proof}; no win found by beams of up to {BEAM_WIDTHS[-1]:,} positions a level"
