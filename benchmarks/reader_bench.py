"""CPU time of ``cruel verify --json``'s loop on JSON Lines (the native fast path), this tree
against a git revision.

    .venv/bin/python benchmarks/reader_bench.py --compare HEAD   # 40,000 logs, 5 rounds

The loop is ``verify.render_many(inputs.iter_units([FILE]).blocks(), ..., as_json=True)``: reading
blocks of lines, the core playing them, a report per log. The fixture is samples/won.json on one
line, repeated (``--logs``). REV's ``cruel_tools`` is exported to a temporary folder with this
tree's compiled core; each round measures both trees in fresh processes, one after the other, and
again with glibc's malloc thresholds pinned (``MALLOC_MMAP_THRESHOLD_``,
``MALLOC_TRIM_THRESHOLD_``): megabyte buffers are mmapped or not as earlier frees moved the
dynamic threshold, which shifts the figures by several percent between trees whose loop is the
same code. Figures: medians over the rounds of each process's median of 3 runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

HERE = Path(__file__).parent
ROOT = HERE.parent
PINNED = {"MALLOC_MMAP_THRESHOLD_": str(8 << 20), "MALLOC_TRIM_THRESHOLD_": str(64 << 20)}


def worker(path: str) -> None:
    from cruel_tools.game.inputs import iter_units
    from cruel_tools.game.log import Limits
    from cruel_tools.game.verify import render_many

    times = []
    for _ in range(3):
        start = time.process_time()
        for _ in render_many(iter_units([path], Limits()), Limits(), 1, True):
            pass
        times.append(time.process_time() - start)
    print(statistics.median(times))


def tree_of(rev: str) -> Path:
    out = Path(tempfile.mkdtemp(prefix="cruel-reader-"))
    archive = subprocess.run(
        ["git", "archive", rev, "cruel_tools"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    for core in (ROOT / "cruel_tools").glob("_native*.so"):
        shutil.copy(core, out / "cruel_tools")
    return out


def run(tree: Path, data: Path, pinned: bool) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree), **(PINNED if pinned else {})}
    out = subprocess.run(
        [sys.executable, __file__, "--worker", str(data)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(out)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--compare", metavar="REV", default="HEAD")
    ap.add_argument("--logs", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    line = orjson.dumps(orjson.loads((ROOT / "samples" / "won.json").read_bytes())) + b"\n"
    data = Path(tempfile.mkdtemp(prefix="cruel-reader-")) / "logs.jsonl"
    data.write_bytes(line * args.logs)
    trees = {args.compare: tree_of(args.compare), "this tree": ROOT}
    cells: dict[tuple[str, bool], list[float]] = {}
    for r in range(args.rounds):
        for pinned in (False, True):
            for name, tree in trees.items():
                cells.setdefault((name, pinned), []).append(run(tree, data, pinned))
        print(f"  round {r + 1}/{args.rounds}", file=sys.stderr)
    mib = len(line) * args.logs / (1 << 20)
    print(f"{args.logs} logs of {len(line)} bytes ({mib:.0f} MiB), CPU s, medians:")
    for pinned in (False, True):
        row = {name: statistics.median(cells[(name, pinned)]) for name in trees}
        before, after = row[args.compare], row["this tree"]
        what = "malloc pinned" if pinned else "malloc as is "
        print(
            f"  {what}: {args.compare} {before:.3f}, this tree {after:.3f}, "
            f"after/before {after / before:.3f}"
        )


if __name__ == "__main__":
    main()
