"""Rules profiles: the parameters on which readings of Cruel differ, and their named presets.

Everything the readings in the seeds agree on (12 piles dealt in packets of 4, single top cards
built down in suit or played up to the foundation, closed empty piles, unshuffled redeals that must
change the layout) is fixed in :mod:`cruel_tools.game`. A profile only says *which* reading of
the contested points applies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import CruelError

__all__ = [
    "RedealOrder",
    "PresetName",
    "PRESET_TABLE",
    "Rules",
    "PRESETS",
    "DEFAULT",
    "UnknownPreset",
    "preset",
]

RedealOrder = Literal["bottom-up", "top-down"]

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
