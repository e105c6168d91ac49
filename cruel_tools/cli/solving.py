"""The commands that search: ``solve``, ``analyze``, ``hint``, ``grade``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from ..constants import (
    ANALYSIS_DEEP_STATES,
    ANALYSIS_MAX_STATES,
    ANALYSIS_NATIVE_MAX_STATES,
    HINT_MAX_STATES,
    SOLVE_DEFAULT_STATES,
)
from ..game import rules
from ..game.inputs import Start, UnreadableLog, display_name, read_log
from ..game.log import Limits
from ..game.verify import plural, unreadable
from .common import (
    MaxMemoryOption,
    Progress,
    PuzzleIdOption,
    PuzzlesOption,
    QuietOption,
    RulesOption,
    Showing,
    check_inputs,
    deal_or_exit,
    emit,
    fail,
    json_option,
    load_start_or_exit,
    memory_option,
    note,
    parse_option,
    puzzle_option,
    report_exit,
)

if TYPE_CHECKING:
    from ..game.proofcheck import Certificate
    from ..search.optimal import OptimalResult
    from ..search.solver import SolveResult

__all__ = ["solve_command", "analyze_command", "hint_command", "grade_command"]


_SolveStatesOption = Annotated[
    int | None,
    typer.Option(
        "--max-states",
        help=f"Most positions to expand (at least 1; default {SOLVE_DEFAULT_STATES:,}, with "
        "--optimal 1,000,000).",
    ),
]
_SolveMemoryOption = Annotated[
    str,
    typer.Option(
        "--max-memory",
        help="Most memory the search may hold: 512M, 1G or bytes (default 1G); "
        "reached, the verdict is unknown.",
    ),
]


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
    max_states: _SolveStatesOption = None,
    max_seconds: Annotated[
        float, typer.Option("--max-seconds", help="Most seconds to search (more than 0).")
    ] = 60.0,
    max_memory: _SolveMemoryOption = "1G",
    optimal_search: Annotated[
        bool,
        typer.Option(
            "--optimal",
            help="Find the fewest actions (card moves + redeals) and prove a lower bound.",
        ),
    ] = False,
    json: Annotated[bool, json_option("the report")] = False,
    quiet: QuietOption = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="On a win, write the whole game as a cruel-log/1 file here."),
    ] = None,
) -> None:
    """Search a deal, or a logged game's final position, for a win.

    Prints the verdict (won, unwinnable or unknown when the budget runs out) and, for a win, the
    solution as a numbered score sheet. Half the budget goes to the proof search; if it is
    undecided, the rest to beams that look for a win (docs/solver.md, "Deciding a deal").
    With --out, a win is written as a complete log from the deal (a log's own moves first)
    that `cruel verify` accepts.

    With --optimal, the win has the fewest actions the search can find, beside a proven lower
    bound: "optimal" when the two meet, else "best found N, optimum >= L" (docs/solver.md).

    Exit status: 0 the search finished (won, unwinnable and unknown are all answers), 1 a log
    with an illegal move or a bad deal, 2 unreadable input or bad options, 3 an internal error
    (a bug: please report it).
    """
    from ..search import optimal
    from ..search.decide import decide

    if rules_name is not None:
        parse_option("--rules", rules.preset, rules_name)
    max_states, memory = _budget(max_states, optimal_search, max_seconds, max_memory)
    start = load_start_or_exit(deal_spec, rules_name, Limits(), quiet)
    label = f"solving (at most {plural(max_states, 'state')}, {max_seconds:g} s)"
    with Showing(Progress(None, label=label, ticking=True, quiet=quiet)):
        if optimal_search:
            best = optimal.optimize(
                start.game, max_states=max_states, max_seconds=max_seconds, max_memory=memory
            )
            result = optimal.as_solve_result(best)
        else:
            best = None
            result = decide(
                start.game, max_states=max_states, max_seconds=max_seconds, max_memory=memory
            )
    _print_solved(start, result, best, json)
    if out is not None:
        _write_solution(out, start, result, quiet)


def _budget(
    max_states: int | None, optimal_search: bool, max_seconds: float, max_memory: str
) -> tuple[int, int]:
    """``solve``'s budget: positions (the search's default if not given) and bytes; a bad one
    is one line naming its option, exit 2."""
    from ..search import optimal, solver

    if max_states is None:
        max_states = optimal.MAX_STATES if optimal_search else SOLVE_DEFAULT_STATES
    if max_states < 1:
        raise fail(f"--max-states must be at least 1, not {max_states}", 2)
    if not max_seconds > 0:
        raise fail(f"--max-seconds must be more than 0, not {max_seconds}", 2)
    try:
        memory = solver.parse_memory(max_memory)
    except ValueError:
        raise fail(f"--max-memory must be a size like 512M or 1G, not {max_memory}", 2) from None
    return max_states, memory


def _print_solved(
    start: Start, result: SolveResult, best: OptimalResult | None, json: bool
) -> None:
    """``solve``'s report: JSON, or the verdict line and a win's score sheet."""
    from ..game import render
    from ..search import optimal, solver

    won = result.verdict == "won"
    st = result.stats
    if json:
        report = solver.solve_report(
            result, start.number, start.piles, start.game, len(start.prefix)
        )
        if best is not None:
            report = report.model_copy(update={"fewest_actions": optimal.fewest_actions(best)})
        if result.verdict == "unwinnable":
            report = report.model_copy(update={"certificate": _certificate(start, result)})
        emit(report.model_dump_json())
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
        emit(
            f"{title}: {verdict} ({plural(st.expanded, 'state')} expanded, "
            f"{st.unique} unique, {st.seconds:.2f} s)"
        )
        if won:
            for line in render.score_sheet(start.game, result.steps, len(start.prefix) + 1):
                emit(line)


def _certificate(start: Start, result: SolveResult) -> Certificate | None:
    """The verdict's certificate (docs/solver.md, Certificates), under a named preset only."""
    from ..game.rules import PRESETS
    from ..search.certificates import certificate_for

    if start.rules != PRESETS.get(start.rules.preset):
        return None
    deal = start.number if start.number is not None else start.piles
    return certificate_for(deal, start.rules.preset, result, start.prefix)


