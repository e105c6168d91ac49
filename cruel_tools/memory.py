"""The memory budget of grading and publishing (issue #34): ``cruel grade --max-memory``,
``cruel daily --max-memory``, ``cruel serve --publish-memory``.

A budget is the most a grading process may hold at its peak (its resident set), so that a site
on a small server is never killed by the kernel while it publishes. What the process holds
besides its searches (Python, the package, the grading's own objects) is :data:`RESERVE`; the
searches get the rest, one at a time (:meth:`cruel_tools.search.grading.Budget.within`), and count
their bytes exactly in the native core, so the peak stays under the budget.

By default the budget is half the machine's memory: the smaller of its RAM and its container's
limit (cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``), since sites run in containers.
Half leaves the rest to the server's own processes and the database. The searches never get more
than grading's own constants (:data:`~cruel_tools.search.grading.PROOF_MEMORY`), so on a machine of
8.25 GiB or more the default changes nothing: a set regenerates byte for byte (docs/daily.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .search.grading import Budget
from .search.solver import parse_memory

__all__ = [
    "RESERVE",
    "MIN_SEARCH",
    "MEMINFO",
    "CGROUP_LIMITS",
    "MemoryBudget",
    "size_text",
    "parse_size",
    "machine_memory",
    "default_budget",
    "given",
    "memory_budget",
]

#: What a grading process holds besides its searches: about 55 MB after its imports (the CLI,
#: or a server's publishing child), about 30 MB more while it grades (the ladder's Python
#: players, the playouts, the par solution), and a margin for the allocator.
RESERVE: Final = 128 << 20
#: The least the searches may be left: the ladder's solver needs up to about 20 MiB at its
#: 200,000 positions (an undecided deal), so a budget never changes a tier or a day's deals.
MIN_SEARCH: Final = 64 << 20
MEMINFO: Final = Path("/proc/meminfo")
#: A container's memory limit: cgroup v2, then v1 ("max", or a huge number, when unlimited).
CGROUP_LIMITS: Final = (
    Path("/sys/fs/cgroup/memory.max"),
    Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
)
_GIB: Final = 1 << 30
_MIB: Final = 1 << 20


@dataclass(frozen=True)
class MemoryBudget:
    """The most the processes of one grading or publishing may hold, and why that much."""

    total: int  # bytes
    why: str  # "--max-memory", "half of 3.8 GiB of RAM", ...
    jobs: int = 1  # grading processes sharing it (``cruel daily --jobs``)

    def __str__(self) -> str:
        return f"{size_text(self.total)} ({self.why})"

    @property
    def processes(self) -> int:
        """The processes that hold a :data:`RESERVE` each: the workers, and their parent."""
        return 1 if self.jobs == 1 else self.jobs + 1

    @property
    def least(self) -> int:
        """The smallest total that leaves each worker's searches :data:`MIN_SEARCH`."""
        return self.processes * RESERVE + self.jobs * MIN_SEARCH

    def search_bytes(self) -> int:
        """Bytes each worker's searches may hold: the total less every process's reserve,
        shared by the workers."""
        return max(MIN_SEARCH, (self.total - self.processes * RESERVE) // self.jobs)

    def summary(self) -> str:
        """``512 MiB (--max-memory), par's search at most 384 MiB``: the budget and what the
        largest search may hold under it (never more than grading's own constant)."""
        search = size_text(self.grading().optimal_memory)
        return f"{self}, par's search at most {search}"

    def grading(self, budget: Budget = Budget()) -> Budget:
        """``budget`` with its searches held to :meth:`search_bytes`."""
        return budget.within(self.search_bytes())


def size_text(n: int) -> str:
    """A byte count as people read it: ``1.9 GiB``, ``2 GiB``, ``512 MiB``."""
    if n >= _GIB:
        return f"{n / _GIB:.1f}".removesuffix(".0") + " GiB"
    return f"{round(n / _MIB)} MiB"


def parse_size(text: str) -> int:
    """``512M``, ``1.5G``, ``2GiB``, ``300000000`` (bytes): K, M, G, T are powers of 1024.
    :class:`ValueError` otherwise."""
    return parse_memory(text)


def _read_number(path: Path) -> int | None:
    """The number a limit file holds; None when it cannot be read or says ``max``."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _ram(meminfo: Path) -> int | None:
    """The machine's RAM: ``MemTotal`` of ``/proc/meminfo``, else what ``sysconf`` says."""
    try:
        for line in meminfo.read_text(encoding="ascii").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, UnicodeDecodeError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError, AttributeError):
        return None


def machine_memory(
    meminfo: Path = MEMINFO, limits: Sequence[Path] = CGROUP_LIMITS
) -> tuple[int, str] | None:
    """The memory this process may use at most, and where that figure comes from: the smaller
    of the RAM and any container limit below it. None when nothing says."""
    found = _ram(meminfo)
    where = " of RAM"
    for path in limits:
        limit = _read_number(path)
        if limit is not None and (found is None or limit < found):
            found, where = limit, ", the container's limit"
    return None if found is None else (found, where)


def default_budget(
    jobs: int = 1, meminfo: Path = MEMINFO, limits: Sequence[Path] = CGROUP_LIMITS
) -> MemoryBudget:
    """Half the machine's memory (:func:`machine_memory`), never below what grading needs; the
    proof budget's own 4 GiB and the reserve when nothing says how much there is."""
    found = machine_memory(meminfo, limits)
    if found is None:
        return MemoryBudget(Budget().optimal_memory + RESERVE, "machine's memory unknown", jobs)
    size, where = found
    budget = MemoryBudget(size // 2, f"half of {size_text(size)}{where}", jobs)
    if budget.total < budget.least:
        return MemoryBudget(budget.least, f"the least grading needs; {budget.why}", jobs)
    return budget


def given(total: int | None, option: str) -> MemoryBudget:
    """The budget of a setting already checked (``Settings.publish_memory``); None: the
    default."""
    return default_budget() if total is None else MemoryBudget(total, option)


def memory_budget(text: str | None, option: str, jobs: int = 1) -> MemoryBudget:
    """The budget an option gives (``text``; None: :func:`default_budget`). :class:`ValueError`
    with a one-line message naming ``option`` for a size that is not one, or too small."""
    if text is None:
        return default_budget(jobs)
    try:
        total = parse_size(text)
    except ValueError:
        raise ValueError(f"{option} must be a size like 512M, 1.5G or 2GiB, not {text!r}") from None
    budget = MemoryBudget(total, option, jobs)
    if total < budget.least:
        per = f" with --jobs {jobs}" if jobs > 1 else ""
        raise ValueError(
            f"{option} {text} is too small: grading needs at least {size_text(budget.least)}{per}"
        )
    return budget
