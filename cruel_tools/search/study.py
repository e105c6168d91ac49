"""The winnability study (docs/winnability.md, "Running a study"): every deal of a range solved
under one or more rules presets at the same budget, the verdicts kept in a results file that a
killed study resumes from, and a report with 95% intervals.

The results file is JSON Lines: a header (:class:`StudyHeader`, ``cruel-study/1``: the study's
parameters) then one :class:`StudyRecord` per (preset, deal), appended and flushed as each
verdict comes in, by this process alone (workers only return records). A kill loses at most the
deals in flight; a line cut short by the kill is dropped when the study is resumed, a (preset,
deal) found twice is counted once, and a resume under other parameters is refused.

The work runs in this process (``jobs=1``), in worker processes on this machine
(:class:`concurrent.futures.ProcessPoolExecutor`), or on a Dask cluster (``scheduler``: the
optional ``distributed`` package, ``pip install 'cruel-tools[cluster]'``).
"""

from __future__ import annotations

import math
import signal
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar, Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import CruelError
from ..formats import document_config
from ..game import engine
from ..game.deals import deal_piles
from ..game.game import Game
from ..game.log import compact
from ..game.proofcheck import Certificate
from ..game.rules import PRESETS
from .certificates import certificate_for
from .decide import SOLVER_VERSION, decide
from .solver import MAX_MEMORY, Verdict, memory_size

__all__ = [
    "STUDY_FORMAT",
    "STUDY_REPORT_FORMAT",
    "Z95",
    "CLUSTER_HINT",
    "StudyError",
    "StudyBudget",
    "StudyParameters",
    "StudyHeader",
    "StudyRecord",
    "StudyProgress",
    "StudyResults",
    "PresetReport",
    "Throughput",
    "StudyReport",
    "solver_version",
    "wilson",
    "solve_one",
    "read_study",
    "run_study",
    "report",
    "report_lines",
    "plot_svg",
]

STUDY_FORMAT: Final = "cruel-study/1"
STUDY_REPORT_FORMAT: Final = "cruel-study-report/1"
Z95: Final = 1.959963984540054  # two-sided 95% normal quantile
#: The one line said when ``--scheduler`` is asked for and ``distributed`` is not installed.
CLUSTER_HINT: Final = (
    "a Dask cluster needs the distributed package: pip install 'cruel-tools[cluster]'"
)


class StudyError(CruelError):
    """A results file that cannot be used for this study, or a cluster that cannot be used."""

    code = "not-a-study"
    codes: ClassVar[tuple[str, ...]] = (
        "not-a-study",
        "study-mismatch",
        "study-busy",
        "no-cluster-support",
    )

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# --- the documents -------------------------------------------------------------------------------


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StudyBudget(_Frozen):
    """What each (preset, deal) may spend: :func:`cruel_tools.search.solver.solve`'s budget."""

    max_seconds: float = Field(gt=0, description="Solver seconds per deal.")
    max_states: int | None = Field(
        None, ge=1, description="Positions expanded per deal; null: no limit."
    )
    max_memory: int = Field(MAX_MEMORY, ge=1, description="Bytes one search may hold.")

    def words(self) -> str:
        states = "no limit" if self.max_states is None else f"{self.max_states:,}"
        return f"{self.max_seconds:g} s, positions {states}, memory {memory_size(self.max_memory)}"


class StudyParameters(_Frozen):
    """What makes two runs the same study: a resume under other parameters is refused."""

    first: int = Field(ge=0, description="First deal number.")
    last: int = Field(ge=0, description="Last deal number (included).")
    presets: list[str] = Field(min_length=1, description="Rules presets, each over every deal.")
    budget: StudyBudget
    solver: str = Field(
        description="cruel-tools' version, the solver's (search/decide.py) and the engine."
    )

    def total(self) -> int:
        return (self.last - self.first + 1) * len(self.presets)


class StudyHeader(_Frozen):
    """The first line of a results file (``cruel study --results FILE``); a
    :class:`StudyRecord` per line follows it."""

    model_config = document_config("Cruel study v1 (header line)", "study")

    format: Literal["cruel-study/1"] = STUDY_FORMAT
    study: StudyParameters


