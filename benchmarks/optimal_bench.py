"""Benchmark of the fewest-actions search (cruel_tools.optimal): how often it proves the optimum.

    python benchmarks/optimal_bench.py --from 1 --to 500 --step 25 --max-states 450000
    python benchmarks/optimal_bench.py --puzzles puzzles --tier expert --max-states 450000
    python benchmarks/optimal_bench.py --puzzles puzzles --ids '2027-01-0[1-4]-*'

Each deal (every ``--step``-th number of the range, or each puzzle of the given tier in a puzzle
set) is graded for its tier (``grading.classify``, default budget), then, if won, searched by
``optimal.optimize`` with a budget of ``--max-states`` positions (450,000 is about 60 s of one
core of the machine in benchmarks/RESULTS.md, which expands about 7,500 a second) and
``--max-seconds`` of wall time as a safety stop (default: none). Times are the process's CPU
seconds (``time.process_time``), so other work on the machine does not inflate them; deals run
one after another in one process.

Printed, per tier and for easy-hard together: won deals, the share whose optimum is proven within
the budget, median and 95th percentile time per deal (proven or not), and the median gap between
the best win found and the proven bound where it is not proven. ``--csv FILE`` writes one row per
deal.
"""

from __future__ import annotations

import argparse
import csv
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from cruel_tools.deals import deal_piles
from cruel_tools.game import Game
from cruel_tools.grading import TIERS, classify
from cruel_tools.optimal import optimize
from cruel_tools.puzzles import load_puzzle, puzzle_files


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
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print("# " + " ".join(sys.argv))
    if args.puzzles:
        chosen = [load_puzzle(p) for p in puzzle_files(args.puzzles)]
        items = [(p.deal.number, p.tier) for p in chosen if args.tier in (None, p.tier)]
    else:
        items = [(n, None) for n in range(args.first, args.last + 1, args.step)]
    rows = []
    for number, tier in items:
        assert number is not None
        game = Game.from_deal(deal_piles(number))
        if tier is None:
            tier = classify(game).tier
        if tier is None:
            rows.append((number, "not won", "", "", "", 0.0))
            continue
        cpu = time.process_time()
        result = optimize(game, max_states=args.max_states, max_seconds=args.max_seconds)
        cpu = time.process_time() - cpu
        rows.append(
            (
                number,
                tier,
                result.verdict,
                result.actions,
                result.lower_bound,
                round(cpu, 2),
            )
        )
        print(*rows[-1], sep="\t", flush=True)
    by_tier: dict[str, list[tuple]] = defaultdict(list)
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
        proven = [r for r in group if r[2] == "optimal"]
        times = [float(r[5]) for r in group]
        gaps = [r[3] - r[4] for r in group if r[2] == "best-found" and r[3] is not None]
        print(
            f"{tier}\t{len(group)}\t{len(proven)}\t{len(proven) / len(group):.0%}\t"
            f"{statistics.median(times):.1f}\t{p95(times):.1f}\t"
            f"{statistics.median(gaps) if gaps else '-'}"
        )
    if args.csv:
        with args.csv.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["deal", "tier", "verdict", "actions", "lower_bound", "seconds"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
