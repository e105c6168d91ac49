"""Text rendering: positions in the layouts of the seeds, and whole games as readable replays.

Every line fits in 80 columns. Rendering only reads positions; legality comes from the engine
(:mod:`cruel_tools.game.game`) and error wording from the verifier, so a replay and ``cruel verify``
always agree.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CruelError
from ..formats import document_config
from ..terminal import terminal_safe
from . import cards
from .cards import Card
from .game import Game, Outcome, Redeal, Step, foundation_rank
from .log import GameLog
from .rules import PRESETS
from .traversal import ErrorInfo, Played, Visitor, play, play_steps
from .verify import FinalPosition, Source, final_position, score_words

Layout = Literal["rows", "grid", "wide"]
LAYOUTS: tuple[Layout, ...] = ("rows", "grid", "wide")
WIDTH = 80
_RED = "\x1b[31m"
_RESET = "\x1b[0m"
_TO_ASCII = str.maketrans(dict(zip(cards.SUIT_SYMBOLS, cards.SUITS, strict=True)))


@dataclass(frozen=True)
class Style:
    """How to draw: layout, ASCII suits (S H D C) or symbols, ANSI colour for red suits."""

    layout: Layout = "rows"
    ascii: bool = False
    color: bool = False

    def card(self, card: Card, width: int = 0) -> str:
        """A card, padded to ``width`` visible columns (colour codes take no column)."""
        text = cards.name(card) if self.ascii else cards.symbol(card)
        pad = " " * max(0, width - len(text))
        if self.color and cards.suit(card) in (1, 2):  # hearts, diamonds
            return f"{_RED}{text}{_RESET}{pad}"
        return text + pad

    def suit(self, suit: int) -> str:
        text = cards.SUITS[suit] if self.ascii else cards.SUIT_SYMBOLS[suit]
        return f"{_RED}{text}{_RESET}" if self.color and suit in (1, 2) else text

    def text(self, message: str) -> str:
        """A message (e.g. the verifier's) with its suit symbols as letters in ASCII mode."""
        return message.translate(_TO_ASCII) if self.ascii else message

    @property
    def arrow(self) -> str:
        return "->" if self.ascii else "→"


# --- positions --------------------------------------------------------------------------------


def foundation_line(game: Game, style: Style) -> str:
    """``♠ 5  ♥ A  ♦ 3  ♣ 7``: the top rank of each foundation (``-`` while empty)."""
    rules = game.rules
    return "  ".join(
        f"{style.suit(s)} {cards.RANK_NAMES[foundation_rank(rules, n)] if n else '-'}"
        for s, n in enumerate(game.foundations)
    )


def _rows(piles: Sequence[Sequence[Card]], style: Style) -> list[str]:
    lines = []
    for i, pile in enumerate(piles, 1):
        body = " ".join(style.card(c, 3) for c in pile).rstrip() if pile else "(empty)"
        lines.append(f"{i:>2}: {body}")
    return lines


def _stacked(piles: Sequence[Sequence[Card]], style: Style, per_row: int, col: int) -> list[str]:
    """Piles side by side, each a column of cards from bottom (first line) to top, as on a table."""
    lines: list[str] = []
    for start in range(0, len(piles), per_row):
        group = piles[start : start + per_row]
        if start:
            lines.append("")
        lines.append("".join(f"  {start + k + 1}".ljust(col) for k in range(len(group))).rstrip())
        depth = max(1, max(len(p) for p in group))
        for row in range(depth):
            cells = []
            for pile in group:
                if row < len(pile):
                    cells.append("  " + style.card(pile[row], col - 2))
                elif row == 0:
                    cells.append("  " + "--".ljust(col - 2))
                else:
                    cells.append(" " * col)
            lines.append("".join(cells).rstrip())
    return lines


def position_lines(game: Game, style: Style) -> list[str]:
    """The foundations, then the piles (12, or 13 under ripple-fan-pysolfc) in the chosen
    layout."""
    if style.layout == "grid":
        body = _stacked(game.piles, style, per_row=4, col=10)
    elif style.layout == "wide":
        body = _stacked(game.piles, style, per_row=6, col=9)
    else:
        body = _rows(game.piles, style)
    return [foundation_line(game, style), *body]


# --- steps ------------------------------------------------------------------------------------


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def describe(step: Step, before: Game, style: Style) -> str:
    """A step in words, from the position it is played in: ``4♦ pile 3 → pile 7, onto 5♦``."""
    if isinstance(step, Redeal):
        return f"Redeal ({ordinal(before.redeals + 1)})"
    n = len(before.piles)
    src = before.piles[step.source - 1] if 1 <= step.source <= n else []
    moving = src[-step.count :] if 0 < step.count <= len(src) else []
    what = " ".join(style.card(c) for c in reversed(moving)) if moving else "(nothing)"
    if step.target is None:
        return f"{what} pile {step.source} {style.arrow} foundation"
    dst = before.piles[step.target - 1] if 1 <= step.target <= n else []
    onto = f", onto {style.card(dst[-1])}" if dst else ""
    return f"{what} pile {step.source} {style.arrow} pile {step.target}{onto}"


def step_line(number: int, step: Step, before: Game, style: Style) -> str:
    """A numbered line of a score sheet: ``12. 4♦ pile 3 → pile 7, onto 5♦``."""
    return f"{number}. {describe(step, before, style)}"


class _ScoreSheet(Visitor):
    def __init__(self, style: Style) -> None:
        self.style, self.lines = style, list[str]()

    def before_step(self, index: int, step: Step, game: Game) -> None:
        self.lines.append(step_line(index + 1, step, game, self.style))


def score_sheet(game: Game, steps: list[Step], first: int = 1, style: Style = Style()) -> list[str]:
    """One numbered line per step, played from ``game`` (left unchanged) and numbered from
    ``first``: what ``cruel replay --moves-only`` and ``cruel solve`` write."""
    sheet = _ScoreSheet(style)
    play_steps(game.copy(), steps, sheet, first=first - 1)
    return sheet.lines


def new_tops(before: Game, after: Game, style: Style) -> str:
    """After a redeal: the cards that are tops now and were not before (what players study)."""
    old = {p[-1] for p in before.piles if p}
    fresh = [
        f"{style.card(p[-1])} (pile {i})"
        for i, p in enumerate(after.piles, 1)
        if p and p[-1] not in old
    ]
    return "new tops: " + (", ".join(fresh) if fresh else "none")


def _wrap(text: str, indent: str = "    ") -> list[str]:
    """Split a long line at commas so it fits in 80 columns."""
    lines, current = [], ""
    for part in text.split(", "):
        candidate = f"{current}, {part}" if current else part
        if len(_visible(candidate)) + len(indent) > WIDTH and current:
            lines.append(indent + current + ",")
            current = part
        else:
            current = candidate
    lines.append(indent + current)
    return lines


def _visible(text: str) -> str:
    return text.replace(_RED, "").replace(_RESET, "")


# --- replays ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """A note on one step of a replay (``cruel replay --analyze``): ``lines`` are written under
    the step in the text replay, ``data`` is the step's ``mark`` in the JSON one."""

    lines: tuple[str, ...]
    data: Mapping[str, object]


@dataclass(frozen=True)
class ReplayOptions:
    style: Style = Style()
    first: int = 1  # first step shown (1-based)
    last: int | None = None  # last step shown
    final_only: bool = False
    moves_only: bool = False
    #: Marks by step number (0: the deal, written after the start); only shown steps show theirs.
    marks: Mapping[int, Mark] = field(default_factory=dict)
    #: Lines written after the result line (the analysis in short).
    notes: tuple[str, ...] = ()


@dataclass
class Replay:
    """A rendered game: its lines and the first thing wrong with it (as ``cruel verify`` says)."""

    lines: list[str]
    error: ErrorInfo | None
    game: Game | None


def _header(log: GameLog, styled: bool = False) -> list[str]:
    rules = log.resolved_rules()
    deal = f"deal {log.deal.number}" if log.deal.number is not None else "deal given by its piles"
    custom = "" if rules == PRESETS[rules.preset] else " (with overrides)"
    lines = [f"Cruel: {deal}, rules {rules.preset}{custom}"]
    meta = log.meta or {}
    facts = [
        f"{k.replace('_', ' ')}: {meta[k]}"
        for k in ("player", "started_at", "finished_at")
        if isinstance(meta.get(k), (str, int, float))
    ]
    if facts:
        text = "; ".join(str(f)[:60] for f in facts).replace("; ", ", ")
        # Styled lines keep their colour codes on the terminal (cli._out): the log's text in
        # them is made safe here, so that none of its own codes pass (issue #33, finding 10).
        lines.extend(_wrap(terminal_safe(text) if styled else text, indent=""))
    return lines


class EmptyWindow(CruelError):
    """Replay options whose ``first``..``last`` window holds no step of the log."""

    code = "empty-window"


def check_window(options: ReplayOptions, steps: int) -> None:
    """:raises EmptyWindow: ``options`` show no step of a log of ``steps`` steps."""
    first, last = options.first, options.last
    if last is not None and last < first:  # no log could fill it: the options are at fault
        raise EmptyWindow(f"--from {first} --to {last}: the range is backwards (empty)")
    if first > max(steps, 1):
        window = f"--from {first}" + (f" --to {last}" if last is not None else "")
        raise EmptyWindow(f"{window} shows no step: the log has {steps} steps")


def replay(log: GameLog, options: ReplayOptions = ReplayOptions()) -> Replay:
    """Render ``log`` step by step; stop at the first illegal move, as the verifier does."""
    visitor = _ReplayVisitor(options, _header(log, options.style.color))
    played = play(log, visitor)
    return Replay(visitor.out, played.error, played.game)


class _ReplayVisitor(Visitor):
    """Writes the lines of a replay as :func:`~cruel_tools.game.traversal.play` walks the log."""

    def __init__(self, options: ReplayOptions, header: list[str]) -> None:
        self.options, self.style, self.out = options, options.style, header
        self.show_positions = not (options.moves_only or options.final_only)
        self.last = options.last
        self.text = ""  # the step about to be played, in words
        self.before: Game | None = None  # the position before a shown redeal (for its new tops)

    def begin(self, log: GameLog, game: Game) -> None:
        first, style = self.options.first, self.style
        if self.show_positions and first <= 1:
            self.out += ["", "Start", *position_lines(game, style)]
        elif self.show_positions:
            self.out += ["", f"Before step {first}"]
        if not self.options.final_only:
            self.out += self._mark(0, blank=self.show_positions)

    def _mark(self, number: int, blank: bool = False) -> list[str]:
        """The lines of step ``number``'s mark (none when unmarked), after a blank line."""
        mark = self.options.marks.get(number)
        if mark is None:
            return []
        lines = [line for text in mark.lines for line in _mark_lines(text, self.style)]
        return ["", *lines] if blank else lines

    def _shown(self, number: int) -> bool:
        opts = self.options
        return opts.first <= number and (self.last is None or number <= self.last)

    def before_step(self, index: int, step: Step, game: Game) -> None:
        number = index + 1
        if self.show_positions and number == self.options.first and number > 1:
            self.out += position_lines(game, self.style)
        self.text = step_line(number, step, game, self.style)
        shown = self._shown(number) and not self.options.final_only
        self.before = game.copy() if shown and isinstance(step, Redeal) else None

    def after_step(self, index: int, step: Step, game: Game) -> None:
        if not self._shown(index + 1) or self.options.final_only:
            return
        if self.options.moves_only:
            self.out += [self.text, *self._mark(index + 1)]
            return
        self.out += ["", self.text, *self._mark(index + 1)]
        if self.before is not None:
            self.out += _wrap(new_tops(self.before, game, self.style))
        self.out += position_lines(game, self.style)

    def illegal(self, index: int, step: Step, game: Game, error: ErrorInfo) -> None:
        self.out += [
            "",
            f"{self.text}  (illegal)",
            *_error_lines(error, self.style),
            f"Position when move {index + 1} was tried:",
            *position_lines(game, self.style),
        ]

    def end(self, played: Played) -> None:
        error, game, style = played.error, played.game, self.style
        if game is None:  # a bad deal
            assert error is not None
            self.out += ["", *_error_lines(error, style)]
            return
        claim_only = error is None or error.code == "claim-mismatch"
        if claim_only and self.options.final_only:
            self.out += ["", "Final position", *position_lines(game, style)]
        self.out += ["", _summary(game)]
        if error is not None and error.code == "claim-mismatch":
            self.out += _error_lines(error, style)
        for note in self.options.notes:
            self.out += _mark_lines(note, style, indent="")


class _JsonVisitor(Visitor):
    """Collects the steps of ``cruel replay --json`` as :func:`play` walks the log."""

    def __init__(self, options: ReplayOptions) -> None:
        self.options = options
        self.style = Style(ascii=options.style.ascii)  # never colour in JSON
        self.steps: list[dict[str, object]] = []
        self.text = ""

    def _shown(self, number: int) -> bool:
        opts = self.options
        return not (
            opts.final_only or number < opts.first or (opts.last is not None and number > opts.last)
        )

    def before_step(self, index: int, step: Step, game: Game) -> None:
        # Only the shown steps are put in words: a window at the end of a long log (POST
        # /v1/replay?from=) costs the engine's replay of the steps before it, not their words.
        if self._shown(index + 1):
            self.text = describe(step, game, self.style)

    def after_step(self, index: int, step: Step, game: Game) -> None:
        number, opts = index + 1, self.options
        if not self._shown(number):
            return
        entry: dict[str, object] = {"step": number, "text": self.text}
        if not opts.moves_only:
            entry["position"] = final_position(game).model_dump(mode="json")
        if number in opts.marks:
            entry["mark"] = dict(opts.marks[number].data)
        self.steps.append(entry)


REPLAY_FORMAT: Final = "cruel-replay/1"


class StepMark(BaseModel):
    """What ``cruel replay --analyze`` says of a step (docs/replay.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["losing-step", "may-be-losing-step", "costly"] = Field(
        description="losing-step: a win was possible before the step, none after it. "
        "may-be-losing-step: one of an interval of steps the budget could not narrow, one of "
        "which lost the win. costly: a step of a win after which the fewest actions still "
        "needed did not drop by one."
    )
    text: str = Field(description="The mark in words.")
    still_winning: list[dict[str, Any]] | None = Field(
        None, description="losing-step: the other steps there that still win (log entries)."
    )
    cost: int | None = Field(None, description="costly: the actions the step cost (at least).")
    exact: bool | None = Field(None, description="costly: whether cost is exact.")


class ReplayStep(BaseModel):
    """One shown step of a replay."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int = Field(description="1-based number of the step in the log's moves.")
    text: str = Field(description="The step in words, as `cruel replay` writes it.")
    position: FinalPosition | None = Field(
        None, description="The position after the step (absent with --moves-only)."
    )
    mark: StepMark | None = Field(
        None, description="With --analyze, on a marked step only: what the analysis says of it."
    )


class ReplayWindow(BaseModel):
    """``POST /v1/replay`` only (issue #33): the steps an answer shows, and where the next
    window starts. An answer shows at most 2,000 steps and 1 MiB of them
    (``constants.REPLAY_MAX_STEPS``, ``REPLAY_MAX_BYTES``); a longer window is cut."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: int = Field(description="The first step asked for (the from parameter, 1 by default).")
    last: int | None = Field(description="The last step shown; null when none is.")
    steps: int = Field(description="The steps of the log (its moves), legal or not.")
    next: int | None = Field(
        description="The first step the window asked for and the log plays that this answer "
        "does not show (ask from=next for it); null when the answer holds them all."
    )
    cut: bool = Field(description="The window was cut at the step or byte cap (next is set).")


class ReplayDocument(BaseModel):
    """``cruel replay --json`` (one object per log) and ``POST /v1/replay``."""

    model_config = document_config("Cruel replay v1", "replay")

    format: Literal["cruel-replay/1"] = REPLAY_FORMAT
    source: Source | None = Field(description="Where the log came from (null: a request body).")
    deal_number: int | None
    rules: str = Field(description="The rules preset the log plays.")
    steps: list[ReplayStep]
    outcome: Outcome | None = Field(description="null: the deal or rules could not be played.")
    foundation_cards: int | None
    moves: int | None
    redeals: int | None
    final: FinalPosition | None = Field(description="The position after the last legal step.")
    error: ErrorInfo | None = Field(description="The first thing wrong, as `cruel verify` says.")
    analysis: dict[str, Any] | None = Field(
        None,
        description="Only with --analyze: the game's cruel-analysis/1 object "
        "(schemas/analysis.schema.json); null for a log that is not a legal game.",
    )
    window: ReplayWindow | None = Field(
        None, description="Only from POST /v1/replay: the window of steps the answer shows."
    )


def replay_json(
    log: GameLog, options: ReplayOptions = ReplayOptions(), source: Source | None = None
) -> dict[str, object]:
    """``cruel replay --json``: one log's shown steps (words, and the position after each unless
    ``moves_only``), its outcome and final position, and the first thing wrong, if any: a
    :class:`ReplayDocument` as JSON."""
    visitor = _JsonVisitor(options)
    played = play(log, visitor)
    game = played.game
    return {
        "format": REPLAY_FORMAT,
        "source": None if source is None else source.model_dump(mode="json"),
        "deal_number": log.deal.number,
        "rules": log.resolved_rules().preset,
        "steps": visitor.steps,
        "outcome": None if game is None else game.outcome(),
        "foundation_cards": None if game is None else game.foundation_cards,
        "moves": None if game is None else game.moves,
        "redeals": None if game is None else game.redeals,
        "final": None if game is None else final_position(game).model_dump(mode="json"),
        "error": None if played.error is None else played.error.model_dump(mode="json"),
    }


def _mark_lines(text: str, style: Style, indent: str = "   ") -> list[str]:
    """A mark's line (``!! ...``), wrapped to 80 columns under its first words."""
    text = style.text(text)
    if visible_width(indent + text) <= WIDTH:
        return [indent + text]
    return textwrap.wrap(
        text,
        WIDTH - (len(_visible(text)) - len(text)) if style.color else WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "   ",
        break_on_hyphens=False,
    )


