"""The commands that make puzzles: ``generate`` (of one tier), ``daily`` (a dated set; its
``--export`` of the days a server published)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, get_args

import orjson
import typer

from ..constants import DEFAULT_DB, Tier
from ..dates import parse_date
from ..game import rules
from ..game.verify import plural
from .common import (
    JobsOption,
    MaxMemoryOption,
    Progress,
    QuietOption,
    RulesOption,
    SecretFileOption,
    Showing,
    db_target,
    emit,
    fail,
    memory_option,
    no_such_database,
    note,
    parse_option,
    read_secret,
)

__all__ = ["generate_command", "daily_command"]


def generate_command(
    tier: Annotated[str, typer.Option("--tier", help=f"One of {', '.join(get_args(Tier))}.")],
    seed: Annotated[str, typer.Option("--seed", help="Any string: the same seed, the same deals.")],
    count: Annotated[int, typer.Option("--count", min=1, help="How many puzzles.")] = 1,
    jobs: JobsOption = 1,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write <id>.json files here (default: JSON Lines on stdout)."),
    ] = None,
    rules_name: RulesOption = "cruel",
    secret_file: SecretFileOption = None,
    max_memory: MaxMemoryOption = None,
    quiet: QuietOption = False,
) -> None:
    """Puzzles of one tier: the first COUNT deals of that tier in the stream of SEED (keyed by
    the secret in --secret-file, if given), each graded within the memory budget."""
    from .. import puzzles
    from ..search import grading

    if tier not in grading.TIERS:
        raise fail(f"--tier must be one of {', '.join(grading.TIERS)}, not {tier!r}", 2)
    chosen = parse_option("--rules", rules.preset, rules_name)
    allowed = memory_option("--max-memory", max_memory, jobs)
    secret = read_secret(secret_file)
    budget = allowed.grading()
    found = puzzles.generate(tier, count, seed, chosen, jobs, budget=budget, secret=secret)
    for puzzle in found:
        if out is None:
            emit(orjson.dumps(puzzle.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS))
        else:
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"{puzzle.id}.json"
            path.write_bytes(puzzles.puzzle_bytes(puzzle))
            note(str(path), quiet)


def daily_command(
    start: Annotated[
        str | None, typer.Option("--start", help="First day, e.g. 2027-01-01.")
    ] = None,
    days: Annotated[int, typer.Option("--days", min=1, help="How many days.")] = 1,
    out: Annotated[Path, typer.Option("--out", help="The puzzle set folder.")] = Path("puzzles"),
    jobs: JobsOption = 1,
    secret_file: SecretFileOption = None,
    new_secret: Annotated[
        Path | None,
        typer.Option(
            "--new-secret",
            help="Write a new random secret (256 bits, 64 hex digits, mode 0600) to this new "
            "file, for --secret-file, and do nothing else.",
        ),
    ] = None,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            metavar="DIR",
            help="Write the days cruel serve published into --db to this folder, as --out "
            "writes them, and do nothing else.",
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="With --export: the site's database, an SQLite file or a postgresql:// URL "
            f"({DEFAULT_DB} if not given).",
        ),
    ] = None,
    max_memory: MaxMemoryOption = None,
    quiet: QuietOption = False,
) -> None:
    """Write the daily puzzles (one per tier per day) and index.json (puzzles/README.md).

    Rerunning the same command rewrites the same bytes. With --secret-file the deals come from a
    stream keyed by the secret, and a folder made with another secret (or none) is refused.
    With --export the days a server published ahead are written as files, the same bytes.
    """
    from .. import puzzles

    if export is not None or db is not None:
        _export_days(export, db, start, secret_file, new_secret, quiet)
        return
    if new_secret is not None:
        try:
            puzzles.write_new_secret(new_secret)
        except FileExistsError:
            raise fail(f"--new-secret: {new_secret} exists: it is never overwritten", 2) from None
        except OSError as exc:
            why = exc.strerror or exc
            raise fail(f"--new-secret: cannot write {new_secret}: {why}", 2) from None
        note(f"wrote a new secret to {new_secret}: keep it private and back it up", quiet)
        return
    if start is None:
        raise fail("--start is needed (or --new-secret FILE)", 2)
    first = parse_option("--start", parse_date, start)
    allowed = memory_option("--max-memory", max_memory, jobs)
    secret = read_secret(secret_file)
    progress = Progress(
        days, label="making puzzles", at_least=1, ticking=True, unit=" days", quiet=quiet
    )
    try:
        with Showing(progress):
            written = puzzles.daily(
                first,
                days,
                out,
                jobs,
                progress=lambda _day: progress.step(),
                budget=allowed.grading(),
                secret=secret,
            )
    except puzzles.PuzzleSetError as exc:
        raise fail(str(exc), 2) from None
    note(f"wrote {plural(len(written) - 1, 'puzzle')} and {written[-1]}", quiet)
    note(f"memory budget: {allowed.summary()}", quiet)


def _export_days(
    export: Path | None,
    db: str | None,
    start: str | None,
    secret_file: Path | None,
    new_secret: Path | None,
    quiet: bool,
) -> None:
    """``cruel daily --export DIR``: the days published into ``--db``, written as ``--out``
    writes days it makes (their stream is the database's: no secret is needed)."""
    from .. import puzzles
    from ..site import puzzle_sources
    from ..site.database import NoSuchDatabase, StoreError, describe

    if export is None:
        raise fail("--db goes with --export DIR (the folder to write the published days to)", 2)
    if start is not None or secret_file is not None or new_secret is not None:
        raise fail(
            "--export writes the days published: give no --start, --secret-file or "
            "--new-secret with it",
            2,
        )
    where = db or DEFAULT_DB
    try:
        written = puzzle_sources.export_published(db_target(where), export)
    except NoSuchDatabase:
        raise no_such_database(where, has_create=False) from None
    except (puzzles.PuzzleSetError, StoreError) as exc:
        raise fail(str(exc), 2) from None
    except OSError as exc:
        raise fail(f"--export: cannot write {export}: {exc.strerror or exc}", 2) from None
    if not written:
        note(f"{describe(where)}: no day published: nothing written", quiet)
        return
    note(f"wrote {plural(len(written) - 1, 'puzzle')} and {written[-1]}", quiet)
