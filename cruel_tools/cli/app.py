"""The ``cruel`` command: a thin layer over the library (every command is a plain call first)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_args

import orjson
import typer
from typer._click.exceptions import NoArgsIsHelpError, NoSuchOption, UsageError
from typer.core import TyperGroup

from ..constants import (
    ANALYSIS_DEEP_STATES,
    ANALYSIS_MAX_STATES,
    ANALYSIS_NATIVE_MAX_STATES,
    ANALYZE_BURST,
    ANALYZE_RATE,
    ATTEMPTS_PER_DAY,
    ATTEMPTS_PER_MINUTE,
    BODY_TIMEOUT,
    CHECK_INTERVAL,
    CLAIMS_PER_DAY,
    DEFAULT_DB,
    HEAD_TIMEOUT,
    HINT_BURST,
    HINT_MAX_STATES,
    HINT_RATE,
    KEEP_STEPS_HOURS,
    KEY_BURST,
    KEY_RATE,
    LINK_GUESSES,
    MAX_ANALYSES,
    MAX_ATTEMPT_STEPS,
    MAX_BODY,
    MAX_CONNECTIONS,
    MAX_HINTS,
    MAX_OPEN_ATTEMPTS,
    MAX_PER_CLIENT,
    MAX_REPLAYS,
    MAX_TOKENS,
    PAR_PACE_MS,
    PLAYER_BURST,
    PLAYER_RATE,
    PUBLISH_AHEAD,
    REPLAY_BURST,
    REPLAY_RATE,
    SOLVE_MAX_STATES,
    Tier,
)
from ..dates import parse_date
from ..errors import CruelError, problem

# Only what every command's definition needs (help texts, defaults) and what `verify` runs on
# is imported here: each command imports the rest when it runs (`cruel --version` and `cruel
# verify FILE` start in a fraction of the time the whole library takes to import, issue #22).
from ..game import cards, deals, log, rules
from ..game.game import Game
from ..game.inputs import (
    InvalidLog,
    Start,
    UnreadableLog,
    cannot_read,
    count_units,
    display_name,
    input_problem,
    is_terminal,
    iter_units,
    load_deal_rules,
    load_start,
    read_log,
)
from ..game.log import Limits
from ..game.verify import (
    EXIT_CODES,
    PLAIN,
    Source,
    Status,
    VerifyReport,
    batch_exit_code,
    plural,
    render_many,
    report_line,
    summary,
    unreadable,
)
from .startup import EXIT_CLOSED_PIPE as EXIT_CLOSED_PIPE
from .startup import EXIT_NO_NATIVE_CORE as EXIT_NO_NATIVE_CORE
from .startup import engine_refusal, version_lines
from .terminal import terminal_safe

if TYPE_CHECKING:
    from .. import memory, puzzles, service
    from ..game import render, stats
    from ..game.cards import Card
    from ..search import analysis
    from ..site import stores

__all__ = [
    "EXIT_INTERNAL_ERROR",
    "app",
    "verify_command",
    "deal_command",
    "schema_command",
    "rules_command",
    "replay_command",
    "show_command",
    "stats_command",
    "solve_command",
    "analyze_command",
    "hint_command",
    "grade_command",
    "generate_command",
    "daily_command",
    "serve_command",
    "keys_app",
    "keys_add_command",
    "keys_list_command",
    "keys_revoke_command",
    "moderate_app",
    "moderate_queue_command",
    "moderate_clear_command",
    "moderate_reject_command",
    "ratings_command",
    "sweep_command",
]


def _usage_exit(exc: UsageError) -> typer.Exit:
    """A usage error as one line on stderr, ``error: ...``, and exit 2 (Typer would draw a Rich
    box, Click print three lines). An unknown option is an input problem (docs/cli.md), with a
    "did you mean" only for a close spelling (Click offers any option within difflib's loose
    0.6 ratio: --bogus got --jobs)."""
    where = exc.ctx.command_path if exc.ctx is not None else "cruel"
    if isinstance(exc, NoSuchOption):
        known = [] if exc.ctx is None else _long_options(exc.ctx)
        said = problem(
            "unknown-option",
            exc.option_name,
            command=where,
            close=_close_spellings(exc.option_name, known),
        )
        _echo(said.line, err=True)
        return typer.Exit(said.exit)
    words = " ".join(exc.format_message().split()).rstrip(".")
    _echo(f"error: {words} (see '{where} -h')", err=True)
    return typer.Exit(exc.exit_code)


def _long_options(ctx: Any) -> list[str]:
    """Every ``--option`` of the command of ``ctx``, ``--help`` too."""
    names = [*ctx.help_option_names]
    for param in ctx.command.get_params(ctx):
        names += [*param.opts, *param.secondary_opts]
    return sorted({n for n in names if n.startswith("--")})


def _close_spellings(typed: str, known: list[str]) -> list[str]:
    """The options of ``known`` closest to ``typed``, if close: one edit away (a letter
    missing, added, changed, or two swapped: Damerau-Levenshtein), two for a name of six
    letters or more; else none."""
    word = typed.lstrip("-")
    most = 1 if len(word) < 6 else 2
    found = [(_edits(word, k.lstrip("-")), k) for k in known]
    best = min((d for d, _ in found), default=most + 1)
    return [k for d, k in found if d == best <= most]


def _edits(a: str, b: str) -> int:
    """The Damerau-Levenshtein distance of ``a`` and ``b`` (optimal string alignment)."""
    before, row = None, list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        now = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            now[j] = min(row[j] + 1, now[j - 1] + 1, row[j - 1] + (x != y))
            if before is not None and i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                now[j] = min(now[j], before[j - 2] + 1)
        before, row = row, now
    return row[len(b)]


#: One or two examples for each command's --help (an "Examples:" paragraph, kept as written).
_EXAMPLES: dict[str, tuple[str, ...]] = {
    "verify": (
        "cruel verify samples/won.json",
        "cruel verify --jobs 2 --quiet logs/ games.jsonl",
        "cat games.jsonl | cruel verify - --jsonl --json",
    ),
    "deal": ("cruel deal 17",),
    "schema": ("cruel schema --out schemas",),
    "rules": ("cruel rules",),
    "replay": (
        "cruel replay samples/won.json --moves-only",
        "cruel replay samples/won.json --from 10 --to 20 --layout grid",
    ),
    "show": ("cruel show 17 --layout grid", "cruel show samples/won.json --ascii"),
    "stats": (
        "cruel stats logs/ --player ada",
        "cruel stats games.jsonl --json --today 2027-01-06",
    ),
    "solve": ("cruel solve 17", "cruel solve samples/blocked.json --out solved.json"),
    "grade": ("cruel grade 17", "cruel grade deal.json --json"),
    "analyze": (
        "cruel analyze samples/blocked.json",
        "cruel analyze mygame.json --puzzle-id 2027-01-01-easy --deep --json",
    ),
    "hint": ("cruel hint samples/blocked.json", "cruel hint mygame.json --max-states 20000 --json"),
    "generate": ("cruel generate --tier hard --seed demo --count 3 --out puzzles/hard",),
    "daily": (
        "cruel daily --start 2027-01-01 --days 7 --out puzzles",
        "cruel daily --export site-puzzles --db cruel.sqlite",
    ),
    "serve": (
        "cruel serve --puzzles puzzles --db cruel.sqlite --port 8000",
        "cruel serve --workers 2 --max-per-client 16 --body-timeout 15",
    ),
    "keys": ("cruel keys add --role site --name example.org", "cruel keys list"),
    "keys add": (
        "cruel keys add --role site --name example.org",
        "cruel keys add --role admin --name 'ops (ada)' --db new.sqlite --create",
    ),
    "keys list": ("cruel keys list --db cruel.sqlite",),
    "keys revoke": ("cruel keys revoke 3",),
    "moderate": ("cruel moderate queue", "cruel moderate clear 12 --as 1"),
    "moderate queue": (
        "cruel moderate queue --db cruel.sqlite",
        "cruel moderate queue --status rejected",
    ),
    "moderate clear": ("cruel moderate clear 12 --as 1 --reason 'played it in front of us'",),
    "moderate reject": ("cruel moderate reject 12 --as 1 --reason '58 moves in 5 ms'",),
    "ratings": ("cruel ratings --db cruel.sqlite", "cruel ratings --db cruel.sqlite --json"),
    "sweep": ("cruel sweep --db cruel.sqlite", "cruel sweep --db cruel.sqlite --keep-steps 6"),
}

#: Metavars by parameter name where the type alone says too little (``<str>``, ``<path>``).
_METAVARS = {
    "puzzle_id": "ID",
    "today": "DATE",
    "start": "DATE",
    "tz": "ZONE",
    "rate_key": "RATE",
    "rate_player": "RATE",
    "keep_steps": "HOURS",  # a float, yet not seconds
}


def _metavar(command: str, param: Any) -> str | None:
    """A readable metavar for ``param`` (``N``, ``SECONDS``, ``FILE``, ``DIR``, ``LOG...``), in
    place of Typer's ``<int range>``, ``<path>``, ``<list[str]>``; None for a flag."""
    kind = param.type_descriptor.annotation
    if getattr(param, "is_flag", False) or kind is bool:
        return None
    if param.param_type_name == "argument":
        name = str(param.name).upper()
        return f"{name.removesuffix('S')}..." if param.nargs != 1 else name
    if str(param.name) in _METAVARS:
        return _METAVARS[str(param.name)]
    if kind is int:
        return "N"
    if kind is float:
        return "SECONDS"
    if kind is Path:
        folder = str(param.name).endswith("_dir") or (param.name == "out" and command != "solve")
        return "DIR" if folder else "FILE"
    return str(param.name).upper()


def _polish_help(group: Any, prefix: str = "") -> None:
    """Readable metavars and an "Examples:" paragraph (``\\b``: not re-wrapped) in every
    command's --help, the subcommands of ``keys`` included."""
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        for param in command.params:
            if param.metavar is None or param.metavar.islower():
                param.metavar = _metavar(path, param) or param.metavar
            if param.param_type_name == "argument":  # LOG... rather than {logs}... <list[str]>
                usage = param.metavar if param.required else f"[{param.metavar}]"
                param.display_type_rich = lambda ctx: None
                param.get_usage_pieces = lambda ctx, usage=usage: [usage]
        examples = _EXAMPLES.get(path)
        if examples and "Examples:" not in (command.help or ""):
            lines = "\n".join(f"  $ {e}" for e in examples)
            command.help = f"{command.help or ''}\n\nExamples:\n\n\b\n{lines}"
        if hasattr(command, "commands"):
            _polish_help(command, f"{path} ")


