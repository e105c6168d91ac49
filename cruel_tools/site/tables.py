"""The layout of the store: every table of every store, their version, and the migrations.

One statement of the layout for both engines (:mod:`cruel_tools.site.database` turns SQLite's words
into
PostgreSQL's), and the one way every store opens it: :class:`Store` attaches a database and
:func:`prepare` brings it to :data:`DB_VERSION`, or refuses one made by a newer cruel-tools. The
stores (:mod:`~cruel_tools.site.leaderboard`, :mod:`~cruel_tools.site.keys`,
:mod:`~cruel_tools.site.attempts`,
:mod:`~cruel_tools.site.moderation`) import this module and nothing of each other's tables.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path
from typing import Final

from ..constants import DB_TIMEOUT
from .database import (
    Connection,
    Database,
    NoSuchDatabase,
    SqliteDatabase,
    StoreError,
    attach,
    database_errors,
    describe,
    name_of,
    one_line,
)
from .names import skeleton

__all__ = [
    "DB_VERSION",
    "LISTED",
    "SCORE",
    "order",
    "index_ddl",
    "SUBMISSIONS",
    "MODERATION",
    "UNRANKED",
    "VISIBLE",
    "KEYS",
    "ATTEMPTS",
    "TALLIES",
    "PLAYERS",
    "LIVE",
    "RATINGS",
    "PUBLISHED",
    "REBUILD",
    "rebuild_tallies",
    "PG_MIGRATIONS",
    "pg_migration",
    "prepare",
    "Store",
]

#: Version of the database layout, kept in SQLite's ``user_version``. 2 added ``players``,
#: 3 ``submissions.elapsed_ms`` (server-timed attempts), 4 ``submissions.actions`` (moves +
#: redeals, a generated column) and the indexes of ranking by it, 5 the tallies of the boards
#: (``score_counts``, ``player_best``): ranks and totals without counting entries, 6 public play
#: (issue #24): players' tokens (:data:`PLAYERS`) and live attempts (:data:`LIVE`), new tables
#: only, so that one version holds both. 7 ratings from play (issue #26): :data:`RATINGS`, and
#: the days ``cruel serve`` publishes ahead (:data:`PUBLISHED`), new tables only. 8 unranked
#: entries (issue #33, finding 4): :data:`UNRANKED`, and ``visible_submissions`` made anew
#: without them.
DB_VERSION: Final = 8
#: An entry's score, best first: fewest actions (card moves + redeals), then fewest redeals.
#: Equal scores share a rank; the earliest submission (lowest id) is listed first within a tie.
#: The one statement of the order: every ranking query and index is made of it.
SCORE: Final = ("actions", "redeals")


def order(timed: bool) -> tuple[str, ...]:
    """The columns a leaderboard is listed by: :data:`SCORE` (``timed``: after the time), then
    the submission's id (earliest first within a tie)."""
    return ("elapsed_ms",) * timed + SCORE + ("id",)


