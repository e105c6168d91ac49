"""Days published ahead by ``cruel serve`` (issue #26, docs/service.md, Publishing ahead).

A server with its site's secret keeps today and the ``ahead`` days after it published: a
:class:`Publisher` thread in each server process looks for the first missing day, and the one
process that holds the :class:`GenerationLock` (PostgreSQL: a session advisory lock on a
connection of its own; SQLite: ``flock`` on ``<db>.publish.lock``) makes it in a child process at
low priority with :func:`cruel_tools.puzzles.daily_puzzles` (what ``cruel daily`` writes, byte
for byte), then writes its tiers in one transaction into ``published_puzzles``
(:class:`PublishedDays`). Every process reads the days published there into the set it serves.

The days live in the database, not the puzzles folder: instances sharing one PostgreSQL server
need not share a file system, and a transaction makes a day appear whole, once. The folder stays
the set read at start (committed or made by ``cruel daily``); a day found there is not made again.

Only a secret stream is published ahead on a server that ranks players: the public stream lets
anyone compute every future day. Without a secret nothing is published (``--open``, the local
demo, publishes the public stream).
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import fcntl
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, Literal

from ..constants import DB_TIMEOUT, PUBLISH_AHEAD
from ..puzzles import (
    Puzzle,
    PuzzleSet,
    PuzzleSetError,
    check_secret,
    daily_puzzles,
    key_fingerprint,
    puzzle_bytes,
)
from ..search.grading import TIERS, Budget
from .database import is_postgres, one_line
from .puzzle_sources import PUBLIC_STREAM
from .tables import Store

__all__ = [
    "AHEAD",
    "DAY_SECONDS",
    "LOCK_KEY",
    "Stream",
    "PublishedDays",
    "GenerationLock",
    "PublishStatus",
    "Publisher",
    "read_secret",
    "make_day",
    "publishing_status",
]

#: Days after today kept published by default (``cruel serve --ahead``).
AHEAD: Final = PUBLISH_AHEAD
#: The advisory lock of the one generating instance on a PostgreSQL server.
LOCK_KEY: Final = "cruel-tools publishing"
#: Which stream a server publishes ahead: its secret's, the public one (``--open``), or none.
Stream = Literal["secret", "public", "none"]
#: Nice increment of the generating process: requests come first.
_NICENESS: Final = 10
#: Longest wait between two tries after failures (seconds).
_MOST_WAIT: Final = 300.0
#: Seconds a day takes to make, said before this process has made one (the wait for today on a
#: first start): the median time from ``cruel serve`` to today's puzzles, 19.3 s over 20 new
#: sites on the shared 2-core machine, native core (benchmarks/first_start.py;
#: benchmarks/RESULTS.md, issue #34). Days vary from 3 s to 2 min, by their par searches.
DAY_SECONDS: Final = 20
#: The least wait said for a day under way: one past its estimate is still coming.
_LEAST_ESTIMATE: Final = 5
_log = logging.getLogger("uvicorn.error")  # the server's log, where its operator looks


def read_secret(path: Path) -> bytes:
    """The secret in ``path`` (less one final newline), checked (:func:`check_secret`):
    ``OSError`` if it cannot be read, :class:`~cruel_tools.puzzles.WeakSecret` if weak."""
    data = path.read_bytes()
    secret = data.removesuffix(b"\n").removesuffix(b"\r") if data.endswith(b"\n") else data
    check_secret(secret)
    return secret


class PublishedDays(Store):
    """The days published ahead (``published_puzzles``): a day's tiers written in one
    transaction, once; read back as puzzles."""

    def puzzles(self, after: Iterable[str] = ()) -> list[Puzzle]:
        """Every published puzzle whose id is not in ``after`` (those already known)."""
        known = set(after)
        with self.database.read() as db:
            rows = db.execute(
                "SELECT day, tier, document FROM published_puzzles ORDER BY day, tier"
            ).fetchall()
        return [
            Puzzle.model_validate_json(document)
            for day, tier, document in rows
            if f"{day}-{tier}" not in known
        ]

    def documents(self) -> list[tuple[str, str, str]]:
        """Every row's ``(day, tier, document)``, by day and tier (for audits and tests)."""
        with self.database.read() as db:
            rows = db.execute(
                "SELECT day, tier, document FROM published_puzzles ORDER BY day, tier"
            ).fetchall()
        return [(str(d), str(t), str(doc)) for d, t, doc in rows]

    def streams(self) -> set[str]:
        """The streams of the days published (one, unless someone mixed them by hand)."""
        with self.database.read() as db:
            rows = db.execute("SELECT DISTINCT stream FROM published_puzzles").fetchall()
        return {str(r[0]) for r in rows}

    def publish(self, day: dt.date, puzzles: list[Puzzle], stream: str) -> bool:
        """Write ``day``'s puzzles in one transaction; False (nothing written) when the day was
        published already, by this or another instance: a day is never published twice."""
        now = dt.datetime.now(dt.UTC).isoformat()
        with self.database.write(lock=f"{LOCK_KEY} {day.isoformat()}") as db:
            found = db.execute(
                "SELECT 1 FROM published_puzzles WHERE day = ?", (day.isoformat(),)
            ).fetchone()
            if found is not None:
                return False
            db.executemany(
                "INSERT INTO published_puzzles"
                " (day, tier, document, generator, stream, published_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (day.isoformat(), p.tier, puzzle_bytes(p).decode(), p.generator, stream, now)
                    for p in puzzles
                ],
            )
        return True


