"""The native solver (cruel_tools/native/search.cpp) against the Python one and plain search.

The core runs solver.py's search node for node, so for one budget in positions both expand the
same positions and answer the same: that is compared exactly. Beyond the Python solver's reach,
the core must never contradict it, must decide all it decides, and must agree with exhaustive
search on small positions; its budgets (positions, memory) end a search as ``unknown``, Ctrl-C
ends it as KeyboardInterrupt, and it lets other threads run meanwhile.
"""

from __future__ import annotations

import os
import random
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import REDEAL, Game
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.search import solver
from cruel_tools.search.solver import Memo, SolveResult, check_win, exhaustive, solve

from .test_solver import small_position

NATIVE = engine.native() if os.environ.get(engine.ENV) != "python" else None
pytestmark = pytest.mark.skipif(NATIVE is None, reason="the native core is not built here")

#: The presets the core plays: every one (the rest of the family since issue #25).
CORE_PRESETS = [name for name, rules in PRESETS.items() if engine.native_rules(rules) is not None]


def solve_with(engine_name: str, game: Game, **budget: object) -> SolveResult:
    """``solve`` under one engine (CRUEL_ENGINE is read at each call)."""
    old = os.environ.get(engine.ENV)
    os.environ[engine.ENV] = engine_name
    try:
        return solve(game.copy(), **budget)  # type: ignore[arg-type]
    finally:
        if old is None:
            del os.environ[engine.ENV]
        else:
            os.environ[engine.ENV] = old


def facts(r: SolveResult) -> tuple[object, ...]:
    return (r.verdict, r.reason, r.steps, r.stats.expanded, r.stats.unique, r.stats.pruned)


@pytest.mark.heavy
@pytest.mark.parametrize("name", CORE_PRESETS)
def test_the_core_searches_node_for_node_as_python(name: str) -> None:
    # Same positions expanded in the same order: the same verdict, reason, solution and counts
    # (expanded, unique, pruned) for the same budget in positions, pass by pass.
    rules = PRESETS[name]
    for number in range(1, 9):
        game = Game.from_deal(deal_piles(number, rules), rules)
        native = solve_with("native", game, max_states=1500)
        python = solve_with("python", game, max_states=1500)
        assert facts(native) == facts(python), number


def last_deal_positions(rules: Rules, count: int, seed: int) -> list[Game]:
    """Positions of ``rules`` (the rest of the family, with a redeal limit) after their last
    redeal, reached by random legal steps: where rules V and S apply (solver.last_deal)."""
    rng = random.Random(seed)
    out: list[Game] = []
    number = 0
    while len(out) < count:
        number += 1
        game = Game.from_deal(deal_piles(number, rules), rules)
        for _ in range(60):
            if solver.last_deal(game):
                out.append(game)
                break
            steps = list(game.legal_steps())
            if not steps:
                break
            game.push(REDEAL if REDEAL in steps and rng.random() < 0.3 else rng.choice(steps))
    return out


#: The rest of the family under a redeal limit: rules V and S apply after the last redeal.
LIMITED_VARIANTS = [
    PRESETS["royal-family-pysolfc"],
    Rules(preset="royal-family", tableau_build="up-alternate-colour", max_redeals=1),
    Rules(preset="ripple-fan", redeal_deal="one-at-a-time", max_redeals=0),
    Rules(
        preset="ripple-fan-pysolfc",
        pile_count=13,
        foundation_base="none",
        redeal_order="top-down",
        max_redeals=1,
    ),
]


