"""The dependencies the routers share (FastAPI's ``Depends``): the app's state, read from
``request.app.state`` (set once by :func:`~.app.create_app`), and the checks many routes make
before their handler runs: the route's own parameters, the admin key, the credentials of a
write, the costly gates' places.

A route names what it needs in its signature (``ctx: Ctx``, ``key: AdminKey``) or, for a check
whose value it does not use, in its router's ``dependencies=[...]``; FastAPI calls each once per
request (its result is cached), in that order: the router's list first, then the signature's.
Every dependency is ``async``, even one that never waits: FastAPI runs a plain ``def`` one in
its thread pool, a hand-over per request (it cost ``POST /v1/verify`` about a quarter of its
throughput, benchmarks/route_throughput.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, cast

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from ..site.keys import ApiKey
from ..site.publishing import Publisher
from .context import Context, Credentials
from .costly import CostlyGate
from .help_guard import HelpGuard

__all__ = [
    "context",
    "Ctx",
    "help_guard",
    "Guard",
    "publisher",
    "analyses_gate",
    "AnalysesGate",
    "hints_gate",
    "HintsGate",
    "replays_gate",
    "ReplaysGate",
    "params_first",
    "arrival",
    "Arrival",
    "admin_key",
    "AdminKey",
    "credentials",
    "Creds",
    "help_key",
    "HelpKey",
]


async def context(request: Request) -> Context:
    """The app's :class:`~.context.Context`: settings, puzzles, stores and rate limits."""
    return cast(Context, request.app.state.context)


Ctx = Annotated[Context, Depends(context)]


async def help_guard(request: Request) -> HelpGuard:
    """The app's help guard (its canonical deals computed once, at start)."""
    return cast(HelpGuard, request.app.state.guard)


Guard = Annotated[HelpGuard, Depends(help_guard)]


async def publisher(request: Request) -> Publisher | None:
    """The days published ahead (docs/service.md, Publishing ahead)."""
    return cast(Publisher | None, getattr(request.app.state, "publisher", None))


async def analyses_gate(request: Request) -> CostlyGate:
    """The analyses' gate: rate limits, places, processes (:mod:`.costly`)."""
    return cast(CostlyGate, request.app.state.analyses)


AnalysesGate = Annotated[CostlyGate, Depends(analyses_gate)]


async def hints_gate(request: Request) -> CostlyGate:
    """The hints' gate: the analyses' rate limits, places and processes of their own."""
    return cast(CostlyGate, request.app.state.analyses).hints()


HintsGate = Annotated[CostlyGate, Depends(hints_gate)]


async def replays_gate(request: Request) -> CostlyGate:
    """The replays' gate (:func:`~.replaying.replay_gate`)."""
    return cast(CostlyGate, request.app.state.replays)


ReplaysGate = Annotated[CostlyGate, Depends(replays_gate)]


def _params(dependant: Dependant) -> tuple[list[Any], list[Any]]:
    path, query = list(dependant.path_params), list(dependant.query_params)
    for sub in dependant.dependencies:
        more_path, more_query = _params(sub)
        path += more_path
        query += more_query
    return path, query


def _route_params(route: APIRoute) -> tuple[list[Any], list[Any]]:
    """The route's path and query parameters, its dependencies' too; found once per route and
    kept on it (a route is not hashable)."""
    found: tuple[list[Any], list[Any]] | None = getattr(route, "_cruel_params", None)
    if found is None:
        found = _params(route.dependant)
        route._cruel_params = found  # type: ignore[attr-defined]
    return found


async def params_first(request: Request) -> None:
    """422 ``bad-parameter`` for a path or query parameter of the route that is not valid,
    before any other check: FastAPI validates a route's parameters only after its
    dependencies, and a check that answers 401 or 503 must not hide a malformed request (the
    order of answers as it was when handlers called the checks themselves). The first error is
    the one FastAPI would give (the path's, then the query's)."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    path, query = _route_params(route)
    _, errors = request_params_to_args(path, request.path_params)
    if not errors:
        _, errors = request_params_to_args(query, request.query_params)
    if errors:
        raise RequestValidationError(errors)


async def arrival(ctx: Ctx) -> dt.datetime:
    """When the request arrived, on the server's wall clock: taken before any credential is
    looked up, so that a live attempt's steps are timed at their arrival."""
    return ctx.settings.wall_clock()


Arrival = Annotated[dt.datetime, Depends(arrival)]


async def admin_key(request: Request, ctx: Ctx) -> ApiKey:
    """The request's admin key (:meth:`~.context.Context.admin`): otherwise 401 or 403."""
    return await ctx.admin(request)


AdminKey = Annotated[ApiKey, Depends(admin_key)]


async def credentials(request: Request, ctx: Ctx) -> Credentials:
    """A write's credentials, checked and rate-limited before its body is read
    (:meth:`~.context.Context.credentials`): a site key, a player's token, or none on an
    ``--open`` server; otherwise 401, 403 or 429."""
    return await ctx.credentials(request)


Creds = Annotated[Credentials, Depends(credentials)]


async def help_key(request: Request, guard: Guard) -> ApiKey | None:
    """The key of a request for help, if it sends one (:meth:`~.help_guard.HelpGuard.key`):
    an unknown or revoked one is a 401."""
    return await guard.key(request)


HelpKey = Annotated[ApiKey | None, Depends(help_key)]
