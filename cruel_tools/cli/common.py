"""What the commands of ``cruel`` share: one voice for output (:func:`emit`, :func:`echo`,
:func:`fail`, :class:`Progress`), for input problems (:func:`input_exit`, :func:`deal_or_exit`,
:func:`bad_deal`, ``--puzzle FILE``), and the options several commands take alike."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ..errors import CruelError, problem
from ..game import deals, log, rules
from ..game.inputs import (
    InvalidLog,
    Start,
    cannot_read,
    display_name,
    input_problem,
    is_terminal,
    load_deal_rules,
    load_start,
)
from ..game.log import Limits
from ..game.verify import Source, VerifyReport, report_line, unreadable
from ..terminal import terminal_safe

if TYPE_CHECKING:
    from .. import memory, puzzles
    from ..game.cards import Card
    from ..site import stores

__all__ = [
    "on_terminal",
    "echo",
    "as_text",
    "emit",
    "fail",
    "parse_option",
    "check_inputs",
    "input_exit",
    "report_exit",
    "json_option",
    "quiet_option",
    "QuietOption",
    "note",
    "Progress",
    "Showing",
    "PuzzlesOption",
    "PuzzleIdOption",
    "puzzle_option",
    "deal_or_exit",
    "bad_deal",
    "load_start_or_exit",
    "RulesOption",
    "MaxMemoryOption",
    "memory_option",
    "JobsOption",
    "SecretFileOption",
    "read_secret",
    "DbOption",
    "db_target",
    "open_db",
    "no_such_database",
]


_T = TypeVar("_T")


def on_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal: the one place the commands ask (progress, colour), so
    that a test can say yes for all of them by replacing ``is_terminal`` here."""
    return is_terminal(stream)


def echo(message: str, err: bool = False) -> None:
    """A line of text on stdout or stderr, made terminal-safe (:func:`terminal_safe`: a file
    name or a log's text with control characters cannot forge a line or move the cursor)."""
    typer.echo(terminal_safe(message), err=err)


def as_text(line: str | bytes) -> str:
    """A line of text that may come as bytes (the native core's reports): bytes that are not
    UTF-8 shown as ``\\xNN``, so that :func:`emit` makes it terminal-safe."""
    return line.decode("utf-8", "backslashreplace") if isinstance(line, bytes) else line


def emit(line: str | bytes, styled: bool = False) -> None:
    """A result on stdout: bytes (JSON) as they are, text made terminal-safe; ``styled``: the
    renderer's own colour codes kept (issue #33, finding 10)."""
    data = line if isinstance(line, bytes) else terminal_safe(line, styled).encode()
    shown = [p for p in _showing if p.shown]
    for progress in shown:  # a progress line on this terminal: out of the way first
        progress.clear()
    sys.stdout.buffer.write(data + b"\n")
    if _showing:
        sys.stdout.flush()
    for progress in shown:  # and back under the result, so it stays in sight
        progress._draw(force=True)


def fail(message: str, code: int) -> typer.Exit:
    """Print a one-line error on stderr; the caller raises the returned Exit."""
    echo(f"error: {message}", err=True)
    return typer.Exit(code)


def parse_option(name: str, parse: Callable[[str], _T], text: str) -> _T:
    """``parse(text)``, the library's parser of an option; its refusal (a
    :class:`~cruel_tools.errors.CruelError`) becomes one line naming the option, and exit 2."""
    try:
        return parse(text)
    except CruelError as exc:
        # str() of an error that is also a KeyError (rules.UnknownPreset) would quote the words
        words = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise fail(f"{name}: {words}", 2) from None


def check_inputs(names: list[str]) -> None:
    """Refuse, before reading anything, an input that is missing or cannot be opened without
    blocking, in the one wording of that problem (docs/cli.md, "Input problems"): ``NAME:
    unreadable: cannot read NAME: WHY [unreadable]`` on stderr, exit 2."""
    for name in names:
        refusal = input_problem(name)
        if refusal is not None:
            raise input_exit(name, log.LogFormatError("unreadable", "", refusal))


