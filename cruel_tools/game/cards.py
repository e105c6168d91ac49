"""Cards: a card is a plain ``int`` from 0 to 51.

``card = suit * 13 + rank - 1`` with suits in the order S H D C and ranks 1 (ace) to 13 (king).
Plain ints keep the engine fast and make a card's *successor* (same suit, one rank up: the card it
may be built onto) simply ``card + 1``.

Text forms are read case-insensitively as rank then suit: ranks ``A 2-9 10 T J Q K``, suits
``S H D C`` or ``♠ ♥ ♦ ♣`` (an emoji variation selector after the symbol is ignored).
"""

from __future__ import annotations

from typing import Final

from ..errors import CruelError

__all__ = [
    "Card",
    "SUITS",
    "SUIT_SYMBOLS",
    "SUIT_NAMES",
    "RANK_NAMES",
    "KING",
    "ACES",
    "DECK",
    "CardError",
    "make",
    "suit",
    "rank",
    "name",
    "symbol",
    "BY_TEXT",
    "parse",
]

Card = int

SUITS: Final = "SHDC"
SUIT_SYMBOLS: Final = "♠♥♦♣"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
KING: Final = 13
ACES: Final = (0, 13, 26, 39)
DECK: Final = tuple(range(52))


class CardError(CruelError):
    """A string that is not a card."""

    code = "bad-card"


def make(suit: int, rank: int) -> Card:
    """The card of ``suit`` (0-3, order S H D C) and ``rank`` (1-13)."""
    return suit * 13 + rank - 1


def suit(card: Card) -> int:
    """Suit index 0-3 (S H D C)."""
    return card // 13


def rank(card: Card) -> int:
    """Rank 1 (ace) to 13 (king)."""
    return card % 13 + 1


def name(card: Card) -> str:
    """Canonical ASCII name used in every JSON we write: ``10H``, ``AS``, ``KD``."""
    return _NAMES[card]


def symbol(card: Card) -> str:
    """The way players write it: ``10♥``, ``A♠``."""
    return _SYMBOLS[card]


def _cases(text: str) -> set[str]:
    """Every upper/lower-case spelling of ``text``."""
    variants = {""}
    for ch in text:
        variants = {v + x for v in variants for x in {ch.lower(), ch.upper()}}
    return variants


def _build_table() -> dict[str, Card]:
    rank_spellings = {r: [RANK_NAMES[r]] for r in range(1, 14)}
    rank_spellings[10].append("T")
    table: dict[str, Card] = {}
    for s in range(4):
        for r in range(1, 14):
            for rs in rank_spellings[r]:
                for ss in (SUITS[s], SUIT_SYMBOLS[s], SUIT_SYMBOLS[s] + "\ufe0f"):
                    for spelling in _cases(rs + ss):
                        table[spelling] = make(s, r)
    return table


_NAMES: Final = tuple(RANK_NAMES[rank(c)] + SUITS[suit(c)] for c in DECK)
_SYMBOLS: Final = tuple(RANK_NAMES[rank(c)] + SUIT_SYMBOLS[suit(c)] for c in DECK)
#: Every accepted spelling (in any mix of cases) to its card. Exact keys, no ``str.upper()``:
#: upper() maps some non-ASCII letters onto ASCII ones ("ſ" to "S"), which no card text may use.
#: Hot loops look up ``BY_TEXT[text]`` and call :func:`parse` only to explain a failure.
BY_TEXT: Final = _build_table()


def parse(text: str) -> Card:
    """Read a card such as ``10H``, ``th``, ``4♦``; raise :class:`CardError` otherwise."""
    card = BY_TEXT.get(text) if isinstance(text, str) else None
    if card is None:
        shown = text if isinstance(text, str) and len(text) <= 12 else repr(text)[:12] + "…"
        raise CardError(f"not a card: {shown!r} (write rank then suit, like 10H, TH or 4♦)")
    return card
