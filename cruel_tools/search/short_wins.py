"""Short wins: a wide beam search for the fewest actions it can find, with no proof.

Par's search (:mod:`.optimal`) proves its optimum with A*, and where its proof budget runs out
it publishes the best win it met on the way, which can be far from the best: an outside beam of
1,000,000 positions a level found 65 actions for the 2027-02-02 expert (published par 68) and 67
for the 2027-01-04 expert (published 79), issue #38. :func:`shortest_found` is that search here,
so a par is at least as short as such a search finds (docs/grading.md, "Short wins").

How: the reduced game of :func:`.optimal.children` (a card that could go home may be held and
built elsewhere instead, solver-facts §5), level by level, a level being one more build or redeal
(foundation moves are free within a level: every win makes the same number of them, so the
first win met is the shortest the beam holds); each level keeps the ``width`` best positions, by
two rankings run one after the other: the most cards home then the fewest blockers (the beam of
:func:`.optimal.beam`), and the fewest actions so far + the admissible bound
(:func:`.optimal.actions_bound`) then as the first. Positions are deduplicated across levels.
With a known win, a position whose actions so far + bound reach its length is dropped (it
cannot beat it). The answer depends on the width and the budgets only, never on the machine.

The core runs both rankings (cruel_tools/native/optimal.cpp, ``beam``); the Python engine runs
the first only (:func:`.optimal.beam`), for profiles the core does not search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal

from ..game import engine
from ..game.game import Game, Step
from .optimal import _core_rules, _core_steps, beam
from .solver import check_win

if TYPE_CHECKING:
    from .._native import BeamResult

__all__ = [
    "SHORT_WIN_WIDTH",
    "SHORT_WIN_MEMORY",
    "Ranking",
    "RANKINGS",
    "ShortWin",
    "shortest_found",
]

#: Positions kept per level: the outside search's width (issue #38), which finds 65 and 67
#: actions on the two expert deals named there, in about 25 s and 2 GB a ranking.
SHORT_WIN_WIDTH: Final = 1_000_000
#: The bytes one beam may hold by default: a width of 1,000,000 held about 2 GB at its peak.
SHORT_WIN_MEMORY: Final = 4 << 30

Ranking = Literal["foundations", "bound"]
#: The rankings tried, in order (a tie keeps the first's win).
RANKINGS: Final[tuple[Ranking, ...]] = ("foundations", "bound")


@dataclass
class ShortWin:
    """The shortest win a beam found (empty: none shorter than the known one), and its effort."""

    steps: list[Step] = field(default_factory=list)
    ranking: Ranking | None = None  # the ranking that found it
    expanded: int = 0  # positions expanded, every ranking together
    stopped: list[str] = field(default_factory=list)  # each beam's end: won, starved, memory...

    @property
    def actions(self) -> int | None:
        return len(self.steps) if self.steps else None


def shortest_found(
    start: Game,
    width: int = SHORT_WIN_WIDTH,
    known: Sequence[Step] | None = None,
    max_states: int | None = None,
    max_memory: int = SHORT_WIN_MEMORY,
    rankings: Sequence[Ranking] = RANKINGS,
) -> ShortWin:
    """The shortest win from ``start`` that beams of ``width`` positions a level find, one beam
    per ranking (:data:`RANKINGS`), shorter than ``known`` when it is given.

    ``max_states`` bounds the positions each beam expands (None: as many as its levels take);
    ``max_memory`` the bytes each may hold (reaching it ends that beam without a win). Every win
    returned is replayed through the engine first. Deterministic: the same arguments give the
    same win on any machine.
    """
    found = ShortWin()
    limit = len(known) if known else 0
    states = max_states if max_states is not None else 1 << 62
    core = engine.native()
    rules_t = None if core is None else _core_rules(start.rules)
    for ranking in rankings:
        if core is not None and rules_t is not None:
            result: BeamResult = core.beam(
                start.piles,
                start.foundations,
                start.redeals,
                rules_t,
                max(1, width),
                max(0, states),
                [],
                max_memory,
                0.0,
                ranking == "bound",
                found.actions or limit,  # 0: no win to beat yet
            )
            found.expanded += result.expanded
            found.stopped.append(result.why)
            win = _core_steps(result.steps) if result.why == "won" else None
        elif ranking == "foundations":  # the Python beam ranks by foundations only
            win, used = beam(start, max(1, width), states, max_memory=max_memory)
            found.expanded += used
            found.stopped.append("won" if win is not None else "no win")
        else:
            continue
        best = found.actions or limit or None
        if win is not None and (best is None or len(win) < best):
            check_win(start, win, who="short-win search")
            found.steps, found.ranking = win, ranking
    return found