#: The entries and the players (:mod:`cruel_tools.site.leaderboard`).
SUBMISSIONS: Final = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,   -- also the order within a tie: earlier first
    puzzle TEXT NOT NULL,
    player TEXT NOT NULL,
    game TEXT NOT NULL,                     -- game_id(): the same game is stored once per player
    moves INTEGER NOT NULL,
    redeals INTEGER NOT NULL,
    log TEXT NOT NULL,                      -- the moves in compact form, for audits and replays
    submitted_at TEXT NOT NULL,             -- ISO 8601, UTC
    elapsed_ms INTEGER,                     -- server-timed attempts (version 3); NULL: untimed
    actions INTEGER GENERATED ALWAYS AS (moves + redeals) VIRTUAL,  -- the score (version 4)
    UNIQUE (puzzle, player, game)
);
CREATE INDEX IF NOT EXISTS submissions_player ON submissions (player, id);  -- records
CREATE TABLE IF NOT EXISTS players (      -- every name with an entry, for lookalikes (version 2)
    player TEXT PRIMARY KEY,
    skeleton TEXT NOT NULL                  -- names.skeleton(player), shared by lookalikes
);
CREATE INDEX IF NOT EXISTS players_skeleton ON players (skeleton);
"""

#: The moderation tables (:mod:`cruel_tools.site.moderation`). Leaderboards and ranks are made of
#: the view ``visible_submissions`` (:data:`VISIBLE`) only.
MODERATION: Final = """
CREATE TABLE IF NOT EXISTS hidden_submissions (
    submission INTEGER PRIMARY KEY,         -- submissions.id
    hidden_at TEXT NOT NULL                 -- ISO 8601, UTC
);
CREATE TABLE IF NOT EXISTS banned_players (
    player TEXT PRIMARY KEY,                -- enforced form, as in submissions.player
    banned_at TEXT NOT NULL                 -- ISO 8601, UTC
);
CREATE TABLE IF NOT EXISTS moderation_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,                       -- ISO 8601, UTC: server time of the act
    key_id INTEGER NOT NULL,                -- api_keys.id of the admin key
    key_name TEXT NOT NULL,                 -- its name then
    action TEXT NOT NULL,                   -- hide, unhide, delete, ban, unban
    changed INTEGER NOT NULL,               -- 0: it was so already
    submission INTEGER,                     -- submissions.id (hide, unhide, delete)
    player TEXT NOT NULL,
    reason TEXT,
    record TEXT                             -- the submission as it was, JSON (its log too)
);
"""

#: The view as versions 4 to 7 made it (a PostgreSQL store's migration 4; 8 makes it anew).
_VIEW_7: Final = """
CREATE VIEW IF NOT EXISTS visible_submissions AS
    SELECT * FROM submissions AS s
    WHERE NOT EXISTS (SELECT 1 FROM hidden_submissions AS h WHERE h.submission = s.id)
      AND NOT EXISTS (SELECT 1 FROM banned_players AS b WHERE b.player = s.player);
"""

#: Entries stored but not ranked (version 8; :mod:`cruel_tools.site.leaderboard`): logs that nothing
#: timed (a player's token, ``--open``) unless ``cruel serve --rank-untimed``. Made before the
#: view, which leaves them out: no board, rank or tally counts them.
UNRANKED: Final = """
CREATE TABLE IF NOT EXISTS unranked_submissions (
    submission INTEGER PRIMARY KEY,         -- submissions.id
    puzzle TEXT NOT NULL,                   -- its puzzle: the board's unranked list
    reason TEXT NOT NULL,                   -- untimed
    at TEXT NOT NULL                        -- ISO 8601, UTC
);
CREATE INDEX IF NOT EXISTS unranked_puzzle ON unranked_submissions (puzzle, submission);
"""

#: An entry ``s`` (``submissions AS s``) that moderation leaves shown: neither hidden nor a
#: banned player's. The one statement of it, for the view below, the unranked list and a
#: player's record (:mod:`cruel_tools.site.leaderboard`).
LISTED: Final = (
    "NOT EXISTS (SELECT 1 FROM hidden_submissions AS h WHERE h.submission = s.id)"
    " AND NOT EXISTS (SELECT 1 FROM banned_players AS b WHERE b.player = s.player)"
)

#: The view of what the boards list: listed (:data:`LISTED`), and not unranked.
VISIBLE: Final = f"""
CREATE VIEW IF NOT EXISTS visible_submissions AS
    SELECT * FROM submissions AS s
    WHERE {LISTED}
      AND NOT EXISTS (SELECT 1 FROM unranked_submissions AS u WHERE u.submission = s.id);
