"""An exact solver for Cruel: best-first search with a transposition table and proven pruning.

Verdicts:

* ``won``: a solution was found (every solution is replayed through the engine before it is
  returned);
* ``unwinnable``: every reachable position was expanded or cut by a proven rule
  (docs/solver.md states each rule with its proof);
* ``unknown``: the budget (states or seconds) ran out first.

The solver holds no rule of the game: children come from :meth:`Game.legal_steps` and
:meth:`Game.push`. What it adds is search, and *sound* tests for positions that can never be won.
"""

from __future__ import annotations

import heapq
import random
import time
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import count
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ..formats import document_config
from ..game import cards, engine
from ..game.cards import KING, Card
from ..game.game import PACKET, REDEAL, Game, Move, Redeal, Step, builds_onto, foundation_index
from ..game.log import LogEntry
from ..game.proofcheck import Certificate
from ..game.rules import PRESETS, Rules
from ..game.traversal import played_entries
from ..game.verify import verify_bytes

if TYPE_CHECKING:
    from .._native import CoreStep, NativeRules, SearchResult

__all__ = [
    "Verdict",
    "Key",
    "Node",
    "SolveStats",
    "SolveResult",
    "Memo",
    "pile1_lock",
    "PASSES",
    "MAX_MEMORY",
    "PY_NODE_BYTES",
    "solve",
    "search",
    "memory_size",
    "parse_memory",
    "check_win",
    "exhaustive",
    "solution_log",
    "SOLVE_REPORT_FORMAT",
    "FrozenModel",
    "DealInfo",
    "StatsInfo",
    "Solution",
    "FewestActions",
    "SolveReport",
    "solve_report",
    "frozen_cards",
    "frozen_reason",
    "last_deal",
    "stuck_cards",
    "stuck_reason",
    "safe_home_move",
    "PROBE_SHARE",
    "PROBE_STATES",
    "PROBE_WALK",
    "PROBE_HOME",
    "PROBE_SEED",
    "PROBE_STALE",
    "probes_apply",
    "probe",
]

Verdict = Literal["won", "unwinnable", "unknown"]
Key = tuple[tuple[int, ...], ...]
Node = tuple[Key, tuple[int, int]]


@dataclass
class SolveStats:
    expanded: int = 0  # positions whose children were generated
    unique: int = 0  # distinct positions met (the transposition table's size)
    pruned: int = 0  # positions cut by a proven dead-position rule
    seconds: float = 0.0

    def add(self, other: SolveStats) -> None:
        """Count ``other``'s positions in these (a search's passes and probes add up)."""
        self.expanded += other.expanded
        self.unique += other.unique
        self.pruned += other.pruned


@dataclass
class SolveResult:
    verdict: Verdict
    steps: list[Step] = field(default_factory=list)
    stats: SolveStats = field(default_factory=SolveStats)
    reason: str = ""  # why unwinnable / unknown, in words

    @property
    def solution_moves(self) -> int:
        return sum(1 for s in self.steps if isinstance(s, Move))

    @property
    def solution_redeals(self) -> int:
        return sum(1 for s in self.steps if isinstance(s, Redeal))


class Memo:
    """What earlier searches proved, for later searches of positions of the same game to reuse.

    * ``lost``: positions proven lost, with the redeals used when they were (under a redeal
      limit a position with at least as many redeals used is lost too; without one the count is
      0). When a full search ends ``unwinnable``, every position it met is lost too: each is
      reachable from its start, and no position reachable from a lost one can be won
      (docs/analysis.md).
    * ``won``: positions on the line of a win found, with the redeals used there and the steps
      that win from them. A search that meets one has won: its path, then those steps (replayed
      through the engine before it is returned, like every solution).

    Reusing them never changes a verdict, only how soon it is reached: a search cut at a known
    lost position skips what it would have proven lost anyway, and one that meets a known win has
    found a win.

    Under the native core the memo lives in the core (a compact table, made by the first native
    search that is given this memo); ``lost`` and ``won`` are then copies of what it holds, for
    reading. A memo serves the searches of one game, so one engine.
    """

    def __init__(self) -> None:
        self._lost: dict[Key, int] = {}
        self._won: dict[Key, tuple[int, list[Step], int]] = {}
        self._core: Any = None  # the native core's memo (cruel_tools._native.Memo), or None

    @property
    def lost(self) -> dict[Key, int]:
        if self._core is None:
            return self._lost
        return {_key_of(item.piles): item.redeals for item in self._core.lost_items()}

    @property
    def won(self) -> dict[Key, tuple[int, list[Step], int]]:
        if self._core is None:
            return self._won
        return {
            _key_of(item.piles): (item.redeals, _steps_of(item.rest), 0)
            for item in self._core.won_items()
        }

    def is_lost(self, game: Game) -> bool:
        used = self._lost.get(game.key())
        return used is not None and used <= _used(game)

    def win_from(self, game: Game) -> list[Step] | None:
        """Steps that win from ``game``, if it lies on a win found; else None."""
        found = self._won.get(game.key())
        if found is None or found[0] < _used(game):
            return None
        return found[1][found[2] :]

    def add_win(self, start: Game, steps: list[Step]) -> None:
        """Record every position of the win ``steps`` from ``start``."""
        game = start.copy()
        for i, step in enumerate([*steps, None]):
            key = game.key()
            old = self._won.get(key)
            if old is None or old[0] < _used(game):
                self._won[key] = (_used(game), steps, i)
            if step is not None:
                game.push(step)