def _error_lines(error: ErrorInfo, style: Style) -> list[str]:
    """The verifier's words for ``error``, wrapped to 80 columns."""
    where = "" if error.index is not None else f" (at {error.path})"
    text = f"error: {style.text(error.message)}{where} [{error.code}]"
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_on_hyphens=False)


def _summary(game: Game) -> str:
    words = score_words(game.foundation_cards, game.moves, game.redeals)
    return f"Game result: {game.outcome().replace('_', ' ')}, {words}"


def show(game: Game, title: str, style: Style) -> list[str]:
    """A starting position with a title line."""
    return [title, *position_lines(game, style)]


def visible_width(line: str) -> int:
    """Columns a rendered line takes on a terminal (colour codes take none)."""
    return len(_visible(line))


__all__ = [
    "LAYOUTS",
    "EmptyWindow",
    "Mark",
    "Replay",
    "REPLAY_FORMAT",
    "ReplayDocument",
    "ReplayStep",
    "ReplayWindow",
    "StepMark",
    "ReplayOptions",
    "Style",
    "check_window",
    "describe",
    "position_lines",
    "replay",
    "score_sheet",
    "show",
    "step_line",
    "Layout",
    "WIDTH",
    "foundation_line",
    "ordinal",
    "new_tops",
    "replay_json",
    "visible_width",
]