"""

#: The API keys (:mod:`cruel_tools.site.keys`).
KEYS: Final = """
CREATE TABLE IF NOT EXISTS api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    hash TEXT NOT NULL UNIQUE,              -- key_hash(key): the key itself is never stored
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,               -- ISO 8601, UTC
    revoked_at TEXT                         -- ISO 8601, UTC; NULL while the key is valid
);
"""

#: The server-timed attempts (:mod:`cruel_tools.site.attempts`).
ATTEMPTS: Final = """
CREATE TABLE IF NOT EXISTS attempts (
    id TEXT PRIMARY KEY,                    -- new_attempt_id()
    puzzle TEXT NOT NULL,
    player TEXT NOT NULL,
    sender TEXT NOT NULL,                   -- the API key's id ("open": keyless, --open)
    started_at TEXT NOT NULL,               -- ISO 8601, UTC, the server's clock
    submission_id INTEGER                   -- the entry it timed; NULL: not used yet
);
CREATE INDEX IF NOT EXISTS attempts_player ON attempts (player, started_at);
"""

#: Players' tokens, link codes and the data a player may export or delete (version 6;
#: :mod:`cruel_tools.site.players`). New tables only: a file of version 5 gains them as they are.
PLAYERS: Final = """
CREATE TABLE IF NOT EXISTS player_claims (  -- names claimed by a browser, or for it by a moderator
    player TEXT PRIMARY KEY,                -- enforced form, in players too
    claimed_at TEXT NOT NULL                -- ISO 8601, UTC
);
CREATE TABLE IF NOT EXISTS player_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    hash TEXT NOT NULL UNIQUE,              -- SHA-256 of the token: the token is never stored
    player TEXT NOT NULL,
    created_at TEXT NOT NULL,               -- ISO 8601, UTC
    used_at TEXT,                           -- last write it authenticated, to the hour
    revoked_at TEXT                         -- ISO 8601, UTC; NULL while the token is valid
);
CREATE INDEX IF NOT EXISTS player_tokens_player ON player_tokens (player);
CREATE TABLE IF NOT EXISTS link_codes (     -- one-time codes that link a second device
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    player TEXT NOT NULL,
    hash TEXT NOT NULL,                     -- scrypt of the code, salted with the name
    created_at TEXT NOT NULL,               -- ISO 8601, UTC
    expires_at TEXT NOT NULL,
    used_at TEXT,                           -- NULL: not used yet
    failures INTEGER NOT NULL DEFAULT 0     -- wrong codes sent for the player since it was made
);
CREATE INDEX IF NOT EXISTS link_codes_player ON link_codes (player);
"""

#: Live attempts: each step as the server played and timed it, the attempt's state and end,
#: and the review queue of flagged entries (version 6; :mod:`cruel_tools.site.attempts`). New
#: tables only, as :data:`PLAYERS`.
LIVE: Final = """
CREATE TABLE IF NOT EXISTS live_attempts (  -- one per live attempt; its start is attempts' row
    attempt TEXT PRIMARY KEY,               -- attempts.id
    auto TEXT NOT NULL,                     -- foundations | off: the server's automatic moves
    status TEXT NOT NULL,                   -- playing | won | blocked | given-up | expired
    line TEXT NOT NULL,                     -- the standing steps, JSON [[compact, auto], ...]
    recorded INTEGER NOT NULL,              -- rows of attempt_steps: the next step's seq
    player_steps INTEGER NOT NULL,          -- steps the player sent (undos too)
    last_at TEXT NOT NULL,                  -- ISO 8601, UTC: the last step (or the start)
    ended_at TEXT,                          -- NULL while it takes steps
    elapsed_ms INTEGER,                     -- start to the winning step, the server's clock
    flags TEXT,                             -- JSON list of a win's timing flags; NULL: none
    entry TEXT,                             -- the won attempt's SubmissionResult, JSON
    submission_id INTEGER                   -- that entry's submissions.id
);
CREATE TABLE IF NOT EXISTS attempt_steps (  -- every step as the server received or made it
    attempt TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at TEXT NOT NULL,                       -- ISO 8601, UTC: the request's arrival
    step TEXT NOT NULL,                     -- compact log notation, or undo
    auto INTEGER NOT NULL,                  -- 1: an automatic move of the server
    PRIMARY KEY (attempt, seq)
);
CREATE TABLE IF NOT EXISTS review_queue (   -- flagged entries, hidden until a moderator acts
    submission INTEGER PRIMARY KEY,         -- submissions.id
    flagged_at TEXT NOT NULL,               -- ISO 8601, UTC
    reasons TEXT NOT NULL,                  -- JSON list: too-fast, batched, metronome, untimed-par
    detail TEXT NOT NULL,
    attempt TEXT,                           -- the live attempt that won it; NULL: a submission
    status TEXT NOT NULL,                   -- pending | cleared | rejected
    decided_at TEXT,
    decided_by INTEGER                      -- api_keys.id of the moderator
);
CREATE INDEX IF NOT EXISTS review_queue_status ON review_queue (status, submission);
"""

#: Ratings from play (version 7; :mod:`cruel_tools.site.ratings`): a Glicko-2 rating of every player
#: and every puzzle, updated when a live attempt ends, and the attempts rated (each once). New
#: tables only, as :data:`PLAYERS`.
RATINGS: Final = """
CREATE TABLE IF NOT EXISTS ratings (
    kind TEXT NOT NULL,                     -- player | puzzle
    subject TEXT NOT NULL,                  -- the player's enforced name, or the puzzle's id
    rating DOUBLE PRECISION NOT NULL,       -- Glicko-2 on the Glicko scale (1500 at the start)
    deviation DOUBLE PRECISION NOT NULL,    -- RD, same scale
    volatility DOUBLE PRECISION NOT NULL,   -- sigma
    games INTEGER NOT NULL,                 -- rated attempts
    updated_at TEXT NOT NULL,               -- ISO 8601, UTC: the last rated attempt's end
    PRIMARY KEY (kind, subject)
);
CREATE TABLE IF NOT EXISTS rated_attempts ( -- each live attempt rated once (retries: no change)
    attempt TEXT PRIMARY KEY,               -- attempts.id
    puzzle TEXT NOT NULL,
    player TEXT NOT NULL,
    score DOUBLE PRECISION NOT NULL,        -- the player's: 1 won, 0 blocked, given up, expired
    rated_at TEXT NOT NULL                  -- ISO 8601, UTC
);
CREATE INDEX IF NOT EXISTS rated_attempts_player ON rated_attempts (player);
"""

#: The daily puzzles ``cruel serve`` published ahead (version 7;
#: :mod:`cruel_tools.site.publishing`):
#: in the database, so that every instance sharing it serves the same days. A day's tiers are
#: written in one transaction, once (the primary key); a day with no row is not published.
PUBLISHED: Final = """
CREATE TABLE IF NOT EXISTS published_puzzles (
    day TEXT NOT NULL,                      -- YYYY-MM-DD
    tier TEXT NOT NULL,                     -- easy | medium | hard | expert
    document TEXT NOT NULL,                 -- the cruel-puzzle/1 file's exact bytes (UTF-8)
    generator TEXT NOT NULL,                -- the puzzle's generator ("cruel-tools 2")
    stream TEXT NOT NULL,                   -- the secret's key fingerprint, or "public"
    published_at TEXT NOT NULL,             -- ISO 8601, UTC
    PRIMARY KEY (day, tier)
);
"""

#: The tallies of the boards (version 5), kept in the transaction of every change of a listed
#: entry (a new entry, a moderator's act), so that a rank or a total is a sum over a puzzle's
#: scores (a few hundred rows) instead of a count of its entries (issue #13: 10^6 of them).
TALLIES: Final = """
CREATE TABLE IF NOT EXISTS score_counts (   -- per puzzle and score (actions, redeals)
    puzzle TEXT NOT NULL,
    actions INTEGER NOT NULL,
    redeals INTEGER NOT NULL,
    entries INTEGER NOT NULL DEFAULT 0,     -- listed entries with this score
    timed INTEGER NOT NULL DEFAULT 0,       -- of them, server-timed
    bests INTEGER NOT NULL DEFAULT 0,       -- players whose best listed entry has this score
    fastest INTEGER NOT NULL DEFAULT 0,     -- players whose fastest timed entry has this score
    PRIMARY KEY (puzzle, actions, redeals)
);
CREATE TABLE IF NOT EXISTS player_best (    -- per puzzle, each player with a listed entry
    puzzle TEXT NOT NULL,
    player TEXT NOT NULL,
    best_id INTEGER NOT NULL,               -- their best listed entry, by SCORE then id
    best_actions INTEGER NOT NULL,
    best_redeals INTEGER NOT NULL,
    fast_id INTEGER,                        -- their fastest listed timed entry; NULL: none
    fast_elapsed INTEGER,
    fast_actions INTEGER,
    fast_redeals INTEGER,
    PRIMARY KEY (puzzle, player)
);
CREATE INDEX IF NOT EXISTS player_best_score
    ON player_best (puzzle, best_actions, best_redeals, best_id);