def _key_of(piles: list[list[int]]) -> Key:
    return tuple(map(tuple, piles))


def _steps_of(raw: list[CoreStep]) -> list[Step]:
    """The core's steps (source 0 a redeal, target 0 the foundation) as the engine's."""
    return [REDEAL if s.source == 0 else Move(s.source, s.target or None, s.count) for s in raw]


def _used(game: Game) -> int:
    """The redeals used, where they matter (under a redeal limit)."""
    return game.redeals if game.rules.max_redeals is not None else 0


# --- proven dead-position tests ------------------------------------------------------------------


def pile1_lock(game: Game) -> Card | None:
    """A card of pile 1's bottom four that can never leave the tableau, or None.

    Sound for profiles with the bottom-up redeal and single-card moves (docs/solver.md, rule L):
    those four cards keep their places until they leave from the top, so a card ``b`` above a
    lower card of its own suit, whose successor is a king's nothing or lies below it too, is
    stuck for ever. A locked card locks every card below it, so one is enough to report.
    Proven for Cruel's layout and build only (``Rules.cruel_layout``): it is off for Ripple Fan
    and Royal Family, whose redeals, builds or foundations the proof does not cover.
    """
    if not game.rules.locks_proven:
        return None
    p = game.piles[0][:4]
    for k in range(len(p) - 1, 0, -1):
        b = p[k]
        below = p[:k]
        suit, rank = divmod(b, 13)
        if not any(a // 13 == suit and a % 13 < rank for a in below):
            continue
        if rank + 1 == KING or b + 1 in below:
            return b
    return None


def frozen_cards(game: Game) -> list[Card]:
    """The cards of a frozen set (docs/solver.md, rule F), lowest first, or [] when none is found.

    A frozen set is a set of tableau cards none of which can ever move, because each is held by
    the others: it is covered for ever by one of them in the fixed prefix of the sequence, or it
    waits for a lower card of its suit in the set and is a king or has its successor covered for
    ever. The greatest such set is found by removing cards that fail until none does. Rule L's
    locks are frozen sets too. Sound under the same profiles as rule L (bottom-up redeal in
    packets, single-card moves, Cruel's layout and build).
    """
    if not game.rules.locks_proven:
        return []
    seq: list[Card] = []
    top_at: list[bool] = []
    for pile in game.piles:
        if pile:
            seq += pile
            top_at += [False] * (len(pile) - 1) + [True]
    last = PACKET - 1
    # Start from the cards that could stay: those that could be covered (not a top now, not the
    # last of a packet), and kings and cards whose successor could be covered. Any superset of
    # the greatest frozen set gives the same set below; this one is small, and empty at once
    # when the sequence's first card is not in it (then nothing can be covered).
    coverable = {seq[i] for i in range(len(seq) - 1) if not top_at[i] and i % PACKET != last}
    frozen = {b for b in seq if b in coverable or b % 13 == KING - 1 or b + 1 in coverable}
    if not seq or seq[0] not in frozen:
        return []
    while True:
        # The fixed prefix: cards of the set from the start of the sequence, each of which keeps
        # its index for as long as no card of the set moves. It ends after the first card that a
        # card outside the set might be built on (a top now, or the last of a packet later).
        m = 0
        while m < len(seq) and seq[m] in frozen:
            i = m
            m += 1
            c = seq[i]
            if (top_at[i] or i % PACKET == last) and (c % 13 == 0 or c - 1 not in frozen):
                break
        covered = {seq[i] for i in range(m - 1) if not top_at[i] and i % PACKET != last}
        if not covered:  # nothing is ever covered again, and each round drops the lowest of
            return []  # every suit: the set ends empty
        low = [52] * 4
        for b in frozen:
            low[b // 13] = min(low[b // 13], b)
        keep = {
            b
            for b in frozen
            if b in covered or (low[b // 13] < b and (b % 13 == KING - 1 or b + 1 in covered))
        }
        if keep == frozen:
            return sorted(frozen)
        frozen = keep


def frozen_reason(frozen: list[Card]) -> str:
    """The verdict's reason for a start position with a frozen set (rule F)."""
    names = " ".join(cards.name(c) for c in frozen[:6]) + (" ..." if len(frozen) > 6 else "")
    return f"{len(frozen)} cards can never move ({names}; rule F)"


# --- the rest of the family after its last redeal (rules V and S) --------------------------------


def last_deal(game: Game) -> bool:
    """Whether rules V and S (docs/solver.md) apply to ``game``: a profile of the rest of the
    family (``Rules.cruel_layout`` false), single-card moves, and its redeal limit used up, so
    that no redeal can ever come again (``Rules.stuck_proven``)."""
    return game.rules.stuck_proven(game.redeals)


_PerCard = tuple[tuple[Card, ...], ...]


@lru_cache(maxsize=32)
def _build_tables(rules: Rules) -> tuple[_PerCard, _PerCard]:
    """Per card: the cards it may be built onto (its hosts), and the cards that may be built onto
    it (its builders), as the engine's :func:`~cruel_tools.game.game.builds_onto` says."""
    deck = range(52)
    hosts = tuple(tuple(h for h in deck if h != b and builds_onto(rules, b, h)) for b in deck)
    builders = tuple(tuple(x for x in deck if x != c and builds_onto(rules, x, c)) for c in deck)
    return hosts, builders


def stuck_cards(game: Game) -> list[Card]:
    """The greatest set of cards that can never move again (docs/solver.md, rule V), lowest
    first, or [] when there is none; only once no redeal can come (:func:`last_deal`).

    A card of the set is covered by a card of the set (above it in its pile), or it waits for a
    card of the set that its foundation takes first and every card it could be built onto is on
    a foundation or covered by a card of the set.
    """
    if not last_deal(game):
        return []
    rules = game.rules
    hosts, _ = _build_tables(rules)
    where: dict[Card, tuple[int, int]] = {}
    for p, pile in enumerate(game.piles):
        for i, c in enumerate(pile):
            where[c] = (p, i)
    order = {c: foundation_index(rules, c) for c in where}
    stuck = set(where)
    while stuck:
        high = [-1] * len(game.piles)  # the index of the highest card of the set in each pile
        first = [13] * 4  # the foundation place of the first card of the set, per suit
        for c in stuck:
            p, i = where[c]
            high[p] = max(high[p], i)
            first[c // 13] = min(first[c // 13], order[c])
        drop = []
        for b in stuck:
            p, i = where[b]
            if high[p] > i:  # covered by a card of the set
                continue
            if first[b // 13] >= order[b]:  # nothing of the set must go home before it
                drop.append(b)
                continue
            for h in hosts[b]:
                at = where.get(h)  # None: h is on its foundation, for good
                if at is not None and not (h in stuck and high[at[0]] > at[1]):
                    drop.append(b)
                    break
        if not drop:
            return sorted(stuck)
        stuck.difference_update(drop)
    return []


def stuck_reason(stuck: list[Card]) -> str:
    """The verdict's reason for a start position with a stuck set (rule V)."""
    names = " ".join(cards.name(c) for c in stuck[:6]) + (" ..." if len(stuck) > 6 else "")
    return f"{len(stuck)} cards can never move ({names}; rule V)"


def safe_home_move(game: Game) -> Move | None:
    """A foundation move that loses nothing (docs/solver.md, rule S), or None: once no redeal
    can come (:func:`last_deal`), a top card that may go home and onto which no card left in the
    tableau may ever be built. The search plays it as the position's only child."""
    if not last_deal(game):
        return None
    rules = game.rules
    _, builders = _build_tables(rules)
    f = game.foundations
    for i, pile in enumerate(game.piles, 1):
        if not pile:
            continue
        c = pile[-1]
        if foundation_index(rules, c) != f[c // 13]:
            continue
        if all(foundation_index(rules, x) < f[x // 13] for x in builders[c]):
            return Move(i, None)
    return None


# --- search --------------------------------------------------------------------------------------


#: The passes of :func:`solve`: at most this many early redeals (made while a card could still
#: move), and the share of the budget each may use. ``None`` is the full search, which gets
#: whatever the earlier passes left.
PASSES: tuple[tuple[int | None, float], ...] = ((0, 0.15), (1, 0.35), (None, 1.0))


#: The memory one search may hold by default (``cruel solve --max-memory``).
MAX_MEMORY: Final = 1 << 30

#: What one node of the Python search holds, about (its key's tuples, its copy of the game in the
#: frontier, its entries in the table and the parents): tracemalloc's peak over 20,000 nodes of
#: deals 27 and 48 is 950-1,100 bytes a node, and the allocator adds some. The Python search
#: counts its nodes against the memory budget with it; the core counts its bytes exactly.
PY_NODE_BYTES: Final = 1_200


def solve(
    start: Game,
    max_states: int = 200_000,
    max_seconds: float | None = None,
    memo: Memo | None = None,
    max_memory: int = MAX_MEMORY,
    rule_f: bool = True,
) -> SolveResult:
    """Search ``start`` for a win within the budget.

    Passes of growing breadth: first only the games whose every redeal is made when no card can
    move, then those with at most one early redeal, then every legal game. Each narrow pass
    searches a subset of the legal games (the solver only chooses among legal steps), so a win it
    finds is a win; that it finds none proves nothing, and only the full pass may answer
    ``unwinnable``. The narrow spaces are small and hold wins for many deals that best-first
    search of the full space, which may redeal after every move, does not reach within budget.
    Under ``redeal_only_when_stuck`` rules the first pass is the whole game already. Where
    :func:`probes_apply` (``royal-family-pysolfc`` before its one redeal), :func:`probe` runs
    first with :data:`PROBE_SHARE` of the budget: it only looks for a win.

    With a ``memo``, positions it knows are cut (lost) or end the search (won), and what this
    search proves is added to it.

    ``max_memory`` bounds the bytes one pass may hold (its table, nodes and frontier); reaching
    it ends the solve as ``unknown``. The native core runs the passes' searches where it plays
    the profile (:func:`search`). ``rule_f`` False leaves rule F out (:func:`search`).
    """
    began = time.perf_counter()
    total = SolveStats()
    passes = PASSES[-1:] if start.rules.redeal_only_when_stuck else PASSES
    limit = start.rules.max_redeals
    if limit is not None and not start.rules.cruel_layout:
        # A pass allowing as many early redeals as the game has redeals left searches the whole
        # game: leave it to the full pass, which may prove a loss (royal-family-pysolfc's one
        # redeal: pass 2 is the whole game). Cruel's presets keep their passes as they were.
        left = limit - start.redeals
        passes = tuple(p for p in passes if p[0] is None or p[0] < left)
    result = SolveResult("unknown")
    if probes_apply(start) and max_states > 1:
        # First probes (docs/solver.md, "Probes: one redeal left"): they only look for a win,
        # within PROBE_SHARE of the budget; the passes get the rest.
        result = probe(
            start,
            max(1, min(max_states - 1, int(max_states * PROBE_SHARE))),
            None if max_seconds is None else max_seconds * PROBE_SHARE,
            memo=memo,
            max_memory=max_memory,
            rule_f=rule_f,
        )
        total.add(result.stats)
        if result.verdict == "won":
            passes = ()
    for early, share in passes:
        left_states = max_states - total.expanded
        left_seconds = None if max_seconds is None else max_seconds - (time.perf_counter() - began)
        if early is not None:
            left_states = min(left_states, max(1, int(max_states * share)))
            if max_seconds is not None:
                left_seconds = min(left_seconds or 0.0, max_seconds * share)
        result = search(
            start,
            max(1, left_states),
            left_seconds,
            early_redeals=early,
            memo=memo,
            max_memory=max_memory,
            rule_f=rule_f,
        )
        total.add(result.stats)
        if result.verdict == "won" or early is None:
            break
    result.stats = total
    total.seconds = time.perf_counter() - began
    if result.verdict == "unknown":  # name the whole budget, not what the last pass had left
        if result.reason.startswith("state"):
            result.reason = f"state budget of {max_states} spent"
        elif result.reason.startswith("time"):
            result.reason = f"time budget of {max_seconds} s spent"
    return result


#: Probes (docs/solver.md, "Probes: one redeal left"): the share of :func:`solve`'s budget they
#: may use, the positions each probe's search may expand after its redeal, the longest walk
#: before it, the chance that a walk takes a foundation move when one is legal, and the seed of
#: their walks (fixed: a solve is deterministic for a budget in positions).
PROBE_SHARE: Final = 0.5
PROBE_STATES: Final = 1_000
PROBE_WALK: Final = 120
PROBE_HOME: Final = 0.8
PROBE_SEED: Final = 25
#: Probes end after this many in a row that bring no position after the redeal not probed
#: before (a small position has few: its probes would repeat themselves to the end of the budget).
PROBE_STALE: Final = 5_000


def probes_apply(game: Game) -> bool:
    """Whether :func:`solve` runs probes before its full search: a profile of the rest of the
    family (``Rules.cruel_layout`` false) with single-card moves and exactly one redeal left
    (``royal-family-pysolfc`` before its redeal), so that a probe's search runs after the last
    redeal, where rules V and S apply."""
    rules = game.rules
    return (
        not rules.cruel_layout
        and not rules.run_moves
        and rules.max_redeals is not None
        and game.redeals == rules.max_redeals - 1
        and game.outcome() == "in_progress"
    )


def probe(
    start: Game,
    max_states: int,
    max_seconds: float | None = None,
    memo: Memo | None = None,
    max_memory: int = MAX_MEMORY,
    rule_f: bool = True,
) -> SolveResult:
    """Look for a win of ``start`` by probes; answers ``won`` or ``unknown``, never
    ``unwinnable`` (docs/solver.md, "Probes: one redeal left").

    A probe is a pseudo-random walk of card moves (at most :data:`PROBE_WALK`, a foundation
    move taken with chance :data:`PROBE_HOME` when one is legal), then the redeal, then
    :func:`search` from there with :data:`PROBE_STATES` positions. Each position of a walk whose
    steps were listed counts as expanded, so the probes end within ``max_states``; they end
    too after :data:`PROBE_STALE` probes in a row whose position after the redeal was searched
    before (each is searched once). The walks
    come from a generator seeded with :data:`PROBE_SEED` and play through the engine, so for a
    budget in positions both engines make the same walks and the same searches. A win is the
    walk, the redeal and the search's steps, replayed through the engine before it is returned.
    """
    began = time.perf_counter()
    stats = SolveStats()
    rng = random.Random(PROBE_SEED)
    probes = stale = 0
    probed: set[Key] = set()  # the positions after the redeal searched so far
    while stats.expanded < max_states and stale < PROBE_STALE:
        if max_seconds is not None and time.perf_counter() - began > max_seconds:
            break
        probes += 1
        stale += 1
        game = start.copy()
        walk: list[Step] = []
        length = rng.randint(0, PROBE_WALK)
        while stats.expanded < max_states:
            stats.expanded += 1  # this position's steps are listed
            if len(walk) == length:
                break
            moves = list(game.card_moves())
            if not moves:
                break
            home = [m for m in moves if m.target is None]
            step = rng.choice(home if home and rng.random() < PROBE_HOME else moves)
            game.push(step)
            walk.append(step)
        left = max_states - stats.expanded
        if left <= 0 or game.redeal_problem() is not None:
            continue
        game.redeal()
        key = game.key()
        if key in probed:
            continue
        probed.add(key)
        stale = 0
        left_seconds = None if max_seconds is None else max_seconds - (time.perf_counter() - began)
        found = search(
            game,
            min(PROBE_STATES, left),
            left_seconds,
            memo=memo,
            max_memory=max_memory,
            rule_f=rule_f,
        )
        stats.add(found.stats)
        if found.verdict == "won":
            steps = [*walk, REDEAL, *found.steps]
            check_win(start, steps, "probe")
            return _finish(SolveResult("won", steps), stats, began)
    reason = f"no win found by {probes} probes (proves nothing)"
    return _finish(SolveResult("unknown", reason=reason), stats, began)


def search(
    start: Game,
    max_states: int = 200_000,
    max_seconds: float | None = None,
    early_redeals: int | None = None,
    memo: Memo | None = None,
    max_memory: int = MAX_MEMORY,
    rule_f: bool = True,
) -> SolveResult:
    """Best-first search of the legal games from ``start``, within the budget.

    The position with the most foundation cards is expanded next (ties: the most recently
    found), which wins quickly where a win exists. ``early_redeals`` limits the redeals made
    while a card could still move (None: no limit); such a narrowed search can find a win but
    never proves a deal unwinnable, so it answers ``unknown`` when its space is exhausted.

    A position met again is expanded again only if it may do more than when first met: with
    fewer redeals used (under a redeal limit) or fewer early redeals used (when narrowed).

    A ``memo`` (:class:`Memo`) cuts the positions it knows lost and wins at the first position
    it knows on a win's line; a win found, or every position met when the answer is
    ``unwinnable``, is added to it.

    Where the native core plays the profile (:func:`cruel_tools.game.engine.native_rules`) the
    search
    runs there: the same search, node for node (it expands the same positions in the same order),
    about a hundred times faster, within ``max_memory`` bytes counted exactly, the GIL released
    (Ctrl-C raises :class:`KeyboardInterrupt`). Its wins are replayed here like every win.

    ``rule_f`` False searches without rule F (frozen sets), as the solver did before it: the same
    verdicts where both decide, more positions. Grading version 2 searches so, since the effort
    and critical decisions of the published puzzles were measured that way
    (:data:`cruel_tools.search.grading.GRADER_VERSION`).
    """
    core = engine.native()
    rules_t = None if core is None else engine.native_rules(start.rules)
    if core is not None and rules_t is not None:
        return _native_search(
            core, rules_t, start, max_states, max_seconds, early_redeals, memo, max_memory, rule_f
        )
    began = time.perf_counter()
    stats = SolveStats()
    limited = start.rules.max_redeals is not None
    narrowed = early_redeals is not None
    tie = count()
    # A node is a position with the (redeals used, early redeals used) it was reached with.
    # ``best`` keeps, per position, the marks met that no other mark met is below in both counts
    # (a position reached with fewer redeals or early redeals used may do more);
    # ``parents`` gives each node the node it was first reached from. A node is created only
    # after its parent, so following parents always ends at the root: a node re-reached with a
    # smaller mark is a new node, never a re-pointed old one (which could close a loop).
    root_key = start.key()
    root: Node = (root_key, (start.redeals if limited else 0, 0))
    best: dict[Key, list[tuple[int, int]]] = {root_key: [root[1]]}
    parents: dict[Node, tuple[Node | None, Step | None]] = {root: (None, None)}
    frontier: list[tuple[int, int, Game, Node, int]] = [
        (-start.foundation_cards, 0, start, root, 0)
    ]
    stats.unique = 1
    # The proven rules at the start, worked out once: they cut the root here and name the reason
    # at the end.
    lock = pile1_lock(start)
    frozen = [] if lock is not None or not rule_f else frozen_cards(start)
    stuck_set = stuck_cards(start)
    variant = not start.rules.cruel_layout  # rules V and S may apply (after the last redeal)
    if lock is not None or frozen or stuck_set or (memo is not None and memo.is_lost(start)):
        stats.pruned = 1
        frontier.clear()
    while frontier:
        _, _, game, node, early = heapq.heappop(frontier)
        rest = memo.win_from(game) if memo is not None and node is root else None
        if game.is_won() or rest is not None:
            return _won(start, _path(parents, node) + (rest or []), memo, stats, began)
        if stats.expanded >= max_states:
            reason = f"state budget of {max_states} spent"
            return _finish(SolveResult("unknown", reason=reason), stats, began)
        if stats.expanded % 256 == 0:
            if max_seconds is not None and time.perf_counter() - began > max_seconds:
                reason = f"time budget of {max_seconds} s spent"
                return _finish(SolveResult("unknown", reason=reason), stats, began)
            if len(parents) * PY_NODE_BYTES > max_memory:
                reason = f"memory budget of {memory_size(max_memory)} spent"
                return _finish(SolveResult("unknown", reason=reason), stats, began)
        stats.expanded += 1
        stuck = narrowed and not game.has_card_move()
        # Rule S: a foundation move that loses nothing is the only child searched.
        safe = safe_home_move(game) if variant else None
        for step in game.legal_steps() if safe is None else (safe,):
            child_early = early
            if narrowed and isinstance(step, Redeal) and not stuck:
                child_early += 1
                if child_early > early_redeals:  # type: ignore[operator]
                    continue
            child = game.copy()
            child.push(step)
            ck = child.key()
            old = best.get(ck)
            mark = (child.redeals if limited else 0, child_early)
            if old is not None and any(r <= mark[0] and e <= mark[1] for r, e in old):
                continue
            if old is None:
                best[ck] = [mark]
            else:
                best[ck] = [m for m in old if not (mark[0] <= m[0] and mark[1] <= m[1])] + [mark]
            child_node: Node = (ck, mark)
            parents[child_node] = (node, step)
            if old is None:
                stats.unique += 1
            # Proven lost: never expanded (rules L and F). Pile 1 changes only by a step that
            # touches it or by a redeal; otherwise the parent's check of rule L stands. Rule F
            # (which finds every lock of rule L too) is checked on every child.
            touches = isinstance(step, Redeal) or step.source == 1 or step.target == 1
            if (touches and pile1_lock(child) is not None) or (rule_f and frozen_cards(child)):
                stats.pruned += 1
                continue
            if variant and stuck_cards(child):  # rule V
                stats.pruned += 1
                continue
            if memo is not None:
                used = child.redeals if limited else 0
                if memo._lost.get(ck, used + 1) <= used:  # proven lost by an earlier search
                    stats.pruned += 1
                    continue
                line = memo._won.get(ck)  # (the key at hand: no second Game.key())
                if line is not None and line[0] >= used:  # on the line of a win found earlier
                    rest = line[1][line[2] :]
                    return _won(start, _path(parents, child_node) + rest, memo, stats, began)
            heapq.heappush(
                frontier, (-child.foundation_cards, -next(tie), child, child_node, child_early)
            )
    if memo is not None and not narrowed:  # every position met is lost (see Memo)
        for key, marks in best.items():
            used = min(r for r, _ in marks)
            if memo._lost.get(key, used + 1) > used:
                memo._lost[key] = used
    if lock is not None:
        return _finish(
            SolveResult(
                "unwinnable", reason=f"{cards.name(lock)} in pile 1 can never leave (rule L)"
            ),
            stats,
            began,
        )
    if frozen:
        reason = frozen_reason(frozen)
        return _finish(SolveResult("unwinnable", reason=reason), stats, began)
    if stuck_set:
        return _finish(SolveResult("unwinnable", reason=stuck_reason(stuck_set)), stats, began)
    if narrowed:
        reason = f"no win with at most {early_redeals} early redeals (proves nothing)"
        return _finish(SolveResult("unknown", reason=reason), stats, began)
    reason = "every reachable position searched or proven lost"
    return _finish(SolveResult("unwinnable", reason=reason), stats, began)


def _native_search(
    core: Any,
    rules_t: NativeRules,
    start: Game,
    max_states: int,
    max_seconds: float | None,
    early_redeals: int | None,
    memo: Memo | None,
    max_memory: int,
    rule_f: bool,
) -> SolveResult:
    """:func:`search` in the native core (cruel_tools/native/search.cpp)."""
    began = time.perf_counter()
    core_memo = None
    if memo is not None:
        if memo._core is None:
            memo._core = core.Memo()
        core_memo = memo._core
    result: SearchResult = core.search(
        start.piles,
        start.foundations,
        start.redeals,
        rules_t,
        max(1, max_states),
        # The core reads 0 as "no time limit"; a budget already spent is a tiny one.
        0.0 if max_seconds is None else max(max_seconds, 1e-9),
        -1 if early_redeals is None else early_redeals,
        max_memory,
        core_memo,
        rule_f,
    )
    stats = SolveStats(expanded=result.expanded, unique=result.unique, pruned=result.pruned)
    why, lock = result.why, result.lock
    if result.verdict == "won":
        raw = result.steps  # (a new list at each reading)
        steps = _steps_of(raw)
        check_win(start, steps, "native solver")
        if core_memo is not None:  # only once game.py agrees that it wins
            core_memo.add_win(
                start.piles, start.foundations, start.redeals, rules_t, raw, max_memory
            )
        return _finish(SolveResult("won", steps), stats, began)
    reasons = {
        "states": f"state budget of {max_states} spent",
        "time": f"time budget of {max_seconds} s spent",
        "memory": f"memory budget of {memory_size(max_memory)} spent",
        "lock": f"{cards.name(lock)} in pile 1 can never leave (rule L)",
        "frozen": frozen_reason(frozen_cards(start)) if why == "frozen" else "",
        "stuck": stuck_reason(stuck_cards(start)) if why == "stuck" else "",
        "narrowed": f"no win with at most {early_redeals} early redeals (proves nothing)",
        "exhausted": "every reachable position searched or proven lost",
    }
    verdict: Verdict = "unwinnable" if result.verdict == "unwinnable" else "unknown"
    return _finish(SolveResult(verdict, reason=reasons[why]), stats, began)


def memory_size(n: int) -> str:
    """A byte count as people write it: ``1 GiB``, ``512 MiB``, ``1500 bytes``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def parse_memory(text: str) -> int:
    """``512M``, ``1G``, ``1.5G``, ``300000`` (bytes): a memory size; K, M, G are powers of
    1024 (an optional ``iB`` or ``B`` after them is allowed). :class:`ValueError` otherwise."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(t[-1:], 1)
    number = t[:-1] if scale != 1 else t
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not value > 0 or value != value or value * scale > 1 << 50:
        raise ValueError(f"not a memory size: {text!r} (say 512M, 1G or a number of bytes)")
    return int(value * scale)


def _won(
    start: Game, steps: list[Step], memo: Memo | None, stats: SolveStats, began: float
) -> SolveResult:
    check_win(start, steps)
    if memo is not None:
        memo.add_win(start, steps)
    return _finish(SolveResult("won", steps), stats, began)


def check_win(start: Game, steps: list[Step], who: str = "solver") -> None:
    """Replay a search's win through the engine: one that does not win is a bug in the search
    (``who`` names it in the :class:`AssertionError`)."""
    game = start.copy()
    for step in steps:
        game.push(step)
    if not game.is_won():
        raise AssertionError(f"the {who}'s solution does not win")


def _finish(result: SolveResult, stats: SolveStats, began: float) -> SolveResult:
    stats.seconds = time.perf_counter() - began
    result.stats = stats
    return result


def _path(parents: dict[Node, tuple[Node | None, Step | None]], node: Node) -> list[Step]:
    steps: list[Step] = []
    parent, step = parents[node]
    while parent is not None and step is not None:
        steps.append(step)
        parent, step = parents[parent]
    return steps[::-1]


def exhaustive(start: Game, max_states: int = 1_000_000) -> bool | None:
    """Whether ``start`` can be won, by plain depth-first search over every reachable position,
    with no pruning at all; None past ``max_states``. The reference the solver is tested against.
    """
    limited = start.rules.max_redeals is not None
    seen: dict[tuple[tuple[int, ...], ...], int] = {}
    stack = [start]
    while stack:
        game = stack.pop()
        if game.is_won():
            return True
        for step in game.legal_steps():
            child = game.copy()
            child.push(step)
            ck = child.key()
            if ck in seen and (not limited or seen[ck] <= child.redeals):
                continue
            seen[ck] = child.redeals
            if len(seen) > max_states:
                return None
            stack.append(child)
    return False


# --- solutions as logs ---------------------------------------------------------------------------


def solution_log(
    number: int | None,
    piles: list[list[Card]],
    rules: Rules,
    steps: list[Step],
    prefix: list[Step] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete ``cruel-log/1`` document: ``prefix`` (moves already played) then ``steps``,
    from the deal, with a true claim. It is verified before it is returned; a log the verifier
    would not accept is a bug here, raised as :class:`AssertionError`.
    """
    game = Game.from_deal(piles, rules)
    entries = played_entries(game, [*(prefix or []), *steps], in_place=True)
    doc: dict[str, Any] = {
        "format": "cruel-log/1",
        "rules": rules.preset
        if rules == PRESETS[rules.preset]
        else rules.model_dump(exclude_defaults=False),
        "deal": {"number": number}
        if number is not None
        else {"piles": [[cards.name(c) for c in p] for p in piles]},
        "moves": entries,
        "claim": {
            "outcome": game.outcome(),
            "foundation_cards": game.foundation_cards,
            "moves": game.moves,
            "redeals": game.redeals,
        },
    }
    if meta:
        doc["meta"] = meta
    report = verify_bytes(orjson.dumps(doc))
    if not report.valid:
        raise AssertionError(f"solver produced a log the verifier rejects: {report.error}")
    return doc


# --- reports -------------------------------------------------------------------------------------

SOLVE_REPORT_FORMAT: Final = "cruel-solve-report/1"


class FrozenModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DealInfo(FrozenModel):
    number: int | None = Field(description="The deal number, or null for a deal given by piles.")
    piles: list[list[str]] = Field(description="The deal's 12 piles, each bottom to top.")


class StatsInfo(FrozenModel):
    expanded: int = Field(description="Positions whose children were generated.")
    unique: int = Field(description="Distinct positions met.")
    pruned: int = Field(description="Positions cut by a proven rule (docs/solver.md).")
    seconds: float


class Solution(FrozenModel):
    moves: int
    redeals: int
    steps: list[LogEntry] = Field(description="The solution's steps in log form.")


class FewestActions(FrozenModel):
    """What ``cruel solve --optimal`` proves (cruel_tools.search.optimal)."""

    verdict: Literal["optimal", "best-found", "unwinnable", "unknown"] = Field(
        description="optimal: the solution has the fewest actions possible. best-found: the "
        "budget ran out before the bound met it. unwinnable / unknown: as the solve verdict."
    )
    actions: int | None = Field(
        description="Actions (card moves + redeals) of the solution; null without one."
    )
    lower_bound: int = Field(
        description="Proven: every win from the position takes at least this many actions."
    )


class SolveReport(FrozenModel):
    """What ``cruel solve --json`` prints."""

    model_config = document_config("Cruel solve report v1", "solve-report")

    format: Literal["cruel-solve-report/1"] = SOLVE_REPORT_FORMAT
    deal: DealInfo
    rules: Rules
    prefix_steps: int = Field(description="Logged steps played before the solution starts.")
    verdict: Verdict
    reason: str = Field(description="Why unwinnable or unknown, in words; empty for a win.")
    stats: StatsInfo
    solution: Solution | None
    fewest_actions: FewestActions | None = Field(
        None, description="With --optimal: what the fewest-actions search proved; else null."
    )
    certificate: Certificate | None = Field(
        None,
        description="For an unwinnable verdict: why, in a form cruel check-proof verifies "
        "(docs/solver.md, Certificates); null otherwise, or when none could be made.",
    )


def solve_report(
    result: SolveResult,
    number: int | None,
    piles: list[list[Card]],
    position: Game,
    prefix_steps: int = 0,
) -> SolveReport:
    """The report of ``result``, found from ``position`` (a deal after ``prefix_steps``)."""
    st = result.stats
    solution = None
    if result.verdict == "won":
        solution = Solution(
            moves=result.solution_moves,
            redeals=result.solution_redeals,
            steps=played_entries(position, result.steps),
        )
    return SolveReport(
        deal=DealInfo(number=number, piles=[[cards.name(c) for c in p] for p in piles]),
        rules=position.rules,
        prefix_steps=prefix_steps,
        verdict=result.verdict,
        reason=result.reason,
        stats=StatsInfo(
            expanded=st.expanded, unique=st.unique, pruned=st.pruned, seconds=st.seconds
        ),
        solution=solution,
    )