class _Group(TyperGroup):
    """The ``cruel`` group: the one place that turns a closed standard output into a quiet
    exit with :data:`EXIT_CLOSED_PIPE`, for every command (Click itself would exit 1, the code
    of an illegal move), and every usage error into one line (:func:`_usage_exit`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _polish_help(self)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        # Before the arguments, so that --version and --help stop too: an engine that cannot
        # run is the operator's to fix first (CRUEL_ENGINE=native without the compiled core).
        refusal = engine_refusal()
        if refusal is not None:
            _echo(refusal, err=True)
            raise typer.Exit(EXIT_NO_NATIVE_CORE)
        try:
            return super().make_context(*args, **kwargs)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            raise _usage_exit(exc) from None

    def invoke(self, ctx: Any) -> Any:  # a Context of the click that typer vendors
        try:
            try:
                return super().invoke(ctx)
            finally:  # results still buffered would meet the closed pipe only at exit
                sys.stdout.flush()
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            raise _usage_exit(exc) from None
        except BrokenPipeError:
            # Point stdout at /dev/null: Python flushes it once more on the way out.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            raise typer.Exit(EXIT_CLOSED_PIPE) from None


#: The exit status of a bug: an exception no command expected (docs/cli.md).
EXIT_INTERNAL_ERROR = 3


_TOP_HELP = """Tools for the patience game Cruel: game logs, deals, puzzles and a service.