CREATE INDEX IF NOT EXISTS player_best_time
    ON player_best (puzzle, fast_elapsed, fast_actions, fast_redeals, fast_id)
    WHERE fast_id IS NOT NULL;
"""

#: The tallies made anew from the entries (a migration; a bulk load). `WHERE true`: SQLite's
#: parser needs it before an INSERT ... SELECT's ON CONFLICT.
REBUILD: Final = """
DELETE FROM score_counts;
DELETE FROM player_best;
INSERT INTO player_best (puzzle, player, best_id, best_actions, best_redeals,
                         fast_id, fast_elapsed, fast_actions, fast_redeals)
SELECT b.puzzle, b.player, b.id, b.actions, b.redeals, f.id, f.elapsed_ms, f.actions, f.redeals
FROM (SELECT puzzle, player, id, actions, redeals, ROW_NUMBER() OVER (
          PARTITION BY puzzle, player ORDER BY actions, redeals, id) AS n
      FROM visible_submissions) AS b
LEFT JOIN (SELECT puzzle, player, id, elapsed_ms, actions, redeals, ROW_NUMBER() OVER (
          PARTITION BY puzzle, player ORDER BY elapsed_ms, actions, redeals, id) AS n
      FROM visible_submissions WHERE elapsed_ms IS NOT NULL) AS f
  ON f.puzzle = b.puzzle AND f.player = b.player AND f.n = 1
