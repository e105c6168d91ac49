"""Rules profiles: the parameters on which readings of Cruel differ, and their named presets.

Everything the readings in the seeds agree on (closed empty piles, unshuffled redeals that must
change the layout, one pack) is fixed in :mod:`cruel_tools.game.game`. A profile says *which*
reading of
the contested points applies, and for the rest of the family (Ripple Fan, Royal Family) the layout,
the foundations, the tableau build and how a redeal lays the cards out.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import CruelError

__all__ = [
    "RedealOrder",
    "FoundationBase",
    "FoundationDirection",
    "TableauBuild",
    "RedealDeal",
    "PresetName",
    "PRESET_TABLE",
    "Rules",
    "PRESETS",
    "DEFAULT",
    "UnknownPreset",
    "preset",
]

RedealOrder = Literal["bottom-up", "top-down"]
FoundationBase = Literal["ace", "king", "none"]
FoundationDirection = Literal["up", "down"]
TableauBuild = Literal["down-in-suit", "up-alternate-colour", "up-or-down-alternate-colour"]
RedealDeal = Literal["packets-of-4", "one-at-a-time"]

#: The one table of presets: each name, the contested points it settles (the rest keep the
#: defaults of :class:`Rules`) and where its reading comes from. :data:`PresetName` and
#: :data:`PRESETS` are both read from it, so a preset is added in one place.
PRESET_TABLE: Final[tuple[tuple[str, dict[str, Any], str], ...]] = (
    (
        "cruel",
        {},
        "Seed 000 (Semicolon's profile), the default: single cards, closed gaps, redeal any time.",
    ),
    (
        "cruel-when-stuck",
        {"redeal_only_when_stuck": True},
        "Seed 001's first variant and the Dutch seed 003's step 4 (\"when you are stuck\").",
    ),
    ("cruel-limited-3", {"max_redeals": 3}, 'Seed 003\'s "Beperkte Cruel" house rule.'),
    ("cruel-limited-5", {"max_redeals": 5}, 'Seed 003\'s "Beperkte Cruel" house rule.'),
    (
        "perseverance",
        {"run_moves": True, "max_redeals": 2},
        'Seed 001\'s "Perseverance" variant: suit runs move as a unit, only two redeals.',
    ),
    (
        "pysolfc",
        {"redeal_order": "top-down"},
        "The redeal order issue #2 attributes to the PySolFC program (docs/rules.md: a caveat).",
    ),
    (
        "ripple-fan",
        {"redeal_deal": "one-at-a-time"},
        'Seed 003\'s "Ripple Fan": redeals deal the cards one at a time across the fans.',
    ),
    (
        "royal-family",
        {"tableau_build": "up-alternate-colour"},
        'Seed 003\'s "Royal Family": the tableau builds up in alternating colours.',
    ),
    (
        "ripple-fan-pysolfc",
        {"pile_count": 13, "foundation_base": "none", "redeal_order": "top-down"},
        "PySolFC's Ripple Fan (bakersdozen.py, RippleFan): 13 piles of 4 from all 52 cards.",
    ),
    (
        "royal-family-pysolfc",
        {
            "foundation_base": "king",
            "foundation_direction": "down",
            "tableau_build": "up-or-down-alternate-colour",
            "max_redeals": 1,
            "redeal_order": "top-down",
        },
        "PySolFC's Royal Family (bakersdozen.py, RoyalFamily): kings down, up or down in "
        "alternate colours, one redeal.",
    ),
)

if TYPE_CHECKING:  # a Literal built at run time is opaque to a type checker
    PresetName = str
else:
    PresetName = Literal[tuple(name for name, _, _ in PRESET_TABLE)]


class Rules(BaseModel):
    """One rules profile. Immutable; compare with ``==``."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    preset: PresetName = Field("cruel", description="The named preset this profile starts from.")
    redeal_order: RedealOrder = Field(
        "bottom-up",
        description=(
            "bottom-up: read piles 1..12 each bottom to top and deal packets of 4 bottom to top "
            "(seeds 000, 001, 003). top-down: read piles 1..12 each top to bottom; the first card "
            "of each packet becomes the top of its new pile."
        ),
    )
    max_redeals: int | None = Field(
        None, ge=0, le=1000, description="Most redeals allowed in a game; null for no limit."
    )
    redeal_only_when_stuck: bool = Field(
        False, description="A redeal is legal only when no card move is."
    )
    run_moves: bool = Field(
        False,
        description=(
            "A run on top of a pile (one suit, each card one rank below the card under it) may "
            "move as a unit onto the card one rank above its deepest card (Perseverance)."
        ),
    )
    pile_count: Literal[12, 13] = Field(
        12,
        description=(
            "Tableau piles, 4 cards each at the deal: 12 (48 cards, 4 on the foundations) or 13 "
            "(all 52, foundations empty)."
        ),
    )
    foundation_base: FoundationBase = Field(
        "ace",
        description=(
            "The cards that start on the foundations: the aces, the kings, or none (each "
            "foundation then starts with its first card played to it)."
        ),
    )
    foundation_direction: FoundationDirection = Field(
        "up",
        description="up: a foundation builds A, 2, ..., K by suit; down: K, Q, ..., A by suit.",
    )
    tableau_build: TableauBuild = Field(
        "down-in-suit",
        description=(
            "What a card may go onto in the tableau: one rank higher of its suit "
            "(down-in-suit); one rank lower of the other colour (up-alternate-colour); one rank "
            "higher or lower of the other colour (up-or-down-alternate-colour)."
        ),
    )
    redeal_deal: RedealDeal = Field(
        "packets-of-4",
        description=(
            "How a redeal lays out the gathered sequence: in packets of 4, pile by pile; or one "
            "card at a time to each pile in turn (card k to pile k mod piles), across all piles."
        ),
    )

    @model_validator(mode="after")
    def _consistent(self) -> Rules:
        # The combinations no game has and the engine does not define.
        if self.foundation_base == "ace" and self.foundation_direction != "up":
            raise ValueError("foundations based on the aces build up")
        if self.foundation_base == "king" and self.foundation_direction != "down":
            raise ValueError("foundations based on the kings build down")
        dealt = 52 if self.foundation_base == "none" else 48
        if self.pile_count * 4 != dealt:
            raise ValueError(
                f"{self.pile_count} piles of 4 do not hold the {dealt} cards left to deal"
            )
        if self.run_moves and self.tableau_build != "down-in-suit":
            raise ValueError("run moves are defined only for the down-in-suit build")
        return self

    @cached_property  # read once per log or position made: computed once per profile
    def cruel_layout(self) -> bool:
        """Whether this is Cruel's own layout and build (12 piles, aces up, down in suit,
        packets of 4): the engine's fast path, and what the solver's proven rules assume besides
        their own conditions."""
        return (
            self.pile_count == 12
            and self.foundation_base == "ace"
            and self.tableau_build == "down-in-suit"
            and self.redeal_deal == "packets-of-4"
        )


#: The presets by name (see :data:`PRESET_TABLE` for the source of each).
PRESETS: Final[dict[str, Rules]] = {
    name: Rules(preset=name, **settings) for name, settings, _ in PRESET_TABLE
}

DEFAULT = PRESETS["cruel"]


class UnknownPreset(CruelError, KeyError):
    """A rules preset name that is not one of :data:`PRESETS`.

    Also a :class:`KeyError`, as it was before there was :class:`~cruel_tools.errors.CruelError`
    (like NumPy's ``AxisError``, both a ``ValueError`` and an ``IndexError``).
    """

    code = "unknown-preset"


def preset(name: str) -> Rules:
    """The preset called ``name``; :class:`UnknownPreset` (a :class:`KeyError`) names the known
    ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownPreset(
            f"unknown rules preset {name!r} (known: {', '.join(PRESETS)})"
        ) from None
