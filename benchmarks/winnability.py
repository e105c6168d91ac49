"""Summarise winnability studies written by ``solve_bench.py --csv`` as Markdown for docs/.

    python benchmarks/solve_bench.py --from 1 --to 10000 --max-seconds 2 --jobs 2 \\
        --rules cruel-when-stuck --csv benchmarks/data/study-when-stuck.csv
    python benchmarks/winnability.py benchmarks/data/study-when-stuck.csv [more.csv ...]
    python benchmarks/winnability.py --crosscheck study-cruel.csv study-when-stuck.csv

For each CSV: the won, unwinnable and unknown shares with 95% Wilson intervals, the bounds the
undecided deals leave on the winnable share, and the distributions of solution lengths (card
moves) and redeals among the wins. Solutions are the solver's first, not the shortest.
"""

from __future__ import annotations

import csv
import statistics
import sys
from collections import Counter
from pathlib import Path

from solve_bench import wilson  # type: ignore[import-not-found]


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def histogram(values: list[int], width: int) -> list[str]:
    """Rows ``lo–hi | count | share`` in bins of ``width``."""
    counts = Counter(v // width for v in values)
    rows = []
    for b in sorted(counts):
        lo, hi = b * width, b * width + width - 1
        rows.append(f"| {lo}–{hi} | {counts[b]} | {pct(counts[b] / len(values))} |")
    return rows


def summary(path: Path) -> list[str]:
    rows = list(csv.DictReader(path.open()))
    n = len(rows)
    by = Counter(r["verdict"] for r in rows)
    won, lost, unknown = by["won"], by["unwinnable"], by["unknown"]
    numbers = [int(r["number"]) for r in rows]
    lines = [
        f"### {path.name}: deals {min(numbers)}–{max(numbers)} ({n} deals)",
        "",
        "| verdict | deals | share | 95% CI |",
        "|---|---:|---:|---|",
    ]
    for name, k in (("won", won), ("unwinnable", lost), ("unknown", unknown)):
        lo, hi = wilson(k, n)
        lines.append(f"| {name} | {k} | {pct(k / n)} | {pct(lo)} – {pct(hi)} |")
    lo_w, _ = wilson(won, n)
    _, hi_w = wilson(won + unknown, n)
    lines += [
        "",
        f"Winnable share: at least {pct(won / n)} (proven wins) and at most "
        f"{pct((won + unknown) / n)} (if every undecided deal were winnable); with sampling "
        f"error, between {pct(lo_w)} and {pct(hi_w)} at 95%.",
        "",
    ]
    reasons = Counter(
        "rule L"
        if "rule L" in r["reason"]
        else "rule F"
        if "rule F" in r["reason"]
        else "search exhausted"
        for r in rows
        if r["verdict"] == "unwinnable"
    )
    if reasons:
        lines.append(
            "Unwinnable by: "
            + ", ".join(f"{k} {v} ({pct(v / n)} of all deals)" for k, v in reasons.most_common())
            + "."
        )
        lines.append("")
    wins = [r for r in rows if r["verdict"] == "won"]
    if wins:
        moves = [int(r["moves"]) for r in wins]
        redeals = [int(r["redeals"]) for r in wins]
        lines += [
            f"Solutions found (not shortest): card moves median {statistics.median(moves):.0f}, "
            f"range {min(moves)}–{max(moves)}; redeals median {statistics.median(redeals):.0f}, "
            f"range {min(redeals)}–{max(redeals)}.",
            "",
            "| card moves | wins | share |",
            "|---|---:|---:|",
            *histogram(moves, 10),
            "",
            "| redeals | wins | share |",
            "|---|---:|---:|",
            *histogram(redeals, 5),
            "",
        ]
    return lines


def crosscheck(full: Path, narrow: Path) -> list[str]:
    """Soundness check between a study under ``cruel`` and one under ``cruel-when-stuck``.

    Every game that redeals only when stuck is a legal ``cruel`` game, so a deal won under
    ``cruel-when-stuck`` must not be ``unwinnable`` under ``cruel``.
    """
    a = {r["number"]: r["verdict"] for r in csv.DictReader(full.open())}
    b = {r["number"]: r["verdict"] for r in csv.DictReader(narrow.open())}
    both = sorted(set(a) & set(b), key=int)
    bad = [n for n in both if b[n] == "won" and a[n] == "unwinnable"]
    wins_only_full = sum(1 for n in both if a[n] == "won" and b[n] == "unwinnable")
    return [
        f"Cross-check on {len(both)} deals: {len(bad)} contradictions "
        f"(deals won when redealing only when stuck but unwinnable under cruel); "
        f"{wins_only_full} deals are won under cruel although unwinnable when redealing only "
        "when stuck (an early redeal is needed).",
    ]


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    args = sys.argv[1:]
    if args[:1] == ["--crosscheck"]:
        print("\n".join(crosscheck(Path(args[1]), Path(args[2]))))
        return
    for arg in args:
        print("\n".join(summary(Path(arg))))


if __name__ == "__main__":
    main()
