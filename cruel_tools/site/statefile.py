"""The state file beside an SQLite database: proof that the service has run with it before.

A first start creates the database; a later start that finds the database missing (deleted,
lost with a disk, a typo in ``--db``) must not create an empty one in silence, or the service
comes up healthy with no entries and no keys (issue #24: health ``ok``, every key 401). So the
first start also writes ``<db>.state`` (``cruel-db-state/1``: the database it names and when it
was made), and :func:`check_database` refuses, in one line, a database that is missing while its
state file is there. The operator restores the database from a backup, or removes the state file
to start with an empty one (docs/service.md, Integrity).

PostgreSQL keeps no state file: the server holds its own data (and its backups); a database that
is gone is refused when it cannot be connected to, and there is no one place beside it to keep
a file that every instance would see.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, Field, ValidationError

from ..formats import document_config
from .database import StoreError, is_postgres

__all__ = [
    "STATE_FORMAT",
    "DatabaseState",
    "state_path",
    "check_database",
    "record_database",
]

STATE_FORMAT: Final = "cruel-db-state/1"


class DatabaseState(BaseModel):
    """What ``<db>.state`` says: the database it stands for, and when that was first made."""

    model_config = document_config("Cruel database state v1", "db-state")

    format: Literal["cruel-db-state/1"] = STATE_FORMAT
    database: str = Field(description="The SQLite file's absolute path when it was made.")
    created_at: dt.datetime = Field(description="When the service first made the database.")


def state_path(db: Path | str) -> Path | None:
    """The state file of the database ``db``: ``<db>.state`` beside an SQLite file; None for
    a PostgreSQL URL and for an SQLite database in memory, which have none."""
    text = str(db)
    if is_postgres(text) or text == ":memory:" or text.startswith("file:"):
        return None
    path = Path(text)
    return path.with_name(path.name + ".state")


def _missing(db: Path) -> bool:
    """No database to open: no file, or an empty one (SQLite would make it a new database)."""
    try:
        return db.stat().st_size == 0
    except FileNotFoundError:
        return True


def check_database(db: Path | str) -> None:
    """Refuse (:class:`StoreError`, one line) an SQLite database that is missing while its
    state file says the service has run with it: restore it, or remove the state file."""
    state = state_path(db)
    if state is None or not state.exists() or not _missing(Path(db)):
        return
    try:
        made = DatabaseState.model_validate_json(state.read_bytes()).created_at
        since = f" since {made:%Y-%m-%d}"
    except (OSError, ValidationError):
        since = ""  # it is there: that is what counts
    raise StoreError(
        f"{db} is missing, but {state} says the service has run with it{since}: restore the "
        f"database from a backup, or remove {state} to start with an empty one"
    )


def record_database(db: Path | str, now: dt.datetime | None = None) -> None:
    """Write the state file of ``db`` unless it is there (a first start, or a database made
    before state files). Created exclusively: of two workers starting at once, one writes it."""
    state = state_path(db)
    if state is None or state.exists():
        return
    doc = DatabaseState(
        database=str(Path(db).resolve()),
        created_at=(now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC),
    )
    data = doc.model_dump_json(indent=2).encode() + b"\n"
    try:
        fd = os.open(state, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    except OSError as exc:  # a start is refused in one line, never with a traceback
        raise StoreError(f"cannot write {state}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as f:
        f.write(data)
