"""The one traversal of a game log: deal, then every step through the engine, then the claim.

Everything that walks a log (the verifier, the text replay, player records, solving from a log's
final position, the service) calls :func:`play`; what differs between them is a
:class:`Visitor`, as in ``chess.pgn``. The traversal decides what the log means (which deal,
which step was the first illegal one, whether the claim holds); visitors only watch.

Data flows one way: a :class:`~cruel_tools.game.log.GameLog` in, the engine
(:class:`~cruel_tools.game.game.Game`) plays it, visitors see each step, a :class:`Played` comes
out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, Field

from .deals import BadDeal, resolve_deal
from .game import Game, IllegalMove, Move, Redeal, Step
from .log import Claim, GameLog, step_entry
from .rules import Rules

__all__ = [
    "ErrorInfo",
    "Played",
    "Visitor",
    "claim_error",
    "deal_error",
    "move_error",
    "play",
    "play_steps",
    "played_entries",
]


class ErrorInfo(BaseModel):
    """The first thing wrong with a log."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int | None = Field(description="0-based index in moves, when a move is at fault.")
    path: str = Field(description="JSON pointer into the log, e.g. /moves/16.")
    code: str = Field(description="Stable error code (docs/verify.md).")
    message: str = Field(description="One line, naming cards and piles as players do.")


@dataclass(slots=True)
class Played:
    """What a traversal found: the rules, the deal, the game as far as it was legal, the error.

    ``game`` is None only when the deal itself is bad (then ``error.code`` is ``bad-deal``).
    ``steps`` counts the legal steps played.
    """

    rules: Rules
    deal_number: int | None
    game: Game | None
    steps: int
    error: ErrorInfo | None


class Visitor:
    """Hooks called along a traversal; override the ones you need (each does nothing here).

    Set ``per_step = False`` in a visitor that needs no per-step hook: the traversal then plays
    the steps in a tight loop (the verifier's case, where a call per step would be its cost).
    """

    per_step: ClassVar[bool] = True

    def begin(self, log: GameLog, game: Game) -> None:
        """The opening position of the deal, before any step."""

    def before_step(self, index: int, step: Step, game: Game) -> None:
        """Step ``index`` (0-based) is about to be played on ``game``."""

    def after_step(self, index: int, step: Step, game: Game) -> None:
        """Step ``index`` was legal; ``game`` is the position after it."""

    def illegal(self, index: int, step: Step, game: Game, error: ErrorInfo) -> None:
        """Step ``index`` is illegal in ``game`` (left as it was before the step)."""

    def end(self, played: Played) -> None:
        """The traversal is over (also after a bad deal, an illegal step or a false claim)."""


class _Silent(Visitor):
    """The visitor of a traversal nobody watches: the tight loop."""

    per_step = False


_SILENT: Final = _Silent()


def play(log: GameLog, visitor: Visitor | None = None) -> Played:
    """Play ``log`` from its deal: every step until the first illegal one, then its claim."""
    visitor = visitor or _SILENT
    rules = log.resolved_rules()
    number = log.deal.number
    try:
        piles = resolve_deal(number, log.deal.piles, rules)
    except BadDeal as exc:
        played = Played(rules, number, None, 0, deal_error(exc))
        visitor.end(played)
        return played
    game = Game.trusted(piles, rules)
    visitor.begin(log, game)
    done, error = play_steps(game, log.steps(), visitor)
    if error is None:
        error = claim_error(game, log.claim)
    played = Played(rules, number, game, done, error)
    visitor.end(played)
    return played


def play_steps(
    game: Game, steps: list[Step], visitor: Visitor = _SILENT, first: int = 0
) -> tuple[int, ErrorInfo | None]:
    """Play ``steps`` on ``game`` (changed in place) until one is illegal.

    Returns how many were played and the error of the first illegal one (its index counted from
    ``first``). The one loop that plays steps of a log; :func:`play` calls it for a whole log.
    """
    if not visitor.per_step:
        return _play_fast(game, steps, first)
    before, after, illegal = visitor.before_step, visitor.after_step, visitor.illegal
    for index, step in enumerate(steps, first):
        before(index, step, game)
        try:
            game.push(step)
        except IllegalMove as exc:
            error = move_error(index, exc)
            illegal(index, step, game, error)
            return index - first, error
        after(index, step, game)
    return len(steps), None


def _play_fast(game: Game, steps: list[Step], first: int) -> tuple[int, ErrorInfo | None]:
    # The same as play_steps with no visitor, with the engine's methods bound once: this loop
    # is most of what verifying a log costs. Moves are unpacked straight into Game.move.
    move, redeal = game.move, game.redeal
    index = 0
    try:
        for index, step in enumerate(steps):  # noqa: B007 - the except clause reports it
            if type(step) is Redeal:  # not `is REDEAL`: a Redeal() made elsewhere is another object
                redeal()
            else:
                move(*step)  # a Move: source, target, count, card
    except IllegalMove as exc:
        return index, move_error(index + first, exc)
    return len(steps), None


class _Recorder(Visitor):
    """Writes each step as a log entry that names its moving card (what our own logs hold)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def before_step(self, index: int, step: Step, game: Game) -> None:
        moving = game.piles[step.source - 1][-step.count] if isinstance(step, Move) else None
        self.entries.append(step_entry(step, moving))


def played_entries(
    game: Game, steps: list[Step], *, in_place: bool = False
) -> list[dict[str, Any]]:
    """``steps`` as log entries naming each moving card, played from ``game``.

    ``game`` is left unchanged unless ``in_place``, when it ends in the position after the steps.

    :raises AssertionError: a step is illegal (these are steps we made: a bug of ours).
    """
    recorder = _Recorder()
    _, error = play_steps(game if in_place else game.copy(), steps, recorder)
    if error is not None:
        raise AssertionError(f"playing our own steps: {error.message}")
    return recorder.entries


def deal_error(exc: BadDeal) -> ErrorInfo:
    """How piles that are not a deal are reported."""
    return ErrorInfo(index=None, path=exc.path, code=exc.code, message=f"deal: {exc}")


def move_error(index: int, exc: IllegalMove) -> ErrorInfo:
    """How an illegal step at ``index`` is reported (players count moves from 1)."""
    # Built from values the engine produced: no validation needed (model_construct is cheaper).
    return ErrorInfo.model_construct(
        index=index, path=f"/moves/{index}", code=exc.code, message=f"move {index + 1}: {exc}"
    )


def claim_error(game: Game, claim: Claim | None) -> ErrorInfo | None:
    """The first field of ``claim`` that the played game contradicts."""
    if claim is None:
        return None
    actual: dict[str, Any] = {
        "outcome": game.outcome(),
        "foundation_cards": game.foundation_cards,
        "moves": game.moves,
        "redeals": game.redeals,
    }
    for key, value in actual.items():
        said = getattr(claim, key)
        if said is not None and said != value:
            return ErrorInfo(
                index=None,
                path=f"/claim/{key}",
                code="claim-mismatch",
                message=f"the claim says {key} {said}, the replay gives {value}",
            )
    return None
