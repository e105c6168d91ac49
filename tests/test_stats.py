"""`cruel_tools.game.stats` and `cruel stats`: a player's record from hand-built logs over several days.

Logs are built from the samples: ``won.json`` (deal 1 won in 56 card moves) with only its ``meta``
changed, one log of deal 34 from the benchmark data (won in 53 card moves), ``blocked.json`` (a
valid loss, 21 foundation cards), the first 5 entries of ``won.json`` without a claim (valid,
in progress, 6 foundation cards) and ``illegal.json`` (invalid, ``wrong-rank``).
"""

from __future__ import annotations

import copy
import datetime as dt
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator, FormatChecker
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.errors import problem
from cruel_tools.game.inputs import iter_units
from cruel_tools.game.stats import Excluded, Record, record, table
from cruel_tools.game.verify import Source, verify_bytes

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
D = dt.date

runner = CliRunner()


# --- builders -----------------------------------------------------------------------------------


def _sample(name: str) -> dict[str, Any]:
    return orjson.loads((SAMPLES / name).read_bytes())


WON = _sample("won.json")  # deal 1, won: 56 card moves, 52 foundation cards
BLOCKED = _sample("blocked.json")  # deal 2, blocked: 28 card moves, 21 foundation cards
ILLEGAL = _sample("illegal.json")  # wrong-rank at move 11


def _deal_34_win() -> dict[str, Any]:
    # A win with fewer moves than won.json, so "fewest moves" is really a minimum.
    return orjson.loads((ROOT / "tests" / "data" / "won-deal-34.json").read_bytes())  # type: ignore[no-any-return]


WON_34 = _deal_34_win()  # deal 34, won: 53 card moves


def with_meta(base: dict[str, Any], **meta: Any) -> dict[str, Any]:
    """``base`` with its meta replaced by ``meta`` (no meta key at all when ``meta`` is empty)."""
    obj = copy.deepcopy(base)
    obj.pop("meta", None)
    if meta:
        obj["meta"] = meta
    return obj


def won(**meta: Any) -> dict[str, Any]:
    return with_meta(WON, **meta)


def blocked(**meta: Any) -> dict[str, Any]:
    return with_meta(BLOCKED, **meta)


def in_progress(**meta: Any) -> dict[str, Any]:
    obj = with_meta(WON, **meta)
    obj["moves"] = obj["moves"][:5]
    del obj["claim"]
    return obj


def units(*logs: tuple[str, dict[str, Any] | bytes]) -> list[tuple[Source, bytes]]:
    return [
        (Source(file=name), data if isinstance(data, bytes) else orjson.dumps(data))
        for name, data in logs
    ]


def day(d: str, hh: int = 10, mm: int = 0, ss: int = 0, tz: str = "Z") -> str:
    return f"{d}T{hh:02d}:{mm:02d}:{ss:02d}{tz}"


# The streak scenario: wins on 01-01, 01-02, 01-03, nothing on 01-04, wins on 01-05 and 01-06.
STREAK_LOGS = units(
    ("w0101.json", won(player="ada", finished_at=day("2027-01-01"))),
    ("w0102.json", won(player="ada", finished_at=day("2027-01-02"))),
    ("w0103.json", won(player="ada", finished_at=day("2027-01-03"))),
    ("w0105.json", won(player="ada", finished_at=day("2027-01-05"))),
    ("w0106.json", won(player="ada", finished_at=day("2027-01-06"))),
)


