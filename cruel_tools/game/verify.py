"""Verifying game logs: replay every move through the engine and report, for one log or a batch.

Data flows one way: bytes → :func:`cruel_tools.game.log.load` (format errors) → deal check → engine
replay (first illegal move) → claim check → :class:`VerifyReport`.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import islice
from multiprocessing.pool import AsyncResult
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Literal,
    NamedTuple,
    Protocol,
    TypeVar,
    runtime_checkable,
)

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ..formats import document_config
from ..spec import SPEC
from . import cards, engine
from .game import Game, Outcome, foundation_rank
from .log import GameLog, Limits, LogFormatError, load, load_input
from .rules import PRESETS, Rules
from .traversal import ErrorInfo, Played, play

if TYPE_CHECKING:
    from .._native import FastLog, FastPreset, Lines

#: The report's format name: the spec's (spec/log.json, "report", which also orders its keys as
#: :class:`VerifyReport` does); the model states it as a type too.
REPORT_FORMAT: Final[Literal["cruel-verify-report/1"]] = SPEC.log["report"]["format"]
_T = TypeVar("_T")

#: What each status makes ``cruel verify`` exit with (the worst status of a batch wins).
Status = Literal["valid", "invalid", "unreadable", "internal-error"]
EXIT_CODES: dict[Status, int] = {"valid": 0, "invalid": 1, "unreadable": 2, "internal-error": 3}


class Source(BaseModel):
    """Where a log came from: a file (``-`` for standard input) and, in JSON Lines, its line."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