class StudyRecord(_Frozen):
    """A line of a results file after its header: one preset's verdict on one deal."""

    model_config = document_config("Cruel study v1 (a record line)", "study-record")

    preset: str
    deal: int = Field(ge=0)
    verdict: Verdict
    reason: str = Field(description="Why unwinnable or unknown, in words; empty for a win.")
    moves: int | None = Field(description="Card moves of the win found; null without one.")
    redeals: int | None = Field(description="Redeals of the win found; null without one.")
    solution: list[str] | None = Field(
        description='The win found, in compact log notation ("3F", "3-7", "3-7x2", "R").'
    )
    positions: int = Field(description="Positions expanded.")
    seconds: float = Field(description="Solver seconds.")
    engine: Literal["native", "python"] = Field(description="The engine that solved it.")
    certificate: Certificate | None = Field(
        None,
        description="Unwinnable: why the deal can never be won, for cruel check-proof "
        "(docs/solver.md, Certificates). Null or absent for another verdict, when the proof "
        "would hold more than 200,000 positions, or in a file written before certificates.",
    )


def solver_version() -> str:
    """``cruel-tools 0.1.0, solver 2, engine native``: a study's results hold for this solver."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        mine = version("cruel-tools")
    except PackageNotFoundError:  # a source tree never installed
        mine = "0+unknown"
    return f"cruel-tools {mine}, solver {SOLVER_VERSION}, engine {engine.engine_name()}"


# --- one deal ------------------------------------------------------------------------------------


def solve_one(preset: str, deal: int, budget: StudyBudget) -> StudyRecord:
    """Solve one deal under one preset (in a worker: everything it needs is in its arguments)."""
    rules = PRESETS[preset]
    result = decide(
        Game.from_deal(deal_piles(deal, rules), rules),
        max_states=sys.maxsize if budget.max_states is None else budget.max_states,
        max_seconds=budget.max_seconds,
        max_memory=budget.max_memory,
    )
    won = result.verdict == "won"
    # Made here, in the worker, next to the solve: most are a rule at the deal (no search), the
    # rest a closure of at most a few hundred positions on deals 1-2,000.
    certificate = certificate_for(deal, preset, result)
    return StudyRecord(
        preset=preset,
        deal=deal,
        verdict=result.verdict,
        reason=result.reason,
        moves=result.solution_moves if won else None,
        redeals=result.solution_redeals if won else None,
        solution=[compact(s) for s in result.steps] if won else None,
        positions=result.stats.expanded,
        seconds=round(result.stats.seconds, 4),
        engine="native" if engine.engine_name() == "native" else "python",
        certificate=certificate,
    )


# --- the results file ----------------------------------------------------------------------------


@dataclass
class StudyResults:
    """A study's records (each (preset, deal) once), and what this run added, in how long."""

    parameters: StudyParameters
    records: list[StudyRecord]
    solved: int = 0  # records this run added
    wall_seconds: float = 0.0  # this run's time


def _difference(file: StudyParameters, asked: StudyParameters) -> str | None:
    """The first parameter that differs, in words, or None."""
    pairs: list[tuple[str, object, object]] = [
        ("deals", f"{file.first}-{file.last}", f"{asked.first}-{asked.last}"),
        ("presets", ",".join(file.presets), ",".join(asked.presets)),
        ("--max-seconds", file.budget.max_seconds, asked.budget.max_seconds),
        ("--max-states", file.budget.max_states, asked.budget.max_states),
        ("--max-memory", file.budget.max_memory, asked.budget.max_memory),
        ("solver", file.solver, asked.solver),
    ]
    for name, theirs, ours in pairs:
        if theirs != ours:
            return f"{name} {_said(theirs)} in the file, {_said(ours)} asked"
    return None


