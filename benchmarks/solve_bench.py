"""Benchmark of the exact solver over a range of deal numbers: verdicts, time per deal, speed.

    python benchmarks/solve_bench.py --from 1 --to 1000 --max-seconds 10 --jobs 2
    python benchmarks/solve_bench.py --from 1 --to 200 --max-seconds 10 --rules cruel-when-stuck
    python benchmarks/solve_bench.py --from 1 --to 200 --max-seconds 10 --csv deals.csv

Every deal number in the range (both ends included) is solved by ``cruel_tools.search.solver.solve``
under the given rules preset, with the same budget per deal: ``--max-seconds`` of solver time
and ``--max-states`` expanded positions (default: no state limit) and ``--max-memory`` per search
(default 1 GiB). The solver runs in the native core where it is built (the first lines say
which engine: ``CRUEL_ENGINE=python`` forces the Python search). Deals are handed out one at a
time to ``--jobs`` worker processes (``Pool.imap``, chunk size 1, results kept in deal order), so
each deal is solved on one core and its budget is per deal, per core. Use at most one job per
core, or the deals will share cores and the time figures will grow.

Every win is checked inside the worker by replaying its steps through the engine from the deal
(``Game.from_deal`` then ``Game.push`` for each step, then ``is_won()``); failed replays are
counted and listed, and there should be none.

Printed:
  * the machine and the exact command line;
  * won / unwinnable / unknown counts and shares, and "decided" (won + unwinnable), with 95%
    Wilson intervals for the decided share and the won share (of all deals in the range);
  * median and 95th percentile time per deal, over all deals and over decided deals only (the
    solver's own clock, ``stats.seconds``), and the wall time of the whole run;
  * states per second (sum of positions expanded / sum of solver seconds) and the median number
    of positions expanded per deal;
  * why the unwinnable deals are unwinnable (rule L, rule F, or the whole reachable space
    searched) and why the unknown ones are unknown;
  * for won deals, the median and largest number of card moves and redeals in the solution.

The time budget is checked every 256 expansions, so an ``unknown`` deal may run a little past
``--max-seconds``. ``--csv FILE`` also writes one row per deal; ``--only-unknown FILE`` solves again only the deals of
the range that such a file left unknown (say with a larger budget).
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing
import os
import platform
import shlex
import statistics
import sys
import time
from collections import Counter
from dataclasses import astuple, dataclass, fields
from functools import partial
from pathlib import Path

from cruel_tools.game import engine
from cruel_tools.game.deals import MAX_DEAL_NUMBER, deal_piles
from cruel_tools.game.game import Game, IllegalMove
from cruel_tools.game.rules import PRESETS
from cruel_tools.search.solver import MAX_MEMORY, memory_size, parse_memory, solve
from cruel_tools.search.study import wilson  # the one Wilson interval: cruel study's

NO_STATE_LIMIT = sys.maxsize  # "no limit": the solver compares against an int


@dataclass
class DealResult:
    """One row of the results (and of the CSV file)."""

    number: int
    verdict: str
    seconds: float
    expanded: int
    unique: int
    pruned: int
    moves: int | None  # card moves in the solution (won deals only)
    redeals: int | None  # redeals in the solution (won deals only)
    reason: str
    replay_error: str = ""  # non-empty when a win did not replay to a won game


def solve_deal(
    number: int, rules_name: str, max_states: int, max_seconds: float, max_memory: int = MAX_MEMORY
) -> DealResult:
    """Solve one deal in a worker and replay its solution, if any, through the engine."""
    rules = PRESETS[rules_name]
    piles = deal_piles(number, rules)
    result = solve(
        Game.from_deal(piles, rules),
        max_states=max_states,
        max_seconds=max_seconds,
        max_memory=max_memory,
    )
    st = result.stats
    won = result.verdict == "won"
    replay_error = ""
    if won:
        g = Game.from_deal(piles, rules)
        try:
            for i, step in enumerate(result.steps):
                try:
                    g.push(step)
                except IllegalMove as exc:
                    replay_error = f"step {i + 1} of {len(result.steps)} illegal: {exc}"
                    break
            else:
                if not g.is_won():
                    replay_error = f"replay ends with {g.foundation_cards} foundation cards, not 52"
        except Exception as exc:  # any crash in the replay is a failure to report, not to hide
            replay_error = f"replay raised {type(exc).__name__}: {exc}"
    return DealResult(
        number=number,
        verdict=result.verdict,
        seconds=st.seconds,
        expanded=st.expanded,
        unique=st.unique,
        pruned=st.pruned,
        moves=result.solution_moves if won else None,
        redeals=result.solution_redeals if won else None,
        reason=result.reason,
        replay_error=replay_error,
    )


# --- statistics ----------------------------------------------------------------------------------


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``xs`` by linear interpolation between closest ranks."""
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def reason_kind(reason: str) -> str:
    """A reason without the card it names, so that reasons can be counted."""
    if "(rule L)" in reason:
        return "rule L (a card in pile 1 can never leave)"
    if "rule F)" in reason:
        if reason.startswith("48 cards"):
            return "rule F, every card (no card can move at the deal)"
        return "rule F (a frozen set of cards, fewer than 48)"
    if "rule V)" in reason:
        return "rule V (a stuck set of cards after the last redeal)"
    if reason.startswith("time budget"):
        return "time budget spent"
    if reason.startswith("state budget"):
        return "state budget spent"
    if reason.startswith("memory budget"):
        return "memory budget spent"
    return reason or "(none given)"


