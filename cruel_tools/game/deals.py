"""Deal numbers: deal ``N`` (0 to 2**32 - 1) is the same 12 piles in every implementation.

The recipe is written for porting, above all to the JavaScript game client
(``docs/deals.js`` is its reference implementation, ``docs/deals.md`` the specification with test
vectors): the 48 non-ace cards in a fixed order, shuffled by Fisher-Yates driven by the
*mulberry32* generator seeded with ``N``, then cut into 12 piles of 4. A profile that deals other
cards (all 52 into 13 piles, or the 48 that are not kings) shuffles its own deck the same way
(docs/deals.md, "Other decks"); Cruel's deals never change.

Every step is 32-bit integer arithmetic that JavaScript does exactly (``Math.imul``, ``>>>``), and
the random index is a multiply-shift of an integer, so no floating-point randomness can make two
implementations disagree.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Final

from ..errors import CruelError
from . import cards
from .cards import Card
from .game import NUM_PILES
from .game import PACKET as PILE_SIZE
from .rules import DEFAULT, Rules

__all__ = [
    "MAX_DEAL_NUMBER",
    "DealNumberError",
    "check_deal_number",
    "mulberry32",
    "deal_order",
    "deck",
    "deal_piles",
    "BadDeal",
    "check_piles",
    "resolve_deal",
]

MAX_DEAL_NUMBER: Final = 2**32 - 1

_MASK: Final = 0xFFFFFFFF  # Python ints never overflow; this mask is JavaScript's `>>> 0`
# mulberry32's fixed increment: odd, so the state steps through all 2**32 values before repeating.
_INCREMENT: Final = 0x6D2B79F5

# The deck before shuffling: suits S H D C, ranks 2..K inside each suit (index 0 = 2S, 47 = KC).
# A constant, not a cache: every deal starts from this same order, so it is built once.
_START: Final = tuple(cards.make(s, r) for s in range(4) for r in range(2, cards.KING + 1))


class DealNumberError(CruelError):
    """A deal number that is not an int from 0 to :data:`MAX_DEAL_NUMBER`."""

    code = "bad-deal-number"


def check_deal_number(number: object) -> int:
    """Return ``number`` if it is a valid deal number; raise :class:`DealNumberError` otherwise."""
    # bool is an int subclass, but True as a deal number is almost surely a bug upstream.
    if not isinstance(number, int) or isinstance(number, bool):
        raise DealNumberError(f"a deal number must be an int, not {type(number).__name__}")
    if not 0 <= number <= MAX_DEAL_NUMBER:
        # Don't format a huge int: past 4300 digits str() itself raises (and it is hostile input).
        bits = number.bit_length()
        shown = str(number) if bits <= 64 else f"an int of {bits} bits"
        raise DealNumberError(f"deal number out of range 0..{MAX_DEAL_NUMBER}: {shown}")
    return number


def mulberry32(seed: int) -> Iterator[int]:
    """The mulberry32 generator: an endless stream of unsigned 32-bit ints from ``seed``.

    Bit for bit the JavaScript original; the seed is reduced to 32 bits as ``seed >>> 0`` would.
    Each product is masked to its low 32 bits, which is exactly what ``Math.imul`` returns (the
    low bits of a product do not depend on reading the operands as signed or unsigned).
    """
    a = seed & _MASK
    while True:
        a = (a + _INCREMENT) & _MASK
        t = ((a ^ (a >> 15)) * (a | 1)) & _MASK
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & _MASK)) & _MASK) ^ t
        yield t ^ (t >> 14)


def deck(rules: Rules = DEFAULT) -> tuple[Card, ...]:
    """The cards a profile deals, before shuffling: suits S H D C, each by rank from low to high,
    without those that start on the foundations (for Cruel: 2S ... KS, 2H, ..., KC)."""
    base = rules.foundation_base
    return _START if base == "ace" else _DECKS[base]


_DECKS: Final = {
    "king": tuple(cards.make(s, r) for s in range(4) for r in range(1, cards.KING)),
    "none": tuple(cards.make(s, r) for s in range(4) for r in range(1, cards.KING + 1)),
}


def deal_order(number: int, rules: Rules = DEFAULT) -> list[Card]:
    """The cards of deal ``number`` in dealt order (Fisher-Yates over mulberry32): for Cruel the
    48 that are not aces, for another profile :func:`deck`'s."""
    base = rules.foundation_base
    return list(_shuffled(number) if base == "ace" else _shuffled(number, base))


