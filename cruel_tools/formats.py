"""What every JSON document we read or write shares: its pydantic configuration.

Unknown keys are refused (a misspelt key is an error, not silently dropped), models are frozen,
and each document's JSON Schema carries its title and its ``$id`` (``schemas/<name>``).
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SCHEMA_BASE", "document_config", "PlayRating"]

SCHEMA_BASE: Final = "https://cruel-tools.invalid/schemas/"


def document_config(title: str, schema: str) -> ConfigDict:
    """The configuration of a document whose schema is ``schemas/<schema>.schema.json``."""
    return ConfigDict(
        extra="forbid",
        frozen=True,
        title=title,
        json_schema_extra={"$id": f"{SCHEMA_BASE}{schema}.schema.json"},
    )


class PlayRating(BaseModel):
    """A player's or a puzzle's rating from play (:mod:`cruel_tools.site.ratings`; docs/service.md,
    Ratings), part of the documents that show it: shown once its deviation is under the
    threshold, null before."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rating: float = Field(description="Glicko-2 rating (everyone starts at 1500), to 0.1.")
    deviation: float = Field(
        description="Its deviation (RD), to 0.1: the rating is within about 2 RD of the truth."
    )
    games: int = Field(description="Rated live attempts.")
