"""The commands that read game logs and draw positions: ``verify``, ``replay``, ``show``,
``stats``. ``verify`` runs on what this module imports at its top; the others import their
modules when they run."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from ..constants import ANALYSIS_DEEP_STATES, ANALYSIS_MAX_STATES, ANALYSIS_NATIVE_MAX_STATES
from ..dates import parse_date
from ..game import cards, log, rules
from ..game.game import Game
from ..game.inputs import UnreadableLog, count_units, iter_units, read_log
from ..game.log import Limits
from ..game.verify import (
    EXIT_CODES,
    PLAIN,
    Source,
    Status,
    batch_exit_code,
    plural,
    render_many,
    report_line,
    summary,
    unreadable,
)
from ..terminal import terminal_safe
from .common import (
    Progress,
    PuzzleIdOption,
    PuzzlesOption,
    QuietOption,
    Showing,
    as_text,
    check_inputs,
    deal_or_exit,
    echo,
    emit,
    fail,
    json_option,
    note,
    on_terminal,
    parse_option,
    puzzle_option,
    quiet_option,
    report_exit,
)

if TYPE_CHECKING:
    from .. import puzzles
    from ..advice import analysis
    from ..game import render, stats

__all__ = ["verify_command", "replay_command", "show_command", "stats_command"]


def verify_command(
    logs: Annotated[
        list[str], typer.Argument(help="Log files, directories, .jsonl files, or - for stdin.")
    ],
    json: Annotated[bool, json_option("one report per log (JSON Lines)")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Worker processes.")] = 1,
    max_bytes: Annotated[
        int, typer.Option(min=1, help="Largest log accepted, in bytes.")
    ] = Limits.max_bytes,
    max_moves: Annotated[
        int, typer.Option(min=0, help="Most moves accepted in one log.")
    ] = Limits.max_moves,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Read stdin as JSON Lines.")] = False,
    quiet: Annotated[bool, quiet_option("; only logs that are not valid on stdout")] = False,
    puzzle_file: Annotated[
        Path | None,
        typer.Option("--puzzle", help="Accept only games of this puzzle; compare them to par."),
    ] = None,
    puzzles_dir: PuzzlesOption = None,
    puzzle_id: PuzzleIdOption = None,
) -> None:
    """Replay game logs against the rules; report the first illegal move or confirm the result.

    With --puzzle FILE (or --puzzle-id ID, a puzzle of the set cruel serve would serve, or of
    --puzzles) a log must play the puzzle's deal under its rules (else puzzle-mismatch), and
    valid lines add the puzzle's par.

    Exit status: 0 all valid, 1 an illegal move, bad deal, false claim or another puzzle's game,
    2 unreadable input, 3 an internal error (a bug: please report it).
    """
    limits = Limits(max_bytes=max_bytes, max_moves=max_moves)
    puzzle = puzzle_option(puzzle_file, puzzles_dir, puzzle_id)
    checker = PLAIN if puzzle is None else _puzzle_check(puzzle)
    tally: Counter[Status] = Counter()
    total = count_units(logs) if on_terminal(sys.stderr) else None  # only for the display
    with Showing(Progress(total, unit=" logs", quiet=quiet)) as progress:
        for status, line in render_many(
            iter_units(logs, limits, jsonl), limits, jobs, json, checker
        ):
            tally[status] += 1
            if json or not (quiet and status == "valid"):
                emit(line if json else as_text(line))  # a text line as bytes (the core's) too
            progress.step()
    # every input named gives a line, if only its problem (an empty folder: empty-folder)
    note(summary(tally), quiet)
    raise typer.Exit(batch_exit_code(tally))


def _puzzle_check(puzzle: puzzles.Puzzle) -> puzzles.PuzzleCheck:
    from ..puzzles import PuzzleCheck

    return PuzzleCheck(puzzle)


# --- replays and positions -------------------------------------------------------------------


_COLOR_CHOICES = ("auto", "always", "never")


def _use_color(choice: str, no_color: bool) -> bool:
    """Whether to colour: ``--color always`` / ``never`` decide; ``auto`` (the default) colours
    a terminal unless ``NO_COLOR`` is set to a non-empty value (no-color.org: an empty one does
    not count) or ``TERM`` is ``dumb``. ``--no-color`` is ``--color never``."""
    if choice not in _COLOR_CHOICES:
        raise fail(f"--color must be one of {', '.join(_COLOR_CHOICES)}, not {choice!r}", 2)
    if no_color and choice != "auto":
        raise fail(f"--no-color and --color {choice} conflict: give one of them", 2)
    if no_color or choice == "never":
        return False
    if choice == "always":
        return True
    return not os.environ.get("NO_COLOR") and on_terminal(sys.stdout)


def _style(layout: str, ascii_: bool, color: bool) -> render.Style:
    from ..game import render

    return render.Style(layout=layout, ascii=ascii_, color=color)  # type: ignore[arg-type]


def _read_log_or_exit(path: str, limits: Limits) -> log.GameLog:
    try:
        return read_log(path, limits)[1]
    except UnreadableLog as exc:
        raise report_exit(unreadable(exc.error, exc.source)) from None


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


def _check_layemit(layout: str) -> None:
    from ..game import render

    if layout not in render.LAYOUTS:
        raise fail(f"--layout must be one of {', '.join(render.LAYOUTS)}", 2)


def _check_replay_options(
    first: int | None, last: int | None, final: bool, moves_only: bool
) -> None:
    """Refuse options that contradict each other, naming both, before any log is read."""
    if final and moves_only:
        raise fail(
            "--final and --moves-only conflict: --final shows only the final position, "
            "--moves-only every move without positions; give one of them",
            2,
        )
    for name, value in (("--from", first), ("--to", last)):
        if final and value is not None:
            raise fail(
                f"--final and {name} conflict: --final shows only the final position, "
                f"{name} chooses steps to show; give one of them",
                2,
            )
    if first is not None and last is not None and last < first:
        raise fail(
            f"--from {first} --to {last}: the range is backwards (empty); "
            "--from must not come after --to",
            2,
        )


def _check_analyze_options(analyze: bool, final: bool, max_states: int | None) -> None:
    """Refuse ``replay`` options that make no sense with (or without) --analyze."""
    if analyze and final:
        raise fail(
            "--analyze and --final conflict: --analyze marks steps, --final shows none; "
            "give one of them",
            2,
        )
    if max_states is not None and not analyze:
        raise fail("--max-states goes with --analyze only: it is the budget of its solves", 2)


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
    from ..advice import analysis
    from ..game import render

    try:
        render.check_window(options, len(game_log.moves))
    except render.EmptyWindow as exc:
        where = "" if source is None else f"{source}: "
        echo(f"error: {where}{exc}", err=True)
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
        emit(orjson.dumps(doc))
        return EXIT_CODES["invalid"] if doc["error"] else 0
    result = render.replay(game_log, options)
    for line in result.lines:  # the log's text in them made safe by render, its colours kept
        emit(line, styled=options.style.color)
    return EXIT_CODES["invalid"] if result.error else 0


_NO_ANALYSIS = "Analysis: none, the log is not a legal game (see the error above)"


def _analysis_for_replay(game_log: log.GameLog, budget: int | None) -> analysis.Analysis | None:
    """``cruel analyze --deep``'s analysis of a log, or None when it is not a legal game (the
    replay says what is wrong with it)."""
    from ..advice import analysis

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
        raise fail(f"internal error: {exc}; please report it", 3) from None


def _holds_several(spec: str) -> bool:
    """A folder or a JSON Lines file: an input of any number of logs, each replay headed."""
    return spec != "-" and (spec.endswith(".jsonl") or Path(spec).is_dir())


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
    json: Annotated[bool, json_option("each log's steps and positions (JSON Lines)")] = False,
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

    _check_layemit(layout)
    _check_replay_options(first, last, final, moves_only)
    _check_analyze_options(analyze, final, max_states)
    check_inputs([log_file])
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
    raise typer.Exit(_replay_many(log_file, limits, options, json, analyze, max_states))


def _replay_many(
    spec: str,
    limits: Limits,
    options: render.ReplayOptions,
    json: bool,
    analyze: bool,
    max_states: int | None,
) -> int:
    """``replay`` of a folder or a JSON Lines file: log after log, each headed by ``==> SOURCE
    <==`` (a JSON object names its own); the worst exit code."""
    code, count = 0, 0
    for source, data in iter_units([spec], limits):
        try:
            if isinstance(data, log.LogFormatError):
                raise data
            game_log = log.load_input(data, limits)
        except log.LogFormatError as exc:  # in its one wording (an input without logs too)
            report = unreadable(exc, source)  # names its source: no header on stdout for it
            echo(report_line(report), err=True)
            code = max(code, report.exit_code)
            continue
        if not json:  # each JSON object names its source
            if count:
                emit("")
            emit(f"==> {source} <==")
        count += 1
        code = max(code, _replay_one(game_log, options, source, json, analyze, max_states))
    return code


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
    json: Annotated[bool, json_option("the deal's number and piles (as cruel deal)")] = False,
    rules_name: Annotated[
        str | None,
        typer.Option(
            "--rules", metavar="PRESET", help="Rules preset (default: a log's own, else cruel)."
        ),
    ] = None,
) -> None:
    """Render a starting position: a deal number, a deal file or a log's deal."""
    from ..game import render

    _check_layemit(layout)
    style = _style(layout, ascii_, _use_color(color, no_color))
    chosen = None if rules_name is None else parse_option("--rules", rules.preset, rules_name)
    number, piles, chosen = deal_or_exit(deal_spec, chosen)
    if json:
        emit(orjson.dumps({"number": number, "piles": [[cards.name(c) for c in p] for p in piles]}))
        return
    title = f"Deal {number}" if number is not None else f"Deal from {terminal_safe(deal_spec)}"
    for line in render.show(Game.trusted(piles, chosen), title, style):
        emit(line, styled=style.color)


