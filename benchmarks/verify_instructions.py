"""Instructions per verified log, counted by valgrind: a figure the machine's noise cannot move.

    python benchmarks/verify_instructions.py --compare REV    # needs valgrind (apt-get install valgrind)

On a shared 2-core VM the same timing varies by 2x from minute to minute; the number of machine
instructions CPython executes to verify a log does not. For this tree and for git revision REV,
it runs `verify_bytes` over the first ``--logs`` logs of the fixture of ``verify_bench.py``
(build it first) under ``valgrind --tool=cachegrind``, subtracts a run that only imports and
reads the file, and prints instructions per log for parsing alone (``log.load``) and for the
whole of ``verify_bytes`` (parse, play, report).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from verify_bench import HERE, _tree_of

STAGES = """
import sys
from cruel_tools import log
from cruel_tools.game.verify import verify_bytes
lines = open(sys.argv[2], "rb").read().splitlines()[: int(sys.argv[3])]
stage = sys.argv[1]
if stage == "load":
    for line in lines:
        log.load(line)
elif stage == "verify_bytes":
    for line in lines:
        verify_bytes(line)
"""


def instructions(tree: Path, stage: str, data: Path, logs: int) -> int:
    result = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            "-c",
            STAGES,
            stage,
            str(data),
            str(logs),
        ],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    assert found, result.stderr[-500:]
    return int(found.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--compare", metavar="REV", help="also count git revision REV")
    ap.add_argument("--logs", type=int, default=300)
    ap.add_argument("--data", type=Path, default=HERE / "data" / "won-logs.jsonl")
    args = ap.parse_args()
    trees = {"this tree": HERE.parent}
    if args.compare:
        trees = {args.compare: _tree_of(args.compare), **trees}
    print(f"instructions per log ({args.logs} logs of {args.data.name}, cachegrind)")
    print(f"{'tree':>14s} {'load':>12s} {'verify_bytes':>14s}")
    for name, tree in trees.items():
        base = instructions(tree, "none", args.data, args.logs)
        row = [
            (instructions(tree, s, args.data, args.logs) - base) // args.logs
            for s in ("load", "verify_bytes")
        ]
        print(f"{name:>14s} {row[0]:12,d} {row[1]:14,d}")


if __name__ == "__main__":
    main()
