"""The ``cruel`` command: a thin layer over the library (every command is a plain call first)."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import orjson
import typer

from . import cards, deals, schemas
from .inputs import count_units, is_terminal, iter_units
from .log import Limits
from .rules import PRESETS
from .verify import EXIT_CODES, render_many

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Tools for the patience game Cruel: verify game logs, deals, schemas.",
)


def _out(line: str | bytes) -> None:
    data = line if isinstance(line, bytes) else line.encode()
    sys.stdout.buffer.write(data + b"\n")


class _Progress:
    """A progress bar on stderr, only for long batches on a terminal."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.on = total is not None and total >= 200 and is_terminal(sys.stderr)
        self.done = 0
        self.last = 0.0

    def step(self) -> None:
        self.done += 1
        if not self.on or self.total is None:
            return
        now = time.monotonic()
        if now - self.last < 0.1 and self.done < self.total:
            return
        self.last = now
        width = 30
        filled = width * self.done // max(self.total, 1)
        sys.stderr.write(
            f"\rverifying [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\r" + " " * 60 + "\r")


@app.command()
def verify(
    logs: Annotated[list[str], typer.Argument(help="Log files, directories, .jsonl files, or - for stdin.")],
    json: Annotated[bool, typer.Option("--json", help="One JSON report per log (JSON Lines).")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Worker processes.")] = 1,
    max_bytes: Annotated[int, typer.Option(min=1, help="Largest log accepted, in bytes.")] = Limits.max_bytes,
    max_moves: Annotated[int, typer.Option(min=0, help="Most moves accepted in one log.")] = Limits.max_moves,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Read stdin as JSON Lines.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only problems and the summary.")] = False,
) -> None:
    """Replay game logs against the rules; report the first illegal move or confirm the result.

    Exit status: 0 all valid, 1 an illegal move, bad deal or false claim, 2 unreadable input.
    """
    limits = Limits(max_bytes=max_bytes, max_moves=max_moves)
    progress = _Progress(count_units(logs))
    tally: Counter[str] = Counter()
    try:
        for status, line in render_many(iter_units(logs, limits, jsonl), limits, jobs, json):
            tally[status] += 1
            progress.step()
            if json or not (quiet and status == "valid"):
                _out(line)
    finally:
        progress.close()
    total = sum(tally.values())
    if total == 0:
        typer.echo("error: no logs found (give .json or .jsonl files, directories holding them, or -)", err=True)
        raise typer.Exit(EXIT_CODES["unreadable"])
    summary = (
        f"verified {total} log{'s' if total != 1 else ''}: {tally['valid']} valid, "
        f"{tally['invalid']} invalid, {tally['unreadable']} unreadable"
    )
    if tally["internal-error"]:
        summary += f", {tally['internal-error']} internal errors"
    typer.echo(summary, err=True)
    raise typer.Exit(max((EXIT_CODES[s] for s in tally), default=0))  # type: ignore[index]


@app.command()
def deal(number: Annotated[int, typer.Argument(help="Deal number, 0 to 4294967295.")]) -> None:
    """Print deal NUMBER's 12 piles (bottom to top) as JSON."""
    try:
        piles = deals.deal_piles(number)
    except deals.DealNumberError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    _out(orjson.dumps({"number": number, "piles": [[cards.name(c) for c in p] for p in piles]}))


@app.command()
def schema(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the schemas into.")] = Path("schemas"),
) -> None:
    """Write the JSON Schemas of every format we read or write."""
    for path in schemas.write_all(out):
        typer.echo(str(path))


@app.command()
def rules() -> None:
    """Print the rules presets as JSON."""
    _out(orjson.dumps({k: v.model_dump() for k, v in PRESETS.items()}, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":  # pragma: no cover
    app()
