"""Benchmark of ``cruel verify``: logs per second and microseconds per move, end to end.

    python benchmarks/verify_bench.py                 # 2,000 winning logs, 7 timed runs
    python benchmarks/verify_bench.py --compare REV   # and git revision REV, side by side

With ``--compare``, REV's ``cruel_tools`` is exported to a temporary folder and both trees are
measured in fresh processes, alternating (``--rounds``, default 3), so both see the same machine
at the same moments; each figure is the median over the rounds of the medians of the runs.

The first run builds the fixture ``benchmarks/data/won-logs.jsonl`` (deterministic; about two
minutes on 2 cores): deal numbers from 1 up are solved by the best-first search of cruel_tools.search.solver (`search`, 20,000 states), and each
win is written 24 times, once per relabelling of the suits (the rules do not care which suit is
which, so every relabelled log is a different, equally long winning game). Each log is checked by
the verifier before it is written.

Timed (median of the runs, one process unless said):
  * end to end: read the JSONL file, parse, validate, replay, build every report;
  * the same plus rendering each JSON report, as ``cruel verify --json`` does, in one process
    and in ``--jobs 2`` worker processes (on a 2-core machine that is per core x 2 at best);
  * replay alone on already parsed logs, to show where the time goes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from cruel_tools.game import cards, log
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Move
from cruel_tools.game.verify import verify_bytes
from cruel_tools.search.solver import search

HERE = Path(__file__).parent
PERMUTATIONS = list(itertools.permutations(range(4)))


def _solve(number: int) -> tuple[int, list[Move | object]] | None:
    result = search(Game.from_deal(deal_piles(number)), max_states=20_000)
    return (number, result.steps) if result.verdict == "won" else None


def _relabel(card: int, perm: tuple[int, ...]) -> int:
    return perm[card // 13] * 13 + card % 13


def _logs_for(number: int, steps: list) -> list[bytes]:  # type: ignore[type-arg]
    piles = deal_piles(number)
    game = Game.from_deal(piles)
    entries = []
    for step in steps:
        moving = game.piles[step.source - 1][-step.count] if isinstance(step, Move) else None
        entries.append((step, moving))
        game.push(step)
    out = []
    for perm in PERMUTATIONS:
        moves = [log.step_entry(s, None if c is None else _relabel(c, perm)) for s, c in entries]
        doc = {
            "format": "cruel-log/1",
            "rules": "cruel",
            "deal": {"piles": [[cards.name(_relabel(c, perm)) for c in p] for p in piles]},
            "moves": moves,
            "claim": {
                "outcome": "won",
                "foundation_cards": 52,
                "moves": game.moves,
                "redeals": game.redeals,
            },
            "meta": {
                "player": "bench",
                "source_deal": number,
                "suits": "".join("SHDC"[i] for i in perm),
            },
        }
        if perm == (0, 1, 2, 3):
            doc["deal"]["number"] = number
        out.append(orjson.dumps(doc))
    return out


def build_fixture(path: Path, count: int, jobs: int) -> None:
    need = -(-count // len(PERMUTATIONS))
    print(f"building {path} ({count} logs from {need} solved deals)...", file=sys.stderr)
    wins: list[tuple[int, list]] = []  # type: ignore[type-arg]
    with multiprocessing.Pool(jobs) as pool:
        for found in pool.imap(_solve, itertools.count(1), chunksize=1):
            if found:
                wins.append(found)
                print(f"\r  solved {len(wins)}/{need}", end="", file=sys.stderr)
            if len(wins) >= need:
                pool.terminate()
                break
    print(file=sys.stderr)
    lines = [line for number, steps in wins for line in _logs_for(number, steps)][:count]
    for line in lines:
        report = verify_bytes(line)
        assert report.valid and report.outcome == "won", report.error
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")


def _median_time(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


LABELS = {
    "e2e": "end to end, 1 process (read+parse+replay)",
    "json1": "as `cruel verify --json`, 1 process",
    "jsonN": "as `cruel verify --json --jobs N`",
    "replay": "replay + report only (parsed logs)",
}


def measure(path: str, runs: int, jobs: int) -> dict[str, float]:
    """Median seconds of each measure over ``runs``, with the cruel_tools on sys.path."""
    from cruel_tools.game import log
    from cruel_tools.game.inputs import iter_units
    from cruel_tools.game.log import Limits
    from cruel_tools.game.verify import render_many, verify, verify_many

    limits = Limits()
    lines = Path(path).read_bytes().splitlines()

    def end_to_end() -> None:
        for report in verify_many(iter_units([path], limits), limits, jobs=1):
            assert report.valid

    def cli_json(jobs: int) -> None:
        # What `cruel verify --json --jobs N FILE` does, minus writing to stdout.
        for status, _ in render_many(iter_units([path], limits), limits, jobs, as_json=True):
            assert status == "valid"

    parsed = [log.load(line) for line in lines]

    def replay_only() -> None:
        for item in parsed:
            verify(item)

    return {
        "e2e": _median_time(end_to_end, runs),
        "json1": _median_time(lambda: cli_json(1), runs),
        "jsonN": _median_time(lambda: cli_json(jobs), runs),
        "replay": _median_time(replay_only, runs),
    }


def _tree_of(rev: str) -> Path:
    """The package source of git revision ``rev``, exported to a temporary folder."""
    out = Path(tempfile.mkdtemp(prefix=f"cruel-{rev[:12]}-"))
    archive = subprocess.run(
        ["git", "archive", rev, "cruel_tools"], cwd=HERE.parent, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def _in_tree(tree: Path, data: Path, runs: int, jobs: int) -> dict[str, float]:
    """:func:`measure` in a fresh process that imports cruel_tools from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            "--data",
            str(data),
            "--runs",
            str(runs),
            "--jobs",
            str(jobs),
        ],
        env=env,
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def _table(n: int, moves: int, columns: dict[str, dict[str, float]], jobs: int) -> None:
    names = list(columns)
    head = f"{'measure (median)':44s}" + "".join(f" {c + ' logs/s':>16s}" for c in names)
    if len(names) == 2:
        head += f" {'speed-up':>9s}"
    print(head)
    for key, label in LABELS.items():
        label = label.replace("--jobs N", f"--jobs {jobs}")
        row = f"{label:44s}" + "".join(f" {n / columns[c][key]:16,.0f}" for c in names)
        if len(names) == 2:
            row += f" {columns[names[0]][key] / columns[names[1]][key]:8.2f}x"
        print(row)
    for c in names:
        t = columns[c]
        print(
            f"{c}: {t['e2e'] / n * 1e6:.1f} us/log, {t['e2e'] / moves * 1e6:.2f} us/entry end to "
            f"end; --jobs {jobs} / 1 process = {t['json1'] / t['jsonN']:.2f}x"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--logs", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument(
        "--jobs", type=int, default=2, help="processes for the fixture and the parallel run"
    )
    ap.add_argument("--data", type=Path, default=HERE / "data" / "won-logs.jsonl")
    ap.add_argument(
        "--compare",
        metavar="REV",
        help="also measure git revision REV, in alternating processes, side by side",
    )
    ap.add_argument("--rounds", type=int, default=3, help="with --compare: alternations")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(measure(str(args.data), args.runs, args.jobs)))
        return

    if not args.data.exists() or args.data.read_bytes().count(b"\n") < args.logs:
        build_fixture(args.data, args.logs, args.jobs)
    lines = args.data.read_bytes().splitlines()[: args.logs]
    data = Path(tempfile.mkdtemp(prefix="cruel-bench-")) / "logs.jsonl"
    data.write_bytes(b"\n".join(lines) + b"\n")
    n = len(lines)
    moves = sum(len(orjson.loads(line)["moves"]) for line in lines)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} {multiprocessing.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    print(
        f"fixture: {n} winning logs, {moves} moves ({moves / n:.1f} per log), {len(b''.join(lines)) / n:.0f} bytes per log"
    )
    if args.compare is None:
        _table(n, moves, {"this tree": measure(str(data), args.runs, args.jobs)}, args.jobs)
        return
    trees = {args.compare: _tree_of(args.compare), "this tree": HERE.parent}
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for r in range(args.rounds):
        for name, tree in trees.items():
            samples[name].append(_in_tree(tree, data, args.runs, args.jobs))
            print(f"  round {r + 1}/{args.rounds}: {name} measured", file=sys.stderr)
    columns = {
        name: {k: statistics.median(s[k] for s in runs) for k in LABELS}
        for name, runs in samples.items()
    }
    _table(n, moves, columns, args.jobs)


if __name__ == "__main__":
    main()
