"""The commands that administer a site's database: ``keys`` (its API keys), ``moderate`` (the
review queue of flagged wins), ``ratings`` (the puzzles' ratings from play, by tier)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from ..constants import DEFAULT_DB
from .common import DbOption, PuzzlesOption, db_target, echo, emit, fail, json_option, open_db

if TYPE_CHECKING:
    from .. import puzzles
    from ..site import stores

__all__ = [
    "keys_app",
    "keys_add_command",
    "keys_list_command",
    "keys_revoke_command",
    "moderate_app",
    "moderate_queue_command",
    "moderate_clear_command",
    "moderate_reject_command",
    "ratings_command",
]


keys_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="API keys of cruel serve: a site's key submits for its players (docs/service.md).",
)


_CreateOption = Annotated[
    bool,
    typer.Option(
        "--create",
        help="Make the database if it is not there (as cruel serve does): the first admin "
        "key, before the first serve.",
    ),
]


@keys_app.command("add")
def keys_add_command(
    role: Annotated[
        str, typer.Option("--role", help="site (submits for its players) or admin (moderation).")
    ],
    name: Annotated[str, typer.Option("--name", help="A label: whose key it is.")],
    db: DbOption = DEFAULT_DB,
    create: _CreateOption = False,
) -> None:
    """Make a key and print it, once: only its hash is kept."""
    from ..site import keys

    try:  # before the database: --create with a bad role or name makes none
        keys.check_request(name, role)
    except keys.BadKeyRequest as exc:
        raise fail(str(exc), 2) from None
    opened = open_db(db, create)
    try:
        made, key = opened.keys.add(name, role)
    except keys.BadKeyRequest as exc:
        raise fail(str(exc), 2) from None
    finally:
        opened.close()
    emit(f"id {made.id}")
    emit(f"key {key}")
    echo(
        f"made {made.role} key {made.id} ({made.name}): keep it secret; it is not shown again",
        err=True,
    )


def _when(at: dt.datetime | None) -> str:
    return at.isoformat(timespec="seconds") if at else "-"


@keys_app.command("list")
def keys_list_command(db: DbOption = DEFAULT_DB) -> None:
    """Every key's id, role, dates and name (never the keys themselves)."""
    opened = open_db(db)
    try:
        made = opened.keys.keys()
    finally:
        opened.close()
    emit(f"{'ID':>4}  {'ROLE':<5}  {'CREATED':<25}  {'REVOKED':<25}  NAME")
    for k in made:
        created, revoked = _when(k.created_at), _when(k.revoked_at)
        emit(f"{k.id:>4}  {k.role:<5}  {created:<25}  {revoked:<25}  {k.name}")


