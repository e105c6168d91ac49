"""Deal numbers: fixed test vectors, properties, and agreement with the JavaScript reference."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from cruel_tools.game import cards
from cruel_tools.game.deals import (
    MAX_DEAL_NUMBER,
    DealNumberError,
    deal_order,
    deal_piles,
    mulberry32,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"
DEALS_JS = DOCS / "deals.js"
DEALS_MD = DOCS / "deals.md"

NON_ACES = sorted(c for c in cards.DECK if c not in cards.ACES)

# The published test vectors (docs/deals.md): 12 piles, each bottom to top. Hard-coded on
# purpose: if the algorithm ever changes, every deal number in every saved log changes meaning.
VECTORS: dict[int, list[list[str]]] = {
    0: [
        ["QC", "6C", "7S", "KS"],
        ["8D", "JC", "6H", "5D"],
        ["KD", "QD", "JD", "7D"],
        ["5H", "6S", "8C", "6D"],
        ["9D", "3H", "3S", "9S"],
        ["3C", "KC", "9C", "5C"],
        ["4S", "10S", "4C", "10C"],
        ["2C", "7H", "9H", "7C"],
        ["JH", "2D", "4H", "10D"],
        ["5S", "JS", "QH", "8H"],
        ["4D", "3D", "KH", "10H"],
        ["8S", "QS", "2S", "2H"],
    ],
    1: [
        ["KH", "10H", "4D", "3C"],
        ["9S", "QC", "JS", "6H"],
        ["9D", "7C", "5D", "KC"],
        ["9C", "6D", "JH", "6C"],
        ["5S", "9H", "JC", "3H"],
        ["6S", "8S", "2C", "QD"],
        ["QS", "3S", "10D", "JD"],
        ["QH", "KS", "4S", "5H"],
        ["KD", "10S", "4H", "7S"],
        ["8H", "5C", "4C", "7H"],
        ["7D", "3D", "2H", "8C"],
        ["10C", "2D", "2S", "8D"],
    ],
    2: [
        ["6H", "7C", "8H", "4S"],
        ["6C", "8C", "8S", "QH"],
        ["QS", "2H", "7H", "8D"],
        ["KC", "4D", "2C", "KH"],
        ["7S", "10S", "10C", "JD"],
        ["JC", "JS", "5C", "2S"],
        ["10D", "5S", "6D", "3D"],
        ["3S", "QD", "KS", "JH"],
        ["9C", "9H", "3C", "QC"],
        ["9S", "7D", "6S", "9D"],
        ["4H", "10H", "5D", "4C"],
        ["2D", "3H", "5H", "KD"],
    ],
    3: [
        ["JS", "7S", "2C", "7H"],
        ["QC", "8H", "6D", "6S"],
        ["9C", "5H", "2H", "9D"],
        ["KH", "KD", "2D", "KS"],
        ["6C", "4S", "3H", "10D"],
        ["KC", "7C", "3C", "8D"],
        ["2S", "5D", "QH", "4H"],
        ["9H", "10S", "4C", "5C"],
        ["7D", "4D", "6H", "3D"],
        ["10C", "9S", "JH", "QS"],
        ["8S", "8C", "JC", "JD"],
        ["5S", "10H", "3S", "QD"],
    ],
    17: [
        ["6S", "JD", "4S", "7D"],
        ["9D", "4C", "7S", "2C"],
        ["7H", "10C", "3H", "5D"],
        ["3D", "6C", "8H", "9C"],
        ["2S", "8C", "2H", "KD"],
        ["QD", "6D", "KH", "3S"],
        ["5C", "3C", "6H", "5H"],
        ["9H", "10H", "4H", "QC"],
        ["JC", "JH", "8S", "10S"],
        ["7C", "8D", "4D", "QS"],
        ["QH", "KS", "KC", "5S"],
        ["9S", "2D", "JS", "10D"],
    ],
    1000: [
        ["10H", "5H", "4S", "JD"],
        ["4D", "KS", "3C", "9C"],
        ["7C", "QH", "7S", "3D"],
        ["10D", "KD", "4H", "2C"],
        ["9H", "10S", "3H", "6H"],
        ["7D", "6D", "5S", "6C"],
        ["QC", "JH", "JS", "JC"],
        ["KH", "QD", "QS", "9S"],
        ["3S", "8C", "7H", "10C"],
        ["8S", "2D", "5D", "8D"],
        ["6S", "2H", "8H", "2S"],
        ["5C", "9D", "KC", "4C"],
    ],
    123456789: [
        ["JH", "4H", "7S", "10S"],
        ["KD", "6D", "8H", "KC"],
        ["10C", "QH", "5D", "5C"],
        ["8D", "4S", "QC", "6S"],
        ["9S", "3D", "5S", "JD"],
        ["7D", "QD", "7H", "6C"],
        ["7C", "9D", "QS", "3S"],
        ["2D", "KH", "3C", "9H"],
        ["4D", "6H", "4C", "10H"],
        ["5H", "9C", "8S", "2S"],
        ["KS", "8C", "10D", "3H"],
        ["JS", "2C", "JC", "2H"],
    ],
    4294967295: [
        ["QS", "8D", "5H", "KC"],
        ["JS", "8H", "KD", "2C"],
        ["3H", "3S", "4D", "4H"],
        ["5D", "QH", "6C", "7H"],
        ["9D", "QC", "2S", "8S"],
        ["5C", "7C", "10C", "4S"],
        ["JH", "10H", "JC", "QD"],
        ["KS", "6S", "5S", "7D"],
        ["2D", "6H", "3D", "2H"],
        ["9S", "JD", "4C", "7S"],
        ["9H", "6D", "KH", "3C"],
        ["8C", "10D", "10S", "9C"],
    ],
}

# First outputs of mulberry32, matching the canonical JavaScript generator.
MULBERRY32_SEED_1 = [2693262067, 11749833, 2265367787, 4213581821, 4159151403]
MULBERRY32_SEED_0 = [1144304738, 1416247, 958946056, 627933444, 2007157716]


def names(piles: list[list[int]]) -> list[list[str]]:
    return [[cards.name(c) for c in pile] for pile in piles]


# --- fixed vectors -----------------------------------------------------------------------------


@pytest.mark.parametrize("number", sorted(VECTORS))
def test_vectors(number: int) -> None:
    assert names(deal_piles(number)) == VECTORS[number]


def test_vectors_include_the_edges_of_the_range() -> None:
    assert 0 in VECTORS and MAX_DEAL_NUMBER in VECTORS
    assert MAX_DEAL_NUMBER == 2**32 - 1


@pytest.mark.parametrize(("seed", "expected"), [(1, MULBERRY32_SEED_1), (0, MULBERRY32_SEED_0)])
def test_mulberry32_first_outputs(seed: int, expected: list[int]) -> None:
    assert list(itertools.islice(mulberry32(seed), 5)) == expected


def test_mulberry32_outputs_are_uint32_and_seed_wraps_like_js() -> None:
    outputs = list(itertools.islice(mulberry32(MAX_DEAL_NUMBER), 1000))
    assert all(0 <= u <= 0xFFFFFFFF for u in outputs)
    # JS reads a seed as `seed >>> 0`: 2**32 + 1 and -1 are the seeds 1 and 2**32 - 1.
    assert list(itertools.islice(mulberry32(2**32 + 1), 5)) == MULBERRY32_SEED_1
    assert list(itertools.islice(mulberry32(-1), 1000)) == outputs


def test_deal_1_first_swaps() -> None:
    # The worked example in docs/deals.md: the last three positions are filled first.
    order = deal_order(1)
    assert [cards.name(c) for c in order[45:]] == ["2D", "2S", "8D"]


# --- properties --------------------------------------------------------------------------------


def test_every_deal_0_to_300_is_a_permutation_of_the_non_aces() -> None:
    seen = set()
    for number in range(301):
        order = deal_order(number)
        piles = deal_piles(number)
        assert sorted(order) == NON_ACES, number
        assert len(piles) == 12 and all(len(pile) == 4 for pile in piles), number
        assert [c for pile in piles for c in pile] == order, number
        seen.add(tuple(order))
    assert len(seen) == 301  # the number really drives the shuffle


@pytest.mark.parametrize(
    "bad", [-1, 2**32, True, False, 1.5, 3.0, "3", None, pytest.param(10**5000, id="huge")]
)
def test_bad_numbers_raise(bad: object) -> None:
    with pytest.raises(DealNumberError):
        deal_piles(bad)  # type: ignore[arg-type]
    with pytest.raises(DealNumberError):
        deal_order(bad)  # type: ignore[arg-type]


def test_deal_number_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="out of range"):
        deal_piles(2**32)
    with pytest.raises(ValueError, match="must be an int, not bool"):
        deal_piles(True)


# --- the JavaScript reference and the documentation ----------------------------------------------


def run_node(*args: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    return subprocess.run(
        [node, str(DEALS_JS), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_node_reference_agrees_with_python() -> None:
    numbers = [*range(200), *(n for n in VECTORS if n >= 200)]
    result = run_node(*map(str, numbers))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(numbers)
    for number, line in zip(numbers, lines, strict=True):
        record = json.loads(line)
        assert record["number"] == number
        assert record["piles"] == names(deal_piles(number)), number
        if number in VECTORS:
            assert record["piles"] == VECTORS[number], number


@pytest.mark.parametrize("bad", ["-1", "4294967296", "1.5", "x"])
def test_node_cli_rejects_bad_numbers(bad: str) -> None:
    result = run_node("1", bad)
    assert result.returncode == 2
    assert "not a deal number" in result.stderr


def test_docs_table_matches_vectors() -> None:
    rows = {}
    # Cruel's table; the other decks' tables (after "Other decks") are tests/test_variants.py's
    text = DEALS_MD.read_text(encoding="utf-8").split("\n## Other decks\n", 1)[0]
    for line in text.splitlines():
        match = re.match(r"^\|\s*(\d+)\s*\|(.*)\|\s*$", line)
        if match:
            cells = [cell.split() for cell in match.group(2).split("|")]
            rows[int(match.group(1))] = cells
    assert rows == VECTORS


def test_docs_inline_code_is_the_reference_code() -> None:
    text = DEALS_MD.read_text(encoding="utf-8")
    blocks = re.findall(r"```js\n(.*?)```", text, flags=re.DOTALL)
    core = next(block for block in blocks if "function mulberry32" in block)
    assert "function dealOrder" in core
    assert textwrap.indent(core, "  ") in DEALS_JS.read_text(encoding="utf-8")
