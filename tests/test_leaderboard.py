"""Submissions and leaderboards (cruel_tools.site.leaderboard), without HTTP."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from cruel_tools.game.game import REDEAL, Move
from cruel_tools.game.log import Limits, LogFormatError, compact, load, to_step
from cruel_tools.puzzles import Puzzle
from cruel_tools.site.database import Connection, StoreBusy, StoreError, WouldWait
from cruel_tools.site.judging import Submission, game_id, judge, parse_submission
from cruel_tools.site.leaderboard import Leaderboards
from cruel_tools.site.tables import DB_VERSION, rebuild_tallies

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import is_sqlite, store_target

__all__ = ["store_target"]  # the fixture: every test of `boards` runs on both engines

PUZZLE_ID = "2027-01-02-easy"
OPEN = dt.date(2027, 1, 2)  # the puzzle's own date: still open
NOW = dt.datetime(2027, 1, 2, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def puzzle() -> Puzzle:
    found: Puzzle = published_puzzles().get(PUZZLE_ID)
    return found


@pytest.fixture
def boards(store_target: Path | str) -> Iterator[Leaderboards]:
    store = Leaderboards(store_target)
    yield store
    store.close()


def sub(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc)


def submission(player: str, log: dict[str, Any]) -> Submission:
    return parse_submission(sub({"player": player, "log": log}))


def format_error(data: bytes, limits: Limits = Limits()) -> LogFormatError:
    with pytest.raises(LogFormatError) as info:
        parse_submission(data, limits)
    return info.value


# --- reading submissions -------------------------------------------------------------------------


def test_parse_submission_reads_both_spellings_and_optional_format(puzzle: Puzzle) -> None:
    for log in (puzzle_log(puzzle), puzzle_log(puzzle, compact=True)):
        got = parse_submission(sub({"player": "ada", "log": log}))
        assert got.player == "ada"
        expected = load(orjson.dumps(puzzle_log(puzzle))).steps()
        assert list(map(compact, got.log.steps())) == list(map(compact, expected))
    explicit = {"format": "cruel-submission/1", "player": "ada", "log": puzzle_log(puzzle)}
    assert parse_submission(sub(explicit)).format == "cruel-submission/1"


@pytest.mark.parametrize(
    ("body", "code", "path", "words"),
    [
        (b"{", "not-json", "", "not JSON"),
        (b"[]", "schema", "/", "a submission is a JSON object"),
        (b'{"log": {}}', "schema", "/player", "required key 'player'"),
        (b'{"player": "a"}', "schema", "/log", "required key 'log'"),
        (b'{"player": "a", "log": {}, "x": 1}', "schema", "/x", "unknown key 'x'"),
        (b'{"format": "cruel-submission/2", "player": "a", "log": {}}', "schema", "/format", ""),
        (b'{"player": "a", "log": []}', "schema", "/log", "a log is a JSON object"),
        (b'{"player": "a", "log": {"format": "cruel-log/1"}}', "schema", "/log/deal", "'deal'"),
        (
            b'{"player": "a", "log": {"format": "cruel-log/1", "deal": {"number": 1}, "moves": ["3Q"]}}',
            "schema",
            "/log/moves/0",
            "not a move",
        ),
    ],
)
def test_parse_submission_errors_point_into_the_submission(
    body: bytes, code: str, path: str, words: str
) -> None:
    err = format_error(body)
    assert (err.code, err.path) == (code, path)
    assert words in err.message


@pytest.mark.parametrize(
    "name",
    [
        *("", " ada", "ada ", "a\nb", "a\tb", "\x7f", "a\x85b", "a\u2028b", "x" * 65, 7, None),
        # invisible: zero-width space and joiner, a direction override, the BOM, a tag character
        *("ada\u200b", "\u200d", "ada\u200c", "a\u202eb", "\ufeffada", "a\U000e0041", "a\xadb"),
        # what the old filter let through: a musical format character, a filler, the CGJ
        *("ada\U0001d173", "ada\u3164", "ada\u034f", "👩‍💻 dev", "ada  lovelace"),
    ],
)
def test_bad_player_names_are_refused(name: object) -> None:
    err = format_error(orjson.dumps({"player": name, "log": {}}))
    assert (err.code, err.path) == ("bad-player-name", "/player")
    assert err.message.startswith("player name")


@pytest.mark.parametrize(
    "name", ["ada", "Ada Lovelace", "名前", "x" * 64, "a-b_c.d", "Zoë", "محمد"]
)
def test_good_player_names_pass(name: str, puzzle: Puzzle) -> None:
    assert submission(name, puzzle_log(puzzle)).player == name


def test_a_name_is_stored_in_its_enforced_form(boards: Leaderboards, puzzle: Puzzle) -> None:
    assert submission("Jose\u0301", puzzle_log(puzzle)).player == "Jos\xe9"  # NFC
    assert submission("\uff41\uff44\uff41", puzzle_log(puzzle)).player == "ada"  # full width
    first = boards.submit(puzzle, submission("Jos\xe9", puzzle_log(puzzle)), NOW, OPEN)
    again = boards.submit(puzzle, submission("Jose\u0301", puzzle_log(puzzle)), NOW, OPEN)
    assert first.accepted and again.duplicate and again.player == "Jos\xe9"


def test_a_lookalike_of_an_existing_player_is_refused(boards: Leaderboards, puzzle: Puzzle) -> None:
    assert boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN).accepted
    fake = boards.submit(puzzle, submission("\u0430da", puzzle_log(puzzle)), NOW, OPEN)
    assert not fake.accepted and fake.reason is not None
    assert (fake.reason.code, fake.reason.path) == ("player-name-confusable", "/player")
    assert fake.reason.message == (
        "player name '\u0430da' (Cyrillic \u0430) looks like existing player 'ada'"
    )
    ada = boards.submit(puzzle, submission("Ada", puzzle_log(puzzle)), NOW, OPEN)
    assert ada.reason is not None and ada.reason.code == "player-name-confusable"
    assert boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN).duplicate
    assert boards.leaderboard(puzzle.id).total == 1


def test_a_version_1_database_gets_its_players(tmp_path: Path, puzzle: Puzzle) -> None:
    path = tmp_path / "lb.sqlite"
    with sqlite3.connect(path) as db:  # the layout of version 1, with two lookalike names
        db.executescript(
            "CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, puzzle TEXT NOT NULL,"
            " player TEXT NOT NULL, game TEXT NOT NULL, moves INTEGER NOT NULL, redeals INTEGER"
            " NOT NULL, log TEXT NOT NULL, submitted_at TEXT NOT NULL, UNIQUE (puzzle, player,"
            " game)); PRAGMA user_version = 1;"
        )
        for k, name in enumerate(["ada", "\u0430da", "ada"]):
            db.execute(
                "INSERT INTO submissions (puzzle, player, game, moves, redeals, log, submitted_at)"
                " VALUES ('other', ?, ?, 70, 3, '', '2026-12-01T00:00:00+00:00')",
                (name, str(k)),
            )
    boards = Leaderboards(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == DB_VERSION
        plan = " ".join(
            map(
                str,
                db.execute(
                    "EXPLAIN QUERY PLAN SELECT player FROM players WHERE skeleton = 'x'"
                ).fetchall(),
            )
        )
        assert "players_skeleton" in plan
    # Both names were there before the check: both stay players; a third spelling is refused.
    for name in ("ada", "\u0430da"):
        assert boards.submit(puzzle, submission(name, puzzle_log(puzzle)), NOW, OPEN).accepted
    third = boards.submit(puzzle, submission("\u0430d\u0430", puzzle_log(puzzle)), NOW, OPEN)
    assert third.reason is not None and "looks like existing player 'ada'" in third.reason.message
    boards.close()


def test_limits_apply_to_the_submission_and_its_log(puzzle: Puzzle) -> None:
    body = sub({"player": "a", "log": puzzle_log(puzzle)})
    assert format_error(body, Limits(max_bytes=100)).code == "too-large"
    err = format_error(body, Limits(max_moves=10))
    assert (err.code, err.path) == ("too-many-moves", "/log/moves")


def test_the_same_game_however_spelled_has_one_id(puzzle: Puzzle) -> None:
    plain = load(orjson.dumps(puzzle_log(puzzle)))
    compact = load(orjson.dumps(puzzle_log(puzzle, compact=True)))
    noted = load(orjson.dumps({**puzzle_log(puzzle), "meta": {"x": 1}, "claim": {"moves": 69}}))
    assert game_id(plain) == game_id(compact) == game_id(noted)
    shorter = load(orjson.dumps(puzzle_log(puzzle, plain.steps()[:-1])))
    assert game_id(shorter) != game_id(plain)


# --- the store -----------------------------------------------------------------------------------


def test_a_win_is_stored_and_ranked(boards: Leaderboards, puzzle: Puzzle) -> None:
    result = boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    assert result.accepted and not result.duplicate
    assert (result.submission_id, result.rank) == (1, 1)
    assert (result.moves, result.redeals) == (puzzle.par.moves, puzzle.par.redeals)
    assert result.submitted_at == NOW
    assert result.reason is None and result.report.valid
    board = boards.leaderboard(puzzle.id)
    assert board.total == 1 and board.entries[0].player == "ada"
    assert boards.count() == 1


def test_the_same_game_again_is_not_a_second_entry(boards: Leaderboards, puzzle: Puzzle) -> None:
    first = boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    later = NOW + dt.timedelta(hours=1)
    again = boards.submit(puzzle, submission("ada", puzzle_log(puzzle, compact=True)), later, OPEN)
    assert again.accepted and again.duplicate
    assert (again.submission_id, again.submitted_at) == (first.submission_id, first.submitted_at)
    other = boards.submit(puzzle, submission("bob", puzzle_log(puzzle)), later, OPEN)
    assert not other.duplicate and other.submission_id == 2 and other.rank == 1  # a tie: shared
    assert boards.leaderboard(puzzle.id).total == 2


def test_a_different_win_of_the_same_player_is_a_new_entry(
    boards: Leaderboards, puzzle: Puzzle
) -> None:
    steps = other_win(puzzle, seed=1)
    boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    second = boards.submit(puzzle, submission("ada", puzzle_log(puzzle, steps)), NOW, OPEN)
    assert second.accepted and not second.duplicate
    assert boards.leaderboard(puzzle.id).total == 2
    best = boards.leaderboard(puzzle.id, best_per_player=True)
    assert best.total == 1 and best.best_per_player


def moves_redeals(steps: list[Any]) -> tuple[int, int]:
    return sum(isinstance(s, Move) for s in steps), sum(s == REDEAL for s in steps)


def score(steps: list[Any]) -> tuple[int, int]:
    """The leaderboard's score of a game: (actions, redeals), lower is better."""
    moves, redeals = moves_redeals(steps)
    return moves + redeals, redeals


