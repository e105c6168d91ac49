"""Leaderboards: players' wins of puzzles, deduplicated and ranked, in the store.

A judged submission (:func:`cruel_tools.site.judging.judge`) that is a legal win is stored and
ranked by fewest actions (card moves + redeals, what the seed challenge and par count), then
fewest redeals (:data:`~cruel_tools.site.tables.SCORE`): equal scores share a rank (1, 1, 3, ...),
and
the earliest submission is listed first within a tie. The same game submitted again by the same
player is not stored twice. Ranks and totals are sums over the boards' tallies, kept in the
transaction of every change of a listed entry. See ``docs/service.md``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ..formats import document_config
from ..game.traversal import ErrorInfo
from ..puzzles import Puzzle
from .database import Connection
from .judging import Judgement, Submission, SubmissionResult, judge
from .names import skeleton
from .records import PlayerGames
from .registry import register
from .tables import LISTED, SCORE, Store, order

__all__ = [
    "LEADERBOARD_FORMAT",
    "MAX_ENTRIES",
    "MAX_PAGE",
    "TOO_MANY_ENTRIES",
    "Order",
    "Entry",
    "Leaderboard",
    "Leaderboards",
    "Tallies",
]

LEADERBOARD_FORMAT: Final = "cruel-leaderboard/1"
#: Most entries one leaderboard page holds.
MAX_PAGE: Final = 1000
#: Most entries (different games) one player may store for one puzzle: enough to improve on a
#: win many times, too few for one name to fill a board with variants of one game (issue #24:
#: 20 reorderings of one win took 21 of a board's 22 entries). Hidden entries count too, so a
#: moderator's hiding does not open room for more.
MAX_ENTRIES: Final = 10
#: The code of a win refused because its player has :data:`MAX_ENTRIES` entries of the puzzle.
TOO_MANY_ENTRIES: Final = "too-many-entries"


class Entry(BaseModel):
    """One accepted win on a leaderboard."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rank: int | None = Field(
        description="1 + the entries ranked (with best_per_player: players) with a strictly "
        "better score: fewer actions (card moves + redeals), or as many actions and fewer "
        "redeals. Equal scores share a rank (1, 1, 3, ...); within a tie the earliest submission "
        "is listed first. Null on the list of unranked entries (ranked=false)."
    )
    player: str
    moves: int
    redeals: int
    actions: int = Field(description="Card moves + redeals: the score, with redeals.")
    submitted_at: dt.datetime
    submission_id: int
    elapsed_ms: int | None = Field(
        None,
        description="Milliseconds from the attempt's start to the submission, measured by the "
        "server; null for an entry without an attempt. With by=time, equal times share a rank.",
    )


#: How a leaderboard ranks: fewest actions, or fastest server-timed win.
Order = Literal["actions", "time"]


class Leaderboard(BaseModel):
    """A page of a puzzle's leaderboard."""

    model_config = document_config("Cruel leaderboard v1", "leaderboard")

    format: Literal["cruel-leaderboard/1"] = LEADERBOARD_FORMAT
    puzzle: str
    best_per_player: bool = Field(description="Only each player's best entry is ranked.")
    by: Order = Field(
        "actions",
        description="actions: fewest actions (card moves + redeals), then fewest redeals. time: "
        "only server-timed entries, fastest first, then fewest actions, then redeals.",
    )
    ranked: bool = Field(
        True,
        description="true: the ranked entries (live attempts, a site key's logs). false: the "
        "unranked ones, listed apart and never ranked: logs nothing timed (a player's token, "
        "--open), fewest actions first, rank null (best_per_player and by do not apply).",
    )
    total: int = Field(description="Entries on the whole leaderboard (of this list).")
    offset: int
    entries: list[Entry]


# --- the tallies of the boards -------------------------------------------------------------------


@dataclass
class _Tally:
    """What one player's listed entries of one puzzle add to the tallies."""

    counts: dict[tuple[int, int], list[int]]  # score: [entries, timed, bests, fastest]
    best: tuple[int, int, int] | None  # (id, actions, redeals)
    fast: tuple[int, int, int, int] | None  # (id, elapsed_ms, actions, redeals)


