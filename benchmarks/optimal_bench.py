"""Benchmark of the fewest-actions search (cruel_tools.search.optimal): how often it proves the optimum.

    python benchmarks/optimal_bench.py --from 1 --to 500 --step 25 --max-states 450000
    python benchmarks/optimal_bench.py --puzzles puzzles --tier expert --max-states 450000
    python benchmarks/optimal_bench.py --puzzles puzzles --ids '2027-01-0[1-4]-*'
    python benchmarks/optimal_bench.py --engines native,python --max-states 18000000 \
        --python-max-states 330000 --max-memory 3G --jobs 2 --from 1 --to 500 --step 25

``--engines native,python`` runs each deal under both engines side by side (issue #25: the native
core's beams and A*, and the Python reference), each with its own budget in positions:
``--max-states`` for the native core (or the one engine), ``--python-max-states`` for Python; a
position costs the core about 1/50 of what it costs Python, so "60 s of one core" is a different
count for each. ``--max-memory`` bounds what each search holds (1G, as ``cruel solve``).
``--jobs N`` runs N deals at once in worker processes (CPU seconds are each process's own).

Each deal (every ``--step``-th number of the range, or each puzzle of the given tier in a puzzle
set) is graded for its tier (``grading.classify``, default budget), then, if won, searched by
``optimal.optimize`` with a budget of ``--max-states`` positions (450,000 is about 60 s of one
core of the machine in benchmarks/RESULTS.md, which expands about 7,500 a second) and
``--max-seconds`` of wall time as a safety stop (default: none). Times are the process's CPU
seconds (``time.process_time``), so other work on the machine does not inflate them; deals run
one after another in one process.

Printed, per engine, per tier and for easy-hard together: won deals, the share whose optimum is proven within
the budget, median and 95th percentile time per deal (proven or not), and the median gap between
the best win found and the proven bound where it is not proven. ``--csv FILE`` writes one row per
deal.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from fnmatch import fnmatch
from pathlib import Path

from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.puzzles import load_puzzle, puzzle_files
from cruel_tools.search.grading import TIERS, classify
from cruel_tools.search.optimal import optimize
from cruel_tools.search.solver import MAX_MEMORY, parse_memory

Row = tuple[int, str, str, str, object, object, float]


def run_deal(
    number: int,
    tier: str | None,
    engines: list[str],
    budgets: dict[str, int],
    max_seconds: float | None,
    max_memory: int,
) -> list[Row]:
    """One deal: its tier (graded if not given), then ``optimize`` under each engine in turn."""
    game = Game.from_deal(deal_piles(number))
    if tier is None:
        os.environ.pop(engine.ENV, None)  # grading on the engine that runs by default
        tier = classify(game).tier
    if tier is None:
        return [(number, "not won", name, "", "", "", 0.0) for name in engines]
    rows: list[Row] = []
    for name in engines:
        os.environ[engine.ENV] = name  # read at each call: this process runs one deal at a time
        cpu = time.process_time()
        result = optimize(
            game.copy(), max_states=budgets[name], max_seconds=max_seconds, max_memory=max_memory
        )
        cpu = time.process_time() - cpu
        rows.append(
            (number, tier, name, result.verdict, result.actions, result.lower_bound, round(cpu, 2))
        )
    return rows


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=500)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--puzzles", type=Path, help="Take the deals of this puzzle set instead.")
    ap.add_argument("--tier", choices=TIERS, help="With --puzzles: only this tier.")
    ap.add_argument("--ids", default="*", help="With --puzzles: only ids matching this pattern.")
    ap.add_argument("--max-seconds", type=float, default=None)
    ap.add_argument("--max-states", type=int, default=450_000)
    ap.add_argument("--python-max-states", type=int, default=None)
    ap.add_argument("--max-memory", default=None, help="512M, 1G, ... (default 1G)")
    ap.add_argument("--engines", default=None, help="native,python: both, side by side")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print("# " + " ".join(sys.argv))
    engines = args.engines.split(",") if args.engines else [engine.engine_name()]
    budgets = {name: args.max_states for name in engines}
    if args.python_max_states is not None and "python" in budgets:
        budgets["python"] = args.python_max_states
    memory = MAX_MEMORY if args.max_memory is None else parse_memory(args.max_memory)
    if args.puzzles:
        chosen = [load_puzzle(p) for p in puzzle_files(args.puzzles)]
        items = [
            (p.deal.number, p.tier)
            for p in chosen
            if args.tier in (None, p.tier) and fnmatch(p.id, args.ids)
        ]
    else:
        items = [(n, None) for n in range(args.first, args.last + 1, args.step)]
    rows: list[Row] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(run_deal, n, t, engines, budgets, args.max_seconds, memory)
            for n, t in items
            if n is not None
        ]
        for future in futures:
            for row in future.result():
                rows.append(row)
                print(*row, sep="\t", flush=True)
    for name in engines:
        print(f"\n== engine {name}, {budgets[name]} positions a deal")
        table([r for r in rows if r[2] == name])
    if args.csv:
        with args.csv.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["deal", "tier", "engine", "verdict", "actions", "lower_bound", "seconds"])
            w.writerows(rows)


def table(rows: list[Row]) -> None:
    by_tier: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if row[1] != "not won":
            by_tier[str(row[1])].append(row)
            if row[1] != "expert":
                by_tier["easy-hard"].append(row)
    print(f"\n{len(rows)} deals, {sum(r[1] == 'not won' for r in rows)} not won (or undecided)")
    print("tier\twon\tproven\tshare\tmedian s\tp95 s\tmedian gap (unproven)")
    for tier in (*TIERS, "easy-hard"):
        group = by_tier.get(tier, [])
        if not group:
            continue
        proven = [r for r in group if r[3] == "optimal"]
        times = [float(r[6]) for r in group]
        gaps = [
            int(r[4]) - int(r[5])  # type: ignore[call-overload]
            for r in group
            if r[3] == "best-found" and r[4] is not None
        ]
        print(
            f"{tier}\t{len(group)}\t{len(proven)}\t{len(proven) / len(group):.0%}\t"
            f"{statistics.median(times):.2f}\t{p95(times):.2f}\t"
            f"{statistics.median(gaps) if gaps else '-'}"
        )


if __name__ == "__main__":
    main()
