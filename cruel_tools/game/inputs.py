"""Reading logs from files, directories, JSON Lines and standard input, within limits.

Each log becomes a *unit*: its :class:`~cruel_tools.game.verify.Source` and its bytes, or the
:class:`~cruel_tools.game.log.LogFormatError` met while reading it (missing file, over the size
limit).
Memory stays bounded: a file or line over the limit is never read whole.
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final, Protocol, cast

import orjson
from pydantic import ValidationError

from ..errors import DEAL_OR_LOG, CruelError, problem
from . import deals
from .cards import Card
from .duplicates import surely_unique
from .game import Game, IllegalMove, Step
from .log import (
    Deal,
    GameLog,
    InputProblem,
    Limits,
    LogFormatError,
    load_input,
    refuse_duplicates,
    strip_bom,
)
from .rules import DEFAULT, PRESETS, Rules
from .traversal import play
from .verify import Item, LineBlock, Source, Unit, VerifyReport, report_line, report_of

__all__ = [
    "LOG_SUFFIXES",
    "display_name",
    "os_reason",
    "cannot_read",
    "input_problem",
    "SKIP_FACTOR",
    "BLOCK_BYTES",
    "iter_units",
    "Units",
    "count_units",
    "is_terminal",
    "read_spec",
    "deal_or_log",
    "load_deal",
    "load_deal_rules",
    "read_log",
    "UnreadableInput",
    "UnreadableLog",
    "RulesConflict",
    "InvalidLog",
    "Start",
    "load_start",
]

LOG_SUFFIXES = (".json", ".jsonl")
_CHUNK = 1 << 16


def display_name(path: Path | str) -> str:
    """A file name safe to print and to put in JSON: bytes that are not UTF-8 become U+FFFD."""
    return os.fsencode(path).decode("utf-8", "replace")


def _too_large(size: int, limits: Limits) -> LogFormatError:
    return LogFormatError(
        "too-large", "", f"log is {size} bytes or more, over the limit of {limits.max_bytes}"
    )


def os_reason(exc: OSError) -> str:
    """Why a file cannot be read, in the system's words, except a symbolic link loop (the
    system's "Too many levels of symbolic links") and a missing file, said plainly."""
    if exc.errno == errno.ELOOP:
        return "Symbolic link loop"
    if exc.errno == errno.ENOENT:
        return "No such file or directory"
    return exc.strerror or type(exc).__name__


def cannot_read(name: Path | str, why: OSError | str) -> str:
    """The one wording, in every command, of an input that cannot be read (its
    :func:`~cruel_tools.errors.problem`, ``unreadable``): ``cannot read NAME: No such file or
    directory``."""
    detail = why if isinstance(why, str) else os_reason(why)
    return problem("unreadable", display_name(name), detail).message


_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def input_problem(name: str) -> str | None:
    """None if ``name`` can be opened without blocking (``-``, a directory, a regular file, a
    pipe or FIFO), else the one line (:func:`cannot_read`) saying why not: missing, a symbolic
    link loop, a device or a socket (a device such as /dev/zero could be read for ever)."""
    if name == "-":
        return None
    try:
        mode = os.stat(name).st_mode
    except OSError as exc:
        return cannot_read(name, exc)
    except ValueError:  # a NUL byte in the name
        return cannot_read(name, "No such file or directory")
    kind = _KINDS.get(stat.S_IFMT(mode))
    return None if kind is None else cannot_read(name, f"not a regular file ({kind})")