class GenerationLock:
    """Which one of the processes (and instances) sharing a database generates: PostgreSQL's
    session advisory lock :data:`LOCK_KEY` on a connection of its own, held while it lives (a
    process that dies loses it with its connection); SQLite's ``flock`` on
    ``<db>.publish.lock`` (released by the system when the process ends); an in-memory database
    has one process."""

    def __init__(self, db: Path | str) -> None:
        self.db = str(db)
        self.held = False
        self._file: IO[bytes] | None = None
        self._conn: Any = None

    def try_acquire(self) -> bool:
        """Take the lock if it is free (never waits); whether this process holds it."""
        if self.held and self._conn is not None:
            try:  # a lost connection lost the lock with it
                self._conn.execute("SELECT 1")
            except Exception:  # noqa: BLE001 - any failure of the server: take it anew
                self.release()
        if self.held:
            return True
        if is_postgres(self.db):
            self.held = self._try_postgres()
        elif self.db == ":memory:" or self.db.startswith("file:"):
            self.held = True
        else:
            self.held = self._try_file()
        return self.held

    def _try_postgres(self) -> bool:
        import psycopg

        try:
            conn = psycopg.connect(self.db, autocommit=True, connect_timeout=int(DB_TIMEOUT))
            row = conn.execute(
                "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (LOCK_KEY,)
            ).fetchone()
        except psycopg.Error as exc:
            _log.warning("publishing: cannot take the generation lock: %s", one_line(exc))
            return False
        if row is None or not row[0]:
            conn.close()
            return False
        self._conn = conn
        return True

    def _try_file(self) -> bool:
        path = Path(self.db)
        lock = path.with_name(path.name + ".publish.lock")
        handle = open(lock, "ab")  # noqa: SIM115 - held open while the lock is held
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        self.held = False
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None
        if self._file is not None:
            self._file.close()  # closing the file releases flock
            self._file = None


