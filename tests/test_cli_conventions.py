"""Conventions every command keeps (issue #15): --version, -h, completion, a closed pipe, colour,
conflicting options refused, replay over every log of a folder or JSON Lines file.

Most tests run the Typer app in-process with ``CliRunner``; the closed pipe needs a real process.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

import cruel_tools
from cruel_tools.cli.app import EXIT_CLOSED_PIPE, app
from cruel_tools.errors import problem
from cruel_tools.game import engine

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
runner = CliRunner()


# --- 5: --version, -h, completion ------------------------------------------------------------


def test_version_prints_the_package_version_and_the_engine() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"cruel {cruel_tools.__version__}\n{engine.engine_line()}\n"


def test_the_console_script_answers_version_without_loading_the_cli() -> None:
    """``cruel --version`` (the console script's entry point) prints what the Typer app prints,
    without importing Typer, the CLI or pydantic (issue #22: start-up)."""
    code = (
        "import sys; sys.argv = ['cruel', '--version']; from cruel_tools.cli.console import main\n"
        "status = main()\n"
        "loaded = [m for m in ('typer', 'cruel_tools.cli.app', 'pydantic') if m in sys.modules]\n"
        "print('loaded:', loaded); sys.exit(status)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (f"cruel {cruel_tools.__version__}\n{engine.engine_line()}\nloaded: []\n")


def test_verify_loads_only_what_it_runs_on() -> None:
    """A command imports what it needs when it runs: ``cruel verify`` leaves the solver, the
    grading, the puzzles, the service and the leaderboards unimported."""
    code = (
        "import sys; sys.argv = ['cruel', 'verify', 'samples/won.json']\n"
        "from cruel_tools.cli.console import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = ('solver', 'optimal', 'grading', 'analysis', 'puzzles', 'service', "
        "'leaderboard', 'keys', 'schemas', 'render', 'stats')\n"
        "print('loaded:', [m for m in heavy if 'cruel_tools.' + m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.stderr == "verified 1 log: 1 valid, 0 invalid, 0 unreadable\n"
    assert done.stdout.splitlines()[-1] == "loaded: []"


@pytest.mark.parametrize(
    "command", [[], ["verify"], ["replay"], ["solve"], ["stats"], ["keys"], ["keys", "add"]]
)
def test_h_is_help_on_every_command(command: list[str]) -> None:
    short = runner.invoke(app, [*command, "-h"])
    long = runner.invoke(app, [*command, "--help"])
    assert short.exit_code == 0 == long.exit_code
    assert short.stdout == long.stdout and "Usage:" in short.stdout


def test_shell_completion_is_on() -> None:
    result = runner.invoke(app, ["--help"])
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout


# --- 3: replay over every log ------------------------------------------------------------------


def _jsonl(tmp_path: Path, *names: str) -> Path:
    path = tmp_path / "games.jsonl"
    lines = [orjson.dumps(orjson.loads((SAMPLES / n).read_bytes())) for n in names]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_replay_of_a_folder_replays_every_log_each_headed_by_its_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["replay", "samples", "--moves-only"])
    headings = [line for line in result.stdout.splitlines() if line.startswith("==> ")]
    assert headings == [
        "==> samples/blocked.json <==",
        "==> samples/illegal.json <==",
        "==> samples/won.json <==",
    ]
    assert result.stdout.count("Game result: ") == 3
    assert result.exit_code == 1  # the worst of the three: illegal.json has an illegal move


def test_replay_of_a_jsonl_file_replays_every_line(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, "won.json", "blocked.json")
    result = runner.invoke(app, ["replay", str(path), "--final"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"==> {path}:1 <==" in out and f"==> {path}:2 <==" in out
    assert "Game result: won" in out and "Game result: blocked" in out
    assert out.index("Game result: won") < out.index(f"==> {path}:2 <==")


def test_replay_of_a_jsonl_file_reports_a_bad_line_and_goes_on(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, "won.json")
    path.write_bytes(b"not json\n" + path.read_bytes())
    result = runner.invoke(app, ["replay", str(path), "--final"])
    assert result.exit_code == 2
    assert f"{path}:1: unreadable: not JSON" in result.stderr
    assert "Game result: won" in result.stdout


@pytest.mark.parametrize("kind", ["folder", "blank jsonl"])
def test_replay_of_an_empty_input_is_one_line_and_exit_2(tmp_path: Path, kind: str) -> None:
    spec = tmp_path / "empty"
    if kind == "folder":
        spec.mkdir()
    else:
        spec = tmp_path / "blank.jsonl"
        spec.write_bytes(b"\n \n")
    result = runner.invoke(app, ["replay", str(spec)])
    assert result.exit_code == 2
    code = "empty-folder" if kind == "folder" else "no-logs"  # docs/cli.md, "Input problems"
    assert result.stderr == problem(code, str(spec)).line + "\n"
    assert result.exception is None or isinstance(result.exception, SystemExit)


# --- 8: conflicting options --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--moves-only", "--final"], ("--final", "--moves-only")),
        (["--final", "--from", "10"], ("--final", "--from")),
        (["--final", "--to", "20"], ("--final", "--to")),
        (
            ["--layout", "grid", "--moves-only", "--final", "--from", "10", "--to", "20"],
            ("--final", "--moves-only"),
        ),
        (["--color", "always", "--no-color"], ("--color", "--no-color")),
    ],
)
def test_conflicting_options_are_one_usage_error_naming_both(
    options: list[str], named: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["replay", "samples/won.json", *options])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert all(name in lines[0] for name in named), lines[0]


def test_a_backwards_range_blames_the_range_not_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["replay", "samples/won.json", "--from", "20", "--to", "10"])
    assert result.exit_code == 2
    assert "backwards" in result.stderr and "the log has" not in result.stderr


def test_the_readme_replay_example_is_a_valid_combination(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    lines = [
        line.split("#")[0].split()
        for line in (ROOT / "README.md").read_text().splitlines()
        if line.startswith("cruel replay LOG")
    ]
    assert lines
    for words in lines:
        args = ["samples/won.json" if w == "LOG" else w for w in words[1:]]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (words, result.output)


# --- 10: a closed pipe, colour -----------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["replay", "samples/won.json"], ["verify", "samples"], ["rules"]]
)
def test_a_closed_pipe_exits_141_quietly(command: list[str]) -> None:
    """``cruel ... | head -2``: the reader is gone before the command writes (deterministic)."""
    read, write = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cruel_tools.cli.app", *command],
        stdout=write,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(read)
    os.close(write)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_CLOSED_PIPE == 141
    assert b"Traceback" not in err and b"BrokenPipe" not in err and b"Exception" not in err


def _colored(args: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr("cruel_tools.cli.common.is_terminal", lambda stream: True)
    result = runner.invoke(app, ["show", "1", *args], env=env)
    assert result.exit_code == 0, result.output
    return "\x1b[31m" in result.stdout


def test_no_color_counts_only_when_not_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _colored([], {}, monkeypatch)
    assert _colored([], {"NO_COLOR": ""}, monkeypatch)  # set but empty: no-color.org says colour
    assert not _colored([], {"NO_COLOR": "1"}, monkeypatch)
    assert not _colored(["--no-color"], {}, monkeypatch)
    assert not _colored(["--color", "never"], {}, monkeypatch)


def test_color_always_forces_colour_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for command in (["show", "1"], ["replay", "samples/won.json", "--final"]):
        plain = runner.invoke(app, command)
        forced = runner.invoke(app, [*command, "--color", "always"], env={"NO_COLOR": "1"})
        assert "\x1b[" not in plain.stdout and "\x1b[31m" in forced.stdout
    bad = runner.invoke(app, ["show", "1", "--color", "sometimes"])
    assert bad.exit_code == 2 and "--color must be one of auto, always, never" in bad.stderr


# --- 11: a leading BOM ------------------------------------------------------------------------


def test_files_with_a_leading_bom_are_read(tmp_path: Path) -> None:
    log_file = tmp_path / "won.json"
    log_file.write_bytes(b"\xef\xbb\xbf" + (SAMPLES / "won.json").read_bytes())
    verified = runner.invoke(app, ["verify", str(log_file)])
    assert verified.exit_code == 0 and ": valid: won" in verified.stdout
    assert runner.invoke(app, ["replay", str(log_file), "--final"]).exit_code == 0
    deal_file = tmp_path / "deal.json"
    deal_file.write_bytes(b'\xef\xbb\xbf{"number": 1}')
    shown = runner.invoke(app, ["show", str(deal_file)])
    assert (
        shown.exit_code == 0
        and shown.stdout.splitlines()[1:]
        == (runner.invoke(app, ["show", "1"]).stdout.splitlines()[1:])
    )


# --- exit codes: a bug is 3, not the 1 of an illegal move -------------------------------------


def test_an_unexpected_exception_exits_3_with_one_line_after_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import cruel_tools.cli.reference as cli

    monkeypatch.setattr(cli.rules, "PRESETS", None)  # rules_command now fails: a stand-in bug
    with pytest.raises(SystemExit) as info:
        app(["rules"], prog_name="cruel")
    assert info.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback" in err  # kept for the bug report
    last = err.splitlines()[-1]
    assert last.startswith("error: internal error (") and last.endswith("); please report it")


def test_usage_errors_and_success_keep_their_codes_through_the_entry_point(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for args, code in ((["rules"], 0), (["deal", "x"], 2), (["nosuch"], 2)):
        with pytest.raises(SystemExit) as info:
            app(args, prog_name="cruel")
        assert info.value.code == code, args
    assert "Traceback" not in capsys.readouterr().err


# --- 10: bounded reading; FIFOs, devices, symbolic link loops ---------------------------------


def _cli(*args: str, stdin: object = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cruel_tools.cli.app", *args],
        stdin=stdin,  # type: ignore[arg-type]
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


@pytest.mark.parametrize("jsonl", [True, False])
def test_endless_stdin_without_a_newline_is_refused_not_read_for_ever(jsonl: bool) -> None:
    """``cruel verify - --jsonl < /dev/zero`` ends: a line over the limit is skipped only so far."""
    with open("/dev/zero", "rb") as zero:
        result = _cli("verify", "-", *(["--jsonl"] if jsonl else []), stdin=zero, timeout=60)
    assert result.returncode == 2
    [line] = result.stdout.splitlines()
    assert line.startswith("-") and "[too-large]" in line
    if jsonl:
        assert "the rest of - is not read" in line


def test_a_fifo_without_a_writer_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    for command in ("verify", "replay", "show", "solve", "stats"):
        result = _cli(command, str(fifo), timeout=30)
        assert result.returncode == 2, (command, result.stderr)
        assert f"cannot read {fifo}: a FIFO with no writer" in result.stdout + result.stderr


def test_a_fifo_with_a_writer_is_read(tmp_path: Path) -> None:
    """Process substitution (``cruel verify <(cat log)``) hands over a pipe that has a writer."""
    proc = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m cruel_tools.cli.app verify <(cat samples/won.json)"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert ": valid: won" in proc.stdout


def test_a_device_is_refused_in_one_line() -> None:
    for command in (["verify"], ["show"], ["stats"]):
        result = runner.invoke(app, [*command, "/dev/zero"])
        assert result.exit_code == 2, command
        assert "cannot read /dev/zero: not a regular file (a character device)" in result.output


def test_a_symbolic_link_loop_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    loop = str(tmp_path / "a.json")
    for command in ("verify", "replay", "show", "grade", "solve", "stats"):
        result = runner.invoke(app, [command, loop])
        assert result.exit_code == 2, command
        assert f"cannot read {loop}: Symbolic link loop" in result.output, command
        assert "No such file" not in result.output


# --- 4: stats -----------------------------------------------------------------------------------


def _log(player: str | None, **meta: object) -> bytes:
    doc = orjson.loads((SAMPLES / "won.json").read_bytes())
    doc["meta"] = {**({} if player is None else {"player": player}), **meta}
    return orjson.dumps(doc)


def _folder(tmp_path: Path, *logs: bytes) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    for i, data in enumerate(logs):
        (folder / f"{i}.json").write_bytes(data)
    return folder


@pytest.mark.parametrize("name", ["nosuch.json", "logs/"])
def test_stats_of_a_missing_input_is_one_line_and_exit_2(tmp_path: Path, name: str) -> None:
    missing = str(tmp_path / name)
    result = runner.invoke(app, ["stats", missing])
    assert result.exit_code == 2
    # listed as left out, in its one wording (docs/cli.md): the record of the rest is printed
    words = problem("unreadable", missing, "No such file or directory").line
    assert result.stdout.splitlines()[0] == "Record: 0 logs counted, 1 left out"
    assert result.stdout.splitlines()[-2:] == ["Left out:", f"  {words}"]
    assert result.stderr == "error: 1 input could not be used (listed as left out)\n"


def test_stats_says_when_it_merges_players_and_player_picks_one(tmp_path: Path) -> None:
    folder = _folder(tmp_path, _log("ada"), _log("bob"), _log("ada"))
    merged = runner.invoke(app, ["stats", str(folder), "--json"])
    assert merged.exit_code == 0
    assert orjson.loads(merged.stdout)["played"] == 3
    assert "merging 2 players (ada, bob); give --player NAME" in merged.stderr
    ada = runner.invoke(app, ["stats", str(folder), "--json", "--player", "ada"])
    assert ada.exit_code == 0, ada.output
    rec = orjson.loads(ada.stdout)
    assert (rec["played"], rec["players"]) == (2, ["ada"])
    assert "merging" not in ada.stderr and "1 log of other players left aside" in ada.stderr
    nobody = runner.invoke(app, ["stats", str(folder), "--player", "cy"])
    assert nobody.exit_code == 2
    assert (
        nobody.stderr.splitlines()[-1] == "error: no logs of player 'cy' (3 logs of other players)"
    )


def test_stats_counts_unusable_timestamps_on_stderr(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        _log("ada", finished_at="yesterday"),
        _log("ada", started_at="2027-01-02T10:00:00Z", finished_at="2027-01-01T10:00:00Z"),
        _log("ada", finished_at="2027-01-01T10:00:00Z"),
    )
    result = runner.invoke(app, ["stats", str(folder)])
    assert result.exit_code == 0
    assert "warning: 2 counted logs have an unusable meta.started_at or meta.finished_at" in (
        result.stderr
    )


def test_stats_says_1_log_counted(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", str(_folder(tmp_path, _log("ada")))])
    assert result.stdout.splitlines()[0] == "Record of ada: 1 log counted, 0 left out"


def test_stats_memory_stays_bounded_on_many_invalid_lines(tmp_path: Path) -> None:
    import tracemalloc

    from cruel_tools.game.inputs import iter_units
    from cruel_tools.game.stats import MAX_LISTED, Notes, record, table

    path = tmp_path / "junk.jsonl"
    count = 30_000
    path.write_bytes(b"not json\n" * count)
    notes = Notes()
    tracemalloc.start()
    try:
        rec = record(iter_units([str(path)]), notes=notes)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert notes.excluded == count and len(rec.excluded) == MAX_LISTED
    assert peak < 5_000_000, peak  # every error kept: ~30 MB
    lines = table(rec, notes.excluded)
    assert lines[0] == f"Record: 0 logs counted, {count} left out"
    assert lines[-1] == f"  ... and {count - MAX_LISTED} more, not listed"


# --- 11: the meta keys stats reads are documented -------------------------------------------


def test_log_format_names_every_meta_key_stats_reads() -> None:
    import re

    from cruel_tools.game import stats

    source = (ROOT / "cruel_tools" / "game" / "stats.py").read_text()
    read = set(re.findall(r"""meta(?:\.get\(|, )["'](\w+)["']""", source))
    assert read == set(stats.META_KEYS)
    doc = (ROOT / "docs" / "log-format.md").read_text()
    for key in stats.META_KEYS:
        assert f"| `{key}` |" in doc, key


# --- 6: one wording for a missing file, usage errors on one line -----------------------------

COMMANDS = ["verify", "replay", "show", "grade", "solve", "stats"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_file_has_one_wording_everywhere(tmp_path: Path, command: str) -> None:
    missing = str(tmp_path / "nosuch.json")
    result = runner.invoke(app, [command, missing])
    assert result.exit_code == 2
    words = f"cannot read {missing}: No such file or directory"
    line = f"{missing}: unreadable: {words} [unreadable]"  # the verifier's line, everywhere
    if command == "verify":  # a batch: one report line per input, the summary on stderr
        assert result.stdout == f"{line}\n"
    elif command == "stats":  # listed as left out, the record printed (docs/cli.md)
        assert result.stdout.endswith(f"Left out:\n  {line}\n")
    else:
        assert result.stderr == f"{line}\n" and result.stdout == ""
    assert "Errno" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        *([command, "--bogus", "x"] for command in COMMANDS),
        ["stats", "x", "--today"],
        ["deal", "seventeen"],
        ["nosuch"],
        ["--bogus"],
        ["verify"],
        ["keys", "add", "--bogus"],
    ],
)
def test_usage_errors_are_one_line(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("error: ") and line.endswith(" -h')"), line
    assert "╭" not in result.stderr and "Usage:" not in result.stderr


# --- 7: help ------------------------------------------------------------------------------------


def _commands() -> list[list[str]]:
    from typer.main import get_command

    group: Any = get_command(app)
    found = []
    for name, command in group.commands.items():
        found.append([name])
        found += [[name, sub] for sub in getattr(command, "commands", {})]
    return found


def test_top_level_help_names_every_command() -> None:
    result = runner.invoke(app, ["--help"])
    description = result.stdout.split("Options:")[0]
    for command in _commands():
        if len(command) == 1:
            assert f"{command[0]} (" in description, command


@pytest.mark.parametrize("command", _commands(), ids=" ".join)
def test_every_help_has_examples_and_readable_metavars(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "Examples:\n\n    $ cruel " + " ".join(command) in result.stdout
    for typer_metavar in ("<bool>", "<list", "<int", "<str>", "<path>", "<float"):
        assert typer_metavar not in result.stdout, typer_metavar
    assert "╭" not in result.stdout  # plain text, not Rich boxes


def _help_at(columns: int) -> str:
    """``cruel verify --help`` in a terminal that wide (CliRunner forces 80 columns)."""
    env = dict(os.environ, COLUMNS=str(columns))
    command = [sys.executable, "-m", "cruel_tools.cli.app", "verify", "--help"]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT).stdout


def test_help_is_wrapped_by_the_terminal_not_at_80_columns() -> None:
    wide, narrow = _help_at(160), _help_at(60)
    assert max(map(len, wide.splitlines())) > 80
    assert max(map(len, narrow.splitlines())) <= 60
    # a paragraph of the docstring is one line when the terminal is wide enough
    assert (
        "  With --puzzle FILE (or --puzzle-id ID, a puzzle of the set cruel serve would serve, "
        "or of --puzzles) a log must play" in wide
    )
    assert "[default: 1; 1<=x<=64]" in wide  # defaults shown


# --- 9: documented outputs are what the tool prints -----------------------------------------


# docs/rules.md's seed examples and docs/replay.md's stats example are run and compared by
# tests/test_doc_shell_examples.py, with every other ```console block of the docs.


# --- 1, 2: progress on stderr, results on stdout untouched --------------------------------------


def test_verify_progress_has_count_rate_and_time_left_and_never_mixes_with_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _jsonl(tmp_path, *["won.json"] * 250)
    plain = runner.invoke(app, ["verify", str(path)])
    monkeypatch.setattr("cruel_tools.cli.common.is_terminal", lambda stream: True)
    shown = runner.invoke(app, ["verify", "--jobs", "2", str(path)])
    assert shown.exit_code == plain.exit_code == 0
    assert shown.stdout == plain.stdout  # results untouched: no bar, no escape codes
    assert "\r" not in shown.stdout and "\x1b" not in shown.stdout
    err = shown.stderr
    assert "verifying [" in err and "250/250 logs " in err and "/s " in err and " left" in err
    assert err.endswith("\r\x1b[Kverified 250 logs: 250 valid, 0 invalid, 0 unreadable\n")


def test_a_result_line_first_takes_the_progress_line_away(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import cruel_tools.cli.common as cli

    monkeypatch.setattr(cli, "is_terminal", lambda stream: True)
    with cli.Showing(cli.Progress(500, unit=" logs")) as progress:
        progress.step()
        progress._draw(force=True)
        drawn = capsys.readouterr().err
        cli.emit("a.json: valid: won")
        captured = capsys.readouterr()
        assert drawn.startswith("\r\x1b[Kverifying [") and " 1/500 logs " in drawn
        assert captured.out == "a.json: valid: won\n"
        # taken away before the result, drawn again under it
        assert captured.err.startswith("\r\x1b[K\r\x1b[Kverifying [") and " 1/500 logs " in drawn


def test_progress_is_silent_off_a_terminal(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, *["won.json"] * 250)
    result = runner.invoke(app, ["verify", str(path)])
    assert result.stderr == "verified 250 logs: 250 valid, 0 invalid, 0 unreadable\n"


def test_a_ticking_progress_spins_with_the_time_spent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """solve (no total) and daily (one step a day) redraw from a thread: never silent."""
    import time

    import cruel_tools.cli.common as cli

    monkeypatch.setattr(cli, "is_terminal", lambda stream: True)
    progress = cli.Progress(None, label="solving", ticking=True)
    time.sleep(0.6)
    progress.close()
    err = capsys.readouterr().err
    assert err.count("\r\x1b[Ksolving ") >= 2 and "0:00" in err
    assert err.endswith("\r\x1b[K")  # gone at the end
    daily = cli.Progress(3, label="making puzzles", at_least=1, ticking=True, unit=" days")
    daily.step()
    time.sleep(0.3)
    daily.close()
    assert "making puzzles [########................] 1/3 days " in capsys.readouterr().err


# --- one output convention: --json on every command that reports, --quiet ----------------------


@pytest.mark.parametrize(
    ("command", "json", "quiet"),
    [
        (["verify"], True, True),
        (["replay"], True, False),
        (["show"], True, False),
        (["stats"], True, True),
        (["solve"], True, True),
        (["grade"], True, True),
        (["generate"], False, True),
        (["daily"], False, True),
    ],
)
def test_json_and_quiet_are_the_same_option_everywhere(
    command: list[str], json: bool, quiet: bool
) -> None:
    """docs/cli.md's table: which command has which, with one wording each."""
    text = runner.invoke(app, [*command, "-h"], env={"COLUMNS": "200"}).stdout
    assert bool(re.search(r"^  --json +Print .* as JSON\.$", text, re.M)) == json, text
    quiet_help = r"^  -q, --quiet +No progress, notes or summary on stderr"
    assert bool(re.search(quiet_help, text, re.M)) == quiet, text


def test_replay_json_is_one_object_per_log_with_steps_and_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    one = runner.invoke(app, ["replay", "samples/won.json", "--json", "--from", "55", "--to", "56"])
    assert one.exit_code == 0 and one.stderr == ""
    doc = orjson.loads(one.stdout)
    assert doc["format"] == "cruel-replay/1" and doc["outcome"] == "won"
    assert [s["step"] for s in doc["steps"]] == [55, 56]
    assert doc["steps"][1]["text"] == "Q♦ pile 1 → foundation"
    assert doc["steps"][1]["position"]["foundations"] == {"S": 5, "H": 10, "D": 12, "C": 13}
    many = runner.invoke(app, ["replay", "samples", "--json", "--moves-only"])
    docs = [orjson.loads(line) for line in many.stdout.splitlines()]
    assert [d["source"]["file"] for d in docs] == [
        "samples/blocked.json",
        "samples/illegal.json",
        "samples/won.json",
    ]
    assert all("position" not in s for d in docs for s in d["steps"])
    assert docs[1]["error"]["code"] == "wrong-rank" and many.exit_code == 1
    final = runner.invoke(app, ["replay", "samples/won.json", "--json", "--final"])
    assert orjson.loads(final.stdout)["steps"] == []


def test_show_json_is_the_deal_as_cruel_deal_prints_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    shown = runner.invoke(app, ["show", "17", "--json"])
    dealt = runner.invoke(app, ["deal", "17"])
    assert shown.exit_code == 0 and shown.stdout == dealt.stdout
    from_log = orjson.loads(runner.invoke(app, ["show", "samples/won.json", "--json"]).stdout)
    assert from_log["number"] == 1 and len(from_log["piles"]) == 12


def test_quiet_leaves_stderr_to_errors_and_stdout_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    loud = runner.invoke(app, ["stats", "samples", "--today", "2027-01-06"])
    quiet = runner.invoke(app, ["stats", "samples", "--today", "2027-01-06", "-q"])
    assert "note: one record merging 2 players" in loud.stderr
    assert quiet.stderr == "" and quiet.stdout == loud.stdout
    verify = runner.invoke(app, ["verify", "-q", "--json", "samples"])
    assert verify.stderr == "" and len(verify.stdout.splitlines()) == 3  # --json: every report
    assert verify.exit_code == 1  # the exit status still says it
    missing = runner.invoke(app, ["verify", "-q", "nosuch.json"])
    assert "cannot read nosuch.json" in missing.stdout and missing.exit_code == 2
    solved = runner.invoke(app, ["solve", "samples/won.json", "-q", "--json"])
    assert solved.stderr == "" and orjson.loads(solved.stdout)["verdict"] == "won"


def test_quiet_turns_progress_off_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _jsonl(tmp_path, *["won.json"] * 250)
    monkeypatch.setattr("cruel_tools.cli.common.is_terminal", lambda stream: True)
    shown = runner.invoke(app, ["verify", "-q", str(path)])
    assert shown.exit_code == 0 and shown.stderr == "" and shown.stdout == ""
