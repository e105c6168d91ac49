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
from ..formats import document_config
from ..spec import SPEC

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
    "PRESETS_FORMAT",
    "Preset",
    "PresetList",
    "preset_list",
]

RedealOrder = Literal["bottom-up", "top-down"]
FoundationBase = Literal["ace", "king", "none"]
FoundationDirection = Literal["up", "down"]
TableauBuild = Literal["down-in-suit", "up-alternate-colour", "up-or-down-alternate-colour"]
RedealDeal = Literal["packets-of-4", "one-at-a-time"]

#: The named presets, as the spec states them (cruel_tools/spec/presets.json): each name, the
#: contested points it settles (the rest keep the defaults of :class:`Rules`) and where its
#: reading comes from. :data:`PresetName` and :data:`PRESETS` are both read from it, so a preset
#: is added in one place: the spec (then ``python -m cruel_tools.spec generate``).
PRESET_TABLE: Final[tuple[tuple[str, dict[str, Any], str], ...]] = tuple(
    (entry["name"], entry["settings"], entry["source"]) for entry in SPEC.presets["presets"]
)
#: The parameters by name (their defaults, values and descriptions) and the combinations that
#: make no game, from the spec.
_PARAMETERS: Final[dict[str, dict[str, Any]]] = {p["name"]: p for p in SPEC.presets["parameters"]}
_CONSTRAINTS: Final[list[dict[str, Any]]] = SPEC.presets["constraints"]


def _field(name: str, **bounds: Any) -> Any:
    """The field of parameter ``name``: its default and description from the spec."""
    parameter = _PARAMETERS[name]
    return Field(parameter["default"], description=parameter["description"], **bounds)


if TYPE_CHECKING:  # a Literal built at run time is opaque to a type checker
    PresetName = str
else:
    PresetName = Literal[tuple(name for name, _, _ in PRESET_TABLE)]


class Rules(BaseModel):
    """One rules profile. Immutable; compare with ``==``."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    preset: PresetName = Field("cruel", description="The named preset this profile starts from.")
    redeal_order: RedealOrder = _field("redeal_order")
    max_redeals: int | None = _field(
        "max_redeals",
        ge=_PARAMETERS["max_redeals"]["minimum"],
        le=_PARAMETERS["max_redeals"]["maximum"],
    )
    redeal_only_when_stuck: bool = _field("redeal_only_when_stuck")
    run_moves: bool = _field("run_moves")
    pile_count: Literal[12, 13] = _field("pile_count")
    foundation_base: FoundationBase = _field("foundation_base")
    foundation_direction: FoundationDirection = _field("foundation_direction")
    tableau_build: TableauBuild = _field("tableau_build")
    redeal_deal: RedealDeal = _field("redeal_deal")

    @model_validator(mode="after")
    def _consistent(self) -> Rules:
        # The combinations no game has and the engine does not define (the spec's constraints,
        # in its order: the first one broken is the one named).
        for rule in _CONSTRAINTS:
            if _holds(self, rule["when"]) and not _holds(self, rule["then"]):
                values = {name: getattr(self, name) for name in _PARAMETERS}
                raise ValueError(rule["message"].format_map(values))
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

    @cached_property
    def locks_proven(self) -> bool:
        """Whether the dead-position rules L and F are proven for this profile (docs/solver.md,
        rule L: the bottom-up redeal and single-card moves, and "Where it does not hold": the
        top-down redeal, run moves, every profile not of Cruel's layout; rule F: "Same profiles
        as rule L"). The one statement of it: the solver and the certificates' checker read it."""
        return self.redeal_order == "bottom-up" and not self.run_moves and self.cruel_layout

    def stuck_proven(self, redeals: int) -> bool:
        """Whether rules V and S (docs/solver.md) hold after ``redeals`` redeals: a profile of
        the rest of the family (not Cruel's layout), single-card moves, and its redeal limit
        used up, so that no redeal can ever come again."""
        return (
            not self.cruel_layout
            and not self.run_moves
            and self.max_redeals is not None
            and redeals >= self.max_redeals
        )


def _holds(rules: Rules, condition: dict[str, list[Any]]) -> bool:
    """Whether each parameter ``condition`` names has one of the values it lists."""
    return all(getattr(rules, name) in values for name, values in condition.items())


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


#: The format of the list of presets (``GET /v1/rules/presets``).
PRESETS_FORMAT: Final = "cruel-presets/1"


class Preset(BaseModel):
    """One named preset: its rules and where its reading comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="The preset's name, as a log's deal.rules.preset gives it.")
    source: str = Field(description="Where this reading of the rules comes from.")
    rules: Rules = Field(description="Every parameter of the profile the name stands for.")


class PresetList(BaseModel):
    """The rules presets this version plays, in the spec's order (``cruel-presets/1``): what a
    page needs to offer a choice of rules, or to check a log's preset before it sends it."""

    model_config = document_config("Cruel rules presets", "presets")

    format: Literal["cruel-presets/1"] = Field(PRESETS_FORMAT, description="Format and version.")
    presets: list[Preset] = Field(description="Every preset, ``cruel`` (the default) first.")


def preset_list() -> PresetList:
    """Every preset with its source and its rules, as the spec states them."""
    return PresetList(
        presets=[
            Preset(name=name, source=source, rules=PRESETS[name])
            for name, _, source in PRESET_TABLE
        ]
    )