\b
Game logs:  verify (check them against the rules), replay (step by step),
            stats (a player's record)
            analyze (where a game was lost, how far a win was from the best),
            hint (the next step of a win from a game's last position)
Deals:      deal (its piles), show (draw it), solve (search for a win),
            grade (tier and par), rules (the presets), schema (JSON Schemas)
Puzzles:    generate (of one tier), daily (a dated puzzle set)
Service:    serve (HTTP: puzzles, verification, leaderboards), keys (its API keys),
            moderate (the review queue of flagged wins),
            ratings (the puzzles' ratings from play, by tier),
            sweep (delete abandoned attempts' steps now)

Run cruel COMMAND -h for a command's options and examples; docs/cli.md for exit codes."""


class _Cruel(typer.Typer):
    """The ``cruel`` entry point: an exception that no command expected is a bug. Its traceback
    goes to stderr (for the report), then one line, and exit :data:`EXIT_INTERNAL_ERROR`, not
    the 1 of an illegal move."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as exc:
            traceback.print_exc()
            words = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            sys.stderr.write(f"error: internal error ({terminal_safe(words)}); please report it\n")
            sys.exit(EXIT_INTERNAL_ERROR)


app = _Cruel(
    cls=_Group,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    no_args_is_help=True,
    # help wrapped by the terminal's width (Click's default stops at 80 columns)
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 200},
    help=_TOP_HELP,
)


def _show_version(value: bool) -> None:
    if value:  # the console script answers a lone --version before Typer loads (console.py)
        for line in version_lines():
            _echo(line)
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the version of cruel-tools and the engine that runs (docs/cli.md), "
            "and exit.",
        ),
    ] = False,
) -> None:
    """Tools for the patience game Cruel: game logs, deals, puzzles and a service."""


_T = TypeVar("_T")


def _echo(message: str, err: bool = False) -> None:
    """A line of text on stdout or stderr, made terminal-safe (:func:`terminal_safe`: a file
    name or a log's text with control characters cannot forge a line or move the cursor)."""
    typer.echo(terminal_safe(message), err=err)


def _text(line: str | bytes) -> str:
    """A line of text that may come as bytes (the native core's reports): bytes that are not
    UTF-8 shown as ``\\xNN``, so that :func:`_out` makes it terminal-safe."""
    return line.decode("utf-8", "backslashreplace") if isinstance(line, bytes) else line


def _out(line: str | bytes, styled: bool = False) -> None:
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


def _fail(message: str, code: int) -> typer.Exit:
    """Print a one-line error on stderr; the caller raises the returned Exit."""
    _echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _option(name: str, parse: Callable[[str], _T], text: str) -> _T:
    """``parse(text)``, the library's parser of an option; its refusal (a
    :class:`~cruel_tools.errors.CruelError`) becomes one line naming the option, and exit 2."""
    try:
        return parse(text)
    except CruelError as exc:
        # str() of an error that is also a KeyError (rules.UnknownPreset) would quote the words
        words = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise _fail(f"{name}: {words}", 2) from None


def _check_inputs(names: list[str]) -> None:
    """Refuse, before reading anything, an input that is missing or cannot be opened without
    blocking, in the one wording of that problem (docs/cli.md, "Input problems"): ``NAME:
    unreadable: cannot read NAME: WHY [unreadable]`` on stderr, exit 2."""
    for name in names:
        refusal = input_problem(name)
        if refusal is not None:
            raise _input_exit(name, log.LogFormatError("unreadable", "", refusal))


def _input_exit(spec: str, exc: Exception) -> typer.Exit:
    """An input that cannot be used (a :class:`~cruel_tools.game.log.LogFormatError`, or the
    ``OSError`` of a file that cannot be read), in the one wording of its problem on stderr:
    the verifier's line, as ``cruel verify`` prints it (docs/cli.md, "Input problems")."""
    if isinstance(exc, OSError):  # UnreadableInput already says it all
        why = str(exc) if exc.strerror is None else cannot_read(spec, exc)
        exc = log.LogFormatError("unreadable", "", why)
    assert isinstance(exc, log.LogFormatError), exc
    return _report_exit(unreadable(exc, Source(file=display_name(spec))))


def _report_exit(report: VerifyReport) -> typer.Exit:
    """A log that cannot be used, in the verifier's words (as ``cruel verify`` prints them) on
    stderr, and its exit code; the caller raises the returned Exit."""
    _echo(report_line(report), err=True)
    return typer.Exit(report.exit_code)


def _json_option(what: str) -> Any:
    """``--json``, the same on every command that reports: results as JSON on stdout."""
    return typer.Option("--json", help=f"Print {what} as JSON.")


def _quiet_option(extra: str = "") -> Any:
    """``--quiet``/``-q``, the same on every command that reports: stdout keeps its results,
    stderr only errors (no progress, notes, warnings or summaries)."""
    return typer.Option("--quiet", "-q", help=f"No progress, notes or summary on stderr{extra}.")


_QuietOption = Annotated[bool, _quiet_option()]


def _note(message: str, quiet: bool) -> None:
    """A summary, note or warning on stderr, unless ``--quiet``."""
    if not quiet:
        _echo(message, err=True)


def _clock(seconds: float) -> str:
    s = max(0, round(seconds))
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class _Progress:
    """Progress on stderr, only when stderr is a terminal (and only for long work): a count,
    the rate and the time left (``verifying [####......] 3201/5000 410/s 0:04 left``), or, with
    no total, a spinner and the time spent. ``ticking`` redraws it from a thread, for work that
    reports rarely (``daily``: once a day; ``solve``: never). Results on stdout are left alone:
    when stdout is the same terminal, :meth:`clear` takes the line away before each result
    (:func:`_out`), so they never mix; the next draw puts it back under them."""

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
        self.on = (total is None or total >= at_least) and is_terminal(sys.stderr) and not quiet
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


#: The progress display on now, if any: :func:`_out` clears it before a result.
_showing: list[_Progress] = []


class _Showing:
    """``with _Showing(progress):`` the display is cleared before each result, closed at the end."""

    def __init__(self, progress: _Progress) -> None:
        self.progress = progress

    def __enter__(self) -> _Progress:
        if self.progress.on and is_terminal(sys.stdout):
            _showing.append(self.progress)
        return self.progress

    def __exit__(self, *exc: object) -> None:
        if self.progress in _showing:
            _showing.remove(self.progress)
        self.progress.close()


# Text, not a Path: a postgresql:// URL would lose its "//" as a Path.
_PuzzlesOption = Annotated[
    str | None,
    typer.Option(
        "--puzzles",
        metavar="DIR|DB",
        help="The puzzle set: a folder, or a database (SQLite file or postgresql:// URL) whose "
        "published days are read. Default: where cruel serve finds its puzzles ($CRUEL_PUZZLES, "
        "else ./puzzles, else the data folder, else the packaged demo set).",
    ),
]
_PuzzleIdOption = Annotated[
    str | None,
    typer.Option("--puzzle-id", help="A puzzle of the set (--puzzles): 2027-01-05-hard."),
]


@app.command("verify")
def verify_command(
    logs: Annotated[
        list[str], typer.Argument(help="Log files, directories, .jsonl files, or - for stdin.")
    ],
    json: Annotated[bool, _json_option("one report per log (JSON Lines)")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Worker processes.")] = 1,
    max_bytes: Annotated[
        int, typer.Option(min=1, help="Largest log accepted, in bytes.")
    ] = Limits.max_bytes,
    max_moves: Annotated[
        int, typer.Option(min=0, help="Most moves accepted in one log.")
    ] = Limits.max_moves,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Read stdin as JSON Lines.")] = False,
    quiet: Annotated[bool, _quiet_option("; only logs that are not valid on stdout")] = False,
    puzzle_file: Annotated[
        Path | None,
        typer.Option("--puzzle", help="Accept only games of this puzzle; compare them to par."),
    ] = None,
    puzzles_dir: _PuzzlesOption = None,
    puzzle_id: _PuzzleIdOption = None,
) -> None:
    """Replay game logs against the rules; report the first illegal move or confirm the result.

    With --puzzle FILE (or --puzzle-id ID, a puzzle of the set cruel serve would serve, or of
    --puzzles) a log must play the puzzle's deal under its rules (else puzzle-mismatch), and
    valid lines add the puzzle's par.

    Exit status: 0 all valid, 1 an illegal move, bad deal, false claim or another puzzle's game,
    2 unreadable input, 3 an internal error (a bug: please report it).
    """
    limits = Limits(max_bytes=max_bytes, max_moves=max_moves)
    puzzle = _puzzle_option(puzzle_file, puzzles_dir, puzzle_id)
    checker = PLAIN if puzzle is None else _puzzle_check(puzzle)
    tally: Counter[Status] = Counter()
    total = count_units(logs) if is_terminal(sys.stderr) else None  # only for the display
    with _Showing(_Progress(total, unit=" logs", quiet=quiet)) as progress:
        for status, line in render_many(
            iter_units(logs, limits, jsonl), limits, jobs, json, checker
        ):
            tally[status] += 1
            if json or not (quiet and status == "valid"):
                _out(line if json else _text(line))  # a text line as bytes (the core's) too
            progress.step()
    # every input named gives a line, if only its problem (an empty folder: empty-folder)
    _note(summary(tally), quiet)
    raise typer.Exit(batch_exit_code(tally))


def _puzzle_check(puzzle: puzzles.Puzzle) -> puzzles.PuzzleCheck:
    from ..puzzles import PuzzleCheck

    return PuzzleCheck(puzzle)


def _puzzle_option(
    puzzle_file: Path | None, puzzles_dir: str | None, puzzle_id: str | None
) -> puzzles.Puzzle | None:
    """The puzzle of ``--puzzle FILE``, or of ``--puzzle-id ID`` in the set of ``--puzzles``
    (else where ``cruel serve`` finds its puzzles: one lookup for every command); None if
    neither is given."""
    if puzzle_file is not None and (puzzles_dir is not None or puzzle_id is not None):
        raise _fail("give --puzzle FILE, or --puzzle-id ID (of --puzzles), not both", 2)
    if puzzles_dir is not None and puzzle_id is None:
        raise _fail("--puzzles needs --puzzle-id: which puzzle of the set", 2)
    if puzzle_file is None and puzzle_id is None:
        return None
    from .. import puzzles
    from ..site.database import StoreError

    try:
        if puzzle_id is not None:
            return puzzles.find_in(puzzles.locate(puzzles_dir)[0], puzzle_id)
        if puzzle_file is not None:
            return _puzzle_file(puzzle_file)
    except KeyError as exc:  # no puzzle of that id in the set
        raise _fail(str(exc.args[0]), 2) from None
    except (puzzles.PuzzleSetError, StoreError) as exc:  # already name the file and the fault
        raise _fail(str(exc), 2) from None
    return None


#: What ``--puzzle FILE`` wants, in the input problems' words (``{wanted}``).
_A_PUZZLE = "a puzzle (cruel-puzzle/1)"


def _puzzle_file(path: Path) -> puzzles.Puzzle:
    """``--puzzle FILE``: a file that cannot be used as a puzzle is refused in the one wording
    of its input problem, as a log would be (docs/cli.md, "Input problems"); a puzzle document
    with a fault, in :class:`~cruel_tools.puzzles.PuzzleSetError`'s words."""
    from .. import puzzles

    name = str(path)
    _check_inputs([name])  # missing, a FIFO, a device: never blocks
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _input_exit(name, exc) from None
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
        return _input_exit(name, why)
    if type(doc) is not dict or "format" not in doc:
        return _input_exit(name, log.InputProblem("not-a-log", _A_PUZZLE))
    return _fail(str(refused), 2)


@app.command("deal")
def deal_command(
    number: Annotated[int, typer.Argument(help="Deal number, 0 to 4294967295.")],
    rules_name: Annotated[
        str,
        typer.Option(
            "--rules",
            metavar="PRESET",
            help="Rules preset: its deck and piles (13 piles of all 52 cards under "
            "ripple-fan-pysolfc, the 48 non-kings under royal-family-pysolfc).",
        ),
    ] = "cruel",
) -> None:
    """Print deal NUMBER's 12 piles (bottom to top) as JSON."""
    chosen = _option("--rules", rules.preset, rules_name)
    try:
        piles = deals.deal_piles(number, chosen)
    except deals.DealNumberError as exc:
        raise _fail(str(exc), 2) from None
    _out(orjson.dumps({"number": number, "piles": [[cards.name(c) for c in p] for p in piles]}))


@app.command("schema")
def schema_command(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the schemas into.")] = Path(
        "schemas"
    ),
) -> None:
    """Write the JSON Schemas of every format we read or write."""
    from .. import schemas

    for path in schemas.write_all(out):
        _echo(str(path))


@app.command("rules")
def rules_command() -> None:
    """Print the rules presets as JSON."""
    _out(
        orjson.dumps(
            {k: v.model_dump() for k, v in rules.PRESETS.items()}, option=orjson.OPT_INDENT_2
        )
    )


# --- replays and positions -------------------------------------------------------------------


_COLOR_CHOICES = ("auto", "always", "never")


def _use_color(choice: str, no_color: bool) -> bool:
    """Whether to colour: ``--color always`` / ``never`` decide; ``auto`` (the default) colours
    a terminal unless ``NO_COLOR`` is set to a non-empty value (no-color.org: an empty one does
    not count) or ``TERM`` is ``dumb``. ``--no-color`` is ``--color never``."""
    if choice not in _COLOR_CHOICES:
        raise _fail(f"--color must be one of {', '.join(_COLOR_CHOICES)}, not {choice!r}", 2)
    if no_color and choice != "auto":
        raise _fail(f"--no-color and --color {choice} conflict: give one of them", 2)
    if no_color or choice == "never":
        return False
    if choice == "always":
        return True
    return not os.environ.get("NO_COLOR") and is_terminal(sys.stdout)


def _style(layout: str, ascii_: bool, color: bool) -> render.Style:
    from ..game import render

    return render.Style(layout=layout, ascii=ascii_, color=color)  # type: ignore[arg-type]


def _read_log_or_exit(path: str, limits: Limits) -> log.GameLog:
    try:
        return read_log(path, limits)[1]
    except UnreadableLog as exc:
        raise _report_exit(unreadable(exc.error, exc.source)) from None


_LayoutOption = Annotated[
    str, typer.Option("--layout", help="rows (one line per pile), grid (3x4) or wide (2x6).")
]
_AsciiOption = Annotated[bool, typer.Option("--ascii", help="Write suits as S H D C.")]
_NoColorOption = Annotated[bool, typer.Option("--no-color", help="Same as --color never.")]
_ColorOption = Annotated[
    str,
    typer.Option(
        "--color",
        metavar="WHEN",
        help="Red suits in colour: auto (on a terminal, unless NO_COLOR is set and not empty), "
        "always or never.",
    ),
]


def _check_layout(layout: str) -> None:
    from ..game import render

    if layout not in render.LAYOUTS:
        raise _fail(f"--layout must be one of {', '.join(render.LAYOUTS)}", 2)


def _check_replay_options(
    first: int | None, last: int | None, final: bool, moves_only: bool
) -> None:
    """Refuse options that contradict each other, naming both, before any log is read."""
    if final and moves_only:
        raise _fail(
            "--final and --moves-only conflict: --final shows only the final position, "
            "--moves-only every move without positions; give one of them",
            2,
        )
    for name, value in (("--from", first), ("--to", last)):
        if final and value is not None:
            raise _fail(
                f"--final and {name} conflict: --final shows only the final position, "
                f"{name} chooses steps to show; give one of them",
                2,
            )
    if first is not None and last is not None and last < first:
        raise _fail(
            f"--from {first} --to {last}: the range is backwards (empty); "
            "--from must not come after --to",
            2,
        )


def _check_analyze_options(analyze: bool, final: bool, max_states: int | None) -> None:
    """Refuse ``replay`` options that make no sense with (or without) --analyze."""
    if analyze and final:
        raise _fail(
            "--analyze and --final conflict: --analyze marks steps, --final shows none; "
            "give one of them",
            2,
        )
    if max_states is not None and not analyze:
        raise _fail("--max-states goes with --analyze only: it is the budget of its solves", 2)


def _replay_one(
    game_log: log.GameLog,
    options: render.ReplayOptions,
    source: Source | None,
    json: bool,
    analyze: bool = False,
    budget: int | None = None,
) -> int:
    """Print the replay of one log; its exit code (a window past its end: one line, 2).

    With ``analyze``, a legal log is analysed first (``budget`` positions a solve; None: the
    analysis' default) and its steps marked.
    """
    from ..game import render
    from ..search import analysis

    try:
        render.check_window(options, len(game_log.moves))
    except render.EmptyWindow as exc:
        where = "" if source is None else f"{source}: "
        _echo(f"error: {where}{exc}", err=True)
        return 2
    found: analysis.Analysis | None = None
    if analyze:
        found = _analysis_for_replay(game_log, budget)
        if found is not None:
            options = dataclasses.replace(
                options,
                marks=analysis.replay_marks(found, game_log, options.style),
                notes=analysis.replay_notes(found),
            )
        else:
            options = dataclasses.replace(options, notes=(_NO_ANALYSIS,))
    if json:
        doc = render.replay_json(game_log, options, source)
        if analyze:  # the whole analysis (null: not a legal game)
            doc["analysis"] = None if found is None else found.model_dump(mode="json")
        _out(orjson.dumps(doc))
        return EXIT_CODES["invalid"] if doc["error"] else 0
    result = render.replay(game_log, options)
    for line in result.lines:  # the log's text in them made safe by render, its colours kept
        _out(line, styled=options.style.color)
    return EXIT_CODES["invalid"] if result.error else 0


_NO_ANALYSIS = "Analysis: none, the log is not a legal game (see the error above)"


def _analysis_for_replay(game_log: log.GameLog, budget: int | None) -> analysis.Analysis | None:
    """``cruel analyze --deep``'s analysis of a log, or None when it is not a legal game (the
    replay says what is wrong with it)."""
    from ..search import analysis

    try:
        return analysis.analyze(
            game_log,
            max_states=budget,
            deep=True,
            deep_states=min(budget or analysis.DEEP_STATES, analysis.DEEP_STATES),
        )
    except analysis.AnalysisRefused:
        return None
    except AssertionError as exc:  # a continuation the verifier refuses: a bug of ours
        raise _fail(f"internal error: {exc}; please report it", 3) from None


def _holds_several(spec: str) -> bool:
    """A folder or a JSON Lines file: an input of any number of logs, each replay headed."""
    return spec != "-" and (spec.endswith(".jsonl") or Path(spec).is_dir())


@app.command("replay")
def replay_command(
    log_file: Annotated[
        str,
        typer.Argument(
            metavar="LOG",
            help="A game log (file, or - for stdin), or a folder or .jsonl file of logs.",
        ),
    ],
    layout: _LayoutOption = "rows",
    ascii_: _AsciiOption = False,
    no_color: _NoColorOption = False,
    color: _ColorOption = "auto",
    first: Annotated[
        int | None, typer.Option("--from", min=1, help="First step to show (default 1).")
    ] = None,
    last: Annotated[int | None, typer.Option("--to", min=1, help="Last step to show.")] = None,
    final: Annotated[bool, typer.Option("--final", help="Only the final position.")] = False,
    moves_only: Annotated[
        bool, typer.Option("--moves-only", help="One line per move, like a score sheet.")
    ] = False,
    json: Annotated[bool, _json_option("each log's steps and positions (JSON Lines)")] = False,
    analyze: Annotated[
        bool,
        typer.Option(
            "--analyze",
            help="Mark the losing step (or the undecided interval) of a game not won, or the "
            "steps that cost actions of a win (as cruel analyze; slower).",
        ),
    ] = False,
    max_states: Annotated[
        int | None,
        typer.Option(
            "--max-states",
            min=1,
            help=f"With --analyze: most positions each solve may expand (default "
            f"{ANALYSIS_NATIVE_MAX_STATES} with the native core, {ANALYSIS_MAX_STATES} on the "
            f"Python engine and for a win; for a win, each position's search at most "
            f"{ANALYSIS_DEEP_STATES}).",
        ),
    ] = None,
) -> None:
    """Render a logged game step by step: each move in words and the position after it.

    A folder or a .jsonl file is replayed log after log, each headed by "==> SOURCE <==".
    --final goes with neither --moves-only nor --from/--to.

    --json writes one object per log (JSON Lines, "format": "cruel-replay/1"): its steps in
    words, each with the position after it (not with --moves-only; only the final one with
    --final), the outcome and the verifier's error, if any.

    --analyze analyses each legal log as cruel analyze --deep does and marks the steps: !! the
    losing step, ?? an interval the budget could not narrow, ++ a step of a win that cost
    actions; a summary follows the result (with --json: each marked step's "mark" and the
    whole analysis). It goes with neither --final nor --max-states alone.

    Exit status as for verify (the worst over all logs): 0 legal, 1 illegal move / bad deal /
    false claim, 2 unreadable input or bad options.
    """
    from ..game import render

    _check_layout(layout)
    _check_replay_options(first, last, final, moves_only)
    _check_analyze_options(analyze, final, max_states)
    _check_inputs([log_file])
    options = render.ReplayOptions(
        style=_style(layout, ascii_, _use_color(color, no_color)),
        first=first or 1,
        last=last,
        final_only=final,
        moves_only=moves_only,
    )
    limits = Limits()
    if not _holds_several(log_file):
        game_log = _read_log_or_exit(log_file, limits)
        raise typer.Exit(_replay_one(game_log, options, None, json, analyze, max_states))
    code, count = 0, 0
    for source, data in iter_units([log_file], limits):
        try:
            if isinstance(data, log.LogFormatError):
                raise data
            game_log = log.load_input(data, limits)
        except log.LogFormatError as exc:  # in its one wording (an input without logs too)
            report = unreadable(exc, source)  # names its source: no header on stdout for it
            _echo(report_line(report), err=True)
            code = max(code, report.exit_code)
            continue
        if not json:  # each JSON object names its source
            if count:
                _out("")
            _out(f"==> {source} <==")
        count += 1
        code = max(code, _replay_one(game_log, options, source, json, analyze, max_states))
    raise typer.Exit(code)


@app.command("show")
def show_command(
    deal_spec: Annotated[
        str,
        typer.Argument(
            metavar="DEAL", help="A deal number, or a JSON file holding a deal or a log."
        ),
    ],
    layout: _LayoutOption = "rows",
    ascii_: _AsciiOption = False,
    no_color: _NoColorOption = False,
    color: _ColorOption = "auto",
    json: Annotated[bool, _json_option("the deal's number and piles (as cruel deal)")] = False,
    rules_name: Annotated[
        str | None,
        typer.Option(
            "--rules", metavar="PRESET", help="Rules preset (default: a log's own, else cruel)."
        ),
    ] = None,
) -> None:
    """Render a starting position: a deal number, a deal file or a log's deal."""
    from ..game import render

    _check_layout(layout)
    style = _style(layout, ascii_, _use_color(color, no_color))
    chosen = None if rules_name is None else _option("--rules", rules.preset, rules_name)
    number, piles, chosen = _deal_or_exit(deal_spec, chosen)
    if json:
        _out(orjson.dumps({"number": number, "piles": [[cards.name(c) for c in p] for p in piles]}))
        return
    title = f"Deal {number}" if number is not None else f"Deal from {terminal_safe(deal_spec)}"
    for line in render.show(Game.trusted(piles, chosen), title, style):
        _out(line, styled=style.color)


@app.command("stats")
def stats_command(
    logs: Annotated[
        list[str], typer.Argument(help="A player's logs: files, directories, .jsonl, or -.")
    ],
    json: Annotated[bool, _json_option("the record")] = False,
    quiet: _QuietOption = False,
    today: Annotated[
        str | None, typer.Option(help="Day to count the current streak to (YYYY-MM-DD).")
    ] = None,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Read stdin as JSON Lines.")] = False,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", metavar="NAME", help="Count only the logs whose meta.player is NAME."
        ),
    ] = None,
) -> None:
    """A player's record: games, wins, win rate, fastest win, fewest moves, best score, streaks.

    Only logs that verify count; the others are listed with their error and left out. Logs of
    several players are merged into one record (stderr says so) unless --player picks one.
    """
    from ..game import stats

    day = _option("--today", parse_date, today) if today is not None else None
    notes = stats.Notes()  # an input that cannot be used is left out, in its one wording
    rec = stats.record(iter_units(logs, Limits(), jsonl), today=day, player=player, notes=notes)
    if json:
        _out(rec.model_dump_json())
    else:
        for line in stats.table(rec, notes.excluded):
            _out(line)
    if not quiet:
        _stats_notes(rec, notes, player, json)
    if notes.unreadable:  # the record of the others is printed, as verify reports every log
        words = plural(notes.unreadable, "input")
        raise _fail(f"{words} could not be used (listed as left out)", EXIT_CODES["unreadable"])
    # every input gives a log, counted or left out, unless it is only other players' logs
    if rec.played == 0 and not notes.excluded and player is not None:
        others = plural(notes.other_players, "log")
        raise _fail(f"no logs of player {player!r} ({others} of other players)", 2)


def _stats_notes(rec: stats.Record, notes: stats.Notes, player: str | None, json: bool) -> None:
    """What a record does not show by itself, on stderr."""
    if player is None and len(notes.players) > 1:
        names = ", ".join(sorted(notes.players)[:5]) + (", ..." if len(notes.players) > 5 else "")
        _echo(
            f"note: one record merging {len(notes.players)} players ({names}); "
            "give --player NAME for one player's record",
            err=True,
        )
    if player is not None and notes.other_players:
        _echo(f"note: {plural(notes.other_players, 'log')} of other players left aside", err=True)
    if notes.bad_timestamps:
        many = notes.bad_timestamps != 1
        _echo(
            f"warning: {plural(notes.bad_timestamps, 'counted log')} "
            f"{'have' if many else 'has'} an unusable meta.started_at or meta.finished_at "
            "(not an ISO 8601 time, or a finish before the start): "
            f"{'they count' if many else 'it counts'} for no day or time",
            err=True,
        )
    if json and notes.excluded > len(rec.excluded):
        _echo(
            f"note: {plural(notes.excluded, 'log')} left out; excluded lists the first "
            f"{len(rec.excluded)}",
            err=True,
        )


# --- solving ---------------------------------------------------------------------------------


def _deal_or_exit(
    spec: str, chosen: rules.Rules | None
) -> tuple[int | None, list[list[Card]], rules.Rules]:
    """The deal of DEAL (``show``, ``grade``: a number, a deal file or a log) and its rules;
    else the one line of its input problem or bad deal, and its exit status."""
    try:
        return load_deal_rules(spec, rules=chosen)
    except (log.LogFormatError, OSError) as exc:
        raise _input_exit(spec, exc) from None
    except deals.BadDeal as exc:
        raise _bad_deal(spec, exc) from None
    except ValueError as exc:
        raise _fail(str(exc), 2) from None


def _bad_deal(spec: str, exc: deals.BadDeal) -> typer.Exit:
    """A deal that breaks the rules of a deal, in one wording for show, solve, grade, analyze
    and hint: the input, what is wrong, and where (exit 1, as verify's ``bad-deal``)."""
    where = f" (at {exc.path})" if exc.path else ""
    return _fail(f"{display_name(spec)}: deal: {exc}{where}", 1)


def _load_start(spec: str, rules_name: str | None, limits: Limits, quiet: bool = False) -> Start:
    """:func:`~cruel_tools.game.inputs.load_start`, its errors as one line and an exit code."""
    try:
        start = load_start(spec, rules_name, limits)
    except (OSError, log.LogFormatError) as exc:
        raise _input_exit(spec, exc) from None
    except InvalidLog as exc:
        raise _report_exit(exc.report) from None
    except deals.BadDeal as exc:
        raise _bad_deal(spec, exc) from None
    except ValueError as exc:  # a deal number out of range, a rules conflict, not a deal
        raise _fail(str(exc), 2) from None
    if start.warning is not None:
        _note(f"warning: {start.warning}", quiet)
    return start


@app.command("solve")
def solve_command(
    deal_spec: Annotated[
        str,
        typer.Argument(
            metavar="DEAL",
            help="A deal number, a deal JSON file, or a game log (solved from its final position);"
            " - for stdin.",
        ),
    ],
    rules_name: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="PRESET",
            help=f"Rules preset: {', '.join(rules.PRESETS)}"
            " (default cruel; a log's own by default).",
        ),
    ] = None,
    max_states: Annotated[
        int | None,
        typer.Option(
            "--max-states",
            help=f"Most positions to expand (at least 1; default {SOLVE_MAX_STATES}, with "
            "--optimal 1000000).",
        ),
    ] = None,
    max_seconds: Annotated[
        float, typer.Option("--max-seconds", help="Most seconds to search (more than 0).")
    ] = 60.0,
    max_memory: Annotated[
        str,
        typer.Option(
            "--max-memory",
            help="Most memory the search may hold: 512M, 1G or bytes (default 1G); "
            "reached, the verdict is unknown.",
        ),
    ] = "1G",
    optimal_search: Annotated[
        bool,
        typer.Option(
            "--optimal",
            help="Find the fewest actions (card moves + redeals) and prove a lower bound.",
        ),
    ] = False,
    json: Annotated[bool, _json_option("the report")] = False,
    quiet: _QuietOption = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="On a win, write the whole game as a cruel-log/1 file here."),
    ] = None,
) -> None:
    """Search a deal, or a logged game's final position, for a win.

    Prints the verdict (won, unwinnable or unknown when the budget runs out) and, for a win, the
    solution as a numbered score sheet. With --out, a win is written as a complete log from the
    deal (a log's own moves first) that `cruel verify` accepts.

    With --optimal, the win has the fewest actions the search can find, beside a proven lower
    bound: "optimal" when the two meet, else "best found N, optimum >= L" (docs/solver.md).

    Exit status: 0 the search finished (won, unwinnable and unknown are all answers), 1 a log
    with an illegal move or a bad deal, 2 unreadable input or bad options, 3 an internal error
    (a bug: please report it).
    """
    from ..game import render
    from ..search import optimal, solver

    if rules_name is not None:
        _option("--rules", rules.preset, rules_name)
    if max_states is None:
        max_states = optimal.MAX_STATES if optimal_search else SOLVE_MAX_STATES
    if max_states < 1:
        raise _fail(f"--max-states must be at least 1, not {max_states}", 2)
    if not max_seconds > 0:
        raise _fail(f"--max-seconds must be more than 0, not {max_seconds}", 2)
    try:
        memory = solver.parse_memory(max_memory)
    except ValueError:
        raise _fail(f"--max-memory must be a size like 512M or 1G, not {max_memory}", 2) from None
    start = _load_start(deal_spec, rules_name, Limits(), quiet)
    label = f"solving (at most {plural(max_states, 'state')}, {max_seconds:g} s)"
    with _Showing(_Progress(None, label=label, ticking=True, quiet=quiet)):
        if optimal_search:
            best = optimal.optimize(
                start.game, max_states=max_states, max_seconds=max_seconds, max_memory=memory
            )
            result = optimal.as_solve_result(best)
        else:
            best = None
            result = solver.solve(
                start.game, max_states=max_states, max_seconds=max_seconds, max_memory=memory
            )
    won = result.verdict == "won"
    st = result.stats
    if json:
        report = solver.solve_report(
            result, start.number, start.piles, start.game, len(start.prefix)
        )
        if best is not None:
            report = report.model_copy(update={"fewest_actions": optimal.fewest_actions(best)})
        _out(report.model_dump_json())
    else:
        title = f"deal {start.number}" if start.number is not None else "deal given by its piles"
        if start.prefix:
            title += f", after {plural(len(start.prefix), 'logged step')}"
        if best is not None:
            verdict = optimal.verdict_line(best)
        elif won:
            verdict = (
                f"won in {plural(result.solution_moves, 'move')} and "
                f"{plural(result.solution_redeals, 'redeal')}"
            )
        else:
            verdict = f"{result.verdict}: {result.reason}"
        _out(
            f"{title}: {verdict} ({plural(st.expanded, 'state')} expanded, "
            f"{st.unique} unique, {st.seconds:.2f} s)"
        )
        if won:
            for line in render.score_sheet(start.game, result.steps, len(start.prefix) + 1):
                _out(line)
    if out is not None:
        if not won:
            _note(f"no solution found ({result.verdict}): {out} not written", quiet)
            return
        try:
            doc = solver.solution_log(
                start.number,
                start.piles,
                start.rules,
                result.steps,
                prefix=start.prefix,
                meta={"generator": "cruel solve"},
            )
        except AssertionError as exc:
            raise _fail(f"internal error: {exc}; please report it", 3) from None
        try:
            out.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
        except OSError as exc:
            raise _fail(f"cannot write {out}: {exc.strerror or type(exc).__name__}", 2) from None
        _note(f"wrote {out}", quiet)