def full_logs() -> list[tuple[str, dict[str, Any] | bytes]]:
    """Every case at once: 7 wins (6 dated, 1 undated), 2 losses, 3 left out."""
    false_claim = won(player="mallory", finished_at=day("2027-01-04"))  # a win, but a false claim
    false_claim["claim"]["moves"] = 55
    return [
        # 01-01: 7m 00s
        (
            "a-0101.json",
            won(
                player="ada", started_at=day("2027-01-01", 10), finished_at=day("2027-01-01", 10, 7)
            ),
        ),
        # 01-02: 5m 30s
        (
            "a-0102.json",
            won(
                player="ada",
                started_at=day("2027-01-02", 10),
                finished_at=day("2027-01-02", 10, 5, 30),
            ),
        ),
        # 01-03: deal 34, 53 moves, 4m 05s, in the player's own offset (late evening at +02:00)
        (
            "a-0103.json",
            with_meta(
                WON_34,
                player="ada",
                started_at=day("2027-01-03", 23, 50, 0, "+02:00"),
                finished_at=day("2027-01-03", 23, 54, 5, "+02:00"),
            ),
        ),
        # 01-04: only an invalid win (false claim) and an illegal log: the gap stays a gap
        ("x-0104-claim.json", false_claim),
        (
            "x-0104-illegal.json",
            with_meta(ILLEGAL, player="mallory", finished_at=day("2027-01-04")),
        ),
        ("x-garbage.json", b"this is not JSON"),
        # 01-05: a win by bob with no started_at: no duration
        ("b-0105.json", won(player="bob", finished_at=day("2027-01-05"))),
        # 01-06: two wins; one finishes before it starts, one mixes naive and aware timestamps
        (
            "a-0106-neg.json",
            won(player="ada", started_at=day("2027-01-06", 11), finished_at=day("2027-01-06", 10)),
        ),
        (
            "a-0106-mixed.json",
            won(
                player="ada",
                started_at="2027-01-06T08:00:00",
                finished_at="2027-01-06T08:01:00+00:00",
            ),
        ),
        # 01-07: only losses
        (
            "c-0107-blocked.json",
            blocked(
                player="cy", started_at=day("2027-01-07", 9), finished_at=day("2027-01-07", 9, 6)
            ),
        ),
        ("c-0107-open.json", in_progress(player="cy", started_at=day("2027-01-07", 12))),
        # no dates at all: counts as a win, but for no day
        ("a-undated.json", won(player="ada")),
    ]


# --- the building blocks are what the tests assume -----------------------------------------------


def test_building_blocks_verify_as_assumed() -> None:
    def summary(obj: dict[str, Any]) -> tuple[object, ...]:
        r = verify_bytes(orjson.dumps(obj))
        return r.status, r.outcome, r.moves, r.foundation_cards, r.error and r.error.code

    assert summary(won()) == ("valid", "won", 56, 52, None)
    assert summary(WON_34) == ("valid", "won", 53, 52, None)
    assert summary(blocked()) == ("valid", "blocked", 28, 21, None)
    assert summary(in_progress()) == ("valid", "in_progress", 3, 6, None)
    assert summary(ILLEGAL) == ("invalid", "in_progress", 7, 9, "wrong-rank")


# --- streaks ------------------------------------------------------------------------------------


def test_streaks_default_reference_is_latest_game_day() -> None:
    rec = record(STREAK_LOGS)
    assert rec.best_streak == 3
    assert rec.current_streak == 2
    assert rec.reference_day == D(2027, 1, 6)
    assert (rec.played, rec.wins) == (5, 5)


@pytest.mark.parametrize(
    ("today", "current"),
    [
        (D(2027, 1, 6), 2),  # the run ends on the reference day
        (D(2027, 1, 7), 2),  # a streak stays alive through the day after
        (D(2027, 1, 8), 0),  # ... but not two days after
        (D(2027, 1, 3), 3),  # counting to an earlier day
        (D(2027, 1, 4), 3),  # the day after that run
        (D(2027, 1, 5), 1),  # the gap on 01-04 ends the first run
        (D(2026, 12, 31), 0),  # before any game
    ],
)
def test_current_streak_counts_to_today(today: dt.date, current: int) -> None:
    rec = record(STREAK_LOGS, today=today)
    assert rec.current_streak == current
    assert rec.best_streak == 3
    assert rec.reference_day == today