def stats_command(
    logs: Annotated[
        list[str], typer.Argument(help="A player's logs: files, directories, .jsonl, or -.")
    ],
    json: Annotated[bool, json_option("the record")] = False,
    quiet: QuietOption = False,
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

    day = parse_option("--today", parse_date, today) if today is not None else None
    notes = stats.Notes()  # an input that cannot be used is left out, in its one wording
    rec = stats.record(iter_units(logs, Limits(), jsonl), today=day, player=player, notes=notes)
    if json:
        emit(rec.model_dump_json())
    else:
        for line in stats.table(rec, notes.excluded):
            emit(line)
    if not quiet:
        _stats_notes(rec, notes, player, json)
    if notes.unreadable:  # the record of the others is printed, as verify reports every log
        words = plural(notes.unreadable, "input")
        raise fail(f"{words} could not be used (listed as left out)", EXIT_CODES["unreadable"])
    # every input gives a log, counted or left out, unless it is only other players' logs
    if rec.played == 0 and not notes.excluded and player is not None:
        others = plural(notes.other_players, "log")
        raise fail(f"no logs of player {player!r} ({others} of other players)", 2)


def _stats_notes(rec: stats.Record, notes: stats.Notes, player: str | None, json: bool) -> None:
    """What a record does not show by itself, on stderr."""
    if player is None and len(notes.players) > 1:
        names = ", ".join(sorted(notes.players)[:5]) + (", ..." if len(notes.players) > 5 else "")
        echo(
            f"note: one record merging {len(notes.players)} players ({names}); "
            "give --player NAME for one player's record",
            err=True,
        )
    if player is not None and notes.other_players:
        echo(f"note: {plural(notes.other_players, 'log')} of other players left aside", err=True)
    if notes.bad_timestamps:
        many = notes.bad_timestamps != 1
        echo(
            f"warning: {plural(notes.bad_timestamps, 'counted log')} "
            f"{'have' if many else 'has'} an unusable meta.started_at or meta.finished_at "
            "(not an ISO 8601 time, or a finish before the start): "
            f"{'they count' if many else 'it counts'} for no day or time",
            err=True,
        )
    if json and notes.excluded > len(rec.excluded):
        echo(
            f"note: {plural(notes.excluded, 'log')} left out; excluded lists the first "
            f"{len(rec.excluded)}",
            err=True,
        )