@app.command("analyze")
def analyze_command(
    log_file: Annotated[str, typer.Argument(metavar="LOG", help="A game log; - for stdin.")],
    deep: Annotated[
        bool,
        typer.Option(
            "--deep",
            help="For a win: also find the steps that cost actions (a fewest-actions search "
            "from every position; slower).",
        ),
    ] = False,
    max_states: Annotated[
        int | None,
        typer.Option(
            "--max-states",
            help="Most positions each solve or search may expand (at least 1; default, for a "
            f"game not won: {ANALYSIS_NATIVE_MAX_STATES} with the native core, "
            f"{ANALYSIS_MAX_STATES} on the Python engine; for a win: {ANALYSIS_MAX_STATES}, "
            f"with --deep each position's search at most {ANALYSIS_DEEP_STATES}).",
        ),
    ] = None,
    puzzle_file: Annotated[
        Path | None,
        typer.Option(
            "--puzzle", metavar="FILE", help="The puzzle the game is of: a win is compared to par."
        ),
    ] = None,
    puzzles_dir: _PuzzlesOption = None,
    puzzle_id: _PuzzleIdOption = None,
    json: Annotated[bool, _json_option("the analysis (cruel-analysis/1)")] = False,
    quiet: _QuietOption = False,
) -> None:
    """Analyse a game: where a lost game was lost, or how far a win was from the best.

    For a game not won: the last position from which a win was still possible, the step that
    threw it away (the losing step), the other steps there that still win, and a win from there
    (in --json, loss.continuation: a complete log that `cruel verify` accepts). A position the
    solver cannot decide within the budget leaves an interval of steps, never a guess.

    For a win: its actions (card moves + redeals), moves and redeals against par (--puzzle or
    --puzzle-id) and against the fewest actions possible, or the proven bound on them. Budgets
    count positions, so the answer is the same on every machine (docs/analysis.md).

    Exit status: 0 analysed (an undecided answer is an answer too), 1 a log with an illegal
    move, a bad deal, a false claim or another puzzle's game, 2 unreadable input or bad
    options, 3 an internal error (a bug: please report it).
    """
    from ..search import analysis

    if max_states is not None and max_states < 1:
        raise _fail(f"--max-states must be at least 1, not {max_states}", 2)
    chosen = _puzzle_option(puzzle_file, puzzles_dir, puzzle_id)
    _check_inputs([log_file])
    try:
        source, game_log = read_log(log_file, Limits())
    except UnreadableLog as exc:
        raise _report_exit(unreadable(exc.error, exc.source)) from None
    most = "" if max_states is None else f" (at most {plural(max_states, 'state')} a solve)"
    label = f"analysing{most}"
    with _Showing(_Progress(None, label=label, ticking=True, quiet=quiet)):
        try:
            result = analysis.analyze(
                game_log,
                puzzle=chosen,
                max_states=max_states,
                deep=deep,
                deep_states=min(max_states or analysis.DEEP_STATES, analysis.DEEP_STATES),
            )
        except analysis.AnalysisRefused as exc:
            raise _report_exit(exc.report.model_copy(update={"source": source})) from None
        except AssertionError as exc:  # a continuation the verifier refuses: a bug of ours
            raise _fail(f"internal error: {exc}; please report it", 3) from None
    if json:
        _out(result.model_dump_json())
        return
    for line in analysis.text_lines(result):
        _out(line)