def test_ranking_is_actions_then_redeals_and_ties_share_a_rank(
    boards: Leaderboards, puzzle: Puzzle
) -> None:
    par = load(orjson.dumps(puzzle_log(puzzle))).steps()
    games = {tuple(par)}
    for seed in range(2, 40):
        games.add(tuple(other_win(puzzle, seed)))
        if len(games) >= 5:
            break
    wins = [list(g) for g in games]
    assert len({score(g) for g in wins}) >= 2, "need wins of different lengths"
    for k, steps in enumerate(wins):
        result = boards.submit(puzzle, submission(f"p{k}", puzzle_log(puzzle, steps)), NOW, OPEN)
        assert result.actions == sum(moves_redeals(steps))
    boards.submit(puzzle, submission("late", puzzle_log(puzzle, wins[0])), NOW, OPEN)
    entries = boards.leaderboard(puzzle.id).entries
    assert all(e.actions == e.moves + e.redeals for e in entries)
    keys = [(e.actions, e.redeals, e.submission_id) for e in entries]
    assert keys == sorted(keys)
    scores = [(e.actions, e.redeals) for e in entries]
    # Standard competition ranking: 1 + the entries with a strictly better score.
    assert [e.rank for e in entries] == [1 + sum(s < score for s in scores) for score in scores]
    assert len(entries) == len(wins) + 1


