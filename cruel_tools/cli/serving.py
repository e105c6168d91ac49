"""The commands of the HTTP service's operator: ``serve``, and ``sweep`` (what a running server
does every 5 minutes, now)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..constants import (
    ANALYZE_BURST,
    ANALYZE_RATE,
    ATTEMPTS_PER_DAY,
    ATTEMPTS_PER_MINUTE,
    BODY_TIMEOUT,
    CHECK_INTERVAL,
    CLAIMS_PER_DAY,
    DEFAULT_DB,
    HEAD_TIMEOUT,
    HINT_BURST,
    HINT_RATE,
    KEEP_STEPS_HOURS,
    KEY_BURST,
    KEY_RATE,
    LINK_GUESSES,
    MAX_ANALYSES,
    MAX_ATTEMPT_STEPS,
    MAX_BODY,
    MAX_CONNECTIONS,
    MAX_HINTS,
    MAX_OPEN_ATTEMPTS,
    MAX_PER_CLIENT,
    MAX_REPLAYS,
    MAX_TOKENS,
    PAR_PACE_MS,
    PLAYER_BURST,
    PLAYER_RATE,
    PUBLISH_AHEAD,
    REPLAY_BURST,
    REPLAY_RATE,
)
from ..dates import parse_date
from ..game.verify import (
    plural,
)
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
from .startup import EXIT_CLOSED_PIPE as EXIT_CLOSED_PIPE
from .startup import EXIT_NO_NATIVE_CORE as EXIT_NO_NATIVE_CORE
from .startup import version_lines

if TYPE_CHECKING:
    from .. import service

__all__ = ["serve_command", "sweep_command"]


# --- the HTTP service ------------------------------------------------------------------------


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8000,
    puzzles_dir: Annotated[
        Path | None,
        typer.Option(
            "--puzzles",
            help="The puzzle set to serve (read once, at start). Default: $CRUEL_PUZZLES, else "
            "./puzzles, else the data folder ($XDG_DATA_HOME/cruel-tools/puzzles), else the "
            "public demo set in the package.",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str,
        typer.Option(
            "--db",
            help="SQLite file of the leaderboards (created if missing), or a PostgreSQL "
            "server's postgresql://user@host:port/dbname URL.",
        ),
    ] = DEFAULT_DB,
    max_body: Annotated[
        int, typer.Option("--max-body", min=1024, help="Largest request body, in bytes.")
    ] = MAX_BODY,
    max_connections: Annotated[
        int, typer.Option("--max-connections", min=1, help="Open connections before 503s.")
    ] = MAX_CONNECTIONS,
    today: Annotated[
        str | None,
        typer.Option("--today", help="Act as if the date in --tz were this one (demos and tests)."),
    ] = None,
    tz: Annotated[
        str,
        typer.Option(
            "--tz",
            help="Time zone (IANA name) of the service's dates: a puzzle opens at the start of "
            "its date there.",
        ),
    ] = "UTC",
    access_log: Annotated[bool, typer.Option(help="Log every request on standard output.")] = True,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64, help="Server processes (one per core).")
    ] = 1,
    head_timeout: Annotated[
        float,
        typer.Option(
            "--head-timeout", min=0.1, help="Seconds a request's line and headers may take."
        ),
    ] = HEAD_TIMEOUT,
    body_timeout: Annotated[
        float,
        typer.Option(
            "--body-timeout",
            min=0.1,
            help="Seconds a request's body may take after its headers (then 408).",
        ),
    ] = BODY_TIMEOUT,
    max_per_client: Annotated[
        int,
        typer.Option(
            "--max-per-client", min=1, help="Open connections from one client address (then 429)."
        ),
    ] = MAX_PER_CLIENT,
    check_interval: Annotated[
        float,
        typer.Option(
            "--check-interval",
            min=0.1,
            help="Seconds between two integrity checks of the --db file (quick_check).",
        ),
    ] = CHECK_INTERVAL,
    open_: Annotated[
        bool,
        typer.Option(
            "--open",
            help="A local demo: names nobody has claimed may play with no API key or player "
            "token (anyone may then play under such a name; a claimed name always needs its "
            "token). A public site needs no --open: browsers claim names and get tokens.",
        ),
    ] = False,
    rate_key: Annotated[
        str, typer.Option("--rate-key", help="Submissions per API key: N/s, N/min, N/h or off.")
    ] = f"{KEY_RATE:g}/s",
    burst_key: Annotated[
        int, typer.Option("--burst-key", min=1, help="Submissions a key may send at once.")
    ] = KEY_BURST,
    rate_player: Annotated[
        str,
        typer.Option("--rate-player", help="Submissions per player name: N/s, N/min, N/h or off."),
    ] = f"{PLAYER_RATE:g}/s",
    burst_player: Annotated[
        int, typer.Option("--burst-player", min=1, help="Submissions for one player at once.")
    ] = PLAYER_BURST,
    analyze_rate: Annotated[
        str,
        typer.Option(
            "--analyze-rate",
            help="Analyses per client address and per API key: N/s, N/min, N/h or off.",
        ),
    ] = f"{ANALYZE_RATE * 60:g}/min",
    analyze_burst: Annotated[
        int,
        typer.Option("--analyze-burst", min=1, help="Analyses one address or key may ask at once."),
    ] = ANALYZE_BURST,
    hint_rate: Annotated[
        str,
        typer.Option(
            "--hint-rate",
            help="Hints per client address and per API key: N/s, N/min, N/h or off.",
        ),
    ] = f"{HINT_RATE * 60:g}/min",
    hint_burst: Annotated[
        int,
        typer.Option("--hint-burst", min=1, help="Hints one address or key may ask at once."),
    ] = HINT_BURST,
    max_analyses: Annotated[
        int,
        typer.Option(
            "--max-analyses", min=1, help="Analyses running at once per worker (then 503 busy)."
        ),
    ] = MAX_ANALYSES,
    max_hints: Annotated[
        int,
        typer.Option(
            "--max-hints",
            min=1,
            help="Hints running at once per worker, apart from the analyses (then 503 busy).",
        ),
    ] = MAX_HINTS,
    replay_rate: Annotated[
        str,
        typer.Option("--replay-rate", help="Replays per client address: N/s, N/min, N/h or off."),
    ] = f"{REPLAY_RATE:g}/s",
    replay_burst: Annotated[
        int,
        typer.Option("--replay-burst", min=1, help="Replays one address may ask at once."),
    ] = REPLAY_BURST,
    max_replays: Annotated[
        int,
        typer.Option(
            "--max-replays", min=1, help="Replays running at once per worker (then 503 busy)."
        ),
    ] = MAX_REPLAYS,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help="Address or network of a reverse proxy in front (repeatable): its "
            "X-Forwarded-For is believed, and its connections are not capped per address.",
        ),
    ] = None,
    attempt_timeout: Annotated[
        float,
        typer.Option(
            "--attempt-timeout",
            min=10.0,
            help="Seconds without a step after which a live attempt expires.",
        ),
    ] = 1800.0,
    max_open_attempts: Annotated[
        int,
        typer.Option(
            "--max-open-attempts",
            min=1,
            help="Live attempts one player name may hold open (then 409 too-many-open-attempts).",
        ),
    ] = MAX_OPEN_ATTEMPTS,
    max_attempt_steps: Annotated[
        int,
        typer.Option(
            "--max-attempt-steps",
            min=10,
            help="Steps one live attempt may record, automatic moves and undos too (then 409 "
            "attempt-full).",
        ),
    ] = MAX_ATTEMPT_STEPS,
    attempts_per_minute: Annotated[
        int,
        typer.Option(
            "--attempts-per-minute",
            min=1,
            help="Live attempts one player name may start a minute (then 429 too-many-attempts).",
        ),
    ] = ATTEMPTS_PER_MINUTE,
    attempts_per_day: Annotated[
        int,
        typer.Option(
            "--attempts-per-day",
            min=1,
            help="Live attempts one player name may start a day (then 429 too-many-attempts).",
        ),
    ] = ATTEMPTS_PER_DAY,
    max_tokens: Annotated[
        int,
        typer.Option(
            "--max-tokens",
            min=1,
            help="Valid tokens (devices) one player name may hold (then 409 too-many-tokens).",
        ),
    ] = MAX_TOKENS,
    claims_per_day: Annotated[
        int,
        typer.Option(
            "--claims-per-day",
            min=1,
            help="Names one client address may claim a day (then 429 rate-limited).",
        ),
    ] = CLAIMS_PER_DAY,
    keep_steps: Annotated[
        float,
        typer.Option(
            "--keep-steps",
            min=0.0,
            help="Hours the steps of a live attempt that ended without a win are kept (its "
            "row stays); swept every 5 minutes.",
        ),
    ] = KEEP_STEPS_HOURS,
    speed_floor: Annotated[
        int,
        typer.Option(
            "--speed-floor",
            min=0,
            help="Milliseconds per player step under which a live win waits for a moderator.",
        ),
    ] = 250,
    review_par: Annotated[
        bool,
        typer.Option(
            "--review-par/--no-review-par",
            help="A submitted log at par or better waits for a moderator (no live attempt "
            "timed it).",
        ),
    ] = True,
    rank_untimed: Annotated[
        bool,
        typer.Option(
            "--rank-untimed",
            help="Rank logs sent with a player's token or under --open (a server among "
            "friends). Without it they are stored unranked: only live attempts and a site "
            "key's submissions rank.",
        ),
    ] = False,
    par_pace: Annotated[
        int,
        typer.Option(
            "--par-pace",
            min=0,
            help="Milliseconds per player step under which a live win at par or better waits "
            "for a moderator (fast-par; 0: never).",
        ),
    ] = PAR_PACE_MS,
    link_guesses: Annotated[
        int,
        typer.Option(
            "--link-guesses",
            min=1,
            help="Wrong link codes one client address may send, then as many again an hour.",
        ),
    ] = LINK_GUESSES,
    metrics_bind: Annotated[
        str | None,
        typer.Option(
            "--metrics-bind",
            help="HOST:PORT where GET /metrics is also served, with no key (for Prometheus on a "
            "private address, e.g. 127.0.0.1:9108). Without it, /metrics needs an admin key.",
        ),
    ] = None,
    secret_file: Annotated[
        Path | None,
        typer.Option(
            "--secret-file",
            help="The site's secret (cruel daily --new-secret): today and --ahead days after it "
            "are published from its stream, in the database, and the packaged demo set is "
            "never served. Without it nothing is published ahead (--open: from the public "
            "stream).",
        ),
    ] = None,
    ahead: Annotated[
        int,
        typer.Option("--ahead", min=0, max=366, help="Days after today kept published."),
    ] = PUBLISH_AHEAD,
    publish_memory: Annotated[
        str | None,
        typer.Option(
            "--publish-memory",
            metavar="SIZE",
            help="Most memory the process making a day may hold at its peak: 512M, 1.5G, 2GiB "
            "or bytes (default: half the machine's, or of its container's limit). Reached, par "
            "keeps its proven bound.",
        ),
    ] = None,
) -> None:
    """Serve puzzles, verification and leaderboards over HTTP (docs/service.md)."""
    # Imported here: the web stack costs other commands nothing at start-up.
    import atexit
    import shutil
    import socket
    import tempfile

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from ..puzzles import PuzzleSetError
    from ..puzzles.location import resolve_puzzles
    from ..service import APP_FACTORY, ENV_SETTINGS, Settings, create_app, time_zone
    from ..service.connections import (
        ENV_GUARD,
        ENV_SUPERVISOR,
        GuardConfig,
        GuardedH11Protocol,
        raise_fd_limit,
    )
    from ..service.metrics import ENV_MULTIPROC
    from ..site.database import StoreError
    from ..site.keys import RateLimit, parse_rate

    fixed = parse_option("--today", parse_date, today) if today is not None else None
    parse_option("--tz", time_zone, tz)
    key_rate = parse_option("--rate-key", parse_rate, rate_key)
    player_rate = parse_option("--rate-player", parse_rate, rate_player)
    analyze_per_s = parse_option("--analyze-rate", parse_rate, analyze_rate)
    hint_per_s = parse_option("--hint-rate", parse_rate, hint_rate)
    replay_per_s = parse_option("--replay-rate", parse_rate, replay_rate)
    metrics_at = _metrics_address(metrics_bind) if metrics_bind is not None else None
    # None: each process making a day takes the default share of the machine it runs on.
    publish_bytes = (
        None if publish_memory is None else memory_option("--publish-memory", publish_memory).total
    )
    location = resolve_puzzles(puzzles_dir)  # the one setting: option, variable, folders
    _not_a_database(location.path)
    settings = Settings(
        puzzles=location.path,
        demo=location.demo,
        db=db_target(db),
        max_body=max_body,
        fixed_today=fixed,
        tz=tz,
        open=open_,
        check_interval=check_interval,
        key_limit=RateLimit(key_rate, burst_key) if key_rate else None,
        player_limit=RateLimit(player_rate, burst_player) if player_rate else None,
        analyze_limit=RateLimit(analyze_per_s, analyze_burst) if analyze_per_s else None,
        hint_limit=RateLimit(hint_per_s, hint_burst) if hint_per_s else None,
        max_analyses=max_analyses,
        max_hints=max_hints,
        replay_limit=RateLimit(replay_per_s, replay_burst) if replay_per_s else None,
        max_replays=max_replays,
        trusted_proxies=tuple(_proxy_network(p) for p in trusted_proxy or ()),
        attempt_timeout=attempt_timeout,
        speed_floor_ms=speed_floor,
        max_open_attempts=max_open_attempts,
        max_attempt_steps=max_attempt_steps,
        attempts_per_minute=attempts_per_minute,
        attempts_per_day=attempts_per_day,
        max_tokens=max_tokens,
        claims_per_day=claims_per_day,
        keep_steps_hours=keep_steps,
        review_untimed_par=review_par,
        rank_untimed=rank_untimed,
        par_pace_ms=par_pace,
        link_guesses=link_guesses,
        secret_file=secret_file,
        ahead=ahead,
        publish_memory=publish_bytes,
    )
    read_secret(secret_file)  # one line and exit 2 for an unreadable or weak secret
    try:  # uvicorn would log a traceback-like report and exit 1 or 3; one line and 2 here
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.create_server((host, port), family=family):
            pass
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", 2) from None
    try:
        server = create_app(settings)  # also what the workers will do: fail here, once
    except (PuzzleSetError, StoreError) as exc:
        raise fail(str(exc), 2) from None
    # Which engine serves, at the top of the log: a server on the Python engine (no compiled
    # core) is much slower, and its operator should see it without a request.
    echo(", ".join(version_lines()), err=True)
    echo(_publishing_line(settings, server.state.publisher.status().today_seconds()), err=True)
    echo(_puzzles_line(location.describe(), settings), err=True)
    if open_:
        echo(
            "warning: --open: submissions need no API key for names nobody has claimed; anyone "
            "who can reach the port may play under such a name (a local demo only: browsers "
            "claim names with player tokens and need no --open)",
            err=True,
        )
    # The limits on connections are read by each connection, in every worker (uvicorn's own
    # limit_concurrency would answer in plain text, and count refused connections too).
    limits = GuardConfig(
        head_timeout,
        body_timeout,
        max_connections,
        max_per_client,
        trusted_proxies=settings.trusted_proxies,
    )
    os.environ[ENV_GUARD] = limits.to_env()
    raise_fd_limit()  # each connection is a file
    options = {
        "http": GuardedH11Protocol,
        "host": host,
        "port": port,
        "access_log": access_log,
        "log_level": "info",
        # uvicorn would take X-Forwarded-For from any loopback peer (its default): the service
        # reads it only from --trusted-proxy (service/clients.py).
        "proxy_headers": False,
    }
    if workers > 1 and not os.environ.get(ENV_MULTIPROC):
        # Each worker writes its metrics there, and /metrics adds them up (service/metrics.py).
        made = os.environ[ENV_MULTIPROC] = tempfile.mkdtemp(prefix="cruel-metrics-")
        atexit.register(shutil.rmtree, made, True)
    if metrics_at is not None:
        _serve_metrics(*metrics_at, server.state.metrics.registry)
    if workers == 1:
        uvicorn.run(server, **options)  # type: ignore[arg-type]
        return
    # Worker processes build their own app from the environment: uvicorn can only start
    # several from an import string.
    os.environ[ENV_SETTINGS] = settings.to_env()
    os.environ[ENV_SUPERVISOR] = str(os.getpid())  # the workers end when it does
    config = uvicorn.Config(APP_FACTORY, factory=True, workers=workers, **options)  # type: ignore[arg-type]
    sock = config.bind_socket()
    # asyncio turns Nagle's algorithm off only on sockets it made itself, and the socket uvicorn
    # shares with its workers is not one: every answer then waited ~40 ms for a delayed ACK
    # (measured: 160 requests/s instead of 600). Accepted connections inherit the option.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    Multiprocess(config, sockets=[sock]).run()


def _not_a_database(path: Path) -> None:
    """``cruel serve --puzzles DB``: the other commands read a database's published days there,
    but a server serves the days of its own ``--db``; one line and exit 2, not "not a folder"."""
    from ..puzzles import is_database

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
    ] = 1800.0,
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