@app.command("hint")
def hint_command(
    log_file: Annotated[str, typer.Argument(metavar="LOG", help="A game log; - for stdin.")],
    max_states: Annotated[
        int,
        typer.Option(
            "--max-states", help="Most positions the solve may expand (at least 1).", min=1
        ),
    ] = HINT_MAX_STATES,
    json: Annotated[bool, _json_option("the hint (cruel-hint/1)")] = False,
) -> None:
    """A hint: the next step of a win from the game's last position, "no win from here" with
    the solver's proof in words (rule L, rule F, or every position searched), "already won",
    or "unknown" when the budget ran out first. The win found is not the shortest; the budget
    counts positions, so the answer is the same on every machine (docs/service.md, Hints).

    Exit status: 0 a hint (unknown too), 1 a log with an illegal move, a bad deal or a false
    claim, 2 unreadable input or bad options.
    """
    from ..search import analysis, hints

    _check_inputs([log_file])
    try:
        source, game_log = read_log(log_file, Limits())
    except UnreadableLog as exc:
        raise _report_exit(unreadable(exc.error, exc.source)) from None
    try:
        found = hints.hint(game_log, max_states)
    except analysis.AnalysisRefused as exc:
        raise _report_exit(exc.report.model_copy(update={"source": source})) from None
    if json:
        _out(found.model_dump_json())
        return
    for line in hints.text_lines(found):
        _out(line)


# --- grading and puzzles ---------------------------------------------------------------------


_RulesOption = Annotated[
    str,
    typer.Option("--rules", metavar="PRESET", help=f"Rules preset: {', '.join(rules.PRESETS)}."),
]
_MaxMemoryOption = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        metavar="SIZE",
        help="Most memory grading may hold at its peak, its processes together: 512M, 1.5G, 2GiB "
        "or bytes (default: half the machine's, or of its container's limit). Reached, par "
        "keeps its proven bound.",
    ),
]


def _memory_option(option: str, text: str | None, jobs: int = 1) -> memory.MemoryBudget:
    """The memory budget an option gives (None: the default share); one line, exit 2, if it is
    not a size or too small."""
    from .. import memory

    try:
        return memory.memory_budget(text, option, jobs)
    except ValueError as exc:
        raise _fail(str(exc), 2) from None


def _label(progress: _Progress, what: str) -> None:
    """Say on the progress line what grading does now."""
    progress.label = f"grading: {what}"


@app.command("grade")
def grade_command(
    deal_spec: Annotated[
        str,
        typer.Argument(
            metavar="DEAL", help="A deal number, or a JSON file holding a deal or a log."
        ),
    ],
    json: Annotated[bool, _json_option("the grade")] = False,
    rules_name: _RulesOption = "cruel",
    max_memory: _MaxMemoryOption = None,
    quiet: _QuietOption = False,
) -> None:
    """Grade a deal: its tier (easy, medium, hard, expert), par and metrics (docs/grading.md).

    Par is its actions with "optimal" when proven, else "optimum >= N" (the proven bound). The
    memory budget is said first on stderr; a par search that reaches it keeps its bound.

    Exit status: 0 graded (an unwinnable or undecided deal has no tier), 1 a bad deal,
    2 unreadable input or bad options.
    """
    from ..search import grading

    chosen = _option("--rules", rules.preset, rules_name)
    allowed = _memory_option("--max-memory", max_memory)
    number, piles, _ = _deal_or_exit(deal_spec, chosen)
    _note(f"memory budget: {allowed.summary()}", quiet)
    progress = _Progress(None, label="grading", ticking=True, quiet=quiet)
    with _Showing(progress):
        result = grading.grade(
            piles, number, chosen, allowed.grading(), phase=lambda what: _label(progress, what)
        )
    if json:
        _out(result.model_dump_json())
        return
    title = f"deal {number}" if number is not None else f"deal from {display_name(deal_spec)}"
    m = result.metrics
    if result.tier is None or m is None:
        _out(f"{title}: no tier ({result.verdict}): not a puzzle")
        return
    ladder = ", ".join(f"{k} {'won' if v else 'lost'}" for k, v in m.ladder.items())
    for line in (
        f"{title}: {result.tier}",
        f"ladder: {ladder}",
        f"par: {m.par.describe()}",
        f"critical decisions: {m.critical_decisions}",
        f"random win rate: {m.random_win_rate:.0%} of {m.random_playouts} playouts",
        f"solver states: {m.solver_states}",
    ):
        _out(line)


_JobsOption = Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Worker processes.")]
_SecretFileOption = Annotated[
    Path | None,
    typer.Option(
        "--secret-file",
        help="The site's secret (keep it private): a keyed stream of deals instead of the "
        "public one (puzzles/README.md).",
    ),
]


