"""One puzzle lookup for every command, and read-only commands never create (issue #34).

- Every command that reads puzzles finds them where ``cruel serve`` does (``--puzzles``,
  ``CRUEL_PUZZLES``, ``./puzzles``, the data folder, the package): from an empty folder,
  ``cruel verify --puzzle-id`` finds a packaged puzzle (it said ``puzzles: not a folder of
  puzzles`` before), and so do ``analyze`` and ``ratings``.
- ``--puzzles`` may name a database: its published days, read and never written; ``cruel daily
  --export`` writes them as ``cruel daily --out`` writes the same days, byte for byte.
- Only ``cruel serve`` (and ``cruel keys add --create``) makes a database: every other command
  given a ``--db`` that is not there refuses it in one line, exit 2, and leaves no file behind
  (it made an empty database and a ``.state`` file, and exited 0).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from cruel_tools import puzzles
from cruel_tools.cli.app import app
from cruel_tools.puzzles import (
    Puzzle,
    PuzzleSet,
    daily_puzzles,
    key_fingerprint,
    packaged_puzzles,
    puzzle_bytes,
    puzzle_solution_log,
)
from cruel_tools.site import puzzle_sources
from cruel_tools.site.database import NoSuchDatabase
from cruel_tools.site.publishing import GenerationLock, PublishedDays, Publisher
from cruel_tools.site.puzzle_sources import PUBLIC_STREAM
from cruel_tools.site.stores import open_stores

from .helpers import SMALL
from .stores import is_sqlite, store_target

__all__ = ["store_target"]  # the fixture: both engines

PACKAGED_ID = "2027-01-05-hard"
#: A day beyond the packaged set, published into a database only.
FAR = dt.date(2031, 5, 1)
SECRET = b"9c1e5f0a7b3d2468ace13579bdf02468e4a7c1f03b5d9e2876f1a0c3d5b7e92f"
runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder, an empty data home, no CRUEL_PUZZLES: only the package has
    puzzles."""
    cwd, home = tmp_path / "cwd", tmp_path / "xdg"
    cwd.mkdir()
    home.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.delenv("CRUEL_PUZZLES", raising=False)
    return cwd


def packaged(puzzle_id: str = PACKAGED_ID) -> Puzzle:
    found = PuzzleSet.load(packaged_puzzles()).get(puzzle_id)
    assert found is not None
    return found


def write_log(path: Path, puzzle: Puzzle) -> Path:
    path.write_bytes(orjson.dumps(puzzle_solution_log(puzzle)))
    return path


def far_day(day: dt.date = FAR) -> list[Puzzle]:
    """The packaged puzzles of 2027-01-01 as those of ``day``: a day only a database has."""
    return [
        p.model_copy(update={"id": f"{day.isoformat()}-{p.tier}", "date": day})
        for p in PuzzleSet.load(packaged_puzzles()).on(dt.date(2027, 1, 1))
    ]


def publish(db: Path | str, day_puzzles: list[Puzzle], stream: str = PUBLIC_STREAM) -> None:
    store = PublishedDays(db)
    try:
        assert day_puzzles[0].date is not None
        assert store.publish(day_puzzles[0].date, day_puzzles, stream)
    finally:
        store.close()


