"""``cruel serve`` against hostile clients (issue #13): time limits on whole requests, caps on
connections, a log that a client cannot flood, workers that die with their supervisor.

:class:`GuardedH11Protocol` is uvicorn's HTTP/1.1 protocol with these limits, each set by an
option of ``cruel serve`` (docs/service.md, Hostile clients):

- ``--head-timeout``: a request's line and headers must arrive within this time of the
  connection's opening (or of the previous answer); otherwise the connection is closed.
- ``--body-timeout``: its body must arrive within this time of its head; otherwise the answer is
  408 ``request-timeout`` and the connection is closed. Together: no request holds a connection
  longer than the two, however slowly it trickles.
- ``--max-connections``: connections open in one process. When every place is taken, a new
  connection must send its whole request (head and body) within :data:`REFUSED_WAIT` seconds
  of its opening; when it does, the connection that has waited longest for its client's bytes
  (a head, or a body), from the address holding the most places, is shed to make room for it,
  if that address holds more places than the newcomer's (issue #24: slow connections from many
  addresses, each under the per-address cap, took every place). Otherwise the newcomer is
  answered 503 ``server-full`` and closed.
- ``--max-per-client``: connections open from one client address; one more is answered 429
  ``too-many-connections`` and closed, so that one address cannot take every place.
- ``--trusted-proxy``: a reverse proxy's connections carry many clients' requests: they are not
  capped per address and never shed (the proxy limits its clients; docs/service.md,
  Connections and reverse proxies). On them, and only on them, each request's client is the
  one ``X-Forwarded-For`` names (:func:`cruel_tools.service.clients.client_address`, the one
  rule), written into the ASGI scope, so that the access log and the service see it.

A refused connection is answered as soon as its request is in (at most :data:`REFUSED_WAIT`
seconds), and takes no place while it waits. A client's own failure (a body
dropped half-way, a request too slow, bytes that are not HTTP) is one line in the log at most,
and no more than one such line a second (:data:`CLIENT_FAILURES`), never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import asdict, dataclass
from typing import Any, Final, Protocol

import h11
import orjson
from starlette.requests import ClientDisconnect
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..api import ErrorResponse
from ..constants import BODY_TIMEOUT, HEAD_TIMEOUT, MAX_BODY, MAX_CONNECTIONS, MAX_PER_CLIENT
from .proxies import forwarded_client, is_trusted

__all__ = [
    "ANSWERED",
    "CLIENT_FAILURES",
    "ENV_GUARD",
    "ENV_SUPERVISOR",
    "GuardConfig",
    "GuardedH11Protocol",
    "LINGER",
    "PLACES",
    "Member",
    "Places",
    "QuietClientFailures",
    "REFUSED_WAIT",
    "RateLimitedLog",
    "config",
    "die_with_parent",
    "raise_fd_limit",
]

#: Where ``cruel serve`` passes the limits to the protocol (and to its workers).
ENV_GUARD: Final = "CRUEL_SERVE_GUARD"
#: Where ``cruel serve --workers N`` tells its workers the supervisor's process id.
ENV_SUPERVISOR: Final = "CRUEL_SERVE_SUPERVISOR"
#: Seconds a refused connection may take to send its request head (then it is closed unanswered).
REFUSED_WAIT: Final = 2.0
#: Seconds a connection is kept open, reading and dropping, after its last answer: a close with
#: unread bytes would be a reset, which can destroy the answer before the client reads it.
LINGER: Final = 1.0
#: Key of the ASGI scope set when the protocol has answered the request itself (a late body).
ANSWERED: Final = "cruel.answered"

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


@dataclass(frozen=True)
class GuardConfig:
    """The limits of :class:`GuardedH11Protocol` (``cruel serve``'s options)."""

    head_timeout: float = HEAD_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    max_per_client: int = MAX_PER_CLIENT
    #: Addresses or networks of reverse proxies (``--trusted-proxy``), as ``Settings`` has them.
    trusted_proxies: tuple[str, ...] = ()

    def to_env(self) -> str:
        return orjson.dumps(asdict(self)).decode()

    def trusts(self, host: str | None) -> bool:
        """Whether ``host`` (a connection's peer) is one of the trusted proxies."""
        return is_trusted(host, self.trusted_proxies)


@functools.lru_cache(maxsize=4)
def _config_of(text: str | None) -> GuardConfig:
    if not text:
        return GuardConfig()
    doc = orjson.loads(text)
    doc["trusted_proxies"] = tuple(doc.get("trusted_proxies", ()))
    return GuardConfig(**doc)


def config() -> GuardConfig:
    """The limits of this process, from :data:`ENV_GUARD` (defaults when unset)."""
    return _config_of(os.environ.get(ENV_GUARD))


class RateLimitedLog:
    """At most one line per ``interval`` seconds; the lines left out are counted in the next."""

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self._last = -float("inf")
        self._left_out = 0

    def allow(self) -> str | None:
        """None when a line now would be one too many (it is counted); otherwise what to add
        to the line (the count of those left out since the last, or nothing)."""
        now = self.clock()
        if now - self._last < self.interval:
            self._left_out += 1
            return None
        self._last = now
        left_out, self._left_out = self._left_out, 0
        return f" (and {left_out} more since the last such line)" if left_out else ""

    def warning(self, message: str) -> None:
        suffix = self.allow()
        if suffix is not None:
            self.logger.warning("%s%s", message, suffix)


#: The log of clients' own failures: one line a second at most, for the whole process.
CLIENT_FAILURES: Final = RateLimitedLog(logging.getLogger("uvicorn.error"))

#: uvicorn's own lines about a client's failure (one per bad request), rate-limited too.
_CLIENT_LINES: Final = frozenset({"Invalid HTTP request received."})


class _ClientFailureFilter(logging.Filter):
    """On uvicorn's logger: its lines about a client's failure share the rate limit, and a
    client's disconnection never comes with a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, ClientDisconnect):
            record.msg, record.args, record.exc_info, record.exc_text = (
                "a client closed its connection before its request was read",
                (),
                None,
                None,
            )
        elif record.getMessage() not in _CLIENT_LINES:
            return True
        suffix = CLIENT_FAILURES.allow()
        if suffix is None:
            return False
        record.msg, record.args = f"{record.getMessage()}{suffix}", ()
        return True


@functools.cache
def _install_filter() -> None:
    logging.getLogger("uvicorn.error").addFilter(_ClientFailureFilter())


def _client_text(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "a client"


def _error_body(status: int, code: str, message: str) -> bytes:
    doc = ErrorResponse(status=status, code=code, message=message).model_dump(mode="json")
    return orjson.dumps(doc)


def _refusal(status: int, code: str, message: str) -> _ASGIApp:
    """An ASGI app answering every request with this error, and closing the connection."""
    body = _error_body(status, code, message)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", b"1"),
        (b"connection", b"close"),
    ]

    async def app(scope: _Scope, receive: _Receive, send: _Send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


class Member(Protocol):
    """What :class:`Places` asks of a connection it admits (a :class:`GuardedH11Protocol`)."""

    @property
    def host(self) -> str | None:
        """The peer's address (None: not known)."""

    @property
    def since(self) -> float:
        """When it began waiting for its client's bytes (loop time)."""

    @property
    def trusted(self) -> bool:
        """Whether the peer is a trusted proxy (``--trusted-proxy``)."""

    def sheddable(self) -> bool:
        """Whether it waits for its client (for a request head, or for a body): no work of the
        server's is lost by closing it."""

    def shed(self) -> None:
        """Close it, for a newcomer; its place is taken back already."""


class Places:
    """The connections admitted by this process, in all and by client address."""

    def __init__(self) -> None:
        self.total = 0
        self.by_client: dict[str, int] = {}
        self.refused = 0  # refused connections waiting for their request head
        self.shed = 0  # connections shed for a newcomer, since the start
        self.members: set[Member] = set()

    def take(self, conn: Member, limits: GuardConfig) -> _ASGIApp | None:
        """Admit a connection (None), or the app that refuses it."""
        host = conn.host
        if self.total >= limits.max_connections:
            return _refusal(
                503,
                "server-full",
                f"the server has {self.total} connections open, its limit (--max-connections); "
                "retry later",
            )
        held = self.by_client.get(host, 0) if host is not None else 0
        if held >= limits.max_per_client and not conn.trusted:
            return _refusal(
                429,
                "too-many-connections",
                f"{host} has {held} connections open, the limit for one client address "
                "(--max-per-client); close one before opening another",
            )
        self._add(conn)
        return None

    def under_cap(self, conn: Member, limits: GuardConfig) -> bool:
        """Whether ``conn``'s address may hold one more place (``--max-per-client``)."""
        if conn.host is None or conn.trusted:
            return True
        return self.by_client.get(conn.host, 0) < limits.max_per_client

    def admit_late(self, conn: Member, limits: GuardConfig, shed: bool = True) -> bool:
        """Admit a refused connection whose request has come, if a place has come free or
        (``shed``) one can be shed for it (:meth:`shed_for`)."""
        if not self.under_cap(conn, limits):
            return False
        if self.total < limits.max_connections:
            self._add(conn)
            return True
        return shed and self.shed_for(conn, limits) is not None

    def shed_for(self, conn: Member, limits: GuardConfig) -> Member | None:
        """Shed a connection to make room for ``conn``, whose request came while every place
        was taken: of the connections waiting for their clients, the one waiting longest
        from the address holding the most places, if that address holds more than ``conn``'s
        (a swap between addresses holding as many would be no fairer). A trusted proxy's
        connections are never shed, and a proxy's newcomer counts as an address holding none
        (it stands for its clients). The connection shed (``conn`` now holds its place), or
        None."""
        if not self.under_cap(conn, limits):
            return None
        # A proxy's newcomer, or one of no known address, counts as holding no place.
        mine = 0 if conn.host is None or conn.trusted else self.by_client.get(conn.host, 0)
        victim: Member | None = None
        best = (mine, 0.0)  # to beat: an address holding more than the newcomer's
        for member in self.members:
            if member.trusted or member.host is None or not member.sheddable():
                continue
            key = (self.by_client[member.host], -member.since)
            if key[0] > mine and (victim is None or key > best):
                victim, best = member, key
        if victim is None:
            return None
        self.give_back(victim)
        victim.shed()
        self.shed += 1
        self._add(conn)
        return victim

    def _add(self, conn: Member) -> None:
        self.total += 1
        self.members.add(conn)
        if conn.host is not None:
            self.by_client[conn.host] = self.by_client.get(conn.host, 0) + 1

    def give_back(self, conn: Member) -> None:
        self.total -= 1
        self.members.discard(conn)
        if conn.host is not None:
            left = self.by_client[conn.host] - 1
            if left:
                self.by_client[conn.host] = left
            else:
                del self.by_client[conn.host]  # memory: only addresses with open connections


#: This process's places (protocol callbacks all run on its one event loop).
PLACES: Final = Places()


@functools.lru_cache(maxsize=4)
def _forwarded(app: _ASGIApp, limits: GuardConfig) -> _ASGIApp:
    """``app`` on a trusted proxy's connection: each request's ``client`` is the address
    :func:`~cruel_tools.service.proxies.forwarded_client` reads from ``X-Forwarded-For`` (port 0,
    as the proxy's header has none). uvicorn's own reading of the header is off (``cruel
    serve``): it believed any loopback peer."""
    proxies = limits.trusted_proxies

    async def forwarded(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] == "http":
            peer = scope["client"][0] if scope.get("client") else "unknown"
            headers = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-for"]
            scope["client"] = (forwarded_client(peer, headers, proxies), 0)
        await app(scope, receive, send)

    return forwarded


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with the limits of :class:`GuardConfig` (module docs).

    uvicorn times out only an idle connection after an answer: a client that connects and sends
    nothing, half a header, or headers promising a body that never comes, would hold its
    connection, and one of the ``--max-connections`` places, for ever.
    """

    _timer: asyncio.TimerHandle | None = None
    _waiting_after: object = None  # the request cycle the awaited head comes after
    _timed_cycle: object = None  # the request whose body is being timed
    _admitted = False
    _refused = False
    _lingering = False
    #: The peer's address (:class:`Member`), whether it is a trusted proxy, and since when the
    #: connection has waited for its client's bytes (loop time).
    host: str | None = None
    trusted = False
    since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        _install_filter()
        self._limits = config()
        self.host = self.client[0] if self.client else None
        self.trusted = self._limits.trusts(self.host)
        if self.trusted:
            self.app = _forwarded(self.app, self._limits)
        self.since = self.loop.time()
        refusal = PLACES.take(self, self._limits)
        if refusal is None:
            self._admitted = True
            self._await_head()
            return
        if PLACES.refused >= 4 * self._limits.max_connections:
            transport.abort()  # more refusals waiting than can be answered: no answer
            return
        PLACES.refused += 1
        self._refused = True
        # When its request comes: a place, if one is free or can be shed; else the refusal.
        self.app = self._admit_or(self.app, refusal)
        wait = min(self._limits.head_timeout, REFUSED_WAIT)
        self._timer = self.loop.call_later(wait, self._head_late)

    def _admit_or(self, app: _ASGIApp, refusal: _ASGIApp) -> _ASGIApp:
        """The app of a refused connection, run when its request head is in: it takes a place
        if one has come free, or, once the whole request is in (its body too: a prompt
        client), if :meth:`Places.admit_late` can shed one for it; then it serves the request.
        Waiting for the body first means that a client whose own requests stall never sheds
        anyone (measured: 300 such clients from 10 addresses otherwise shed each other some
        250 times a second, and health's median took 0.4 s)."""

        async def deciding(scope: _Scope, receive: _Receive, send: _Send) -> None:
            admitted = False
            if self._refused and not self.transport.is_closing():
                admitted = PLACES.admit_late(self, self._limits, shed=False)
                # Over its address's cap, it is refused (429) at once; otherwise it may take
                # another's place once its request is whole.
                if (
                    not admitted
                    and PLACES.under_cap(self, self._limits)
                    and await self._whole_request()
                ):
                    admitted = self._refused and PLACES.admit_late(self, self._limits)
            if admitted:
                self._refused = False
                PLACES.refused -= 1
                self._admitted = True
                self.app = app
                self._stop_timer()
                self.since = self.loop.time()
                cycle = self.cycle
                if cycle is not None and cycle.more_body:
                    self._timer = self.loop.call_later(
                        self._limits.body_timeout, self._body_late, cycle
                    )
                await app(scope, receive, send)
                return
            await refusal(scope, receive, send)

        return deciding

    async def _whole_request(self) -> bool:
        """Whether the request's body comes whole before :data:`REFUSED_WAIT` from the
        connection's opening (at most :data:`MAX_BODY` bytes of it are held meanwhile). The app
        then reads it as it would have (the body stays in the request's cycle)."""
        cycle = self.cycle
        if cycle is None:
            return False
        deadline = self.since + min(self._limits.head_timeout, REFUSED_WAIT)
        if cycle.waiting_for_100_continue and cycle.more_body:  # the client waits for our word
            with contextlib.suppress(h11.LocalProtocolError):
                self.transport.write(
                    self.conn.send(
                        h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue")
                    )
                    or b""
                )
            cycle.waiting_for_100_continue = False
        while cycle.more_body and not cycle.disconnected and len(cycle.body) <= MAX_BODY:
            left = deadline - self.loop.time()
            if left <= 0 or self.transport.is_closing():
                return False
            self.flow.resume_reading()
            try:
                await asyncio.wait_for(cycle.message_event.wait(), left)
            except TimeoutError:
                return False
            cycle.message_event.clear()
        cycle.message_event.set()  # the app's first receive reads what has come
        return not cycle.more_body and not cycle.disconnected

    # -- shedding (Member) --

    def sheddable(self) -> bool:
        if not self._admitted or self._lingering or self.transport.is_closing():
            return False
        cycle = self.cycle
        if cycle is None or cycle is self._waiting_after:
            return True  # waiting for a request head (the first, or the next)
        # Waiting for the body of a request not yet answered (the app waits for it).
        return bool(cycle.more_body and not cycle.response_started and not cycle.disconnected)

    def shed(self) -> None:
        self._admitted = False  # its place is the newcomer's already
        CLIENT_FAILURES.warning(
            f"{_client_text(self.client)}: shed, waiting for its request for "
            f"{self.loop.time() - self.since:.1f} s when the server was full and a prompt "
            "request came (--max-connections)"
        )
        cycle = self.cycle
        if cycle is not None and cycle is not self._waiting_after:
            self._answer_and_close(
                cycle,
                503,
                "server-full",
                "the server was full and this request's body was the slowest in coming; "
                "retry later",
                b"Service Unavailable",
            )
            return
        self._stop_timer()
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # after our last answer: read and dropped
        super().data_received(data)
        self._note_head()

    def on_response_complete(self) -> None:
        # Armed before uvicorn takes up a pipelined request, which then counts as arrived.
        self._await_head()
        super().on_response_complete()
        self._note_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        if self._admitted:
            self._admitted = False
            PLACES.give_back(self)
        if self._refused:
            self._refused = False
            PLACES.refused -= 1
        super().connection_lost(exc)

    # -- the head --

    def _await_head(self) -> None:
        self._stop_timer()
        self._waiting_after = self.cycle
        self.since = self.loop.time()
        self._timer = self.loop.call_later(self._limits.head_timeout, self._head_late)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_late(self) -> None:
        self._timer = None
        if self.cycle is self._waiting_after and not self.transport.is_closing():
            self.transport.close()

    # -- the body --

    def _note_head(self) -> None:
        """When a new request's head has arrived: time its body, if it has one to come."""
        cycle = self.cycle
        if cycle is None or cycle is self._waiting_after or cycle is self._timed_cycle:
            return
        self._timed_cycle = cycle
        if self._refused:
            return
        self._stop_timer()
        if cycle.more_body:
            self._timer = self.loop.call_later(self._limits.body_timeout, self._body_late, cycle)

    def _body_late(self, cycle: Any) -> None:
        self._timer = None
        if cycle is not self.cycle or not cycle.more_body or self.transport.is_closing():
            return
        if cycle.disconnected or cycle.response_complete:
            return
        seconds = self._limits.body_timeout
        CLIENT_FAILURES.warning(
            f"{_client_text(self.client)}: request body not complete {seconds:g} s after its "
            "head (--body-timeout): answered 408 and closed"
        )
        self._answer_and_close(
            cycle,
            408,
            "request-timeout",
            f"the request's body did not arrive within {seconds:g} s of its head (--body-timeout)",
            b"Request Timeout",
        )

    def _answer_and_close(
        self, cycle: Any, status: int, code: str, message: str, reason: bytes
    ) -> None:
        """Answer a request whose body has not all come with this error, and close."""
        cycle.scope[ANSWERED] = True
        if not cycle.response_started:
            body = _error_body(status, code, message)
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ]
            cycle.response_started = True
            try:
                out = self.conn.send(
                    h11.Response(status_code=status, headers=headers, reason=reason)
                )
                out = (out or b"") + (self.conn.send(h11.Data(data=body)) or b"")
                out += self.conn.send(h11.EndOfMessage()) or b""
            except h11.LocalProtocolError:  # the connection is past answering: just close
                out = b""
            self.transport.write(out)
            cycle.response_complete = True
        # The app, waiting for the body, reads a disconnection; its answer goes nowhere.
        cycle.disconnected = True
        cycle.message_event.set()
        self._linger()

    def _linger(self) -> None:
        """Close after :data:`LINGER` seconds, dropping what the client still sends."""
        self._lingering = True
        self._stop_timer()
        with contextlib.suppress(OSError, RuntimeError):
            if self.transport.can_write_eof():
                self.transport.write_eof()
        self.flow.resume_reading()
        self._timer = self.loop.call_later(LINGER, self.transport.close)


class QuietClientFailures:
    """ASGI middleware: a request whose client went away before its body was read is one line
    of :data:`CLIENT_FAILURES` (rate-limited), not a traceback and a 500 to no one."""

    def __init__(self, app: _ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            if scope.get(ANSWERED):
                return  # the protocol answered 408 and logged it
            client = scope.get("client")
            CLIENT_FAILURES.warning(
                f"{_client_text(client)}: closed the connection before its request body was "
                f"complete ({scope.get('method')} {scope.get('path')})"
            )


# --- processes -----------------------------------------------------------------------------------


def raise_fd_limit() -> int:
    """Raise this process's limit of open files to its hard limit (each connection is one);
    the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft


#: prctl(2)'s option: the signal this process gets when its parent dies.
_PR_SET_PDEATHSIG: Final = 1


def die_with_parent(poll: float = 1.0) -> None:
    """Make this worker process end (SIGTERM: a graceful stop) when its supervisor dies, even
    by SIGKILL: on Linux, ``prctl(PR_SET_PDEATHSIG)``; everywhere, a thread that looks at the
    parent's id every ``poll`` seconds. A worker whose supervisor is gone would go on serving
    the port, and a new server could not listen on it.

    The supervisor's id is :data:`ENV_SUPERVISOR` when set (it may have died before this
    call); otherwise the parent now.
    """
    expected = int(os.environ.get(ENV_SUPERVISOR) or os.getppid())
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def orphaned() -> bool:
        return os.getppid() != expected

    if orphaned():  # died before the prctl: nothing would tell us
        os.kill(os.getpid(), signal.SIGTERM)
        return

    def watch() -> None:
        while not orphaned():
            time.sleep(poll)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="cruel-parent-watch", daemon=True).start()
