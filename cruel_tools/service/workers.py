"""Processes of their own for the costly routes' work (analyses, hints, replays): one
:class:`WorkerProcesses` per kind of work, started by its first request.

Processes, not threads: the work is mostly Python (a win's fewest-actions search, a replay's
positions put in words), and a thread doing it holds the interpreter's lock that the event loop
needs for every request it answers. Two replay threads beside the loop made ``/v1/health``'s
p99 273 ms during a burst of replays on a quiet machine (benchmarks/RESULTS.md, issue #33).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from .errors import ApiError

__all__ = ["WorkerProcesses"]

_T = TypeVar("_T")


class WorkerProcesses:
    """``size`` spawned processes run at ``nice`` below the server, for work that ``what``
    names in a refusal (``analyses``, ``hints``, ``replays``)."""

    def __init__(self, size: int, nice: int, what: str, retry: int) -> None:
        self.size = size
        self.nice = nice
        self.what = what
        self.retry = retry
        self._pool: ProcessPoolExecutor | None = None
        self._starting = threading.Lock()

    def _start(self) -> ProcessPoolExecutor:
        """The pool, its processes started: called on a worker thread (:meth:`run`), because
        starting a process forks this one, tens of milliseconds the event loop would wait
        (the first big body's parse showed it as the loop's worst lag)."""
        with self._starting:
            pool = self._pool
            if pool is None:
                # spawn, not fork: this process has threads (the event loop's, the thread
                # pool's), and a forked child may inherit a lock another thread held.
                context = multiprocessing.get_context("spawn")
                # Niced: on a machine with few cores the work gives way to the server's own
                # process, so cheap requests are answered first (health's p99, issue #24).
                pool = ProcessPoolExecutor(
                    self.size, mp_context=context, initializer=os.nice, initargs=(self.nice,)
                )
                # A no-op per process: the pool starts its processes as work arrives.
                for done in [pool.submit(int) for _ in range(self.size)]:
                    done.result()
                self._pool = pool
            return pool

    async def run(self, work: Callable[[], _T]) -> _T:
        """Run ``work`` (picklable: a module's function, or a partial of one) in a process,
        off this process's event loop and interpreter lock. A pool whose process died
        (killed, out of memory) is replaced, and the request answered 503 ``busy``."""
        pool = self._pool
        if pool is None:
            pool = await asyncio.to_thread(self._start)
        try:
            return await asyncio.wrap_future(pool.submit(work))
        except BrokenProcessPool:
            with self._starting:
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise ApiError(
                503,
                "busy",
                f"the process running {self.what} stopped; retry in {self.retry} s",
                headers={"Retry-After": str(self.retry)},
            ) from None

    def close(self) -> None:
        """Stop the processes (the app's end)."""
        with self._starting:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
