"""Type stub of the native core (cruel_tools/native/, C++17 via pybind11), GENERATED from the
built module by tests/test_native_stub.py (pybind11-stubgen): do not edit; rebuild the core
and run `python tests/test_native_stub.py`. See cruel_tools/game/engine.py."""

from __future__ import annotations

import typing

__all__: list[str] = [
    "ABI",
    "BeamResult",
    "CoreStep",
    "FastLog",
    "FastPreset",
    "HandedBack",
    "Lines",
    "Memo",
    "MemoPosition",
    "NativeRules",
    "Played",
    "SearchResult",
    "ShortestResult",
    "Snapshot",
    "TraceStep",
    "actions_bound",
    "beam",
    "card_from",
    "deal_order",
    "search",
    "shortest",
    "trace",
]

class NativeRules:
    """
    A profile of rules.py's Rules as the core plays it; made by
    cruel_tools.game.engine.native_rules. Keyword arguments only, each required, checked (ValueError
    unless rules.py's Rules allows them).
    """
    def __eq__(self, other: typing.Any) -> bool: ...
    def __hash__(self) -> int: ...
    def __init__(
        self,
        *,
        top_down: bool,
        max_redeals: int,
        when_stuck: bool,
        runs: bool,
        piles: int,
        base: int,
        build: int,
        one_at_a_time: bool,
    ) -> None: ...
    def __repr__(self) -> str: ...
    @property
    def base(self) -> int:
        """
        Rules.foundation_base: 0 ace, 1 king, 2 none (engine.hpp's Base).
        """
    @property
    def build(self) -> int:
        """
        Rules.tableau_build: 0 down in suit, 1 up in alternate colours, 2 up or down in alternate
        colours (engine.hpp's Build).
        """
    @property
    def max_redeals(self) -> int:
        """
        Rules.max_redeals; -1: no limit.
        """
    @property
    def one_at_a_time(self) -> bool:
        """
        Rules.redeal_deal == 'one-at-a-time'.
        """
    @property
    def piles(self) -> int:
        """
        Rules.pile_count: 12 or 13.
        """
    @property
    def runs(self) -> bool:
        """
        Rules.run_moves.
        """
    @property
    def top_down(self) -> bool:
        """
        Rules.redeal_order == 'top-down'.
        """
    @property
    def when_stuck(self) -> bool:
        """
        Rules.redeal_only_when_stuck.
        """

class CoreStep:
    """
    A step as the core takes and gives it. A redeal is source 0 (target 0, count 1); target 0 is the
    foundation.
    """
    def __eq__(self, other: typing.Any) -> bool: ...
    def __hash__(self) -> int: ...
    def __init__(self, *, source: int, target: int, count: int, card: int = -1) -> None: ...
    def __repr__(self) -> str: ...
    @property
    def card(self) -> int:
        """
        The card the step names (0-51), checked by trace; -1: none.
        """
    @property
    def count(self) -> int:
        """
        Cards moved (1 for a redeal).
        """
    @property
    def source(self) -> int:
        """
        The pile (1-13) moved from; 0: a redeal.
        """
    @property
    def target(self) -> int:
        """
        The pile (1-13) moved to; 0: the foundation (or a redeal).
        """

class Snapshot:
    """
    A position after a step played (trace).
    """
    def __repr__(self) -> str: ...
    @property
    def foundations(self) -> list[int]:
        """
        Cards on each foundation (S H D C).
        """
    @property
    def moves(self) -> int:
        """
        Moves played (Game.moves).
        """
    @property
    def outcome(self) -> str:
        """
        Game.outcome.
        """
    @property
    def piles(self) -> list[list[int]]:
        """
        Each pile's cards (0-51), bottom to top.
        """
    @property
    def redeals(self) -> int:
        """
        Redeals played (Game.redeals).
        """

class TraceStep:
    """
    What trace makes of one step.
    """
    def __repr__(self) -> str: ...
    @property
    def after(self) -> Snapshot | None:
        """
        Played: the position after it.
        """
    @property
    def code(self) -> str:
        """
        The refusal's code (IllegalMove.code); '': played.
        """
    @property
    def legal(self) -> list[CoreStep] | None:
        """
        Played: the legal steps after it (Game.legal_steps).
        """