def _open(path: Path) -> BinaryIO:
    """``path`` opened for reading without ever blocking at open: a FIFO is opened
    non-blocking (with no writer it then reads as empty, at once), then read as a file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _read_file(path: Path, limits: Limits) -> bytes | LogFormatError:
    problem = input_problem(str(path))
    if problem is not None:
        return LogFormatError("unreadable", "", problem)
    try:
        with _open(path) as f:
            data = f.read(limits.max_bytes + 1)
    except OSError as exc:
        return LogFormatError("unreadable", "", cannot_read(path, exc))
    if not data and _is_fifo(path):
        return LogFormatError("unreadable", "", cannot_read(path, "a FIFO with no writer"))
    if len(data) > limits.max_bytes:
        return _too_large(len(data), limits)
    return data


#: How far past the limit an over-long line is skipped, in multiples of the limit, looking for
#: its end: beyond that the input is given up (``/dev/zero`` has no end of line, ever).
SKIP_FACTOR = 16


class _LineReader(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def _lines(
    stream: _LineReader, name: str, limits: Limits, first: int = 1, pretty: bool | None = None
) -> Iterator[Unit]:
    """One unit per non-blank line (numbered from ``first``); a line over the limit is skipped
    in chunks, not read whole, and at most :data:`SKIP_FACTOR` times the limit of it: past that,
    the rest of the input is not read (one last unit says so).

    Input whose first non-blank line is just ``{`` or ``[`` is pretty JSON, not JSON Lines
    (``pretty``: already known, or None: that line says): each of its documents is then one
    unit of that problem, at its first line, rather than one error a line of it."""
    number, shown = first - 1, display_name(name)
    while True:
        line = stream.readline(limits.max_bytes + 2)
        if not line:
            return
        number += 1
        # model_construct: the fields are ours, and a batch of small logs makes millions of these
        source = Source.model_construct(file=shown, line=number)
        if len(line) - line.endswith(b"\n") > limits.max_bytes:
            pretty = bool(pretty)
            size = _past_long_line(stream, line, limits)
            if size is None:
                budget = SKIP_FACTOR * limits.max_bytes
                message = (
                    f"line has no end within {budget} bytes (the limit is "
                    f"{limits.max_bytes}): the rest of {shown} is not read"
                )
                yield source, LogFormatError("too-large", "", message)
                return
            yield source, _too_large(size, limits)
            continue
        stripped = line.strip()
        if not stripped:
            continue
        pretty = stripped in _OPENERS if pretty is None else pretty
        if pretty and stripped in _OPENERS:
            yield source, InputProblem("pretty-json-as-jsonl")
            number, whole = _past_document(stream, number, limits)
            if not whole:
                return
            continue
        yield source, line.rstrip(b"\r\n")


def _past_long_line(stream: _LineReader, line: bytes, limits: Limits) -> int | None:
    """Read past a line over the size limit, in chunks: its size, or None if it has no end
    within :data:`SKIP_FACTOR` times the limit."""
    size, budget = len(line), SKIP_FACTOR * limits.max_bytes
    while not line.endswith(b"\n"):
        if size > budget:
            return None
        line = stream.readline(_CHUNK)
        if not line:
            break
        size += len(line)
    return size


#: A line that is just ``{`` or ``[``: how a pretty printer starts a JSON document, and never a
#: line of JSON Lines (where each line is a whole value). Only an input's first line is looked
#: at (:func:`_lines`, :func:`_line_blocks`): looking at every line of every block cost the
#: native fast path a tenth of its speed.
_OPENERS: Final = (b"{", b"[")


def _past_document(stream: _LineReader, number: int, limits: Limits) -> tuple[int, bool]:
    """Read past the rest of a pretty document whose opening line was line ``number``: up to
    its closing line (``}`` or ``]`` at the start of a line) or the input's end. The number of
    the last line read, and False if :data:`SKIP_FACTOR` times the size limit went by first
    (the rest of the input is then not read)."""
    size = 0
    while size <= SKIP_FACTOR * limits.max_bytes:
        line = stream.readline(_CHUNK)
        if not line:
            break
        size += len(line)
        number += line.endswith(b"\n")
        if line.rstrip(b"\r\n") in (b"}", b"]"):
            break
    else:
        return number, False
    return number, True


#: Bytes read at a time for blocks of JSON Lines (the native fast path): large enough that a
#: call of the core costs nothing per log, small enough that memory stays bounded.
BLOCK_BYTES = 1 << 20


class _Prefixed:
    """``head``, then the rest of ``stream``: what :func:`_line_blocks` had read ahead, given
    back to :func:`_lines` with the stream it came from."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head, self._stream = io.BytesIO(head), stream

    def readline(self, size: int = -1, /) -> bytes:
        line = self._head.readline(size)
        if line.endswith(b"\n") or 0 <= size <= len(line):
            return line
        return line + self._stream.readline(-1 if size < 0 else size - len(line))


