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