class FastPreset:
    """
    A preset the fast path plays (Cruel's own layout).
    """
    def __init__(self, *, name: str, rules: NativeRules, rules_json: bytes) -> None: ...
    def __repr__(self) -> str: ...
    @property
    def name(self) -> str:
        """
        The preset's name (rules.PRESETS).
        """
    @property
    def rules(self) -> NativeRules:
        """
        Its rules as the core plays them.
        """
    @property
    def rules_json(self) -> bytes:
        """
        Its Rules as the report writes them (JSON).
        """

class Played:
    """
    What the fast path makes of one log it takes (FastLog.play).
    """
    def __repr__(self) -> str: ...
    @property
    def deal_number(self) -> int | None:
        """
        The deal's number, if the log gives one.
        """
    @property
    def error_code(self) -> str | None:
        """
        The error's code (IllegalMove.code, claim-mismatch).
        """
    @property
    def error_index(self) -> int | None:
        """
        The index of an illegal step.
        """
    @property
    def error_path(self) -> str | None:
        """
        The error's JSON Pointer (/moves/N, /claim/...).
        """
    @property
    def foundation_cards(self) -> int:
        """
        Cards on the foundations at the end.
        """
    @property
    def foundations(self) -> list[int]:
        """
        Cards on each foundation at the end (S H D C).
        """
    @property
    def moves(self) -> int:
        """
        Moves played.
        """
    @property
    def outcome(self) -> str:
        """
        Game.outcome at the end.
        """
    @property
    def piles(self) -> list[list[int]]:
        """
        The final piles' cards, bottom to top.
        """
    @property
    def preset(self) -> str:
        """
        The preset the log names.
        """
    @property
    def redeals(self) -> int:
        """
        Redeals played.
        """
    @property
    def status(self) -> str:
        """
        valid or invalid.
        """

class HandedBack:
    """
    A log of a block that the fast path hands back to Python.
    """
    def __repr__(self) -> str: ...
    @property
    def end(self) -> int:
        """
        Where they end (trailing '\\r's left out).
        """
    @property
    def line(self) -> int:
        """
        Its line number.
        """
    @property
    def start(self) -> int:
        """
        Where its bytes start in the block.
        """

class Lines:
    """
    What the fast path makes of a block of JSON Lines (render_lines).
    """
    def __repr__(self) -> str: ...
    @property
    def items(self) -> list[bytes | HandedBack]:
        """
        Per log, in order: a valid log's output line, or handed back.
        """
    @property
    def next_line(self) -> int:
        """
        The number of the line after the block.
        """

class FastLog:
    """
    The verifier's fast path under one set of limits (fastlog.hpp).
    """
    def __init__(
        self, presets: list[FastPreset], names: list[str], max_bytes: int, max_moves: int
    ) -> None: ...
    def play(self, data: bytes) -> Played | None:
        """
        What the fast path makes of one log; None: not taken.
        """
    def render(
        self, data: bytes, source_json: bytes, source_text: bytes, as_json: bool
    ) -> bytes | None:
        """
        The output line of one valid log (no newline); None: not taken or not valid.
        """
    def render_lines(
        self, block: bytes, file_json: bytes, file_text: bytes, first_line: int, as_json: bool
    ) -> Lines:
        """
        The logs of a block of JSON Lines, the first on line first_line.
        """

class SearchResult:
    """
    What one search in the core found (solver.py's search).
    """
    def __repr__(self) -> str: ...
    @property
    def expanded(self) -> int:
        """
        Positions expanded.
        """
    @property
    def lock(self) -> int:
        """
        The card rule L found locked in pile 1 at the start, or -1.
        """
    @property
    def peak_bytes(self) -> int:
        """
        The most memory the search held, counted.
        """
    @property
    def pruned(self) -> int:
        """
        Positions cut as proven lost (rules L, F, V, the memo).
        """
    @property
    def steps(self) -> list[CoreStep]:
        """
        The win, when won; else empty.
        """
    @property
    def unique(self) -> int:
        """
        Distinct positions met.
        """
    @property
    def verdict(self) -> str:
        """
        won, unwinnable or unknown.
        """
    @property
    def why(self) -> str:
        """
        Why it ended (unless won): states, time, memory (a budget spent), exhausted, narrowed, lock,
        frozen, stuck (rules L, F, V).
        """

