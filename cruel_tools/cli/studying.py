"""The winnability study: ``study`` (cruel_tools.search.study; docs/winnability.md)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..game import rules
from ..game.deals import MAX_DEAL_NUMBER
from .common import (
    JobsOption,
    Progress,
    QuietOption,
    emit,
    fail,
    json_option,
    note,
    on_terminal,
    parse_option,
)

if TYPE_CHECKING:
    from ..search.study import StudyBudget, StudyRecord, StudyReport

__all__ = ["study_command", "EXIT_INTERRUPTED"]

#: The exit status of a study stopped by Ctrl+C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130


class _StudyLine(Progress):
    """``studying [####....] 120/200 deals: 98 won, 9 unwinnable, 13 unknown 3.1/s 0:39 spent,
    0:26 left``: the rate and the time left from this run's deals alone (a resumed study's
    earlier deals came in no time)."""

    def __init__(self, forced: bool, quiet: bool) -> None:
        super().__init__(0, label="studying", at_least=0, quiet=quiet)
        self.on = (forced or on_terminal(sys.stderr)) and not quiet
        self.counts = {"won": 0, "unwinnable": 0, "unknown": 0}
        self.earlier = 0

    def resumed(self, records: list[StudyRecord], total: int) -> None:
        self.total = total
        self.earlier = self.done = len(records)
        for r in records:
            self.counts[r.verdict] += 1
        self.started = time.monotonic()
        self._draw(force=True)

    def solved(self, record: StudyRecord) -> None:
        self.counts[record.verdict] += 1
        self.step()

    def line(self, now: float) -> str:
        elapsed = now - self.started
        fresh = self.done - self.earlier
        rate = fresh / elapsed if elapsed > 0 else 0.0
        total = self.total or 0
        left = _clock((total - self.done) / rate) if rate > 0 else "?"
        filled = 24 * self.done // max(total, 1)
        c = self.counts
        return (
            f"{self.label} [{'#' * filled}{'.' * (24 - filled)}] {self.done}/{total} deals: "
            f"{c['won']} won, {c['unwinnable']} unwinnable, {c['unknown']} unknown "
            f"{rate:.1f}/s {_clock(elapsed)} spent, {left} left"
        )


def _clock(seconds: float) -> str:
    s = max(0, round(seconds))
    hours = f"{s // 3600}:{s // 60 % 60:02d}" if s >= 3600 else f"{s // 60}"
    return f"{hours}:{s % 60:02d}"


def _deal_range(text: str) -> range:
    """``1-200`` or ``17``: the deals of the study (both ends included)."""
    first, _, last = text.partition("-")
    try:
        lo, hi = int(first), int(last or first)
    except ValueError:
        raise fail(f"DEALS: {text!r} is not a deal range like 1-200", 2) from None
    if not 0 <= lo <= hi <= MAX_DEAL_NUMBER:
        raise fail(f"DEALS: need 0 <= first <= last <= {MAX_DEAL_NUMBER}, not {text}", 2)
    return range(lo, hi + 1)


def _budget(max_seconds: float, max_states: int | None, max_memory: str) -> StudyBudget:
    from ..search.solver import parse_memory
    from ..search.study import StudyBudget

    if not max_seconds > 0:
        raise fail(f"--max-seconds must be more than 0, not {max_seconds}", 2)
    if max_states is not None and max_states < 1:
        raise fail(f"--max-states must be at least 1, not {max_states}", 2)
    try:
        memory = parse_memory(max_memory)
    except ValueError:
        raise fail(f"--max-memory must be a size like 512M or 1G, not {max_memory}", 2) from None
    return StudyBudget(max_seconds=max_seconds, max_states=max_states, max_memory=memory)


_ResultsOption = Annotated[
    Path,
    typer.Option(
        "--results",
        metavar="FILE",
        help="The results file (JSON Lines): made if missing, else resumed: its deals are "
        "not solved again. Another study's file is refused.",
    ),
]
_PresetsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--rules",
        metavar="PRESET",
        help=f"Rules preset, again for more than one (default cruel): {', '.join(rules.PRESETS)}.",
    ),
]
_SecondsOption = Annotated[
    float, typer.Option("--max-seconds", help="Solver seconds per deal (more than 0).")
]
_StatesOption = Annotated[
    int | None,
    typer.Option("--max-states", help="Positions expanded per deal (default: no limit)."),
]
_MemoryOption = Annotated[
    str, typer.Option("--max-memory", help="Memory per search: 512M, 1G or bytes.")
]
_SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="Solve on this Dask cluster instead of --jobs (pip install 'cruel-tools[cluster]').",
    ),
]
_PlotOption = Annotated[
    Path | None,
    typer.Option("--plot", metavar="FILE.svg", help="Also draw the winnable shares as SVG."),
]
_ProgressOption = Annotated[
    bool, typer.Option("--progress", help="Show progress even when stderr is no terminal.")
]


def study_command(
    deals: Annotated[
        str, typer.Argument(metavar="DEALS", help="Deal numbers: 1-200 (both included), or 17.")
    ],
    results: _ResultsOption,
    presets: _PresetsOption = None,
    max_seconds: _SecondsOption = 2.0,
    max_states: _StatesOption = None,
    max_memory: _MemoryOption = "1G",
    jobs: JobsOption = 1,
    scheduler: _SchedulerOption = None,
    plot: _PlotOption = None,
    progress: _ProgressOption = False,
    json: Annotated[bool, json_option("the report")] = False,
    quiet: QuietOption = False,
) -> None:
    """Solve every deal of a range at one budget, and report how many are winnable.

    Each (preset, deal) is solved once and its verdict appended to --results as it comes; a
    study stopped (Ctrl+C, a kill) goes on where it stopped when run again. The report gives,
    per preset, won, unwinnable and unknown counts, the winnable share with a 95% interval that
    counts the unknowns as lost (lower end) and as won (upper end), the decided share, times,
    and the deals solved per second.

    Exit status: 0 the study is done (a report printed), 2 bad options or a results file that
    cannot be used, 3 an internal error, 130 interrupted (the file keeps every verdict written).
    """
    from ..search import study

    chosen = presets or ["cruel"]
    for name in chosen:
        parse_option("--rules", rules.preset, name)
    if scheduler is not None and jobs != 1:
        raise fail("give --jobs N, or --scheduler ADDRESS (the cluster's workers), not both", 2)
    budget = _budget(max_seconds, max_states, max_memory)
    line = _StudyLine(progress, quiet)
    try:
        done = study.run_study(
            _deal_range(deals), chosen, budget, results, jobs, scheduler, progress=line
        )
    except study.StudyError as exc:
        raise fail(str(exc), 2) from None
    except OSError as exc:  # the file, or a scheduler that does not answer
        where = f"--scheduler {scheduler}" if scheduler and not exc.filename else str(results)
        raise fail(f"{where}: {exc.strerror or exc}", 2) from None
    except KeyboardInterrupt:
        line.close()
        note(f"interrupted: {results} keeps every verdict written; run again to go on", False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        line.close()
    _show(study.report(done), json, plot, quiet)


def _show(rep: StudyReport, json: bool, plot: Path | None, quiet: bool) -> None:
    from ..search import study

    if json:
        emit(rep.model_dump_json())
    else:
        for text in study.report_lines(rep):
            emit(text)
    if plot is not None:
        try:
            plot.write_text(study.plot_svg(rep), encoding="utf-8")
        except OSError as exc:
            raise fail(f"--plot: cannot write {plot}: {exc.strerror or exc}", 2) from None
        note(f"wrote {plot}", quiet)