def test_equal_games_an_hour_apart_share_rank_1_and_a_worse_one_is_3(
    boards: Leaderboards, puzzle: Puzzle
) -> None:
    par = load(orjson.dumps(puzzle_log(puzzle))).steps()
    worse = next(
        steps for seed in range(1, 60) if score(steps := other_win(puzzle, seed)) > score(par)
    )
    early = boards.submit(puzzle, submission("early", puzzle_log(puzzle)), NOW, OPEN)
    later = NOW + dt.timedelta(hours=1)
    bad = boards.submit(puzzle, submission("worse", puzzle_log(puzzle, worse)), later, OPEN)
    late = boards.submit(puzzle, submission("late", puzzle_log(puzzle)), later, OPEN)
    assert (early.rank, bad.rank, late.rank) == (1, 2, 1)  # bad was 2nd of 2 when it came
    entries = boards.leaderboard(puzzle.id).entries
    assert [(e.player, e.rank) for e in entries] == [("early", 1), ("late", 1), ("worse", 3)]
    # The answer to a duplicate gives the current rank, by the same rule.
    again = boards.submit(puzzle, submission("worse", puzzle_log(puzzle, worse)), later, OPEN)
    assert again.duplicate and again.rank == 3


def test_paging(boards: Leaderboards, puzzle: Puzzle) -> None:
    for k in range(7):
        boards.submit(puzzle, submission(f"p{k}", puzzle_log(puzzle)), NOW, OPEN)
    page = boards.leaderboard(puzzle.id, limit=3, offset=3)
    assert page.total == 7 and page.offset == 3
    assert [e.rank for e in page.entries] == [1, 1, 1]  # one tie: a page inside it shows rank 1
    assert [e.player for e in page.entries] == ["p3", "p4", "p5"]
    assert boards.leaderboard(puzzle.id, limit=3, offset=6).entries[0].player == "p6"
    assert boards.leaderboard(puzzle.id, offset=50).entries == []
    assert boards.leaderboard(puzzle.id, limit=10**6).total == 7  # clamped, not refused
    assert boards.leaderboard("no-such-puzzle").total == 0