def _tally(db: Connection, puzzle: str, player: str) -> _Tally:
    """A player's part of a puzzle's tallies, from their listed entries (one statement, a few
    rows of the index ``submissions_best``)."""
    found = db.execute(
        "SELECT id, actions, redeals, elapsed_ms FROM visible_submissions"
        " WHERE puzzle = ? AND player = ?",
        (puzzle, player),
    ).fetchall()
    counts: dict[tuple[int, int], list[int]] = {}
    for _, actions, redeals, elapsed in found:
        count = counts.setdefault((actions, redeals), [0, 0, 0, 0])
        count[0] += 1
        count[1] += elapsed is not None
    # The orders of schema.order(): by score then id; by time, then score, then id.
    best = min(((a, r, i) for i, a, r, _ in found), default=None)
    fast = min(((e, a, r, i) for i, a, r, e in found if e is not None), default=None)
    if best is not None:
        counts[best[:2]][2] += 1
    if fast is not None:
        counts[fast[1:3]][3] += 1
    return _Tally(
        counts,
        None if best is None else (best[2], best[0], best[1]),
        None if fast is None else (fast[3], fast[0], fast[1], fast[2]),
    )


class Tallies:
    """The tallies of some (puzzle, player) pairs, read before a change of their entries'
    listing (:mod:`cruel_tools.site.moderation`), and moved to what the entries are after it by
    :meth:`settle`, in the same transaction."""

    def __init__(self, db: Connection, pairs: list[tuple[str, str]]) -> None:
        self.db = db
        self.before = [(puzzle, player, _tally(db, puzzle, player)) for puzzle, player in pairs]

    @classmethod
    def of_player(cls, db: Connection, player: str) -> Tallies:
        """The tallies of every puzzle ``player`` has entries of (a ban, a player's deletion)."""
        puzzles = db.execute(
            "SELECT DISTINCT puzzle FROM submissions WHERE player = ?", (player,)
        ).fetchall()
        return cls(db, [(str(p), player) for (p,) in puzzles])

    def settle(self) -> None:
        _retally(
            self.db,
            [(pz, pl, old, _tally(self.db, pz, pl)) for pz, pl, old in self.before],
        )


def _retally(db: Connection, changes: list[tuple[str, str, _Tally, _Tally]]) -> None:
    """Move the tallies from each (puzzle, player)'s ``before`` to its ``after``. Rows of
    ``score_counts`` are changed in one order, (puzzle, actions, redeals), in every
    transaction: two writers on one PostgreSQL never wait for each other in a circle."""
    deltas: dict[tuple[str, int, int], list[int]] = {}
    for puzzle, _, before, after in changes:
        for score in set(before.counts) | set(after.counts):
            old = before.counts.get(score, [0, 0, 0, 0])
            new = after.counts.get(score, [0, 0, 0, 0])
            delta = deltas.setdefault((puzzle, *score), [0, 0, 0, 0])
            for k in range(4):
                delta[k] += new[k] - old[k]
    for key in sorted(deltas):
        delta = deltas[key]
        if any(delta):
            db.execute(
                "INSERT INTO score_counts (puzzle, actions, redeals, entries, timed, bests,"
                " fastest) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (puzzle, actions, redeals) DO UPDATE SET"
                " entries = score_counts.entries + excluded.entries,"
                " timed = score_counts.timed + excluded.timed,"
                " bests = score_counts.bests + excluded.bests,"
                " fastest = score_counts.fastest + excluded.fastest",
                (*key, *delta),
            )
    for puzzle, player, before, after in changes:
        if (before.best, before.fast) == (after.best, after.fast):
            continue
        if after.best is None:
            db.execute("DELETE FROM player_best WHERE puzzle = ? AND player = ?", (puzzle, player))
            continue
        fast = after.fast or (None, None, None, None)
        db.execute(
            "INSERT INTO player_best (puzzle, player, best_id, best_actions, best_redeals,"
            " fast_id, fast_elapsed, fast_actions, fast_redeals)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (puzzle, player) DO UPDATE SET best_id = excluded.best_id,"
            " best_actions = excluded.best_actions, best_redeals = excluded.best_redeals,"
            " fast_id = excluded.fast_id, fast_elapsed = excluded.fast_elapsed,"
            " fast_actions = excluded.fast_actions, fast_redeals = excluded.fast_redeals",
            (puzzle, player, *after.best, *fast),
        )


