"""Calibration of the difficulty ladder: grade a range of deals and tabulate tiers and metrics.

    python benchmarks/grading_calibration.py --from 1 --to 1000 --jobs 2 [--step N] [--csv FILE]

Prints the share of each tier among the deals (and of unwinnable / undecided ones, which are
never published), then per tier the median of each metric: par actions (card moves + redeals, the
fewest found), the share of par proven optimal and the median gap between par and its proven
bound, par card moves and redeals, critical
decisions, random-player win rate, solver states. Harder tiers should have a lower random-player
win rate and more critical decisions (docs/grading.md).
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from cruel_tools.game.deals import deal_piles
from cruel_tools.puzzles import load_puzzle, puzzle_files
from cruel_tools.search.grading import TIERS, Metrics, grade


def _grade_row(number: int) -> dict[str, object]:
    g = grade(deal_piles(number), number)
    return _row(number, g.verdict, g.tier, g.metrics)


def _row(number: int, verdict: str, tier: str | None, m: Metrics | None) -> dict[str, object]:
    row: dict[str, object] = {"number": number, "verdict": verdict, "tier": tier or ""}
    if m is not None:
        row |= {
            "par_actions": m.par.actions,
            "par_optimal": int(m.par.optimal),
            "par_gap": m.par.actions - m.par.lower_bound,
            "par_moves": m.par.moves,
            "par_redeals": m.par.redeals,
            "critical": m.critical_decisions,
            "random_win_rate": m.random_win_rate,
            "solver_states": m.solver_states,
            **{k: int(v) for k, v in m.ladder.items()},
        }
    return row


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--step", type=int, default=1, help="Every N-th deal of the range.")
    ap.add_argument(
        "--puzzles",
        type=Path,
        help="Tabulate the graded puzzles of this set (their recorded metrics) instead of "
        "grading a range: every tier is then well represented, experts included.",
    )
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args()
    numbers = range(args.first, args.last + 1, args.step)
    began = time.perf_counter()
    if args.puzzles:
        chosen = [load_puzzle(p) for p in puzzle_files(args.puzzles)]
        rows = [_row(p.deal.number or 0, "won", p.tier, p.metrics) for p in chosen]
        args.first, args.last = 0, 0
    else:
        with multiprocessing.Pool(args.jobs) as pool:
            rows = list(pool.imap(_grade_row, numbers, chunksize=4))
    wall = time.perf_counter() - began
    if args.csv:
        keys = sorted(
            {k for r in rows for k in r},
            key=lambda k: list(rows[0]).index(k) if k in rows[0] else 99,
        )
        with args.csv.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    n = len(rows)
    print(
        f"machine: {platform.machine()}, {multiprocessing.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"command: {' '.join(sys.orig_argv)}")
    print(
        f"deals {args.first}-{args.last} ({n}), wall {wall:.0f} s ({wall / n:.2f} s per deal on {args.jobs} processes)"
    )
    print()
    verdicts = Counter(str(r["verdict"]) for r in rows)
    tiers = Counter(str(r["tier"]) for r in rows if r["tier"])
    print(
        "| tier | deals | share of all | share of won | par actions | par proven optimal "
        "| par - bound | par moves | par redeals | critical decisions | random win rate "
        "| solver states |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    won = verdicts["won"]
    for tier in TIERS:
        group = [r for r in rows if r["tier"] == tier]
        if not group:
            print(f"| {tier} | 0 | 0% | 0% | - | - | - | - | - | - | - | - |")
            continue

        def med(key: str, rows_: list[dict[str, object]] = group) -> float:
            return statistics.median(float(r[key]) for r in rows_)  # type: ignore[arg-type]

        print(
            f"| {tier} | {len(group)} | {100 * len(group) / n:.1f}% | {100 * len(group) / won:.1f}% "
            f"| {med('par_actions'):.0f} "
            f"| {100 * sum(int(r['par_optimal']) for r in group) / len(group):.0f}% "  # type: ignore[call-overload]
            f"| {med('par_gap'):.0f} "
            f"| {med('par_moves'):.0f} | {med('par_redeals'):.0f} | {med('critical'):.0f} "
            f"| {med('random_win_rate'):.3f} | {med('solver_states'):.0f} |"
        )
    print(
        f"| (unwinnable) | {verdicts['unwinnable']} | {100 * verdicts['unwinnable'] / n:.1f}% | | | | | | | | | |"
    )
    print(
        f"| (undecided) | {verdicts['unknown']} | {100 * verdicts['unknown'] / n:.1f}% | | | | | | | | | |"
    )
    print()
    print("means, to see past zero medians:")
    for tier in TIERS:
        group = [r for r in rows if r["tier"] == tier]
        if group:
            mean_rate = statistics.mean(float(r["random_win_rate"]) for r in group)  # type: ignore[arg-type]
            mean_crit = statistics.mean(float(r["critical"]) for r in group)  # type: ignore[arg-type]
            print(
                f"  {tier:7s} random win rate {mean_rate:.3f}, critical decisions {mean_crit:.1f}"
            )
    print(f"tiers among won deals: {dict(tiers)}")


if __name__ == "__main__":
    main()
