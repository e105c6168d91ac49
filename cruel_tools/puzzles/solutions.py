"""Game logs of a puzzle: its par solution as a log, and a player's log checked against it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game import cards, deals
from ..game.log import GameLog, parse_compact, to_step
from ..game.traversal import ErrorInfo
from ..game.verify import Source, VerifyReport, report_line, verify
from ..search.grading import Par
from ..search.solver import solution_log
from .files import Puzzle

__all__ = [
    "puzzle_solution_log",
    "entry_log",
    "check_against_puzzle",
    "verify_for_puzzle",
    "versus_par",
    "versus",
    "PuzzleCheck",
]


def puzzle_solution_log(puzzle: Puzzle) -> dict[str, Any]:
    """The puzzle's par solution as a complete ``cruel-log/1`` document, with its true claim.

    Built by :func:`cruel_tools.search.solver.solution_log`, the one builder of solution logs, which
    verifies the log before returning it.
    """
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    steps = [to_step(entry) for entry in puzzle.solution]
    return solution_log(puzzle.deal.number, piles, puzzle.resolved_rules(), steps)


def entry_log(puzzle: Puzzle, moves: str, player: str) -> dict[str, Any]:
    """A leaderboard entry of ``puzzle`` (its moves in compact form, as the store keeps them) as
    a complete ``cruel-log/1`` document with its true claim and the player in ``meta``."""
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    steps = [parse_compact(text) for text in moves.split()]
    meta = {"player": player, "puzzle": puzzle.id}
    return solution_log(puzzle.deal.number, piles, puzzle.resolved_rules(), steps, meta=meta)


def check_against_puzzle(log: GameLog, puzzle: Puzzle) -> list[str]:
    """What makes ``log`` a game of something else than ``puzzle`` (empty: it is the puzzle's).

    A log whose deal is not a deal at all passes here: the verifier reports it.
    """
    problems: list[str] = []
    try:
        piles = deals.resolve_deal(log.deal.number, log.deal.piles, log.resolved_rules())
    except deals.BadDeal:
        piles = None
    if piles is not None and [[cards.name(c) for c in p] for p in piles] != puzzle.deal.piles:
        shown = f"deal {log.deal.number}" if log.deal.number is not None else "a deal by piles"
        problems.append(f"the log plays {shown}, not the deal of puzzle {puzzle.id}")
    rules, wanted = log.resolved_rules(), puzzle.resolved_rules()
    if rules != wanted:
        problems.append(
            f"the log's rules ({rules.preset}) are not those of puzzle {puzzle.id} "
            f"({wanted.preset})"
        )
    return problems


def verify_for_puzzle(log: GameLog, puzzle: Puzzle, source: Source | None = None) -> VerifyReport:
    """Verify ``log`` as a game of ``puzzle``: another deal or rules is ``puzzle-mismatch``."""
    problems = check_against_puzzle(log, puzzle)
    if not problems:
        return verify(log, source)
    error = ErrorInfo(index=None, path="/deal", code="puzzle-mismatch", message="; ".join(problems))
    return VerifyReport(
        source=source,
        status="invalid",
        valid=False,
        rules=log.resolved_rules(),
        deal_number=log.deal.number,
        error=error,
    )


def versus_par(report: VerifyReport, puzzle: Puzzle) -> str:
    """``par 57 actions (optimal); you: 60 actions (54 moves, 6 redeals), 3 over par``.

    Actions are what the seed challenge counts: card moves plus redeals.
    """
    par = puzzle.par
    proven = "optimal" if par.optimal else f"optimum >= {par.lower_bound}"
    yours = (report.moves or 0) + (report.redeals or 0)
    return (
        f"par {par.actions} actions ({proven}); you: {yours} actions "
        f"({report.moves or 0} moves, {report.redeals or 0} redeals), "
        f"{versus(yours, par)}"
    )


def versus(actions: int, par: Par) -> str:
    """How ``actions`` compare with par, in words: ``at par (optimal)``, ``3 over par``,
    ``2 under par`` (``(optimal)`` when the count is proven the fewest possible)."""
    gap = actions - par.actions
    proven = " (optimal)" if par.proves_optimal(actions) else ""
    if gap > 0:
        return f"{gap} over par"
    if gap < 0:
        return f"{-gap} under par{proven}"
    return f"at par{proven}"


@dataclass(frozen=True)
class PuzzleCheck:
    """What ``cruel verify --puzzle`` checks: each log as a game of ``puzzle``
    (:func:`verify_for_puzzle`), and a valid one's line compared to par (:func:`versus_par`).

    A :class:`cruel_tools.game.verify.Checker` for the batch verifier (``verify_many``,
    ``render_many``), which pickles it to its worker processes.
    """

    puzzle: Puzzle

    def check(self, log: GameLog, source: Source | None) -> VerifyReport:
        return verify_for_puzzle(log, self.puzzle, source)

    def line(self, report: VerifyReport) -> str:
        if not report.valid:
            return report_line(report)
        return f"{report_line(report)}; {versus_par(report, self.puzzle)}"