def _said(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _parse(path: Path, data: bytes) -> tuple[StudyHeader, list[StudyRecord], int]:
    """The header and records of a results file, and the bytes of whole lines: a last line
    without its newline (cut by a kill mid-write) is left out of both."""
    whole = data.rfind(b"\n") + 1
    lines = data[:whole].split(b"\n")[:-1]
    if not lines:
        raise StudyError("not-a-study", f"{path}: no header line")
    try:
        header = StudyHeader.model_validate_json(lines[0])
    except ValidationError:
        raise StudyError(
            "not-a-study", f"{path}: line 1 is not a {STUDY_FORMAT} header: not a results file"
        ) from None
    records = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            records.append(StudyRecord.model_validate_json(line))
        except ValidationError as exc:
            why = exc.errors()[0]["msg"]
            raise StudyError("not-a-study", f"{path}: line {number}: {why}") from None
    return header, records, whole


def _unique(records: Iterable[StudyRecord], parameters: StudyParameters) -> list[StudyRecord]:
    """Each (preset, deal) of the study once (the first line that gives it)."""
    seen: dict[tuple[str, int], StudyRecord] = {}
    inside = set(parameters.presets)
    for r in records:
        if r.preset in inside and parameters.first <= r.deal <= parameters.last:
            seen.setdefault((r.preset, r.deal), r)
    return list(seen.values())


def read_study(path: Path) -> StudyResults:
    """The records of a results file, each (preset, deal) once, for :func:`report`."""
    header, records, _ = _parse(path, path.read_bytes())
    return StudyResults(header.study, _unique(records, header.study))


def _open(path: Path, parameters: StudyParameters) -> tuple[IO[bytes], list[StudyRecord]]:
    """The results file opened to append (locked: one study writes it at a time), and the
    records it holds; a new or empty file gets its header, a cut last line is dropped."""
    out = path.open("a+b")
    try:
        _lock(out, path)
        out.seek(0)
        data = out.read()
        if data.rfind(b"\n") < 0:  # new, empty, or a header cut short: start afresh
            out.truncate(0)
            out.write(StudyHeader(study=parameters).model_dump_json().encode() + b"\n")
            out.flush()
            return out, []
        header, records, whole = _parse(path, data)
        differs = _difference(header.study, parameters)
        if differs is not None:
            raise StudyError(
                "study-mismatch", f"{path} holds another study ({differs}): give another file"
            )
        if whole < len(data):
            out.truncate(whole)  # the line a kill cut short: its deal is solved again
        return out, _unique(records, parameters)
    except BaseException:
        out.close()
        raise


def _lock(out: IO[bytes], path: Path) -> None:
    """One study at a time writes a file: two would count deals twice."""
    try:
        import fcntl
    except ImportError:  # not on this platform: nothing to lock with
        return
    try:
        fcntl.flock(out.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise StudyError("study-busy", f"{path}: another study is writing it") from None


# --- running -------------------------------------------------------------------------------------


class StudyProgress(Protocol):
    """What :func:`run_study` tells as it goes (the command's progress line)."""

    def resumed(self, records: list[StudyRecord], total: int) -> None: ...

    def solved(self, record: StudyRecord) -> None: ...


_Task = tuple[str, int, StudyBudget]


def run_study(
    deals: range,
    presets: Sequence[str],
    budget: StudyBudget,
    results_path: Path,
    jobs: int = 1,
    scheduler: str | None = None,
    progress: StudyProgress | None = None,
) -> StudyResults:
    """Solve every deal of ``deals`` under each preset, skipping those ``results_path`` holds
    already, and append each new record to it.

    ``jobs`` worker processes on this machine (1: in this process), or the Dask cluster whose
    scheduler is at ``scheduler`` (``tcp://HOST:PORT``). Interrupted (Ctrl+C), the file keeps
    every record written, and the next run goes on from there.

    :raises StudyError: the file holds another study, is not a results file, is being written
        by another study; ``distributed`` is not installed (``scheduler``).
    :raises KeyError: a preset that is not one.
    """
    for name in presets:
        PRESETS[name]  # an unknown preset: refused before anything is written
    parameters = StudyParameters(
        first=deals.start,
        last=deals.stop - 1,
        presets=list(presets),
        budget=budget,
        solver=solver_version(),
    )
    connect = _cluster(scheduler) if scheduler is not None else None
    out, records = _open(results_path, parameters)
    began = time.perf_counter()
    done = {(r.preset, r.deal) for r in records}
    tasks = ((p, d, budget) for p in presets for d in deals if (p, d) not in done)
    if progress is not None:
        progress.resumed(records, parameters.total())
    new: list[StudyRecord] = []

    def keep(record: StudyRecord) -> None:
        out.write(record.model_dump_json().encode() + b"\n")
        out.flush()  # a kill loses only the deals in flight
        new.append(record)
        if progress is not None:
            progress.solved(record)

    try:
        if connect is not None:
            connect(tasks, keep)
        elif jobs <= 1:
            for task in tasks:
                keep(solve_one(*task))
        else:
            _in_processes(jobs, tasks, keep)
    finally:
        out.close()
    return StudyResults(parameters, records + new, len(new), time.perf_counter() - began)


def _drain(
    submit: Callable[[_Task], Any],
    wait: Callable[[set[Any]], tuple[set[Any], set[Any]]],
    tasks: Iterator[_Task],
    slots: int,
    keep: Callable[[StudyRecord], None],
) -> set[Any]:
    """Keep ``slots`` tasks in flight, each result kept as it comes; returns what is left in
    flight (nothing, unless interrupted: then the caller cancels it)."""
    pending: set[Any] = set()
    try:
        while True:
            while len(pending) < slots:
                task = next(tasks, None)
                if task is None:
                    break
                pending.add(submit(task))
            if not pending:
                return pending
            done, pending = wait(pending)
            for future in done:
                keep(future.result())
    except BaseException:
        for future in pending:
            future.cancel()
        raise


def _quiet_worker() -> None:
    # Ctrl+C is the parent's to handle: it writes the file, then stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_processes(jobs: int, tasks: Iterator[_Task], keep: Callable[[StudyRecord], None]) -> None:
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_quiet_worker)
    try:
        _drain(
            lambda t: pool.submit(solve_one, *t),
            lambda p: _as_sets(wait_futures(p, return_when=FIRST_COMPLETED)),
            tasks,
            2 * jobs,
            keep,
        )
    except BaseException:
        # Interrupted: the deals in flight are lost anyway; do not wait up to a budget for them.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _as_sets(pair: Any) -> tuple[set[Any], set[Any]]:
    return set(pair[0]), set(pair[1])


def _cluster(address: str) -> Callable[[Iterator[_Task], Callable[[StudyRecord], None]], None]:
    """The work handed to the Dask cluster at ``address``: checked before the file is opened."""
    try:
        from distributed import Client
        from distributed import wait as wait_dask
    except ImportError:
        raise StudyError("no-cluster-support", CLUSTER_HINT) from None

    def run(tasks: Iterator[_Task], keep: Callable[[StudyRecord], None]) -> None:
        with Client(address, timeout="20s") as client:  # type: ignore[no-untyped-call]
            slots = max(1, sum(client.nthreads().values()))
            _drain(
                lambda t: client.submit(solve_one, *t, pure=False),
                lambda p: _as_sets(wait_dask(list(p), return_when="FIRST_COMPLETED")),  # type: ignore[no-untyped-call]
                tasks,
                2 * slots,
                keep,
            )

    return run


# --- the report ----------------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share of ``k`` in ``n`` (``(0, 1)`` when ``n`` is 0)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


class PresetReport(_Frozen):
    preset: str
    deals: int = Field(description="Deals with a verdict.")
    won: int
    unwinnable: int
    unknown: int
    winnability: float = Field(description="won / deals: the share proven winnable.")
    low: float = Field(
        description="95% lower bound on the winnable share: Wilson's, unknowns counted as lost."
    )
    high: float = Field(
        description="95% upper bound: Wilson's on (won + unknown) / deals, unknowns as won."
    )
    decided: float = Field(description="(won + unwinnable) / deals.")
    median_seconds: float | None = Field(description="Median solver seconds per deal.")
    slowest_seconds: float | None
    slowest_deal: int | None


class Throughput(_Frozen):
    deals: int = Field(description="Records in the results file (each (preset, deal) once).")
    solver_seconds: float = Field(description="Solver seconds of every record, added up.")
    run_deals: int = Field(description="Records this run added.")
    wall_seconds: float = Field(description="This run's time.")
    deals_per_second: float | None = Field(
        description="run_deals / wall_seconds (null when this run solved nothing)."
    )


class StudyReport(_Frozen):
    """What ``cruel study --json`` prints."""

    model_config = document_config("Cruel study report v1", "study-report")

    format: Literal["cruel-study-report/1"] = STUDY_REPORT_FORMAT
    study: StudyParameters
    complete: bool = Field(description="Every (preset, deal) of the study has a verdict.")
    presets: list[PresetReport]
    throughput: Throughput


def _preset_report(preset: str, records: list[StudyRecord]) -> PresetReport:
    n = len(records)
    won = sum(r.verdict == "won" for r in records)
    lost = sum(r.verdict == "unwinnable" for r in records)
    unknown = n - won - lost
    slowest = max(records, key=lambda r: r.seconds, default=None)
    return PresetReport(
        preset=preset,
        deals=n,
        won=won,
        unwinnable=lost,
        unknown=unknown,
        winnability=won / n if n else 0.0,
        low=wilson(won, n)[0],
        high=wilson(won + unknown, n)[1],
        decided=(won + lost) / n if n else 0.0,
        median_seconds=statistics.median(r.seconds for r in records) if n else None,
        slowest_seconds=None if slowest is None else slowest.seconds,
        slowest_deal=None if slowest is None else slowest.deal,
    )


def report(results: StudyResults) -> StudyReport:
    """The report of a study's records: per preset, the counts, the winnable share and its 95%
    interval counting the unknowns on both sides, the decided share, times; the throughput."""
    parameters = results.parameters
    by_preset = {p: [r for r in results.records if r.preset == p] for p in parameters.presets}
    run, wall = results.solved, results.wall_seconds
    return StudyReport(
        study=parameters,
        complete=len(results.records) == parameters.total(),
        presets=[_preset_report(p, rs) for p, rs in by_preset.items()],
        throughput=Throughput(
            deals=len(results.records),
            solver_seconds=round(sum(r.seconds for r in results.records), 4),
            run_deals=run,
            wall_seconds=round(wall, 4),
            deals_per_second=run / wall if run and wall > 0 else None,
        ),
    )


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def report_lines(rep: StudyReport) -> list[str]:
    """The report as text (``cruel study`` without ``--json``)."""
    s = rep.study
    lines = [f"study of deals {s.first}-{s.last}, budget per deal {s.budget.words()} ({s.solver})"]
    for p in rep.presets:
        lines.append(
            f"{p.preset}: {p.deals} deals: {p.won} won, {p.unwinnable} unwinnable, "
            f"{p.unknown} unknown; decided {_pct(p.decided)}"
        )
        lines.append(
            f"  winnable {_pct(p.winnability)}, 95% interval {_pct(p.low)} - {_pct(p.high)} "
            "(unknowns counted as lost, then as won)"
        )
        if p.median_seconds is not None:
            lines.append(
                f"  seconds per deal: median {p.median_seconds:.3f}, "
                f"slowest {p.slowest_seconds:.3f} (deal {p.slowest_deal})"
            )
    t = rep.throughput
    rate = "" if t.deals_per_second is None else f" ({t.deals_per_second:.1f} deals/s)"
    lines.append(
        f"this run: {t.run_deals} deals in {t.wall_seconds:.1f} s{rate}; "
        f"solver time of all {t.deals} deals {t.solver_seconds:.1f} s"
    )
    if not rep.complete:
        lines.append(f"incomplete: {t.deals} of {s.total()} (preset, deal) pairs solved")
    return lines


def plot_svg(rep: StudyReport) -> str:
    """The winnable share of each preset as a bar, its 95% interval as a whisker: a small SVG
    written here (a plotting library would be tens of megabytes for one picture)."""
    bar, gap, left, top, height = 36, 28, 48, 24, 200
    width = left + len(rep.presets) * (bar + gap) + gap

    def y(share: float) -> float:
        return round(top + height * (1 - share), 1)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 60}" '
        f'font-family="sans-serif" font-size="11">',
        "<title>Winnable share by rules preset, with its 95% interval</title>",
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left - 4}" x2="{width}" y1="{y(tick)}" y2="{y(tick)}" stroke="#ddd"/>'
            f'<text x="{left - 8}" y="{y(tick) + 4}" text-anchor="end">{tick:.0%}</text>'
        )
    for i, p in enumerate(rep.presets):
        x = left + gap + i * (bar + gap)
        mid = x + bar / 2
        parts.append(
            f'<rect x="{x}" y="{y(p.winnability)}" width="{bar}" '
            f'height="{round(height * p.winnability, 1)}" fill="#4a7ab5">'
            f"<title>{p.preset}: {_pct(p.winnability)} ({_pct(p.low)} - {_pct(p.high)})</title>"
            "</rect>"
            f'<line x1="{mid}" x2="{mid}" y1="{y(p.high)}" y2="{y(p.low)}" stroke="#000"/>'
            f'<line x1="{mid - 8}" x2="{mid + 8}" y1="{y(p.high)}" y2="{y(p.high)}" '
            'stroke="#000"/>'
            f'<line x1="{mid - 8}" x2="{mid + 8}" y1="{y(p.low)}" y2="{y(p.low)}" stroke="#000"/>'
            f'<text x="{mid}" y="{top + height + 14}" text-anchor="end" '
            f'transform="rotate(-30 {mid} {top + height + 14})">{p.preset}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