def input_exit(spec: str, exc: Exception) -> typer.Exit:
    """An input that cannot be used (a :class:`~cruel_tools.game.log.LogFormatError`, or the
    ``OSError`` of a file that cannot be read), in the one wording of its problem on stderr:
    the verifier's line, as ``cruel verify`` prints it (docs/cli.md, "Input problems")."""
    if isinstance(exc, OSError):  # UnreadableInput already says it all
        why = str(exc) if exc.strerror is None else cannot_read(spec, exc)
        exc = log.LogFormatError("unreadable", "", why)
    assert isinstance(exc, log.LogFormatError), exc
    return report_exit(unreadable(exc, Source(file=display_name(spec))))


def report_exit(report: VerifyReport) -> typer.Exit:
    """A log that cannot be used, in the verifier's words (as ``cruel verify`` prints them) on
    stderr, and its exit code; the caller raises the returned Exit."""
    echo(report_line(report), err=True)
    return typer.Exit(report.exit_code)


def json_option(what: str) -> Any:
    """``--json``, the same on every command that reports: results as JSON on stdout."""
    return typer.Option("--json", help=f"Print {what} as JSON.")


def quiet_option(extra: str = "") -> Any:
    """``--quiet``/``-q``, the same on every command that reports: stdout keeps its results,
    stderr only errors (no progress, notes, warnings or summaries)."""
    return typer.Option("--quiet", "-q", help=f"No progress, notes or summary on stderr{extra}.")


QuietOption = Annotated[bool, quiet_option()]


def note(message: str, quiet: bool) -> None:
    """A summary, note or warning on stderr, unless ``--quiet``."""
    if not quiet:
        echo(message, err=True)


def _clock(seconds: float) -> str:
    s = max(0, round(seconds))
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class Progress:
    """Progress on stderr, only when stderr is a terminal (and only for long work): a count,
    the rate and the time left (``verifying [####......] 3201/5000 410/s 0:04 left``), or, with
    no total, a spinner and the time spent. ``ticking`` redraws it from a thread, for work that
    reports rarely (``daily``: once a day; ``solve``: never). Results on stdout are left alone:
    when stdout is the same terminal, :meth:`clear` takes the line away before each result
    (:func:`emit`), so they never mix; the next draw puts it back under them."""

    SPIN = "|/-\\"

    def __init__(
        self,
        total: int | None,
        label: str = "verifying",
        at_least: int = 200,
        ticking: bool = False,
        unit: str = "",
        quiet: bool = False,
    ) -> None:
        self.total = total
        self.label = label
        self.unit = unit
        self.on = (total is None or total >= at_least) and on_terminal(sys.stderr) and not quiet
        self.done = 0
        self.started = self.last = time.monotonic()
        self.shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.on and ticking:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            self._draw(force=True)

    def line(self, now: float) -> str:
        elapsed = now - self.started
        if self.total is None:
            spin = self.SPIN[int(elapsed * 4) % len(self.SPIN)]
            return f"{self.label} {spin} {_clock(elapsed)}"
        width = 24
        filled = width * min(self.done, self.total) // max(self.total, 1)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else None
        speed = f"{rate:.1f}" if rate < 10 else f"{rate:.0f}"
        return (
            f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
            f"{self.unit} {speed}/s {_clock(elapsed)} spent, "
            f"{'?' if left is None else _clock(left)} left"
        )

    def _draw(self, force: bool = False) -> None:
        if not self.on:
            return
        now = time.monotonic()
        finished = self.total is not None and self.done >= self.total
        if not force and now - self.last < 0.1 and not finished:
            return
        with self._lock:
            self.last = now
            sys.stderr.write("\r\x1b[K" + terminal_safe(self.line(now)))
            sys.stderr.flush()
            self.shown = True

    def step(self) -> None:
        self.done += 1
        self._draw()

    def clear(self) -> None:
        """Take the line away (before a result is written to the same terminal)."""
        if self.shown:
            with self._lock:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
                self.shown = False

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        self.clear()


#: The progress display on now, if any: :func:`emit` clears it before a result.
_showing: list[Progress] = []