# --- the store -----------------------------------------------------------------------------------


class Leaderboards(Store):
    """Accepted wins of every puzzle, in an SQLite file (created if missing) or a PostgreSQL
    database (a ``postgresql://`` URL; :mod:`cruel_tools.site.database`), opened as every store is
    (:class:`~cruel_tools.site.tables.Store`: ``target``, ``timeout``).

    Safe to share between threads; several processes may share the store too (SQLite: WAL mode;
    PostgreSQL: any number of instances), and the unique key keeps a game from being stored
    twice whoever wins the race. Reads have a connection of their own, so they never queue
    behind a write waiting for another process.

    ``max_entries``: the entries one player may store for one puzzle (:data:`MAX_ENTRIES`; set
    the attribute to change it); a further new game is rejected with ``too-many-entries``.
    """

    max_entries: int = MAX_ENTRIES

    def submit(
        self,
        puzzle: Puzzle,
        submission: Submission,
        now: dt.datetime | None = None,
        today: dt.date | None = None,
    ) -> SubmissionResult:
        """Verify ``submission`` against ``puzzle`` and store it if it is a legal win."""
        return self.store(judge(puzzle, submission, today), now)

    def store(
        self, judgement: Judgement, now: dt.datetime | None = None, wait: bool = True
    ) -> SubmissionResult:
        """Store an accepted judgement (from :func:`judge`), unless this player's game is
        there already.

        ``wait=False`` never waits (for another thread or process using the database): it
        raises :class:`WouldWait` instead, and the caller may retry where waiting is harmless
        (SQLite; PostgreSQL's writers wait only for the same player's). A wait over the store's
        timeout raises :class:`StoreBusy`.
        """
        if judgement.reason is not None:
            return judgement.result(reason=judgement.reason)
        when = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
        return self._insert(judgement, when, wait)

    def _insert(
        self, judgement: Judgement, when: dt.datetime, wait: bool = True
    ) -> SubmissionResult:
        """Insert the judged game unless this player's is there; the result, with the entry."""
        key = (judgement.puzzle, judgement.player, judgement.game)
        find = (
            f"SELECT id, {', '.join(SCORE)}, submitted_at, elapsed_ms FROM submissions"
            " WHERE puzzle = ? AND player = ? AND game = ?"
        )
        # PostgreSQL: writers of one name skeleton (a player and their lookalikes) wait for each
        # other, in every instance; SQLite's BEGIN IMMEDIATE holds the whole file.
        with self.database.write(lock=skeleton(judgement.player), wait=wait) as db:
            # Looked up first, because a refused INSERT still uses up an id; the unique key
            # settles a race with another process between the two statements.
            stored = db.execute(find, key).fetchone()
            new = stored is None
            if new and (full := self._full(db, judgement)) is not None:
                return judgement.result(reason=full)  # before the attempt is claimed
            elapsed = None
            if new and judgement.attempt is not None:  # a resent entry keeps its time
                elapsed = judgement.attempt.check(db)
                if isinstance(elapsed, ErrorInfo):
                    return judgement.result(reason=elapsed)
            if new and (lookalike := register(db, judgement.player)) is not None:
                return judgement.result(reason=lookalike)
            if new:
                before = _tally(db, judgement.puzzle, judgement.player)
                inserted = db.execute(
                    "INSERT INTO submissions (puzzle, player, game, moves, redeals, log,"
                    " submitted_at, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING RETURNING id",
                    (
                        *key,
                        judgement.moves,
                        judgement.redeals,
                        judgement.log,
                        when.isoformat(),
                        elapsed,
                    ),
                ).fetchall()
                new = bool(inserted)
                if inserted and judgement.unranked is not None:  # before the tallies move
                    db.execute(
                        "INSERT INTO unranked_submissions (submission, puzzle, reason, at)"
                        " VALUES (?, ?, ?, ?)",
                        (inserted[0][0], judgement.puzzle, judgement.unranked, when.isoformat()),
                    )
                if inserted and judgement.attempt is not None:
                    judgement.attempt.use(db, inserted[0][0])
                if inserted:
                    after = _tally(db, judgement.puzzle, judgement.player)
                    _retally(db, [(judgement.puzzle, judgement.player, before, after)])
                    score = (judgement.actions, judgement.redeals)  # SCORE's columns
                    stored = (inserted[0][0], *score, when.isoformat(), elapsed)
                else:  # stored meanwhile by another process: its entry
                    stored = db.execute(find, key).fetchone()
            # Not ranked: unranked, held for review, hidden by a moderator, its player banned.
            reason, flags = _standing(db, stored[0], judgement.player)
            rank = _rank(db, judgement.puzzle, stored[1:-2]) if reason is None else None
        return judgement.result(
            accepted=True,
            duplicate=not new,
            submission_id=stored[0],
            submitted_at=dt.datetime.fromisoformat(stored[-2]),
            rank=rank,
            ranked=reason is None,
            unranked_reason=reason,
            flags=flags,
            elapsed_ms=stored[-1],
        )

    def _full(self, db: Connection, judgement: Judgement) -> ErrorInfo | None:
        """Why a new game of this player may not be stored: they have ``max_entries`` entries
        of the puzzle already (listed or not). Counted in the write transaction (PostgreSQL:
        under the skeleton's lock), so racing submissions cannot pass the cap together."""
        count = db.execute(
            "SELECT COUNT(*) FROM submissions WHERE puzzle = ? AND player = ?",
            (judgement.puzzle, judgement.player),
        ).fetchone()[0]
        if int(count) < self.max_entries:
            return None
        return ErrorInfo(
            index=None,
            path="/player",
            code=TOO_MANY_ENTRIES,
            message=f"player {judgement.player!r} has {count} entries of puzzle "
            f"{judgement.puzzle} already, the most one player may store",
        )

    def leaderboard(
        self,
        puzzle_id: str,
        limit: int = 100,
        offset: int = 0,
        best_per_player: bool = False,
        by: Order = "actions",
    ) -> Leaderboard:
        """Entries ``offset`` to ``offset + limit`` of a puzzle's leaderboard, best first.

        ``by="actions"``: by :data:`SCORE` (fewest actions, then fewest redeals); equal scores
        share a rank, 1 + the entries with a strictly better score; the earliest submission is
        listed first within a tie. ``by="time"``: only server-timed entries, fastest first, then
        by score; equal times share a rank. ``best_per_player`` ranks only each player's best
        entry (by the same order).
        """
        limit = max(0, min(limit, MAX_PAGE))
        timed = by == "time"
        listing = ", ".join(order(timed))
        columns = "player, moves, redeals, actions, submitted_at, id, elapsed_ms"
        if best_per_player:
            # Each player's best (or fastest) listed entry is a row of player_best, read in the
            # order of its index; the entries themselves by their ids.
            mark = "fast" if timed else "best"
            keys = (["fast_elapsed"] if timed else []) + [f"{mark}_actions", f"{mark}_redeals"]
            source = (
                f"SELECT {', '.join('s.' + c for c in columns.split(', '))}"
                " FROM player_best AS b JOIN submissions AS s"
                f" ON s.id = b.{mark}_id WHERE b.puzzle = ?"
                + (" AND b.fast_id IS NOT NULL" if timed else "")
                + f" ORDER BY {', '.join('b.' + c for c in keys)}, b.{mark}_id"
            )
        else:
            where = "puzzle = ? AND elapsed_ms IS NOT NULL" if timed else "puzzle = ?"
            source = f"SELECT {columns} FROM visible_submissions WHERE {where} ORDER BY {listing}"
        if best_per_player:
            tally = "fastest" if timed else "bests"
        else:
            tally = "timed" if timed else "entries"

        def tie(row: tuple[Any, ...]) -> tuple[Any, ...]:
            return (row[6],) if timed else (row[3], row[2])

        # One read transaction, so the total, the page and its first rank come from the same
        # snapshot.
        with self.database.read() as db:
            found = db.execute(
                f"SELECT COALESCE(SUM({tally}), 0) FROM score_counts WHERE puzzle = ?",
                (puzzle_id,),
            ).fetchone()
            total = int(found[0])
            rows = db.execute(f"{source} LIMIT ? OFFSET ?", (puzzle_id, limit, offset)).fetchall()
            # A page may start inside a tie: its first entry's rank is counted, not offset + 1.
            if not rows:
                first = 0
            elif timed:
                first = _time_rank(db, puzzle_id, rows[0][6], best_per_player)
            else:
                first = _rank(db, puzzle_id, (rows[0][3], rows[0][2]), best_per_player)
        entries: list[Entry] = []
        for k, row in enumerate(rows):
            player, moves, redeals, actions, at, sid, elapsed = row[:7]
            rank: int | None
            if k == 0:
                rank = first
            elif tie(row) == tie(rows[k - 1]):
                rank = entries[-1].rank  # a tie shares the rank
            else:
                rank = offset + k + 1  # every entry listed before it is strictly better
            entries.append(
                Entry(
                    rank=rank,
                    player=player,
                    moves=moves,
                    redeals=redeals,
                    actions=actions,
                    submitted_at=dt.datetime.fromisoformat(at),
                    submission_id=sid,
                    elapsed_ms=elapsed,
                )
            )
        return Leaderboard(
            puzzle=puzzle_id,
            best_per_player=best_per_player,
            by=by,
            total=total,
            offset=offset,
            entries=entries,
        )

    def unranked(self, puzzle_id: str, limit: int = 100, offset: int = 0) -> Leaderboard:
        """Entries ``offset`` to ``offset + limit`` of a puzzle's unranked entries (stored, not
        ranked: nothing timed them), fewest actions first, then the earliest; not hidden, player
        not banned. A count over the index ``unranked_puzzle``: each player stores at most
        :data:`MAX_ENTRIES` a puzzle."""
        limit = max(0, min(limit, MAX_PAGE))
        shown = (
            " FROM unranked_submissions AS u JOIN submissions AS s ON s.id = u.submission"
            f" WHERE u.puzzle = ? AND {LISTED}"
        )
        with self.database.read() as db:
            total = int(db.execute(f"SELECT COUNT(*){shown}", (puzzle_id,)).fetchone()[0])
            rows = db.execute(
                "SELECT s.player, s.moves, s.redeals, s.actions, s.submitted_at, s.id"
                f"{shown} ORDER BY s.actions, s.redeals, s.id LIMIT ? OFFSET ?",
                (puzzle_id, limit, offset),
            ).fetchall()
        entries = [
            Entry(
                rank=None,
                player=player,
                moves=moves,
                redeals=redeals,
                actions=actions,
                submitted_at=dt.datetime.fromisoformat(at),
                submission_id=sid,
            )
            for player, moves, redeals, actions, at, sid in rows
        ]
        return Leaderboard(
            puzzle=puzzle_id,
            best_per_player=False,
            ranked=False,
            total=total,
            offset=offset,
            entries=entries,
        )

    def entry_moves(self, puzzle_id: str, submission_id: int) -> tuple[str, str] | None:
        """The player and the moves (compact form) of a listed entry of ``puzzle_id``; None when
        there is no such entry, or it is not listed (hidden by a moderator, or its player banned).
        """
        with self.database.read() as db:
            row = db.execute(
                "SELECT player, log FROM visible_submissions WHERE id = ? AND puzzle = ?",
                (submission_id, puzzle_id),
            ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def count(self, timeout: float | None = None) -> int:
        """Accepted entries over all puzzles; ``timeout``: longest wait for a connection of a
        PostgreSQL store's pool (health's)."""
        with self.database.read(timeout) as db:
            return int(db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0])

    def player_games(self, player: str) -> PlayerGames | None:
        """The games of ``player`` (an enforced name) in the store, for player records; None
        when no such player has ever stored an entry or started an attempt."""
        with self.database.read() as db:  # one snapshot for every read
            known = db.execute("SELECT 1 FROM players WHERE player = ?", (player,)).fetchone()
            # Unranked entries are the player's verified wins too: only hidden and banned ones
            # are left out of their record.
            rows = db.execute(
                "SELECT puzzle, moves, submitted_at, elapsed_ms FROM submissions AS s"
                f" WHERE player = ? AND {LISTED} ORDER BY id",
                (player,),
            ).fetchall()
            has_attempts = db.has_table("attempts")
            started: list[tuple[str, str]] = []
            tried = None
            if has_attempts:
                tried = db.execute(
                    "SELECT 1 FROM attempts WHERE player = ? LIMIT 1", (player,)
                ).fetchone()
                # Attempts that timed no entry (a banned player's count nowhere, as their
                # entries); an attempt that timed an entry is that entry's game (listed: the
                # win; hidden or deleted: nothing, as the entry).
                started = db.execute(
                    "SELECT puzzle, started_at FROM attempts AS a"
                    " WHERE a.player = ? AND a.submission_id IS NULL"
                    " AND NOT EXISTS (SELECT 1 FROM banned_players AS b"
                    " WHERE b.player = a.player)"
                    " ORDER BY a.started_at",
                    (player,),
                ).fetchall()
        if known is None and tried is None and not rows:
            return None
        return PlayerGames(
            wins=[(p, m, dt.datetime.fromisoformat(at), ms) for p, m, at, ms in rows],
            unfinished=[(p, dt.datetime.fromisoformat(at)) for p, at in started],
        )