def _read_secret(path: Path | None) -> bytes | None:
    """The secret in ``path`` (its bytes, less one final newline); an unreadable or empty file
    is one line and exit 2. The secret itself is never printed."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _fail(f"--secret-file: cannot read {path}: {exc.strerror or exc}", 2) from None
    secret = data.removesuffix(b"\n").removesuffix(b"\r") if data.endswith(b"\n") else data
    if not secret:
        raise _fail(f"--secret-file: {path} is empty: a secret is needed", 2)
    from ..puzzles import WeakSecret, check_secret

    try:
        check_secret(secret)  # issue #24: a 4-digit secret gave away every future day
    except WeakSecret as exc:
        raise _fail(f"--secret-file: {path}: {exc}", 2) from None
    return secret


@app.command("generate")
def generate_command(
    tier: Annotated[str, typer.Option("--tier", help=f"One of {', '.join(get_args(Tier))}.")],
    seed: Annotated[str, typer.Option("--seed", help="Any string: the same seed, the same deals.")],
    count: Annotated[int, typer.Option("--count", min=1, help="How many puzzles.")] = 1,
    jobs: _JobsOption = 1,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write <id>.json files here (default: JSON Lines on stdout)."),
    ] = None,
    rules_name: _RulesOption = "cruel",
    secret_file: _SecretFileOption = None,
    max_memory: _MaxMemoryOption = None,
    quiet: _QuietOption = False,
) -> None:
    """Puzzles of one tier: the first COUNT deals of that tier in the stream of SEED (keyed by
    the secret in --secret-file, if given), each graded within the memory budget."""
    from .. import puzzles
    from ..search import grading

    if tier not in grading.TIERS:
        raise _fail(f"--tier must be one of {', '.join(grading.TIERS)}, not {tier!r}", 2)
    chosen = _option("--rules", rules.preset, rules_name)
    allowed = _memory_option("--max-memory", max_memory, jobs)
    secret = _read_secret(secret_file)
    budget = allowed.grading()
    found = puzzles.generate(tier, count, seed, chosen, jobs, budget=budget, secret=secret)
    for puzzle in found:
        if out is None:
            _out(orjson.dumps(puzzle.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS))
        else:
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"{puzzle.id}.json"
            path.write_bytes(puzzles.puzzle_bytes(puzzle))
            _note(str(path), quiet)


@app.command("daily")
def daily_command(
    start: Annotated[
        str | None, typer.Option("--start", help="First day, e.g. 2027-01-01.")
    ] = None,
    days: Annotated[int, typer.Option("--days", min=1, help="How many days.")] = 1,
    out: Annotated[Path, typer.Option("--out", help="The puzzle set folder.")] = Path("puzzles"),
    jobs: _JobsOption = 1,
    secret_file: _SecretFileOption = None,
    new_secret: Annotated[
        Path | None,
        typer.Option(
            "--new-secret",
            help="Write a new random secret (256 bits, 64 hex digits, mode 0600) to this new "
            "file, for --secret-file, and do nothing else.",
        ),
    ] = None,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            metavar="DIR",
            help="Write the days cruel serve published into --db to this folder, as --out "
            "writes them, and do nothing else.",
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="With --export: the site's database, an SQLite file or a postgresql:// URL "
            f"({DEFAULT_DB} if not given).",
        ),
    ] = None,
    max_memory: _MaxMemoryOption = None,
    quiet: _QuietOption = False,
) -> None:
    """Write the daily puzzles (one per tier per day) and index.json (puzzles/README.md).

    Rerunning the same command rewrites the same bytes. With --secret-file the deals come from a
    stream keyed by the secret, and a folder made with another secret (or none) is refused.
    With --export the days a server published ahead are written as files, the same bytes.
    """
    from .. import puzzles

    if export is not None or db is not None:
        _export_days(export, db, start, secret_file, new_secret, quiet)
        return
    if new_secret is not None:
        try:
            puzzles.write_new_secret(new_secret)
        except FileExistsError:
            raise _fail(f"--new-secret: {new_secret} exists: it is never overwritten", 2) from None
        except OSError as exc:
            why = exc.strerror or exc
            raise _fail(f"--new-secret: cannot write {new_secret}: {why}", 2) from None
        _note(f"wrote a new secret to {new_secret}: keep it private and back it up", quiet)
        return
    if start is None:
        raise _fail("--start is needed (or --new-secret FILE)", 2)
    first = _option("--start", parse_date, start)
    allowed = _memory_option("--max-memory", max_memory, jobs)
    secret = _read_secret(secret_file)
    progress = _Progress(
        days, label="making puzzles", at_least=1, ticking=True, unit=" days", quiet=quiet
    )
    try:
        with _Showing(progress):
            written = puzzles.daily(
                first,
                days,
                out,
                jobs,
                progress=lambda _day: progress.step(),
                budget=allowed.grading(),
                secret=secret,
            )
    except puzzles.PuzzleSetError as exc:
        raise _fail(str(exc), 2) from None
    _note(f"wrote {plural(len(written) - 1, 'puzzle')} and {written[-1]}", quiet)
    _note(f"memory budget: {allowed.summary()}", quiet)


def _export_days(
    export: Path | None,
    db: str | None,
    start: str | None,
    secret_file: Path | None,
    new_secret: Path | None,
    quiet: bool,
) -> None:
    """``cruel daily --export DIR``: the days published into ``--db``, written as ``--out``
    writes days it makes (their stream is the database's: no secret is needed)."""
    from .. import puzzles
    from ..site.database import NoSuchDatabase, StoreError, describe

    if export is None:
        raise _fail("--db goes with --export DIR (the folder to write the published days to)", 2)
    if start is not None or secret_file is not None or new_secret is not None:
        raise _fail(
            "--export writes the days published: give no --start, --secret-file or "
            "--new-secret with it",
            2,
        )
    where = db or DEFAULT_DB
    try:
        written = puzzles.export_published(_db_target(where), export)
    except NoSuchDatabase:
        raise _no_such_database(where, has_create=False) from None
    except (puzzles.PuzzleSetError, StoreError) as exc:
        raise _fail(str(exc), 2) from None
    except OSError as exc:
        raise _fail(f"--export: cannot write {export}: {exc.strerror or exc}", 2) from None
    if not written:
        _note(f"{describe(where)}: no day published: nothing written", quiet)
        return
    _note(f"wrote {plural(len(written) - 1, 'puzzle')} and {written[-1]}", quiet)


# --- the HTTP service ------------------------------------------------------------------------


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8000,
    puzzles_dir: Annotated[
        Path | None,
        typer.Option(
            "--puzzles",
            help="The puzzle set to serve (read once, at start). Default: $CRUEL_PUZZLES, else "
            "./puzzles, else the data folder ($XDG_DATA_HOME/cruel-tools/puzzles), else the "
            "public demo set in the package.",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str,
        typer.Option(
            "--db",
            help="SQLite file of the leaderboards (created if missing), or a PostgreSQL "
            "server's postgresql://user@host:port/dbname URL.",
        ),
    ] = DEFAULT_DB,
    max_body: Annotated[
        int, typer.Option("--max-body", min=1024, help="Largest request body, in bytes.")
    ] = MAX_BODY,
    max_connections: Annotated[
        int, typer.Option("--max-connections", min=1, help="Open connections before 503s.")
    ] = MAX_CONNECTIONS,
    today: Annotated[
        str | None,
        typer.Option("--today", help="Act as if the date in --tz were this one (demos and tests)."),
    ] = None,
    tz: Annotated[
        str,
        typer.Option(
            "--tz",
            help="Time zone (IANA name) of the service's dates: a puzzle opens at the start of "
            "its date there.",
        ),
    ] = "UTC",
    access_log: Annotated[bool, typer.Option(help="Log every request on standard output.")] = True,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64, help="Server processes (one per core).")
    ] = 1,
    head_timeout: Annotated[
        float,
        typer.Option(
            "--head-timeout", min=0.1, help="Seconds a request's line and headers may take."
        ),
    ] = HEAD_TIMEOUT,
    body_timeout: Annotated[
        float,
        typer.Option(
            "--body-timeout",
            min=0.1,
            help="Seconds a request's body may take after its headers (then 408).",
        ),
    ] = BODY_TIMEOUT,
    max_per_client: Annotated[
        int,
        typer.Option(
            "--max-per-client", min=1, help="Open connections from one client address (then 429)."
        ),
    ] = MAX_PER_CLIENT,
    check_interval: Annotated[
        float,
        typer.Option(
            "--check-interval",
            min=0.1,
            help="Seconds between two integrity checks of the --db file (quick_check).",
        ),
    ] = CHECK_INTERVAL,
    open_: Annotated[
        bool,
        typer.Option(
            "--open",
            help="A local demo: names nobody has claimed may play with no API key or player "
            "token (anyone may then play under such a name; a claimed name always needs its "
            "token). A public site needs no --open: browsers claim names and get tokens.",
        ),
    ] = False,
    rate_key: Annotated[
        str, typer.Option("--rate-key", help="Submissions per API key: N/s, N/min, N/h or off.")
    ] = f"{KEY_RATE:g}/s",
    burst_key: Annotated[
        int, typer.Option("--burst-key", min=1, help="Submissions a key may send at once.")
    ] = KEY_BURST,
    rate_player: Annotated[
        str,
        typer.Option("--rate-player", help="Submissions per player name: N/s, N/min, N/h or off."),
    ] = f"{PLAYER_RATE:g}/s",
    burst_player: Annotated[
        int, typer.Option("--burst-player", min=1, help="Submissions for one player at once.")
    ] = PLAYER_BURST,
    analyze_rate: Annotated[
        str,
        typer.Option(
            "--analyze-rate",
            help="Analyses per client address and per API key: N/s, N/min, N/h or off.",
        ),
    ] = f"{ANALYZE_RATE * 60:g}/min",
    analyze_burst: Annotated[
        int,
        typer.Option("--analyze-burst", min=1, help="Analyses one address or key may ask at once."),
    ] = ANALYZE_BURST,
    hint_rate: Annotated[
        str,
        typer.Option(
            "--hint-rate",
            help="Hints per client address and per API key: N/s, N/min, N/h or off.",
        ),
    ] = f"{HINT_RATE * 60:g}/min",
    hint_burst: Annotated[
        int,
        typer.Option("--hint-burst", min=1, help="Hints one address or key may ask at once."),
    ] = HINT_BURST,
    max_analyses: Annotated[
        int,
        typer.Option(
            "--max-analyses", min=1, help="Analyses running at once per worker (then 503 busy)."
        ),
    ] = MAX_ANALYSES,
    max_hints: Annotated[
        int,
        typer.Option(
            "--max-hints",
            min=1,
            help="Hints running at once per worker, apart from the analyses (then 503 busy).",
        ),
    ] = MAX_HINTS,
    replay_rate: Annotated[
        str,
        typer.Option("--replay-rate", help="Replays per client address: N/s, N/min, N/h or off."),
    ] = f"{REPLAY_RATE:g}/s",
    replay_burst: Annotated[
        int,
        typer.Option("--replay-burst", min=1, help="Replays one address may ask at once."),
    ] = REPLAY_BURST,
    max_replays: Annotated[
        int,
        typer.Option(
            "--max-replays", min=1, help="Replays running at once per worker (then 503 busy)."
        ),
    ] = MAX_REPLAYS,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help="Address or network of a reverse proxy in front (repeatable): its "
            "X-Forwarded-For is believed, and its connections are not capped per address.",
        ),
    ] = None,
    attempt_timeout: Annotated[
        float,
        typer.Option(
            "--attempt-timeout",
            min=10.0,
            help="Seconds without a step after which a live attempt expires.",
        ),
    ] = 1800.0,
    max_open_attempts: Annotated[
        int,
        typer.Option(
            "--max-open-attempts",
            min=1,
            help="Live attempts one player name may hold open (then 409 too-many-open-attempts).",
        ),
    ] = MAX_OPEN_ATTEMPTS,
    max_attempt_steps: Annotated[
        int,
        typer.Option(
            "--max-attempt-steps",
            min=10,
            help="Steps one live attempt may record, automatic moves and undos too (then 409 "
            "attempt-full).",
        ),
    ] = MAX_ATTEMPT_STEPS,
    attempts_per_minute: Annotated[
        int,
        typer.Option(
            "--attempts-per-minute",
            min=1,
            help="Live attempts one player name may start a minute (then 429 too-many-attempts).",
        ),
    ] = ATTEMPTS_PER_MINUTE,
    attempts_per_day: Annotated[
        int,
        typer.Option(
            "--attempts-per-day",
            min=1,
            help="Live attempts one player name may start a day (then 429 too-many-attempts).",
        ),
    ] = ATTEMPTS_PER_DAY,
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens",
            min=1,
            help="Valid tokens (devices) one player name may hold (then 409 too-many-tokens).",
        ),
    ] = MAX_TOKENS,
    claims_per_day: Annotated[
        int,
        typer.Option(
            "--claims-per-day",
            min=1,
            help="Names one client address may claim a day (then 429 rate-limited).",
        ),
    ] = CLAIMS_PER_DAY,
    keep_steps: Annotated[
        float,
        typer.Option(
            "--keep-steps",
            min=0.0,
            help="Hours the steps of a live attempt that ended without a win are kept (its "
            "row stays); swept every 5 minutes.",
        ),
    ] = KEEP_STEPS_HOURS,
    speed_floor: Annotated[
        int,
        typer.Option(
            "--speed-floor",
            min=0,
            help="Milliseconds per player step under which a live win waits for a moderator.",
        ),
    ] = 250,
    review_par: Annotated[
        bool,
        typer.Option(
            "--review-par/--no-review-par",
            help="A submitted log at par or better waits for a moderator (no live attempt "
            "timed it).",
        ),
    ] = True,
    rank_untimed: Annotated[
        bool,
        typer.Option(
            "--rank-untimed",
            help="Rank logs sent with a player's token or under --open (a server among "
            "friends). Without it they are stored unranked: only live attempts and a site "
            "key's submissions rank.",
        ),
    ] = False,
    par_pace: Annotated[
        int,
        typer.Option(
            "--par-pace",
            min=0,
            help="Milliseconds per player step under which a live win at par or better waits "
            "for a moderator (fast-par; 0: never).",
        ),
    ] = PAR_PACE_MS,
    link_guesses: Annotated[
        int,
        typer.Option(
            "--link-guesses",
            min=1,
            help="Wrong link codes one client address may send, then as many again an hour.",
        ),
    ] = LINK_GUESSES,
    metrics_bind: Annotated[
        str | None,
        typer.Option(
            "--metrics-bind",
            help="HOST:PORT where GET /metrics is also served, with no key (for Prometheus on a "
            "private address, e.g. 127.0.0.1:9108). Without it, /metrics needs an admin key.",
        ),
    ] = None,
    secret_file: Annotated[
        Path | None,
        typer.Option(
            "--secret-file",
            help="The site's secret (cruel daily --new-secret): today and --ahead days after it "
            "are published from its stream, in the database, and the packaged demo set is "
            "never served. Without it nothing is published ahead (--open: from the public "
            "stream).",
        ),
    ] = None,
    ahead: Annotated[
        int,
        typer.Option("--ahead", min=0, max=366, help="Days after today kept published."),
    ] = PUBLISH_AHEAD,
    publish_memory: Annotated[
        str | None,
        typer.Option(
            "--publish-memory",
            metavar="SIZE",
            help="Most memory the process making a day may hold at its peak: 512M, 1.5G, 2GiB "
            "or bytes (default: half the machine's, or of its container's limit). Reached, par "
            "keeps its proven bound.",
        ),
    ] = None,
) -> None:
    """Serve puzzles, verification and leaderboards over HTTP (docs/service.md)."""
    # Imported here: the web stack costs other commands nothing at start-up.
    import atexit
    import shutil
    import socket
    import tempfile

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from ..puzzles import PuzzleSetError
    from ..puzzles.location import resolve_puzzles
    from ..service import APP_FACTORY, ENV_SETTINGS, Settings, create_app, time_zone
    from ..service.connections import (
        ENV_GUARD,
        ENV_SUPERVISOR,
        GuardConfig,
        GuardedH11Protocol,
        raise_fd_limit,
    )
    from ..service.metrics import ENV_MULTIPROC
    from ..site.database import StoreError
    from ..site.keys import RateLimit, parse_rate

    fixed = _option("--today", parse_date, today) if today is not None else None
    _option("--tz", time_zone, tz)
    key_rate = _option("--rate-key", parse_rate, rate_key)
    player_rate = _option("--rate-player", parse_rate, rate_player)
    analyze_per_s = _option("--analyze-rate", parse_rate, analyze_rate)
    hint_per_s = _option("--hint-rate", parse_rate, hint_rate)
    replay_per_s = _option("--replay-rate", parse_rate, replay_rate)
    metrics_at = _metrics_address(metrics_bind) if metrics_bind is not None else None
    # None: each process making a day takes the default share of the machine it runs on.
    publish_bytes = (
        None if publish_memory is None else _memory_option("--publish-memory", publish_memory).total
    )
    location = resolve_puzzles(puzzles_dir)  # the one setting: option, variable, folders
    _not_a_database(location.path)
    settings = Settings(
        puzzles=location.path,
        demo=location.demo,
        db=_db_target(db),
        max_body=max_body,
        fixed_today=fixed,
        tz=tz,
        open=open_,
        check_interval=check_interval,
        key_limit=RateLimit(key_rate, burst_key) if key_rate else None,
        player_limit=RateLimit(player_rate, burst_player) if player_rate else None,
        analyze_limit=RateLimit(analyze_per_s, analyze_burst) if analyze_per_s else None,
        hint_limit=RateLimit(hint_per_s, hint_burst) if hint_per_s else None,
        max_analyses=max_analyses,
        max_hints=max_hints,
        replay_limit=RateLimit(replay_per_s, replay_burst) if replay_per_s else None,
        max_replays=max_replays,
        trusted_proxies=tuple(_proxy_network(p) for p in trusted_proxy or ()),
        attempt_timeout=attempt_timeout,
        speed_floor_ms=speed_floor,
        max_open_attempts=max_open_attempts,
        max_attempt_steps=max_attempt_steps,
        attempts_per_minute=attempts_per_minute,
        attempts_per_day=attempts_per_day,
        max_tokens=max_tokens,
        claims_per_day=claims_per_day,
        keep_steps_hours=keep_steps,
        review_untimed_par=review_par,
        rank_untimed=rank_untimed,
        par_pace_ms=par_pace,
        link_guesses=link_guesses,
        secret_file=secret_file,
        ahead=ahead,
        publish_memory=publish_bytes,
    )
    _read_secret(secret_file)  # one line and exit 2 for an unreadable or weak secret
    try:  # uvicorn would log a traceback-like report and exit 1 or 3; one line and 2 here
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.create_server((host, port), family=family):
            pass
    except OSError as exc:
        raise _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", 2) from None
    try:
        server = create_app(settings)  # also what the workers will do: fail here, once
    except (PuzzleSetError, StoreError) as exc:
        raise _fail(str(exc), 2) from None
    # Which engine serves, at the top of the log: a server on the Python engine (no compiled
    # core) is much slower, and its operator should see it without a request.
    _echo(", ".join(version_lines()), err=True)
    _echo(_publishing_line(settings, server.state.publisher.status().today_seconds()), err=True)
    _echo(_puzzles_line(location.describe(), settings), err=True)
    if open_:
        _echo(
            "warning: --open: submissions need no API key for names nobody has claimed; anyone "
            "who can reach the port may play under such a name (a local demo only: browsers "
            "claim names with player tokens and need no --open)",
            err=True,
        )
    # The limits on connections are read by each connection, in every worker (uvicorn's own
    # limit_concurrency would answer in plain text, and count refused connections too).
    limits = GuardConfig(
        head_timeout,
        body_timeout,
        max_connections,
        max_per_client,
        trusted_proxies=settings.trusted_proxies,
    )
    os.environ[ENV_GUARD] = limits.to_env()
    raise_fd_limit()  # each connection is a file
    options = {
        "http": GuardedH11Protocol,
        "host": host,
        "port": port,
        "access_log": access_log,
        "log_level": "info",
        # uvicorn would take X-Forwarded-For from any loopback peer (its default): the service
        # reads it only from --trusted-proxy (service/clients.py).
        "proxy_headers": False,
    }
    if workers > 1 and not os.environ.get(ENV_MULTIPROC):
        # Each worker writes its metrics there, and /metrics adds them up (service/metrics.py).
        made = os.environ[ENV_MULTIPROC] = tempfile.mkdtemp(prefix="cruel-metrics-")
        atexit.register(shutil.rmtree, made, True)
    if metrics_at is not None:
        _serve_metrics(*metrics_at, server.state.metrics.registry)
    if workers == 1:
        uvicorn.run(server, **options)  # type: ignore[arg-type]
        return
    # Worker processes build their own app from the environment: uvicorn can only start
    # several from an import string.
    os.environ[ENV_SETTINGS] = settings.to_env()
    os.environ[ENV_SUPERVISOR] = str(os.getpid())  # the workers end when it does
    config = uvicorn.Config(APP_FACTORY, factory=True, workers=workers, **options)  # type: ignore[arg-type]
    sock = config.bind_socket()
    # asyncio turns Nagle's algorithm off only on sockets it made itself, and the socket uvicorn
    # shares with its workers is not one: every answer then waited ~40 ms for a delayed ACK
    # (measured: 160 requests/s instead of 600). Accepted connections inherit the option.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    Multiprocess(config, sockets=[sock]).run()


