"""Fewest actions: a search for the shortest win, with a proven lower bound beside it.

An *action* is what the seed challenge counts (seed 003, *Zaad-uitdaging*): a card move (a run
is one move where the rules allow runs) or a redeal. :func:`optimize` answers with the best win
it found and a lower bound it proved: when the two meet, the win is optimal; otherwise the answer
is ``best found N, optimum >= L``, never a guess.

How (docs/solver.md, "Fewest actions", states each fact with its proof):

* the search runs over a *reduced* game that has a shortest win whenever the game has one
  (:func:`children`): a card that can go to its foundation either goes now or is *held* until
  the next redeal, so foundation moves are never interleaved in every order;
* :func:`actions_bound` never overestimates the actions still needed and drops by at most one
  per action (it is *consistent*), so A* with it proves what it finds;
* a beam search first, and the plain solver if the beam finds nothing, give an upper bound;
  A* then closes the gap or runs out of budget, and the smallest ``g + h`` left open is the bound.

The module holds no rule of the game: children come from :meth:`Game.card_moves`,
:meth:`Game.redeal_problem` and :meth:`Game.push`. Budgets count positions, so an answer is the
same on any machine; ``max_seconds`` is only a safety stop.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import count
from typing import Final, Literal

from .game import REDEAL, Game, Move, Redeal, Step
from .solver import FewestActions, SolveResult, SolveStats, check_win, pile1_lock, solve

__all__ = [
    "OptimalVerdict",
    "OptimalStats",
    "OptimalResult",
    "blockers",
    "actions_bound",
    "children",
    "optimize",
    "shortest",
    "as_solve_result",
    "fewest_actions",
    "verdict_line",
    "MAX_STATES",
    "BEAM_WIDTH",
    "State",
    "beam",
]

OptimalVerdict = Literal["optimal", "best-found", "unwinnable", "unknown"]

#: The default budget of :func:`optimize`: positions expanded (beam and A* together).
MAX_STATES: Final = 1_000_000
#: Positions kept per level by the beam search that finds the first upper bound.
BEAM_WIDTH: Final = 1_000

#: A position of the reduced game: the piles, and the cards held back from their foundation
#: until the next redeal (and, under a redeal limit, the redeals used).
State = tuple[tuple[tuple[int, ...], ...], frozenset[int], int]


#: The search's effort: positions expanded (beam and A* together), distinct positions met by A*,
#: positions cut by rule L, seconds. The plain solver's record, so both report alike.
OptimalStats = SolveStats


@dataclass
class OptimalResult:
    """The best win found from a position, and what is proven about the optimum."""

    verdict: OptimalVerdict
    steps: list[Step] = field(default_factory=list)  # the best win found; empty if none
    lower_bound: int = 0  # proven: no win from the position takes fewer actions
    stats: OptimalStats = field(default_factory=OptimalStats)
    reason: str = ""

    @property
    def actions(self) -> int | None:
        """Actions of the best win found (card moves + redeals), None without one."""
        return len(self.steps) if self.steps else None

    @property
    def optimal(self) -> bool:
        return self.verdict == "optimal"

    @property
    def moves(self) -> int:
        return sum(1 for s in self.steps if isinstance(s, Move))

    @property
    def redeals(self) -> int:
        return sum(1 for s in self.steps if isinstance(s, Redeal))


# --- the bound -----------------------------------------------------------------------------------


def blockers(game: Game) -> tuple[int, int]:
    """``(all, fixed)``: the *blockers* of the position, and those no redeal can undo.

    A blocker is a card lying above a lower card of its own suit in the same pile. Under single
    card moves each blocker counts; under run moves each pile with a blocker counts once (one run
    move may lift several). ``fixed`` counts the same among the bottom four cards of pile 1 under
    the bottom-up redeal, which keeps them in place for ever (docs/solver.md, fact P); it is 0
    under other redeal orders.
    """
    return _blockers(game, game.key())


def _blockers(game: Game, piles: tuple[tuple[int, ...], ...]) -> tuple[int, int]:
    rules = game.rules
    if not rules.cruel_layout:
        return _variant_blockers(game, piles)
    runs = rules.run_moves
    total = 0
    for pile in piles:
        total += _pile_blockers(pile, runs)
    fixed = 0
    if rules.redeal_order == "bottom-up":
        fixed = _pile_blockers(piles[0][:4], runs)
    return total, fixed


def _variant_blockers(game: Game, piles: tuple[tuple[int, ...], ...]) -> tuple[int, int]:
    """Blockers under Ripple Fan and Royal Family: a card above a card of its own suit that its
    foundation takes first (a lower one, or a higher one under foundations built down). It must
    leave by a build (its own action) or be split off by a redeal. Fact P (pile 1's bottom four
    stay put) is proven for Cruel's packets only, so no blocker counts as fixed."""
    down = game.rules.foundation_direction == "down"
    total = 0
    for pile in piles:
        for j in range(1, len(pile)):
            x, suit = pile[j], pile[j] // 13
            if any(y // 13 == suit and (y > x if down else y < x) for y in pile[:j]):
                total += 1
    return total, 0


@lru_cache(maxsize=1 << 18)
def _pile_blockers(pile: tuple[int, ...], runs: bool) -> int:
    """Blockers in one pile (under run moves: 1 if it has any). Piles recur all through a
    search, so each is counted once."""
    found = 0
    for j in range(1, len(pile)):
        x = pile[j]
        suit = x // 13
        if any(y < x and y // 13 == suit for y in pile[:j]):
            if runs:
                return 1
            found += 1
    return found


def actions_bound(game: Game, piles: tuple[tuple[int, ...], ...] | None = None) -> int:
    """A lower bound on the actions still needed to win from ``game`` (docs/solver.md, bound W).

    Every card still in a pile needs its foundation move; on top of those, with no redeal to
    come, every blocker needs a build of its own, and with one, the redeal is an action and the
    fixed blockers of pile 1 still need their builds. So: cards left + ``blockers`` if no redeal
    is possible any more, else cards left + min(blockers, 1 + fixed blockers). It never
    overestimates and changes by at most one per action (it is consistent), so A* with it
    proves the optimum it finds. ``piles`` is ``game.key()`` when the caller has it already.
    """
    total, fixed = _blockers(game, game.key() if piles is None else piles)
    left = 52 - game.foundation_cards
    limit = game.rules.max_redeals
    if limit is not None and game.redeals >= limit:
        return left + total
    return left + min(total, 1 + fixed)


# --- the reduced game ----------------------------------------------------------------------------


def children(
    game: Game, held: frozenset[int]
) -> Iterator[tuple[Step | None, Game, frozenset[int]]]:
    """The moves of the reduced game from ``game`` with the cards ``held`` back.

    If a card that is not held can go to its foundation, the lowest such card decides first:
    it goes now, or (unless redeals need a stuck position) it is held until the next redeal
    (the step is then None: holding is a choice, not an action). Otherwise: every build, and the
    redeal when it is legal (which releases the held cards). A shortest win of the game maps to
    one of this reduced game of the same length (docs/solver.md, fact H). The reduction is
    proven for single-card moves only: under run moves the children are every legal step, and
    so they are for Ripple Fan and Royal Family (``Rules.cruel_layout`` false), where the
    reduction is not proven.
    """
    if game.rules.run_moves or not game.rules.cruel_layout:
        for step in game.legal_steps():
            yield step, _after(game, step), held
        return
    found = game.foundations
    home = min(
        (
            (p[-1], number)
            for number, p in enumerate(game.piles, 1)
            if p and found[p[-1] // 13] == p[-1] % 13 and p[-1] not in held
        ),
        default=None,
    )
    if home is not None:
        card, number = home
        step = Move(number, None)
        yield step, _after(game, step), held
        if not game.rules.redeal_only_when_stuck:
            yield None, game, held | {card}
        return
    for move in game.card_moves():
        if move.target is not None:  # every card that could go home now is held
            yield move, _after(game, move), held
    if game.redeal_problem() is None:
        yield REDEAL, _after(game, REDEAL), frozenset()


def _after(game: Game, step: Step) -> Game:
    child = game.copy()
    child.push(step)
    return child


def _state(game: Game, held: frozenset[int], limited: bool) -> State:
    return (game.key(), held, game.redeals if limited else 0)


# --- the searches --------------------------------------------------------------------------------


def beam(
    start: Game, width: int, max_states: int, guide: list[Step] | None = None
) -> tuple[list[Step] | None, int]:
    """A quick win for an upper bound: the reduced game level by level (a level is one more
    build or redeal), keeping the ``width`` most promising positions of each level: the most
    cards on the foundations, then the fewest blockers. Returns the win (or None) and the
    positions expanded.

    A position dropped from a level may be met again later and kept then: only positions
    kept are marked seen, so a narrow beam does not starve on positions it once passed over.
    A ``guide`` (a known win) adds its own position to each level, so the beam never dies out
    and finds the guide's length at worst, and any shortcut from its line.
    """
    limited = start.rules.max_redeals is not None
    Item = tuple[Game, frozenset[int], tuple[Step, ...]]
    level: list[Item] = [(start, frozenset(), ())]
    seen: set[State] = {_state(start, frozenset(), limited)}
    on_guide = _guide_levels(start, guide or [])
    expanded = 0
    depth = 0
    while level and expanded < max_states:
        following: dict[State, tuple[tuple[int, int], Item]] = {}
        stack = level
        while stack:
            game, held, path = stack.pop()
            if game.is_won():
                return list(path), expanded
            expanded += 1
            for step, child, child_held in children(game, held):
                key = _state(child, child_held, limited)
                if key in seen or key in following:
                    continue
                if step is not None and _touches_pile1(step) and pile1_lock(child) is not None:
                    continue  # proven lost (solver rule L)
                item = (child, child_held, path if step is None else (*path, step))
                if step is None or (isinstance(step, Move) and step.target is None):
                    seen.add(key)
                    stack.append(item)  # free: the same level
                else:
                    rank = (-child.foundation_cards, _blockers(child, key[0])[0])
                    following[key] = (rank, item)
        kept = sorted(following.items(), key=lambda kv: kv[1][0])[:width]
        seen.update(key for key, _ in kept)
        level = [item for _, (_, item) in kept]
        depth += 1
        if depth < len(on_guide):
            game, path = on_guide[depth]
            key = _state(game, frozenset(), limited)
            if key not in seen:
                seen.add(key)
                level.append((game, frozenset(), path))
    return None, expanded


def _guide_levels(start: Game, guide: list[Step]) -> list[tuple[Game, tuple[Step, ...]]]:
    """The positions of ``guide`` where each level of :func:`beam` begins: after each build or
    redeal (foundation moves cost no level), with the steps that lead there."""
    levels: list[tuple[Game, tuple[Step, ...]]] = [(start, ())]
    game = start.copy()
    for k, step in enumerate(guide):
        game.push(step)
        if not (isinstance(step, Move) and step.target is None):
            levels.append((game.copy(), tuple(guide[: k + 1])))
    return levels


def optimize(
    start: Game,
    max_states: int = MAX_STATES,
    max_seconds: float | None = None,
    beam_width: int = BEAM_WIDTH,
    known: list[Step] | None = None,
    rule_f: bool = True,
) -> OptimalResult:
    """The fewest actions that win from ``start``, or the best found and a proven bound.

    ``rule_f`` is passed to the plain solver, which guides the beams when they starve
    (:func:`cruel_tools.solver.solve`).

    ``known`` is a win already found (such as a puzzle's par), used as the first upper bound.
    The answer's ``lower_bound`` is proven whatever the budget; ``verdict`` is ``optimal`` when
    the best win found meets it, ``best-found`` when the budget ran out first, ``unwinnable``
    when the whole reduced game was searched without a win, ``unknown`` when no win was found
    within the budget.
    """
    began = time.perf_counter()
    stats = OptimalStats()
    best: list[Step] | None = list(known) if known else None
    if pile1_lock(start) is not None:
        return _done(
            OptimalResult("unwinnable", reason="a card of pile 1 can never leave (rule L)"),
            stats,
            began,
        )
    # Beams of growing width while half the budget lasts, each guided by the best win so far
    # (so it can only improve on it): a narrow beam may starve in a deal that needs an
    # unlikely-looking line (some expert deals), and a wider one is often shorter. If the first
    # starves, the plain solver's win (long, but a win) guides the next.
    solver_tried = False
    for width in (beam_width // 10, beam_width // 4, beam_width, 4 * beam_width):
        if width < 1 or stats.expanded >= max_states // 2:
            break
        quick, used = beam(start, width, max_states // 2 - stats.expanded, guide=best)
        stats.expanded += used
        if quick is not None and (best is None or len(quick) < len(best)):
            best = quick
        if best is not None and len(best) <= actions_bound(start):
            break  # nothing can be shorter
        if best is None and not solver_tried:
            solver_tried = True
            found = solve(
                start.copy(),
                max_states=max(1, max_states // 4),
                max_seconds=max_seconds,
                rule_f=rule_f,
            )
            stats.expanded += found.stats.expanded
            if found.verdict == "unwinnable":
                return _done(OptimalResult("unwinnable", reason=found.reason), stats, began)
            if found.verdict == "won":
                best = found.steps
    steps, bound = shortest(start, best, max_states - stats.expanded, max_seconds, began, stats)
    if steps is not None:
        best = steps
    if best is None:
        if bound is None:
            return _done(
                OptimalResult("unwinnable", reason="every position of the reduced game searched"),
                stats,
                began,
            )
        return _done(
            OptimalResult("unknown", lower_bound=bound, reason="no win found within the budget"),
            stats,
            began,
        )
    check_win(start, best, who="optimizer")
    if bound is None or bound >= len(best):
        return _done(OptimalResult("optimal", best, len(best)), stats, began)
    return _done(
        OptimalResult(
            "best-found", best, bound, reason="budget spent before the bound met the win"
        ),
        stats,
        began,
    )


def shortest(
    start: Game,
    upper: list[Step] | None,
    max_states: int,
    max_seconds: float | None = None,
    began: float | None = None,
    stats: OptimalStats | None = None,
) -> tuple[list[Step] | None, int | None]:
    """A* over the reduced game for a win shorter than ``upper``.

    Returns ``(win, bound)``: a win shorter than ``upper`` if one was found (it is then optimal),
    and the proven lower bound on the optimum (None when the search ran out of positions: every
    win is then at least ``upper``, or there is none).
    """
    began = time.perf_counter() if began is None else began
    stats = OptimalStats() if stats is None else stats
    limit = len(upper) if upper is not None else 1 << 30
    limited = start.rules.max_redeals is not None
    root = _state(start, frozenset(), limited)
    # state -> (actions from start, parent state, step from the parent or None for a hold)
    info: dict[State, tuple[int, State | None, Step | None]] = {root: (0, None, None)}
    tie = count()
    h0 = actions_bound(start)
    frontier: list[tuple[int, int, int, int, State, Game, frozenset[int]]] = [
        (h0, -start.foundation_cards, 0, 0, root, start, frozenset())
    ]
    bound = h0
    stop = stats.expanded + max_states  # ``stats`` may count an earlier search already
    while frontier:
        f, _, _, g, state, game, held = heapq.heappop(frontier)
        if info[state][0] < g:
            continue  # met again at fewer actions since it was queued
        bound = max(bound, f)
        if f >= limit:
            return None, bound  # nothing left can beat the upper bound: it is optimal
        if game.is_won():
            stats.unique = len(info)
            return _path(info, state), g
        if stats.expanded >= stop or (
            max_seconds is not None
            and stats.expanded % 512 == 0
            and time.perf_counter() - began > max_seconds
        ):
            stats.unique = len(info)
            return None, bound
        stats.expanded += 1
        for step, child, child_held in children(game, held):
            cost = g if step is None else g + 1
            key = _state(child, child_held, limited)
            old = info.get(key)
            if old is not None and old[0] <= cost:
                continue
            if step is not None and _touches_pile1(step) and pile1_lock(child) is not None:
                stats.pruned += 1
                continue  # proven lost (solver rule L)
            child_f = cost + actions_bound(child, key[0])
            if child_f >= limit:
                continue
            info[key] = (cost, state, step)
            heapq.heappush(
                frontier,
                (child_f, -child.foundation_cards, -next(tie), cost, key, child, child_held),
            )
    stats.unique = len(info)
    return None, None


def _touches_pile1(step: Step) -> bool:
    return isinstance(step, Redeal) or step.source == 1 or step.target == 1


def _path(info: dict[State, tuple[int, State | None, Step | None]], state: State) -> list[Step]:
    steps: list[Step] = []
    _, parent, step = info[state]
    while parent is not None:
        if step is not None:
            steps.append(step)
        _, parent, step = info[parent]
    return steps[::-1]


def _done(result: OptimalResult, stats: OptimalStats, began: float) -> OptimalResult:
    stats.seconds = time.perf_counter() - began
    result.stats = stats
    return result


# --- reports -------------------------------------------------------------------------------------


def as_solve_result(result: OptimalResult) -> SolveResult:
    """The answer as the plain solver's (a win is ``won``), for the reports both share."""
    stats = result.stats
    if result.steps:
        return SolveResult("won", list(result.steps), stats)
    verdict: Literal["unwinnable", "unknown"] = (
        "unwinnable" if result.verdict == "unwinnable" else "unknown"
    )
    return SolveResult(verdict, [], stats, result.reason)


def fewest_actions(result: OptimalResult) -> FewestActions:
    return FewestActions(
        verdict=result.verdict, actions=result.actions, lower_bound=result.lower_bound
    )


def verdict_line(result: OptimalResult) -> str:
    """``optimal win in 57 actions (51 moves, 6 redeals)`` or
    ``best found 60 actions (53 moves, 7 redeals), optimum >= 56``, and the like."""
    if result.verdict == "unwinnable":
        return f"unwinnable: {result.reason}"
    if not result.steps:
        return f"unknown: {result.reason}, optimum >= {result.lower_bound}"
    split = f"{_count(result.moves, 'move')}, {_count(result.redeals, 'redeal')}"
    what = f"{result.actions} actions ({split})"
    if result.optimal:
        return f"optimal win in {what}: proven, no win takes fewer"
    return f"best found {what}, optimum >= {result.lower_bound}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
