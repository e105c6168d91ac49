"""Difficulty grading: a ladder of deterministic players of growing skill, then the solver.

A deal's tier is set by the weakest player that wins it (docs/grading.md). The ladder is one
table, :data:`LADDER` (weakest first: tier, player, technique), as the difficulty list of Simon
Tatham's puzzles is: the tiers (:data:`TIERS`), the players grading tries (:data:`PLAYERS`) and
the tier of each player (:data:`TIER_OF`) are all read from it.

Players 3 and 4 are the solver's narrow passes (docs/solver.md) used as players: the technique a
deal needs (no early redeal, one, several) is what makes it hard, as in Simon Tatham's puzzles,
where a grade is the weakest solving technique that suffices.

Every player plays through :class:`cruel_tools.game.game.Game` (legal steps only); grading adds the
metrics a puzzle site shows: the solver's effort, par (the fewest actions, proven optimal where
the budget allows: :mod:`cruel_tools.search.optimal`), critical
decisions along it, and how often a random legal player wins.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, get_args

from pydantic import Field

from .. import constants
from ..formats import document_config
from ..game import cards
from ..game.cards import Card
from ..game.game import Game, Move, Redeal, Step
from ..game.log import LogEntry
from ..game.rules import DEFAULT, Rules
from ..game.traversal import played_entries
from ..game.verify import plural
from .optimal import optimize
from .short_wins import SHORT_WIN_WIDTH, shortest_found
from .solver import MAX_MEMORY, DealInfo, FrozenModel, Verdict, search, solve

__all__ = [
    "GRADE_FORMAT",
    "GRADER_VERSION",
    "PROOF_STATES",
    "PROOF_MEMORY",
    "SHORT_WIN_BYTES",
    "FAMILY_PROOF_STATES",
    "Tier",
    "Budget",
    "Par",
    "Metrics",
    "Grade",
    "Player",
    "player1",
    "player2",
    "player3",
    "player4",
    "Rung",
    "LADDER",
    "TIERS",
    "PLAYERS",
    "TIER_OF",
    "EARLY_REDEAL",
    "random_win_rate",
    "critical_decisions",
    "Classified",
    "classify",
    "grade",
    "fewest_actions",
]

GRADE_FORMAT: Final = "cruel-grade/1"
#: 2: par is the fewest actions (cruel_tools.search.optimal), with its proven lower bound.
#: 3: par is searched in the native core with bound C and a proof budget of about a minute of
#: one core (:data:`PROOF_STATES` positions), so it is the proven optimum for most deals.
#: 4: where that proof budget runs out, a short-win beam (:mod:`.short_wins`) of
#: :data:`SHORT_WIN_WIDTH` positions a level may shorten par (issue #38: an outside search beat
#: two published pars).
GRADER_VERSION: Final = "4"
# The ladder's searches leave rule F out (docs/solver.md), as in versions 1 and 2: a search with
# it can win within its budget where one without it did not, and so move a deal to an easier
# tier. Version 3 changes par only, so every published deal keeps its tier (and its day).
_RULE_F: Final = False
#: Par's proof budget: positions the fewest-actions search may expand. About 60 s of one core
#: of the native core on the project's machine (~330,000 positions a second, benchmarks/RESULTS.md);
#: positions, not seconds, so a set regenerates byte for byte on any machine.
PROOF_STATES: Final = 20_000_000
#: Par's memory budget: large enough that the positions bind first (a search of PROOF_STATES
#: positions meets at most ~40 million at ~90 bytes each); if it binds, par is still a win with
#: a proven bound.
PROOF_MEMORY: Final = 4 << 30
#: What a short-win beam holds per position of its width, about (2.6 GB at its peak for a width
#: of 1,000,000 on the 2027-01-04 expert, benchmarks/RESULTS.md): under a memory budget the beam
#: narrows to fit, rather than fill the budget and give up (a narrower beam still finds wins).
SHORT_WIN_BYTES: Final = 2_800
#: Par's proof budget under the rest of the family (Ripple Fan, Royal Family), whose
#: fewest-actions search runs in Python (about 5,000 positions a second): version 2's.
FAMILY_PROOF_STATES: Final = 100_000
#: The tiers, easiest first: a Literal that repeats the tier column of :data:`LADDER`, stated
#: in :mod:`cruel_tools.constants` (the CLI's help names them without importing grading) and
#: checked against the table below it.
Tier = constants.Tier


@dataclass(frozen=True)
class Budget:
    """How hard grading tries; the defaults are what published puzzles use."""

    solver_states: int = constants.SOLVE_MAX_STATES
    solver_seconds: float | None = None  # None: states only, so grading is deterministic
    critical_states: int = 300  # per alternative checked at a decision point
    playouts: int = 200  # random players
    playout_steps: int = 400
    player_states: int = 30_000  # search budget of players 3 and 4
    optimal_states: int = PROOF_STATES  # positions the fewest-actions search may expand for par
    optimal_memory: int = PROOF_MEMORY  # bytes it may hold
    # Positions a level of the short-win beam run where par's proof budget runs out (version 4);
    # it may expand optimal_states positions and hold optimal_memory bytes too.
    short_win_width: int = SHORT_WIN_WIDTH
    # Bytes each of the ladder's searches may hold (the solver, players 3 and 4, the critical
    # decisions' checks): they need under 20 MiB at these position budgets (issue #34).
    search_memory: int = MAX_MEMORY

    def within(self, memory: int) -> Budget:
        """This budget with no search holding more than ``memory`` bytes: what a memory budget
        leaves the searches (:mod:`cruel_tools.memory`). Grading runs one search at a time, so
        each may have all of it."""
        return replace(
            self,
            optimal_memory=min(self.optimal_memory, memory),
            search_memory=min(self.search_memory, memory),
        )


class Par(FrozenModel):
    """The fewest actions found for a win, and what is proven about the fewest possible."""

    actions: int = Field(
        description="Actions of the par solution: card moves plus redeals (what the seed "
        "challenge counts)."
    )
    moves: int = Field(description="Card moves of the par solution.")
    redeals: int = Field(description="Redeals of the par solution.")
    optimal: bool = Field(
        description="Proven: no win of this deal takes fewer actions (lower_bound == actions)."
    )
    lower_bound: int = Field(
        description="Proven: every win of this deal takes at least this many actions."
    )

    def proves_optimal(self, actions: int) -> bool:
        """Whether a win in ``actions`` actions is proven to take the fewest possible: it meets
        the proven lower bound (which an optimal par also meets)."""
        return actions == self.lower_bound

    def describe(self) -> str:
        """``60 actions (53 moves, 7 redeals), optimal`` or ``79 actions (67 moves, 12
        redeals), optimum >= 66``: what is proven, as ``cruel solve --optimal`` says it."""
        split = f"{plural(self.moves, 'move')}, {plural(self.redeals, 'redeal')}"
        proven = "optimal" if self.optimal else f"optimum >= {self.lower_bound}"
        return f"{plural(self.actions, 'action')} ({split}), {proven}"


class Metrics(FrozenModel):
    ladder: dict[str, bool] = Field(
        description="Which ladder players were tried and whether they won, weakest first; the "
        "stronger ones are not played once one wins."
    )
    solver_states: int = Field(description="Positions the solver expanded.")
    par: Par = Field(
        description="The fewest actions found for a win (cruel_tools.search.optimal), with "
        "its bound."
    )
    critical_decisions: int = Field(
        description="Positions on the par solution where only one legal step still wins, as far "
        "as a small search from each alternative can tell."
    )
    random_win_rate: float = Field(description="Share of seeded random legal playouts that win.")
    random_playouts: int


class Grade(FrozenModel):
    """What ``cruel grade --json`` prints."""

    model_config = document_config("Cruel grade v1", "grade")

    format: Literal["cruel-grade/1"] = GRADE_FORMAT
    grader_version: str = GRADER_VERSION
    deal: DealInfo
    rules: Rules
    verdict: Verdict
    tier: Tier | None = Field(description="null unless the deal is won.")
    metrics: Metrics | None
    solution: list[LogEntry] | None = Field(description="The par solution in log form.")


# --- the ladder ----------------------------------------------------------------------------------

Player = Callable[[Game, Budget], list[Step] | None]


def _greedy(game: Game, build: bool) -> list[Step]:
    """Play in place: foundation moves first, then (if ``build``) a build move, else redeal."""
    steps: list[Step] = []
    # Emptying a one-card pile onto its neighbour and redealing can restore a layout, so a
    # simple player can go round in circles: seeing a position again ends its game.
    seen: set[tuple[tuple[int, ...], ...]] = set()
    while not game.is_won():
        key = game.key()
        if key in seen:
            break
        seen.add(key)
        moves = list(game.card_moves())
        home = [m for m in moves if m.target is None]
        if home:
            step: Step = home[0]
        elif build and (builds := [m for m in moves if m.target is not None]):
            step = _best_build(game, builds)
        elif game.redeal_problem() is None:
            step = Redeal()
        else:
            break
        game.push(step)
        steps.append(step)
    return steps


def _best_build(game: Game, builds: Sequence[Move]) -> Move:
    """The simple rule of player 2: the build that uncovers the lowest card (ties: first)."""

    def uncovered_rank(m: Move) -> int:
        pile = game.piles[m.source - 1]
        return cards.rank(pile[-1 - m.count]) if len(pile) > m.count else 14

    return min(builds, key=uncovered_rank)


def player1(game: Game, budget: Budget) -> list[Step] | None:
    """Plays every foundation move it can and redeals when stuck."""
    g = game.copy()
    steps = _greedy(g, build=False)
    return steps if g.is_won() else None


def player2(game: Game, budget: Budget) -> list[Step] | None:
    """Player 1, but when no card can go home it builds down in suit (see :func:`_best_build`)."""
    g = game.copy()
    steps = _greedy(g, build=True)
    return steps if g.is_won() else None


def _technique(early: int) -> Player:
    def play(game: Game, budget: Budget) -> list[Step] | None:
        result = search(
            game.copy(),
            max_states=budget.player_states,
            early_redeals=early,
            rule_f=_RULE_F,
            max_memory=budget.search_memory,
        )
        return result.steps if result.verdict == "won" else None

    play.__doc__ = f"A perfect planner that makes at most {early} early redeal(s)."
    return play


player3 = _technique(0)
player4 = _technique(1)


@dataclass(frozen=True)
class Rung:
    """One row of the ladder: a player and the tier of the deals it is the weakest to win."""

    tier: Tier
    player: str  # its key in Metrics.ladder
    technique: str  # what it can do, in one line
    play: Player | None  # None: the full solver, which grading runs first anyway (for the verdict)


#: The ladder, weakest player first: THE table of tiers and players (docs/grading.md shows it).
#: A deal's tier is that of the first row whose player wins it; the last row is the solver.
LADDER: Final[tuple[Rung, ...]] = (
    Rung("easy", "player1", "plays foundation moves, redeals when stuck", player1),
    Rung(
        "easy", "player2", "as player 1, and builds down in suit when no card can go home", player2
    ),
    Rung("medium", "player3", "plans perfectly, but never redeals while a card can move", player3),
    Rung("hard", "player4", "plans perfectly, with at most one early redeal", player4),
    Rung("expert", "solver", "the full solver: several early redeals if need be", None),
)
#: The tiers, easiest first (each once, in ladder order).
TIERS: Final[tuple[Tier, ...]] = tuple(dict.fromkeys(rung.tier for rung in LADDER))
#: The players grading tries after the solver has won, weakest first: every row but the solver.
PLAYERS: Final[tuple[tuple[str, Player], ...]] = tuple(
    (rung.player, rung.play) for rung in LADDER if rung.play is not None
)
#: The tier of a deal whose weakest winner is the player of that name.
TIER_OF: Final[Mapping[str, Tier]] = {rung.player: rung.tier for rung in LADDER}

# Checked at import (not with ``assert``, which ``python -O`` drops): a Literal that differs from
# the table, or a ladder that does not end with the solver, would grade deals wrongly.
if TIERS != get_args(Tier):
    raise ImportError(f"grading.Tier {get_args(Tier)} is not the ladder's tiers {TIERS}")
if [rung.play is None for rung in LADDER] != [False] * (len(LADDER) - 1) + [True]:
    raise ImportError("the ladder must end with the solver, and only there")


# --- metrics -------------------------------------------------------------------------------------


EARLY_REDEAL: Final = 0.01


def random_win_rate(game: Game, playouts: int, max_steps: int, seed: int = 0) -> float:
    """Share of ``playouts`` seeded random games that win.

    The random player picks uniformly among the legal card moves, except that with probability
    :data:`EARLY_REDEAL` it redeals early when it may; when no card can move it redeals. Choosing
    the redeal as often as any move would make nearly every game an endless shuffle of layouts,
    and never redealing early would make every deal that needs an early redeal unwinnable for it.
    It stops when a position comes back.
    """
    wins = 0
    for k in range(playouts):
        rng = random.Random(seed * 1_000_003 + k)
        g = game.copy()
        seen: set[tuple[tuple[int, ...], ...]] = set()
        for _ in range(max_steps):
            key = g.key()
            if g.is_won() or key in seen:
                break
            seen.add(key)
            moves = list(g.card_moves())
            early = rng.random() < EARLY_REDEAL
            if moves and not (early and g.redeal_problem() is None):
                g.push(rng.choice(moves))
            elif g.redeal_problem() is None:
                g.push(Redeal())
            else:
                break
        wins += g.is_won()
    return wins / playouts if playouts else 0.0


def critical_decisions(game: Game, steps: Sequence[Step], budget: Budget) -> int:
    """Positions on ``steps`` where no other legal step is shown to still win by a small search."""
    g = game.copy()
    count = 0
    for step in steps:
        options = [s for s in g.legal_steps() if s != step]
        if options:
            alternative_wins = False
            for other in options:
                trial = g.copy()
                trial.push(other)
                found = solve(
                    trial, budget.critical_states, rule_f=_RULE_F, max_memory=budget.search_memory
                )
                if found.verdict == "won":
                    alternative_wins = True
                    break
            count += not alternative_wins
        g.push(step)
    return count


def _moves_redeals(steps: Sequence[Step]) -> tuple[int, int]:
    redeals = sum(1 for s in steps if isinstance(s, Redeal))
    return len(steps) - redeals, redeals


@dataclass
class Classified:
    """The cheap part of grading: verdict, tier, and the solutions found on the way."""

    verdict: Verdict
    tier: Tier | None
    ladder: dict[str, bool]
    solutions: list[list[Step]]
    solver_states: int


def classify(game: Game, budget: Budget = Budget()) -> Classified:
    """Verdict and tier of a position, without the costlier metrics (for choosing puzzles)."""
    result = solve(
        game.copy(),
        max_states=budget.solver_states,
        max_seconds=budget.solver_seconds,
        rule_f=_RULE_F,
        max_memory=budget.search_memory,
    )
    if result.verdict != "won":
        return Classified(result.verdict, None, {}, [], result.stats.expanded)
    ladder: dict[str, bool] = {}
    solutions: list[list[Step]] = [result.steps]
    tier = _weakest_winner(game, budget, ladder, solutions)
    return Classified("won", tier, ladder, solutions, result.stats.expanded)


def _weakest_winner(
    game: Game, budget: Budget, ladder: dict[str, bool], solutions: list[list[Step]]
) -> Tier:
    """The tier of ``game``, which the solver has won: that of its weakest winning player (each
    one tried is noted in ``ladder``, the winner's game added to ``solutions``), else the
    solver's."""
    for name, play in PLAYERS:
        steps = play(game, budget)
        ladder[name] = steps is not None
        if steps is not None:  # the weakest winner is known: the stronger ones need not play
            solutions.append(steps)
            return TIER_OF[name]
    return LADDER[-1].tier  # the solver's row (checked above to be the last)


def grade(
    piles: list[list[Card]],
    number: int | None = None,
    rules: Rules = DEFAULT,
    budget: Budget = Budget(),
    found: Classified | None = None,
    phase: Callable[[str], None] = lambda _what: None,
) -> Grade:
    """Grade a deal: its tier, metrics and par solution (only for deals the solver wins).

    ``found`` is the deal's :func:`classify` result when the caller has it already (choosing
    puzzles classifies every candidate first), so it is not worked out twice. ``phase`` is told
    what grading does next, in a few words (``cruel grade``'s progress line shows it).
    """
    start = Game.from_deal(piles, rules)
    deal = DealInfo(number=number, piles=[[cards.name(c) for c in p] for p in piles])
    if found is None:
        phase("solving, then the ladder")
        found = classify(start, budget)
    if found.tier is None:
        return Grade(
            deal=deal, rules=rules, verdict=found.verdict, tier=None, metrics=None, solution=None
        )
    tier, ladder, solutions = found.tier, found.ladder, found.solutions
    phase("par: the fewest actions")
    par, best = fewest_actions(start, solutions, budget)
    phase("critical decisions")
    critical = critical_decisions(start, best, budget)
    phase("random playouts")
    metrics = Metrics(
        ladder=ladder,
        solver_states=found.solver_states,
        par=par,
        critical_decisions=critical,
        random_win_rate=random_win_rate(start, budget.playouts, budget.playout_steps, number or 0),
        random_playouts=budget.playouts,
    )
    return Grade(
        deal=deal,
        rules=rules,
        verdict="won",
        tier=tier,
        metrics=metrics,
        solution=played_entries(start, best),
    )


def fewest_actions(
    start: Game, solutions: Sequence[Sequence[Step]], budget: Budget = Budget()
) -> tuple[Par, list[Step]]:
    """Par of a won position and its solution: the fewest actions :func:`optimize` finds within
    ``budget.optimal_states``, starting from the shortest of ``solutions`` (wins already found),
    with the lower bound it proves."""
    known = min(solutions, key=lambda s: (len(s), _moves_redeals(s)[1]))
    # The rest of the family's fewest-actions search runs in Python only (optimal.py): there
    # the proof budget stays version 2's, FAMILY_PROOF_STATES (about 20 s), a count that depends
    # on the rules, never on the engine, so a set still regenerates byte for byte.
    states = budget.optimal_states if start.rules.cruel_layout else FAMILY_PROOF_STATES
    result = optimize(
        start,
        max_states=min(budget.optimal_states, states),
        known=list(known),
        rule_f=_RULE_F,
        max_memory=budget.optimal_memory,
    )
    if not result.steps:  # cannot happen with a known win; kept so par never loses it
        raise AssertionError("the optimizer lost a known win")
    steps = result.steps
    if not result.optimal and start.rules.cruel_layout and budget.short_win_width > 0:
        # Version 4: the proof budget ran out, so par is the best win met on the way, which an
        # outside beam beat by up to 12 actions (issue #38). One ranking, the most cards home:
        # the Python engine has that one too, so a set still regenerates byte for byte with
        # either engine, and it found both shorter wins (benchmarks/RESULTS.md, "issue #38").
        shorter = shortest_found(
            start,
            min(budget.short_win_width, budget.optimal_memory // SHORT_WIN_BYTES),
            known=steps,
            max_states=budget.optimal_states,  # as many positions as the proof had, at most
            max_memory=budget.optimal_memory,
            rankings=("foundations",),
        )
        steps = shorter.steps or steps
    moves, redeals = _moves_redeals(steps)
    par = Par(
        actions=len(steps),
        moves=moves,
        redeals=redeals,
        optimal=len(steps) == result.lower_bound,
        lower_bound=result.lower_bound,
    )
    return par, steps
