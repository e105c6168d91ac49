"""``cruel grade`` under a memory budget: wall time and peak memory (issue #34).

    python benchmarks/grade_memory_bench.py [--deals 17 2854689157] [--budgets default 512M]
                                            [--runs 3]

Runs ``cruel grade DEAL --max-memory SIZE -q`` (``default``: no option, half the machine's
memory) ``--runs`` times per deal and budget, each in a process of its own, and prints the median
wall time, the median peak resident set (``ru_maxrss`` of the child, from ``wait4``: this script
holds far less than the command, so its own pages at the spawn do not count) and the par line.
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

MIB = 1 << 20


def cruel() -> str:
    """The venv's ``cruel`` next to this Python, else the one on PATH."""
    here = Path(sys.executable).with_name("cruel")
    return str(here) if here.exists() else shutil.which("cruel") or "cruel"


def run_once(deal: str, budget: str) -> tuple[float, int, str]:
    """(seconds, peak bytes, par line) of one ``cruel grade``."""
    args = [cruel(), "grade", deal, "-q"]
    if budget != "default":
        args += ["--max-memory", budget]
    with tempfile.TemporaryFile() as out:
        began = time.perf_counter()
        child = subprocess.Popen(args, stdout=out)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - began
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if child.returncode != 0:
        raise SystemExit(f"cruel grade {deal} exited {child.returncode}")
    par = next((line for line in text.splitlines() if line.startswith("par: ")), "")
    return seconds, usage.ru_maxrss * 1024, par


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--deals", nargs="+", default=["17", "2854689157"])
    ap.add_argument("--budgets", nargs="+", default=["default", "512M"])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print("| deal | budget | runs | wall (median) | peak RSS (median) | par |")
    print("|---|---|---:|---:|---:|---|")
    for deal in args.deals:
        for budget in args.budgets:
            runs = [run_once(deal, budget) for _ in range(args.runs)]
            wall = statistics.median(r[0] for r in runs)
            peak = statistics.median(r[1] for r in runs)
            print(
                f"| {deal} | {budget} | {args.runs} | {wall:.1f} s | {peak / MIB:.0f} MiB "
                f"| {runs[0][2]} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
