"""What live attempts store, and what a player's export costs (issue #33, finding 5).

Modes:

- ``steps``: bytes a live step costs in the database (SQLite file, or a PostgreSQL schema's
  tables), from attempts played through :class:`cruel_tools.site.attempts.Attempts` (a legal step
  and its undo, 200 a request, as the attacker sent them);
- ``hour``: an hour of the attack at the caps on the server's own clock (sped up: the clock is
  the benchmark's): one name starts attempts as fast as ``cruel serve``'s defaults allow and
  fills each to its step cap; the database's growth in that hour;
- ``export``: the export of one player with ``--steps`` steps (132,000: the attacker's
  figure): seconds (median of ``--runs``) and the peak of memory allocated (tracemalloc).
  Run on the commit before the change with ``PYTHONPATH`` pointing at it to get "before".

    .venv/bin/python benchmarks/storage_bench.py steps [--db postgresql://...]
    .venv/bin/python benchmarks/storage_bench.py hour [--db postgresql://...]
    .venv/bin/python benchmarks/storage_bench.py export [--steps 132000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import statistics
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

import orjson

from cruel_tools.game.log import compact, to_step
from cruel_tools.puzzles import PuzzleSet
from cruel_tools.site.attempts import Attempts, Policy
from cruel_tools.site.players import Players

ROOT = Path(__file__).resolve().parent.parent
PUZZLE = "2027-01-05-easy"
TODAY = dt.date(2027, 1, 5)
T0 = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)
SENDER = ("player", "ada")


def _target(db: str | None, folder: Path) -> tuple[str | Path, Any]:
    """An empty store: a new SQLite file, or a new schema of the PostgreSQL server ``db``."""
    if db is None:
        return folder / "bench.sqlite", None
    import psycopg

    schema = "bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(db, autocommit=True) as con:
        con.execute(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in db else "?"
    return f"{db}{joiner}options=-csearch_path%3D{schema}", (db, schema)


def _drop(made: Any) -> None:
    if made is None:
        return
    import psycopg

    db, schema = made
    with psycopg.connect(db, autocommit=True) as con:
        con.execute(f"DROP SCHEMA {schema} CASCADE")


def _size(target: str | Path) -> int:
    if isinstance(target, Path):
        import sqlite3

        with sqlite3.connect(target) as con:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = con.execute("PRAGMA page_count").fetchone()[0]
            free = con.execute("PRAGMA freelist_count").fetchone()[0]
            return int((pages - free) * con.execute("PRAGMA page_size").fetchone()[0])
    import psycopg

    with psycopg.connect(str(target)) as con:
        row = con.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class AS c"
            " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        ).fetchone()
        return int(row[0]) if row else 0


def _fill(store: Attempts, puzzle: Any, attempt: str, at: dt.datetime) -> int:
    """Send the attacker's requests (a legal step and its undo, 200 a request) to ``attempt``
    until it is full; the steps kept."""
    from cruel_tools.site.attempts import AttemptFull  # (issue #33: "before" has no caps)

    first = compact(to_step(puzzle.solution[0]))
    kept = 0
    while True:
        try:
            store.play(puzzle, attempt, [first, "undo"] * 100, SENDER, at, TODAY)
        except AttemptFull:
            return kept
        kept += 200


def _fill_attempts(store: Attempts, puzzle: Any, attempts: int, clock: list[dt.datetime]) -> int:
    """Play ``attempts`` attempts of one name, each filled to its cap; the steps kept."""
    kept = 0
    for _ in range(attempts):
        clock[0] += dt.timedelta(seconds=13)
        state = store.start(puzzle, "ada", "off", SENDER, clock[0])
        kept += _fill(store, puzzle, state.attempt, clock[0])
        store.give_up(puzzle, state.attempt, SENDER, clock[0], TODAY)
    return kept


def steps_mode(db: str | None) -> None:
    puzzle = _puzzle()
    with tempfile.TemporaryDirectory() as folder:
        target, made = _target(db, Path(folder))
        try:
            store = Attempts(target)
            store.policy = Policy(per_day=10_000, per_minute=10_000)
            clock = [T0]
            _fill_attempts(store, puzzle, 2, clock)
            before = _size(target)
            kept = _fill_attempts(store, puzzle, 20, clock)
            grown = _size(target) - before
            store.close()
        finally:
            _drop(made)
    print(f"steps: {kept} steps, {grown} bytes: {grown / kept:.0f} bytes a step ({_engine(db)})")


def hour_mode(db: str | None) -> None:
    """An hour at the caps: starts as fast as allowed (5 a minute, 50 a day), each filled."""
    from cruel_tools.site.attempts import TooManyAttempts

    puzzle = _puzzle()
    with tempfile.TemporaryDirectory() as folder:
        target, made = _target(db, Path(folder))
        try:
            store = Attempts(target)
            before = _size(target)
            clock, refused, kept = T0, 0, 0
            while clock < T0 + dt.timedelta(hours=1):
                clock += dt.timedelta(seconds=1)  # the attacker's pace: a start a second
                try:
                    state = store.start(puzzle, "ada", "off", SENDER, clock)
                except TooManyAttempts:
                    refused += 1
                    continue
                kept += _fill(store, puzzle, state.attempt, clock)
                store.give_up(puzzle, state.attempt, SENDER, clock, TODAY)
            grown = _size(target) - before
            store.close()
        finally:
            _drop(made)
    print(
        f"hour: one name, {kept} steps kept, {refused} starts refused, {grown / 1e6:.1f} MB"
        f" in the hour ({_engine(db)})"
    )


def _puzzle() -> Any:
    found = PuzzleSet.load(ROOT / "puzzles").get(PUZZLE)
    assert found is not None
    return found


def _engine(db: str | None) -> str:
    return "SQLite" if db is None else "PostgreSQL"


def _fill_export(target: Path, steps: int) -> None:
    store = Players(target)
    at = T0.isoformat()
    with store.database.write() as con:
        con.execute("INSERT INTO player_claims (player, claimed_at) VALUES (?, ?)", ("ada", at))
        for k in range(steps // 1000):
            aid = f"ada-{k:05d}"
            con.execute(
                "INSERT INTO attempts (id, puzzle, player, sender, started_at) VALUES (?, ?, ?, ?, ?)",
                (aid, PUZZLE, "ada", "('player', 'ada')", at),
            )
            con.execute(
                "INSERT INTO live_attempts (attempt, auto, status, line, recorded, player_steps,"
                " last_at, ended_at) VALUES (?, 'off', 'given-up', '[]', 1000, 1000, ?, ?)",
                (aid, at, at),
            )
            con.executemany(
                "INSERT INTO attempt_steps (attempt, seq, at, step, auto) VALUES (?, ?, ?, ?, 0)",
                [(aid, s, at, "1-9" if s % 2 else "undo") for s in range(1000)],
            )
    store.close()


def _export_once(players: Players) -> int:
    """The export as the route answers it: streamed parts, or (before) the whole document."""
    if hasattr(players, "export_parts"):
        return sum(len(part) for part in players.export_parts("ada", T0))
    return len(orjson.dumps(players.export("ada", T0).model_dump(mode="json")))


def export_mode(steps: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "bench.sqlite"
        _fill_export(target, steps)
        players = Players(target)
        _export_once(players)  # warm: imports, caches
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()
            size = _export_once(players)
            seconds.append(time.perf_counter() - start)
        gc.collect()
        tracemalloc.start()
        _export_once(players)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        players.close()
    how = "streamed" if hasattr(Players, "export_parts") else "whole"
    print(
        f"export ({how}): {steps} steps, {size / 1e6:.1f} MB, median {statistics.median(seconds):.2f} s"
        f" of {runs}, peak {peak / 1e6:.1f} MB allocated"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["steps", "hour", "export"])
    parser.add_argument("--db", help="a PostgreSQL server's URL (default: an SQLite file)")
    parser.add_argument("--steps", type=int, default=132_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.mode == "steps":
        steps_mode(args.db)
    elif args.mode == "hour":
        hour_mode(args.db)
    else:
        export_mode(args.steps, args.runs)


if __name__ == "__main__":
    main()