def _line_blocks(stream: BinaryIO, name: str, limits: Limits) -> Iterator[Item]:
    """:func:`_lines`' units as blocks of whole lines (:class:`~cruel_tools.game.verify.LineBlock`),
    for the native fast path: the same lines, the same numbers. From a line over the size limit
    on, the rest of the input is :func:`_lines`' to read (its way with such lines is the one),
    and so is the whole of pretty JSON (its first line just ``{`` or ``[``)."""
    shown, number, pending = display_name(name), 1, bytearray()
    pretty: bool | None = None
    read = getattr(
        stream, "read1", stream.read
    )  # read1: what a pipe has now, never waiting for more
    while True:
        chunk = read(BLOCK_BYTES)
        if chunk:
            pending += chunk
            end = pending.rfind(b"\n") + 1
            if not end:  # no line end yet: read on, unless the line is already over the limit
                if len(pending) > limits.max_bytes:
                    yield from _lines(_Prefixed(bytes(pending), stream), name, limits, number)
                    return
                continue
        else:  # the end of the input: a last line without a line end, if any
            end = len(pending)
            if not end:
                return
        block = bytes(pending[:end])
        del pending[:end]
        if pretty is None and not block.isspace():  # the input's first line says (as _lines)
            pretty = _first_line(block).strip() in _OPENERS
            if pretty:
                yield from _lines(_Prefixed(block + bytes(pending), stream), name, limits, number)
                return
        lines = block.split(b"\n") if len(block) > limits.max_bytes else [b""]
        long = next((k for k, line in enumerate(lines) if len(line) > limits.max_bytes), None)
        if long is not None:  # whole lines before it as a block; from it on, _lines reads
            cut = sum(len(line) + 1 for line in lines[:long])
            if cut:
                yield LineBlock(shown, number, block[:cut])
            rest = block[cut:] + bytes(pending)
            yield from _lines(_Prefixed(rest, stream), name, limits, number + long, False)
            return
        yield LineBlock(shown, number, block)
        number += block.count(b"\n")
        if not chunk:
            return


def _first_line(block: bytes) -> bytes:
    """The first non-blank line of a block (of whole lines) that has one (not a copy of the
    block: copies of a megabyte cost the fast path more than their own time, measured)."""
    start = 0
    while block[start : start + 1].isspace():
        start += 1
    end = block.find(b"\n", start)
    return block[start : end if end >= 0 else len(block)]


def _expand(path: Path) -> list[Path]:
    if path.is_dir():
        found = [p for p in path.rglob("*") if p.suffix in LOG_SUFFIXES and p.is_file()]
        return sorted(found)
    return [path]


def iter_units(paths: Sequence[str], limits: Limits = Limits(), stdin_jsonl: bool = False) -> Units:
    """Every log named by ``paths``, in order: files, directories (recursively, sorted), and
    ``-`` for standard input (one log, or JSON Lines with ``stdin_jsonl``).

    An iterator of units; before it is iterated, :meth:`Units.blocks` reads the same input with
    JSON Lines in blocks instead (what :func:`~cruel_tools.game.verify.render_many` gives the native
    fast path)."""
    return Units(paths, limits, stdin_jsonl)