def test_a_day_with_only_losses_ends_the_current_streak() -> None:
    # The reference is the latest game day, 01-07: it has games and no win, so the run ending
    # on 01-06 is over (the day-before grace is only for a day without games).
    logs = STREAK_LOGS + units(
        ("l0107-blocked.json", blocked(player="cy", finished_at=day("2027-01-07"))),
        ("l0107-open.json", in_progress(player="cy", started_at=day("2027-01-07", 12))),
    )
    rec = record(logs)
    assert rec.reference_day == D(2027, 1, 7)
    assert rec.current_streak == 0
    assert rec.best_streak == 3
    assert (rec.played, rec.wins) == (7, 5)
    # without the loss day the same wins give a live streak of 2 on 01-07
    assert record(STREAK_LOGS, today=D(2027, 1, 7)).current_streak == 2
    # the day after the loss day, the streak is over
    assert record(logs, today=D(2027, 1, 8)).current_streak == 0


def test_a_day_with_only_losses_breaks_a_run() -> None:
    logs = units(
        ("w1.json", won(finished_at=day("2027-01-01"))),
        ("l2.json", blocked(finished_at=day("2027-01-02"))),
        ("w3.json", won(finished_at=day("2027-01-03"))),
    )
    rec = record(logs)
    assert rec.best_streak == 1
    assert rec.current_streak == 1
    assert (rec.played, rec.wins) == (3, 2)


def test_two_wins_on_one_day_count_once_for_streaks_twice_for_wins() -> None:
    logs = units(
        ("a.json", won(finished_at=day("2027-01-01", 9))),
        ("b.json", won(finished_at=day("2027-01-01", 21))),
        ("c.json", won(finished_at=day("2027-01-02"))),
    )
    rec = record(logs)
    assert rec.wins == 3
    assert rec.played == 3
    assert rec.best_streak == 2
    assert rec.current_streak == 2


def test_day_is_the_date_as_written_in_the_players_offset() -> None:
    # 23:30 at -05:00 on 01-01 is 04:30 UTC on 01-02, but the player's day is 01-01;
    # 00:30 at +09:00 on 01-03 is 15:30 UTC on 01-02, but the player's day is 01-03.
    logs = units(
        ("a.json", won(finished_at="2027-01-01T23:30:00-05:00")),
        ("b.json", won(finished_at="2027-01-03T00:30:00+09:00")),
    )
    rec = record(logs)
    assert rec.reference_day == D(2027, 1, 3)
    assert rec.best_streak == 1  # 01-01 and 01-03: not consecutive
    assert rec.current_streak == 1


def test_started_at_gives_the_day_when_there_is_no_finish() -> None:
    logs = units(
        ("a.json", won(started_at=day("2027-01-01"))),
        ("b.json", won(started_at=day("2027-01-02"), finished_at="not a time")),
    )
    rec = record(logs)
    assert rec.reference_day == D(2027, 1, 2)
    assert rec.best_streak == 2
    assert rec.fastest_win_seconds is None


def test_logs_without_dates_count_but_not_for_streaks() -> None:
    logs = units(
        ("a.json", won()),  # no meta at all
        ("b.json", won(player="ada")),
        ("c.json", won(player="ada", finished_at="yesterday")),  # unparsable
        ("d.json", blocked(player="ada")),
    )
    rec = record(logs)
    assert (rec.played, rec.wins) == (4, 3)
    assert rec.win_rate == 0.75
    assert rec.best_streak == 0
    assert rec.current_streak == 0
    assert rec.reference_day is None
    assert rec.fewest_moves_win == 56
    # with a --today, still nothing to count
    assert record(logs, today=D(2027, 1, 1)).current_streak == 0


# --- the whole record ---------------------------------------------------------------------------


