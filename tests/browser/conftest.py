"""The web front end in a real browser: Playwright for Python driving Debian's Chromium.

A service (``cruel serve``'s app, on the committed puzzle set, open to submissions without a
key, its date fixed at :data:`TODAY`) runs in a thread on a free loopback port for the whole
session. Every test gets a fresh browser context (its own storage), and its page is watched:
a console error or warning, an uncaught exception or a request to another origin fails the
test at its end, so every test also checks those two promises of issue #12 (a test names what it
provokes on purpose in ``watch.allowed``).

The browser is ``/usr/bin/chromium`` (``apt-get install -y chromium``; ``.ci/run`` installs it),
launched by path: Playwright never downloads one. Without it the tests are skipped, with that
reason, unless ``CRUEL_REQUIRE_BROWSER`` is set (CI), where they fail instead.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from cruel_tools.service import Settings, create_app
from cruel_tools.site.keys import RateLimit

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CRUEL_CHROMIUM", "/usr/bin/chromium"))
#: The served date: the puzzles of 2027-01-01..04 are closed (solutions public), 05 is open.
TODAY = dt.date(2027, 1, 5)
#: Where docs/web.md's screenshots are written by the tests that take them.
SHOTS = ROOT / "docs" / "img"
PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 800}


def _browser_or_skip() -> None:
    if CHROMIUM.exists():
        return
    reason = f"no browser at {CHROMIUM}: apt-get install -y chromium (or set CRUEL_CHROMIUM)"
    if os.environ.get("CRUEL_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


class HumanClock:
    """The server's wall clock in the browser tests: each reading is 0.4 to 2.5 s (random,
    seeded) after the one before, so the intervals between a test's clicks look like a
    person's, not a machine's (the live attempts' timing flags, docs/service.md)."""

    def __init__(self) -> None:
        self._now = dt.datetime.now(dt.UTC)
        self._rng = random.Random(24)
        self._lock = threading.Lock()

    def __call__(self) -> dt.datetime:
        with self._lock:
            self._now += dt.timedelta(seconds=self._rng.uniform(0.4, 2.5))
            return self._now


@dataclass
class Server:
    """The service under test: its base URL and its settings."""

    url: str
    settings: Settings


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The service, on the committed puzzle set, in a thread for the whole session."""
    _browser_or_skip()
    db = tmp_path_factory.mktemp("web") / "cruel.sqlite"
    settings = Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        open=True,  # keyless API submissions of unclaimed names (test_replay, test_leaderboard)
        player_limit=None,
        # Playwright clicks faster than people: no win is too fast, and the server's clock
        # moves on a person's pace per request (HumanClock), so that ranked wins are not held
        # for review as batched or metronomic; rate limits refill fast (many names claimed).
        speed_floor_ms=0,
        par_pace_ms=0,  # nor too fast for par (fast-par): the same reason
        # The keyless API submissions above rank, as among friends (issue #33: by default a
        # log nothing timed is stored unranked; tests/test_hostile_ranking.py).
        rank_untimed=True,
        # A game won by hints alone asks one hint a step (test_freeplay.py): more than the
        # analyses' default burst of 10.
        analyze_limit=RateLimit(rate=10.0, burst=500),
        wall_clock=HumanClock(),
        clock=lambda: time.monotonic() * 1000,
    )
    app = create_app(settings)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the service did not start")
        time.sleep(0.02)
    yield Server(f"http://127.0.0.1:{port}", settings)
    uv.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="session")
def browser(server: Server) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()


#: The console's message types a page must never cause (docs/web.md: the pages cause no
#: console message): an expected refusal is handled without a failing request (issue #36).
LOUD = frozenset({"error", "warning", "assert"})


@dataclass
class Watch:
    """What a page did that a test must never see: console errors and warnings, uncaught
    exceptions, and requests to another origin than the server's."""

    origin: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    #: The explicit allow-list: console messages a test provokes on purpose and cannot avoid
    #: (a failure it injects, an address that does not exist), matched by substring. Empty
    #: unless the test says so; a refusal the page can foresee is not on it.
    allowed: list[str] = field(default_factory=list)

    def console(self, msg: Any) -> None:
        if msg.type in LOUD and not any(a in msg.text for a in self.allowed):
            self.errors.append(f"console {msg.type}: {msg.text}")

    def request(self, req: Any) -> None:
        url: str = req.url
        if not (url.startswith(self.origin + "/") or url.startswith(("data:", "blob:"))):
            self.foreign.append(url)


@pytest.fixture
def watch(server: Server) -> Watch:
    return Watch(server.url)


@pytest.fixture
def new_page(browser: Any, server: Server, watch: Watch) -> Iterator[Callable[..., Any]]:
    """``new_page(viewport=DESKTOP)``: a page in a fresh context (empty storage, reduced
    motion), watched;
    contexts made here are closed, and the watch checked, at the test's end. Other keyword
    arguments go to the new context (``timezone_id=...``)."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] = DESKTOP, context: Any = None, **options: Any) -> Any:
        # Reduced motion unless a test asks otherwise: the page then plays its automatic moves
        # at 60 ms rather than 160 ms and slides no card, and the tests wait less (the one test
        # of the animation asks for both).
        options.setdefault("reduced_motion", "reduce")
        if context is None:
            context = browser.new_context(viewport=viewport, base_url=server.url, **options)
            contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("console", watch.console)
        page.on("pageerror", lambda exc: watch.errors.append(f"page error: {exc}"))
        page.on("request", watch.request)
        return page

    yield make
    for context in contexts:
        context.close()
    assert watch.foreign == [], f"requests to another origin: {watch.foreign}"
    assert watch.errors == [], f"errors in the page: {watch.errors}"


@pytest.fixture
def page(new_page: Callable[..., Any]) -> Any:
    """A watched page at 1280 px in a fresh context."""
    return new_page()


# --- other sites' pages (issue #37: --embed-origin, <cruel-game>) ------------------------------

#: The host page: no script of its own (each test runs its calls in it), no favicon request.
HOST_PAGE = b'<!doctype html><html><head><link rel="icon" href="data:,"><title>host</title></head>'
#: What Chromium logs for a call CORS refuses (the fetch rejects with a TypeError).
CORS_REFUSAL = ["blocked by CORS policy", "net::ERR_FAILED"]


class _Host(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(HOST_PAGE)))
        self.end_headers()
        self.wfile.write(HOST_PAGE)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # quiet


@dataclass
class Embed:
    api: str  # the service's origin
    allowed: str  # a host origin it lists
    other: str  # a host origin it does not


def _host() -> tuple[ThreadingHTTPServer, str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Host)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


@pytest.fixture(scope="module")
def embed(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[Embed]:
    """Two host pages' origins and the service listing the first (``browser``: skipped, with
    the reason, where there is no Chromium)."""
    (allowed_host, allowed), (other_host, other) = _host(), _host()
    settings = Settings(
        puzzles=ROOT / "puzzles",
        db=tmp_path_factory.mktemp("embed") / "cruel.sqlite",
        fixed_today=TODAY,
        speed_floor_ms=0,
        par_pace_ms=0,
        wall_clock=HumanClock(),
        embed_origins=(allowed,),
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    uv = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the service did not start"
        time.sleep(0.02)
    yield Embed(f"http://127.0.0.1:{sock.getsockname()[1]}", allowed, other)
    uv.should_exit = True
    thread.join(10)
    sock.close()
    for httpd in (allowed_host, other_host):
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def host_page(browser: Any, embed: Embed) -> Iterator[Any]:
    """``host_page(origin, allowed=[...])``: a watched page of a host origin; its console
    errors (but the ``allowed`` ones) fail the test, and so does a request to any origin but
    its own and the service's."""
    made: list[tuple[Any, Watch]] = []

    def make(origin: str, allowed: list[str] | None = None) -> Any:
        watch = Watch(origin, allowed=allowed or [])
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("console", watch.console)
        page.on("pageerror", lambda exc: watch.errors.append(f"page error: {exc}"))
        page.on("request", watch.request)
        page.goto(origin + "/")
        made.append((context, watch))
        return page

    yield make
    for context, watch in made:
        context.close()
        assert [u for u in watch.foreign if not u.startswith(embed.api + "/")] == []
        assert watch.errors == [], f"errors in the page: {watch.errors}"


#: The host page's calls, as an embedded game makes them (tokens.js, hinting.js): JSON, and a
#: player's token in ``Authorization``. Each resolves to ``{status, body}`` or ``{error}``.
CALL = """
window.callApi = async (url, { method = 'GET', body, token } = {}) => {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Player ${token}`;
  try {
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  } catch (e) {
    return { error: `${e.name}: ${e.message}` };
  }
};
"""


def call(page: Any, url: str, **options: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        "([url, options]) => window.callApi(url, options)", [url, options]
    )
    return found