def test_paging_through_a_tie_shows_its_shared_rank(boards: Leaderboards, puzzle: Puzzle) -> None:
    par = load(orjson.dumps(puzzle_log(puzzle))).steps()
    worse = next(
        steps for seed in range(1, 60) if score(steps := other_win(puzzle, seed)) > score(par)
    )
    boards.submit(puzzle, submission("w0", puzzle_log(puzzle, worse)), NOW, OPEN)
    for k in range(4):  # a tie of four, after a worse entry submitted first
        boards.submit(puzzle, submission(f"t{k}", puzzle_log(puzzle)), NOW, OPEN)
    boards.submit(puzzle, submission("w1", puzzle_log(puzzle, worse)), NOW, OPEN)
    whole = boards.leaderboard(puzzle.id)
    expected = [("t0", 1), ("t1", 1), ("t2", 1), ("t3", 1), ("w0", 5), ("w1", 5)]
    assert [(e.player, e.rank) for e in whole.entries] == expected
    for limit in (1, 2, 3, 4):
        for offset in range(len(expected)):
            page = boards.leaderboard(puzzle.id, limit=limit, offset=offset)
            got = [(e.player, e.rank) for e in page.entries]
            assert got == expected[offset : offset + limit], (limit, offset)
    # best_per_player: w0 and w1 are other players; t0 also submits the worse game, which
    # is not its best, so it does not count and does not move anyone.
    boards.submit(puzzle, submission("t0", puzzle_log(puzzle, worse)), NOW, OPEN)
    best = boards.leaderboard(puzzle.id, best_per_player=True)
    assert [(e.player, e.rank) for e in best.entries] == expected
    page = boards.leaderboard(puzzle.id, limit=2, offset=5, best_per_player=True)
    assert [(e.player, e.rank) for e in page.entries] == [("w1", 5)]
    page = boards.leaderboard(puzzle.id, limit=2, offset=4, best_per_player=True)
    assert [(e.player, e.rank) for e in page.entries] == [("w0", 5), ("w1", 5)]
    # Without best_per_player, t0's worse game is a third entry in the tie at 5.
    tail = boards.leaderboard(puzzle.id, offset=5).entries
    assert [(e.player, e.rank) for e in tail] == [("w1", 5), ("t0", 5)]


def test_an_illegal_game_is_rejected_at_its_move(boards: Leaderboards, puzzle: Puzzle) -> None:
    log = puzzle_log(puzzle)
    log["moves"] = log["moves"][:3] + ["1-1"] + log["moves"][3:]
    result = boards.submit(puzzle, submission("ada", log), NOW, OPEN)
    assert not result.accepted and result.submission_id is None and result.rank is None
    assert result.reason is not None
    assert (result.reason.code, result.reason.path) == ("same-pile", "/log/moves/3")
    assert result.reason.message.startswith("move 4:")
    assert result.report.error is not None and result.report.error.path == "/moves/3"
    assert boards.count() == 0


def test_a_legal_game_that_does_not_win_is_rejected(boards: Leaderboards, puzzle: Puzzle) -> None:
    log = puzzle_log(puzzle)
    log["moves"] = log["moves"][:10]
    result = boards.submit(puzzle, submission("ada", log), NOW, OPEN)
    assert not result.accepted and result.reason is not None
    assert result.reason.code == "not-a-win" and "in_progress" in result.reason.message
    assert result.report.valid


def test_another_puzzles_game_is_rejected(boards: Leaderboards, puzzle: Puzzle) -> None:
    other = published_puzzles().get("2027-01-03-easy")
    result = boards.submit(puzzle, submission("ada", puzzle_log(other)), NOW, OPEN)
    assert result.reason is not None
    assert (result.reason.code, result.reason.path) == ("puzzle-mismatch", "/log/deal")


def test_a_puzzle_takes_no_entry_before_its_date(boards: Leaderboards, puzzle: Puzzle) -> None:
    # The library keeps the embargo too, not only the service's 404.
    before = OPEN - dt.timedelta(days=1)
    early = boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, before)
    assert not early.accepted and early.reason is not None
    assert early.reason.code == "puzzle-not-open" and early.report.valid
    assert boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN).accepted


def test_a_puzzle_closes_when_its_solution_is_published(
    boards: Leaderboards, puzzle: Puzzle
) -> None:
    after = OPEN + dt.timedelta(days=1)
    closed = boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, after)
    assert not closed.accepted and closed.reason is not None
    assert closed.reason.code == "puzzle-closed" and closed.report.valid
    undated = puzzle.model_copy(update={"date": None, "id": "free-1"})
    result = boards.submit(undated, submission("ada", puzzle_log(puzzle)), NOW, after)
    assert result.accepted


def test_entries_survive_a_restart(store_target: Path | str, puzzle: Puzzle) -> None:
    path = store_target
    first = Leaderboards(path)
    first.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    first.close()
    again = Leaderboards(path)
    assert again.leaderboard(puzzle.id).entries[0].player == "ada"
    assert again.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN).duplicate
    again.close()


