"""What every JSON document we read or write shares: its pydantic configuration.

Unknown keys are refused (a misspelt key is an error, not silently dropped), models are frozen,
and each document's JSON Schema carries its title and its ``$id`` (``schemas/<name>``).
"""

from __future__ import annotations

from typing import Final

from pydantic import ConfigDict

__all__ = ["SCHEMA_BASE", "document_config"]

SCHEMA_BASE: Final = "https://cruel-tools.invalid/schemas/"


def document_config(title: str, schema: str) -> ConfigDict:
    """The configuration of a document whose schema is ``schemas/<schema>.schema.json``."""
    return ConfigDict(
        extra="forbid",
        frozen=True,
        title=title,
        json_schema_extra={"$id": f"{SCHEMA_BASE}{schema}.schema.json"},
    )
