"""The game embedded on other sites' pages (``cruel serve --embed-origin``, issue #37): CORS for
the routes a game needs, for the listed origins only (docs/service.md, Embedding on other sites).

A page of another origin may call this service from a browser only if the answer says so
(``Access-Control-Allow-Origin``). :class:`EmbedOrigins` says so for an origin of
``Settings.embed_origins`` on a route of :data:`EMBED_ROUTES`, and answers its preflights: a
puzzle's reading, hints, submissions, live attempts and the player routes ranked play needs.
Nothing else: no other route, no other origin, never credentials (cookies: the service has
none; a player's token is a header, ``Authorization: Player <token>``, which the page sends
itself). Every other answer is as without the option, but for ``Vary: Origin`` on the embed
routes (a cache must not give one origin's answer to another). Without the option the app has
no such middleware at all.

The service has no check of ``Origin``, ``Referer`` or ``Sec-Fetch-Site`` of its own: a
request from another origin was refused by browsers only (no CORS), and its rate limits go by
client address, key and player name, never by origin. So an embed's requests pass every check
a request of the site's own pages passes, and those from an origin not listed are refused by
the browser as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "EMBED_ROUTES",
    "ALLOW_HEADERS",
    "EXPOSE_HEADERS",
    "MAX_AGE",
    "EmbedOrigins",
    "embed_methods",
]

#: The routes an embedded game calls (method, path template): the one list. What the play page
#: calls for a puzzle, a hint, a submission and ranked play (web/play.js, hinting.js,
#: tokens.js), and the service's day (``GET /v1/health``: whether a puzzle is closed, so that
#: ``<cruel-game>`` offers hints only where they are given); not the pages, static files (the
#: embed's own files, ``/embed/...``, are public to every origin: pages.py), leaderboards,
#: replays, analyses, a player's record or data, deleting a player, link codes, moderation or
#: metrics.
EMBED_ROUTES: Final[tuple[tuple[str, str], ...]] = (
    ("GET", "/v1/health"),
    ("GET", "/v1/puzzles/daily/{date}"),
    ("GET", "/v1/puzzles/past"),
    ("GET", "/v1/puzzles/{id}"),
    ("POST", "/v1/hint"),
    ("POST", "/v1/puzzles/{id}/submissions"),
    ("POST", "/v1/puzzles/{id}/attempts"),
    ("GET", "/v1/attempts/{attempt}"),
    ("POST", "/v1/attempts/{attempt}/steps"),
    ("POST", "/v1/attempts/{attempt}/give-up"),
    ("POST", "/v1/players"),
    ("POST", "/v1/players/{name}/tokens"),
)

#: The request headers a page may send (a preflight's answer): JSON bodies, and the player's
#: token or a key (``Authorization``). ``Accept`` needs no leave, but is named for clarity.
ALLOW_HEADERS: Final = "Accept, Authorization, Content-Type"
#: The answer's headers a page may read beyond the plain ones: ``Retry-After`` of a 429 or 503
#: (hinting.js says how long to wait).
EXPOSE_HEADERS: Final = "Retry-After"
#: Seconds a browser may keep a preflight's answer (Chromium keeps at most 7200).
MAX_AGE: Final = 600


def _pattern(template: str) -> re.Pattern[str]:
    """``/v1/puzzles/{id}`` as a pattern of paths: a parameter is one segment, never a slash."""
    parts = re.split(r"\{[a-z_]+\}", template)
    return re.compile("[^/]+".join(re.escape(part) for part in parts))


_ROUTES: Final = tuple((method, _pattern(template)) for method, template in EMBED_ROUTES)


def embed_methods(path: str) -> frozenset[str]:
    """The methods :data:`EMBED_ROUTES` allow on ``path`` (none: not an embed route)."""
    return frozenset(method for method, pattern in _ROUTES if pattern.fullmatch(path))


class EmbedOrigins:
    """ASGI middleware: CORS on the embed routes for ``origins``, as this module says."""

    def __init__(self, app: ASGIApp, origins: Iterable[str]) -> None:
        self.app = app
        self.origins = frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        methods = embed_methods(scope["path"]) if scope["type"] == "http" else frozenset()
        if not methods:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origins = headers.getlist("origin")
        # Two Origin headers are no browser's: answered as an origin not listed.
        origin = origins[0] if len(origins) == 1 and origins[0] in self.origins else None
        asked = headers.get("access-control-request-method")
        if origin and scope["method"] == "OPTIONS" and asked in methods:
            await _preflight(send, origin, methods)
            return
        allow = origin if scope["method"] in methods else None

        async def send_marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer = MutableHeaders(scope=message)
                answer.add_vary_header("Origin")
                if allow:
                    answer["Access-Control-Allow-Origin"] = allow
                    answer["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
            await send(message)

        await self.app(scope, receive, send_marked)


async def _preflight(send: Send, origin: str, methods: frozenset[str]) -> None:
    """A preflight's answer: 204, the origin, the route's methods, the headers, how long."""
    headers = [
        (b"access-control-allow-origin", origin.encode()),
        (b"access-control-allow-methods", ", ".join(sorted(methods)).encode()),
        (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
        (b"access-control-max-age", str(MAX_AGE).encode()),
        (b"vary", b"Origin"),
    ]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
