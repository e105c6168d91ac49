"""Small builders shared by the tests."""

from __future__ import annotations

import http.client
import json
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from cruel_tools.game import cards
from cruel_tools.game.cards import Card
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Move, Step, start_foundations
from cruel_tools.game.log import step_entry
from cruel_tools.game.rules import DEFAULT, Rules
from cruel_tools.search.grading import Budget
from cruel_tools.site.stores import Stores, open_stores


def c(text: str) -> Card:
    return cards.parse(text)


def pile(text: str) -> list[Card]:
    """``"5C 9H 2D"`` → cards, bottom to top."""
    return [c(t) for t in text.split()]


def position(piles: Sequence[str], foundations: str = "", rules: Rules = DEFAULT) -> Game:
    """A position from up to 12 pile strings; every card not named goes where it must.

    ``foundations`` like ``"S3 D2"`` sets foundation tops (others stay at the ace). Cards neither in
    a named pile nor on a foundation are dealt, in deck order, onto piles after the named ones, so
    tests can name only the piles they care about.
    """
    tops = start_foundations(rules)
    for item in foundations.split():
        tops["SHDC".index(item[0])] = int(item[1:])
    named = [pile(p) for p in piles]
    used = {x for p in named for x in p}
    down = rules.foundation_direction == "down"
    on_found = {
        cards.make(s, 14 - r if down else r) for s in range(4) for r in range(1, tops[s] + 1)
    }
    rest = [x for x in cards.DECK if x not in used and x not in on_found]
    n = rules.pile_count
    full = named + [[] for _ in range(n - len(named))]
    # Fill the unnamed piles with the remaining cards, four at a time, the last pile taking
    # any surplus.
    free = list(range(len(named), n))
    for k, i in enumerate(free):
        chunk = rest[4 * k : 4 * k + 4] if k < len(free) - 1 else rest[4 * k :]
        full[i] = chunk
    return Game(full, tops, rules)


def random_game(
    number: int, rng: random.Random, rules: Rules = DEFAULT, max_steps: int = 60
) -> tuple[list[list[Card]], list[Step], Game]:
    """Play up to ``max_steps`` random legal steps from deal ``number``."""
    piles = deal_piles(number, rules)
    game = Game.from_deal(piles, rules)
    steps: list[Step] = []
    for _ in range(max_steps):
        step = random_step(game, rng)
        if step is None:
            break
        game.push(step)
        steps.append(step)
    return piles, steps, game


def random_step(game: Game, rng: random.Random) -> Step | None:
    """A random legal step (half the card moves name their card), or None when none is legal."""
    options = list(game.legal_steps())
    if not options:
        return None
    step = rng.choice(options)
    if isinstance(step, Move) and rng.random() < 0.5:
        step = step._replace(card=game.piles[step.source - 1][-step.count])
    return step


def log_dict(
    piles: Sequence[Sequence[Card]],
    steps: Sequence[Step],
    rules: Rules | str = "cruel",
    **extra: Any,
) -> dict[str, Any]:
    """A cruel-log/1 object for ``steps`` from ``piles``."""
    spec: Any = rules if isinstance(rules, str) else rules.preset
    return {
        "format": "cruel-log/1",
        "rules": spec,
        "deal": {"piles": [[cards.name(x) for x in p] for p in piles]},
        "moves": [step_entry(s) for s in steps],
        **extra,
    }


# --- puzzles and their wins (service and leaderboard tests) ------------------------------------


def published_puzzles() -> Any:
    """The committed puzzle set (``puzzles/``), read once."""
    from pathlib import Path

    from cruel_tools.puzzles import PuzzleSet

    global _PUBLISHED
    if _PUBLISHED is None:
        _PUBLISHED = PuzzleSet.load(Path(__file__).parent.parent / "puzzles")
    return _PUBLISHED


_PUBLISHED: Any = None