def test_full_record_exact_numbers() -> None:
    rec = record(units(*full_logs()))
    assert rec.format == "cruel-stats/1"
    assert rec.played == 9  # 7 wins + blocked + in progress
    assert rec.wins == 7
    assert rec.win_rate == 7 / 9
    assert rec.best_score == 52
    assert rec.fewest_moves_win == 53  # the deal-34 win
    assert rec.fastest_win_seconds == 245.0  # 4m 05s; not the negative one, not the mixed one
    assert rec.players == ["ada", "bob", "cy"]  # mallory's logs are all left out
    assert rec.reference_day == D(2027, 1, 7)
    assert rec.best_streak == 3  # 01-01..01-03; the invalid win on 01-04 does not bridge the gap
    assert rec.current_streak == 0  # 01-07 has games and no win: the run to 01-06 is over
    assert [(e.source.file, e.code) for e in rec.excluded] == [
        ("x-0104-claim.json", "claim-mismatch"),
        ("x-0104-illegal.json", "wrong-rank"),
        ("x-garbage.json", "not-json"),
    ]


def test_excluded_logs_carry_the_verifiers_code_and_message() -> None:
    rec = record(units(("illegal.json", ILLEGAL), ("junk.json", b"{nope"), ("won.json", WON)))
    assert rec.excluded == [
        Excluded(
            source=Source(file="illegal.json"),
            code="wrong-rank",
            message="move 11: J♠ from pile 1 cannot go onto 8♠ on pile 5 (needs Q♠)",
        ),
        Excluded(
            source=Source(file="junk.json"),
            code="not-json",
            message=verify_bytes(b"{nope").error.message,  # type: ignore[union-attr]
        ),
    ]
    assert rec.excluded[1].message.startswith("not JSON")
    assert (rec.played, rec.wins) == (1, 1)
    assert rec.players == ["ada"]  # bob, the illegal log's player, is not counted


def test_only_invalid_logs_count_nothing() -> None:
    a_won_but_false_claim = won(
        player="eve", started_at=day("2027-01-01", 10), finished_at=day("2027-01-01", 10, 1)
    )
    a_won_but_false_claim["claim"]["redeals"] = 3
    rec = record(units(("a.json", a_won_but_false_claim), ("b.json", ILLEGAL)))
    assert (rec.played, rec.wins) == (0, 0)
    assert rec.win_rate is None
    assert rec.best_score is None
    assert rec.fewest_moves_win is None
    assert rec.fastest_win_seconds is None
    assert rec.best_streak == rec.current_streak == 0
    assert rec.reference_day is None
    assert rec.players == []
    assert [e.code for e in rec.excluded] == ["claim-mismatch", "wrong-rank"]


def test_units_that_failed_to_read_are_excluded() -> None:
    missing = list(iter_units(["/nonexistent/cruel/log.json"]))
    rec = record(missing)
    assert rec.played == 0
    assert [e.code for e in rec.excluded] == ["unreadable"]
    assert rec.excluded[0].source == Source(file="/nonexistent/cruel/log.json")


def test_best_score_is_the_most_foundation_cards_of_counted_games() -> None:
    rec = record(units(("b.json", blocked()), ("p.json", in_progress()), ("i.json", ILLEGAL)))
    assert rec.best_score == 21
    assert (rec.played, rec.wins) == (2, 0)
    assert rec.win_rate == 0.0
    assert rec.fewest_moves_win is None
    assert rec.fastest_win_seconds is None
    assert record(units(("p.json", in_progress()))).best_score == 6


def test_fastest_win_ignores_losses_and_bad_durations() -> None:
    logs = units(
        # a quick loss does not count
        (
            "loss.json",
            blocked(started_at=day("2027-01-01", 10), finished_at=day("2027-01-01", 10, 0, 5)),
        ),
        # a win without started_at has no duration
        ("nostart.json", won(finished_at=day("2027-01-01", 11))),
        # negative: ignored
        ("neg.json", won(started_at=day("2027-01-01", 12), finished_at=day("2027-01-01", 11))),
        # naive start, aware finish (and the other way): ignored
        ("mixed1.json", won(started_at="2027-01-01T12:00:00", finished_at="2027-01-01T12:00:10Z")),
        ("mixed2.json", won(started_at="2027-01-01T12:00:00Z", finished_at="2027-01-01T12:00:10")),
        # both aware with different offsets: 10:00Z to 11:02:30+01:00 is 2m 30s
        (
            "offsets.json",
            won(started_at="2027-01-01T10:00:00Z", finished_at="2027-01-01T11:02:30+01:00"),
        ),
        # both naive: 3m
        ("naive.json", won(started_at="2027-01-01T13:00:00", finished_at="2027-01-01T13:03:00")),
    )
    rec = record(logs)
    assert rec.fastest_win_seconds == 150.0
    assert rec.wins == 6
    only_bad = [
        u
        for u in logs
        if u[0].file in {"loss.json", "nostart.json", "neg.json", "mixed1.json", "mixed2.json"}
    ]
    assert record(only_bad).fastest_win_seconds is None
    # a zero-second win is a duration, not "no duration"
    zero = units(("z.json", won(started_at=day("2027-01-01"), finished_at=day("2027-01-01"))))
    assert record(zero).fastest_win_seconds == 0.0