class Units(Iterator[Unit]):
    """:func:`iter_units`' result: iterate it for units, or call :meth:`blocks` instead."""

    def __init__(self, paths: Sequence[str], limits: Limits, stdin_jsonl: bool) -> None:
        self._args = paths, limits, stdin_jsonl
        self._it: Iterator[Item] | None = None

    def __iter__(self) -> Units:
        return self

    def __next__(self) -> Unit:
        if self._it is None:
            self._it = _units(*self._args, blocks=False)
        return cast(Unit, next(self._it))  # without blocks, _units yields only units

    def blocks(self) -> Iterator[Item]:
        """The same input, each JSON Lines input as :class:`~cruel_tools.game.verify.LineBlock` s
        (and units where :func:`_lines` reads on); only once, and not after iterating."""
        if self._it is not None:
            raise RuntimeError("these units are already being read")
        self._it = iter(())
        return _units(*self._args, blocks=True)


def _units(paths: Sequence[str], limits: Limits, stdin_jsonl: bool, blocks: bool) -> Iterator[Item]:
    """The items of every input in turn; an input that holds no log at all (an empty folder, a
    folder without logs, an empty .jsonl file) is one unit of its problem, so that every input
    named is reported."""
    for name in paths:
        found = False
        for item in _units_of(name, limits, stdin_jsonl, blocks):
            found = found or not isinstance(item, LineBlock) or not item.data.isspace()
            yield item
        if not found:
            yield Source(file=display_name(name)), _nothing_in(Path(name))


def _nothing_in(path: Path) -> LogFormatError:
    """The problem of an input without a log: an empty folder, or ``no-logs``."""
    if not path.is_dir():
        return InputProblem("no-logs")
    try:
        empty = next(path.iterdir(), None) is None
    except OSError as exc:
        return LogFormatError("unreadable", "", cannot_read(path, exc))
    return InputProblem("empty-folder") if empty else InputProblem("no-logs")


def _units_of(name: str, limits: Limits, stdin_jsonl: bool, blocks: bool) -> Iterator[Item]:
    lines = _line_blocks if blocks else _lines
    if name == "-":
        stdin = sys.stdin.buffer
        if stdin_jsonl:
            yield from lines(stdin, "-", limits)
        else:
            data = stdin.read(limits.max_bytes + 1)
            yield (
                Source(file="-"),
                (_too_large(len(data), limits) if len(data) > limits.max_bytes else data),
            )
        return
    refusal = input_problem(name)
    if refusal is not None:
        yield Source(file=display_name(name)), LogFormatError("unreadable", "", refusal)
        return
    for path in _expand(Path(name)):
        if path.suffix == ".jsonl":
            try:
                with _open(path) as f:
                    yield from lines(f, str(path), limits)
            except OSError as exc:
                message = cannot_read(path, exc)
                yield Source(file=display_name(path)), LogFormatError("unreadable", "", message)
        else:
            yield Source(file=display_name(path)), _read_file(path, limits)


def count_units(paths: Sequence[str]) -> int | None:
    """How many logs :func:`iter_units` will yield (for a progress bar); None if unknowable."""
    total = 0
    for name in paths:
        if name == "-":
            return None
        root = Path(name)
        if input_problem(name) is not None or _is_fifo(root):
            total += 1
            continue
        found = _expand(root)
        total += not found  # an input without a log: one report of its problem
        for path in found:
            if path.suffix != ".jsonl":
                total += 1
                continue
            try:
                with path.open("rb") as f:
                    # Counts newline-ended lines plus a last unterminated one; blank lines are
                    # counted too, so the bar may end a little short of full. Good enough for a bar.
                    n, last = 0, b"\n"
                    while chunk := f.read(1 << 20):
                        n += chunk.count(b"\n")
                        last = chunk[-1:]
                    total += n + (last != b"\n")
            except OSError:
                total += 1
    return total