WHERE b.n = 1;
INSERT INTO score_counts (puzzle, actions, redeals, entries, timed)
SELECT puzzle, actions, redeals, COUNT(*), COUNT(elapsed_ms) FROM visible_submissions
GROUP BY puzzle, actions, redeals;
INSERT INTO score_counts (puzzle, actions, redeals, bests)
SELECT puzzle, best_actions, best_redeals, COUNT(*) FROM player_best WHERE true
GROUP BY puzzle, best_actions, best_redeals
ON CONFLICT (puzzle, actions, redeals) DO UPDATE SET bests = excluded.bests;
INSERT INTO score_counts (puzzle, actions, redeals, fastest)
SELECT puzzle, fast_actions, fast_redeals, COUNT(*) FROM player_best WHERE fast_id IS NOT NULL
GROUP BY puzzle, fast_actions, fast_redeals
ON CONFLICT (puzzle, actions, redeals) DO UPDATE SET fastest = excluded.fastest;
"""


def rebuild_tallies(db: Connection) -> None:
    """Make the tallies of every board anew from the listed entries, in the write transaction
    ``db`` (after loading entries in bulk, straight into ``submissions``)."""
    db.script(REBUILD)


def _add_elapsed(db: sqlite3.Connection) -> None:
    """Version 3: ``submissions.elapsed_ms`` (a table made earlier lacks it)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(submissions)")}
    if "elapsed_ms" not in columns:
        db.execute("ALTER TABLE submissions ADD COLUMN elapsed_ms INTEGER")


def _add_actions(db: sqlite3.Connection) -> None:
    """Version 4: ``submissions.actions`` (moves + redeals, generated: a table made earlier
    lacks it); the indexes of ranking by moves go, :func:`index_ddl` makes those by score."""
    columns = {row[1] for row in db.execute("PRAGMA table_xinfo(submissions)")}
    if "actions" not in columns:
        db.execute(
            "ALTER TABLE submissions ADD COLUMN actions INTEGER"
            " GENERATED ALWAYS AS (moves + redeals) VIRTUAL"
        )
    db.execute("DROP INDEX IF EXISTS submissions_rank")  # (puzzle, moves, redeals, id)
    db.execute("DROP INDEX IF EXISTS submissions_time")  # (puzzle, elapsed_ms, moves, ...)


