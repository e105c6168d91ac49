"""How much memory the par search of each published puzzle holds (issue #34).

    python benchmarks/par_memory_scan.py [--puzzles puzzles] [--tier expert] [--jobs 1]

Grades the deal of every puzzle of the set as ``cruel daily`` does (the ladder, then par with
the default proof budget) and records the peak bytes the native A* held (the core counts them
exactly), whether par was proven optimal, and the seconds. Prints a row per deal, then the
largest peak among the proven pars and among the others: a memory budget whose search share
(``cruel_tools.memory``) is at least the first proves every par the default proves.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from pathlib import Path
from typing import Any

from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.puzzles import load_puzzle, puzzle_files
from cruel_tools.search.grading import classify, fewest_actions

MIB = 1 << 20


def _peak_of(number: int) -> tuple[int, bool, int, float]:
    """(deal, proven, peak bytes of the A*, seconds) for one deal."""
    core: Any = engine.native()  # its shortest is wrapped to read the peak it returns
    if core is None:
        raise SystemExit("the native core is needed (the Python search has no exact count)")
    peaks: list[int] = []
    real = core.shortest

    def counted(*args: Any) -> Any:
        found = real(*args)
        peaks.append(found.peak_bytes)
        return found

    core.shortest = counted
    try:
        began = time.perf_counter()
        start = Game.from_deal(deal_piles(number))
        found = classify(start)
        par, _ = fewest_actions(start, found.solutions)
        return number, par.optimal, max(peaks, default=0), time.perf_counter() - began
    finally:
        core.shortest = real


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--puzzles", type=Path, default=Path("puzzles"))
    ap.add_argument("--tier", default=None, help="Only the puzzles of this tier.")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    chosen = [load_puzzle(p) for p in puzzle_files(args.puzzles)]
    numbers = [
        p.deal.number
        for p in chosen
        if p.deal.number is not None and (args.tier is None or p.tier == args.tier)
    ]
    with multiprocessing.Pool(args.jobs) as pool:
        rows = pool.map(_peak_of, numbers, chunksize=1)
    for number, proven, peak, seconds in rows:
        print(
            f"{number}\t{'optimal' if proven else 'bound'}\t{peak / MIB:.1f} MiB\t{seconds:.1f} s"
        )
    for label, want in (("proven", True), ("not proven", False)):
        peaks = [peak for _, proven, peak, _ in rows if proven == want]
        if peaks:
            print(
                f"{label}: {len(peaks)} pars, A* peak median {statistics.median(peaks) / MIB:.1f}"
                f" MiB, largest {max(peaks) / MIB:.1f} MiB"
            )


if __name__ == "__main__":
    main()