def files_under(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# --- one lookup --------------------------------------------------------------------------------


def test_verify_by_id_from_an_empty_folder_finds_the_packaged_puzzle(tmp_path: Path) -> None:
    """The finding, as a player runs it: a real process in a folder with no puzzles."""
    cwd, home = tmp_path / "cwd", tmp_path / "xdg"
    cwd.mkdir()
    home.mkdir()
    write_log(cwd / "won-log.json", packaged())
    env = {k: v for k, v in os.environ.items() if k != "CRUEL_PUZZLES"}
    env["XDG_DATA_HOME"] = str(home)
    command = [sys.executable, "-m", "cruel_tools.cli.app", "verify", "--puzzle-id"]
    done = subprocess.run(
        [*command, PACKAGED_ID, "won-log.json"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("won-log.json: valid: won") and "at par" in done.stdout
    other = subprocess.run(
        [*command, "2027-01-06-hard", "won-log.json"], cwd=cwd, env=env, capture_output=True
    )
    assert other.returncode == 1 and b"[puzzle-mismatch]" in other.stdout
    assert sorted(p.name for p in cwd.iterdir()) == ["won-log.json"]  # nothing written


def test_analyze_by_id_is_analyze_of_the_puzzle_file(empty: Path) -> None:
    log = write_log(empty / "won.json", packaged())
    by_file = cli("analyze", str(log), "--json", "--puzzle", str(packaged_file()))
    by_id = cli("analyze", str(log), "--json", "--puzzle-id", PACKAGED_ID)
    assert by_id.exit_code == 0, by_id.output
    assert by_id.stdout == by_file.stdout and '"par"' in by_id.stdout


def packaged_file(puzzle_id: str = PACKAGED_ID) -> Path:
    return packaged_puzzles() / puzzle_id[:4] / f"{puzzle_id}.json"


def test_the_lookup_is_serves_order(empty: Path, tmp_path: Path, monkeypatch: Any) -> None:
    """A puzzle only one place has is found there, in serve's order: --puzzles, then
    CRUEL_PUZZLES, then ./puzzles, then the data folder."""
    day = far_day()[2]  # hard: a day the package does not have
    log = write_log(empty / "won.json", day)
    base = ("verify", "--puzzle-id", day.id, str(log))

    def holding(folder: Path, puzzle: Puzzle | None = day) -> Path:
        (folder / "2031").mkdir(parents=True, exist_ok=True)
        if puzzle is not None:
            (folder / "2031" / f"{puzzle.id}.json").write_bytes(puzzle_bytes(puzzle))
        return folder

    holding(tmp_path / "xdg" / "cruel-tools" / "puzzles")
    assert cli(*base).exit_code == 0  # the data folder has it
    cwd_set = holding(empty / "puzzles", None)
    lacking = cli(*base)  # ./puzzles comes first, and lacks it
    assert lacking.exit_code == 2
    assert lacking.stderr == f"error: no puzzle '{day.id}' in {cwd_set}\n"
    holding(cwd_set)
    assert cli(*base).exit_code == 0
    by_env = holding(tmp_path / "by-env", None)
    monkeypatch.setenv("CRUEL_PUZZLES", str(by_env))  # before ./puzzles
    assert cli(*base).stderr == f"error: no puzzle '{day.id}' in {by_env}\n"
    holding(by_env)
    assert cli(*base).exit_code == 0
    given = holding(tmp_path / "given", None)  # --puzzles: before all
    assert cli(*base, "--puzzles", str(given)).stderr == f"error: no puzzle '{day.id}' in {given}\n"


def test_puzzle_options_refuse_what_does_not_go_together(empty: Path) -> None:
    log = str(write_log(empty / "won.json", packaged()))
    alone = cli("verify", "--puzzles", "puzzles", log)
    assert alone.exit_code == 2
    assert alone.stderr == "error: --puzzles needs --puzzle-id: which puzzle of the set\n"
    both = cli("verify", "--puzzle", str(packaged_file()), "--puzzle-id", PACKAGED_ID, log)
    assert both.stderr == "error: give --puzzle FILE, or --puzzle-id ID (of --puzzles), not both\n"
    unknown = cli("verify", "--puzzle-id", "2027-13-01-easy", log)
    assert unknown.exit_code == 2
    assert unknown.stderr == f"error: no puzzle '2027-13-01-easy' in {packaged_puzzles()}\n"
    folder = cli("verify", "--puzzles", "nowhere", "--puzzle-id", PACKAGED_ID, log)
    assert folder.stderr == "error: nowhere: not a folder of puzzles\n"


def test_ratings_tiers_come_from_the_served_set_and_the_published_days(empty: Path) -> None:
    db = empty / "cruel.sqlite"
    opened = open_stores(db, create=True)
    try:
        with opened.ratings.database.write() as conn:
            for subject in (PACKAGED_ID, f"{FAR.isoformat()}-hard", "9999-01-01-hard"):
                conn.execute(
                    "INSERT INTO ratings (kind, subject, rating, deviation, volatility, games,"
                    " updated_at) VALUES ('puzzle', ?, 1500, 50, 0.06, 30, '2031-05-01')",
                    (subject,),
                )
    finally:
        opened.close()
    publish(db, far_day())
    done = cli("ratings", "--db", str(db), "--json")
    assert done.exit_code == 0, done.output
    rows = {r["tier"]: r for r in orjson.loads(done.stdout)["tiers"]}
    # The packaged hard puzzle and the published one; an id in no set has no tier.
    assert rows["hard"]["rated"] == 2 and rows["easy"]["rated"] == 0


# --- a database as the set ---------------------------------------------------------------------


def test_puzzles_may_name_a_database_and_it_is_only_read(
    store_target: Path | str, empty: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = far_day()
    publish(store_target, day)
    before = files_under(empty)
    log = write_log(empty / "won.json", day[2])
    found = puzzle_sources.open_puzzles(str(store_target))
    assert [p.id for p in found.on(FAR)] == [p.id for p in day]
    assert [puzzle_bytes(p) for p in found.on(FAR)] == [puzzle_bytes(p) for p in day]
    assert puzzle_sources.find_in(puzzle_sources.locate(str(store_target))[0], day[0].id) == day[0]
    valid = cli("verify", "--puzzles", str(store_target), "--puzzle-id", day[2].id, str(log))
    assert valid.exit_code == 0, valid.output
    assert "valid: won" in valid.stdout
    monkeypatch.setenv("CRUEL_PUZZLES", str(store_target))  # the variable may name one too
    assert cli("verify", "--puzzle-id", day[2].id, str(log)).exit_code == 0
    missing = cli("verify", "--puzzle-id", PACKAGED_ID, str(log))
    assert missing.exit_code == 2 and missing.stderr.startswith(f"error: no puzzle '{PACKAGED_ID}'")
    assert files_under(empty) == {**before, "won.json": log.read_bytes()}  # nothing written
    if is_sqlite(store_target):
        assert not Path(f"{store_target}-wal").exists()


def test_a_database_cruel_tools_never_laid_out_is_no_such_database(
    store_target: Path | str,
) -> None:
    if is_sqlite(store_target):  # an SQLite file of someone else's
        import sqlite3

        with sqlite3.connect(store_target) as other:
            other.execute("CREATE TABLE notes (text TEXT)")
        other.close()
    with pytest.raises(NoSuchDatabase):
        puzzle_sources.read_published(store_target)


# --- cruel daily --export ----------------------------------------------------------------------


def test_export_writes_the_published_days_as_cruel_daily_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two days published by the server's publisher (its maker: what `make_day` runs, on the
    small budgets), exported; and the same two days made by `cruel daily --secret-file --out`:
    the same files, byte for byte, index.json too."""

    def maker(day: dt.date, used: frozenset[int], secret: bytes | None) -> list[bytes]:
        made = daily_puzzles(day, used, SMALL, max_candidates=20, secret=secret)
        return [puzzle_bytes(p) for p in made]

    db = tmp_path / "cruel.sqlite"
    server = Publisher(
        store=PublishedDays(db),
        puzzles=PuzzleSet([]),
        today=lambda: FAR,
        ahead=1,
        secret=SECRET,
        stream="secret",
        lock=GenerationLock(db),
        maker=maker,
    )
    while server.step():
        pass
    server.stop()
    server.store.close()
    assert sorted(server.puzzles.by_date) == [FAR, FAR + dt.timedelta(days=1)]

    real = puzzles.daily
    monkeypatch.setattr(
        puzzles, "daily", lambda *a, **k: real(*a, **{**k, "budget": SMALL, "max_candidates": 20})
    )
    secret_file = tmp_path / "site.secret"
    secret_file.write_bytes(SECRET + b"\n")
    made = tmp_path / "made"
    args = ("--secret-file", str(secret_file), "--out", str(made))
    assert cli("daily", "--start", FAR.isoformat(), "--days", "2", *args).exit_code == 0
    exported = tmp_path / "exported"
    done = cli("daily", "--export", str(exported), "--db", str(db))
    assert done.exit_code == 0, done.output
    assert done.stderr.endswith(f"and {exported / 'index.json'}\n")
    assert files_under(exported) == files_under(made)
    assert orjson.loads((exported / "index.json").read_bytes())["key_fingerprint"] == (
        key_fingerprint(SECRET)
    )
    again = cli("daily", "--export", str(exported), "--db", str(db))  # a rerun: the same bytes
    assert again.exit_code == 0 and files_under(exported) == files_under(made)


def test_export_refuses_a_folder_or_database_of_mixed_streams(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"
    publish(db, far_day(), stream=key_fingerprint(SECRET) or "")
    public_set = tmp_path / "public"
    public_set.mkdir()
    (public_set / "index.json").write_bytes(b'{"format": "cruel-puzzle-index/1", "puzzles": []}\n')
    refused = cli("daily", "--export", str(public_set), "--db", str(db))
    assert refused.exit_code == 2 and "without a secret" in refused.stderr
    assert sorted(p.name for p in public_set.iterdir()) == ["index.json"]
    publish(db, far_day(FAR + dt.timedelta(days=1)), stream=PUBLIC_STREAM)
    mixed = cli("daily", "--export", str(tmp_path / "out"), "--db", str(db))
    assert mixed.exit_code == 2 and "published from several streams" in mixed.stderr
    assert not (tmp_path / "out").exists()


def test_export_options(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"
    open_stores(db, create=True).close()
    nothing = cli("daily", "--export", str(tmp_path / "out"), "--db", str(db))
    assert nothing.exit_code == 0 and nothing.stderr == f"{db}: no day published: nothing written\n"
    assert not (tmp_path / "out").exists()
    alone = cli("daily", "--db", str(db))
    assert alone.exit_code == 2 and alone.stderr.startswith("error: --db goes with --export DIR")
    mixed = cli("daily", "--export", "out", "--start", "2031-05-01", "--db", str(db))
    assert mixed.exit_code == 2 and mixed.stderr.startswith("error: --export writes the days")


# --- read-only commands never create -----------------------------------------------------------

READERS = [
    ["keys", "list"],
    ["keys", "revoke", "1"],
    ["keys", "add", "--role", "admin", "--name", "ops"],  # without --create
    ["moderate", "queue"],
    ["moderate", "clear", "1", "--as", "1"],
    ["moderate", "reject", "1", "--as", "1"],
    ["ratings"],
    ["sweep"],
    ["daily", "--export", "exported"],
]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.chdir(folder)
    yield folder


@pytest.mark.parametrize("command", READERS, ids=" ".join)
@pytest.mark.parametrize("how", ["missing", "empty"])
def test_a_command_given_a_database_not_there_refuses_and_makes_nothing(
    site: Path, command: list[str], how: str
) -> None:
    if how == "empty":
        (site / "typo.sqlite").touch()  # SQLite would take it for a new database
    done = cli(*command, "--db", "typo.sqlite")
    assert done.exit_code == 2, done.output
    create = "; or give --create" if command[:2] == ["keys", "add"] else ""
    expected = f"error: --db typo.sqlite: no such database (cruel serve creates one{create})\n"
    assert done.stderr == expected and done.stdout == ""
    left = {p.name: p.stat().st_size for p in site.iterdir()}
    assert left == ({} if how == "missing" else {"typo.sqlite": 0})  # no .state, no -wal


@pytest.mark.parametrize("command", READERS[:2] + READERS[6:], ids=" ".join)
def test_a_postgresql_database_never_laid_out_is_refused_and_stays_empty(
    store_target: Path | str, command: list[str]
) -> None:
    if is_sqlite(store_target):
        pytest.skip("PostgreSQL: the database exists, cruel-tools' tables do not")
    import psycopg

    done = cli(*command, "--db", str(store_target))
    assert done.exit_code == 2 and "no such database (cruel serve creates one)" in done.stderr
    with psycopg.connect(str(store_target)) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchone()
    assert tables == (0,)


def test_keys_add_create_makes_the_database_as_serve_does(site: Path) -> None:
    bad = cli("keys", "add", "--role", "root", "--name", "x", "--db", "new.sqlite", "--create")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: unknown role 'root'")
    assert list(site.iterdir()) == []  # a refused request makes no database
    made = cli("keys", "add", "--role", "admin", "--name", "ops", "--db", "new.sqlite", "--create")
    assert made.exit_code == 0, made.output
    assert (site / "new.sqlite").exists() and (site / "new.sqlite.state").exists()
    listed = cli("keys", "list", "--db", "new.sqlite")
    assert listed.exit_code == 0 and "ops" in listed.stdout
    again = cli("keys", "add", "--role", "site", "--name", "web", "--db", "new.sqlite", "--create")
    assert again.exit_code == 0 and again.stdout.startswith("id 2\n")  # the same database


def test_a_database_gone_beside_its_state_file_says_so_to_every_command(site: Path) -> None:
    open_stores(site / "cruel.sqlite", create=True).close()
    (site / "cruel.sqlite").unlink()
    for command in (["keys", "list"], ["keys", "add", "--role", "site", "--name", "w", "--create"]):
        done = cli(*command, "--db", "cruel.sqlite")
        assert done.exit_code == 2 and "is missing, but cruel.sqlite.state says" in done.stderr
    assert not (site / "cruel.sqlite").exists()


def test_open_stores_without_create_raises_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(NoSuchDatabase, match="no such database"):
        open_stores(tmp_path / "nope.sqlite", create=False)
    assert list(tmp_path.iterdir()) == []
    open_stores(tmp_path / "yes.sqlite", create=True).close()
    open_stores(tmp_path / "yes.sqlite", create=False).close()  # there now: opened


def test_serve_given_a_database_as_its_puzzles_says_to_give_it_as_db(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite"
    open_stores(db, create=True).close()
    result = runner.invoke(app, ["serve", "--puzzles", str(db), "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: --puzzles {db}: a database: cruel serve serves the days published into its own "
        "--db (give it as --db; --puzzles takes a folder of puzzle files)\n"
    )
    assert not (tmp_path / "x.db").exists()  # refused before any database is opened
