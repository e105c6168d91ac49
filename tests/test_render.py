"""Replays and positions as text: golden files, the 80-column promise, colour, errors."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.errors import problem
from cruel_tools.game import cards, render
from cruel_tools.game.game import REDEAL, Game, Move
from cruel_tools.game.log import from_object
from cruel_tools.game.render import LAYOUTS, ReplayOptions, Style, position_lines, visible_width

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("CRUEL_UPDATE_GOLDEN") == "1"
runner = CliRunner()

CASES = {
    "replay_rows.txt": (["replay", "samples/won.json", "--to", "3"], 0),
    "replay_grid.txt": (["replay", "samples/won.json", "--to", "3", "--layout", "grid"], 0),
    "replay_wide.txt": (["replay", "samples/won.json", "--to", "3", "--layout", "wide"], 0),
    "replay_ascii.txt": (["replay", "samples/won.json", "--to", "3", "--ascii"], 0),
    "replay_window.txt": (["replay", "samples/won.json", "--from", "54", "--to", "56"], 0),
    "replay_moves_only.txt": (["replay", "samples/won.json", "--moves-only"], 0),
    "replay_final.txt": (["replay", "samples/blocked.json", "--final", "--layout", "wide"], 0),
    "replay_illegal.txt": (["replay", "samples/illegal.json", "--from", "10"], 1),
    "replay_illegal_ascii.txt": (["replay", "samples/illegal.json", "--moves-only", "--ascii"], 1),
    "show_17_grid.txt": (["show", "17", "--layout", "grid"], 0),
    "show_17_ascii.txt": (["show", "17", "--ascii"], 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args, code = CASES[name]
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    path = GOLDEN / name
    if UPDATE:
        path.write_text(result.stdout)
    assert result.stdout == path.read_text(), f"{name} differs (CRUEL_UPDATE_GOLDEN=1 rewrites it)"
    assert "\x1b[" not in result.stdout  # no colour when not writing to a terminal


def longest_piles() -> Game:
    # Piles of 15 cards (4 dealt + the 11 that can be built on a king) with the widest cards.
    order = sorted((c for c in cards.DECK if cards.rank(c) != 1), key=lambda c: -cards.rank(c))
    piles = [order[0:15], order[15:30], order[30:45], order[45:48]] + [[] for _ in range(8)]
    return Game(piles)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("ascii_", [False, True])
@pytest.mark.parametrize("color", [False, True])
def test_every_layout_fits_80_columns(layout: str, ascii_: bool, color: bool) -> None:
    style = Style(layout=layout, ascii=ascii_, color=color)  # type: ignore[arg-type]
    lines = position_lines(longest_piles(), style)
    assert max(len(p) for p in longest_piles().piles) == 15
    assert all(visible_width(line) <= 80 for line in lines), max(lines, key=visible_width)
    assert sum("10" in line for line in lines) > 0


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("sample", ["won", "blocked", "illegal"])
def test_replays_fit_80_columns(layout: str, sample: str) -> None:
    log = from_object(orjson.loads((ROOT / "samples" / f"{sample}.json").read_bytes()))
    result = render.replay(log, ReplayOptions(style=Style(layout=layout)))  # type: ignore[arg-type]
    assert all(visible_width(line) <= 80 for line in result.lines)


def test_colour_marks_red_suits_only() -> None:
    style = Style(color=True)
    assert style.card(cards.parse("4D")) == "\x1b[31m4♦\x1b[0m"
    assert style.card(cards.parse("4S")) == "4♠"
    assert visible_width(style.card(cards.parse("10H"), 5)) == 5


def test_move_descriptions() -> None:
    game = Game.from_deal(
        [
            [cards.parse(t) for t in p.split()]
            for p in [
                "5C 9H 2D KD",
                "3S 8C 5D 6C",
                "JH QH 6S 4D",
                "7C 8D 9D 10D",
                "2S 3D 4S 5S",
                "6D 7S 8S 9S",
                "10S JS QS KS",
                "2H 3H 4H 5H",
                "6H 7H 8H 10H",
                "JD QD KH QC",
                "2C 3C 4C KC",
                "7D 9C 10C JC",
            ]
        ]
    )
    style = Style()
    assert render.describe(Move(3, 2), game, style) == "4♦ pile 3 → pile 2, onto 6♣"
    assert render.describe(Move(1, None), game, style) == "K♦ pile 1 → foundation"
    assert render.describe(REDEAL, game, Style(ascii=True)) == "Redeal (1st)"
    assert [render.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
    ]


def test_redeal_step_names_the_new_tops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = runner.invoke(app, ["replay", "samples/won.json", "--from", "2", "--to", "2"]).stdout
    assert "2. Redeal (1st)" in out
    assert "new tops: 6♥ (pile 2)" in out


def test_replay_error_matches_verify(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    verify_line = runner.invoke(app, ["verify", "samples/illegal.json"]).stdout
    replay_out = runner.invoke(app, ["replay", "samples/illegal.json", "--moves-only"]).stdout
    replay_out = replay_out.replace("\n    ", " ")  # long errors wrap at 80 columns
    message = verify_line.split("invalid: ", 1)[1].split(" (at ")[0]
    assert f"error: {message} [wrong-rank]" in replay_out
    assert "Position when move 11 was tried:" in replay_out


def test_replay_unreadable_and_bad_options(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "not-json" in result.output
    assert runner.invoke(app, ["replay", "missing.json"]).exit_code == 2
    assert runner.invoke(app, ["replay", str(bad), "--layout", "circle"]).exit_code == 2


def test_replay_claim_mismatch_exits_1(tmp_path: Path) -> None:
    doc = orjson.loads((ROOT / "samples" / "won.json").read_bytes())
    doc["claim"]["moves"] = 1
    path = tmp_path / "lie.json"
    path.write_bytes(orjson.dumps(doc))
    result = runner.invoke(app, ["replay", str(path), "--final"])
    assert result.exit_code == 1
    joined = result.stdout.replace("\n    ", " ")
    assert (
        "error: the claim says moves 1, the replay gives 56 (at /claim/moves) [claim-mismatch]"
        in joined
    )


def test_show_accepts_numbers_deals_and_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    by_number = runner.invoke(app, ["show", "1"]).stdout.splitlines()[1:]
    by_log = runner.invoke(app, ["show", "samples/won.json"]).stdout.splitlines()[1:]
    deal = tmp_path / "deal.json"
    deal.write_bytes(orjson.dumps({"number": 1}))
    by_deal = runner.invoke(app, ["show", str(deal)]).stdout.splitlines()[1:]
    assert by_number == by_log == by_deal and len(by_number) == 13
    dup = tmp_path / "dup.json"
    piles = orjson.loads(runner.invoke(app, ["deal", "1"]).stdout)["piles"]
    piles[0][0] = piles[0][1]
    dup.write_bytes(orjson.dumps({"piles": piles}))
    result = runner.invoke(app, ["show", str(dup)])
    assert result.exit_code == 1 and "again in pile 1" in result.output
    assert runner.invoke(app, ["show", str(tmp_path / "none.json")]).exit_code == 2


@pytest.mark.parametrize(
    ("window", "words"),
    [
        (["--from", "70"], "--from 70 shows no step: the log has 69 steps"),
        (["--from", "5", "--to", "4"], "--from 5 --to 4: the range is backwards (empty)"),
    ],
)
def test_empty_windows_are_refused(
    window: list[str], words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["replay", "samples/won.json", *window])
    assert result.exit_code == 2
    assert words in result.output


def test_replay_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    data = (ROOT / "samples" / "won.json").read_bytes()
    result = runner.invoke(app, ["replay", "-", "--final"], input=data)
    assert result.exit_code == 0
    assert result.stdout.rstrip().endswith(
        "Game result: won, 52 foundation cards, 56 moves, 13 redeals"
    )


def test_replay_of_an_empty_folder_or_blank_jsonl_is_one_line_not_a_traceback(
    tmp_path: Path,
) -> None:
    (tmp_path / "blank.jsonl").write_bytes(b"\n\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    for spec, code in [(empty, "empty-folder"), (tmp_path / "blank.jsonl", "no-logs")]:
        result = runner.invoke(app, ["replay", str(spec)])
        assert result.exit_code == 2, result.output
        assert result.stderr.strip() == problem(code, str(spec)).line  # docs/cli.md


def test_check_window_is_the_library_s_word_on_an_empty_window() -> None:
    from cruel_tools.game.render import EmptyWindow, check_window

    check_window(ReplayOptions(first=3, last=3), 3)
    with pytest.raises(EmptyWindow, match=r"^--from 20 --to 10: the range is backwards \(empty\)$"):
        check_window(ReplayOptions(first=20, last=10), 30)
    with pytest.raises(EmptyWindow, match="--from 4 shows no step"):
        check_window(ReplayOptions(first=4), 3)