@pytest.mark.slow  # about 25 s each on 2 cores: the default tier keeps rule V's root test
@pytest.mark.parametrize("rules", LIMITED_VARIANTS, ids=lambda r: f"{r.preset}-{r.max_redeals}")
def test_rules_v_and_s_node_for_node(rules: Rules) -> None:
    # Positions after the last redeal, where rule S plays a safe foundation move as the only
    # child and rule V cuts positions with cards that can never move, at the root too: the same
    # verdicts, reasons and counts in both engines, with and without a shared memo.
    pruned = 0
    memos = {"native": Memo(), "python": Memo()}
    for game in last_deal_positions(rules, 12, seed=rules.pile_count):
        native = solve_with("native", game, max_states=800)
        python = solve_with("python", game, max_states=800)
        assert facts(native) == facts(python)
        pruned += native.stats.pruned
        got = {k: solve_with(k, game, max_states=800, memo=m) for k, m in memos.items()}
        assert facts(got["native"]) == facts(got["python"])
    assert pruned > 0  # rule V did cut somewhere
    assert memos["native"].lost == memos["python"].lost


def test_rule_v_at_the_root_names_its_cards() -> None:
    # A start position with a stuck set: unwinnable at once, by the same reason in both engines.
    rules = LIMITED_VARIANTS[1]  # Royal Family with one redeal: about one in eight has one
    for game in last_deal_positions(rules, 40, seed=7):
        if solver.stuck_cards(game):
            native = solve_with("native", game, max_states=100)
            assert facts(native) == facts(solve_with("python", game, max_states=100))
            assert native.verdict == "unwinnable" and "rule V" in native.reason
            assert native.stats.expanded == 0
            return
    pytest.fail("no start position with a stuck set among 40")


def test_narrowed_searches_agree_node_for_node() -> None:
    # grading calls search() with early_redeals itself.
    for number in (3, 27, 30):
        game = Game.from_deal(deal_piles(number))
        for early in (0, 1, 2):
            os.environ[engine.ENV] = "native"
            try:
                a = solver.search(game.copy(), 3000, early_redeals=early)
            finally:
                del os.environ[engine.ENV]
            os.environ[engine.ENV] = "python"
            try:
                b = solver.search(game.copy(), 3000, early_redeals=early)
            finally:
                del os.environ[engine.ENV]
            assert facts(a) == facts(b), (number, early)


@pytest.mark.heavy
def test_every_native_win_replays_and_decides_what_python_decides() -> None:
    # The default tier's version of the slow test below: 40 deals.
    compare(range(1, 41))


@pytest.mark.slow
@pytest.mark.parametrize("first", range(1, 2001, 250))
def test_deals_1_to_2000_never_contradict_python(first: int) -> None:
    compare(range(first, first + 250))


def compare(numbers: range) -> None:
    """Python with 6,000 positions per deal, the core with 3,000,000: never a contradiction,
    the core decides every deal Python decides, and each of its wins replays through game.py."""
    for number in numbers:
        game = Game.from_deal(deal_piles(number))
        python = solve_with("python", game, max_states=6_000)
        native = solve_with("native", game, max_states=3_000_000, max_seconds=60)
        if native.verdict == "won":
            check_win(game, native.steps)
        assert {python.verdict, native.verdict} != {"won", "unwinnable"}, number
        if python.verdict != "unknown":
            assert native.verdict == python.verdict, number


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9),
    left=st.integers(4, 11),
    name=st.sampled_from(CORE_PRESETS),
    lock_bias=st.booleans(),
)
def test_native_solver_equals_exhaustive_search(
    seed: int, left: int, name: str, lock_bias: bool
) -> None:
    game = small_position(seed, left, name, lock_bias)
    truth = exhaustive(game, max_states=200_000)
    assume_decided = truth is not None
    result = solve_with("native", game, max_states=1_000_000)
    if assume_decided:
        assert result.verdict == ("won" if truth else "unwinnable")
    if result.verdict == "won":
        check_win(game, result.steps)


