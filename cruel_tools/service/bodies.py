"""Request bodies parsed off the event loop (issue #33, finding 2).

Every route that reads a log or a JSON document reads its body with the size limit
(:func:`.errors.read_body`), then parses it here: a body of at most
:data:`~cruel_tools.constants.PARSE_INLINE_BYTES` on the event loop, a bigger one in one of
:data:`~cruel_tools.constants.MAX_PARSES` processes of this module's own (:mod:`.workers`).

Why the split: a trip to another process and back costs about a millisecond, and most bodies
are small logs (a won game is 1-3 KB, read in 20-50 us; benchmarks/serve_load.py's verify
throughput, measured side by side in benchmarks/RESULTS.md, issue #33). The worst body of the
inline size, 4 KB of meta holding nested arrays and objects (the duplicate-key check's worst
case), parses in about 0.3 ms (median; 0.6 ms at 8 KB). A 960 KB one costs about 0.1 s (0.18 s
inside a submission): on the loop it held every other request that long.

Why processes, not threads: a parse holds the interpreter's lock in C and Rust (orjson,
pydantic) for tens of milliseconds at a time, so a parsing thread beside the loop made every
request wait for the lock. One thread kept health under 200 ms while 9 such bodies a second went
to verify (0.9 s of parsing a second), but 9 submissions a second (1.6 s) kept it busy for good:
health's p50 871 ms, p99 1.8 s (benchmarks/hostile_bench.py --parse-flood 9 --flood-route
submissions -- --open). In a niced process of its own the parse costs the server only the
unpickling of what it made (21 ms for that body's log, against 111 ms to parse it). Waiting
requests wait in the pool's queue, bounded by the connection caps (``--max-connections``,
``--max-per-client``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request

from ..constants import MAX_PARSES, PARSE_INLINE_BYTES
from ..errors import CruelError
from ..game.log import GameLog, Limits, load
from .errors import read_body
from .workers import WorkerProcesses

__all__ = ["PARSE_NICE", "parse_off_loop", "parse_log", "read_log"]

_T = TypeVar("_T")

#: How much lower the parsing process runs than the server's: as the hints' and replays'.
PARSE_NICE = 5


@functools.cache
def _workers() -> WorkerProcesses:
    """The parsing processes, one pool per server process (loop-agnostic: every app of the
    process, and every test's event loop, can use it); started by the first big body."""
    return WorkerProcesses(MAX_PARSES, PARSE_NICE, "parses", 1)


def _parse(parse: Callable[[bytes], _T], body: bytes) -> tuple[bool, Any]:
    """``parse(body)`` in the parsing process: its value, or the library's refusal as data (a
    :class:`~cruel_tools.errors.CruelError` takes arguments that pickling does not keep)."""
    try:
        return True, parse(body)
    except CruelError as exc:
        return False, (type(exc), exc.args, exc.__dict__)


def _refusal(cls: type[CruelError], args: tuple[Any, ...], fields: dict[str, Any]) -> CruelError:
    """The refusal :func:`_parse` sent back, as it was raised there."""
    exc = cls.__new__(cls)
    Exception.__init__(exc, *args)
    exc.__dict__.update(fields)
    return exc


async def parse_off_loop(body: bytes, parse: Callable[[bytes], _T]) -> _T:
    """``parse(body)``: inline for a small body, else in a parsing process (``parse`` then
    picklable; the library's refusals come back as they were raised)."""
    if len(body) <= PARSE_INLINE_BYTES:
        return parse(body)
    ok, value = await _workers().run(functools.partial(_parse, parse, body))
    if not ok:
        raise _refusal(*value)
    return value  # type: ignore[no-any-return]


async def parse_log(body: bytes, limits: Limits) -> GameLog:
    """A ``cruel-log/1`` log from ``body`` (:func:`cruel_tools.game.log.load` under ``limits``),
    parsed as :func:`parse_off_loop` says."""
    return await parse_off_loop(body, functools.partial(load, limits=limits))


async def read_log(request: Request, max_body: int, limits: Limits) -> GameLog:
    """The request's body, read with the size limit ``max_body``, as a log."""
    return await parse_log(await read_body(request, max_body), limits)