class Showing:
    """``with Showing(progress):`` the display is cleared before each result, closed at the end."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def __enter__(self) -> Progress:
        if self.progress.on and on_terminal(sys.stdout):
            _showing.append(self.progress)
        return self.progress

    def __exit__(self, *exc: object) -> None:
        if self.progress in _showing:
            _showing.remove(self.progress)
        self.progress.close()


# Text, not a Path: a postgresql:// URL would lose its "//" as a Path.
PuzzlesOption = Annotated[
    str | None,
    typer.Option(
        "--puzzles",
        metavar="DIR|DB",
        help="The puzzle set: a folder, or a database (SQLite file or postgresql:// URL) whose "
        "published days are read. Default: where cruel serve finds its puzzles ($CRUEL_PUZZLES, "
        "else ./puzzles, else the data folder, else the packaged demo set).",
    ),
]
PuzzleIdOption = Annotated[
    str | None,
    typer.Option("--puzzle-id", help="A puzzle of the set (--puzzles): 2027-01-05-hard."),
]


def puzzle_option(
    puzzle_file: Path | None, puzzles_dir: str | None, puzzle_id: str | None
) -> puzzles.Puzzle | None:
    """The puzzle of ``--puzzle FILE``, or of ``--puzzle-id ID`` in the set of ``--puzzles``
    (else where ``cruel serve`` finds its puzzles: one lookup for every command); None if
    neither is given."""
    if puzzle_file is not None and (puzzles_dir is not None or puzzle_id is not None):
        raise fail("give --puzzle FILE, or --puzzle-id ID (of --puzzles), not both", 2)
    if puzzles_dir is not None and puzzle_id is None:
        raise fail("--puzzles needs --puzzle-id: which puzzle of the set", 2)
    if puzzle_file is None and puzzle_id is None:
        return None
    from .. import puzzles
    from ..site import puzzle_sources
    from ..site.database import StoreError

    try:
        if puzzle_id is not None:
            return puzzle_sources.find_in(puzzle_sources.locate(puzzles_dir)[0], puzzle_id)
        if puzzle_file is not None:
            return _puzzle_file(puzzle_file)
    except KeyError as exc:  # no puzzle of that id in the set
        raise fail(str(exc.args[0]), 2) from None
    except (puzzles.PuzzleSetError, StoreError) as exc:  # already name the file and the fault
        raise fail(str(exc), 2) from None
    return None


#: What ``--puzzle FILE`` wants, in the input problems' words (``{wanted}``).
_A_PUZZLE = "a puzzle (cruel-puzzle/1)"


def _puzzle_file(path: Path) -> puzzles.Puzzle:
    """``--puzzle FILE``: a file that cannot be used as a puzzle is refused in the one wording
    of its input problem, as a log would be (docs/cli.md, "Input problems"); a puzzle document
    with a fault, in :class:`~cruel_tools.puzzles.PuzzleSetError`'s words."""
    from .. import puzzles

    name = str(path)
    check_inputs([name])  # missing, a FIFO, a device: never blocks
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise input_exit(name, exc) from None
    try:
        return puzzles.puzzle_from_bytes(data, name)
    except puzzles.PuzzleSetError as exc:
        raise _not_a_puzzle(name, data, exc) from None


def _not_a_puzzle(name: str, data: bytes, refused: Exception) -> typer.Exit:
    """Why ``data`` is no puzzle: an input problem (binary, not JSON, JSON that is no puzzle at
    all) in its one wording, else the puzzle document's own fault (``refused``), named."""
    from pydantic_core import from_json  # the parser that words a log's not-json

    try:
        doc = from_json(log.strip_bom(data))
    except ValueError as exc:
        said = problem("not-json", detail=str(exc)).message
        why = log.as_input_problem(log.LogFormatError("not-json", "", said), data)
        return input_exit(name, why)
    if type(doc) is not dict or "format" not in doc:
        return input_exit(name, log.InputProblem("not-a-log", _A_PUZZLE))
    return fail(str(refused), 2)


def deal_or_exit(
    spec: str, chosen: rules.Rules | None
) -> tuple[int | None, list[list[Card]], rules.Rules]:
    """The deal of DEAL (``show``, ``grade``: a number, a deal file or a log) and its rules;
    else the one line of its input problem or bad deal, and its exit status."""
    try:
        return load_deal_rules(spec, rules=chosen)
    except (log.LogFormatError, OSError) as exc:
        raise input_exit(spec, exc) from None
    except deals.BadDeal as exc:
        raise bad_deal(spec, exc) from None
    except ValueError as exc:
        raise fail(str(exc), 2) from None