def test_a_newer_database_is_refused(store_target: Path | str) -> None:
    if is_sqlite(store_target):
        with sqlite3.connect(store_target) as db:
            db.execute(f"PRAGMA user_version = {DB_VERSION + 1}")
    else:
        Leaderboards(store_target).close()
        import psycopg

        with psycopg.connect(str(store_target), autocommit=True) as pg:
            pg.execute(
                "INSERT INTO cruel_migrations VALUES (%s, 'from the future', 'later')",
                (DB_VERSION + 1,),
            )
    message = f"made by a newer cruel-tools \\(database version {DB_VERSION + 1}, this one knows"
    with pytest.raises(StoreError, match=message):
        Leaderboards(store_target)


def test_postgresql_keeps_its_migrations_and_instances_share_them(store_target: Path | str) -> None:
    if is_sqlite(store_target):
        pytest.skip("PostgreSQL only: its table of migrations")
    import psycopg

    stores = [Leaderboards(store_target) for _ in range(3)]  # three instances starting
    with psycopg.connect(str(store_target), autocommit=True) as pg:
        rows = pg.execute("SELECT version, description FROM cruel_migrations").fetchall()
        assert [v for v, _ in rows] == [4, 5, 6, 7, 8] and DB_VERSION == 8
        tables = {
            r[0]
            for r in pg.execute(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()"
            )
        }
    assert {
        "submissions",
        "players",
        "api_keys",
        "attempts",
        "moderation_audit",
        "score_counts",
    } <= tables
    for store in stores:
        store.close()


def test_an_unreachable_server_is_refused_in_one_line() -> None:
    with pytest.raises(StoreError) as refused:
        Leaderboards("postgresql://nobody@127.0.0.1:1/none", timeout=1)
    message = str(refused.value)
    assert message.startswith("postgresql://nobody@127.0.0.1:1/none: cannot use as a database:")
    assert "\n" not in message


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"these are not the tables you are looking for" * 100)
    with pytest.raises(StoreError, match="cannot use as a database"):
        Leaderboards(path)