# A service verifies the same few puzzle deals over and over; shuffling one costs as much as
# replaying a short game, so recent deals are kept (as tuples: no caller can change them).
@lru_cache(maxsize=4096)
def _shuffled(number: int, base: str = "ace") -> tuple[Card, ...]:
    check_deal_number(number)
    order = list(_START if base == "ace" else _DECKS[base])
    # zip stops after 47 draws: one random int per position, from the top position down to 1.
    for i, u in zip(range(len(order) - 1, 0, -1), mulberry32(number), strict=False):  # endless
        # Multiply-shift maps u to 0..i with integers only; JS computes the same value exactly
        # as Math.floor(u * (i + 1) / 4294967296), since u * (i + 1) < 2**38 fits a double.
        j = (u * (i + 1)) >> 32
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def deal_piles(number: int, rules: Rules = DEFAULT) -> list[list[Card]]:
    """The 12 piles of deal ``number`` (the profile's ``pile_count``), each bottom to top: pile 1
    is cards 0-3 of the order."""
    order = deal_order(number, rules)
    n = rules.pile_count
    return [order[k : k + PILE_SIZE] for k in range(0, n * PILE_SIZE, PILE_SIZE)]


# --- deals in logs ----------------------------------------------------------------------------


class BadDeal(CruelError):
    """Piles that are not a deal of Cruel. ``path`` points into the log (``/deal/...``)."""

    code = "bad-deal"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def check_piles(
    piles: Sequence[Sequence[str]], base: str = "/deal/piles", rules: Rules = DEFAULT
) -> list[list[Card]]:
    """Read 12 piles of 4 card names: 48 distinct cards, no aces, else :class:`BadDeal` (under
    another profile: its ``pile_count`` piles of 4, none of the cards on its foundations)."""
    if not rules.cruel_layout:
        return _check_other(piles, base, rules)
    by_text = cards.BY_TEXT
    try:
        result = [[by_text[t] for t in p] for p in piles]
    except KeyError:
        result = [[cards.parse(t) for t in p] for p in piles]  # raises, naming the bad card
    flat = [x for p in result for x in p]
    # The common case (a good deal) costs one set and one scan; only a bad deal is searched
    # for the exact place to blame.
    if (
        len(result) != NUM_PILES
        or len(flat) != NUM_PILES * PILE_SIZE
        or len(set(flat)) != len(flat)
        or any(x % 13 == 0 for x in flat)
        or any(len(p) != PILE_SIZE for p in result)
    ):
        _blame(result, base)
    return result


def _blame(piles: list[list[Card]], base: str) -> None:
    if len(piles) != NUM_PILES:
        raise BadDeal(base, f"a deal has {NUM_PILES} piles, this one has {len(piles)}")
    where: dict[Card, int] = {}
    for i, pile in enumerate(piles):
        if len(pile) != PILE_SIZE:
            raise BadDeal(
                f"{base}/{i}",
                f"pile {i + 1} has {len(pile)} cards (a deal has {PILE_SIZE} in each)",
            )
        for j, card in enumerate(pile):
            if cards.rank(card) == 1:
                raise BadDeal(
                    f"{base}/{i}/{j}",
                    f"{cards.symbol(card)} in pile {i + 1}: the aces start on the foundations",
                )
            if card in where:
                raise BadDeal(
                    f"{base}/{i}/{j}",
                    f"{cards.symbol(card)} is in pile {where[card]} and again in pile {i + 1}",
                )
            where[card] = i + 1


def _check_other(piles: Sequence[Sequence[str]], base: str, rules: Rules) -> list[list[Card]]:
    result = [[cards.parse(t) for t in p] for p in piles]
    n = rules.pile_count
    if len(result) != n:
        raise BadDeal(base, f"a deal has {n} piles, this one has {len(result)}")
    allowed = set(deck(rules))
    where: dict[Card, int] = {}
    for i, pile in enumerate(result):
        if len(pile) != PILE_SIZE:
            raise BadDeal(
                f"{base}/{i}",
                f"pile {i + 1} has {len(pile)} cards (a deal has {PILE_SIZE} in each)",
            )
        for j, card in enumerate(pile):
            if card not in allowed:
                raise BadDeal(
                    f"{base}/{i}/{j}",
                    f"{cards.symbol(card)} in pile {i + 1}: the "
                    f"{rules.foundation_base}s start on the foundations",
                )
            if card in where:
                raise BadDeal(
                    f"{base}/{i}/{j}",
                    f"{cards.symbol(card)} is in pile {where[card]} and again in pile {i + 1}",
                )
            where[card] = i + 1
    return result


def resolve_deal(
    number: int | None, piles_text: Sequence[Sequence[str]] | None, rules: Rules = DEFAULT
) -> list[list[Card]]:
    """The starting piles a log's deal names: by number, by piles, or both when they agree."""
    by_number = deal_piles(number, rules) if number is not None else None
    if piles_text is None:
        if by_number is None:
            raise BadDeal("/deal", 'a deal needs "number" or "piles"')
        return by_number
    piles = check_piles(piles_text, rules=rules)
    if by_number is not None and by_number != piles:
        i = next(k for k in range(len(piles)) if by_number[k] != piles[k])
        shown = " ".join(cards.symbol(c) for c in by_number[i])
        raise BadDeal(
            f"/deal/piles/{i}",
            f"pile {i + 1} is not that of deal {number} (which has {shown}, bottom to top)",
        )
    return piles