def is_terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def read_spec(spec: str, limits: Limits = Limits()) -> bytes:
    """The bytes of file ``spec`` (``-``: stdin), read only up to the size limit.

    Raises ``OSError`` when it cannot be read (a folder too), ``ValueError`` when it is over
    the limit, :class:`~cruel_tools.game.log.InputProblem` for a folder without logs (worded as
    every command words it).
    """
    shown = display_name(spec)
    if spec == "-":
        data = sys.stdin.buffer.read(limits.max_bytes + 1)
    else:
        refusal = input_problem(spec)
        if refusal is not None:
            raise UnreadableInput(refusal)
        if os.path.isdir(spec):
            folder = Path(spec)
            if not any(p.suffix in LOG_SUFFIXES and p.is_file() for p in folder.rglob("*")):
                raise _nothing_in(folder)
            raise UnreadableInput(cannot_read(spec, "Is a directory"))
        try:
            with _open(Path(spec)) as f:
                data = f.read(limits.max_bytes + 1)
        except OSError as exc:
            raise UnreadableInput(cannot_read(spec, exc)) from None
        if not data and _is_fifo(Path(spec)):
            raise UnreadableInput(cannot_read(spec, "a FIFO with no writer"))
    if len(data) > limits.max_bytes:
        raise ValueError(f"{shown}: over the size limit of {limits.max_bytes} bytes")
    return data


def deal_or_log(data: bytes, spec: str, limits: Limits = Limits()) -> Deal | GameLog:
    """JSON holding a deal (``{"number": ...}`` / ``{"piles": ...}``) or a whole log (anything
    with a ``format``). Raises :class:`LogFormatError` for input that is not JSON, JSON that is
    neither (``not-a-log``), a key given twice or a bad log, in ``cruel verify``'s words;
    ``ValueError`` for an object that is not a deal."""
    shown = display_name(spec)
    try:
        obj = orjson.loads(strip_bom(data))
    except orjson.JSONDecodeError:
        return load_input(data, limits)  # it refuses the text as verify does: binary, not-json
    if isinstance(obj, dict) and "format" in obj:
        return load_input(data, limits)
    if not isinstance(obj, dict) or not {"number", "piles"} & obj.keys():
        raise InputProblem("not-a-log", DEAL_OR_LOG)
    if not surely_unique(data, obj):  # {"number": 1, "number": 2}: neither deal
        refuse_duplicates(strip_bom(data))
    try:
        return Deal.model_validate(obj)
    except ValidationError as exc:
        why = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        raise ValueError(f"{shown}: neither a deal nor a game log ({why})") from None


def load_deal(
    spec: str, limits: Limits = Limits(), rules: Rules | None = None
) -> tuple[int | None, list[list[Card]]]:
    """A deal from a number (``"17"``), or from a JSON file (``-`` for stdin) holding a deal or
    a whole log (its deal), under ``rules`` (default: a log's own, else ``cruel``). Raises
    ``ValueError`` subclasses (:class:`~cruel_tools.game.deals.BadDeal`
    for piles that are not a deal, :class:`LogFormatError` for a bad log) or ``OSError``."""
    number, piles, _ = load_deal_rules(spec, limits, rules)
    return number, piles


def load_deal_rules(
    spec: str, limits: Limits = Limits(), rules: Rules | None = None
) -> tuple[int | None, list[list[Card]], Rules]:
    """As :func:`load_deal`, with the rules the deal was read under: ``rules``, else a log's
    own, else ``cruel``."""
    if spec.isascii() and spec.isdigit():
        rules = rules or DEFAULT
        return int(spec), deals.deal_piles(int(spec), rules), rules
    parsed = deal_or_log(read_spec(spec, limits), spec, limits)
    if isinstance(parsed, GameLog):
        rules = rules or parsed.resolved_rules()
    rules = rules or DEFAULT
    deal = parsed.deal if isinstance(parsed, GameLog) else parsed
    return deal.number, deals.resolve_deal(deal.number, deal.piles, rules), rules