def index_ddl() -> str:
    """The indexes of the leaderboard's orders (:func:`order`): the page and rank count of
    each order, and a player's best entry (``best_per_player``)."""
    score = ", ".join(order(timed=False))
    timed = ", ".join(order(timed=True))
    return (
        f"CREATE INDEX IF NOT EXISTS submissions_score ON submissions (puzzle, {score});\n"
        "CREATE INDEX IF NOT EXISTS submissions_best ON submissions"
        f" (puzzle, player, {score});\n"
        "CREATE INDEX IF NOT EXISTS submissions_timed ON submissions"
        f" (puzzle, {timed}) WHERE elapsed_ms IS NOT NULL;\n"
        "CREATE INDEX IF NOT EXISTS submissions_best_timed ON submissions"
        f" (puzzle, player, {timed}) WHERE elapsed_ms IS NOT NULL;\n"
    )


#: The versioned migrations of a PostgreSQL store, in order: (version, what it does). A store
#: records each one applied in its table ``cruel_migrations``; the versions are SQLite's
#: ``user_version`` (:data:`DB_VERSION`), the same layout. PostgreSQL stores began at version
#: 4, so its first migration makes the whole layout of version 4; a later version appends its
#: own statements here (and its upgrade of SQLite files to :func:`_migrate_sqlite`).
PG_MIGRATIONS: Final[tuple[tuple[int, str], ...]] = (
    (4, "the layout of version 4: submissions, players, moderation, keys, attempts"),
    (5, "the tallies of the boards: score_counts, player_best"),
    (6, "public play: players' tokens, live attempts and the review queue"),
    (7, "ratings from play: ratings, rated_attempts; days published ahead: published_puzzles"),
    (8, "unranked entries: unranked_submissions, and visible_submissions without them"),
)


def pg_migration(version: int) -> str:
    """The statements of a PostgreSQL migration (SQLite's words: :meth:`Connection.script`
    turns them into PostgreSQL's)."""
    if version == 4:  # the view as it was then; version 8 makes it anew
        return "\n".join([SUBMISSIONS, index_ddl(), MODERATION, _VIEW_7, KEYS, ATTEMPTS])
    if version == 5:
        return TALLIES + REBUILD
    if version == 6:
        return PLAYERS + LIVE
    if version == 7:
        return RATINGS + PUBLISHED
    if version == 8:
        return UNRANKED + "DROP VIEW IF EXISTS visible_submissions;\n" + VISIBLE
    raise AssertionError(f"no migration to version {version}")


def _refuse_newer(name: str, version: int) -> None:
    """The one refusal of a store made by a newer cruel-tools (a :class:`StoreError`)."""
    if version > DB_VERSION:
        raise StoreError(
            f"{name}: made by a newer cruel-tools (database version {version}, "
            f"this one knows {DB_VERSION})"
        )


def prepare(database: Database, name: str | None = None, create: bool = True) -> None:
    """Bring the store's layout up to :data:`DB_VERSION` (once per :class:`Database`), or refuse
    one made by a newer cruel-tools (:class:`StoreError`). SQLite keeps its version in
    ``user_version``; PostgreSQL in the table ``cruel_migrations``, where several instances
    starting at once take turns (an advisory lock), and each migration is one transaction
    (PostgreSQL's definitions are transactional: a failed one leaves nothing behind).

    ``create`` False: a PostgreSQL database that cruel-tools never laid out (no
    ``cruel_migrations``) is :class:`NoSuchDatabase`, not laid out (an SQLite file that is not
    there is refused when it is opened: :class:`SqliteDatabase`)."""
    name = name or describe(database.target)
    if database.prepared:
        return
    if isinstance(database, SqliteDatabase):
        _migrate_sqlite(database, name)
        database.open_reader()
        database.prepared = True
        return
    if not create:
        with database.read() as db:
            if not db.has_table("cruel_migrations"):
                raise NoSuchDatabase(f"{name}: no such database")
    with database.write(lock="cruel-tools migrations") as db:
        db.script(
            "CREATE TABLE IF NOT EXISTS cruel_migrations (\n"
            "    version INTEGER PRIMARY KEY,\n"
            "    description TEXT NOT NULL,\n"
            "    applied_at TEXT NOT NULL\n"
            ");"
        )
        found = db.execute("SELECT COALESCE(MAX(version), 0) FROM cruel_migrations").fetchone()
        version = int(found[0])
        _refuse_newer(name, version)
        now = dt.datetime.now(dt.UTC).isoformat()
        for number, description in PG_MIGRATIONS:
            if number > version:
                db.script(pg_migration(number))
                if number == 6:
                    _reskeleton(db)
                db.execute(
                    "INSERT INTO cruel_migrations (version, description, applied_at)"
                    " VALUES (?, ?, ?)",
                    (number, description, now),
                )
    database.prepared = True