@keys_app.command("revoke")
def keys_revoke_command(
    key_id: Annotated[int, typer.Argument(metavar="ID", help="The key's id (cruel keys list).")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Revoke a key, for good: a running server refuses it from its next request on."""
    from ..site import keys

    opened = open_db(db)
    try:
        revoked = opened.keys.revoke(key_id)
    except keys.BadKeyRequest as exc:
        raise fail(str(exc), 2) from None
    finally:
        opened.close()
    echo(f"key {revoked.id} ({revoked.name}) revoked at {_when(revoked.revoked_at)}", err=True)


moderate_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="The review queue of cruel serve: wins flagged for a moderator (docs/service.md).",
)

_AdminOption = Annotated[
    int,
    typer.Option("--as", help="The id of the admin key the audit log records (cruel keys list)."),
]


def _admin_key(opened: stores.Stores, key_id: int) -> Any:
    """The valid admin key ``--as`` names (exit 2 otherwise)."""
    found = next((k for k in opened.keys.keys() if k.id == key_id), None)
    if found is None or found.role != "admin" or found.revoked_at is not None:
        raise fail(f"--as {key_id}: not a valid admin key of this database (cruel keys list)", 2)
    return found


@moderate_app.command("queue")
def moderate_queue_command(
    status: Annotated[
        str, typer.Option("--status", help="pending (to decide), cleared or rejected.")
    ] = "pending",
    db: DbOption = DEFAULT_DB,
) -> None:
    """The flagged wins: hidden from the public boards until a moderator clears them."""
    if status not in ("pending", "cleared", "rejected"):
        raise fail(f"--status {status!r}: pending, cleared or rejected", 2)
    opened = open_db(db)
    try:
        page = opened.moderation.queue(status, limit=1000)  # type: ignore[arg-type]
    finally:
        opened.close()
    emit(f"{'ID':>6}  {'PUZZLE':<18}  {'ACTIONS':>7}  {'MS':>9}  {'FLAGS':<24}  PLAYER")
    for e in page.entries:
        elapsed = "-" if e.elapsed_ms is None else str(e.elapsed_ms)
        flags = ",".join(e.reasons)
        emit(
            f"{e.submission_id:>6}  {e.puzzle:<18}  {e.actions:>7}  {elapsed:>9}  {flags:<24}"
            f"  {e.player}"
        )


def _decide(action: str, submission: int, key_id: int, reason: str | None, db: str) -> None:
    from ..site.moderation import NoSuchSubmission, NotInQueue

    opened = open_db(db)
    try:
        key = _admin_key(opened, key_id)
        act = opened.moderation.clear if action == "clear" else opened.moderation.reject
        done = act(submission, key, reason)
    except (NotInQueue, NoSuchSubmission) as exc:
        raise fail(str(exc), 2) from None
    finally:
        opened.close()
    state = "listed" if done.listed else "hidden"
    echo(f"submission {submission} {action}ed: {state} (audit {done.audit.id})", err=True)


_SubmissionArgument = Annotated[
    int, typer.Argument(metavar="ID", help="The flagged submission's id (cruel moderate queue).")
]
_ReasonOption = Annotated[str | None, typer.Option("--reason", help="Why, for the audit log.")]


@moderate_app.command("clear")
def moderate_clear_command(
    submission: _SubmissionArgument,
    key_id: _AdminOption,
    reason: _ReasonOption = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Clear a flagged win: it is listed on its board."""
    _decide("clear", submission, key_id, reason, db)


@moderate_app.command("reject")
def moderate_reject_command(
    submission: _SubmissionArgument,
    key_id: _AdminOption,
    reason: _ReasonOption = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Reject a flagged win: it stays hidden for good (kept as the evidence)."""
    _decide("reject", submission, key_id, reason, db)


def _site_puzzles(puzzles_dir: str | None, db: str) -> list[puzzles.Puzzle]:
    """What a server on ``--db`` serves: the set (``--puzzles``, else where ``cruel serve``
    finds it) and the days published into ``db`` (exit 2 with one line if either is
    unusable)."""
    from ..site import puzzle_sources
    from ..site.database import StoreError

    try:
        site = puzzle_sources.open_puzzles(puzzles_dir)
        published = puzzle_sources.read_published(db_target(db)).puzzles
    except (puzzles.PuzzleSetError, StoreError) as exc:
        raise fail(str(exc), 2) from None
    return [*site.by_id.values(), *(p for p in published if p.id not in site.by_id)]


def ratings_command(
    db: DbOption = DEFAULT_DB,
    puzzles_dir: PuzzlesOption = None,
    json_output: Annotated[bool, json_option("the table (cruel-ratings/1)")] = False,
) -> None:
    """The puzzles' ratings from play by tier: the median rating of each tier's puzzles with a
    95 % interval, and whether players order the tiers as the solver grades them
    (docs/service.md, Ratings). Each puzzle's tier comes from the set (--puzzles) and from the
    days cruel serve published into --db, as the server serves them."""
    from ..site import ratings

    opened = open_db(db)
    try:
        standings = opened.ratings.puzzles()
    finally:
        opened.close()
    tiers = {p.id: p.tier for p in _site_puzzles(puzzles_dir, db)}
    table = ratings.tier_table(standings, tiers)
    if json_output:
        emit(orjson.dumps(table.model_dump(mode="json")))
        return
    for line in ratings.table_lines(table):
        emit(line)
