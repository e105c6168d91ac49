"""Bounds on the costly routes (``POST /v1/analyze``, issue #24; ``POST /v1/hint``, issue #27): a
rate limit per client address and per API key, and a cap on those running at once in a server
process, so that a flood of them never starves the cheap requests (docs/service.md, Help for open
puzzles and costly requests).

Analyses and hints have places of their own (``--max-analyses``, ``--max-hints``) and pools of
processes of their own (issue #33, finding 3): when they shared one place, one address looping
analyses of a costly win (4 s each on royal-family-pysolfc) got hints refused ``busy`` 24 times
of 25, and a hint admitted would have waited behind the analysis in the pool's one process.
Within a kind, one client (an address, or an API key) holds at most half the places (at least
one), so that with several places no one client takes them all.

One :class:`CostlyGate` per app. :meth:`CostlyGate.admit` is synchronous on purpose: the check of
the cap, the token and the count of running analyses happen with no ``await`` in between, so two
requests of one event loop can never both take the last place.

The analyses run in a pool of ``settings.max_analyses`` processes of their own, not on threads:
the native solver releases the interpreter's lock, but a win's fewest-actions search is mostly
Python and held it, so on a thread one analysis made ``/v1/health`` wait (p99 609 ms during
benchmarks/hostile_bench.py's analyze flood; in a process of its own: see
benchmarks/RESULTS.md, issue #24). The pool is started by the first analysis, not with the app,
so that an app that never analyses (most tests) starts no process.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final, TypeVar

from fastapi import Request

from ..site.keys import ApiKey, RateLimit, TokenBuckets
from .clients import client_address
from .config import Settings
from .errors import ApiError
from .workers import WorkerProcesses

__all__ = [
    "BUSY",
    "BUSY_RETRY",
    "RATE_LIMITED",
    "ANALYSIS_NICE",
    "HINT_NICE",
    "CostlyGate",
    "KindLimit",
]

#: 503: the process runs as many analyses as it may; retry (a database lock says ``busy`` too).
BUSY: Final = "busy"
#: Seconds a client is told to wait after a ``busy`` answer (an analysis takes at most about a
#: second and a half, benchmarks/RESULTS.md, issue #24).
BUSY_RETRY: Final = 2
#: 429: the address or key asked for more analyses than its bucket holds (as submissions).
RATE_LIMITED: Final = "rate-limited"

#: How much lower the analyses' processes run than the server's (``os.nice``).
ANALYSIS_NICE: Final = 10
#: How much lower the hints' processes run than the server's: under the server, above the
#: analyses, so that on a machine with few cores a hint (a twentieth of an analysis' budget)
#: is not slowed down by a flood of analyses.
HINT_NICE: Final = 5

_T = TypeVar("_T")


class KindLimit:
    """One kind of costly request's rate limit: a bucket per client address and one per API
    key, both of ``limit`` (None: no limit)."""

    def __init__(self, what: str, limit: RateLimit | None, settings: Settings) -> None:
        self.what = what
        self.addresses = TokenBuckets(limit, settings.clock) if limit else None
        self.keys = TokenBuckets(limit, settings.clock) if limit else None


class CostlyGate:
    """The rate limits of one app's costly requests (analyses: ``settings.analyze_limit``;
    hints: ``settings.hint_limit``; buckets of their own, so that a player's hints never spend
    their analyses), and the places and pool of one kind of them: the app makes the analyses'
    gate, and :meth:`hints` gives the hints' (the same buckets; places and processes of their
    own, ``settings.max_hints``)."""

    def __init__(
        self,
        settings: Settings,
        what: str = "analyses",
        *,
        most: int | None = None,
        nice: int = ANALYSIS_NICE,
        limits: dict[str, KindLimit] | None = None,
        share: int | None = None,
        retry: int = BUSY_RETRY,
    ) -> None:
        self.settings = settings
        self.what = what
        self.limits = limits or {
            "analyses": KindLimit("analyses", settings.analyze_limit, settings),
            "hints": KindLimit("hints", settings.hint_limit, settings),
        }
        self.most = settings.max_analyses if most is None else most
        #: Places one client may hold at once: by default half of them, at least one.
        self.share = max(1, self.most // 2) if share is None else share
        #: Seconds a ``busy`` answer tells the client to wait.
        self.retry = retry
        self.running = 0
        self.holding: Counter[str] = Counter()
        self.nice = nice
        self.workers = WorkerProcesses(self.most, nice, what, retry)
        self._hints: CostlyGate | None = None

    def hints(self) -> CostlyGate:
        """The hints' gate: this gate's rate limits, places (``settings.max_hints``) and
        processes of its own, so that analyses never take a hint's place nor delay it."""
        if self._hints is None:
            self._hints = CostlyGate(
                self.settings,
                "hints",
                most=self.settings.max_hints,
                nice=HINT_NICE,
                limits=self.limits,
            )
        return self._hints

    def _client(self, request: Request, key: ApiKey | None) -> tuple[str, str]:
        """Who asks, and in words: a key (a site's back end sends for all its players from one
        address), else the client's address."""
        if key is not None:
            return f"key {key.id}", "with this API key"
        return client_address(request, self.settings), "from this address"

    def _throttle(self, request: Request, key: ApiKey | None, kind: str) -> None:
        """Take a token of ``kind``'s limit: a key's requests from the key's bucket, the
        others' from their address's; 429 when empty."""
        limit = self.limits[kind]
        bucket, words = self._client(request, key)
        buckets = limit.keys if key is not None else limit.addresses
        if buckets is None:
            return
        wait = buckets.take(bucket)
        if wait > 0:
            seconds = max(1, math.ceil(wait - 1e-9))
            raise ApiError(
                429,
                RATE_LIMITED,
                f"too many {limit.what} {words}; retry in {seconds} s",
                headers={"Retry-After": str(seconds)},
            )

    def _busy(self, why: str | None = None) -> ApiError:
        why = why or f"the server is running as many {self.what} as it may at once"
        return ApiError(
            503, BUSY, f"{why}; retry in {self.retry} s", headers={"Retry-After": str(self.retry)}
        )

    def refuse_when_full(self) -> None:
        """503 ``busy`` at once when every place is taken: called before the body is read, so
        that a flood costs the server no reading and parsing of logs it would not analyse
        (:meth:`admit` checks again: a place may be taken meanwhile)."""
        if self.running >= self.most:
            raise self._busy()

    @contextmanager
    def admit(self, request: Request, key: ApiKey | None, kind: str = "analyses") -> Iterator[None]:
        """A place among the running costly requests, held until the block ends: 503 ``busy``
        when they are all taken (never queued: a queue without bound is memory and waiting
        clients; a bounded one only delays the same answer), else 429 when the sender's
        bucket of ``kind`` (``analyses`` or ``hints``) is empty (a busy answer takes no token:
        retrying it costs nothing). 503 ``busy`` too when the sender already holds its share of
        the places (:attr:`share`)."""
        self.refuse_when_full()
        client, words = self._client(request, key)
        if self.holding[client] >= self.share:
            raise self._busy(f"as many {self.what} as one client may run at once are asked {words}")
        self._throttle(request, key, kind)
        self.running += 1
        self.holding[client] += 1
        try:
            yield
        finally:
            self.running -= 1
            self.holding[client] -= 1
            if not self.holding[client]:
                del self.holding[client]

    async def run(self, work: Callable[[], _T]) -> _T:
        """Run ``work`` (picklable) in this kind's own processes (:mod:`.workers`)."""
        return await self.workers.run(work)

    def close(self) -> None:
        """Stop the pool's processes, and the hints' (the app's end)."""
        self.workers.close()
        if self._hints is not None:
            self._hints.close()