def test_players_are_distinct_and_only_strings() -> None:
    logs = units(
        ("a.json", won(player="zed")),
        ("b.json", won(player="ada")),
        ("c.json", blocked(player="zed")),
        ("d.json", won(player=42)),
        ("e.json", won()),
    )
    rec = record(logs)
    assert rec.players == ["ada", "zed"]
    assert rec.played == 5


def test_no_logs() -> None:
    rec = record([])
    assert rec.played == 0
    assert rec.wins == 0
    assert rec.win_rate is None
    assert rec.current_streak == 0
    assert rec.best_streak == 0
    assert rec.reference_day is None
    assert rec.best_score is None
    assert rec.players == [] and rec.excluded == []
    # --today alone gives a reference day but no streak
    rec = record([], today=D(2027, 1, 1))
    assert rec.reference_day == D(2027, 1, 1)
    assert rec.current_streak == 0


def test_table_for_people() -> None:
    rec = record(units(*full_logs()))
    lines = table(rec)
    assert lines[0] == "Record of ada, bob, cy: 9 logs counted, 3 left out"
    assert "  games played    9" in lines
    assert "  wins            7" in lines
    assert "  win rate        77.8%" in lines
    assert "  fastest win     4m 05s" in lines
    assert "  fewest moves    53 (in a win)" in lines
    assert "  best score      52 foundation cards" in lines
    assert "  current streak  0 days (to 2027-01-07)" in lines
    assert "  best streak     3 days" in lines
    assert "Left out:" in lines
    assert (  # in the verifier's words (cruel verify's line)
        "  x-0104-illegal.json: invalid: move 11: J♠ from pile 1 cannot go onto 8♠ on pile 5 "
        "(needs Q♠) [wrong-rank]" in lines
    )
    garbage = "  x-garbage.json: unreadable: not JSON: expected ident at line 1 column 2 [not-json]"
    assert garbage in lines
    empty = table(record([]))
    assert "  win rate        -" in empty
    assert "  current streak  0 days" in empty
    assert "Left out:" not in empty


# --- hostile dates (bugs) -----------------------------------------------------------------------


def test_a_game_on_the_first_representable_day_does_not_crash() -> None:
    # meta is free-form, so this log verifies; the record must not raise on it.
    # BUG: _runs() and the current-streak lookup compute `day - timedelta(days=1)`, which raises
    # OverflowError for date(1, 1, 1).
    rec = record(units(("old.json", won(finished_at="0001-01-01T10:00:00"))))
    assert (rec.played, rec.wins) == (1, 1)
    assert rec.best_streak == 1
    assert rec.current_streak == 1
    assert rec.reference_day == D(1, 1, 1)


def test_a_loss_on_the_first_representable_day_does_not_crash() -> None:
    # BUG: no win day at all, but the current-streak lookup still computes reference - 1 day.
    rec = record(units(("old.json", blocked(finished_at="0001-01-01T10:00:00"))))
    assert rec.played == 1
    assert rec.current_streak == 0
    assert rec.reference_day == D(1, 1, 1)


