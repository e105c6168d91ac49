"""Type stub of the native core (cruel_tools/native/, C++17 via pybind11). See engine.py."""

from typing import Any

ABI: int

RulesTuple = tuple[bool, int, bool, bool]
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
) -> tuple[str, str, list[StepTuple], int, int, int, int, int]: ...
