"""A million entries on one puzzle (issue #13): the time of a submission's answer (with its rank)
and of leaderboard pages, on SQLite and on PostgreSQL.

    .venv/bin/python benchmarks/million.py                         # both engines, 10^6 entries
    .venv/bin/python benchmarks/million.py --engine sqlite --entries 100000
    CRUEL_TEST_POSTGRES=postgresql://postgres@127.0.0.1:5432/test .venv/bin/python benchmarks/million.py

Each engine gets a fresh store (a file in a temporary folder; a new PostgreSQL schema, dropped
at the end) laid out by :class:`~cruel_tools.site.leaderboard.Leaderboards`, then filled in bulk
(``executemany`` in one transaction; PostgreSQL's ``COPY``) with ``--entries`` entries of the
puzzle by ``--entries / 5`` players (scores drawn with a seeded RNG around par, 70% of them
server-timed), then ``ANALYZE``. Timed, each ``--repeat`` times, median and 90th percentile:

    submit          Leaderboards.store of a new player's win (verified before the clock starts):
                    the insert, its bookkeeping and the rank of the answer
    rank query      the rank of a mid-board score, the one COUNT statement of the answer
    page            leaderboard(limit=100), by actions
    page best       leaderboard(limit=100, best_per_player=True)
    page time       leaderboard(limit=100, by="time")
    page time best  leaderboard(limit=100, by="time", best_per_player=True)
    page deep       leaderboard(limit=100, offset=10000)

The PostgreSQL server is ``--url``, or ``CRUEL_TEST_POSTGRES``; without either, SQLite only.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cruel_tools.site import leaderboard as lb  # noqa: E402

try:  # the tallies' rebuild lives in cruel_tools.site.tables since issue #23 (older checkouts: lb)
    from cruel_tools.site import tables as layout  # noqa: E402
except ImportError:  # pragma: no cover
    layout = lb  # type: ignore[assignment]
from cruel_tools.puzzles import PuzzleSet  # noqa: E402
from cruel_tools.site.judging import judge, parse_submission  # noqa: E402
from cruel_tools.site.leaderboard import Leaderboards  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PUZZLE_ID = "2027-01-02-easy"
OPEN = dt.date(2027, 1, 2)


def rows(count: int, seed: int = 13) -> Iterator[tuple[Any, ...]]:
    """Entries (puzzle, player, game, moves, redeals, log, submitted_at, elapsed_ms)."""
    rng = random.Random(seed)
    players = max(1, count // 5)
    at = "2027-01-02T12:00:00+00:00"
    for k in range(count):
        moves = 52 + int(rng.expovariate(1 / 25))
        redeals = rng.randrange(0, 3)
        elapsed = rng.randrange(20_000, 3_600_000) if rng.random() < 0.7 else None
        yield (PUZZLE_ID, f"bench {k % players}", f"g{k}", moves, redeals, "", at, elapsed)


def fill(boards: Leaderboards, count: int) -> float:
    """Bulk-insert ``count`` entries and the players; seconds taken."""
    start = time.perf_counter()
    database = boards.database
    players = [(f"bench {k}", f"bench {k}") for k in range(max(1, count // 5))]
    if database.engine == "sqlite":
        raw = database.connection  # type: ignore[attr-defined]
        with raw:
            raw.executemany(
                "INSERT INTO submissions (puzzle, player, game, moves, redeals, log,"
                " submitted_at, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows(count),
            )
            raw.executemany("INSERT OR IGNORE INTO players VALUES (?, ?)", players)
        rebuild = getattr(layout, "rebuild_tallies", None)
        if rebuild is not None:
            with database.write() as db:
                rebuild(db)
        raw.execute("ANALYZE")
    else:
        with database.pool.connection() as raw:  # type: ignore[attr-defined]
            with raw.transaction(), raw.cursor() as cursor:
                with cursor.copy(
                    "COPY submissions (puzzle, player, game, moves, redeals, log,"
                    " submitted_at, elapsed_ms) FROM STDIN"
                ) as copy:
                    for row in rows(count):
                        copy.write_row(row)
                with cursor.copy("COPY players (player, skeleton) FROM STDIN") as copy:
                    for row in players:
                        copy.write_row(row)
        rebuild = getattr(layout, "rebuild_tallies", None)
        if rebuild is not None:
            with database.write() as db:
                rebuild(db)
        with database.pool.connection() as raw:  # type: ignore[attr-defined]
            raw.execute("VACUUM ANALYZE")
    return time.perf_counter() - start


def timings(run: Callable[[int], object], repeat: int) -> tuple[float, float]:
    """Median and 90th percentile, in milliseconds, of ``repeat`` runs (after 2 warm-ups)."""
    for k in range(2):
        run(-1 - k)
    seen = []
    for k in range(repeat):
        start = time.perf_counter()
        run(k)
        seen.append((time.perf_counter() - start) * 1000)
    seen.sort()
    return statistics.median(seen), seen[int(0.9 * (len(seen) - 1))]


def bench(target: Path | str, engine: str, count: int, repeat: int) -> dict[str, Any]:
    boards = Leaderboards(target)
    filled = fill(boards, count)
    puzzle = PuzzleSet.load(ROOT / "puzzles").get(PUZZLE_ID)
    assert puzzle is not None
    from cruel_tools.puzzles import puzzle_solution_log

    doc = puzzle_solution_log(puzzle)
    doc.pop("claim", None)
    import orjson

    submission = parse_submission(orjson.dumps({"player": "new player", "log": doc}))
    base = judge(puzzle, submission, OPEN)
    now = dt.datetime(2027, 1, 2, 13, tzinfo=dt.UTC)
    answers: list[Any] = []

    def submit(k: int) -> None:
        judgement = dataclasses.replace(base, player=f"new player {k + 10}")
        answers.append(boards.store(judgement, now))

    def rank_query(k: int) -> None:
        with boards.database.read() as db:
            lb._rank(db, PUZZLE_ID, (150, 1))

    def page(**kw: Any) -> Callable[[int], object]:
        return lambda k: boards.leaderboard(PUZZLE_ID, limit=100, **kw)

    results = {
        "engine": engine,
        "entries": count,
        "fill_s": round(filled, 1),
        "submit": timings(submit, repeat),
        "rank query": timings(rank_query, repeat),
        "page": timings(page(), repeat),
        "page best": timings(page(best_per_player=True), repeat),
        "page time": timings(page(by="time"), repeat),
        "page time best": timings(page(by="time", best_per_player=True), repeat),
        "page deep": timings(page(offset=10_000), repeat),
    }
    last = answers[-1]
    assert last.accepted and last.rank is not None
    results["answer rank"] = last.rank
    # The ranks are right: the answer's rank against a count of the board, and the pages.
    with boards.database.read() as db:
        better = db.execute(
            "SELECT COUNT(*) FROM visible_submissions WHERE puzzle = ? AND (actions, redeals) < (?, ?)",
            (PUZZLE_ID, last.actions, last.redeals),
        ).fetchone()[0]
    assert last.rank == better + 1, (last.rank, better)
    board = boards.leaderboard(PUZZLE_ID, limit=5, best_per_player=True)
    assert board.total == count // 5 + repeat + 2, board.total
    boards.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--url", default=os.environ.get("CRUEL_TEST_POSTGRES"))
    args = parser.parse_args()
    engines = ["sqlite", "postgresql"] if args.engine == "both" else [args.engine]
    print(
        f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    for engine in engines:
        if engine == "sqlite":
            with tempfile.TemporaryDirectory() as folder:
                result = bench(Path(folder) / "million.sqlite", engine, args.entries, args.repeat)
        else:
            if not args.url:
                print("postgresql: skipped (no --url, no CRUEL_TEST_POSTGRES)")
                continue
            import psycopg

            schema = "bench_" + uuid.uuid4().hex[:8]
            with psycopg.connect(args.url, autocommit=True) as admin:
                admin.execute(f"CREATE SCHEMA {schema}")
                version = admin.execute("SHOW server_version").fetchone()
            try:
                url = f"{args.url}{'&' if '?' in args.url else '?'}options=-csearch_path%3D{schema}"
                result = bench(
                    url, f"postgresql {version[0] if version else ''}", args.entries, args.repeat
                )
            finally:
                with psycopg.connect(args.url, autocommit=True) as admin:
                    admin.execute(f"DROP SCHEMA {schema} CASCADE")
        print(f"{result['engine']}: {result['entries']:,} entries, filled in {result['fill_s']} s")
        for name, value in result.items():
            if isinstance(value, tuple):
                print(f"  {name:<15} median {value[0]:8.2f} ms   p90 {value[1]:8.2f} ms")
        print(f"  the last answer's rank: {result['answer rank']:,} (checked against a count)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
