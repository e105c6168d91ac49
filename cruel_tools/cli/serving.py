"""The commands of the HTTP service's operator: ``serve``, and ``sweep`` (what a running server
does every 5 minutes, now).

``serve``'s options are made from :data:`~cruel_tools.constants.SERVE_OPTIONS`, the table
:class:`~cruel_tools.service.config.Settings` takes its defaults from too: a setting of the
server is stated once, there (:func:`_parameter`), and reaches ``Settings`` through one loop
(``Settings.from_options``).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..constants import ATTEMPT_TIMEOUT, DEFAULT_DB, KEEP_STEPS_HOURS, SERVE_OPTIONS, ServeOption
from ..dates import parse_date
from ..game.verify import plural
from .common import (
    DbOption,
    db_target,
    echo,
    emit,
    fail,
    memory_option,
    open_db,
    parse_option,
    read_secret,
)
from .startup import version_lines

if TYPE_CHECKING:
    from .. import service
    from ..puzzles.location import PuzzleLocation

__all__ = ["serve_command", "sweep_command"]


def _parameter(option: ServeOption) -> inspect.Parameter:
    """``option`` as a parameter of :func:`serve_command`, which Typer reads as it reads a
    written one (``Annotated[kind, typer.Option(...)] = default``)."""
    made = typer.Option(
        *option.flags,
        help=option.help,
        min=option.min,
        max=option.max,
        metavar=option.metavar,
        show_default=option.show_default,
    )
    return inspect.Parameter(
        option.param,
        inspect.Parameter.KEYWORD_ONLY,
        default=option.default,
        annotation=Annotated[option.kind, made],
    )


def serve_command(**given: Any) -> None:
    """Serve puzzles, verification and leaderboards over HTTP (docs/service.md)."""
    # Imported here: the web stack costs other commands nothing at start-up.
    from ..puzzles import PuzzleSetError
    from ..service import create_app
    from ..site.database import StoreError

    settings, location = _settings(given)
    read_secret(settings.secret_file)  # one line and exit 2 for an unreadable or weak secret
    host, port = given["host"], given["port"]
    _check_address(host, port)
    try:
        server = create_app(settings)  # also what the workers will do: fail here, once
    except (PuzzleSetError, StoreError) as exc:
        raise fail(str(exc), 2) from None
    # Which engine serves, at the top of the log: a server on the Python engine (no compiled
    # core) is much slower, and its operator should see it without a request.
    echo(", ".join(version_lines()), err=True)
    echo(_publishing_line(settings, server.state.publisher.status().today_seconds()), err=True)
    echo(_puzzles_line(location.describe(), settings), err=True)
    if settings.open:
        echo(
            "warning: --open: submissions need no API key for names nobody has claimed; anyone "
            "who can reach the port may play under such a name (a local demo only: browsers "
            "claim names with player tokens and need no --open)",
            err=True,
        )
    _run(server, settings, given)


serve_command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [_parameter(option) for option in SERVE_OPTIONS]
)


def _settings(given: dict[str, Any]) -> tuple[service.Settings, PuzzleLocation]:
    """What ``serve`` is told to serve, from its options (each parsed as its row says, in the
    order of ``--help``: the first bad one is refused in one line, exit 2), and where its
    puzzles are."""
    from ..puzzles.location import resolve_puzzles
    from ..service import Settings

    values = dict(given)
    for option in SERVE_OPTIONS:
        if option.parse is not None:
            values[option.param] = _PARSERS[option.parse](option.flags[0], given[option.param])
    location = resolve_puzzles(given["puzzles_dir"])  # the one setting: option, variable, folders
    _not_a_database(location.path)
    values["puzzles_dir"] = location.path
    return Settings.from_options(values, demo=location.demo), location


def _zone(flag: str, text: str) -> str:
    from ..service import time_zone

    parse_option(flag, time_zone, text)  # refused if unknown; the setting keeps its name
    return text


def _rate(flag: str, text: str) -> float | None:
    from ..site.keys import parse_rate

    return parse_option(flag, parse_rate, text)


#: How an option's text becomes its setting (``ServeOption.parse``), each refusal one line
#: naming the option; an option not given (None) stays None, but for the proxies' list.
_PARSERS: dict[str, Callable[[str, Any], Any]] = {
    "date": lambda flag, text: None if text is None else parse_option(flag, parse_date, text),
    "zone": _zone,
    "rate": _rate,
    "size": lambda flag, text: None if text is None else memory_option(flag, text).total,
    "db": lambda flag, text: db_target(text),
    "proxies": lambda flag, texts: tuple(_proxy_network(t) for t in texts or ()),
    "origins": lambda flag, texts: tuple(dict.fromkeys(_origin(flag, t) for t in texts or ())),
    "address": lambda flag, text: None if text is None else _metrics_address(text),
}


def _check_address(host: str, port: int) -> None:
    """Refuse an address that cannot be listened on, in one line and exit 2 (uvicorn would log
    a traceback-like report and exit 1 or 3)."""
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.create_server((host, port), family=family):
            pass
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", 2) from None


def _run(server: Any, settings: service.Settings, given: dict[str, Any]) -> None:
    """Serve ``server`` with uvicorn: in this process, or in ``--workers`` processes that each
    build their own app from ``settings``."""
    import atexit
    import shutil
    import socket
    import tempfile

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from ..service import APP_FACTORY, ENV_SETTINGS
    from ..service.connections import ENV_SUPERVISOR, GuardedH11Protocol, raise_fd_limit
    from ..service.metrics import ENV_MULTIPROC

    _guard_connections(settings, given)
    raise_fd_limit()  # each connection is a file
    options = {
        "http": GuardedH11Protocol,
        "host": given["host"],
        "port": given["port"],
        "access_log": given["access_log"],
        "log_level": "info",
        # uvicorn would take X-Forwarded-For from any loopback peer (its default): the service
        # reads it only from --trusted-proxy (service/clients.py).
        "proxy_headers": False,
    }
    workers = given["workers"]
    if workers > 1 and not os.environ.get(ENV_MULTIPROC):
        # Each worker writes its metrics there, and /metrics adds them up (service/metrics.py).
        made = os.environ[ENV_MULTIPROC] = tempfile.mkdtemp(prefix="cruel-metrics-")
        atexit.register(shutil.rmtree, made, True)
    if given["metrics_bind"] is not None:
        _serve_metrics(*_metrics_address(given["metrics_bind"]), server.state.metrics.registry)
    if workers == 1:
        uvicorn.run(server, **options)
        return
    # Worker processes build their own app from the environment: uvicorn can only start
    # several from an import string.
    os.environ[ENV_SETTINGS] = settings.to_env()
    os.environ[ENV_SUPERVISOR] = str(os.getpid())  # the workers end when it does
    config = uvicorn.Config(APP_FACTORY, factory=True, workers=workers, **options)
    sock = config.bind_socket()
    # asyncio turns Nagle's algorithm off only on sockets it made itself, and the socket uvicorn
    # shares with its workers is not one: every answer then waited ~40 ms for a delayed ACK
    # (measured: 160 requests/s instead of 600). Accepted connections inherit the option.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    Multiprocess(config, sockets=[sock]).run()


def _guard_connections(settings: service.Settings, given: dict[str, Any]) -> None:
    """The limits on connections, read by each connection in every worker (uvicorn's own
    limit_concurrency would answer in plain text, and count refused connections too)."""
    from ..service.connections import ENV_GUARD, GuardConfig

    limits = GuardConfig(
        given["head_timeout"],
        given["body_timeout"],
        given["max_connections"],
        given["max_per_client"],
        trusted_proxies=settings.trusted_proxies,
    )
    os.environ[ENV_GUARD] = limits.to_env()


def _not_a_database(path: Path) -> None:
    """``cruel serve --puzzles DB``: the other commands read a database's published days there,
    but a server serves the days of its own ``--db``; one line and exit 2, not "not a folder"."""
    from ..site.puzzle_sources import is_database

    if is_database(path):
        raise fail(
            f"--puzzles {path}: a database: cruel serve serves the days published into its own "
            "--db (give it as --db; --puzzles takes a folder of puzzle files)",
            2,
        )


def _puzzles_line(line: str, settings: service.Settings) -> str:
    """The start-up line of the puzzle set, and the date the demo set is served on when it is
    not the real one; or that a site (a secret) serves none of the demo set it fell to."""
    if settings.demo and not settings.demo_cycle:
        from ..site.database import describe

        return (
            f"{line}: the public demo set, not served to a site (--secret-file): the site's "
            f"days are published into {describe(settings.db)}"
        )
    if settings.demo_dates is None or settings.fixed_today is not None:
        return line
    first, last = settings.demo_dates
    return (
        f"{line}: the public demo set, {first} to {last}, served today as {settings.today()} "
        "(a site serves its own set: docs/service.md, Running a site)"
    )


def _publishing_line(settings: service.Settings, seconds: int | None) -> str:
    """The start-up line of publishing ahead: from which stream, or why not, and about how
    many ``seconds`` today's puzzles will take when they are being published
    (docs/service.md, Publishing ahead)."""
    days = plural(settings.ahead, "day")
    first = "" if seconds is None else f"; today's puzzles first, in about {seconds} s"
    if settings.demo_cycle:
        return "publishing: nothing ahead (the demo set is served as a cycle of its dates)"
    if settings.secret_file is not None:
        return (
            f"publishing: today and {days} ahead from the secret stream of "
            f"{settings.secret_file}, into the database{first}"
        )
    if settings.open:
        return (
            f"publishing: today and {days} ahead from the public stream (--open: anyone can "
            f"compute these days; a ranking site gives --secret-file){first}"
        )
    return (
        "publishing: nothing ahead (no --secret-file): serving the puzzles there are; health "
        "says degraded when today or a day ahead is missing"
    )


def _metrics_address(text: str) -> tuple[str, int]:
    """``--metrics-bind HOST:PORT`` (``[::1]:9108`` for IPv6); else one line and exit 2."""
    host, _, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise fail(f"--metrics-bind: {text!r} is not HOST:PORT (like 127.0.0.1:9108)", 2)
    return host, int(port)


def _serve_metrics(host: str, port: int, registry: Any) -> None:
    """``--metrics-bind``: ``GET /metrics`` with no key on an address of its own, from a thread
    of this process (every worker's values under ``--workers N``); one line and exit 2 when
    the address cannot be listened on."""
    from ..service.metrics import serve_apart

    try:
        serve_apart(host, port, registry)
    except OSError as exc:
        raise fail(
            f"--metrics-bind: cannot listen on {host}:{port}: {exc.strerror or exc}", 2
        ) from None
    echo(f"metrics: http://{host}:{port}/metrics with no key", err=True)


def _proxy_network(text: str) -> str:
    """``--trusted-proxy``: an IP address or network (``10.0.0.0/8``), as written; else one
    line and exit 2."""
    import ipaddress

    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise fail(
            f"--trusted-proxy: {text!r} is not an IP address or network (like 127.0.0.1 or "
            "10.0.0.0/8)",
            2,
        ) from None
    return text


def _origin(flag: str, text: str) -> str:
    """``--embed-origin``: an origin as browsers send it (``service.config.embed_origin``);
    else one line and exit 2."""
    from ..service.config import embed_origin

    try:
        return embed_origin(text)
    except ValueError as exc:
        raise fail(f"{flag}: {exc}", 2) from None


def sweep_command(
    db: DbOption = DEFAULT_DB,
    keep_steps: Annotated[
        float,
        typer.Option(
            "--keep-steps",
            min=0.0,
            help="Hours the steps of a live attempt that ended without a win are kept.",
        ),
    ] = KEEP_STEPS_HOURS,
    attempt_timeout: Annotated[
        float,
        typer.Option(
            "--attempt-timeout",
            min=10.0,
            help="Seconds without a step after which a live attempt is ended as expired.",
        ),
    ] = ATTEMPT_TIMEOUT,
) -> None:
    """Sweep live attempts now, as a running cruel serve does every 5 minutes: end those left
    open past the timeout, delete the steps of those that ended without a win more than
    --keep-steps hours ago (their rows stay). Prints what it did (docs/service.md, Storage
    bounds)."""
    import dataclasses
    import datetime as dt

    opened = open_db(db)
    try:
        policy = dataclasses.replace(
            opened.attempts.policy,
            timeout=dt.timedelta(seconds=attempt_timeout),
            keep_steps=dt.timedelta(hours=keep_steps),
        )
        opened.attempts.policy = policy
        done = opened.attempts.sweep(dt.datetime.now(dt.UTC))
    finally:
        opened.close()
    emit(f"ended {done.ended} attempts; deleted {done.steps} steps of {done.swept} attempts")
