"""Every store of one database, opened in one way: :func:`open_stores`.

The service, ``cruel keys`` and anything else that needs the stores call :func:`open_stores`
with ``--db`` (an SQLite file's path or a ``postgresql://`` URL) and get :class:`Stores`: the
leaderboards, the API keys, the attempts, the moderation, the players' tokens and the ratings,
each laid out by :func:`cruel_tools.site.tables.prepare` whatever order they are used in, and the
watch of the database's health (:class:`~cruel_tools.site.integrity.StoreWatch` for an SQLite file,
:class:`~cruel_tools.site.database.ServerWatch` for a server).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..constants import CHECK_INTERVAL, DB_TIMEOUT
from .attempts import Attempts
from .database import (
    Database,
    PostgresDatabase,
    ServerWatch,
    StoreError,
    database_errors,
    describe,
    is_postgres,
    one_line,
)
from .integrity import StoreWatch
from .keys import KeyStore
from .leaderboard import Leaderboards
from .moderation import Moderation
from .players import Players
from .ratings import Ratings
from .statefile import check_database, record_database

__all__ = ["Stores", "open_stores"]


@dataclass(frozen=True)
class Stores:
    """The stores of one database, and what watches it."""

    boards: Leaderboards
    keys: KeyStore
    attempts: Attempts
    moderation: Moderation
    players: Players
    ratings: Ratings
    watch: StoreWatch | ServerWatch
    #: PostgreSQL: the one pool every store shares (closed last). SQLite: None, each store has
    #: connections of its own to the file.
    shared: Database | None = None

    def close(self) -> None:
        """Close every store, then the shared pool (a closed store refuses further use)."""
        stores = (self.boards, self.keys, self.attempts, self.moderation, self.players)
        for store in (*stores, self.ratings):
            store.close()
        if self.shared is not None:
            self.shared.close()


def open_stores(
    db: Path | str,
    timeout: float = DB_TIMEOUT,
    check_interval: float = CHECK_INTERVAL,
    *,
    create: bool,
) -> Stores:
    """The stores of ``db``: an SQLite file or a ``postgresql://`` URL.

    ``create``, which every caller states: a database that is not there is made (``cruel
    serve``, ``cruel keys add --create``); else it is refused
    (:class:`~cruel_tools.site.database.NoSuchDatabase`) and nothing is written, not even a state
    file: the commands that only read, or write into an existing site, never make one.

    SQLite: each store opens the file on connections of its own (a read of one never queues
    behind another's write); PostgreSQL: one pool of connections for all of them. The watch is
    not started (:meth:`StoreWatch.start`); ``check_interval``: its seconds between two
    integrity checks of a running server.

    An SQLite file is created on a first start, with its state file
    (:mod:`cruel_tools.site.statefile`); a file missing while its state file is there is refused.

    :raises StoreError: the database cannot be used (nothing is left open).
    """
    check_database(db)  # never an empty database in silence where one was (issue #24)
    shared = _server_pool(db, timeout) if is_postgres(db) else None
    target: Path | str | Database = shared or db
    opened: list[Leaderboards | KeyStore | Attempts | Moderation | Players | Ratings] = []
    try:
        boards = Leaderboards(target, timeout, create)  # the first: it makes or refuses the db
        opened.append(boards)
        keys = KeyStore(target, timeout, create)
        opened.append(keys)
        attempts = Attempts(target, timeout, create)
        opened.append(attempts)
        moderation = Moderation(target, timeout, create)
        opened.append(moderation)
        players = Players(target, timeout, create)
        opened.append(players)
        ratings = Ratings(target, timeout, create)
    except StoreError:
        for store in opened:
            store.close()
        if shared is not None:
            shared.close()
        raise

    def close_stores() -> None:  # once the file is found gone, replaced or unsound
        stores.close()

    watch: StoreWatch | ServerWatch
    if shared is not None:
        watch = ServerWatch(shared.target)
    else:
        watch = StoreWatch(str(db), close_stores, check_interval)
    stores = Stores(boards, keys, attempts, moderation, players, ratings, watch, shared)
    record_database(db)
    return stores


def _server_pool(url: str | Path, timeout: float) -> PostgresDatabase:
    """The one pool of a PostgreSQL server's stores; a server that cannot be reached or
    refuses is a :class:`StoreError`, in the server's words."""
    try:
        return PostgresDatabase(str(url), timeout)
    except database_errors() as exc:
        raise StoreError(f"{describe(url)}: cannot use as a database: {one_line(exc)}") from None