def _rank(db: Connection, puzzle_id: str, score: tuple[int, ...], players: bool = False) -> int:
    """1 + the listed entries of the puzzle (``players``: the players' best entries) with a
    strictly better :data:`SCORE` than ``score``: a sum over the puzzle's tallied scores
    (``score_counts``), however long the board."""
    what = "bests" if players else "entries"
    better = db.execute(
        f"SELECT COALESCE(SUM({what}), 0) FROM score_counts WHERE puzzle = ?"
        f" AND ({', '.join(SCORE)}) < ({', '.join('?' * len(SCORE))})",
        (puzzle_id, *score),
    ).fetchone()[0]
    return int(better) + 1


def _time_rank(db: Connection, puzzle_id: str, elapsed: int, players: bool) -> int:
    """1 + the timed entries of the puzzle (``players``: the players' fastest) strictly faster
    than ``elapsed`` milliseconds: a count over an index (``submissions_timed``,
    ``player_best_time``) of the entries before the page, none for its first page."""
    if players:
        sql = (
            "SELECT COUNT(*) FROM player_best WHERE puzzle = ? AND fast_id IS NOT NULL"
            " AND fast_elapsed < ?"
        )
    else:
        sql = "SELECT COUNT(*) FROM visible_submissions WHERE puzzle = ? AND elapsed_ms < ?"
    return int(db.execute(sql, (puzzle_id, elapsed)).fetchone()[0]) + 1


def _standing(db: Connection, submission_id: int, player: str) -> tuple[str | None, list[str]]:
    """Why a stored entry is not ranked (None: it is), and its review flags: the answer says
    which, so that a held or unranked entry is never a bare ``rank: null`` (issue #33)."""
    one = db.execute
    unranked = one(
        "SELECT reason FROM unranked_submissions WHERE submission = ?", (submission_id,)
    ).fetchone()
    queued = one(
        "SELECT reasons, status FROM review_queue WHERE submission = ?", (submission_id,)
    ).fetchone()
    flags = [str(f) for f in orjson.loads(queued[0])] if queued else []
    if unranked is not None:
        return str(unranked[0]), flags
    if one("SELECT 1 FROM banned_players WHERE player = ?", (player,)).fetchone():
        return "banned", flags
    hidden = one("SELECT 1 FROM hidden_submissions WHERE submission = ?", (submission_id,))
    if hidden.fetchone() is None:
        return None, flags
    return ("held-for-review" if queued and queued[1] == "pending" else "hidden"), flags