def _not_a_database(path: Path) -> None:
    """``cruel serve --puzzles DB``: the other commands read a database's published days there,
    but a server serves the days of its own ``--db``; one line and exit 2, not "not a folder"."""
    from ..puzzles import is_database

    if is_database(path):
        raise _fail(
            f"--puzzles {path}: a database: cruel serve serves the days published into its own "
            "--db (give it as --db; --puzzles takes a folder of puzzle files)",
            2,
        )


def _puzzles_line(line: str, settings: service.Settings) -> str:
    """The start-up line of the puzzle set, and the date the demo set is served on when it is
    not the real one; or that a site (a secret) serves none of the demo set it fell to."""
    if settings.demo and not settings.demo_cycle:
        from ..site.database import describe

        return (
            f"{line}: the public demo set, not served to a site (--secret-file): the site's "
            f"days are published into {describe(settings.db)}"
        )
    if settings.demo_dates is None or settings.fixed_today is not None:
        return line
    first, last = settings.demo_dates
    return (
        f"{line}: the public demo set, {first} to {last}, served today as {settings.today()} "
        "(a site serves its own set: docs/service.md, Running a site)"
    )


def _publishing_line(settings: service.Settings, seconds: int | None) -> str:
    """The start-up line of publishing ahead: from which stream, or why not, and about how
    many ``seconds`` today's puzzles will take when they are being published
    (docs/service.md, Publishing ahead)."""
    days = plural(settings.ahead, "day")
    first = "" if seconds is None else f"; today's puzzles first, in about {seconds} s"
    if settings.demo_cycle:
        return "publishing: nothing ahead (the demo set is served as a cycle of its dates)"
    if settings.secret_file is not None:
        return (
            f"publishing: today and {days} ahead from the secret stream of "
            f"{settings.secret_file}, into the database{first}"
        )
    if settings.open:
        return (
            f"publishing: today and {days} ahead from the public stream (--open: anyone can "
            f"compute these days; a ranking site gives --secret-file){first}"
        )
    return (
        "publishing: nothing ahead (no --secret-file): serving the puzzles there are; health "
        "says degraded when today or a day ahead is missing"
    )


def _metrics_address(text: str) -> tuple[str, int]:
    """``--metrics-bind HOST:PORT`` (``[::1]:9108`` for IPv6); else one line and exit 2."""
    host, _, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise _fail(f"--metrics-bind: {text!r} is not HOST:PORT (like 127.0.0.1:9108)", 2)
    return host, int(port)


def _serve_metrics(host: str, port: int, registry: Any) -> None:
    """``--metrics-bind``: ``GET /metrics`` with no key on an address of its own, from a thread
    of this process (every worker's values under ``--workers N``); one line and exit 2 when
    the address cannot be listened on."""
    from ..service.metrics import serve_apart

    try:
        serve_apart(host, port, registry)
    except OSError as exc:
        raise _fail(
            f"--metrics-bind: cannot listen on {host}:{port}: {exc.strerror or exc}", 2
        ) from None
    _echo(f"metrics: http://{host}:{port}/metrics with no key", err=True)


