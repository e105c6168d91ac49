"""``<cruel-game>``'s weight and its time to a playable board on another site's page (issue
#37), in Debian's Chromium.

A host page on its own loopback port (another origin) loads ``/embed/cruel-game.js`` from the
service (started as benchmarks/web_bench.py does, listing the host with ``embed_origins``) and
holds one element; each load is a first visit (a fresh browser context). Two kinds of element:
``deal`` (a free deal, offline: no request to the API) and ``puzzle`` (``today:easy`` from the
service: ``GET /v1/health`` and the day's puzzle). Prints, for each, the bytes transferred from
the service (headers and bodies as sent, gzip) with each file's share, and the time from
navigation start to the element's ``data-ready="true"``: median and p95.

    .venv/bin/python benchmarks/embed_bench.py [--runs 30]

Targets (issue #37): the element and the engine under 60 KB compressed; the first board under
300 ms at p95 on this machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from web_bench import CHROMIUM, serve

KINDS = {"deal": 'deal="17"', "puzzle": 'puzzle="today:easy" server="{api}"'}


def host(api: dict[str, str]) -> tuple[ThreadingHTTPServer, str]:
    """A host page's origin: each path is a page with one element of the kind it names, whose
    script comes from ``api["url"]`` (set once the service, which lists this origin, runs)."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            url = api["url"]
            attrs = KINDS[self.path.strip("/")].format(api=url)
            body = (
                '<!doctype html><html><head><link rel="icon" href="data:,">'
                f'<script type="module" src="{url}/embed/cruel-game.js"></script></head>'
                f"<body><cruel-game {attrs}></cruel-game></body></html>"
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def load_once(browser: Any, page_url: str, api: str) -> tuple[float, dict[str, int]]:
    """One first visit: ms to the element's board, bytes transferred from the service by path."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    wire: dict[str, int] = {}

    def on_finished(request: Any) -> None:
        if request.url.startswith(api):
            sent = request.sizes()
            wire[request.url.removeprefix(api)] = (
                sent["responseBodySize"] + sent["responseHeadersSize"]
            )

    page.on("requestfinished", on_finished)
    page.goto(page_url)
    page.wait_for_selector("cruel-game[data-ready=true]")
    ready = float(page.evaluate("performance.getEntriesByName('cruel-game-ready')[0].startTime"))
    page.wait_for_load_state("networkidle")
    context.close()
    return ready, wire


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    api: dict[str, str] = {}
    httpd, origin = host(api)
    with tempfile.TemporaryDirectory() as tmp:
        api["url"], server, thread = serve(Path(tmp) / "bench.sqlite", embed_origins=(origin,))
        try:
            results = measure(args.runs, api["url"], origin, sync_playwright)
        finally:
            httpd.shutdown()
            server.should_exit = True
            thread.join(10)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    for kind, (times, wire) in results.items():
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(f"<cruel-game {KINDS[kind].format(api='…')}>: {len(times)} loads, each a first visit")
        print(f"  from the service (gzip, headers and bodies): {sum(wire.values())} bytes")
        for name, n in sorted(wire.items(), key=lambda kv: -kv[1]):
            print(f"    {n:>7}  {name}")
        print(
            f"  time to a playable board: median {statistics.median(times):.0f} ms, "
            f"p95 {p95:.0f} ms, min {times[0]:.0f} ms, max {times[-1]:.0f} ms"
        )


def measure(runs: int, api: str, origin: str, sync_playwright: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        for kind in KINDS:
            load_once(browser, f"{origin}/{kind}", api)  # warm-up: not counted
            times, wire = [], {}
            for _ in range(runs):
                ready, wire = load_once(browser, f"{origin}/{kind}", api)
                times.append(ready)
            out[kind] = (times, wire)
        browser.close()
    return out


if __name__ == "__main__":
    main()