def test_a_shared_memo_gives_the_same_searches_in_both_engines() -> None:
    # The positions of one game solved in turn with one memo each (what analysis does): the
    # core's memo cuts and wins exactly where the Python one does.
    game = Game.from_deal(deal_piles(11))
    line = solve(game.copy(), max_states=100_000).steps
    positions = [game.copy()]
    for step in line:
        positions.append(positions[-1].copy())
        positions[-1].push(step)
    memos = {"native": Memo(), "python": Memo()}
    # A few positions off the line too (a step not taken), which may be lost.
    off = [p.copy() for p in positions[::9]]
    for p in off:
        steps = list(p.legal_steps())
        p.push(steps[-1])
    for position in [*positions[::-7], *off, *positions[3::11]]:
        got = {k: solve_with(k, position, max_states=2_000, memo=m) for k, m in memos.items()}
        assert facts(got["native"]) == facts(got["python"])
    native_memo, python_memo = memos["native"], memos["python"]
    assert native_memo.lost == python_memo.lost
    assert {k: v[0] for k, v in native_memo.won.items()} == {
        k: v[0] for k, v in python_memo.won.items()
    }
    assert native_memo.lost and native_memo.won  # the export: each won entry's steps win
    for key, (_, steps, i) in list(native_memo.won.items())[:20]:
        start = Game([list(p) for p in key], foundations_of(key), PRESETS["cruel"])
        check_win(start, steps[i:])


def foundations_of(key: tuple[tuple[int, ...], ...]) -> list[int]:
    in_piles = [c for p in key for c in p]
    return [13 - sum(1 for c in in_piles if c // 13 == s) for s in range(4)]


def test_the_memory_budget_gives_unknown() -> None:
    game = Game.from_deal(deal_piles(48))  # undecided after millions of positions
    result = solve(game, max_states=10**9, max_seconds=60, max_memory=8 << 20)
    assert result.verdict == "unknown"
    assert result.reason == "memory budget of 8 MiB spent"
    assert NATIVE is not None
    rules = engine.native_rules(game.rules)
    assert rules is not None
    out = NATIVE.search(game.piles, game.foundations, 0, rules, 10**9, 60.0, -1, 8 << 20, None)
    assert (out.verdict, out.why) == ("unknown", "memory")
    assert 0 < out.peak_bytes <= 8 << 20 and out.expanded > 10_000


def test_the_python_search_keeps_a_memory_budget_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENV, "python")
    result = solve(Game.from_deal(deal_piles(48)), max_states=10**9, max_memory=1 << 20)
    assert result.verdict == "unknown" and result.reason == "memory budget of 1 MiB spent"


def test_memory_sizes() -> None:
    assert solver.parse_memory("512M") == 512 << 20
    assert solver.parse_memory("1G") == solver.parse_memory("1GiB") == 1 << 30
    assert solver.parse_memory("1.5k") == 1536
    assert solver.parse_memory("300000") == 300_000
    for bad in ("", "G", "-1G", "0", "lots", "nan", "1e30"):
        with pytest.raises(ValueError, match="not a memory size"):
            solver.parse_memory(bad)
    assert solver.memory_size(1 << 30) == "1 GiB"
    assert solver.memory_size(3 << 19) == "1536 KiB"
    assert solver.memory_size(1000) == "1000 bytes"


def test_cli_max_memory() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["solve", "48", "--max-memory", "4M", "--max-states", "100000000"])
    assert out.exit_code == 0, out.output
    assert "deal 48: unknown: memory budget of 4 MiB spent" in out.output
    out = runner.invoke(app, ["solve", "48", "--max-memory", "lots"])
    assert out.exit_code == 2
    assert "--max-memory must be a size like 512M or 1G, not lots" in out.output


@pytest.mark.usefixtures("sigint_soon")
def test_ctrl_c_stops_a_native_search_cleanly() -> None:
    game = Game.from_deal(deal_piles(48))
    began = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        solve(game, max_states=10**9, max_seconds=30)
    assert time.perf_counter() - began < 5
    # The core is still sound after it: the next search runs and answers as before.
    assert solve(Game.from_deal(deal_piles(5))).verdict == "won"


def test_other_threads_run_while_the_core_searches() -> None:
    # The search releases the GIL: a Python thread keeps counting while it runs.
    game = Game.from_deal(deal_piles(48))
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks
        result = solve(game, max_states=10**9, max_seconds=1.0)
        during = ticks - before
    finally:
        done.set()
        counter.join()
    assert result.verdict == "unknown"
    assert during > 100  # about 1,000 with the GIL free; a handful if the search held it
