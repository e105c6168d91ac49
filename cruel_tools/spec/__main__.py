"""``python -m cruel_tools.spec generate|check [--spec DIR] [--out DIR]``.

``generate`` writes the files made from the spec (:data:`~cruel_tools.spec.generate.OUTPUTS`:
``native/spec.hpp``, ``web/spec.js``) into the package folder, or into ``--out``; ``check``
exits 1, naming each stale file with the start of its diff, when any differs from what the spec
gives. ``--spec`` reads another spec folder than the package's own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .data import FOLDER, load
from .generate import PACKAGE, stale, write

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit status."""
    parser = argparse.ArgumentParser(prog="python -m cruel_tools.spec", description=__doc__)
    parser.add_argument("command", choices=["generate", "check"])
    parser.add_argument("--spec", type=Path, default=FOLDER, help="the spec folder")
    parser.add_argument("--out", type=Path, default=PACKAGE, help="the package folder to write")
    args = parser.parse_args(argv)
    spec = load(args.spec)
    if args.command == "generate":
        for path in write(spec, args.out):
            print(f"wrote {path}")
        return 0
    problems = stale(spec, args.out)
    for problem in problems:
        print(problem)
    if problems:
        print("run: python -m cruel_tools.spec generate", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