class MemoPosition:
    """
    A position a Memo holds (lost_items, won_items).
    """
    def __repr__(self) -> str: ...
    @property
    def piles(self) -> list[list[int]]:
        """
        Each pile's cards, bottom to top.
        """
    @property
    def redeals(self) -> int:
        """
        Redeals used when it was met.
        """
    @property
    def rest(self) -> list[CoreStep]:
        """
        won_items: the steps that win from it; lost_items: [].
        """

class Memo:
    """
    What earlier searches proved (solver.py's Memo), held by the core.
    """
    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def add_win(
        self,
        piles: list[list[int]],
        found: list[int],
        redeals: int,
        rules: NativeRules,
        steps: list[CoreStep],
        max_memory: int,
    ) -> None:
        """
        Record every position of a win (its steps) from a position.
        """
    def lost_items(self) -> list[MemoPosition]:
        """
        Every position proven lost.
        """
    def won_items(self) -> list[MemoPosition]:
        """
        Every position on a win's line, with the steps that win from it.
        """
    @property
    def bytes(self) -> int:
        """
        The memory the memo holds.
        """

class ShortestResult:
    """
    What the core's A* found (optimal.py's shortest).
    """
    def __repr__(self) -> str: ...
    @property
    def bound(self) -> int:
        """
        The proven lower bound on the fewest actions.
        """
    @property
    def expanded(self) -> int:
        """
        States expanded.
        """
    @property
    def peak_bytes(self) -> int:
        """
        The most memory the search held, counted.
        """
    @property
    def pruned(self) -> int:
        """
        States cut as proven lost (rule L).
        """
    @property
    def steps(self) -> list[CoreStep]:
        """
        The win, when won (the fewest actions); else empty.
        """
    @property
    def unique(self) -> int:
        """
        Distinct states met.
        """
    @property
    def why(self) -> str:
        """
        won; closed (nothing below the limit is left); exhausted; or the budget spent: states, time,
        memory.
        """

class BeamResult:
    """
    What the core's beam found (optimal.py's beam).
    """
    def __repr__(self) -> str: ...
    @property
    def expanded(self) -> int:
        """
        States expanded.
        """
    @property
    def steps(self) -> list[CoreStep]:
        """
        The win, when won; else empty.
        """
    @property
    def why(self) -> str:
        """
        won, or why not (optimal.cpp's Beam::run).
        """

def actions_bound(
    piles: list[list[int]], found: list[int], redeals: int, rules: NativeRules
) -> int:
    """
    optimal.py's actions_bound in the core.
    """

def beam(
    piles: list[list[int]],
    found: list[int],
    redeals: int,
    rules: NativeRules,
    width: int,
    max_states: int,
    guide: list[CoreStep],
    max_memory: int,
    max_seconds: float = 0.0,
    by_bound: bool = False,
    limit: int = 0,
    exact: bool = False,
) -> BeamResult:
    """
    optimal.py's beam in the core, guided by a known win (guide); max_seconds 0: no time limit.
    by_bound: rank a level by actions so far + the bound (short_wins.py); limit above 0: drop
    positions that cannot win in fewer actions. exact: stop at max_states even within a level (else
    a level is finished first).
    """

def card_from(text: bytes) -> int:
    """
    A card's text as a card (0-51), or -1.
    """

def deal_order(number: int) -> list[int]:
    """
    Deal `number`'s 48 cards (deals.deal_order).
    """

def search(
    piles: list[list[int]],
    found: list[int],
    redeals: int,
    rules: NativeRules,
    max_states: int,
    max_seconds: float,
    early: int,
    max_memory: int,
    memo: Memo | None,
    rule_f: bool = True,
) -> SearchResult:
    """
    solver.py's search in the core. max_seconds 0: no time limit; early -1: not narrowed.
    """

def shortest(
    piles: list[list[int]],
    found: list[int],
    redeals: int,
    rules: NativeRules,
    limit: int,
    max_states: int,
    max_seconds: float,
    max_memory: int,
) -> ShortestResult:
    """
    optimal.py's shortest (A*) in the core; max_seconds 0: no time limit.
    """

def trace(
    piles: list[list[int]], found: list[int], rules: NativeRules, steps: list[CoreStep]
) -> list[TraceStep]:
    """
    Play steps from a position and report each (for the differential test).
    """

ABI: int = 2