# --- output --------------------------------------------------------------------------------------


def _share(k: int, n: int) -> str:
    return f"{k:6d}  {100 * k / n:5.1f}%" if n else f"{k:6d}      -"


def _ci(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"95% CI {100 * lo:5.1f}% - {100 * hi:5.1f}%"


def _times(label: str, xs: list[float]) -> str:
    if not xs:
        return f"  {label:34s} {'-':>9s} {'-':>9s} {0:6d}"
    return f"  {label:34s} {statistics.median(xs):9.3f} {percentile(xs, 0.95):9.3f} {len(xs):6d}"


def _machine() -> str:
    cores = os.cpu_count()
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        usable = cores
    proc = platform.processor() or platform.machine()
    return (
        f"{platform.platform()}, {proc}, {cores} cores ({usable} usable), "
        f"{platform.python_implementation()} {platform.python_version()}"
    )


def report(results: list[DealResult], args: argparse.Namespace, wall: float) -> None:
    n = len(results)
    by = Counter(r.verdict for r in results)
    won, lost, unknown = by["won"], by["unwinnable"], by["unknown"]
    decided = won + lost
    states = "none" if args.max_states == NO_STATE_LIMIT else f"{args.max_states:,}"

    print(f"machine: {_machine()}")
    print(f"command: {shlex.join(sys.orig_argv)}")
    print(engine.engine_line())
    if args.only_unknown:
        print(f"only the deals {args.only_unknown} left unknown")
    print(
        f"deals {args.first}-{args.last} ({n}), rules {args.rules}, budget per deal: "
        f"{args.max_seconds} s, states {states}, memory {memory_size(args.max_memory)}; "
        f"{args.jobs} worker process(es)"
    )
    print()
    print(f"{'verdict':12s} {'deals':>6s}  {'share':>6s}")
    print(f"{'won':12s} {_share(won, n)}  {_ci(won, n)}")
    print(f"{'unwinnable':12s} {_share(lost, n)}")
    print(f"{'unknown':12s} {_share(unknown, n)}")
    print(f"{'decided':12s} {_share(decided, n)}  {_ci(decided, n)}")
    print()

    all_t = [r.seconds for r in results]
    dec_t = [r.seconds for r in results if r.verdict != "unknown"]
    print(f"  {'time per deal (s)':34s} {'median':>9s} {'p95':>9s} {'deals':>6s}")
    print(_times("all deals", all_t))
    print(_times("decided deals", dec_t))
    for verdict in ("won", "unwinnable", "unknown"):
        print(_times(f"  {verdict}", [r.seconds for r in results if r.verdict == verdict]))
    print(
        f"total wall time {wall:.1f} s; solver time {sum(all_t):.1f} s "
        f"({sum(all_t) / wall:.2f} cores busy on average)"
    )
    print()

    expanded = sum(r.expanded for r in results)
    secs = sum(all_t)
    rate = expanded / secs if secs else float("nan")
    print(
        f"states: {expanded:,} expanded, {rate:,.0f} per second "
        f"(sum expanded / sum solver seconds); median per deal {statistics.median(r.expanded for r in results):,.0f}"
    )
    if dec_t:
        med_dec = statistics.median(r.expanded for r in results if r.verdict != "unknown")
        print(f"        median expanded per decided deal {med_dec:,.0f}")
    print(
        f"        unique positions {sum(r.unique for r in results):,}, "
        f"pruned by rules L, F and V {sum(r.pruned for r in results):,}"
    )
    print()

    for verdict in ("unwinnable", "unknown"):
        kinds = Counter(reason_kind(r.reason) for r in results if r.verdict == verdict)
        if kinds:
            print(f"{verdict} reasons:")
            for kind, k in kinds.most_common():
                print(f"  {k:6d}  {kind}")
            print()

    wins = [r for r in results if r.verdict == "won"]
    if wins:
        mv = [r.moves or 0 for r in wins]
        rd = [r.redeals or 0 for r in wins]
        print(f"won solutions ({len(wins)}):   {'median':>7s} {'max':>5s}")
        print(f"  card moves           {statistics.median(mv):7.1f} {max(mv):5d}")
        print(f"  redeals              {statistics.median(rd):7.1f} {max(rd):5d}")
    else:
        print("won solutions: none")
    failures = [r for r in results if r.replay_error]
    print(
        f"replay check: {len(wins) - len(failures)} of {len(wins)} wins replay to a won game; "
        f"{len(failures)} failure(s)"
    )
    for r in failures:
        print(f"  deal {r.number}: {r.replay_error}")


def write_csv(path: Path, results: list[DealResult]) -> None:
    names = [f.name for f in fields(DealResult)]
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        for r in results:
            row = list(astuple(r))
            row[names.index("seconds")] = f"{r.seconds:.4f}"
            w.writerow(["" if v is None else v for v in row])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--from", dest="first", type=int, default=1, help="first deal number")
    ap.add_argument("--to", dest="last", type=int, default=1000, help="last deal number (included)")
    ap.add_argument("--max-seconds", type=float, default=10.0, help="solver seconds per deal")
    ap.add_argument(
        "--max-states",
        type=int,
        default=NO_STATE_LIMIT,
        help="positions expanded per deal (default: no limit)",
    )
    ap.add_argument(
        "--max-memory",
        type=parse_memory,
        default=MAX_MEMORY,
        help="memory per search (512M, 1G or bytes; default 1G)",
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (at most one per core)")
    ap.add_argument("--rules", default="cruel", choices=list(PRESETS), help="rules preset")
    ap.add_argument("--csv", type=Path, help="also write one row per deal to this file")
    ap.add_argument(
        "--only-unknown",
        type=Path,
        metavar="CSV",
        help="solve only the deals of the range that this earlier --csv file left unknown",
    )
    args = ap.parse_args()
    if not 0 <= args.first <= args.last <= MAX_DEAL_NUMBER:
        ap.error(f"need 0 <= --from <= --to <= {MAX_DEAL_NUMBER}")
    if args.jobs < 1 or args.max_seconds <= 0 or args.max_states < 1:
        ap.error("--jobs, --max-seconds and --max-states must be positive")

    numbers: range | list[int] = range(args.first, args.last + 1)
    if args.only_unknown:
        with args.only_unknown.open(newline="") as fh:
            unknown = {
                int(row["number"]) for row in csv.DictReader(fh) if row["verdict"] == "unknown"
            }
        numbers = [n for n in numbers if n in unknown]
        if not numbers:
            ap.error(f"{args.only_unknown} leaves no deal of the range unknown")
    work = partial(
        solve_deal,
        rules_name=args.rules,
        max_states=args.max_states,
        max_seconds=args.max_seconds,
        max_memory=args.max_memory,
    )
    results: list[DealResult] = []
    counts: Counter[str] = Counter()
    began = time.perf_counter()
    with multiprocessing.Pool(args.jobs) as pool:
        for r in pool.imap(work, numbers, chunksize=1):
            results.append(r)
            counts[r.verdict] += 1
            print(
                f"\r  {len(results)}/{len(numbers)} deals: {counts['won']} won, "
                f"{counts['unwinnable']} unwinnable, {counts['unknown']} unknown "
                f"({time.perf_counter() - began:.0f} s)",
                end="",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - began
    print(file=sys.stderr)

    report(results, args, wall)
    if args.csv:
        write_csv(args.csv, results)
        print(f"wrote {len(results)} rows to {args.csv}")


if __name__ == "__main__":
    main()
