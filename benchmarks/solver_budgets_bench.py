"""Benchmark of the solver's budgets under ``--optimal`` on every preset (issue #33, finding 7).

    python benchmarks/solver_budgets_bench.py --deal 12 --max-seconds 10 --max-memory 8M
    python benchmarks/solver_budgets_bench.py --presets royal-family-pysolfc --repeat 3

Runs ``cruel solve DEAL --rules PRESET --optimal`` with the given budgets as a child process for
each preset (``cruel rules`` lists them), and prints per preset the median wall time, the
median CPU seconds and peak resident memory of the child (``os.wait4``'s ``ru_maxrss``: the whole process,
Python and its imports included) and the verdict line. ``--max-states`` defaults to 10**9, so
that only the time and the memory budgets can stop the search. A budget is kept when the wall
time stays near ``--max-seconds`` (start-up and the last poll add a little) and the peak near
the process's size at start plus ``--max-memory``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRUEL = ROOT / ".venv" / "bin" / "cruel"


def run_once(args: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak RSS in MB and the first line of stdout of one ``cruel``
    run."""
    began = time.perf_counter()
    proc = subprocess.Popen(
        [str(CRUEL), *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4
    wall = time.perf_counter() - began
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss // 1024, (out.splitlines() or [""])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deal", type=int, default=12)
    parser.add_argument("--presets", default="", help="comma-separated (default: every preset)")
    parser.add_argument("--max-seconds", default="10")
    parser.add_argument("--max-memory", default="8M")
    parser.add_argument("--max-states", default=str(10**9))
    parser.add_argument("--repeat", type=int, default=1)
    opts = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from cruel_tools.game import rules

    presets = [p for p in opts.presets.split(",") if p] or list(rules.PRESETS)
    print(
        f"deal {opts.deal}, --max-seconds {opts.max_seconds} --max-memory {opts.max_memory}"
        f" --max-states {opts.max_states}, median of {opts.repeat}"
    )
    print(f"{'preset':22} {'wall s':>7} {'CPU s':>6} {'peak MB':>8}  verdict")
    for preset in presets:
        args = [
            "solve", str(opts.deal), "--rules", preset, "--optimal",
            "--max-seconds", opts.max_seconds, "--max-memory", opts.max_memory,
            "--max-states", opts.max_states,
        ]  # fmt: skip
        runs = [run_once(args) for _ in range(opts.repeat)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        peak = statistics.median(r[2] for r in runs)
        verdict = runs[-1][3].split(": ", 1)[-1][:60]
        print(f"{preset:22} {wall:7.2f} {cpu:6.2f} {peak:8.0f}  {verdict}", flush=True)


if __name__ == "__main__":
    main()
