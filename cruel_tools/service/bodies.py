"""Request bodies parsed off the event loop (issue #33, finding 2).

Every route that reads a log or a JSON document reads its body with the size limit
(:func:`.errors.read_body`), then parses it here: a body of at most
:data:`~cruel_tools.constants.PARSE_INLINE_BYTES` on the event loop, a bigger one in one of
:data:`~cruel_tools.constants.MAX_PARSES` threads of this module's own pool.

Why the split: a trip to a thread and back costs little on an idle machine (25 us) but under
load each trip is two hand-overs of the interpreter's lock, and most bodies are small logs (a
won game is 1-3 KB, read in 20-50 us; benchmarks/serve_load.py's verify throughput, measured
side by side in benchmarks/RESULTS.md, issue #33). The worst body of the inline size, 4 KB of
meta holding nested arrays and objects (the duplicate-key check's worst case), parses in about
0.3 ms (median; 0.6 ms at 8 KB). A 960 KB one costs about 0.1 s: on the loop it held every
other request that long.

Why a pool of its own, and of one thread: a parse holds the interpreter's lock in C and Rust
(orjson, pydantic) for up to tens of milliseconds at a time, so threads do not make parsing
faster; they only let the event loop take its turn between them, and each more thread wanting
the lock lengthens the loop's wait for it (a flood of the attacker's body with two parsing
threads: health's p50 170 ms on a loaded machine). A big legal log (60 KB for 10,000 steps)
parses in about 2 ms, so one thread keeps up with honest use. Waiting requests wait in the
pool's queue, bounded by the connection caps (``--max-connections``, ``--max-per-client``).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from fastapi import Request

from ..constants import MAX_PARSES, PARSE_INLINE_BYTES
from ..log import GameLog, Limits, load
from .errors import read_body

__all__ = ["parse_off_loop", "parse_log", "read_log"]

_T = TypeVar("_T")


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """The parsing threads, one pool per process (loop-agnostic: every app of the process, and
    every test's event loop, can use it); started by the first big body."""
    return ThreadPoolExecutor(MAX_PARSES, thread_name_prefix="cruel-parse")


async def parse_off_loop(body: bytes, parse: Callable[[bytes], _T]) -> _T:
    """``parse(body)``: inline for a small body, else in a parsing thread (its exceptions, the
    library's refusals, come back as they were raised)."""
    if len(body) <= PARSE_INLINE_BYTES:
        return parse(body)
    return await asyncio.get_running_loop().run_in_executor(_pool(), parse, body)


async def parse_log(body: bytes, limits: Limits) -> GameLog:
    """A ``cruel-log/1`` log from ``body`` (:func:`cruel_tools.log.load` under ``limits``),
    parsed as :func:`parse_off_loop` says."""
    return await parse_off_loop(body, functools.partial(load, limits=limits))


async def read_log(request: Request, max_body: int, limits: Limits) -> GameLog:
    """The request's body, read with the size limit ``max_body``, as a log."""
    return await parse_log(await read_body(request, max_body), limits)