def read_log(spec: str, limits: Limits = Limits()) -> tuple[Source, GameLog]:
    """The log in file ``spec`` (``-``: stdin; a folder: its first log), read within the limits.

    :raises UnreadableLog: it cannot be read, or is not a v1 log (the error says where).
    """
    source, data = next(iter_units([spec], limits))  # every input gives a unit, if only its problem
    try:
        if isinstance(data, LogFormatError):
            raise data
        return source, load_input(data, limits)
    except LogFormatError as exc:
        raise UnreadableLog(source, exc) from None


class UnreadableInput(OSError):
    """A file that cannot be read; ``str()`` is the whole line (:func:`cannot_read`)."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnreadableLog(CruelError):
    """A file that holds no v1 log: where it came from, and the :class:`LogFormatError` (whose
    code it carries)."""

    reports = (LogFormatError,)

    def __init__(self, source: Source, error: LogFormatError) -> None:
        super().__init__(str(error))
        self.source, self.error, self.code = source, error, error.code


# --- where a solve starts ---------------------------------------------------------------------


class RulesConflict(CruelError):
    """A rules preset asked for that differs from the rules the log itself was played under."""

    code = "rules-conflict"


class InvalidLog(CruelError):
    """A log whose moves do not replay (an illegal move or a bad deal): there is no position.
    ``report`` is the verifier's, and the error carries its code."""

    reports = (IllegalMove, deals.BadDeal)

    def __init__(self, report: VerifyReport) -> None:
        assert report.error is not None
        super().__init__(report.error.message)
        self.report, self.code = report, report.error.code


@dataclass
class Start:
    """A position to solve: a deal, the logged steps already played on it, and where they lead.

    ``warning`` is the verifier's line when the log's moves are legal but its claim is false
    (the position is still worth solving).
    """

    number: int | None
    piles: list[list[Card]]
    rules: Rules
    prefix: list[Step]
    game: Game
    warning: str | None = None


def load_start(spec: str, rules_name: str | None = None, limits: Limits = Limits()) -> Start:
    """The position ``cruel solve`` starts from: a deal number, a deal file, or a log's final
    position (``-`` for stdin). ``rules_name`` is a preset (default ``cruel``, or the log's own).

    :raises DealNumberError: ``spec`` is a number out of range.
    :raises OSError: the file cannot be read.
    :raises LogFormatError: the file holds something that is not a v1 log.
    :raises BadDeal: the file's piles are not a deal.
    :raises InvalidLog: the log has an illegal move or a bad deal.
    :raises RulesConflict: ``rules_name`` differs from the log's own rules.
    :raises ValueError: the file is neither a deal nor a log, or is over the size limit.
    """
    rules = PRESETS[rules_name or "cruel"]
    if spec.isascii() and spec.isdigit():
        piles = deals.deal_piles(int(spec), rules)
        return Start(int(spec), piles, rules, [], Game.from_deal(piles, rules))
    parsed = deal_or_log(read_spec(spec, limits), spec, limits)
    if isinstance(parsed, GameLog):
        return _start_after(parsed, display_name(spec), rules_name)
    piles = deals.resolve_deal(parsed.number, parsed.piles, rules)
    return Start(parsed.number, piles, rules, [], Game.from_deal(piles, rules))


def _start_after(log: GameLog, shown: str, rules_name: str | None) -> Start:
    rules = log.resolved_rules()
    if rules_name is not None and PRESETS[rules_name] != rules:
        custom = "" if rules == PRESETS[rules.preset] else " with overrides"
        raise RulesConflict(
            f"--rules {rules_name} differs from the rules of {shown} ({rules.preset}{custom}); "
            "leave --rules out to use the log's"
        )
    played = play(log)
    report = report_of(played, Source(file=shown))
    if played.game is None or played.error is not None and played.error.code != "claim-mismatch":
        raise InvalidLog(report)
    warning = report_line(report) if played.error is not None else None
    piles = deals.resolve_deal(log.deal.number, log.deal.piles, rules)  # before the steps
    return Start(log.deal.number, piles, rules, log.steps(), played.game, warning)