@dataclass
class PublishStatus:
    """What health (and metrics) say of publishing ahead."""

    stream: Stream
    ahead: int
    #: Consecutive days after today with puzzles, at most ``ahead``.
    days_ready: int = 0
    today_ready: bool = False
    #: This process holds the generation lock and is making a day.
    generating: bool = False
    #: Seconds the last day made by this process took.
    last_seconds: float | None = None
    #: What went wrong the last time a day was made here (None: nothing).
    error: str | None = None
    #: The server's date at the last look, and the day this process is making (None: none)
    #: since ``started`` (``time.monotonic``): what the estimate of today's wait is made of.
    today: dt.date | None = None
    making: dt.date | None = None
    started: float | None = None

    def today_seconds(self) -> int | None:
        """About how many seconds until today's puzzles are published (None: they are, or
        nothing publishes them, or the last try failed): the last day made here took
        ``last_seconds``, else :data:`DAY_SECONDS`; less the time the day under way has taken,
        at least :data:`_LEAST_ESTIMATE` (a day past its estimate is still coming)."""
        if self.today_ready or self.stream == "none" or self.error is not None:
            return None
        per_day = self.last_seconds if self.last_seconds is not None else DAY_SECONDS
        left = per_day
        if self.started is not None:
            left = per_day - (time.monotonic() - self.started)
            if self.making != self.today:  # the date turned while yesterday was being made
                left += per_day
        return max(_LEAST_ESTIMATE, round(left))

    def reasons(self) -> list[str]:
        """Why the service is degraded (empty: it is not)."""
        found: list[str] = []
        why = "" if self.stream != "none" else " (no secret: not publishing ahead)"
        coming = self.today_seconds()
        if coming is not None:
            found.append(f"today's puzzles missing: being published (about {coming} s)")
        elif not self.today_ready:
            found.append(f"today's puzzles missing{why}")
        if self.days_ready < self.ahead:
            found.append(f"only {self.days_ready} of {self.ahead} days ahead ready{why}")
        if self.error is not None and (not self.today_ready or self.days_ready < self.ahead):
            found.append(f"publishing failed: {self.error}")
        return found


def _low_priority(parent: int) -> None:
    """The generating process: niced, and ended with the server process that started it."""
    with contextlib.suppress(OSError):
        os.nice(_NICENESS)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # died before the prctl
        os._exit(1)


def make_day(
    day: dt.date, used: frozenset[int], secret: bytes | None, budget: Budget = Budget()
) -> list[bytes]:
    """The puzzles of ``day`` (:func:`cruel_tools.puzzles.daily_puzzles`), as file bytes: what
    the generating process runs. ``budget``: the publisher's, its searches held to its memory
    budget (``cruel serve --publish-memory``)."""
    return [puzzle_bytes(p) for p in daily_puzzles(day, used, budget, secret=secret)]


#: The one publisher of this process, for :func:`publishing_status`.
_current: list[Publisher] = []


def publishing_status() -> PublishStatus | None:
    """The status of this process's publisher (None: none runs), for metrics."""
    return _current[-1].status() if _current else None