def test_today_on_the_first_representable_day_does_not_crash() -> None:
    # BUG: `cruel stats samples --today 0001-01-01` ends in a traceback (OverflowError).
    result = runner.invoke(app, ["stats", str(SAMPLES), "--json", "--today", "0001-01-01"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == 0
    rec = Record.model_validate_json(result.stdout)
    assert rec.current_streak == 0
    assert rec.reference_day == D(1, 1, 1)


def test_far_future_and_odd_timestamps() -> None:
    logs = units(
        ("a.json", won(finished_at="9999-12-31T23:59:59")),
        ("b.json", won(finished_at="2027-01-01T10:00:00+24:00")),  # invalid offset: no date
        ("c.json", won(finished_at="x" * 65)),
        ("d.json", won(finished_at=20270101)),  # not a string: no date
    )
    rec = record(logs)
    assert (rec.played, rec.wins) == (4, 4)
    assert rec.reference_day == D(9999, 12, 31)
    assert rec.current_streak == 1 == rec.best_streak


# --- the command --------------------------------------------------------------------------------


def write_logs(folder: Path, logs: list[tuple[str, dict[str, Any] | bytes]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in logs:
        (folder / name).write_bytes(data if isinstance(data, bytes) else orjson.dumps(data))
    return folder


def stats_schema() -> Draft202012Validator:
    schema = orjson.loads((ROOT / "schemas" / "stats.schema.json").read_bytes())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=FormatChecker())


def test_cli_json_matches_library_and_model(tmp_path: Path) -> None:
    folder = write_logs(tmp_path / "logs", full_logs())
    result = runner.invoke(app, ["stats", str(folder), "--json"])
    assert result.exit_code == 2, result.output  # x-garbage.json is no log (docs/cli.md)
    assert result.stderr.endswith("error: 1 input could not be used (listed as left out)\n")
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    rec = Record.model_validate_json(lines[0])
    assert rec == record(iter_units([str(folder)]))
    assert (rec.played, rec.wins, rec.best_streak, rec.current_streak) == (9, 7, 3, 0)
    assert rec.reference_day == D(2027, 1, 7)
    assert [Path(e.source.file).name for e in rec.excluded] == [
        "x-0104-claim.json",
        "x-0104-illegal.json",
        "x-garbage.json",
    ]
    errors = list(stats_schema().iter_errors(orjson.loads(lines[0])))
    assert errors == []


def test_cli_today_option(tmp_path: Path) -> None:
    folder = write_logs(tmp_path / "logs", [(f"{u[0].file}", u[1]) for u in STREAK_LOGS])
    for today, current in [("2027-01-07", 2), ("2027-01-08", 0)]:
        result = runner.invoke(app, ["stats", str(folder), "--json", "--today", today])
        assert result.exit_code == 0, result.output
        rec = Record.model_validate_json(result.stdout)
        assert rec.current_streak == current
        assert rec.reference_day == D.fromisoformat(today)
        assert rec.best_streak == 3


def test_cli_table(tmp_path: Path) -> None:
    folder = write_logs(tmp_path / "logs", full_logs())
    result = runner.invoke(app, ["stats", str(folder)])
    assert result.exit_code == 2, result.output  # x-garbage.json is no log: the record still
    out = result.stdout.splitlines()
    assert "  games played    9" in out
    assert "  win rate        77.8%" in out
    assert "  current streak  0 days (to 2027-01-07)" in out
    assert any(line.strip().startswith("games played") for line in out)
    assert any(line.strip().startswith("win rate") for line in out)
    assert any(line.strip().startswith("current streak") for line in out)
    assert out == table(record(iter_units([str(folder)])))


def test_cli_bad_today_exits_2_with_one_line(tmp_path: Path) -> None:
    folder = write_logs(tmp_path / "logs", [("a.json", won())])
    result = runner.invoke(app, ["stats", str(folder), "--today", "notadate"])
    assert result.exit_code == 2
    assert result.stdout == ""
    err = result.stderr.splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: --today")
    assert "notadate" in err[0]
    assert "Traceback" not in result.output


def test_cli_jsonl_file(tmp_path: Path) -> None:
    logs = [orjson.dumps(obj) for _, obj in full_logs() if isinstance(obj, dict)]
    path = tmp_path / "all.jsonl"
    path.write_bytes(b"\n".join(logs) + b"\n\nnot json\n")
    result = runner.invoke(app, ["stats", str(path), "--json"])
    assert result.exit_code == 2, result.output  # "not json" is no log; the record still
    rec = Record.model_validate_json(result.stdout)
    assert (rec.played, rec.wins) == (9, 7)
    assert (rec.best_streak, rec.current_streak) == (3, 0)
    # the three left out: the false claim (line 4), the illegal log (line 5) and "not json",
    # which follows a blank line (blank lines are skipped but counted)
    assert [(e.source.line, e.code) for e in rec.excluded] == [
        (4, "claim-mismatch"),
        (5, "wrong-rank"),
        (len(logs) + 2, "not-json"),
    ]
    assert all(e.source.file == str(path) for e in rec.excluded)
    assert stats_schema().is_valid(orjson.loads(result.stdout))


def test_cli_jsonl_stdin() -> None:
    data = (
        b"\n".join(
            orjson.dumps(obj)
            for _, obj in [
                ("a", won(player="ada", finished_at=day("2027-01-01"))),
                ("b", won(player="ada", finished_at=day("2027-01-02"))),
                ("c", blocked(player="ada", finished_at=day("2027-01-03"))),
                ("d", ILLEGAL),
            ]
        )
        + b"\n"
    )
    result = runner.invoke(app, ["stats", "-", "--jsonl", "--json"], input=data)
    assert result.exit_code == 0, result.output
    rec = Record.model_validate_json(result.stdout)
    assert (rec.played, rec.wins, rec.best_streak, rec.current_streak) == (3, 2, 2, 0)  # lost 01-03
    assert rec.reference_day == D(2027, 1, 3)
    assert rec.excluded == [
        Excluded(
            source=Source(file="-", line=4),
            code="wrong-rank",
            message="move 11: J♠ from pile 1 cannot go onto 8♠ on pile 5 (needs Q♠)",
        )
    ]
    assert stats_schema().is_valid(orjson.loads(result.stdout))


def test_cli_single_log_on_stdin_without_jsonl() -> None:
    result = runner.invoke(app, ["stats", "-", "--json"], input=orjson.dumps(won(player="ada")))
    assert result.exit_code == 0, result.output
    rec = Record.model_validate_json(result.stdout)
    assert (rec.played, rec.wins, rec.players) == (1, 1, ["ada"])


def test_cli_no_logs(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["stats", str(empty), "--json"])
    assert result.exit_code == 2
    assert "1 input could not be used (listed as left out)" in result.stderr
    rec = Record.model_validate_json(result.stdout)
    assert [(e.code, e.message) for e in rec.excluded] == [
        ("empty-folder", problem("empty-folder").message)
    ]
    assert rec.played == 0
    assert rec.win_rate is None
    assert rec.current_streak == rec.best_streak == 0
    assert stats_schema().is_valid(orjson.loads(result.stdout))


def test_cli_only_invalid_logs_is_not_no_logs(tmp_path: Path) -> None:
    folder = write_logs(tmp_path / "logs", [("i.json", ILLEGAL)])
    result = runner.invoke(app, ["stats", str(folder)])
    assert result.exit_code == 0
    assert "  games played    0" in result.stdout.splitlines()
    assert "  win rate        -" in result.stdout.splitlines()
    assert "[wrong-rank]" in result.stdout


def test_schema_file_matches_the_model() -> None:
    schema = orjson.loads((ROOT / "schemas" / "stats.schema.json").read_bytes())
    generated = Record.model_json_schema()
    assert schema["properties"].keys() == generated["properties"].keys()
    assert sorted(schema["required"]) == sorted(generated["required"])
    # the schema rejects what the model rejects
    good = orjson.loads(record(units(*full_logs())).model_dump_json())
    assert stats_schema().is_valid(good)
    assert not stats_schema().is_valid({**good, "extra": 1})
    assert not stats_schema().is_valid({k: v for k, v in good.items() if k != "played"})
