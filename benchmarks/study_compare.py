"""Two ``cruel study`` results files of the same deals side by side: before and after a solver
change (issue #38, benchmarks/RESULTS.md "issue #38: deciding").

    python benchmarks/study_compare.py before.jsonl after.jsonl [--preset cruel]

Prints, for each file, the verdict counts, the decided share, the median, 99th percentile and
slowest solver seconds per deal; then deal by deal: the deals one decided and the other did not,
and any contradiction (won in one, unwinnable in the other: a bug in a solver, exit 1). Each
win in either file is replayed through the engine (``--no-replay`` skips it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.log import parse_compact
from cruel_tools.game.rules import PRESETS
from cruel_tools.search.study import StudyRecord, read_study


def _records(path: Path, preset: str) -> dict[int, StudyRecord]:
    return {r.deal: r for r in read_study(path).records if r.preset == preset}


def _replays(preset: str, record: StudyRecord) -> bool:
    rules = PRESETS[preset]
    game = Game.from_deal(deal_piles(record.deal, rules), rules)
    for text in record.solution or []:
        game.push(parse_compact(text))
    return game.is_won()


def _summary(name: str, records: dict[int, StudyRecord]) -> str:
    counts = {v: sum(r.verdict == v for r in records.values()) for v in ("won", "unwinnable")}
    unknown = len(records) - sum(counts.values())
    seconds = sorted(r.seconds for r in records.values())
    slowest = max(records.values(), key=lambda r: r.seconds)
    p99 = seconds[int(0.99 * (len(seconds) - 1))]
    return (
        f"| {name} | {len(records):,} | {counts['won']:,} | {counts['unwinnable']:,} | "
        f"{unknown:,} | {100 * (1 - unknown / len(records)):.2f}% | "
        f"{statistics.median(seconds):.3f} s | {p99:.3f} s | {slowest.seconds:.1f} s "
        f"(deal {slowest.deal}) |"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--preset", default="cruel")
    ap.add_argument("--no-replay", action="store_true")
    args = ap.parse_args(argv)
    before, after = _records(args.before, args.preset), _records(args.after, args.preset)
    print("| study | deals | won | unwinnable | unknown | decided | median | p99 | slowest |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(_summary(f"before ({args.before.name})", before))
    print(_summary(f"after ({args.after.name})", after))
    common = sorted(before.keys() & after.keys())
    clash = [d for d in common if {before[d].verdict, after[d].verdict} == {"won", "unwinnable"}]
    newly = [d for d in common if before[d].verdict == "unknown" != after[d].verdict]
    lost = [d for d in common if after[d].verdict == "unknown" != before[d].verdict]
    print(f"\n{len(common):,} deals in both")
    print(f"decided after, not before: {len(newly)}: {' '.join(map(str, newly))}")
    print(f"decided before, not after: {len(lost)}: {' '.join(map(str, lost))}")
    still = [d for d in common if before[d].verdict == after[d].verdict == "unknown"]
    print(f"undecided in both: {len(still)}: {' '.join(map(str, still))}")
    print(f"contradictions (won against unwinnable): {len(clash)} {clash}")
    bad = []
    if not args.no_replay:
        for records in (before, after):
            bad += [
                r.deal
                for r in records.values()
                if r.verdict == "won" and not _replays(args.preset, r)
            ]
        print(f"wins replayed through the engine: {'all won' if not bad else f'NOT WON: {bad}'}")
    return 1 if clash or bad else 0


if __name__ == "__main__":
    sys.exit(main())