class FinalPosition(BaseModel):
    """The position after the last legal step."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    foundations: dict[Literal["S", "H", "D", "C"], int] = Field(
        description="Rank of each foundation's top card, 1 (ace) to 13 (king); 0 while empty."
    )
    piles: list[list[str]] = Field(
        description="The 12 piles (13 under ripple-fan-pysolfc), each bottom to top."
    )


class VerifyReport(BaseModel):
    """What ``cruel verify`` found in one log."""

    model_config = document_config("Cruel verify report v1", "verify-report")

    format: Literal["cruel-verify-report/1"] = REPORT_FORMAT
    source: Source | None = None
    status: Status = Field(
        description="valid; invalid (illegal move, bad deal, false claim); unreadable (not a v1 "
        "log); internal-error (a bug in cruel-tools)."
    )
    valid: bool = Field(description="Every move legal and the claim, if any, true.")
    outcome: Outcome | None = Field(None, description="Status of the final position.")
    foundation_cards: int | None = None
    moves: int | None = Field(None, description="Legal card moves replayed (a run counts once).")
    redeals: int | None = None
    rules: Rules | None = None
    deal_number: int | None = None
    error: ErrorInfo | None = None
    final: FinalPosition | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]


# Reports are built from values the engine produced, so they skip validation (model_construct):
# it halves the cost of a report, and the report schema test checks what they serialize to.
def final_position(game: Game) -> FinalPosition:
    f, name = game.foundations, cards.name
    if game.rules.foundation_direction != "up":  # counts of cards; the report gives top ranks
        f = [foundation_rank(game.rules, n) for n in f]
    return FinalPosition.model_construct(
        foundations={"S": f[0], "H": f[1], "D": f[2], "C": f[3]},
        piles=[[name(c) for c in p] for p in game.piles],
    )


def verify(log: GameLog, source: Source | None = None) -> VerifyReport:
    """Verify a parsed log: deal, every move, then the claim (one :func:`~.traversal.play`)."""
    return report_of(play(log), source)


def report_of(played: Played, source: Source | None = None) -> VerifyReport:
    """The report on a log that :func:`~.traversal.play` has played."""
    game, error = played.game, played.error
    if game is None:
        return VerifyReport(
            source=source,
            status="invalid",
            valid=False,
            rules=played.rules,
            deal_number=played.deal_number,
            error=error,
        )
    return VerifyReport.model_construct(
        source=source,
        status="invalid" if error else "valid",
        valid=error is None,
        outcome=game.outcome(),
        foundation_cards=game.foundation_cards,
        moves=game.moves,
        redeals=game.redeals,
        rules=played.rules,
        deal_number=played.deal_number,
        error=error,
        final=final_position(game),
    )


def unreadable(exc: LogFormatError, source: Source | None = None) -> VerifyReport:
    """The report for input that is not a v1 log at all."""
    error = ErrorInfo(index=None, path=exc.path or "/", code=exc.code, message=exc.message)
    return VerifyReport(source=source, status="unreadable", valid=False, error=error)


def verify_bytes(
    data: bytes, source: Source | None = None, limits: Limits = Limits()
) -> VerifyReport:
    """Verify one log given as JSON text. Never raises for bad input: it reports it."""
    try:
        log = load(data, limits)
    except LogFormatError as exc:
        return unreadable(exc, source)
    return verify(log, source)


# --- batches ----------------------------------------------------------------------------------

#: One unit of batch work: where it came from and its bytes, or the error met reading it.
Unit = tuple[Source, bytes | LogFormatError]


class Checker(Protocol):
    """What a batch checks each parsed log for, and how a report reads as a line.

    Passed to worker processes with ``jobs`` > 1, so it must pickle (a module-level class whose
    fields pickle). The default, :data:`PLAIN`, is :func:`verify` and :func:`report_line`;
    ``cruel verify --puzzle`` uses :class:`cruel_tools.puzzles.PuzzleCheck`.
    """

    def check(self, log: GameLog, source: Source | None) -> VerifyReport: ...

    def line(self, report: VerifyReport) -> str: ...


class PlainCheck:
    """Plain verification: :func:`verify`, and :func:`report_line` for people."""

    def check(self, log: GameLog, source: Source | None) -> VerifyReport:
        return verify(log, source)

    def line(self, report: VerifyReport) -> str:
        return report_line(report)


PLAIN: Final = PlainCheck()


def verify_unit(unit: Unit, limits: Limits = Limits(), checker: Checker = PLAIN) -> VerifyReport:
    """Check one unit (read from a file: input that is no log at all is worded as the input
    problem it is, :func:`~cruel_tools.game.log.load_input`); a bug of ours becomes an
    ``internal-error`` report, never a traceback."""
    source, data = unit
    if isinstance(data, LogFormatError):
        return unreadable(data, source)
    try:
        try:
            log = load_input(data, limits)
        except LogFormatError as exc:
            return unreadable(exc, source)
        return checker.check(log, source)
    except Exception as exc:  # noqa: BLE001 - the last line of defence, tested to stay unused
        return _internal_error(exc, source)


def _internal_error(exc: Exception, source: Source | None) -> VerifyReport:
    error = ErrorInfo(
        index=None,
        path="/",
        code="internal-error",
        message=f"cruel-tools failed on this log ({type(exc).__name__}); please report it",
    )
    return VerifyReport(source=source, status="internal-error", valid=False, error=error)


def verify_many(
    units: Iterable[Unit], limits: Limits = Limits(), jobs: int = 1, checker: Checker = PLAIN
) -> Iterator[VerifyReport]:
    """Reports in input order; ``jobs`` > 1 checks in that many worker processes."""
    if jobs <= 1:
        for unit in units:
            yield verify_unit(unit, limits, checker)
        return
    yield from _in_workers(_reports_of_chunk, units, (limits, checker), jobs)


def render_many(
    units: Iterable[Unit],
    limits: Limits = Limits(),
    jobs: int = 1,
    as_json: bool = False,
    checker: Checker = PLAIN,
) -> Iterator[tuple[Status, bytes]]:
    """``(status, output line)`` per log in input order: what ``cruel verify`` prints.

    With ``jobs`` > 1 the workers render the lines themselves, so the parent only writes bytes:
    sending whole report models back would cost the parent more than verifying does.

    Where the native core runs (:func:`fast_log`) and the checker is :data:`PLAIN`, ``units``
    that can be read in blocks (a :class:`BlockSource`, as
    :func:`cruel_tools.game.inputs.iter_units`
    gives) are: whole blocks of JSON Lines go to the core in one call, which writes the line of
    every valid log it fully understands and hands every other log back, untouched, to the path
    below (so the Python engine words every error, and judges every unusual log).
    """
    fast = fast_log(limits) if checker is PLAIN else None
    if fast is None:
        if jobs <= 1:
            for unit in units:
                yield _render(unit, limits, as_json, checker)
            return
        yield from _in_workers(_lines_of_chunk, units, (limits, as_json, checker), jobs)
        return
    items: Iterable[Item] = units.blocks() if isinstance(units, BlockSource) else units
    if jobs <= 1:
        for item in items:
            yield from _render_item(item, fast, limits, as_json)
        return
    tasks = ((_lines_of_items, (task, limits, as_json)) for task in _tasks(items))
    yield from _pooled(tasks, jobs)


# --- the native fast path ---------------------------------------------------------------------


class LineBlock(NamedTuple):
    """Whole lines of a JSON Lines input, cut after a line end (or at the input's end), none
    over the size limit: what the native fast path reads in one call."""

    file: str  # the input's display name (Source.file)
    line: int  # the number of its first line
    data: bytes


#: What :meth:`BlockSource.blocks` yields: units, and blocks of JSON Lines.
Item = Unit | LineBlock


@runtime_checkable
class BlockSource(Protocol):
    """Units that can also be read as blocks of JSON Lines (``iter_units``' result)."""

    def blocks(self) -> Iterator[Item]: ...


def _fast_presets(core: Any) -> list[FastPreset]:
    """The presets the fast path plays (Cruel's own layout: it reads Cruel's deals), each with
    its report object as report_json writes it."""
    return [
        core.FastPreset(
            name=name,
            rules=engine.native_rules(rules),
            rules_json=orjson.dumps(rules.model_dump(mode="json")),
        )
        for name, rules in PRESETS.items()
        if rules.cruel_layout
    ]


def fast_log(limits: Limits = Limits()) -> FastLog | None:
    """The native core's fast path under ``limits``, or None where the Python engine runs.

    :raises cruel_tools.game.engine.NativeCoreMissing: ``CRUEL_ENGINE=native`` without the core.
    """
    core = engine.native()
    return None if core is None else _fast_log(core, limits)


@lru_cache(maxsize=16)
def _fast_log(core: object, limits: Limits) -> FastLog:
    names = [cards.name(c) for c in range(52)]
    fast: FastLog = core.FastLog(  # type: ignore[attr-defined]
        _fast_presets(core), names, limits.max_bytes, limits.max_moves
    )
    return fast


def block_units(block: LineBlock) -> Iterator[Unit]:
    """The units of a block, as :func:`cruel_tools.game.inputs.iter_units` reads lines: numbered
    from ``block.line``, blank lines skipped, trailing ``\\r`` taken off."""
    lines = block.data.split(b"\n")
    if lines[-1] == b"":  # the block ends with a line end: no line after it
        lines.pop()
    make = Source.model_construct
    for number, line in enumerate(lines, block.line):
        if line.strip():
            yield make(file=block.file, line=number), line.rstrip(b"\r")


def _render_item(
    item: Item, fast: FastLog, limits: Limits, as_json: bool
) -> Iterator[tuple[Status, bytes]]:
    if isinstance(item, LineBlock):
        yield from _render_block(item, fast, limits, as_json)
        return
    source, data = item
    if not isinstance(data, LogFormatError):
        try:
            text = str(source).encode()
        except UnicodeError:  # not a name we made; the Python path says what it says
            text = None
        if text is not None:
            line = fast.render(data, orjson.dumps(source.model_dump()), text, as_json)
            if line is not None:
                yield "valid", line
                return
    yield _render(item, limits, as_json, PLAIN)


def _render_block(
    block: LineBlock, fast: FastLog, limits: Limits, as_json: bool
) -> Iterator[tuple[Status, bytes]]:
    try:
        lines: Lines = fast.render_lines(
            block.data, orjson.dumps(block.file), block.file.encode(), block.line, as_json
        )
    except Exception:  # noqa: BLE001 - a failure of the core costs speed, never a log
        for unit in block_units(block):
            yield _render(unit, limits, as_json, PLAIN)
        return
    make, data = Source.model_construct, block.data
    for item in lines.items:
        if isinstance(item, bytes):
            yield "valid", item
        else:  # handed back: its line and where its bytes lie in the block
            unit = make(file=block.file, line=item.line), data[item.start : item.end]
            yield _render(unit, limits, as_json, PLAIN)


_PackedItem = LineBlock | tuple[str, int | None, bytes | LogFormatError]


def _tasks(items: Iterable[Item]) -> Iterator[list[_PackedItem]]:
    """Work for the worker processes: each block alone, units in chunks (packed: see _pack)."""
    chunk: list[_PackedItem] = []
    for item in items:
        if isinstance(item, LineBlock):
            if chunk:
                yield chunk
                chunk = []
            yield [item]
            continue
        source, data = item
        chunk.append((source.file, source.line, data))
        if len(chunk) >= _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _lines_of_items(
    packed: list[_PackedItem], limits: Limits, as_json: bool
) -> list[tuple[Status, bytes]]:
    fast = fast_log(limits)  # the worker's own (the parent's cannot be pickled)
    out: list[tuple[Status, bytes]] = []
    make = Source.model_construct
    for p in packed:
        item: Item = p if isinstance(p, LineBlock) else (make(file=p[0], line=p[1]), p[2])
        if fast is not None:
            out.extend(_render_item(item, fast, limits, as_json))
        elif isinstance(item, LineBlock):
            out.extend(_render(u, limits, as_json, PLAIN) for u in block_units(item))
        else:
            out.append(_render(item, limits, as_json, PLAIN))
    return out


def _render(unit: Unit, limits: Limits, as_json: bool, checker: Checker) -> tuple[Status, bytes]:
    report = verify_unit(unit, limits, checker)
    if as_json:
        return report.status, report_json(report)
    try:
        return report.status, checker.line(report).encode()
    except Exception as exc:  # noqa: BLE001 - as in verify_unit
        report = _internal_error(exc, report.source)
        return report.status, report_line(report).encode()


def _reports_of_chunk(chunk: list[Unit], limits: Limits, checker: Checker) -> list[VerifyReport]:
    return [verify_unit(u, limits, checker) for u in chunk]


def _lines_of_chunk(
    chunk: list[Unit], limits: Limits, as_json: bool, checker: Checker
) -> list[tuple[Status, bytes]]:
    return [_render(u, limits, as_json, checker) for u in chunk]


def summary(tally: Mapping[Status, int]) -> str:
    """The last line of ``cruel verify``: ``verified 3 logs: 2 valid, 1 invalid, 0 unreadable``
    (and internal errors, if any), from the count of each status."""
    total = sum(tally.values())
    line = (
        f"verified {plural(total, 'log')}: {tally.get('valid', 0)} valid, "
        f"{tally.get('invalid', 0)} invalid, {tally.get('unreadable', 0)} unreadable"
    )
    if tally.get("internal-error"):
        line += f", {tally['internal-error']} internal errors"
    return line


def batch_exit_code(statuses: Iterable[Status]) -> int:
    """What ``cruel verify`` exits with: the worst of the statuses' codes, 0 for none."""
    return max((EXIT_CODES[s] for s in statuses), default=0)


def _in_workers(
    fn: Callable[..., list[_T]], units: Iterable[Unit], extra: tuple[object, ...], jobs: int
) -> Iterator[_T]:
    """Run ``fn(chunk, *extra)`` over chunks of units in ``jobs`` processes, results in order.

    Chunks travel as plain tuples (:func:`_pack`): the parent shares the cores with the workers,
    and pickling a pydantic ``Source`` per log cost it more than reading the log.
    """
    tasks = ((_unpacked, (fn, _pack(chunk), *extra)) for chunk in _batches(units, _CHUNK))
    yield from _pooled(tasks, jobs)


def _pooled(
    tasks: Iterable[tuple[Callable[..., list[_T]], tuple[object, ...]]], jobs: int
) -> Iterator[_T]:
    """Run each ``fn(*args)`` of ``tasks`` in ``jobs`` processes; their results, in order.

    At most two tasks per worker are in flight, so memory stays bounded however long the input.
    """
    context = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
    pending: deque[AsyncResult[list[_T]]] = deque()
    with context.Pool(jobs) as pool:
        for fn, args in tasks:
            pending.append(pool.apply_async(fn, args))
            if len(pending) >= 2 * jobs:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


# Logs per chunk sent to a worker. Small enough that the workers finish together (at the end one
# may wait for the other's last chunk: with 256 that was a fifth of a 2,000-log run), large
# enough that the cost of a trip is a few per cent of the chunk's work.
_CHUNK: Final = 64

_Packed = list[tuple[str, int | None, bytes | LogFormatError]]


def _pack(chunk: list[Unit]) -> _Packed:
    return [(source.file, source.line, data) for source, data in chunk]


def _unpacked(fn: Callable[..., list[_T]], packed: _Packed, *extra: object) -> list[_T]:
    make = Source.model_construct
    return fn([(make(file=f, line=n), data) for f, n, data in packed], *extra)


def _batches(units: Iterable[Unit], size: int) -> Iterator[list[Unit]]:
    it = iter(units)
    while batch := list(islice(it, size)):
        yield batch


def report_json(report: VerifyReport) -> bytes:
    """One report as a line of JSON."""
    return orjson.dumps(report.model_dump(mode="json"))


def plural(k: int, word: str) -> str:
    """``1 move``, ``2 moves``."""
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def score_words(foundation_cards: int, moves: int, redeals: int) -> str:
    """``52 foundation cards, 56 moves, 1 redeal``: the score figures in words."""
    return (
        f"{plural(foundation_cards, 'foundation card')}, {plural(moves, 'move')}, "
        f"{plural(redeals, 'redeal')}"
    )


def report_line(report: VerifyReport) -> str:
    """One report as a line for people, as ``cruel verify`` prints it."""
    where = str(report.source) if report.source else "log"
    err = report.error
    if err is None:
        return f"{where}: valid: {report.outcome}, " + score_words(
            report.foundation_cards or 0, report.moves or 0, report.redeals or 0
        )
    loc = f" (at {err.path})" if err.path not in ("", "/") else ""
    return f"{where}: {report.status}: {err.message}{loc} [{err.code}]"


__all__ = [
    "EXIT_CODES",
    "PLAIN",
    "BlockSource",
    "Item",
    "LineBlock",
    "REPORT_FORMAT",
    "Checker",
    "FinalPosition",
    "PlainCheck",
    "Source",
    "Status",
    "Unit",
    "VerifyReport",
    "batch_exit_code",
    "block_units",
    "fast_log",
    "final_position",
    "plural",
    "render_many",
    "report_json",
    "report_line",
    "report_of",
    "score_words",
    "summary",
    "unreadable",
    "verify",
    "verify_bytes",
    "verify_many",
    "verify_unit",
]
