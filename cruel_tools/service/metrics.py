"""``GET /metrics``: the service's metrics in Prometheus' text format, by prometheus-client
(docs/service.md, Metrics).

Each app has its own :class:`Metrics` (its own ``CollectorRegistry``, never the library's global
one, so that tests and several apps in one process do not share counts). Requests are counted by
route *template* (``/v1/puzzles/{id}``), never by the path asked for, so a client cannot make a
new series per request: a path no route takes is counted as :data:`UNMATCHED`, a method the
service does not serve as ``other``.

Under ``cruel serve --workers N`` every worker writes its values to files in the folder named by
``PROMETHEUS_MULTIPROC_DIR`` (set by the command for its workers), and an answer adds them up over
the workers (prometheus-client's multiprocess mode), so a scrape sees the whole server whichever
worker answers it.
"""

from __future__ import annotations

import os
import time
from typing import Final

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    start_http_server,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .deps import Ctx

__all__ = [
    "ENV_MULTIPROC",
    "UNMATCHED",
    "Metrics",
    "MetricsMiddleware",
    "collected",
    "router",
    "metrics_key",
    "read_metrics",
    "serve_apart",
]

#: prometheus-client's own variable: the folder where each worker process writes its values.
ENV_MULTIPROC: Final = "PROMETHEUS_MULTIPROC_DIR"

#: The route label of a request no route takes (404 not-found): one series for all of them.
UNMATCHED: Final = "(unmatched)"

#: The methods counted by name; any other is ``other`` (a client chooses the method).
_METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

#: Latency buckets, in seconds: most answers take a millisecond or a few; analyses and a
#: database waiting on a lock take seconds.
_LATENCY: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

#: Generation buckets, in seconds: one day of four puzzles takes about one to two minutes.
_GENERATION: Final = (1.0, 5.0, 15.0, 30.0, 60.0, 90.0, 120.0, 180.0, 300.0, 600.0, 1800.0)


class Metrics:
    """The service's metrics, in a registry of their own.

    The publisher (publishing ahead) reports through :meth:`set_days_ready` and
    :meth:`observe_generation`; the app's middleware through :meth:`observe_request`; the
    store's error handler through :meth:`store_error`.
    """

    def __init__(self, engine: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        self.requests = Counter(
            "cruel_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
            registry=reg,
        )
        self.latency = Histogram(
            "cruel_http_request_duration_seconds",
            "Seconds from a request's arrival to the end of its answer, by route template.",
            ["route"],
            buckets=_LATENCY,
            registry=reg,
        )
        self.days_ready = Gauge(
            "cruel_days_ready_ahead",
            "Days after today whose puzzles are published and ready (publishing ahead).",
            registry=reg,
            multiprocess_mode="mostrecent",
        )
        self.generation = Histogram(
            "cruel_generation_seconds",
            "Seconds taken to generate one day's puzzles (publishing ahead).",
            buckets=_GENERATION,
            registry=reg,
        )
        self.store_errors = Counter(
            "cruel_store_errors",
            "Requests answered 503 because of the store (database), by error code.",
            ["code"],
            registry=reg,
        )
        self.engine = Gauge(
            "cruel_engine_info",
            "The rules engine this server runs (1 for the engine in use): native or python.",
            ["engine"],
            registry=reg,
            multiprocess_mode="max",
        )
        self.engine.labels(engine).set(1)

    def observe_request(self, route: str, method: str, status: int, seconds: float) -> None:
        method = method if method in _METHODS else "other"
        self.requests.labels(route, method, str(status)).inc()
        self.latency.labels(route).observe(seconds)

    def set_days_ready(self, days: int) -> None:
        """Days after today that are published (0: only today; -1: not even today)."""
        self.days_ready.set(days)

    def observe_generation(self, seconds: float) -> None:
        """One day's puzzles were generated in ``seconds``."""
        self.generation.observe(seconds)

    def store_error(self, code: str) -> None:
        """A request was answered 503 ``code`` because of the store."""
        self.store_errors.labels(code).inc()

    def exposition(self) -> bytes:
        """The text format of every metric: this process's, or every worker's when they write
        to a multiprocess folder."""
        return collected(self.registry)


def collected(registry: CollectorRegistry | None = None) -> bytes:
    """The text format of ``registry``, or, under ``PROMETHEUS_MULTIPROC_DIR``, of every
    process's values in that folder (``registry`` is then not read: the folder holds them)."""
    folder = os.environ.get(ENV_MULTIPROC)
    if folder:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
    assert registry is not None
    return generate_latest(registry)


class MetricsMiddleware:
    """Counts and times every HTTP request by the template of the route that took it
    (:func:`_template`), its method and its answer's status."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # an exception that escapes is answered 500 outside this middleware

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            seconds = time.perf_counter() - start
            self.metrics.observe_request(_template(scope), scope["method"], status, seconds)


def _template(scope: Scope) -> str:
    """The template of the route that took the request, or :data:`UNMATCHED`.

    FastAPI sets ``scope["route"]`` for its own routes only: the OpenAPI document
    (``/v1/openapi.json``) is a plain Starlette route at the top of the app (``scope["app"]``),
    so such a route is matched here again (a wrong method too, as FastAPI labels its own 405s).
    """
    route = scope.get("route")
    if route is None:
        for top in getattr(scope.get("app"), "routes", ()):
            if isinstance(top, Route) and top.matches(scope)[0] is not Match.NONE:
                route = top
                break
    return getattr(route, "path", None) or UNMATCHED


async def metrics_key(request: Request, ctx: Ctx) -> None:
    """The admin key ``GET /metrics`` needs (``cruel serve --metrics-bind`` serves the metrics
    with no key on an address of its own)."""
    await ctx.admin(request, needs="metrics need", may="read metrics")


router = APIRouter(prefix="/metrics", include_in_schema=False, dependencies=[Depends(metrics_key)])


@router.get("")
async def read_metrics(request: Request) -> Response:
    """The app's metrics (multiprocess: every worker's), in Prometheus' text format."""
    metrics: Metrics = request.app.state.metrics
    body = await run_in_threadpool(metrics.exposition)  # multiprocess: reads files
    return Response(body, media_type=CONTENT_TYPE_LATEST)


def serve_apart(host: str, port: int, registry: CollectorRegistry) -> None:
    """Serve the metrics with no key on ``host:port`` (``cruel serve --metrics-bind``), from a
    thread of this process: ``registry``'s, or every worker's under ``PROMETHEUS_MULTIPROC_DIR``.
    ``OSError`` when the address cannot be listened on."""
    folder = os.environ.get(ENV_MULTIPROC)
    if folder:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
    start_http_server(port, host, registry=registry)
