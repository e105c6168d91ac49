"""A first solver: best-first search over positions, ordered by foundation cards.

This is the baseline that issue #2's benchmark fixtures and tests need (winning logs made by
search, then checked by the verifier). It only answers ``won`` or ``unknown``: it proves nothing
unwinnable. The exact solver with proven pruning is issue #4's work.

All rules come from :class:`cruel_tools.game.Game`; the solver only chooses among legal steps.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import count
from typing import Literal

from .game import Game, Step


@dataclass
class SolveResult:
    verdict: Literal["won", "unknown"]
    steps: list[Step] = field(default_factory=list)
    states: int = 0


def _key(g: Game) -> tuple[object, ...]:
    # The piles determine the foundations (every other card is on one); the redeal count matters
    # only when the profile limits it.
    piles = tuple(tuple(p) for p in g.piles)
    return (piles, g.redeals) if g.rules.max_redeals is not None else (piles,)


def best_first(start: Game, max_states: int = 200_000) -> SolveResult:
    """Search for a win, expanding positions with the most foundation cards first."""
    tie = count()
    seen: dict[tuple[object, ...], tuple[tuple[object, ...] | None, Step | None]] = {
        _key(start): (None, None)
    }
    frontier: list[tuple[int, int, int, Game, tuple[object, ...]]] = [
        (-start.foundation_cards, 0, next(tie), start, _key(start))
    ]
    expanded = 0
    while frontier and expanded < max_states:
        _, depth, _, g, key = heapq.heappop(frontier)
        expanded += 1
        if g.is_won():
            return SolveResult("won", _path(seen, key), expanded)
        for step in g.legal_steps():
            child = g.copy()
            child.push(step)
            ck = _key(child)
            if ck in seen:
                continue
            seen[ck] = (key, step)
            heapq.heappush(frontier, (-child.foundation_cards, depth + 1, next(tie), child, ck))
    return SolveResult("unknown", [], expanded)


def _path(
    seen: dict[tuple[object, ...], tuple[tuple[object, ...] | None, Step | None]],
    key: tuple[object, ...],
) -> list[Step]:
    steps: list[Step] = []
    parent, step = seen[key]
    while parent is not None and step is not None:
        steps.append(step)
        parent, step = seen[parent]
    return steps[::-1]
