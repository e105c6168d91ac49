"""Hints (issue #27): from a log's last position, the next step of a win, or that no win is left.

:func:`hint` plays the log through the one traversal (:func:`cruel_tools.game.traversal.play`), as
the
analysis does, and solves its last position with the solver
(:func:`cruel_tools.search.solver.solve`,
the native core where it plays the profile) within a budget of positions. The answer is a
:class:`Hint` (``cruel-hint/1``): ``win-next`` (the first step of the win found, and how many
actions that win takes), ``no-win`` (the solver's proof in its words: rule L, rule F, or the
whole search), ``won`` (the log is already won) or ``unknown`` (the budget ran out first).

No rule of the game lives here: the step comes from the solver, which takes it from
:meth:`~cruel_tools.game.game.Game.legal_steps`; its words and log entry from the renderer and the
traversal. ``POST /v1/hint`` (docs/service.md, Hints) and ``cruel hint`` answer with it.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..constants import HINT_MAX_STATES
from ..formats import document_config
from ..game.game import Outcome
from ..game.log import GameLog
from ..game.render import Style, describe
from ..game.rules import Rules
from ..game.traversal import play, played_entries
from ..game.verify import report_of
from ..search.solver import solve
from .analysis import AnalysisRefused

__all__ = ["HINT_FORMAT", "MAX_STATES", "HintStatus", "NextStep", "Hint", "hint", "text_lines"]

HINT_FORMAT: Final = "cruel-hint/1"
#: Positions a hint's solve may expand by default (``cruel hint --max-states``, ``POST
#: /v1/hint``'s budget; docs/service.md, Hints).
MAX_STATES: Final = HINT_MAX_STATES

HintStatus = Literal["win-next", "no-win", "won", "unknown"]

_WORDS = Style()  # the players' symbols: 5♥ pile 12 → pile 3, onto 6♥


class NextStep(BaseModel):
    """The step to play next, as a log entry and in players' words."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int = Field(description="Its 0-based index if appended to the log's moves.")
    entry: dict[str, Any] = Field(description="The step as a cruel-log/1 entry.")
    words: str = Field(description='The step in words, e.g. "5♥ pile 12 → pile 3, onto 6♥".')


class Hint(BaseModel):
    """What ``cruel hint --json`` prints and ``POST /v1/hint`` answers."""

    model_config = document_config("Cruel hint v1", "hint")

    format: Literal["cruel-hint/1"] = HINT_FORMAT
    deal_number: int | None = Field(description="The deal number, or null for a deal by piles.")
    rules: Rules
    steps: int = Field(description="Steps (card moves and redeals) in the log.")
    outcome: Outcome = Field(description="The outcome of the log's last position.")
    status: HintStatus = Field(
        description="win-next: a win was found from the last position, next_step is its first "
        "step. no-win: the solver proved no win is left (reason says how). won: the log is "
        "already won. unknown: the budget ran out before either was found."
    )
    next_step: NextStep | None = Field(description="win-next: the step to play next.")
    actions_to_win: int | None = Field(
        description="win-next: actions (card moves and redeals) of the win found, this step "
        "included; not the fewest possible."
    )
    reason: str | None = Field(
        description="no-win: the proof in the solver's words (rule L, rule F, or every "
        "reachable position searched); unknown: the budget spent."
    )
    max_states: int = Field(description="Positions the solve could expand.")
    expanded: int = Field(description="Positions the solve expanded (0 for a won log).")


def hint(game_log: GameLog, max_states: int = MAX_STATES) -> Hint:
    """The hint for ``game_log``'s last position, solving it within ``max_states`` positions.

    :raises AnalysisRefused: the log is not a legal game (an illegal step, a bad deal, a false
        claim): the same refusal, code and path as :func:`cruel_tools.advice.analysis.analyze`.
    """
    played = play(game_log)
    report = report_of(played)
    game = played.game
    if not report.valid or game is None:
        raise AnalysisRefused(report)
    head: dict[str, Any] = {
        "deal_number": game_log.deal.number,
        "rules": game.rules,
        "steps": played.steps,
        "outcome": game.outcome(),
        "max_states": max_states,
    }
    if game.is_won():
        return Hint(
            **head, status="won", next_step=None, actions_to_win=None, reason=None, expanded=0
        )
    result = solve(game.copy(), max_states=max_states)
    expanded = result.stats.expanded
    if result.verdict == "won" and result.steps:
        step = result.steps[0]
        entry = played_entries(game, [step])[0]
        nxt = NextStep(index=played.steps, entry=entry, words=describe(step, game, _WORDS))
        return Hint(
            **head,
            status="win-next",
            next_step=nxt,
            actions_to_win=len(result.steps),
            reason=None,
            expanded=expanded,
        )
    status: HintStatus = "no-win" if result.verdict == "unwinnable" else "unknown"
    return Hint(
        **head,
        status=status,
        next_step=None,
        actions_to_win=None,
        reason=result.reason,
        expanded=expanded,
    )


def text_lines(found: Hint) -> list[str]:
    """The hint in words, as ``cruel hint`` prints it."""
    if found.status == "won":
        return ["already won"]
    if found.status == "win-next" and found.next_step is not None:
        n = found.actions_to_win
        return [f"next: {found.next_step.words} (a win in {n} action{'s' * (n != 1)} from here)"]
    if found.status == "no-win":
        return [f"no win from here: {found.reason}"]
    return [f"unknown: no win found and none ruled out ({found.reason})"]
