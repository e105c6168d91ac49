"""Which default-tier tests the slow tier takes, measured: the README's test command must end in
under 5 minutes on the project's 2-core machine (issue #34), and a handful of tests of a few
seconds each took most of it.

Reads the ``--durations=0`` report of a default-tier run and writes ``tests/slow_tests.txt``:
every test whose setup, call and teardown took ``--at-least`` seconds (1.5 by default) or more,
one node id a line. tests/conftest.py marks those ``slow`` (never under ``CRUEL_ENGINE=python``:
the fallback tier keeps every test it had), so they run in ``pytest -m slow`` (`.ci/run` runs
it after the default tier) with everything they assert. One command::

    .venv/bin/python -m pytest --durations=0 > /tmp/durations.log
    .venv/bin/python benchmarks/tier_split.py /tmp/durations.log

Tests already listed stay listed (a test's time in the slow tier is not measured by the run).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

LIST = Path(__file__).resolve().parent.parent / "tests" / "slow_tests.txt"
LINE = re.compile(r"^([\d.]+)s (?:call|setup|teardown)\s+(\S+)$")
HEADER = (
    "# Tests of the default tier that the slow tier takes: each took 1.5 s or more on the 2-core\n"
    "# machine (benchmarks/tier_split.py writes this list from a --durations=0 run; issue #34).\n"
)


def durations(report: Path) -> Counter[str]:
    """Each test's seconds (setup, call and teardown together) in a ``--durations=0`` report."""
    spent: Counter[str] = Counter()
    for line in report.read_text().splitlines():
        found = LINE.match(line)
        if found:
            spent[found.group(2)] += float(found.group(1))
    return spent


def listed() -> set[str]:
    """The node ids already in the list."""
    if not LIST.exists():
        return set()
    lines = (line.strip() for line in LIST.read_text().splitlines())
    return {line for line in lines if line and not line.startswith("#")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the output of pytest --durations=0")
    parser.add_argument("--at-least", type=float, default=1.5, help="seconds (default 1.5)")
    args = parser.parse_args()
    spent = durations(args.report)
    slow = {test for test, seconds in spent.items() if seconds >= args.at_least}
    kept = sum(s for t, s in spent.items() if t not in slow)
    LIST.write_text(HEADER + "".join(f"{t}\n" for t in sorted(slow | listed())))
    print(
        f"{len(slow)} tests of {sum(spent.values()):.0f} s move {sum(spent[t] for t in slow):.0f} s "
        f"to the slow tier; {kept:.0f} s of test time stay in the default tier"
    )


if __name__ == "__main__":
    main()
