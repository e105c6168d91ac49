"""One store interface, two engines: SQLite (a file, embedded, the default) and PostgreSQL (a
server that any number of ``cruel serve`` instances share), through psycopg 3.

The stores (:mod:`~cruel_tools.site.leaderboard`, :mod:`~cruel_tools.site.keys`,
:mod:`~cruel_tools.site.attempts`, :mod:`~cruel_tools.site.moderation`) write each query once, with
``?``
placeholders, and run it through a :class:`Database`: its :class:`Dialect` turns ``?`` into
psycopg's ``%s`` and the few words of a table's definition that differ. A write is one
transaction (:meth:`Database.write`): on SQLite ``BEGIN IMMEDIATE`` (the file's one write lock,
so that two processes never race inside it); on PostgreSQL a plain transaction plus a
transaction-level advisory lock on the key the store names (a player's name skeleton, for
submissions), so that instances racing on the same player wait for each other while others go
on; unique constraints and ``INSERT ... ON CONFLICT`` settle the rest on both. A read
(:meth:`Database.read`) is one snapshot: SQLite's read transaction on a connection of its own,
PostgreSQL's ``REPEATABLE READ READ ONLY``. See ``docs/service.md`` (PostgreSQL).
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from ..errors import CruelError

if TYPE_CHECKING:  # psycopg is imported when a PostgreSQL store is opened (~0.1 s)
    import psycopg

__all__ = [
    "Engine",
    "POOL_SIZE",
    "Dialect",
    "SQLITE",
    "POSTGRESQL",
    "Connection",
    "Database",
    "SqliteDatabase",
    "PostgresDatabase",
    "is_postgres",
    "open_database",
    "attach",
    "name_of",
    "describe",
    "database_errors",
    "one_line",
    "StoreError",
    "NoSuchDatabase",
    "StoreBusy",
    "WouldWait",
    "is_busy",
    "Problem",
    "ServerWatch",
]

Engine = Literal["sqlite", "postgresql"]
#: Most connections one process holds to a PostgreSQL server (its pool's size): every store
#: call runs in a worker thread (run_in_threadpool), and a call holds one connection.
POOL_SIZE: Final = 8
_URL: Final = re.compile(r"^postgres(?:ql)?://", re.IGNORECASE)


# Which of the store's errors are bad input. StoreError is: the file it is given is refused for
# what it is (not SQLite, made by a newer cruel-tools, or not to be opened at that path), as
# PuzzleSetError refuses a puzzle folder, and the same call fails again until someone changes
# the file. So it is a CruelError (a ValueError), and `cruel serve` reports both alike.
# StoreBusy and WouldWait are not: the input is good and the database is only in use by
# someone else for now, so the same call may succeed later. Were they ValueErrors, an
# `except ValueError` meant for bad input would turn "retry" into "refused". They stay plain
# Exceptions, apart from StoreError (an `except StoreError` must not catch "busy").


class StoreError(CruelError):
    """The database cannot be used (cannot be opened or reached, not SQLite, or made by a newer
    cruel-tools)."""

    code = "bad-database"


class NoSuchDatabase(StoreError):
    """No database at ``--db`` where one must be there already (``create=False``): an SQLite
    file missing or empty, or a PostgreSQL database that cruel-tools never laid out. Only
    ``cruel serve`` (and ``cruel keys add --create``) makes one: a typo in ``--db`` given to a
    command that reads must not leave an empty database behind (issue #34)."""

    code = "no-such-database"


class StoreBusy(Exception):
    """The database stayed locked by another process for longer than the store waits.

    Not a :class:`~cruel_tools.errors.CruelError`: nothing is wrong with the input; retry.
    """


class WouldWait(Exception):
    """Storing would have to wait for the database (asked not to).

    Not a :class:`~cruel_tools.errors.CruelError`: nothing is wrong with the input; store it
    again where waiting is harmless.
    """


def is_postgres(target: object) -> bool:
    """Whether ``target`` (``Settings.db``, ``--db``) names a PostgreSQL server: a
    ``postgresql://`` (or ``postgres://``) URL. Anything else is an SQLite file."""
    return isinstance(target, str) and bool(_URL.match(target))


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` says only that the database is in use (SQLITE_BUSY, SQLITE_LOCKED;
    PostgreSQL's lock timeout, or no free connection in the pool): the one failure a retry may
    cure. Any other (a full disk, a corrupted or vanished file, a lost server) is not "busy",
    and is not answered as such (docs/service.md, Errors)."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
        return "locked" in str(exc) or "busy" in str(exc)
    if not type(exc).__module__.startswith("psycopg"):
        return False
    import psycopg
    import psycopg_pool

    return isinstance(exc, psycopg.errors.LockNotAvailable | psycopg_pool.PoolTimeout)


def database_errors() -> tuple[type[Exception], ...]:
    """The errors a store may raise from its engine (the service answers them 503). A function,
    so that psycopg is imported only where an error of it may be caught."""
    import psycopg

    return (sqlite3.Error, psycopg.Error)


def one_line(exc: BaseException) -> str:
    """An engine's error in one line, for a message (the server's own words)."""
    return " ".join(str(exc).split()) or type(exc).__name__


class Dialect:
    """What differs between the engines' SQL: placeholders, and words of table definitions."""

    def __init__(self, name: Engine) -> None:
        self.name: Engine = name

    @property
    def postgres(self) -> bool:
        return self.name == "postgresql"

    def sql(self, text: str) -> str:
        """A query written with ``?`` placeholders, in this engine's words (none of the stores'
        queries holds a literal ``?`` or ``%``)."""
        return _psycopg_sql(text) if self.postgres else text

    def ddl(self, text: str) -> str:
        """A table definition written for SQLite, in this engine's words."""
        if not self.postgres:
            return text
        return (
            text.replace(
                "INTEGER PRIMARY KEY AUTOINCREMENT",
                "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            )
            .replace(") VIRTUAL", ") STORED")  # PostgreSQL 12 to 17 store generated columns
            .replace("CREATE VIEW IF NOT EXISTS", "CREATE OR REPLACE VIEW")
        )


@lru_cache(maxsize=512)
def _psycopg_sql(text: str) -> str:
    return text.replace("?", "%s")


SQLITE: Final = Dialect("sqlite")
POSTGRESQL: Final = Dialect("postgresql")


class Connection:
    """One connection of either engine, inside a read or a write: ``execute`` takes the query
    as the stores write it (``?`` placeholders) and answers a cursor (``fetchone``,
    ``fetchall``, ``rowcount``)."""

    def __init__(self, raw: Any, dialect: Dialect) -> None:
        self.raw = raw
        self.dialect = dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(self.dialect.sql(sql), tuple(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if self.dialect.postgres:
            with self.raw.cursor() as cursor:
                cursor.executemany(self.dialect.sql(sql), rows)
        else:
            self.raw.executemany(sql, rows)

    def script(self, text: str) -> None:
        """Definitions (``CREATE ...;`` statements, no parameters), in this engine's words."""
        if self.dialect.postgres:
            self.raw.execute(self.dialect.ddl(text))
        else:
            self.raw.executescript(text)

    def lock(self, key: str) -> None:
        """Wait for the other writers of ``key`` to commit, and hold it until this transaction
        ends (PostgreSQL's advisory lock; SQLite's write holds the whole file already)."""
        if self.dialect.postgres:
            self.raw.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    def has_table(self, name: str) -> bool:
        if self.dialect.postgres:
            found = self.raw.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
            return bool(found[0])
        found = self.raw.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return found is not None


class Database:
    """The interface the stores use; :func:`open_database` makes one of either engine."""

    dialect: Dialect
    target: str
    #: Its layout is up to date (:func:`cruel_tools.site.tables.prepare`, once).
    prepared: bool = False

    @property
    def engine(self) -> Engine:
        return self.dialect.name

    def read(self, timeout: float | None = None) -> Any:  # a context manager of Connection
        """One snapshot; ``timeout``: longest wait for a connection (PostgreSQL's pool)."""
        raise NotImplementedError

    def write(self, lock: str | None = None, wait: bool = True) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


def _sqlite_missing(path: Path | str) -> bool:
    """No SQLite database at ``path``: no file, or an empty one (which SQLite would lay out as
    a new database)."""
    try:
        return Path(path).stat().st_size == 0
    except FileNotFoundError:
        return True


def _connect_existing(path: str, timeout: float) -> sqlite3.Connection:
    """The SQLite file at ``path``, which must be there (:class:`NoSuchDatabase`)."""
    if _sqlite_missing(path):
        raise NoSuchDatabase(f"{path}: no such database")
    uri = Path(path).absolute().as_uri() + "?mode=rw"
    return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=timeout)


class SqliteDatabase(Database):
    """An SQLite file: a connection for writes and one for reads (never queued behind a write
    that waits for another process's lock); ``:memory:`` has one for both.

    ``create``: make the file if it is missing; else a missing or empty file is
    :class:`NoSuchDatabase`, and the file is opened in SQLite's ``mode=rw``, which never
    makes one (not even if the file goes between the look and the open)."""

    def __init__(self, path: str, timeout: float, create: bool = True) -> None:
        self.dialect = SQLITE
        self.target = path
        self.timeout_ms = int(timeout * 1000)
        self.lock = threading.RLock()  # one thread at a time on each connection
        if create or path == ":memory:" or path.startswith("file:"):
            self.connection = sqlite3.connect(path, check_same_thread=False, timeout=timeout)
        else:
            self.connection = _connect_existing(path, timeout)
        self.reader: sqlite3.Connection = self.connection
        self.read_lock: threading.RLock = self.lock

    def open_reader(self) -> None:
        """A read-only connection of its own (once the file is laid out)."""
        if self.target != ":memory:" and self.reader is self.connection:
            self.reader = sqlite3.connect(self.target, check_same_thread=False)
            self.reader.execute("PRAGMA query_only = 1")
            self.read_lock = threading.RLock()

    @contextmanager
    def read(self, timeout: float | None = None) -> Iterator[Connection]:
        with self.read_lock, self.reader as db:
            db.execute("BEGIN")  # one snapshot for every read of the block
            yield Connection(db, SQLITE)

    @contextmanager
    def write(self, lock: str | None = None, wait: bool = True) -> Iterator[Connection]:
        """One write transaction; ``lock`` is PostgreSQL's (``BEGIN IMMEDIATE`` is the file's
        one lock here). ``wait=False``: :class:`WouldWait` rather than any wait."""
        if not self.lock.acquire(blocking=wait):
            raise WouldWait("the leaderboard database is in use")
        try:
            self.connection.execute(f"PRAGMA busy_timeout = {self.timeout_ms if wait else 0}")
            try:
                with self.connection as db:
                    # The write lock is taken first: a read that later wants to write is refused
                    # at once when another process writes (SQLite's deadlock rule), not made to
                    # wait.
                    db.execute("BEGIN IMMEDIATE")
                    yield Connection(db, SQLITE)
            except sqlite3.OperationalError as exc:  # "database is locked", after the timeout
                if not is_busy(exc):
                    raise  # a full disk, a broken file: not "busy" (the service says which)
                if not wait:
                    raise WouldWait(str(exc)) from None
                raise StoreBusy(f"the leaderboard database is busy ({exc}); try again") from None
        finally:
            self.lock.release()

    def close(self) -> None:
        with self.lock, self.read_lock:
            self.connection.close()
            self.reader.close()


class PostgresDatabase(Database):
    """A PostgreSQL database at a ``postgresql://`` URL, through a psycopg 3 connection pool
    (connections are checked before use, and remade after the server comes back). psycopg
    prepares a query on a connection once it has run it ``prepare_threshold`` times (5), so the
    stores' few queries run as prepared statements."""

    def __init__(self, url: str, timeout: float, size: int = POOL_SIZE) -> None:
        import psycopg
        import psycopg_pool
        from psycopg.conninfo import conninfo_to_dict

        self.dialect = POSTGRESQL
        self.target = url
        self.timeout = timeout
        # lock_timeout: a write waits at most `timeout` for a row or advisory lock (then busy);
        # added to the URL's own options (a search_path, say).
        given = conninfo_to_dict(url).get("options") or ""
        options = f"{given} -c lock_timeout={int(timeout * 1000)}".strip()
        # One plain connection first: a server that cannot be reached, or refuses, is one
        # error at once (the pool would retry, logging each failure, until its timeout).
        psycopg.connect(url, connect_timeout=max(1, int(timeout)), options=options).close()
        self.options = options
        self.unreachable = False  # the pool found no server: fail fast until it is back
        self.pool = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=size,
            kwargs={"autocommit": True, "options": options},
            check=psycopg_pool.ConnectionPool.check_connection,
            open=False,
            name="cruel",
        )
        try:
            self.pool.open(wait=True, timeout=timeout)
        except psycopg_pool.PoolTimeout:
            self.pool.close()
            raise
        PostgresDatabase.opened.add(self)

    #: Every database of this class opened and not closed yet (tests close what they leave).
    opened: ClassVar[weakref.WeakSet[PostgresDatabase]] = weakref.WeakSet()

    @contextmanager
    def _connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool. None free in time: either all are in use (``busy``) or
        the server is gone (the pool reconnects in the background); a plain connection tells
        which, and while the server is gone a request waits at most 1 s, not ``timeout``."""
        import psycopg
        import psycopg_pool

        wait = timeout or self.timeout
        if self.unreachable:
            wait = min(wait, 1.0)
        try:
            with self.pool.connection(timeout=wait) as raw:
                self.unreachable = False
                yield raw
        except psycopg_pool.PoolTimeout:
            try:
                psycopg.connect(self.target, connect_timeout=2, options=self.options).close()
            except psycopg.OperationalError as exc:
                self.unreachable = True
                raise exc from None  # store-unavailable, in the server's words
            raise

    @contextmanager
    def read(self, timeout: float | None = None) -> Iterator[Connection]:
        with self._connection(timeout) as raw:
            with raw.transaction():
                raw.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield Connection(raw, POSTGRESQL)

    @contextmanager
    def write(self, lock: str | None = None, wait: bool = True) -> Iterator[Connection]:
        """One write transaction (READ COMMITTED). ``lock``: a key whose writers wait for each
        other, in every instance (a transaction-level advisory lock, released at commit)."""
        import psycopg
        import psycopg_pool

        try:
            with self._connection() as raw, raw.transaction():
                db = Connection(raw, POSTGRESQL)
                if lock is not None:
                    db.lock(lock)
                yield db
        except (psycopg.errors.LockNotAvailable, psycopg_pool.PoolTimeout) as exc:
            raise StoreBusy(f"the leaderboard database is busy ({exc}); try again") from None

    def close(self) -> None:
        self.pool.close()
        PostgresDatabase.opened.discard(self)


def open_database(target: Path | str, timeout: float = 10.0, *, create: bool) -> Database:
    """The store at ``target``: a ``postgresql://`` URL, or an SQLite file's path.

    ``create``: an SQLite file missing is made; else it is :class:`NoSuchDatabase`. (A
    PostgreSQL database is never made here: the server refuses one that does not exist, and
    :func:`cruel_tools.site.tables.prepare` one that cruel-tools never laid out, unless ``create``.)

    :raises sqlite3.Error, psycopg.Error: it cannot be opened.
    """
    text = str(target)
    if is_postgres(text):
        return PostgresDatabase(text, timeout)
    return SqliteDatabase(text, timeout, create)


def attach(
    target: Path | str | Database, timeout: float, create: bool = True
) -> tuple[Database, bool]:
    """A store's database: ``target`` itself when it is one (shared: the store does not close
    it), or one opened at ``target`` (the store's own; ``create``: :func:`open_database`)."""
    if isinstance(target, Database):
        return target, False
    return open_database(target, timeout, create=create), True


def name_of(target: Path | str | Database) -> str:
    """How messages name the store at ``target``."""
    return describe(target.target if isinstance(target, Database) else target)


def describe(target: Path | str) -> str:
    """``target`` as error messages name it: a URL without its password."""
    text = str(target)
    if not is_postgres(text):
        return text
    return re.sub(r"(://[^/:@]*):[^/@]*@", r"\1:***@", text)


@dataclass(frozen=True)
class Problem:
    """What is wrong with the store: a stable code (``store-unavailable``, ``disk-full``) and a
    line for people (health's ``problem``)."""

    code: str
    message: str


class ServerWatch:
    """What health says of a PostgreSQL store: the integrity checks of an SQLite file
    (:class:`~cruel_tools.site.integrity.StoreWatch`) have no meaning for a server, which keeps its
    own files. A database error other than a lock is ``store-unavailable`` until a query
    succeeds again (health runs one each time it is asked); the pool remakes lost connections."""

    #: Seconds health waits for a connection of the pool (and a probe for the server).
    HEALTH_TIMEOUT: Final = 2.0

    def __init__(self, target: str) -> None:
        self.target = target
        self.path = describe(target)
        self._down: tuple[float, str] | None = None

    def check_at_start(self) -> None:
        """Nothing to do: opening the pool ran a query."""

    def start(self) -> None:
        """Nothing runs at intervals."""

    def stop(self) -> None:
        """Nothing runs at intervals."""

    def succeeded(self) -> None:
        self._down = None

    def problem(self) -> Problem | None:
        if self._down is None:
            return None
        return Problem("store-unavailable", self._down[1])

    def on_error(self, exc: BaseException) -> tuple[str, str]:
        """The code and message to answer for ``exc``: ``busy`` for a lock, or a pool with no
        free connection while the server answers (:class:`PostgresDatabase` raises the server's
        own error when it does not); otherwise ``store-unavailable``, kept for health until a
        query succeeds."""
        if is_busy(exc):  # a lock, or a pool whose connections are all in use
            return "busy", f"the leaderboard database is busy ({exc}); try again"
        message = f"the PostgreSQL server failed ({one_line(exc)}); try again later"
        self._down = (time.monotonic(), message)
        return "store-unavailable", message