def test_racing_submissions_of_one_game_store_it_once(
    store_target: Path | str, puzzle: Puzzle
) -> None:
    # Two stores on one file (or server) stand for two server processes; threads race the same
    # game in.
    path = store_target
    stores = [Leaderboards(path), Leaderboards(path)]
    results: list[Any] = []
    start = threading.Barrier(8)

    def send(k: int) -> None:
        start.wait()
        entry = submission("ada", puzzle_log(puzzle, compact=k % 2 == 0))
        results.append(stores[k % 2].submit(puzzle, entry, NOW, OPEN))

    threads = [threading.Thread(target=send, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8
    assert sum(not r.duplicate for r in results) == 1
    assert {r.submission_id for r in results} == {1}
    assert stores[0].count() == stores[1].count() == 1
    for store in stores:
        store.close()


def test_par_solution_steps_round_trip(puzzle: Puzzle) -> None:
    steps = [to_step(e) for e in puzzle.solution]
    assert moves_redeals(steps) == (puzzle.par.moves, puzzle.par.redeals)


def test_a_write_that_waits_too_long_is_store_busy(tmp_path: Path, puzzle: Puzzle) -> None:
    path = tmp_path / "lb.sqlite"
    boards = Leaderboards(path, timeout=0.2)
    other = sqlite3.connect(path)
    other.execute("BEGIN EXCLUSIVE")  # another process in the middle of a write
    with pytest.raises(StoreBusy, match="busy"):
        boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    judgement = judge(puzzle, submission("ada", puzzle_log(puzzle)), OPEN)
    with pytest.raises(WouldWait):  # asked not to wait: refused at once, not after 0.2 s
        boards.store(judgement, NOW, wait=False)
    other.rollback()
    assert boards.store(judgement, NOW, wait=False).accepted
    assert boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN).duplicate


# --- the score: actions (moves + redeals), then redeals ----------------------------------------


def put(
    boards: Leaderboards, rows: list[tuple[str, int, int, int | None]], puzzle_id: str = PUZZLE_ID
) -> None:
    """Store entries (player, moves, redeals, elapsed_ms) as they would be stored, in this order
    (so ids grow), without playing them: scores no real game of the puzzle need have."""
    with boards.database.write() as db:
        for player, moves, redeals, elapsed in rows:
            db.execute(
                "INSERT INTO submissions (puzzle, player, game, moves, redeals, log, submitted_at,"
                " elapsed_ms) VALUES (?, ?, ?, ?, ?, '', '2027-01-02T00:00:00+00:00', ?)",
                (
                    puzzle_id,
                    player,
                    f"{player} {moves} {redeals} {elapsed}",
                    moves,
                    redeals,
                    elapsed,
                ),
            )
            db.execute("INSERT INTO players VALUES (?, ?) ON CONFLICT DO NOTHING", (player, player))
        rebuild_tallies(db)  # as a bulk load does


def board(boards: Leaderboards, **kwargs: Any) -> list[tuple[str, int, int, int | None]]:
    entries = boards.leaderboard(PUZZLE_ID, **kwargs).entries
    assert all(e.actions == e.moves + e.redeals for e in entries)
    return [(e.player, e.moves, e.redeals, e.rank) for e in entries]


def test_fewest_actions_rank_first_then_fewest_redeals_and_equal_scores_share_a_rank(
    boards: Leaderboards,
) -> None:
    put(
        boards,
        [
            ("six", 58, 6, None),  # 64 actions: fewer moves, but more actions
            ("two", 60, 2, None),  # 62 actions: first
            ("three", 61, 3, None),  # 64 actions, fewer redeals than six's
            ("same", 61, 3, None),  # three's score: three's rank, listed after it
        ],
    )
    assert board(boards) == [
        ("two", 60, 2, 1),
        ("three", 61, 3, 2),
        ("same", 61, 3, 2),
        ("six", 58, 6, 4),
    ]
    # A page starting inside the tie, or after it, counts its rank by the same rule.
    assert board(boards, offset=2) == [("same", 61, 3, 2), ("six", 58, 6, 4)]
    assert board(boards, offset=3) == [("six", 58, 6, 4)]
    boards.close()


def test_a_players_best_entry_is_the_one_with_fewest_actions(boards: Leaderboards) -> None:
    put(
        boards,
        [
            ("ada", 58, 6, None),  # 64 actions
            ("bob", 61, 2, None),  # 63 actions
            ("ada", 60, 2, None),  # 62 actions: ada's best, though not her fewest moves
            ("bob", 59, 5, None),  # 64 actions: not bob's best
            ("cy", 60, 3, None),  # 63 actions, as bob's best but more redeals
        ],
    )
    assert board(boards, best_per_player=True) == [
        ("ada", 60, 2, 1),
        ("bob", 61, 2, 2),
        ("cy", 60, 3, 3),
    ]
    assert board(boards, best_per_player=True, offset=1, limit=1) == [("bob", 61, 2, 2)]
    assert boards.leaderboard(PUZZLE_ID, best_per_player=True).total == 3
    boards.close()


def test_by_time_equal_times_are_listed_by_actions_then_redeals(boards: Leaderboards) -> None:
    put(
        boards,
        [
            ("six", 58, 6, 9000),  # 64 actions
            ("slow", 50, 0, 9500),
            ("two", 60, 2, 9000),  # 62 actions: first of the equal times
            ("three", 61, 3, 9000),  # 64 actions, fewer redeals than six's
            ("untimed", 40, 0, None),
            ("fast", 70, 9, 8000),
            ("fast", 60, 1, 9000),  # slower than fast's best: not listed with best_per_player
        ],
    )
    assert board(boards, by="time") == [
        ("fast", 70, 9, 1),
        ("fast", 60, 1, 2),
        ("two", 60, 2, 2),
        ("three", 61, 3, 2),
        ("six", 58, 6, 2),
        ("slow", 50, 0, 6),
    ]
    assert board(boards, by="time", best_per_player=True) == [
        ("fast", 70, 9, 1),
        ("two", 60, 2, 2),
        ("three", 61, 3, 2),
        ("six", 58, 6, 2),
        ("slow", 50, 0, 5),
    ]
    boards.close()


def test_the_rank_in_an_answer_counts_better_actions(boards: Leaderboards, puzzle: Puzzle) -> None:
    par = puzzle.par
    assert par.redeals >= 1  # so that a score of fewer actions can have more moves
    put(
        boards,
        [
            ("fewer", par.moves + 1, par.redeals - 2 if par.redeals >= 2 else 0, None),
            ("redeal", par.moves + 1, par.redeals - 1, None),  # as many actions, fewer redeals
            ("same", par.moves, par.redeals, None),
            ("more", par.moves - 1, par.redeals + 2, None),  # fewer moves, more actions
        ],
    )
    result = boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    assert result.accepted and result.actions == par.moves + par.redeals
    assert result.rank == 3  # fewer and redeal are better; same shares the rank; more is worse
    boards.close()


def plans(boards: Leaderboards, action: Callable[[], object]) -> list[str]:
    """The query plans (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN) of the SELECT
    statements ``action`` runs, with the values they were run with."""
    seen: list[tuple[str, tuple[Any, ...]]] = []
    execute = Connection.execute

    def record(self: Connection, sql: str, params: Any = ()) -> Any:
        if sql.lstrip().upper().startswith("SELECT"):
            seen.append((sql, tuple(params)))
        return execute(self, sql, params)

    Connection.execute = record  # type: ignore[method-assign]
    try:
        action()
    finally:
        Connection.execute = execute  # type: ignore[method-assign]
    found = []
    with boards.database.read() as db:
        for sql, params in seen:
            if db.dialect.postgres:
                rows = db.execute(f"EXPLAIN {sql}", params).fetchall()
                found.append(" | ".join(str(row[0]).strip() for row in rows))
            else:
                rows = db.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
                found.append(" ".join(str(row[3]) for row in rows))
    return found


def test_every_ranking_query_reads_an_index_of_its_order(tmp_path: Path) -> None:
    boards = Leaderboards(tmp_path / "lb.sqlite")
    put(boards, [(f"p{k % 13}", 60 + k % 7, k % 3, 1000 + k % 5) for k in range(40)])
    for best in (False, True):
        for by in ("actions", "time"):
            total, page, rank = plans(
                boards,
                lambda best=best, by=by: boards.leaderboard(  # type: ignore[misc]
                    PUZZLE_ID, offset=3, best_per_player=best, by=by
                ),
            )
            # The total is a sum over the puzzle's tallied scores; the page is read in the
            # order of an index, with no sort of its own (a player's best: their row of
            # player_best, then the entry by its id); the rank of its first entry is a sum over
            # the tallies (by actions) or a count over the index of the order (by time).
            assert (
                total
                == "SEARCH score_counts USING INDEX sqlite_autoindex_score_counts_1 (puzzle=?)"
            ), total
            index = {
                (False, "actions"): "submissions_score",
                (False, "time"): "submissions_timed",
                (True, "actions"): "player_best_score",
                (True, "time"): "player_best_time",
            }[best, by]
            assert index in page and "TEMP B-TREE" not in page, page
            assert ("SEARCH s USING INTEGER PRIMARY KEY" in page) == best, page
            if by == "actions":
                assert "score_counts" in rank and "(actions,redeals)<(?,?)" in rank, rank
            else:
                assert index in rank, rank
    boards.close()


def test_postgresql_plans_read_the_indexes_at_20000_entries(store_target: Path | str) -> None:
    if is_sqlite(store_target):
        pytest.skip("PostgreSQL only: SQLite's plans are the test above's")
    boards = Leaderboards(store_target)
    count = 20_000
    with boards.database.write() as db:
        db.executemany(
            "INSERT INTO submissions (puzzle, player, game, moves, redeals, log, submitted_at,"
            " elapsed_ms) VALUES (?, ?, ?, ?, ?, '', '2027-01-02T00:00:00+00:00', ?)",
            [
                (
                    PUZZLE_ID,
                    f"p{k % 4000}",
                    f"g{k}",
                    52 + k * 7919 % 90,
                    k % 3,
                    1000 + k * 104729 % 900_000,
                )
                for k in range(count)
            ],
        )
        rebuild_tallies(db)
    with boards.database.write() as db:
        db.execute("ANALYZE")
    assert boards.leaderboard(PUZZLE_ID).total == count
    for best in (False, True):
        for by in ("actions", "time"):
            total, page, rank = plans(
                boards,
                lambda best=best, by=by: boards.leaderboard(  # type: ignore[misc]
                    PUZZLE_ID, best_per_player=best, by=by
                ),
            )
            # A sum over the puzzle's tallied scores (a few rows: a scan of them is cheapest).
            assert "score_counts" in total and "submissions" not in total, total
            index = {
                (False, "actions"): "submissions_score",
                (False, "time"): "submissions_timed",
                (True, "actions"): "player_best_score",
                (True, "time"): "player_best_time",
            }[best, by]
            # Read in the index's order: no sort, no scan of the entries (the moderation tables,
            # empty here, may be scanned).
            assert index in page and "Sort  (" not in page, page
            assert "Seq Scan on submissions" not in page, page
            if by == "actions":
                assert "score_counts" in rank and "submissions" not in rank, rank
            else:
                assert "Seq Scan on submissions" not in rank, rank
    boards.close()


#: The layout of database version 3 (cruel_tools/site/leaderboard.py and moderation.py at 5e0d9b5).
V3_SCHEMA = """
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, puzzle TEXT NOT NULL, player TEXT NOT NULL,
    game TEXT NOT NULL, moves INTEGER NOT NULL, redeals INTEGER NOT NULL, log TEXT NOT NULL,
    submitted_at TEXT NOT NULL, elapsed_ms INTEGER, UNIQUE (puzzle, player, game)
);
CREATE INDEX submissions_rank ON submissions (puzzle, moves, redeals, id);
CREATE INDEX submissions_player ON submissions (player, id);
CREATE TABLE players (player TEXT PRIMARY KEY, skeleton TEXT NOT NULL);
CREATE INDEX players_skeleton ON players (skeleton);
CREATE INDEX submissions_time ON submissions (puzzle, elapsed_ms, moves, redeals, id)
    WHERE elapsed_ms IS NOT NULL;
CREATE TABLE hidden_submissions (submission INTEGER PRIMARY KEY, hidden_at TEXT NOT NULL);
CREATE TABLE banned_players (player TEXT PRIMARY KEY, banned_at TEXT NOT NULL);
CREATE TABLE moderation_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, key_id INTEGER NOT NULL,
    key_name TEXT NOT NULL, action TEXT NOT NULL, changed INTEGER NOT NULL, submission INTEGER,
    player TEXT NOT NULL, reason TEXT, record TEXT
);
CREATE VIEW visible_submissions AS
    SELECT * FROM submissions AS s
    WHERE NOT EXISTS (SELECT 1 FROM hidden_submissions AS h WHERE h.submission = s.id)
      AND NOT EXISTS (SELECT 1 FROM banned_players AS b WHERE b.player = s.player);
PRAGMA user_version = 3;
"""


def test_a_version_3_database_is_upgraded_and_ranks_by_actions(
    tmp_path: Path, puzzle: Puzzle
) -> None:
    path = tmp_path / "lb.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(V3_SCHEMA)
    with sqlite3.connect(path) as db:
        for k, (player, moves, redeals, elapsed) in enumerate(
            [("six", 58, 6, 9000), ("two", 60, 2, 9000), ("hidden", 40, 0, None)]
        ):
            db.execute(
                "INSERT INTO submissions (puzzle, player, game, moves, redeals, log,"
                " submitted_at, elapsed_ms) VALUES (?, ?, ?, ?, ?, '', '2027-01-02T00:00:00+00:00', ?)",
                (PUZZLE_ID, player, f"g{k}", moves, redeals, elapsed),
            )
            db.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (player, player))
        db.execute("INSERT INTO hidden_submissions VALUES (3, '2027-01-02T00:00:00+00:00')")
    boards = Leaderboards(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == DB_VERSION == 8
        indexes = {
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        }
        assert {
            "submissions_score",
            "submissions_best",
            "submissions_timed",
            "submissions_best_timed",
        } <= indexes
        assert not {"submissions_rank", "submissions_time"} & indexes
        actions = db.execute("SELECT player, actions FROM visible_submissions ORDER BY id")
        assert actions.fetchall() == [("six", 64), ("two", 62)]
    assert board(boards) == [("two", 60, 2, 1), ("six", 58, 6, 2)]
    assert board(boards, by="time") == [("two", 60, 2, 1), ("six", 58, 6, 1)]
    _, page, rank = plans(boards, lambda: boards.leaderboard(PUZZLE_ID, offset=1))
    assert "submissions_score" in page and "score_counts" in rank, (page, rank)
    # New entries go in with their actions, ranked with the old ones.
    result = boards.submit(puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    assert result.accepted and result.submission_id == 4
    assert result.rank == 1 + sum(a < (result.actions or 0) for a in (62, 64))
    before = board(boards)
    boards.close()
    again = Leaderboards(path)  # opening a version 5 file changes nothing
    assert board(again) == before
    again.close()


# --- versus par ---------------------------------------------------------------------------------


def with_par(puzzle: Puzzle, actions: int, optimal: bool, lower_bound: int) -> Puzzle:
    par = puzzle.par.model_copy(
        update={"actions": actions, "optimal": optimal, "lower_bound": lower_bound}
    )
    return puzzle.model_copy(update={"par": par})


@pytest.mark.parametrize(
    ("change", "optimal", "lower_bound", "versus", "proven"),
    [
        (0, True, 0, 0, True),  # at par, and par is proven optimal
        (-1, True, -1, 1, False),  # one over an optimal par
        (0, False, -5, 0, False),  # at par, not proven the fewest
        (2, False, 0, -2, True),  # under an unproven par, at its lower bound: proven optimal
        (3, False, -1, -3, False),  # under par, above the lower bound
    ],
)
def test_an_accepted_answer_says_how_far_from_par_and_whether_optimal(
    boards: Leaderboards,
    puzzle: Puzzle,
    change: int,
    optimal: bool,
    lower_bound: int,
    versus: int,
    proven: bool,
) -> None:
    played = puzzle.par.moves + puzzle.par.redeals  # the par solution's actions, submitted
    graded = with_par(puzzle, played + change, optimal, played + lower_bound)
    result = boards.submit(graded, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    assert result.accepted and result.actions == played
    assert (result.par_actions, result.versus_par, result.optimal) == (
        played + change,
        versus,
        proven,
    )
    again = boards.submit(graded, submission("ada", puzzle_log(puzzle)), NOW, OPEN)
    assert again.duplicate and (again.versus_par, again.optimal) == (versus, proven)


def test_a_rejected_answer_has_no_par_verdict(boards: Leaderboards, puzzle: Puzzle) -> None:
    log = puzzle_log(puzzle)
    log["moves"] = log["moves"][:5]
    result = boards.submit(puzzle, submission("ada", log), NOW, OPEN)
    assert not result.accepted and result.reason is not None
    assert result.actions == (result.moves or 0) + (result.redeals or 0)
    assert (result.par_actions, result.versus_par, result.optimal) == (None, None, None)
    closed = boards.submit(
        puzzle, submission("ada", puzzle_log(puzzle)), NOW, OPEN + dt.timedelta(1)
    )
    assert closed.reason is not None and closed.reason.code == "puzzle-closed"
    assert (closed.par_actions, closed.versus_par, closed.optimal) == (None, None, None)
