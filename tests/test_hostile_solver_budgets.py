"""Issue #33, finding 7: ``cruel solve 12 --rules royal-family-pysolfc --optimal --max-seconds 10
--max-memory 8M`` ran 32-45 s and held about 107 MB: the fewest-actions search's beams (in
Python for the rest of the family, which the core's search does not play) looked at neither the
clock nor their memory, and its A* counted no memory.

Every budget is tried on every preset (``cruel rules``) with a small value: the search ends
near its ``--max-seconds``, within its ``--max-states``, and holds about its ``--max-memory``
(Python's allocations measured by tracemalloc in-process; the whole process's peak by
``os.wait4`` for the command itself). The full-size runs of every preset are slow."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from cruel_tools.game import deals, rules
from cruel_tools.game.game import Game
from cruel_tools.search import optimal

DEAL = 12
PRESETS = list(rules.PRESETS)
FAMILY = [p for p in PRESETS if not rules.preset(p).cruel_layout]
CRUEL = Path(sys.executable).parent / "cruel"


def _start(preset: str) -> Game:
    profile = rules.preset(preset)
    return Game.from_deal(deals.deal_piles(DEAL, profile), profile)


def _budget_answer(result: optimal.OptimalResult) -> None:
    """A search stopped by its budget answers so: a best win and a bound, or unknown."""
    assert result.verdict in ("optimal", "best-found", "unknown"), result
    if result.verdict != "optimal":
        assert "budget" in result.reason, result.reason


@pytest.mark.parametrize("preset", PRESETS)
def test_max_seconds_holds_on_every_preset(preset: str) -> None:
    # Before: 6-14 s for a budget of 1 s under the four presets of the rest of the family.
    budget = 0.3
    began = time.perf_counter()
    result = optimal.optimize(
        _start(preset), max_states=10**9, max_seconds=budget, max_memory=1 << 30
    )
    spent = time.perf_counter() - began
    assert spent < budget + 2.0, (preset, spent)
    _budget_answer(result)


@pytest.mark.parametrize("preset", PRESETS)
def test_max_states_holds_on_every_preset(preset: str) -> None:
    result = optimal.optimize(_start(preset), max_states=1_000, max_seconds=60.0)
    assert result.stats.expanded <= 1_000, (preset, result.stats.expanded)
    _budget_answer(result)


def _traced_peak(preset: str, budget: int) -> tuple[int, optimal.OptimalResult]:
    tracemalloc.start()
    try:
        result = optimal.optimize(
            _start(preset), max_states=20_000, max_seconds=60.0, max_memory=budget
        )
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def _memory_kept(preset: str) -> None:
    # Python's own allocations (the core counts its bytes exactly, and they are not traced).
    # Before: the beams held every position they met (hundreds of MB at real budgets).
    budget = 1 << 20
    peak, result = _traced_peak(preset, budget)
    assert peak < 2 * budget + (2 << 20), (preset, peak)
    _budget_answer(result)


def test_max_memory_holds_in_the_python_search() -> None:
    _memory_kept("ripple-fan-pysolfc")


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_max_memory_holds_on_every_preset(preset: str) -> None:
    _memory_kept(preset)


def _run(*args: str) -> tuple[float, int, str]:
    """``cruel ARGS`` as a process: wall seconds, peak RSS in bytes (its own, by wait4), stdout."""
    began = time.perf_counter()
    proc = subprocess.Popen(
        [str(CRUEL), *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, out
    return time.perf_counter() - began, usage.ru_maxrss * 1024, out


def _command_keeps_its_budgets(preset: str, seconds: float) -> None:
    _, idle, _ = _run("solve", str(DEAL), "--rules", preset, "--max-states", "1")
    wall, peak, out = _run(
        "solve", str(DEAL), "--rules", preset, "--optimal",
        "--max-seconds", str(seconds), "--max-memory", "8M",
    )  # fmt: skip
    # Start-up takes a second or more on a loaded machine: the bound is generous, the old
    # code far past it (14 s and 147 MB for --max-seconds 1 --max-memory 8M).
    assert wall < seconds + 6, (preset, wall, out)
    assert peak < idle + 3 * (8 << 20), (preset, peak / 2**20, idle / 2**20)
    assert "optimal win" in out or "best found" in out or "unknown" in out


@pytest.mark.integration
def test_the_attack_command_keeps_its_budgets() -> None:
    _command_keeps_its_budgets("royal-family-pysolfc", 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_the_command_keeps_its_budgets_on_every_preset(preset: str) -> None:
    _command_keeps_its_budgets(preset, 3.0)
