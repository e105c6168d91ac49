"""The commands that print the game's reference data: ``deal`` (a deal's piles), ``rules``
(the presets), ``schema`` (the JSON Schemas)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer

from ..game import cards, deals, rules
from .common import echo, emit, fail, parse_option

__all__ = ["deal_command", "schema_command", "rules_command"]


def deal_command(
    number: Annotated[int, typer.Argument(help="Deal number, 0 to 4294967295.")],
    rules_name: Annotated[
        str,
        typer.Option(
            "--rules",
            metavar="PRESET",
            help="Rules preset: its deck and piles (13 piles of all 52 cards under "
            "ripple-fan-pysolfc, the 48 non-kings under royal-family-pysolfc).",
        ),
    ] = "cruel",
) -> None:
    """Print deal NUMBER's 12 piles (bottom to top) as JSON."""
    chosen = parse_option("--rules", rules.preset, rules_name)
    try:
        piles = deals.deal_piles(number, chosen)
    except deals.DealNumberError as exc:
        raise fail(str(exc), 2) from None
    emit(orjson.dumps({"number": number, "piles": [[cards.name(c) for c in p] for p in piles]}))


def schema_command(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the schemas into.")] = Path(
        "schemas"
    ),
) -> None:
    """Write the JSON Schemas of every format we read or write."""
    from .. import schemas

    for path in schemas.write_all(out):
        echo(str(path))


def rules_command() -> None:
    """Print the rules presets as JSON."""
    emit(
        orjson.dumps(
            {k: v.model_dump() for k, v in rules.PRESETS.items()}, option=orjson.OPT_INDENT_2
        )
    )
