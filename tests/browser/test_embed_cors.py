"""``cruel serve --embed-origin`` in a real browser (issue #37): a host page of a listed origin
reads a puzzle, asks a hint on a closed puzzle and plays ranked through the API with a claimed
name's token; a host page of another origin cannot (the browser's CORS refusal). Host pages
are served by ``http.server`` on loopback ports of their own (other origins than the service's:
another port is another origin), and the service, on a third port, lists one of them.
(docs/service.md, Embedding on other sites; the headers in detail: tests/test_embed_origins.py.)
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import uvicorn

from cruel_tools.game.log import compact, to_step
from cruel_tools.service import Settings, create_app

from ..helpers import published_puzzles, puzzle_log
from .conftest import ROOT, TODAY, HumanClock, Watch

OPEN = "2027-01-05-easy"  # today's: live attempts
CLOSED = "2027-01-04-hard"  # yesterday's: hints
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


def test_a_listed_origin_reads_a_puzzle_and_asks_a_hint(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.allowed)
    page.evaluate(CALL)
    puzzle = call(page, f"{embed.api}/v1/puzzles/{CLOSED}")
    assert puzzle["status"] == 200 and puzzle["body"]["id"] == CLOSED, puzzle
    today = call(page, f"{embed.api}/v1/puzzles/daily/today")
    assert today["status"] == 200, today
    found = published_puzzles().get(CLOSED)
    log = puzzle_log(found, [to_step(e) for e in found.solution][:3])
    hint = call(page, f"{embed.api}/v1/hint", method="POST", body=log)
    assert hint["status"] == 200 and hint["body"]["status"] == "win-next", hint


def test_a_listed_origin_plays_ranked_with_a_claimed_names_token(
    host_page: Any, embed: Embed
) -> None:
    page = host_page(embed.allowed)
    page.evaluate(CALL)
    claimed = call(page, f"{embed.api}/v1/players", method="POST", body={"player": "embedded"})
    assert claimed["status"] == 201, claimed
    token = claimed["body"]["token"]
    start = {"format": "cruel-attempt/1", "player": "embedded", "auto": "off"}
    started = call(
        page, f"{embed.api}/v1/puzzles/{OPEN}/attempts", method="POST", body=start, token=token
    )
    assert started["status"] == 201, started
    attempt = f"{embed.api}/v1/attempts/{started['body']['attempt']}"
    for entry in published_puzzles().get(OPEN).solution:
        body = {"steps": [compact(to_step(entry))]}
        sent = call(page, f"{attempt}/steps", method="POST", body=body, token=token)
        assert sent["status"] == 200, sent
    state = call(page, attempt, token=token)
    assert state["body"]["status"] == "won", state
    import json
    import urllib.request

    with urllib.request.urlopen(f"{embed.api}/v1/puzzles/{OPEN}/leaderboard", timeout=10) as got:
        board = json.load(got)["entries"]
    assert "embedded" in [e["player"] for e in board]  # ranked, on the site's own board


def test_another_origin_cannot_call_the_service(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.other, allowed=CORS_REFUSAL)
    page.evaluate(CALL)
    puzzle = call(page, f"{embed.api}/v1/puzzles/{CLOSED}")
    assert puzzle["error"].startswith("TypeError"), puzzle
    start = {"format": "cruel-attempt/1", "player": "intruder", "auto": "off"}
    started = call(page, f"{embed.api}/v1/puzzles/{OPEN}/attempts", method="POST", body=start)
    assert started["error"].startswith("TypeError"), started
    claimed = call(page, f"{embed.api}/v1/players", method="POST", body={"player": "intruder"})
    assert claimed["error"].startswith("TypeError"), claimed
    # The preflight was refused, so the claim was never sent: the name is still free.
    assert claim_status(embed.api, "intruder") == 201


def test_a_listed_origin_gets_no_other_route(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.allowed, allowed=CORS_REFUSAL)
    page.evaluate(CALL)
    for path in ("/v1/health", f"/v1/puzzles/{CLOSED}/leaderboard", "/v1/admin/queue"):
        answer = call(page, embed.api + path)
        assert answer["error"].startswith("TypeError"), (path, answer)


def claim_status(api: str, name: str) -> int:
    """The service's status for a claim of ``name`` sent by this test (no origin, no browser)."""
    import urllib.error
    import urllib.request

    body = b'{"player": "%s"}' % name.encode()
    request = urllib.request.Request(
        f"{api}/v1/players", data=body, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
