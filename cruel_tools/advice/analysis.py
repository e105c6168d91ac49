"""Post-game analysis (issue #16): where a lost game was lost, and how far a win was from the best.

* A log that does not end in a win: the last position from which a win was still possible and the
  step that threw it away (the *losing step*), found by a binary search over the log's positions
  with the solver. Winnability is never regained along a line of play (docs/analysis.md proves
  it), so the positions are winnable up to some index and lost after it, and about log2(n) solves
  find the edge. A position the solver cannot decide within the budget leaves an interval of
  steps, never a guess.
* A won log: actions (card moves + redeals), moves and redeals against par (with a puzzle) and
  against the optimum or its proven bound (:func:`cruel_tools.search.optimal.optimize`); ``deep``:
  the
  steps after which the fewest actions still needed did not drop by one (the steps that cost).

Budgets count positions (never seconds), so the same log gives the same analysis on any machine.
The positions come from the one traversal of a log (:func:`cruel_tools.game.traversal.play`); every
step is played by the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..constants import (
    ANALYSIS_DEEP_STATES,
    ANALYSIS_FAMILY_WIN_DIVISOR,
    ANALYSIS_MAX_STATES,
    ANALYSIS_NATIVE_MAX_STATES,
)
from ..errors import CruelError
from ..formats import document_config
from ..game import cards, engine
from ..game.game import Game, Move, Outcome, Step
from ..game.log import GameLog, step_entry, to_step
from ..game.proofcheck import Certificate, SearchProof
from ..game.render import Mark, Style, describe, position_lines
from ..game.rules import PRESETS, Rules
from ..game.traversal import Visitor, play
from ..game.verify import FinalPosition, VerifyReport, final_position, report_of
from ..puzzles import Puzzle
from ..puzzles.solutions import verify_for_puzzle
from ..search.certificates import CERTIFICATE_POSITIONS, certificate_for
from ..search.grading import Par
from ..search.optimal import OptimalResult, OptimalVerdict, optimize
from ..search.solver import Memo, SolveResult, Verdict, solution_log, solve

__all__ = [
    "ANALYSIS_FORMAT",
    "MAX_STATES",
    "NATIVE_MAX_STATES",
    "DEEP_STATES",
    "FAMILY_WIN_DIVISOR",
    "MAX_SOLVES",
    "MAX_UNDECIDED",
    "CHILD_STATES",
    "AnalysisRefused",
    "StepInfo",
    "Alternative",
    "Loss",
    "Optimum",
    "CostlyStep",
    "Win",
    "Analysis",
    "positions",
    "loss_states",
    "win_budget",
    "analyze",
    "text_lines",
    "replay_marks",
    "replay_notes",
]

ANALYSIS_FORMAT: Final = "cruel-analysis/1"
#: Positions each solve may expand (where the win was lost) on the Python engine, and the
#: fewest-actions search of a won game: the default of both.
MAX_STATES: Final = ANALYSIS_MAX_STATES
#: Positions each solve of a lost game may expand by default where the native core plays the
#: profile (:func:`loss_states`; docs/analysis.md, Budgets).
NATIVE_MAX_STATES: Final = ANALYSIS_NATIVE_MAX_STATES
#: Positions each fewest-actions search may expand with ``deep`` (one per position of the log).
DEEP_STATES: Final = ANALYSIS_DEEP_STATES
#: What a won game's ``win_states`` is divided by outside Cruel's own layout (:func:`win_budget`).
FAMILY_WIN_DIVISOR: Final = ANALYSIS_FAMILY_WIN_DIVISOR
#: Positions each step's own solve may expand when a position is undecided (see ``_loss``).
CHILD_STATES: Final = 500
#: Most solves of the binary search (undecided positions make it probe more than log2(n)).
MAX_SOLVES: Final = 40
#: Most undecided solves (each spends the whole budget) before the search settles for an interval.
#: Two: on deals 1-500 of benchmarks/analysis_bench.py no game with two undecided solves was
#: decided in the end (a third and fourth only narrowed the interval, at a second each).
MAX_UNDECIDED: Final = 2

_WORDS = Style(ascii=True)


class AnalysisRefused(CruelError):
    """The log cannot be analysed: it is not a legal game (or not the puzzle's); ``report`` is
    what the verifier says of it."""

    code = "invalid-log"

    def __init__(self, report: VerifyReport) -> None:
        super().__init__(report.error.message if report.error else "invalid log")
        self.report = report

    def __reduce__(self) -> tuple[type[AnalysisRefused], tuple[VerifyReport]]:
        # Pickled as its report, not its message: the service runs analyses in a process of
        # their own (cruel_tools.service.costly), whose refusals come back pickled.
        return (type(self), (self.report,))


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StepInfo(_Frozen):
    """One step of the log, as players count and say it."""

    index: int = Field(description="0-based index in the log's moves.")
    number: int = Field(description="The step's number as players count (index + 1).")
    entry: dict[str, Any] = Field(description="The step as a cruel-log/1 entry.")
    words: str = Field(description='The step in words, e.g. "4D pile 3 -> pile 7, onto 5D".')


class Alternative(_Frozen):
    """Another legal step from the last winnable position, and what the solver says after it."""

    entry: dict[str, Any] = Field(description="The step as a cruel-log/1 entry.")
    words: str
    verdict: Verdict = Field(description="won, unwinnable, or unknown (undecided in the budget).")
    certificate: Certificate | None = Field(
        None,
        description="Unwinnable: why the position after this step can never be won, for cruel "
        "check-proof (docs/solver.md, Certificates); null for another verdict, rules that are not "
        "a preset, or past the analysis' budget of certificate positions.",
    )


class Loss(_Frozen):
    """Where a game that was not won was lost."""

    status: Literal["lost-at-step", "lost-from-start", "still-winnable", "undecided"] = Field(
        description="lost-at-step: the losing step is known. lost-from-start: no win from the "
        "deal. still-winnable: the last position can still be won. undecided: the losing step "
        "lies in an interval (first_step..last_step) the budget could not narrow."
    )
    losing_step: StepInfo | None = Field(description="The step that threw the win away.")
    first_step: int | None = Field(
        description="Undecided: the earliest 0-based step that may be the losing one (null: the "
        "deal itself may be lost)."
    )
    last_step: int | None = Field(description="Undecided: the latest step that may be it.")
    last_won_position: int | None = Field(
        description="Steps played before the last position proven winnable (null: none)."
    )
    first_lost_position: int | None = Field(
        description="Steps played before the first position proven lost (null: none)."
    )
    position: FinalPosition | None = Field(
        description="The last position proven winnable: before the losing step (null: none)."
    )
    reason: str = Field(description="Why the first lost position is lost, in the solver's words.")
    certificate: Certificate | None = Field(
        None,
        description="Why the first lost position can never be won, for cruel check-proof "
        "(docs/solver.md, Certificates): the deal and the log's steps up to that position, and a "
        "proof. Null without a first lost position, for rules that are not a preset, or when the "
        "proof's closure would exceed the analysis' budget of certificate positions.",
    )
    continuation: dict[str, Any] | None = Field(
        description="A complete cruel-log/1 log: the game up to the last position proven "
        "winnable, then a win from there (cruel verify accepts it)."
    )
    alternatives: list[Alternative] = Field(
        description="lost-at-step: every other legal step at the losing point, with its verdict."
    )
    undecided_positions: list[int] = Field(
        description="Positions (steps played) the solver could not decide within the budget."
    )
    solves: int = Field(description="Solves made by the binary search (alternatives not counted).")


class Optimum(_Frozen):
    """What the fewest-actions search proved about the deal."""

    verdict: OptimalVerdict
    actions: int | None = Field(description="Actions of the shortest win found; null if none.")
    lower_bound: int = Field(description="Proven: every win takes at least this many actions.")


class CostlyStep(_Frozen):
    """With ``deep``: a step after which the fewest actions still needed did not drop by one."""

    step: StepInfo
    before: int | None = Field(description="Fewest actions needed before the step, if proven.")
    after: int | None = Field(description="Fewest actions needed after it, if proven.")
    cost: int = Field(
        description="Actions the step cost (after + 1 - before): exact when both are proven, "
        "else the least it can be (from the searches' proven bounds), at least 1."
    )
    exact: bool = Field(description="Whether cost is exact (both fewest counts proven).")


class Win(_Frozen):
    """How far a won game was from the best."""

    actions: int = Field(description="Card moves plus redeals of the game.")
    moves: int
    redeals: int
    par: Par | None = Field(description="The puzzle's par, when a puzzle was given.")
    over_par: int | None = Field(description="actions - par actions (negative: under par).")
    optimum: Optimum
    over_optimum: int | None = Field(
        description="actions - the optimum, when the optimum is proven; else null."
    )
    at_most_over_optimum: int = Field(
        description="actions - the proven lower bound: the game is at most this far from best."
    )
    costly_steps: list[CostlyStep] | None = Field(
        description="With deep: the steps that cost actions (null without deep)."
    )
    undecided_steps: list[int] | None = Field(
        description="With deep: 0-based steps whose cost the budget could not prove."
    )


class Analysis(_Frozen):
    """What ``cruel analyze --json`` prints: one of ``loss`` and ``win``."""

    model_config = document_config("Cruel post-game analysis v1", "analysis")

    format: Literal["cruel-analysis/1"] = ANALYSIS_FORMAT
    deal_number: int | None = Field(description="The deal number, or null for a deal by piles.")
    rules: Rules
    steps: int = Field(description="Steps (card moves and redeals) in the log.")
    outcome: Outcome = Field(description="The outcome of the log's last position.")
    max_states: int = Field(description="Positions each solve or search could expand.")
    loss: Loss | None = Field(description="For a game not won: where it was lost.")
    win: Win | None = Field(description="For a won game: how far from the best.")


# --- positions --------------------------------------------------------------------------------


class _Positions(Visitor):
    """Keeps every position of a traversal (p0, then one after each step) and its steps."""

    def __init__(self) -> None:
        self.games: list[Game] = []
        self.steps: list[Step] = []

    def begin(self, log: GameLog, game: Game) -> None:
        self.games.append(game.copy())

    def after_step(self, index: int, step: Step, game: Game) -> None:
        self.steps.append(step)
        self.games.append(game.copy())


def positions(game_log: GameLog) -> tuple[list[Game], list[Step], VerifyReport]:
    """The log's positions p0..pn and its n steps, played by :func:`~.traversal.play`, and the
    verifier's report of it (positions are complete only for a valid log)."""
    seen = _Positions()
    report = report_of(play(game_log, seen))
    return seen.games, seen.steps, report


def loss_states(rules: Rules) -> int:
    """The default budget of each solve of a lost game under ``rules``: :data:`NATIVE_MAX_STATES`
    where the native core runs the solves (:func:`cruel_tools.game.engine.native_rules`), else
    :data:`MAX_STATES` (the Python search is about a hundred times slower). Either is a count
    of positions, and both engines answer alike for one budget (the same search, node for
    node), so the analysis names the budget it used (``Analysis.max_states``)."""
    native = engine.native() is not None and engine.native_rules(rules) is not None
    return NATIVE_MAX_STATES if native else MAX_STATES


def win_budget(rules: Rules, max_states: int, win_states: int | None) -> int:
    """The positions a won game's fewest-actions search may expand: ``max_states``, at most
    ``win_states`` (None: no more bound), which outside Cruel's own layout
    (``Rules.cruel_layout`` false) is divided by :data:`FAMILY_WIN_DIVISOR`: there the search
    is Python's over every legal step (:func:`cruel_tools.search.optimal.children`), a position
    costing
    up to four times Cruel's. A count of positions either way, so the answer is the same on
    every machine and with either engine."""
    if win_states is None:
        return max_states
    if not rules.cruel_layout:
        win_states = max(1, win_states // FAMILY_WIN_DIVISOR)
    return min(max_states, win_states)


def _step_info(index: int, step: Step, before: Game) -> StepInfo:
    return StepInfo(
        index=index,
        number=index + 1,
        entry=step_entry(step, _moving(before, step)),
        words=describe(step, before, _WORDS),
    )


def _child(game: Game, step: Step) -> Game:
    child = game.copy()
    child.push(step)
    return child


# --- where the win was lost -------------------------------------------------------------------


class _Certifier:
    """Certificates of the analysis' unwinnable verdicts (docs/solver.md, "Certificates"), their
    closures together at most ``most`` positions: a rule certificate costs none, a search one its
    count, one that overflows what is left all of it (the analysis' cost stays bounded: a closure
    is a Python search of about 20,000 positions a second)."""

    _LOST: Final = SolveResult("unwinnable")

    def __init__(self, game_log: GameLog, first: Game, most: int) -> None:
        rules = first.rules
        self.preset = rules.preset if PRESETS.get(rules.preset) == rules else None
        number = game_log.deal.number
        self.deal: int | list[list[int]] = (
            number if number is not None else [p[:] for p in first.piles]
        )
        self.left = most

    def __call__(self, steps: Sequence[Step]) -> Certificate | None:
        """The certificate of the position after ``steps`` from the deal, proven lost."""
        if self.preset is None:
            return None
        found = certificate_for(self.deal, self.preset, self._LOST, steps, most=self.left)
        if found is None:
            self.left = 0
        elif isinstance(found.proof, SearchProof):
            self.left = max(0, self.left - found.proof.positions)
        return found


def _loss(
    game_log: GameLog,
    games: list[Game],
    steps: list[Step],
    max_states: int,
    max_solves: int,
    max_undecided: int,
    total_states: int | None,
    certify: _Certifier,
) -> Loss:
    n = len(steps)
    # What each solve proves (positions on a win's line, positions proven lost), reused by the
    # next ones: it never makes a verdict wrong, and makes many solves end at once.
    memo = Memo()
    left = [total_states]  # positions the solves may still expand in all (None: no limit)

    def budget() -> int:
        return max_states if left[0] is None else min(max_states, left[0])

    def solved(game: Game, most: int | None = None) -> SolveResult:
        result = solve(game.copy(), max_states=min(budget(), most or max_states), memo=memo)
        if left[0] is not None:
            left[0] -= result.stats.expanded
        return result

    def decided(game: Game) -> SolveResult:
        """A solve; when it is undecided, each step from ``game`` solved on its own with a
        small budget: a win after one wins from ``game``, and when every one leads to a
        position proven lost, ``game`` is lost. (Best-first search dives after the most cards
        home and may never come back to a step whose win is short; a search per step does.)"""
        result = solved(game)
        if result.verdict != "unknown":
            return result
        all_lost = True
        for step in game.legal_steps():
            if budget() < 1:
                return result
            after = solved(_child(game, step), CHILD_STATES)
            if after.verdict == "won":
                return SolveResult("won", [step, *after.steps], result.stats)
            all_lost = all_lost and after.verdict == "unwinnable"
        if all_lost:
            why = "every step from it leads to a position proven lost"
            return SolveResult("unwinnable", stats=result.stats, reason=why)
        return result

    results: dict[int, SolveResult] = {}
    undecided: list[int] = []
    # Invariant: positions <= lo are winnable (a win at lo is one from every earlier position),
    # positions >= hi are lost (docs/analysis.md). -1 and n + 1: nothing known yet.
    lo, hi = -1, n + 1
    if games[n].outcome() == "blocked":
        hi = n  # no legal step and not won: lost, no solve needed
    solves = 0
    while hi - lo > 1 and solves < max_solves and len(undecided) < max_undecided:
        mid = _probe(lo, hi, [i for i in undecided if lo < i < hi])
        if mid is None or budget() < 1:
            break
        result = decided(games[mid])
        results[mid] = result
        solves += 1
        if result.verdict == "won":
            lo = mid
        elif result.verdict == "unwinnable":
            hi = mid
        else:
            undecided.append(mid)
    undecided = sorted(i for i in undecided if lo < i < hi)
    reason = results[hi].reason if hi in results else ("no legal step" if hi == n else "")
    continuation = None
    if lo >= 0:
        continuation = solution_log(
            game_log.deal.number,
            [p[:] for p in games[0].piles],
            games[0].rules,
            results[lo].steps,
            prefix=steps[:lo],
            meta={"generator": "cruel analyze"},
        )
    common: dict[str, Any] = {
        "last_won_position": lo if lo >= 0 else None,
        "first_lost_position": hi if hi <= n else None,
        "position": final_position(games[lo]) if lo >= 0 else None,
        "reason": reason,
        "certificate": certify(steps[:hi]) if hi <= n else None,
        "continuation": continuation,
        "undecided_positions": undecided,
        "solves": solves,
    }
    if hi == n + 1 and lo == n:
        return Loss(
            status="still-winnable",
            losing_step=None,
            first_step=None,
            last_step=None,
            alternatives=[],
            **common,
        )
    if hi - lo > 1:  # the budget left an interval: the losing step is one of lo..hi-1
        return Loss(
            status="undecided",
            losing_step=None,
            first_step=lo if lo >= 0 else None,
            last_step=min(hi, n) - 1 if hi <= n else n - 1,
            alternatives=[],
            **common,
        )
    if lo == -1:
        return Loss(
            status="lost-from-start",
            losing_step=None,
            first_step=None,
            last_step=None,
            alternatives=[],
            **common,
        )
    before, played = games[lo], steps[lo]
    alternatives = []
    for step in before.legal_steps():
        if step == played or _same_step(step, played):
            continue
        # Past the total budget an alternative is left undecided rather than solved.
        verdict: Verdict = solved(_child(before, step)).verdict if budget() >= 1 else "unknown"
        alternatives.append(
            Alternative(
                entry=step_entry(step, _moving(before, step)),
                words=describe(step, before, _WORDS),
                verdict=verdict,
                certificate=certify([*steps[:lo], step]) if verdict == "unwinnable" else None,
            )
        )
    return Loss(
        status="lost-at-step",
        losing_step=_step_info(lo, played, before),
        first_step=lo,
        last_step=lo,
        alternatives=alternatives,
        **common,
    )


def _probe(lo: int, hi: int, undecided: list[int]) -> int | None:
    """The next position to solve between ``lo`` and ``hi`` (both excluded), or None.

    The middle, as long as nothing in between is undecided. After an undecided position the
    search goes on after it (later positions hold fewer cards: easier to decide), then before
    the first undecided one; the positions around an undecided one are rarely easier.
    """
    if not undecided:
        return (lo + hi) // 2 if hi - lo > 1 else None
    top, bottom = max(undecided), min(undecided)
    if hi - top > 1:
        return (top + hi) // 2
    if bottom - lo > 1:
        return (lo + bottom) // 2
    return None


def _moving(game: Game, step: Step) -> int | None:
    """The card a move moves (of a run, its deepest); None for a redeal."""
    if not isinstance(step, Move):
        return None
    return game.piles[step.source - 1][-step.count]


def _same_step(a: Step, b: Step) -> bool:
    """The same step, whether or not the log named its card."""
    if type(a) is not type(b):
        return False
    return tuple(a)[:3] == tuple(b)[:3]


# --- how far from the best --------------------------------------------------------------------


def _optimum(result: OptimalResult, par: Par | None) -> Optimum:
    """What the search proved, with what the puzzle's par proves of the same deal: its win bounds
    the optimum from above, its proven bound from below. A par proven optimal with a larger
    budget settles an optimum the search left open, so the analysis never states a weaker bound
    beside a proven par (a bound over the player's own win is a puzzle file's error: ignored)."""
    actions, lower = result.actions, result.lower_bound
    if par is None or actions is None:
        return Optimum(verdict=result.verdict, actions=actions, lower_bound=lower)
    actions = min(actions, par.actions)
    if par.lower_bound <= actions:
        lower = max(lower, par.lower_bound)
    verdict: OptimalVerdict = "optimal" if actions == lower else "best-found"
    return Optimum(verdict=verdict, actions=actions, lower_bound=lower)


def _fewest(result: OptimalResult) -> int | None:
    """The fewest actions needed, when proven."""
    return result.actions if result.verdict == "optimal" else None


def _win(
    games: list[Game],
    steps: list[Step],
    puzzle: Puzzle | None,
    max_states: int,
    deep: bool,
    deep_states: int,
) -> Win:
    end = games[-1]
    actions = end.moves + end.redeals
    # The player's own win is a first upper bound: the optimum is never above it.
    best = optimize(games[0].copy(), max_states=max_states, known=list(steps))
    par = puzzle.par if puzzle is not None else None
    optimum = _optimum(best, par)
    fewest = optimum.actions if optimum.verdict == "optimal" else None
    over_optimum = actions - fewest if fewest is not None else None
    costly: list[CostlyStep] | None = None
    undecided: list[int] | None = None
    if deep:
        costly, undecided = [], []
        # Per position: (proven fewest actions still needed, or None; proven lower bound; actions
        # of a win found, never above the player's own rest of the game).
        found: list[tuple[int | None, int, int]] = []
        for i, game in enumerate(games):
            if game.is_won():
                found.append((0, 0, 0))
                continue
            result = best if i == 0 else None
            if result is None:
                result = optimize(game.copy(), max_states=deep_states, known=list(steps[i:]))
            upper = result.actions if result.actions is not None else len(steps) - i
            found.append((_fewest(result), result.lower_bound, upper))
        for i, step in enumerate(steps):
            (before, _, upper), (after, lower, _) = found[i], found[i + 1]
            least = lower + 1 - upper  # proven: the step cost at least this
            if before is not None and after is not None:
                least = after + 1 - before
            if least > 0:
                costly.append(
                    CostlyStep(
                        step=_step_info(i, step, games[i]),
                        before=before,
                        after=after,
                        cost=least,
                        exact=before is not None and after is not None,
                    )
                )
            elif before is None or after is None:
                undecided.append(i)
    return Win(
        actions=actions,
        moves=end.moves,
        redeals=end.redeals,
        par=par,
        over_par=actions - par.actions if par is not None else None,
        optimum=optimum,
        over_optimum=over_optimum,
        at_most_over_optimum=actions - optimum.lower_bound,
        costly_steps=costly,
        undecided_steps=undecided,
    )


# --- the analysis -----------------------------------------------------------------------------


def analyze(
    game_log: GameLog,
    *,
    puzzle: Puzzle | None = None,
    max_states: int | None = None,
    deep: bool = False,
    deep_states: int = DEEP_STATES,
    max_solves: int = MAX_SOLVES,
    max_undecided: int = MAX_UNDECIDED,
    total_states: int | None = None,
    win_states: int | None = None,
    certificate_positions: int = CERTIFICATE_POSITIONS,
) -> Analysis:
    """Analyse a legal log: where it was lost (not won) or how far from the best (won).

    ``max_states`` bounds each solve (and the one fewest-actions search of a win); None: for a
    game not won :func:`loss_states` (by the engine), for a win :data:`MAX_STATES`. ``deep``
    runs a fewest-actions search of at most ``deep_states`` positions from every position of
    a won game. The binary search makes at most ``max_solves`` solves, and settles for an
    interval after ``max_undecided`` undecided ones; ``total_states`` (None: no limit) bounds
    the positions all the solves of a game not won expand together (``POST /v1/analyze``'s
    budget per request): a solve gets what is left, up to ``max_states``, and none is made once
    it is spent. ``win_states`` (None: ``max_states``) bounds the fewest-actions search of a won
    game, which costs far more per position than a solve (mostly Python: about 0.1 ms each,
    benchmarks/RESULTS.md, issue #24; up to four times that outside Cruel's own layout, where
    :func:`win_budget` divides it). The answer's ``max_states`` is the budget the search or each
    solve had. With ``puzzle``, the log must be a game of that puzzle. A game not won: its first
    lost position and each unwinnable alternative carry a certificate (docs/solver.md,
    "Certificates") under a preset, their closures together at most ``certificate_positions``
    positions (past it, null).

    :raises AnalysisRefused: the log is not a legal game (an illegal step, a bad deal, a false
        claim) or not one of ``puzzle``.
    """
    if puzzle is not None:
        checked = verify_for_puzzle(game_log, puzzle)
        if not checked.valid:
            raise AnalysisRefused(checked)
    games, steps, report = positions(game_log)
    if not report.valid:
        raise AnalysisRefused(report)
    end = games[-1]
    if max_states is None:
        max_states = MAX_STATES if end.is_won() else loss_states(end.rules)
    loss = win = None
    if end.is_won():
        max_states = win_budget(end.rules, max_states, win_states)
        win = _win(games, steps, puzzle, max_states, deep, deep_states)
    else:
        certify = _Certifier(game_log, games[0], certificate_positions)
        loss = _loss(
            game_log, games, steps, max_states, max_solves, max_undecided, total_states, certify
        )
    return Analysis(
        deal_number=game_log.deal.number,
        rules=end.rules,
        steps=len(steps),
        outcome=end.outcome(),
        max_states=max_states,
        loss=loss,
        win=win,
    )


def text_lines(analysis: Analysis) -> list[str]:
    """The analysis in words, as ``cruel analyze`` prints it."""
    deal = f"deal {analysis.deal_number}" if analysis.deal_number is not None else "a deal"
    head = f"{deal}, {_plural(analysis.steps, 'step')}, {analysis.outcome}"
    lines = [head]
    if analysis.loss is not None:
        lines += _loss_lines(analysis.loss, analysis.steps)
    if analysis.win is not None:
        lines += _win_lines(analysis.win)
    return lines


def _loss_lines(loss: Loss, n_steps: int) -> list[str]:
    lines = []
    if loss.status == "lost-from-start":
        lines.append(f"lost from the start: no win from the deal ({loss.reason})")
    elif loss.status == "still-winnable":
        lines.append("not lost: the last position can still be won")
    elif loss.status == "undecided":
        first = 1 if loss.first_step is None else loss.first_step + 1
        last = n_steps if loss.last_step is None else loss.last_step + 1
        deal = "the deal itself or " if loss.first_step is None else ""
        shown = ", ".join(str(i) for i in loss.undecided_positions)
        maybe = " (if it was lost at all)" if loss.first_lost_position is None else ""
        lines.append(f"undecided: the win was lost by {deal}one of steps {first} to {last}{maybe}")
        lines.append(f"  undecided within the budget: the positions after steps {shown}")
    elif loss.losing_step is not None:
        step = loss.losing_step
        lines.append(f"the win was lost at step {step.number}: {step.words}")
        if loss.position is not None:
            lines.append("  the position before it (still winnable):")
            lines += [f"  {line}" for line in _position_lines(loss.position)]
        lines.append(f"  after it: lost ({loss.reason})")
        winning = [a.words for a in loss.alternatives if a.verdict == "won"]
        unknown = [a.words for a in loss.alternatives if a.verdict == "unknown"]
        if winning:
            lines.append("  steps there that still win: " + "; ".join(winning))
        else:
            lines.append("  steps there that still win: none but the continuation's first")
        if unknown:
            lines.append("  undecided within the budget: " + "; ".join(unknown))
    if loss.continuation is not None and loss.last_won_position is not None:
        moves = loss.continuation["moves"][loss.last_won_position :]
        lines.append(
            f"a win from before step {loss.last_won_position + 1}: "
            f"{_plural(len(moves), 'step')} (write it with --json: loss.continuation)"
        )
    lines.append(f"{_plural(loss.solves, 'solve')}")
    return lines


def _position_lines(position: FinalPosition) -> list[str]:
    f = position.foundations
    piles = [[cards.parse(c) for c in p] for p in position.piles]
    game = Game(piles, (f["S"], f["H"], f["D"], f["C"]))
    return position_lines(game, _WORDS)


def _win_lines(win: Win) -> list[str]:
    lines = [
        f"won in {win.actions} actions ({_plural(win.moves, 'move')}, "
        f"{_plural(win.redeals, 'redeal')})"
    ]
    if win.par is not None and win.over_par is not None:
        gap = win.over_par
        where = f"{gap} over par" if gap > 0 else f"{-gap} under par" if gap < 0 else "at par"
        lines.append(f"par {win.par.actions} actions: {where}")
    opt = win.optimum
    if win.over_optimum is not None:
        lines.append(f"optimum {opt.actions} actions (proven): {win.over_optimum} over it")
    elif opt.actions is not None:
        lines.append(
            f"best found {opt.actions} actions, optimum >= {opt.lower_bound}: "
            f"at most {win.at_most_over_optimum} over it"
        )
    else:
        lines.append(f"optimum >= {opt.lower_bound}: at most {win.at_most_over_optimum} over it")
    if win.costly_steps is not None:
        for c in win.costly_steps:
            cost = _plural(c.cost, "action") if c.exact else f"at least {_plural(c.cost, 'action')}"
            known = f" (fewest needed {c.before} before, {c.after} after)" if c.exact else ""
            lines.append(f"  step {c.step.number} cost {cost}: {c.step.words}{known}")
        if not win.costly_steps:
            lines.append("  no step proven to cost an action")
        if win.undecided_steps:
            lines.append(f"  {_plural(len(win.undecided_steps), 'step')} undecided in the budget")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- marks in a replay (cruel replay --analyze) -----------------------------------------------


def replay_marks(analysis: Analysis, game_log: GameLog, style: Style) -> dict[int, Mark]:
    """The marks ``cruel replay --analyze`` puts on steps, by step number (0: the deal).

    A game not won: the losing step (``!!``, with the other steps there that still win), or
    every step of an undecided interval (``??``: the text names the interval at its first and
    last step), or the deal itself when it was lost from the start. A win analysed with
    ``deep``: each step that cost actions (``++``). Cards are written in ``style``.
    """
    marks: dict[int, Mark] = {}
    loss, win = analysis.loss, analysis.win
    if loss is not None and loss.status == "lost-from-start":
        text = f"!! lost from the start: no win from the deal ({loss.reason})"
        marks[0] = Mark((text,), {"kind": "lost-from-start", "text": text[3:]})
    elif loss is not None and loss.status == "lost-at-step" and loss.losing_step is not None:
        step = loss.losing_step
        games, _, _ = positions(game_log)
        before = games[step.index]
        text = f"!! the losing step: a win was possible before it, none after it ({loss.reason})"
        winning = [
            describe(to_step(a.entry), before, style)
            for a in loss.alternatives
            if a.verdict == "won"
        ]
        lines = [text]
        lines.append(
            "!! steps here that still win: " + "; ".join(winning)
            if winning
            else "!! no other step here is proven to win"
        )
        data: dict[str, object] = {
            "kind": "losing-step",
            "text": text[3:],
            "still_winning": [a.entry for a in loss.alternatives if a.verdict == "won"],
        }
        marks[step.number] = Mark(tuple(lines), data)
    elif loss is not None and loss.status == "undecided":
        first = 1 if loss.first_step is None else loss.first_step + 1
        last = analysis.steps if loss.last_step is None else loss.last_step + 1
        deal = "the deal itself or " if loss.first_step is None else ""
        lost = (
            "the win was lost"
            if loss.first_lost_position is not None
            else "if the win was lost, it was"
        )
        budget = "(undecided within the budget)"
        text = f"{lost} by {deal}one of steps {first} to {last} {budget}"
        for number in range(first, last + 1):
            if first == last:
                line = f"?? {lost} by {deal}this step {budget}"
            elif number in (first, last):
                span = (
                    f"from here to step {last}" if number == first else f"from step {first} to here"
                )
                line = f"?? {span}: {lost} by {deal}one of these steps {budget}"
            marks[number] = Mark(
                (line,) if number in (first, last) else (),
                {"kind": "may-be-losing-step", "text": text},
            )
        if loss.first_step is None:
            marks[0] = Mark(
                (f"?? {text}",),
                {"kind": "may-be-lost-from-start", "text": text},
            )
    elif win is not None and win.costly_steps is not None:
        for c in win.costly_steps:
            cost = _plural(c.cost, "action")
            text = (
                f"this step cost {cost}: fewest actions needed {c.before} before it, "
                f"{c.after} after it"
                if c.exact
                else f"this step cost at least {cost}"
            )
            data = {"kind": "costly", "text": text, "cost": c.cost, "exact": c.exact}
            marks[c.step.number] = Mark((f"++ {text}",), data)
    return marks


def replay_notes(analysis: Analysis) -> tuple[str, ...]:
    """The lines ``cruel replay --analyze`` writes after the result: the analysis in short."""
    loss, win = analysis.loss, analysis.win
    if loss is not None:
        if loss.status == "lost-at-step" and loss.losing_step is not None:
            head = f"the win was lost at step {loss.losing_step.number} (!!)"
        elif loss.status == "lost-from-start":
            head = "lost from the start: no win from the deal"
        elif loss.status == "still-winnable":
            head = "not lost: the last position can still be won"
        else:
            first = "the deal" if loss.first_step is None else f"step {loss.first_step + 1}"
            last = analysis.steps if loss.last_step is None else loss.last_step + 1
            head = f"undecided: the win was lost between {first} and step {last} (??)"
        tail = ""
        if loss.continuation is not None and loss.last_won_position is not None:
            rest = len(loss.continuation["moves"]) - loss.last_won_position
            tail = (
                f"; a win from before step {loss.last_won_position + 1} takes "
                f"{_plural(rest, 'step')} (cruel analyze --json: loss.continuation)"
            )
        return (f"Analysis: {head}{tail}",)
    assert win is not None
    lines = [f"Analysis: {line}" for line in _win_lines(win)[1:] if not line.startswith(" ")]
    if win.costly_steps is not None:
        costly = len(win.costly_steps)
        undecided = len(win.undecided_steps or [])
        lines.append(
            f"Analysis: {_plural(costly, 'step')} proven to cost actions (++)"
            + (f", {undecided} undecided in the budget" if undecided else "")
        )
    return tuple(lines)
