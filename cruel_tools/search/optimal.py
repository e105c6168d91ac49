"""Fewest actions: a search for the shortest win, with a proven lower bound beside it.

An *action* is what the seed challenge counts (seed 003, *Zaad-uitdaging*): a card move (a run
is one move where the rules allow runs) or a redeal. :func:`optimize` answers with the best win
it found and a lower bound it proved: when the two meet, the win is optimal; otherwise the answer
is ``best found N, optimum >= L``, never a guess.

How (docs/solver.md, "Fewest actions", states each fact with its proof):

* the search runs over a *reduced* game that has a shortest win whenever the game has one
  (:func:`children`): a card that can go to its foundation either goes now or is *held* until
  the next redeal, so foundation moves are never interleaved in every order;
* :func:`actions_bound` never overestimates the actions still needed (it is *admissible*), so
  A* with it (with pathmax and reopening) proves what it finds;
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
from functools import cache, lru_cache
from itertools import count
from typing import TYPE_CHECKING, Any, Final, Literal

from ..game import engine
from ..game.game import REDEAL, Game, Move, Redeal, Step
from ..game.rules import Rules
from .solver import MAX_MEMORY, FewestActions, SolveResult, SolveStats, check_win, pile1_lock, solve

if TYPE_CHECKING:
    from .._native import BeamResult, CoreStep, NativeRules, ShortestResult

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
    "PY_STATE_BYTES",
    "POLL_EVERY",
    "State",
    "beam",
]

OptimalVerdict = Literal["optimal", "best-found", "unwinnable", "unknown"]

#: The default budget of :func:`optimize`: positions expanded (beam and A* together).
MAX_STATES: Final = 1_000_000
#: Positions kept per level by the beam search that finds the first upper bound.
BEAM_WIDTH: Final = 1_000
#: What one position met by the Python beam or A* holds, about (its state's tuples and frozen
#: set, its copy of the game, its path or parent, the tables' entries): tracemalloc's peak over
#: the beams of deal 12 under the four presets of the rest of the family, at a 4 MB budget, was
#: 2.5-2.8 times what the solver's 1,200 bytes a node counted (issue #33, finding 7).
PY_STATE_BYTES: Final = 3_500
#: The Python searches look at the clock once every this many positions expanded (a position
#: costs Python well under a millisecond, so a budget is overrun by milliseconds at most); at
#: and at their memory at every one (:func:`_spent`).
POLL_EVERY: Final = 256

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
    """A lower bound on the actions still needed to win from ``game``.

    Every card still in a pile needs its foundation move; on top of those, each blocker (a card
    above a lower card of its suit in its pile) needs a build of its own unless a redeal cuts it
    apart from the cards it blocks. Under Cruel's packets of 4 with single-card moves the bound
    counts what ``r`` more redeals can cut, for every ``r`` the rules still allow, and takes the
    least of ``r`` + the builds still needed (docs/solver.md, bound C); elsewhere it is bound W:
    cards left + blockers if no redeal is left, else cards left + min(blockers, 1 + fixed
    blockers). It never overestimates (admissible), so A* with it (and with pathmax, since
    bound C may drop by more than one in a step) proves the optimum it finds. ``piles`` is
    ``game.key()`` when the caller has it already.
    """
    piles = game.key() if piles is None else piles
    rules = game.rules
    left = 52 - game.foundation_cards
    limit = rules.max_redeals
    redeals_left = None if limit is None else max(0, limit - game.redeals)
    if rules.cruel_layout and not rules.run_moves:
        return left + _cuts_bound(piles, rules.redeal_order == "bottom-up", redeals_left)
    total, fixed = _blockers(game, piles)
    if redeals_left == 0:
        return left + total
    return left + min(total, 1 + fixed)


def _cuts_bound(
    piles: tuple[tuple[int, ...], ...], bottom_up: bool, redeals_left: int | None
) -> int:
    """Bound C's builds and redeals: the least over ``r`` (redeals still to come, within
    ``redeals_left``) of ``r`` + the builds that ``r`` redeals cannot spare (docs/solver.md)."""
    best = sum(_pile_blockers(pile, False) for pile in piles)  # r = 0: every blocker built
    floor = _pile_blockers(piles[0][:4], False) if bottom_up and piles else 0
    r = 1
    while (redeals_left is None or r <= redeals_left) and r < best:
        needed = sum(
            _pile1_cost(pile, r)
            if bottom_up and number == 0
            else _cut_cost(pile, _parts(len(pile), r))
            for number, pile in enumerate(piles)
        )
        best = min(best, r + needed)
        if needed <= floor:
            break  # more redeals cannot spare more builds: r + needed only grows
        r += 1
    return best


@cache
def _parts(m: int, r: int) -> int:
    """The most pieces ``r`` redeals can cut a run of ``m`` cards into, when no card can come
    between them while they share a pile: a redeal puts a packet boundary after every 4th card
    of the gathered sequence, so at most ``ceil((m - 1) / 4)`` boundaries fall inside a run of
    ``m`` consecutive cards, and each piece is such a run at the next redeal."""
    if r == 0 or m <= 1:
        return 1
    cuts = (m - 1 + 3) // 4
    return max(_split_parts(m, k + 1, r - 1) for k in range(cuts + 1))


@cache
def _split_parts(m: int, pieces: int, r: int) -> int:
    """The most pieces after ``r`` more redeals, from ``m`` cards cut now into ``pieces`` runs."""
    if pieces == 1:
        return _parts(m, r)
    return max(
        _parts(first, r) + _split_parts(m - first, pieces - 1, r)
        for first in range(1, m - pieces + 2)
    )


@lru_cache(maxsize=1 << 18)
def _cut_cost(pile: tuple[int, ...], groups: int) -> int:
    """The fewest blockers left when ``pile`` (bottom to top) is cut into at most ``groups``
    runs of consecutive cards: a blocker counts only against lower cards of its suit in its own
    run. Each run is a pile of its own after the cuts, and a blocker there still needs a build."""
    n = len(pile)
    if groups >= n:
        return 0
    # best[j]: the fewest blockers in pile[:j] cut into the runs so far; one more run per round
    best = [0] + [_pile_blockers(pile[:j], False) for j in range(1, n + 1)]
    for _ in range(groups - 1):
        best = [0] + [
            min(best[i] + _pile_blockers(pile[i:j], False) for i in range(j))
            for j in range(1, n + 1)
        ]
    return best[n]


def _pile1_cost(pile: tuple[int, ...], r: int) -> int:
    """Pile 1 under the bottom-up redeal: its cards stay at their heights while they stay
    (fact P), so its bottom four are never cut apart and each further packet of four heights
    is cut off whole by the first redeal, then cut like any run by the ``r - 1`` others."""
    cost = _pile_blockers(pile[:4], False)
    for low in range(4, len(pile), 4):
        packet = pile[low : low + 4]
        cost += _cut_cost(packet, _parts(len(packet), r - 1))
    return cost


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
    start: Game,
    width: int,
    max_states: int,
    guide: list[Step] | None = None,
    max_memory: int = MAX_MEMORY,
    deadline: float | None = None,
    exact: bool = False,
) -> tuple[list[Step] | None, int]:
    """A quick win for an upper bound: the reduced game level by level (a level is one more
    build or redeal), keeping the ``width`` most promising positions of each level: the most
    cards on the foundations, then the fewest blockers. Returns the win (or None) and the
    positions expanded.

    A position dropped from a level may be met again later and kept then: only positions
    kept are marked seen, so a narrow beam does not starve on positions it once passed over.
    A ``guide`` (a known win) adds its own position to each level, so the beam never dies out
    and finds the guide's length at worst, and any shortcut from its line.

    The beam ends without a win at ``deadline`` (a :func:`time.perf_counter` reading) or when
    the positions it holds reach ``max_memory`` bytes (counted exactly in the core; in Python
    at :data:`PY_STATE_BYTES` a position): every budget of ``cruel solve
    --optimal`` holds in every phase of the search (issue #33). ``max_states`` is checked
    before each level; ``exact`` checks it before each position too (:mod:`.decide`, whose
    budget is a count the report must not pass).
    """
    core = engine.native()
    rules_t = None if core is None else _core_rules(start.rules)
    if core is not None and rules_t is not None:  # the same beam in the core (optimal.cpp)
        found: BeamResult = core.beam(
            start.piles,
            start.foundations,
            start.redeals,
            rules_t,
            max(0, width),
            max(0, max_states),
            [_core_step(core, s) for s in guide or []],
            max_memory,
            _seconds_left(deadline),
            exact=exact,
        )
        return (_core_steps(found.steps) if found.why == "won" else None), found.expanded
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
            if exact and expanded >= max_states:
                return None, expanded
            if _spent(
                deadline if expanded % POLL_EVERY == 0 else None,
                (len(seen) + len(following)) * PY_STATE_BYTES,
                max_memory,
            ):
                return None, expanded
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
    max_memory: int = MAX_MEMORY,
) -> OptimalResult:
    """The fewest actions that win from ``start``, or the best found and a proven bound.

    ``rule_f`` is passed to the plain solver, which guides the beams when they starve
    (:func:`cruel_tools.search.solver.solve`). ``max_memory`` bounds the bytes the plain solver and
    the native A* may hold (:func:`shortest`).

    ``known`` is a win already found (such as a puzzle's par), used as the first upper bound.
    The answer's ``lower_bound`` is proven whatever the budget; ``verdict`` is ``optimal`` when
    the best win found meets it, ``best-found`` when the budget ran out first, ``unwinnable``
    when the whole reduced game was searched without a win, ``unknown`` when no win was found
    within the budget.
    """
    began = time.perf_counter()
    deadline = None if max_seconds is None else began + max_seconds
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
        if width < 1 or stats.expanded >= max_states // 2 or _spent(deadline, 0, max_memory):
            break
        quick, used = beam(
            start,
            width,
            max_states // 2 - stats.expanded,
            guide=best,
            max_memory=max_memory,
            deadline=deadline,
        )
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
                max_seconds=_seconds_left(deadline) or None,
                rule_f=rule_f,
                max_memory=max_memory,
            )
            stats.expanded += found.stats.expanded
            if found.verdict == "unwinnable":
                return _done(OptimalResult("unwinnable", reason=found.reason), stats, began)
            if found.verdict == "won":
                best = found.steps
    steps, bound = shortest(
        start, best, max_states - stats.expanded, max_seconds, began, stats, max_memory
    )
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
    max_memory: int = MAX_MEMORY,
) -> tuple[list[Step] | None, int | None]:
    """A* over the reduced game for a win shorter than ``upper``.

    Returns ``(win, bound)``: a win shorter than ``upper`` if one was found (it is then optimal),
    and the proven lower bound on the optimum (None when the search ran out of positions: every
    win is then at least ``upper``, or there is none).

    Where the native core plays the profile (:func:`cruel_tools.game.engine.native_rules`) the
    search
    runs there (cruel_tools/native/optimal.cpp): the same A*, node for node (the same children in
    the same order, the same ties, pathmax and reopening), within ``max_memory`` bytes counted
    exactly (reaching it ends the search as the budget does), the GIL released (Ctrl-C raises
    :class:`KeyboardInterrupt`). The Python search estimates its memory at
    :data:`PY_STATE_BYTES` a position met.
    """
    began = time.perf_counter() if began is None else began
    stats = OptimalStats() if stats is None else stats
    limit = len(upper) if upper is not None else 1 << 30
    core = engine.native()
    rules_t = None if core is None else _core_rules(start.rules)
    if core is not None and rules_t is not None:
        return _native_shortest(
            core, rules_t, start, limit, max_states, max_seconds, began, stats, max_memory
        )
    deadline = None if max_seconds is None else began + max_seconds
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
            stats.unique = len(info)
            return None, bound  # nothing left can beat the upper bound: it is optimal
        if game.is_won():
            stats.unique = len(info)
            return _path(info, state), g
        if stats.expanded >= stop or _spent(
            deadline if stats.expanded % POLL_EVERY == 0 else None,
            len(info) * PY_STATE_BYTES,
            max_memory,
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
            # pathmax: bound C may drop by more than one in a step; a child's f is never
            # below its parent's, so the f popped never decreases and stays a proven bound
            child_f = max(f, cost + actions_bound(child, key[0]))
            if child_f >= limit:
                continue
            info[key] = (cost, state, step)
            heapq.heappush(
                frontier,
                (child_f, -child.foundation_cards, -next(tie), cost, key, child, child_held),
            )
    stats.unique = len(info)
    return None, None


def _native_shortest(
    core: Any,
    rules_t: NativeRules,
    start: Game,
    limit: int,
    max_states: int,
    max_seconds: float | None,
    began: float,
    stats: OptimalStats,
    max_memory: int,
) -> tuple[list[Step] | None, int | None]:
    """:func:`shortest` in the native core. Its win is replayed by :func:`optimize`."""
    seconds = 0.0  # the core reads 0 as "no time limit"; a budget already spent is a tiny one
    if max_seconds is not None:
        seconds = max(max_seconds - (time.perf_counter() - began), 1e-9)
    result: ShortestResult = core.shortest(
        start.piles,
        start.foundations,
        start.redeals,
        rules_t,
        limit,
        max(0, max_states),
        seconds,
        max_memory,
    )
    stats.expanded += result.expanded
    stats.unique = result.unique
    stats.pruned += result.pruned
    if result.why == "won":
        return _core_steps(result.steps), result.bound
    if result.why == "exhausted":
        return None, None
    return None, result.bound  # closed (nothing below the limit is left), or a budget spent


def _seconds_left(deadline: float | None) -> float:
    """Seconds to ``deadline`` as the core takes them: 0 is "no time limit", so a deadline
    already passed is a tiny budget."""
    if deadline is None:
        return 0.0
    return max(deadline - time.perf_counter(), 1e-9)


def _spent(deadline: float | None, held: int, max_memory: int) -> bool:
    """Whether a Python search must stop: its deadline passed, or the bytes it holds (an
    estimate) reached its memory budget. The searches ask about the memory at every position
    (a count, no cost: between two polls of the clock, 256 positions' children overshot a
    1 MB budget sixfold) and about the clock every :data:`POLL_EVERY` (``deadline`` None)."""
    return held > max_memory or (deadline is not None and time.perf_counter() > deadline)


def _core_rules(rules: Rules) -> NativeRules | None:
    """The profile as the core's fewest-actions search takes it, or None: optimal.cpp is held
    to this module's reduced game and bound for Cruel's own layout only (``Rules.cruel_layout``);
    the rest of the family stays here, though the core's solver plays it."""
    return engine.native_rules(rules) if rules.cruel_layout else None


def _core_steps(raw: list[CoreStep]) -> list[Step]:
    """The core's steps (source 0 a redeal, target 0 home) as the engine's."""
    return [REDEAL if s.source == 0 else Move(s.source, s.target or None, s.count) for s in raw]


def _core_step(core: Any, step: Step) -> CoreStep:
    """A step as the core takes it."""
    if isinstance(step, Redeal):
        made: CoreStep = core.CoreStep(source=0, target=0, count=1)
    else:
        made = core.CoreStep(source=step.source, target=step.target or 0, count=step.count)
    return made


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