def bad_deal(spec: str, exc: deals.BadDeal) -> typer.Exit:
    """A deal that breaks the rules of a deal, in one wording for show, solve, grade, analyze
    and hint: the input, what is wrong, and where (exit 1, as verify's ``bad-deal``)."""
    where = f" (at {exc.path})" if exc.path else ""
    return fail(f"{display_name(spec)}: deal: {exc}{where}", 1)


def load_start_or_exit(
    spec: str, rules_name: str | None, limits: Limits, quiet: bool = False
) -> Start:
    """:func:`~cruel_tools.game.inputs.load_start`, its errors as one line and an exit code."""
    try:
        start = load_start(spec, rules_name, limits)
    except (OSError, log.LogFormatError) as exc:
        raise input_exit(spec, exc) from None
    except InvalidLog as exc:
        raise report_exit(exc.report) from None
    except deals.BadDeal as exc:
        raise bad_deal(spec, exc) from None
    except ValueError as exc:  # a deal number out of range, a rules conflict, not a deal
        raise fail(str(exc), 2) from None
    if start.warning is not None:
        note(f"warning: {start.warning}", quiet)
    return start


RulesOption = Annotated[
    str,
    typer.Option("--rules", metavar="PRESET", help=f"Rules preset: {', '.join(rules.PRESETS)}."),
]
MaxMemoryOption = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        metavar="SIZE",
        help="Most memory grading may hold at its peak, its processes together: 512M, 1.5G, 2GiB "
        "or bytes (default: half the machine's, or of its container's limit). Reached, par "
        "keeps its proven bound.",
    ),
]


def memory_option(option: str, text: str | None, jobs: int = 1) -> memory.MemoryBudget:
    """The memory budget an option gives (None: the default share); one line, exit 2, if it is
    not a size or too small."""
    from .. import memory

    try:
        return memory.memory_budget(text, option, jobs)
    except ValueError as exc:
        raise fail(str(exc), 2) from None


JobsOption = Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Worker processes.")]
SecretFileOption = Annotated[
    Path | None,
    typer.Option(
        "--secret-file",
        help="The site's secret (keep it private): a keyed stream of deals instead of the "
        "public one (puzzles/README.md).",
    ),
]


def read_secret(path: Path | None) -> bytes | None:
    """The secret in ``path`` (its bytes, less one final newline); an unreadable or empty file
    is one line and exit 2. The secret itself is never printed."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise fail(f"--secret-file: cannot read {path}: {exc.strerror or exc}", 2) from None
    secret = data.removesuffix(b"\n").removesuffix(b"\r") if data.endswith(b"\n") else data
    if not secret:
        raise fail(f"--secret-file: {path} is empty: a secret is needed", 2)
    from ..puzzles import WeakSecret, check_secret

    try:
        check_secret(secret)  # issue #24: a 4-digit secret gave away every future day
    except WeakSecret as exc:
        raise fail(f"--secret-file: {path}: {exc}", 2) from None
    return secret


DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        help="The site's database (made by cruel serve): its SQLite file, or a postgresql:// URL.",
    ),
]


def db_target(db: str) -> Path | str:
    """``--db``: a ``postgresql://`` URL as it is (a Path would fold its ``//``), else a file."""
    from ..site.database import is_postgres

    return db if is_postgres(db) else Path(db)


def open_db(db: str, create: bool | None = None) -> stores.Stores:
    """The stores of ``--db``, opened as ``cruel serve`` opens them (laid out, or refused: exit
    2 with one line). A database that is not there is made only when ``create`` is True (the
    command's ``--create``); None: the command has no ``--create`` and never makes one."""
    from ..site import stores
    from ..site.database import NoSuchDatabase, StoreError

    try:
        return stores.open_stores(db_target(db), create=bool(create))
    except NoSuchDatabase:
        raise no_such_database(db, create is not None) from None
    except StoreError as exc:
        raise fail(str(exc), 2) from None


def no_such_database(db: str, has_create: bool) -> typer.Exit:
    """The one refusal of a ``--db`` that is not there, by a command that does not make one."""
    from ..site.database import describe

    hint = "cruel serve creates one" + ("; or give --create" if has_create else "")
    return fail(f"--db {describe(db)}: no such database ({hint})", 2)
