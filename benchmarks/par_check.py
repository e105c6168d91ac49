"""Published pars against a short-win search (issue #38).

    python benchmarks/par_check.py [--puzzles puzzles] [--width 1000000] [--jobs 2] [--out DIR]
        [--all]

Runs :func:`cruel_tools.search.short_wins.shortest_found` (beams of ``--width`` positions a
level, both rankings) on every published puzzle whose par is not proven optimal (``--all``:
every puzzle), and prints a row per puzzle: its published par, the proven bound, the best win
the search found, and whether that beats par. The beaten ones' wins are written as game logs to
``--out`` (one ``<puzzle id>.json`` each), so that the verifier confirms them::

    cruel verify --puzzles puzzles --puzzle-id 2027-02-02-expert par-check/2027-02-02-expert.json

A win shorter than a proven optimum would be a bug in one of the two searches: the script says
so and exits 1.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

from cruel_tools.game import cards
from cruel_tools.game.game import Game
from cruel_tools.puzzles import load_puzzle, puzzle_files
from cruel_tools.puzzles.files import Puzzle
from cruel_tools.search.short_wins import SHORT_WIN_WIDTH, shortest_found
from cruel_tools.search.solver import solution_log

Row = tuple[str, int, bool, int, int | None, str | None, float, dict[str, object] | None]


def _check(args: tuple[Path, int]) -> Row:
    """One puzzle: (id, par, proven, bound, best found, ranking, seconds, log of the win when it
    beats par)."""
    path, width = args
    puzzle: Puzzle = load_puzzle(path)
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    rules = puzzle.resolved_rules()
    began = time.perf_counter()
    found = shortest_found(Game.from_deal(piles, rules), width)
    seconds = time.perf_counter() - began
    par = puzzle.par
    log = None
    if found.actions is not None and found.actions < par.actions:
        meta = {"puzzle": puzzle.id, "found by": f"short-win search, width {width}"}
        log = solution_log(puzzle.deal.number, piles, rules, found.steps, meta=meta)
    return (
        puzzle.id,
        par.actions,
        par.optimal,
        par.lower_bound,
        found.actions,
        found.ranking,
        seconds,
        log,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--puzzles", type=Path, default=Path("puzzles"))
    parser.add_argument("--width", type=int, default=SHORT_WIN_WIDTH)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("par-check"))
    parser.add_argument("--all", action="store_true", help="every puzzle, proven pars too")
    args = parser.parse_args()
    paths = [p for p in puzzle_files(args.puzzles) if args.all or not load_puzzle(p).par.optimal]
    print(f"{len(paths)} puzzles, width {args.width:,}, {args.jobs} jobs", flush=True)
    began = time.perf_counter()
    with multiprocessing.Pool(args.jobs) as pool:
        rows = pool.map(_check, [(p, args.width) for p in paths], chunksize=1)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| puzzle | published par | bound | best found | ranking | par beaten | seconds |")
    print("|---|---:|---:|---:|---|---|---:|")
    wrong = 0
    for pid, par, proven, bound, best, ranking, seconds, log in rows:
        beaten = "no" if best is None or best >= par else f"yes, by {par - best}"
        if best is not None and proven and best < par:
            beaten, wrong = "BELOW THE PROVEN OPTIMUM", wrong + 1
        if log is not None:
            (args.out / f"{pid}.json").write_text(json.dumps(log, indent=1) + "\n")
        shown = "none" if best is None else str(best)
        bound_text = f"{bound} (optimal)" if proven else str(bound)
        print(
            f"| {pid} | {par} | {bound_text} | {shown} | {ranking or '-'} | {beaten} "
            f"| {seconds:.1f} |"
        )
    print(f"total {time.perf_counter() - began:.0f} s; logs of the beaten pars in {args.out}/")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