@dataclass
class Publisher:
    """Keeps today and ``ahead`` days published (see the module), and the served ``puzzles``
    up to date with the days in ``store``; ``on_new`` is told of each puzzle taken in."""

    store: PublishedDays
    puzzles: PuzzleSet
    today: Callable[[], dt.date]
    ahead: int
    secret: bytes | None
    stream: Stream
    lock: GenerationLock | None
    on_new: Callable[[list[Puzzle]], None] = lambda _found: None
    #: Told the days ready ahead at each look, and the seconds of each day made here (metrics).
    on_days_ready: Callable[[int], None] = lambda _days: None
    on_generated: Callable[[float], None] = lambda _seconds: None
    #: Seconds between two looks at the database while nothing is to be made here.
    poll: float = 5.0
    #: Makes a day (tests give a quick one); None: :func:`make_day` in a niced child process.
    maker: Callable[[dt.date, frozenset[int], bytes | None], list[bytes]] | None = None
    #: What :func:`make_day` grades with: its searches held to the memory budget.
    budget: Budget = Budget()
    _status: PublishStatus = field(init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _pool: ProcessPoolExecutor | None = field(default=None, init=False)
    _said: set[str] = field(default_factory=set, init=False)

    def __post_init__(self) -> None:
        self._status = PublishStatus(self.stream, self.ahead)
        self._count()

    @property
    def label(self) -> str:
        """The stream as the database records it."""
        fingerprint = key_fingerprint(self.secret)
        return PUBLIC_STREAM if fingerprint is None else fingerprint

    def check_stream(self) -> None:
        """Refuse (``secret-mismatch``) a database whose days were published from another
        stream: a server given another secret would publish days no player could tell apart."""
        if self.stream == "none":
            return
        others = self.store.streams() - {self.label}
        if others:
            theirs = ", ".join(sorted(others))
            raise PuzzleSetError(
                f"{self.store.path}: its days published ahead were made from another stream "
                f"({theirs}, not {self.label}): give that secret, or use another database",
                "secret-mismatch",
            )

    def status(self) -> PublishStatus:
        return self._status

    def start(self) -> None:
        _current.append(self)
        self._thread = threading.Thread(target=self._run, name="cruel-publisher", daemon=True)
        self._count()  # the operator's log says at once why days are missing, if they are
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._pool is not None:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                with contextlib.suppress(OSError):
                    process.kill()  # a day half made is made again from scratch
            self._pool.shutdown(wait=False, cancel_futures=True)
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.lock is not None:
            self.lock.release()
        if self in _current:
            _current.remove(self)

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                made = self.step()
                failures = 0
            except Exception as exc:  # noqa: BLE001 - the server goes on serving what it has
                error = one_line(exc)
                if error != self._status.error:  # once per cause, not once per try
                    _log.warning("publishing failed: %s", error)
                self._status.error = error
                self._status.generating = False
                self._status.making = self._status.started = None
                failures += 1
                made = False
            if not made:  # after failures, a longer wait each time (up to 5 minutes)
                self._stop.wait(min(self.poll * 2 ** min(failures, 10), _MOST_WAIT))

    def refresh(self) -> None:
        """Take in the days published since the last look (by any instance)."""
        found = self.store.puzzles(self.puzzles.by_id)
        if found:
            self.puzzles.add(found)
            self.on_new(found)
        self._count()

    def _count(self) -> None:
        today = self.today()
        self._status.today = today
        self._status.today_ready = bool(self.puzzles.on(today))
        ready = 0
        while ready < self.ahead and self.puzzles.on(today + dt.timedelta(days=ready + 1)):
            ready += 1
        self._status.days_ready = ready
        self.on_days_ready(ready)
        if self._thread is None:
            return  # not serving (an app built for its OpenAPI document, say): nothing to tell
        for reason in self._status.reasons():
            said = reason.partition(" (about ")[0]  # the estimate changes at every look
            if said not in self._said and not reason.startswith("publishing failed"):
                # once each: the operator's log says why, not a flood (failures: _run says)
                self._said.add(said)
                _log.warning("publishing: %s", reason)

    def missing(self) -> dt.date | None:
        """The first day from today to ``ahead`` days after it with no puzzles."""
        today = self.today()
        for k in range(self.ahead + 1):
            day = today + dt.timedelta(days=k)
            if not self.puzzles.on(day):
                return day
        return None

    def step(self) -> bool:
        """Look once: take in new days; make the first missing one if this process holds the
        lock. Whether a day was made (then look again at once)."""
        self.refresh()
        day = self.missing()
        if day is None or self.stream == "none" or self.lock is None:
            return False
        if not self.lock.try_acquire():
            return False
        used = frozenset(
            p.deal.number
            for p in self.puzzles.by_id.values()
            if p.date is not None and p.date < day and p.deal.number is not None
        )
        self._status.generating = True
        started = time.monotonic()
        self._status.making, self._status.started = day, started
        _log.info("publishing: making the puzzles of %s (%s stream)", day, self.stream)
        documents = self._make(day, used)
        if self._stop.is_set():
            return False
        made = [Puzzle.model_validate_json(d) for d in documents]
        if not made:
            raise RuntimeError(f"no puzzle found for {day}")
        wrote = self.store.publish(day, made, self.label)
        seconds = time.monotonic() - started
        self._status.generating = False
        self._status.making = self._status.started = None
        self._status.last_seconds = seconds
        self.on_generated(seconds)
        self._status.error = None
        tiers = ", ".join(t for t in TIERS if any(p.tier == t for p in made))
        if wrote:
            _log.info("publishing: published %s (%s) in %.1f s", day, tiers, seconds)
        self.refresh()
        return True

    def _make(self, day: dt.date, used: frozenset[int]) -> list[bytes]:
        if self.maker is not None:
            return self.maker(day, used, self.secret)
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                1, mp_context=context, initializer=_low_priority, initargs=(os.getpid(),)
            )
        return self._pool.submit(make_day, day, used, self.secret, self.budget).result()