def other_win(puzzle: Any, seed: int) -> list[Step]:
    """A winning game of ``puzzle`` that is not (usually) its par: random legal steps while the
    solver still wins from there, then the solver's line."""
    from cruel_tools.search.solver import solve

    rng = random.Random(seed)
    game = Game.from_deal(
        [[cards.parse(t) for t in p] for p in puzzle.deal.piles], puzzle.resolved_rules()
    )
    steps: list[Step] = []
    for _ in range(rng.randrange(1, 8)):
        options = [s for s in game.legal_steps() if isinstance(s, Move)]
        if not options:
            break
        trial = game.copy()
        step = rng.choice(options)
        trial.push(step)
        if solve(trial, max_states=20_000).verdict == "won":
            game = trial
            steps.append(step)
    rest = solve(game, max_states=200_000)
    assert rest.verdict == "won", "no win found from the random prefix"
    return steps + rest.steps


def puzzle_log(
    puzzle: Any, steps: Sequence[Step] | None = None, compact: bool = False
) -> dict[str, Any]:
    """A cruel-log/1 object of ``puzzle`` playing ``steps`` (default: its par solution)."""
    from cruel_tools.game.log import compact as compact_step
    from cruel_tools.game.log import to_step
    from cruel_tools.puzzles import puzzle_solution_log

    doc = puzzle_solution_log(puzzle)
    del doc["claim"]  # the par game's: ``steps`` may be another
    if steps is None:
        steps = [to_step(e) for e in doc["moves"]]
    doc["moves"] = [compact_step(s) if compact else step_entry(s) for s in steps]
    return doc


def off_foundation(suit: int, height: int, rules: Rules) -> list[Card]:
    """The cards of ``suit`` not on a foundation that holds ``height`` cards under ``rules``."""
    if rules.foundation_direction == "up":
        return [cards.make(suit, r) for r in range(height + 1, 14)]
    return [cards.make(suit, r) for r in range(1, 14 - height)]


def lowest_height(rules: Rules) -> int:
    """The fewest cards a foundation holds: 1 (its base) or 0 when none start there."""
    return 0 if rules.foundation_base == "none" else 1


def failing_leaderboard(db: Path, monkeypatch: pytest.MonkeyPatch) -> Stores:
    """The stores of ``db`` with every leaderboard read failing as a broken disk fails."""
    stores = open_stores(db, create=True)

    def failing(*args: Any) -> Any:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(stores.boards, "leaderboard", failing)
    return stores


def cards_off(rng: random.Random, left: int, rules: Rules) -> tuple[list[int], list[Card]]:
    """Foundation heights with ``left`` cards taken off them at random, and those cards shuffled:
    the start of a small random position."""
    low = lowest_height(rules)
    heights = [13] * 4
    for _ in range(left):
        s = rng.choice([i for i in range(4) if heights[i] > low])
        heights[s] -= 1
    rest = [c for s in range(4) for c in off_foundation(s, heights[s], rules)]
    rng.shuffle(rest)
    return heights, rest


def spread(rng: random.Random, cards: list[Card], n: int, p_next: float) -> list[list[Card]]:
    """``cards`` laid in order over ``n`` piles, a pile closed after each card with ``p_next``."""
    piles: list[list[Card]] = [[] for _ in range(n)]
    k = 0
    for card in cards:
        if k < n and piles[k] and rng.random() < p_next:
            k += 1
        piles[min(k, n - 1)].append(card)
    return piles


def child_processes(pid: int) -> list[int]:
    """The child processes of process ``pid``, whichever of its threads started them (the
    service's process pools start theirs from a worker thread); none once it has ended."""
    found: list[int] = []
    tasks = Path(f"/proc/{pid}/task")
    for task in tasks.iterdir() if tasks.exists() else ():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    return found


#: Small grading budgets: a day in a fraction of a second, the same wherever a test makes days
#: (the publisher, `cruel daily`, `cruel generate`), so that their days can be compared.
SMALL = Budget(
    solver_states=5000,
    critical_states=30,
    playouts=10,
    playout_steps=200,
    player_states=2000,
    optimal_states=2000,  # par: the fewest-actions search, kept small here too
)


def get(port: int, path: str) -> tuple[int, Any]:
    """``GET path`` of a server on the loopback ``port``: its status and its JSON."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def layout() -> Any:
    """benchmarks/layout.py, the one measure of the package's shape: its import graph, layers
    and function lengths (CONTRIBUTING.md's numbers; tests/test_import_graph.py and
    tests/test_function_length.py hold the package to it)."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("layout", root / "benchmarks" / "layout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
