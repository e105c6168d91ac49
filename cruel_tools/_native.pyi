"""Type stub of the native core (cruel_tools/native/, C++17 via pybind11). See engine.py."""

from typing import Any

ABI: int

# (top_down, max_redeals, when_stuck, runs[, piles, base, build, one_at_a_time]): native_rules
RulesTuple = tuple[bool, int, bool, bool] | tuple[bool, int, bool, bool, int, int, int, bool]
StepTuple = tuple[int, int, int]

def trace(
    piles: list[list[int]],
    found: list[int],
    rules: RulesTuple,
    steps: list[tuple[int, int, int, int]],
) -> list[tuple[str, list[StepTuple] | None, Any]]: ...

class Memo:
    """What earlier searches proved (solver.py's Memo), held by the core (search.cpp)."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    def add_win(
        self,
        piles: list[list[int]],
        found: list[int],
        redeals: int,
        rules: RulesTuple,
        steps: list[StepTuple],
        max_memory: int,
    ) -> None: ...
    def lost_items(self) -> list[tuple[list[list[int]], int]]: ...
    def won_items(self) -> list[tuple[list[list[int]], int, list[StepTuple]]]: ...

def search(
    piles: list[list[int]],
    found: list[int],
    redeals: int,
    rules: RulesTuple,
    max_states: int,
    max_seconds: float,
    early: int,
    max_memory: int,
    memo: Memo | None,
    rule_f: bool = True,
) -> tuple[str, str, list[StepTuple], int, int, int, int, int]: ...

# The verifier's fast path (fastlog.cpp, fastlog.hpp): see verify.fast_log.
FastPlay = tuple[
    str,  # status: valid or invalid
    int | None,  # error index (an illegal step)
    str | None,  # error path
    str | None,  # error code
    str,  # outcome
    int,  # foundation_cards
    int,  # moves
    int,  # redeals
    str,  # preset
    int | None,  # deal_number
    list[list[int]],  # final piles
    list[int],  # foundations (cards on each)
]

class FastLog:
    """The fast path under one set of limits, for the presets it is given."""

    def __init__(
        self,
        presets: list[tuple[str, RulesTuple, bytes]],
        names: list[str],
        max_bytes: int,
        max_moves: int,
    ) -> None: ...
    def play(self, data: bytes) -> FastPlay | None: ...
    def render(
        self, data: bytes, source_json: bytes, source_text: bytes, as_json: bool
    ) -> bytes | None: ...
    def render_lines(
        self, block: bytes, file_json: bytes, file_text: bytes, first_line: int, as_json: bool
    ) -> tuple[list[bytes | tuple[int, int, int]], int]: ...

def deal_order(number: int) -> list[int]: ...
def card_from(text: bytes) -> int: ...

# The fewest-actions search (optimal.cpp): see optimal.shortest and optimal.actions_bound.
def actions_bound(
    piles: list[list[int]], found: list[int], redeals: int, rules: RulesTuple
) -> int: ...
def shortest(
    piles: list[list[int]],
    found: list[int],
    redeals: int,
    rules: RulesTuple,
    limit: int,
    max_states: int,
    max_seconds: float,
    max_memory: int,
) -> tuple[str, list[StepTuple], int, int, int, int, int]: ...
def beam(
    piles: list[list[int]],
    found: list[int],
    redeals: int,
    rules: RulesTuple,
    width: int,
    max_states: int,
    guide: list[StepTuple],
    max_memory: int,
    max_seconds: float = 0.0,
) -> tuple[str, list[StepTuple], int]: ...