def _proxy_network(text: str) -> str:
    """``--trusted-proxy``: an IP address or network (``10.0.0.0/8``), as written; else one
    line and exit 2."""
    import ipaddress

    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise _fail(
            f"--trusted-proxy: {text!r} is not an IP address or network (like 127.0.0.1 or "
            "10.0.0.0/8)",
            2,
        ) from None
    return text


# --- API keys --------------------------------------------------------------------------------

keys_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="API keys of cruel serve: a site's key submits for its players (docs/service.md).",
)
app.add_typer(keys_app, name="keys")

_KeysDbOption = Annotated[
    str,
    typer.Option(
        "--db",
        help="The site's database (made by cruel serve): its SQLite file, or a postgresql:// URL.",
    ),
]
_CreateOption = Annotated[
    bool,
    typer.Option(
        "--create",
        help="Make the database if it is not there (as cruel serve does): the first admin "
        "key, before the first serve.",
    ),
]


def _db_target(db: str) -> Path | str:
    """``--db``: a ``postgresql://`` URL as it is (a Path would fold its ``//``), else a file."""
    from ..site.database import is_postgres

    return db if is_postgres(db) else Path(db)


def _stores(db: str, create: bool | None = None) -> stores.Stores:
    """The stores of ``--db``, opened as ``cruel serve`` opens them (laid out, or refused: exit
    2 with one line). A database that is not there is made only when ``create`` is True (the
    command's ``--create``); None: the command has no ``--create`` and never makes one."""
    from ..site import stores
    from ..site.database import NoSuchDatabase, StoreError

    try:
        return stores.open_stores(_db_target(db), create=bool(create))
    except NoSuchDatabase:
        raise _no_such_database(db, create is not None) from None
    except StoreError as exc:
        raise _fail(str(exc), 2) from None


def _no_such_database(db: str, has_create: bool) -> typer.Exit:
    """The one refusal of a ``--db`` that is not there, by a command that does not make one."""
    from ..site.database import describe

    hint = "cruel serve creates one" + ("; or give --create" if has_create else "")
    return _fail(f"--db {describe(db)}: no such database ({hint})", 2)


@keys_app.command("add")
def keys_add_command(
    role: Annotated[
        str, typer.Option("--role", help="site (submits for its players) or admin (moderation).")
    ],
    name: Annotated[str, typer.Option("--name", help="A label: whose key it is.")],
    db: _KeysDbOption = DEFAULT_DB,
    create: _CreateOption = False,
) -> None:
    """Make a key and print it, once: only its hash is kept."""
    from ..site import keys

    try:  # before the database: --create with a bad role or name makes none
        keys.check_request(name, role)
    except keys.BadKeyRequest as exc:
        raise _fail(str(exc), 2) from None
    opened = _stores(db, create)
    try:
        made, key = opened.keys.add(name, role)
    except keys.BadKeyRequest as exc:
        raise _fail(str(exc), 2) from None
    finally:
        opened.close()
    _out(f"id {made.id}")
    _out(f"key {key}")
    _echo(
        f"made {made.role} key {made.id} ({made.name}): keep it secret; it is not shown again",
        err=True,
    )


def _when(at: dt.datetime | None) -> str:
    return at.isoformat(timespec="seconds") if at else "-"


@keys_app.command("list")
def keys_list_command(db: _KeysDbOption = DEFAULT_DB) -> None:
    """Every key's id, role, dates and name (never the keys themselves)."""
    opened = _stores(db)
    try:
        made = opened.keys.keys()
    finally:
        opened.close()
    _out(f"{'ID':>4}  {'ROLE':<5}  {'CREATED':<25}  {'REVOKED':<25}  NAME")
    for k in made:
        created, revoked = _when(k.created_at), _when(k.revoked_at)
        _out(f"{k.id:>4}  {k.role:<5}  {created:<25}  {revoked:<25}  {k.name}")


@keys_app.command("revoke")
def keys_revoke_command(
    key_id: Annotated[int, typer.Argument(metavar="ID", help="The key's id (cruel keys list).")],
    db: _KeysDbOption = DEFAULT_DB,
) -> None:
    """Revoke a key, for good: a running server refuses it from its next request on."""
    from ..site import keys

    opened = _stores(db)
    try:
        revoked = opened.keys.revoke(key_id)
    except keys.BadKeyRequest as exc:
        raise _fail(str(exc), 2) from None
    finally:
        opened.close()
    _echo(f"key {revoked.id} ({revoked.name}) revoked at {_when(revoked.revoked_at)}", err=True)


moderate_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="The review queue of cruel serve: wins flagged for a moderator (docs/service.md).",
)
app.add_typer(moderate_app, name="moderate")

_AdminOption = Annotated[
    int,
    typer.Option("--as", help="The id of the admin key the audit log records (cruel keys list)."),
]


def _admin_key(opened: stores.Stores, key_id: int) -> Any:
    """The valid admin key ``--as`` names (exit 2 otherwise)."""
    found = next((k for k in opened.keys.keys() if k.id == key_id), None)
    if found is None or found.role != "admin" or found.revoked_at is not None:
        raise _fail(f"--as {key_id}: not a valid admin key of this database (cruel keys list)", 2)
    return found


@moderate_app.command("queue")
def moderate_queue_command(
    status: Annotated[
        str, typer.Option("--status", help="pending (to decide), cleared or rejected.")
    ] = "pending",
    db: _KeysDbOption = DEFAULT_DB,
) -> None:
    """The flagged wins: hidden from the public boards until a moderator clears them."""
    if status not in ("pending", "cleared", "rejected"):
        raise _fail(f"--status {status!r}: pending, cleared or rejected", 2)
    opened = _stores(db)
    try:
        page = opened.moderation.queue(status, limit=1000)  # type: ignore[arg-type]
    finally:
        opened.close()
    _out(f"{'ID':>6}  {'PUZZLE':<18}  {'ACTIONS':>7}  {'MS':>9}  {'FLAGS':<24}  PLAYER")
    for e in page.entries:
        elapsed = "-" if e.elapsed_ms is None else str(e.elapsed_ms)
        flags = ",".join(e.reasons)
        _out(
            f"{e.submission_id:>6}  {e.puzzle:<18}  {e.actions:>7}  {elapsed:>9}  {flags:<24}"
            f"  {e.player}"
        )


def _decide(action: str, submission: int, key_id: int, reason: str | None, db: str) -> None:
    from ..site.moderation import NoSuchSubmission, NotInQueue

    opened = _stores(db)
    try:
        key = _admin_key(opened, key_id)
        act = opened.moderation.clear if action == "clear" else opened.moderation.reject
        done = act(submission, key, reason)
    except (NotInQueue, NoSuchSubmission) as exc:
        raise _fail(str(exc), 2) from None
    finally:
        opened.close()
    state = "listed" if done.listed else "hidden"
    _echo(f"submission {submission} {action}ed: {state} (audit {done.audit.id})", err=True)


_SubmissionArgument = Annotated[
    int, typer.Argument(metavar="ID", help="The flagged submission's id (cruel moderate queue).")
]
_ReasonOption = Annotated[str | None, typer.Option("--reason", help="Why, for the audit log.")]


@moderate_app.command("clear")
def moderate_clear_command(
    submission: _SubmissionArgument,
    key_id: _AdminOption,
    reason: _ReasonOption = None,
    db: _KeysDbOption = DEFAULT_DB,
) -> None:
    """Clear a flagged win: it is listed on its board."""
    _decide("clear", submission, key_id, reason, db)


@moderate_app.command("reject")
def moderate_reject_command(
    submission: _SubmissionArgument,
    key_id: _AdminOption,
    reason: _ReasonOption = None,
    db: _KeysDbOption = DEFAULT_DB,
) -> None:
    """Reject a flagged win: it stays hidden for good (kept as the evidence)."""
    _decide("reject", submission, key_id, reason, db)


def _site_puzzles(puzzles_dir: str | None, db: str) -> list[puzzles.Puzzle]:
    """What a server on ``--db`` serves: the set (``--puzzles``, else where ``cruel serve``
    finds it) and the days published into ``db`` (exit 2 with one line if either is
    unusable)."""
    from .. import puzzles
    from ..site.database import StoreError

    try:
        site = puzzles.open_puzzles(puzzles_dir)
        published = puzzles.read_published(_db_target(db)).puzzles
    except (puzzles.PuzzleSetError, StoreError) as exc:
        raise _fail(str(exc), 2) from None
    return [*site.by_id.values(), *(p for p in published if p.id not in site.by_id)]


@app.command("ratings")
def ratings_command(
    db: _KeysDbOption = DEFAULT_DB,
    puzzles_dir: _PuzzlesOption = None,
    json_output: Annotated[bool, _json_option("the table (cruel-ratings/1)")] = False,
) -> None:
    """The puzzles' ratings from play by tier: the median rating of each tier's puzzles with a
    95 % interval, and whether players order the tiers as the solver grades them
    (docs/service.md, Ratings). Each puzzle's tier comes from the set (--puzzles) and from the
    days cruel serve published into --db, as the server serves them."""
    from ..site import ratings

    opened = _stores(db)
    try:
        standings = opened.ratings.puzzles()
    finally:
        opened.close()
    tiers = {p.id: p.tier for p in _site_puzzles(puzzles_dir, db)}
    table = ratings.tier_table(standings, tiers)
    if json_output:
        _out(orjson.dumps(table.model_dump(mode="json")))
        return
    for line in ratings.table_lines(table):
        _out(line)


if __name__ == "__main__":  # pragma: no cover
    app()


@app.command("sweep")
def sweep_command(
    db: _KeysDbOption = DEFAULT_DB,
    keep_steps: Annotated[
        float,
        typer.Option(
            "--keep-steps",
            min=0.0,
            help="Hours the steps of a live attempt that ended without a win are kept.",
        ),
    ] = KEEP_STEPS_HOURS,
    attempt_timeout: Annotated[
        float,
        typer.Option(
            "--attempt-timeout",
            min=10.0,
            help="Seconds without a step after which a live attempt is ended as expired.",
        ),
    ] = 1800.0,
) -> None:
    """Sweep live attempts now, as a running cruel serve does every 5 minutes: end those left
    open past the timeout, delete the steps of those that ended without a win more than
    --keep-steps hours ago (their rows stay). Prints what it did (docs/service.md, Storage
    bounds)."""
    import dataclasses
    import datetime as dt

    opened = _stores(db)
    try:
        policy = dataclasses.replace(
            opened.attempts.policy,
            timeout=dt.timedelta(seconds=attempt_timeout),
            keep_steps=dt.timedelta(hours=keep_steps),
        )
        opened.attempts.policy = policy
        done = opened.attempts.sweep(dt.datetime.now(dt.UTC))
    finally:
        opened.close()
    _out(f"ended {done.ended} attempts; deleted {done.steps} steps of {done.swept} attempts")
