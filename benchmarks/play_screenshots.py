"""The play page's pictures for docs/web.md (issue #27): at 1280x800 (a mouse) and at 390x844
(a phone: touch, mobile), a few steps into 2027-01-05-easy so that the move list, the clock
and the last card moved show.

Starts the service as benchmarks/web_bench.py does (the committed puzzles, today fixed at
2027-01-05), in Debian's Chromium:

    .venv/bin/python benchmarks/play_screenshots.py [--out docs/img] [--steps 9]

Writes ``play-1280.png`` and ``play-390.png`` (and prints, for the phone, where the board's
lowest top card and the controls end: the whole board must be inside the 844 px).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from web_bench import CHROMIUM, ROOT, serve

PUZZLE = "2027-01-05-easy"
VIEWS = {
    "play-1280.png": {"viewport": {"width": 1280, "height": 800}},
    "play-390.png": {
        "viewport": {"width": 390, "height": 844},
        "has_touch": True,
        "is_mobile": True,
        "device_scale_factor": 2,
    },
}

#: The bottom edge of what must be seen without scrolling: every pile's top card, the
#: foundations, the toolbar.
_EXTENT = """() => {
  const tops = [...document.querySelectorAll('#board li.pile')].map((li) => {
    const cards = li.querySelectorAll('.card');
    return (cards.length ? cards[cards.length - 1] : li).getBoundingClientRect().bottom;
  });
  const found = [...document.querySelectorAll('#board .foundation')].map((f) => f.getBoundingClientRect().bottom);
  const bar = document.querySelector('.toolbar').getBoundingClientRect().bottom;
  return {board: Math.max(...tops, ...found), toolbar: bar, height: innerHeight,
          scrollWidth: document.documentElement.scrollWidth, width: innerWidth};
}"""


def play(page: Any, steps: int) -> None:
    """Play the first steps of the par solution by clicks (choosing a target when offered)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.browser.test_play import click_step, engine, solution

    game = engine([])
    for step in solution()[:steps]:
        click_step(page, game, step)
        game.push(step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--steps", type=int, default=9)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        url, server, thread = serve(Path(tmp) / "shots.sqlite")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
                )
                for name, options in VIEWS.items():
                    context = browser.new_context(
                        base_url=url, reduced_motion="reduce", locale="en-GB", **options
                    )
                    page = context.new_page()
                    page.goto(f"/play/{PUZZLE}")
                    page.wait_for_selector('#board[data-ready="true"] .board')
                    play(page, args.steps)
                    page.wait_for_timeout(300)
                    page.evaluate("window.scrollTo(0, 0)")
                    page.screenshot(path=str(args.out / name))
                    print(name, page.evaluate(_EXTENT))
                    context.close()
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)


if __name__ == "__main__":
    main()
