"""Whether the store's SQLite file is still the one the server opened, and sound (issue #13).

SQLite keeps working on a file deleted or replaced under it: the open connections hold the old
inode, so writes go on succeeding, into a file no one will open again. A corrupted page is met
only by the query that reads it. :class:`StoreWatch` notices all three: it compares the file's
identity (``st_dev``, ``st_ino``) with the one opened at start, and runs ``PRAGMA quick_check``
at start, at intervals, and after the first error of the database. Once the file is gone, another
or unsound, it closes the stores' connections, so that every later use fails (the service
answers 503 ``store-unavailable``) rather than store entries that would be lost. Only a restart
opens the file again (docs/service.md, Integrity).

A full disk (``SQLITE_FULL``) is not a broken file: the watch remembers it for a while, so that
health says so, and the service answers ``disk-full``.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ..constants import CHECK_INTERVAL
from .database import Problem, StoreError, is_busy

__all__ = [
    "FULL_MEMORY",
    "IDENTITY_INTERVAL",
    "StoreWatch",
    "file_identity",
    "is_full",
    "quick_check",
]

#: Seconds between two looks at the file's identity (a ``stat``: cheap).
IDENTITY_INTERVAL: Final = 1.0
#: Seconds health keeps saying ``disk-full`` after the last write refused for a full disk.
FULL_MEMORY: Final = 60.0

_log = logging.getLogger("uvicorn.error")


def is_full(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite's SQLITE_FULL (the disk, or ``max_page_count``, is full)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF == sqlite3.SQLITE_FULL)
    return "database or disk is full" in str(exc)


def file_identity(path: str) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of the file at ``path``; None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def quick_check(path: str) -> str | None:
    """None when SQLite's ``PRAGMA quick_check`` finds the database at ``path`` sound; otherwise
    its first complaint (or why the file cannot be opened), in one line. Read-only, on a
    connection of its own: a check never writes, nor creates a missing file."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=10.0)
    except sqlite3.Error as exc:
        return f"cannot be opened: {exc}"
    try:
        rows = db.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        db.close()
    first = str(rows[0][0]) if rows else "no answer"
    return None if first == "ok" else " ".join(first.split())


class StoreWatch:
    """The integrity of one SQLite file shared by the service's stores.

    ``close_stores`` closes every connection the stores hold on the file (called once, when the
    file is found gone, replaced or unsound). ``interval``: seconds between two quick checks of
    a running server; the file's identity is looked at every second.
    """

    def __init__(
        self,
        path: str,
        close_stores: Callable[[], None],
        interval: float = CHECK_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.interval = interval
        self._close_stores = close_stores
        self._clock = clock
        self._memory = path == ":memory:" or path.startswith("file:")  # nothing to watch
        self._identity = None if self._memory else file_identity(path)
        self._broken: Problem | None = None
        self._full_at: float | None = None
        self._lock = threading.Lock()
        self._checking = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- checks --

    def check_at_start(self) -> None:
        """Refuse a file that fails ``quick_check`` (a :class:`StoreError`, one line), before
        the server answers anything from it."""
        if self._memory:
            return
        found = quick_check(self.path)
        if found is not None:
            raise StoreError(f"{self.path}: failed SQLite's integrity check: {found}")

    def check(self, deep: bool = True) -> Problem | None:
        """Look at the file now: its identity, and with ``deep`` its ``quick_check``. A problem
        found closes the stores for good; the problem, or None."""
        if self._broken is not None or self._memory:
            return self._broken
        now = file_identity(self.path)
        if now is None:
            return self._fail(f"the database file {self.path} was deleted while the server ran")
        if now != self._identity:
            return self._fail(f"the database file {self.path} was replaced while the server ran")
        if deep:
            found = quick_check(self.path)
            if found is not None:
                return self._fail(f"the database file {self.path} is damaged: {found}")
        return None

    def _fail(self, message: str) -> Problem:
        with self._lock:
            if self._broken is None:
                self._broken = Problem(
                    "store-unavailable",
                    f"{message}; nothing more is stored until the server is restarted with a "
                    "sound file (docs/service.md, Integrity)",
                )
                _log.error("store unavailable: %s", message)
                try:
                    self._close_stores()
                except sqlite3.Error:  # closing a connection on a broken file: it is closed
                    pass
            return self._broken

    # -- what the service asks --

    def problem(self) -> Problem | None:
        """What is wrong now: the file (for good), or a full disk (for a while)."""
        if self._broken is not None:
            return self._broken
        if self._full_at is not None and self._clock() - self._full_at < FULL_MEMORY:
            return Problem(
                "disk-full",
                "a write was refused for a full disk less than a minute ago (SQLITE_FULL); "
                "entries are read, not stored, until there is room",
            )
        return None

    def on_error(self, exc: BaseException) -> tuple[str, str]:
        """The code and message to answer for ``exc``, raised by a store; starts a check of
        the file (in a thread of its own) unless the error is a full disk or a lock."""
        if is_full(exc):
            self._full_at = self._clock()
            return "disk-full", f"the disk of the database is full ({exc}); nothing was stored"
        if is_busy(exc):
            return "busy", f"the leaderboard database is busy ({exc}); try again"
        if self._broken is None:
            self._check_soon()
        if self._broken is not None:
            return self._broken.code, self._broken.message
        return (
            "store-unavailable",
            f"the database failed ({exc}); the server is checking the file, try again later",
        )

    def _check_soon(self) -> None:
        with self._lock:
            if self._checking:
                return
            self._checking = True

        def run() -> None:
            try:
                self.check()
            finally:
                self._checking = False

        threading.Thread(target=run, name="cruel-store-check", daemon=True).start()

    # -- at intervals --

    def start(self) -> None:
        """Look at the file every second, and quick-check it every ``interval`` seconds, in a
        thread of its own, until :meth:`stop`."""
        if self._memory or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="cruel-store-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _run(self) -> None:
        step = min(IDENTITY_INTERVAL, self.interval)
        last_deep = self._clock()
        while not self._stop.wait(step):
            deep = self._clock() - last_deep >= self.interval
            if deep:
                last_deep = self._clock()
            if self.check(deep) is not None:
                return