def _write_solution(out: Path, start: Start, result: SolveResult, quiet: bool) -> None:
    """``solve --out FILE``: a win as a complete log from the deal (a log's own moves first)."""
    from ..search import solver

    if result.verdict != "won":
        note(f"no solution found ({result.verdict}): {out} not written", quiet)
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
        raise fail(f"internal error: {exc}; please report it", 3) from None
    try:
        out.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror or type(exc).__name__}", 2) from None
    note(f"wrote {out}", quiet)


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
    puzzles_dir: PuzzlesOption = None,
    puzzle_id: PuzzleIdOption = None,
    json: Annotated[bool, json_option("the analysis (cruel-analysis/1)")] = False,
    quiet: QuietOption = False,
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
    from ..advice import analysis

    if max_states is not None and max_states < 1:
        raise fail(f"--max-states must be at least 1, not {max_states}", 2)
    chosen = puzzle_option(puzzle_file, puzzles_dir, puzzle_id)
    check_inputs([log_file])
    try:
        source, game_log = read_log(log_file, Limits())
    except UnreadableLog as exc:
        raise report_exit(unreadable(exc.error, exc.source)) from None
    most = "" if max_states is None else f" (at most {plural(max_states, 'state')} a solve)"
    label = f"analysing{most}"
    with Showing(Progress(None, label=label, ticking=True, quiet=quiet)):
        try:
            result = analysis.analyze(
                game_log,
                puzzle=chosen,
                max_states=max_states,
                deep=deep,
                deep_states=min(max_states or analysis.DEEP_STATES, analysis.DEEP_STATES),
            )
        except analysis.AnalysisRefused as exc:
            raise report_exit(exc.report.model_copy(update={"source": source})) from None
        except AssertionError as exc:  # a continuation the verifier refuses: a bug of ours
            raise fail(f"internal error: {exc}; please report it", 3) from None
    if json:
        emit(result.model_dump_json())
        return
    for line in analysis.text_lines(result):
        emit(line)


def hint_command(
    log_file: Annotated[str, typer.Argument(metavar="LOG", help="A game log; - for stdin.")],
    max_states: Annotated[
        int,
        typer.Option(
            "--max-states", help="Most positions the solve may expand (at least 1).", min=1
        ),
    ] = HINT_MAX_STATES,
    json: Annotated[bool, json_option("the hint (cruel-hint/1)")] = False,
) -> None:
    """A hint: the next step of a win from the game's last position, "no win from here" with
    the solver's proof in words (rule L, rule F, or every position searched), "already won",
    or "unknown" when the budget ran out first. The win found is not the shortest; the budget
    counts positions, so the answer is the same on every machine (docs/service.md, Hints).

    Exit status: 0 a hint (unknown too), 1 a log with an illegal move, a bad deal or a false
    claim, 2 unreadable input or bad options.
    """
    from ..advice import analysis, hints

    check_inputs([log_file])
    try:
        source, game_log = read_log(log_file, Limits())
    except UnreadableLog as exc:
        raise report_exit(unreadable(exc.error, exc.source)) from None
    try:
        found = hints.hint(game_log, max_states)
    except analysis.AnalysisRefused as exc:
        raise report_exit(exc.report.model_copy(update={"source": source})) from None
    if json:
        emit(found.model_dump_json())
        return
    for line in hints.text_lines(found):
        emit(line)


def _label(progress: Progress, what: str) -> None:
    """Say on the progress line what grading does now."""
    progress.label = f"grading: {what}"


def grade_command(
    deal_spec: Annotated[
        str,
        typer.Argument(
            metavar="DEAL", help="A deal number, or a JSON file holding a deal or a log."
        ),
    ],
    json: Annotated[bool, json_option("the grade")] = False,
    rules_name: RulesOption = "cruel",
    max_memory: MaxMemoryOption = None,
    quiet: QuietOption = False,
) -> None:
    """Grade a deal: its tier (easy, medium, hard, expert), par and metrics (docs/grading.md).

    Par is its actions with "optimal" when proven, else "optimum >= N" (the proven bound). The
    memory budget is said first on stderr; a par search that reaches it keeps its bound.

    Exit status: 0 graded (an unwinnable or undecided deal has no tier), 1 a bad deal,
    2 unreadable input or bad options.
    """
    from ..search import grading

    chosen = parse_option("--rules", rules.preset, rules_name)
    allowed = memory_option("--max-memory", max_memory)
    number, piles, _ = deal_or_exit(deal_spec, chosen)
    note(f"memory budget: {allowed.summary()}", quiet)
    progress = Progress(None, label="grading", ticking=True, quiet=quiet)
    with Showing(progress):
        result = grading.grade(
            piles, number, chosen, allowed.grading(), phase=lambda what: _label(progress, what)
        )
    if json:
        emit(result.model_dump_json())
        return
    title = f"deal {number}" if number is not None else f"deal from {display_name(deal_spec)}"
    m = result.metrics
    if result.tier is None or m is None:
        emit(f"{title}: no tier ({result.verdict}): not a puzzle")
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
        emit(line)
