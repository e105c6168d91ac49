"""The play page's weight and its time to a playable board, in Debian's Chromium (issues #12, #27,
#36).

Starts the service as tests/browser/conftest.py does (the committed puzzles, ``--open``, today
fixed at 2027-01-05, on a free loopback port; in a process of its own, or with ``--thread`` in a
thread of this one), then loads ``/play/{id}`` N times,
each in a fresh browser context (empty cache and storage: a first visit), and prints:

- the page weight: the uncompressed bytes of the HTML, CSS and JavaScript the page loads, and
  (issue #27) the bytes transferred for everything it loads (headers and bodies as sent, the
  service's gzip included; the puzzle's JSON and the service's day too), with each file's share;
- the time from navigation start to the ``board-ready`` performance mark (play.js sets it when
  the board accepts input), median and p95 over the N loads.

    .venv/bin/python benchmarks/web_bench.py [--runs 20] [--puzzle 2027-01-05-easy]

Targets: issue #12, weight < 150 KB, median < 300 ms; issue #27, under 80 KB transferred, the
first board drawn in under 300 ms (median); issue #36, the same at p95. To compare two trees,
run this script with ``PYTHONPATH=<tree>`` for each, in turns (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from cruel_tools.service import Settings, create_app

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CRUEL_CHROMIUM", "/usr/bin/chromium")


def serve(db: Path, **extra: Any) -> tuple[str, uvicorn.Server, threading.Thread]:
    """The service on a free loopback port, in a thread: its address, server and thread
    (``extra``: more of its Settings, e.g. ``embed_origins``)."""
    settings = Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=dt.date(2027, 1, 5),
        open=True,
        player_limit=None,
        **extra,
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server, thread


def _serve_forever(db: str, port_out: Any) -> None:
    """The child process of :func:`serve_apart`: the service until it is killed."""
    url, _server, thread = serve(Path(db))
    port_out.put(url)
    thread.join()


def serve_apart(db: Path) -> tuple[str, Any]:
    """The service in a process of its own, as ``cruel serve`` runs beside a browser: the
    benchmark's Playwright client then never holds the service's interpreter lock while a
    request waits (in one process it does: its events are Python too)."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_serve_forever, args=(str(db), queue), daemon=True)
    child.start()
    return str(queue.get(timeout=60)), child


def load_once(browser: Any, url: str, path: str) -> tuple[int, float, dict[str, int]]:
    """One first visit: (uncompressed HTML+CSS+JS bytes, ms to the board, bytes transferred
    per URL path)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=url)
    page = context.new_page()
    sizes: dict[str, int] = {}
    wire: dict[str, int] = {}

    def on_response(response: Any) -> None:
        if response.request.resource_type in ("document", "stylesheet", "script"):
            sizes[response.url] = len(response.body())

    def on_finished(request: Any) -> None:
        sent = request.sizes()
        wire[request.url.removeprefix(url)] = sent["responseBodySize"] + sent["responseHeadersSize"]

    page.on("response", on_response)
    page.on("requestfinished", on_finished)
    page.goto(path)
    page.wait_for_selector('#board[data-ready="true"]')
    page.wait_for_load_state("networkidle")
    ready = float(page.evaluate("performance.getEntriesByName('board-ready')[0].startTime"))
    context.close()
    return sum(sizes.values()), ready, wire


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--puzzle", default="2027-01-05-easy")
    parser.add_argument(
        "--thread",
        action="store_true",
        help="run the service in a thread of this process (as before issue #36) instead of "
        "a process of its own",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        if args.thread:
            url, server, thread = serve(Path(tmp) / "bench.sqlite")
        else:
            url, child = serve_apart(Path(tmp) / "bench.sqlite")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
                )
                load_once(browser, url, f"/play/{args.puzzle}")  # warm-up: not counted
                weights, times, transfers = [], [], []
                wire: dict[str, int] = {}
                for _ in range(args.runs):
                    weight, ready, wire = load_once(browser, url, f"/play/{args.puzzle}")
                    weights.append(weight)
                    times.append(ready)
                    transfers.append(sum(wire.values()))
                version = browser.version
                browser.close()
        finally:
            if args.thread:
                server.should_exit = True
                thread.join(10)
            else:
                child.terminate()
                child.join(10)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, Chromium {version}"
    )
    print(
        f"page: /play/{args.puzzle}, {args.runs} loads, each in a fresh context; the service "
        f"in {'a thread of this process' if args.thread else 'a process of its own'}"
    )
    print(
        f"page weight (HTML+CSS+JS, uncompressed): {max(weights)} bytes "
        f"({max(weights) / 1000:.1f} KB){'' if len(set(weights)) == 1 else ' (varied!)'}"
    )
    print(
        f"transferred (headers and bodies as sent, gzip): median "
        f"{statistics.median(transfers):.0f} bytes ({statistics.median(transfers) / 1000:.1f} KB), "
        f"max {max(transfers)}"
    )
    for name, n in sorted(wire.items(), key=lambda kv: -kv[1]):
        print(f"  {n:>7}  {name}")
    print(
        f"time to a playable board: median {statistics.median(times):.0f} ms, "
        f"p95 {p95:.0f} ms, min {times[0]:.0f} ms, max {times[-1]:.0f} ms"
    )


if __name__ == "__main__":
    main()