def _reskeleton(db: Connection | sqlite3.Connection) -> None:
    """Version 6: every player's skeleton anew, as :func:`~cruel_tools.site.names.skeleton` now
    leaves marks out (``adá`` looks like ``ada``): the stored ones were made without that."""
    players = [row[0] for row in db.execute("SELECT player FROM players").fetchall()]
    db.executemany(
        "UPDATE players SET skeleton = ? WHERE player = ?", [(skeleton(p), p) for p in players]
    )


def _migrate_sqlite(database: SqliteDatabase, name: str) -> None:
    db = database.connection
    version = db.execute("PRAGMA user_version").fetchone()[0]
    _refuse_newer(name, version)
    if database.target != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL's usual pairing: no fsync per commit
    with db:
        db.executescript(SUBMISSIONS)
        if version < 2:  # version 1 had no players table: every name stored is a player
            first_seen = "SELECT player FROM submissions GROUP BY player ORDER BY MIN(id)"
            names = db.execute(first_seen).fetchall()
            db.executemany(
                "INSERT OR IGNORE INTO players (player, skeleton) VALUES (?, ?)",
                [(name, skeleton(name)) for (name,) in names],
            )
        if version < 3:
            _add_elapsed(db)
        if version < 4:
            _add_actions(db)
        db.executescript(index_ddl())
        db.executescript(MODERATION)
        db.executescript(UNRANKED)  # version 8: the view below leaves its entries out
        if version < 8:
            db.execute("DROP VIEW IF EXISTS visible_submissions")
        db.executescript(VISIBLE)  # after the columns: the view is of them all
        db.executescript(TALLIES)
        if version < 5:
            db.executescript(REBUILD)  # once, from the entries there
        # Tables added without a version of their own (an SQLite file made before them gets
        # them here, whichever store opens it first).
        db.executescript(KEYS)
        db.executescript(ATTEMPTS)
        db.executescript(PLAYERS)  # version 6: new tables only
        db.executescript(LIVE)
        db.executescript(RATINGS)  # version 7: new tables only
        db.executescript(PUBLISHED)
        if version < 6:
            _reskeleton(db)
        db.execute(f"PRAGMA user_version = {DB_VERSION}")


class Store:
    """What every store is opened with: a database, attached and prepared in one way.

    ``target``: an SQLite file's path (created if missing, unless ``create`` is False), a
    ``postgresql://`` URL, or an open :class:`~cruel_tools.site.database.Database` (shared:
    :meth:`close` leaves it open). ``timeout``: how long a write waits for another process's
    lock before :class:`~cruel_tools.site.database.StoreBusy`. A database that cannot be used is a
    :class:`~cruel_tools.site.database.StoreError`; one that is not there while ``create`` is False,
    :class:`~cruel_tools.site.database.NoSuchDatabase`.
    """

    def __init__(
        self, target: Path | str | Database, timeout: float = DB_TIMEOUT, create: bool = True
    ) -> None:
        self.path = name_of(target)
        try:
            self.database, self._own = attach(target, timeout, create)
        except database_errors() as exc:
            raise StoreError(f"{self.path}: cannot use as a database: {one_line(exc)}") from None
        try:
            prepare(self.database, self.path, create)
        except database_errors() as exc:
            self.close()
            raise StoreError(f"{self.path}: cannot use as a database: {one_line(exc)}") from None
        except StoreError:
            self.close()
            raise

    def close(self) -> None:
        if self._own:
            self.database.close()
