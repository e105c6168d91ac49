"""Where ``cruel serve`` finds its puzzles: one setting (``--puzzles``, ``CRUEL_PUZZLES``,
``./puzzles``, the data folder, the packaged demo set), resolved by ``resolve_puzzles``; and the
demo set's dates served as a cycle (issue #26, works from anywhere)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.puzzles import PuzzleSet, puzzle_files
from cruel_tools.puzzles.location import (
    ENV_PUZZLES,
    data_folder,
    demo_day,
    packaged_puzzles,
    resolve_puzzles,
)
from cruel_tools.service import config

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """A working folder with ``puzzles/``, a data home with a data folder, and an explicit set."""
    cwd, home, given = tmp_path / "cwd", tmp_path / "xdg", tmp_path / "given"
    for folder in (cwd / "puzzles", home / "cruel-tools" / "puzzles", given):
        folder.mkdir(parents=True)
    return {"cwd": cwd, "home": home, "given": given}


def test_the_order_is_option_variable_working_folder_data_folder_package(
    places: dict[str, Path],
) -> None:
    cwd, home, given = places["cwd"], places["home"], places["given"]
    env = {"XDG_DATA_HOME": str(home), ENV_PUZZLES: str(given / "by-env")}
    found = resolve_puzzles(given, env, cwd)
    assert (found.path, found.source) == (given, "--puzzles")
    found = resolve_puzzles(None, env, cwd)
    assert (found.path, found.source) == (given / "by-env", "CRUEL_PUZZLES")
    del env[ENV_PUZZLES]
    found = resolve_puzzles(None, env, cwd)
    assert (found.path, found.source) == (cwd / "puzzles", "./puzzles")
    (cwd / "puzzles").rmdir()
    found = resolve_puzzles(None, env, cwd)
    assert (found.path, found.source) == (home / "cruel-tools" / "puzzles", "data folder")
    (home / "cruel-tools" / "puzzles").rmdir()
    found = resolve_puzzles(None, env, cwd)
    assert (found.path, found.source) == (packaged_puzzles(), "package")
    assert found.describe() == f"puzzles: {packaged_puzzles()} (from package)"


def test_an_empty_variable_is_no_setting(places: dict[str, Path]) -> None:
    env = {"XDG_DATA_HOME": str(places["home"]), ENV_PUZZLES: ""}
    assert resolve_puzzles(None, env, places["cwd"]).source == "./puzzles"


def test_an_option_or_variable_is_taken_as_given_even_when_missing(tmp_path: Path) -> None:
    """Reading the set says what is wrong with it (one line, exit 2), not the resolution."""
    found = resolve_puzzles(tmp_path / "nope", {}, tmp_path)
    assert (found.path, found.writable, found.demo) == (tmp_path / "nope", False, False)
    assert found.write_to == data_folder({})


def test_the_package_is_read_only_and_new_days_go_to_the_data_folder(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    found = resolve_puzzles(None, env, tmp_path)
    assert (found.source, found.writable, found.demo) == ("package", False, True)
    assert found.data == tmp_path / "xdg" / "cruel-tools" / "puzzles"
    assert found.write_to == found.data and not found.data.exists()  # made by the first write


def test_a_writable_folder_takes_its_new_days(places: dict[str, Path]) -> None:
    found = resolve_puzzles(places["given"], {}, places["cwd"])
    assert found.writable and found.write_to == places["given"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any folder")
def test_a_folder_this_process_cannot_write_is_not_writable(places: dict[str, Path]) -> None:
    places["given"].chmod(0o555)
    try:
        assert not resolve_puzzles(places["given"], {}, places["cwd"]).writable
    finally:
        places["given"].chmod(0o755)


def test_the_clones_puzzles_folder_is_the_demo_set_and_never_written() -> None:
    """In an editable install the package's set is the repository's puzzles/ (a symbolic
    link): run from the clone, ``./puzzles`` is the demo set too."""
    found = resolve_puzzles(None, {}, ROOT)
    assert (found.source, found.demo, found.writable) == ("./puzzles", True, False)


def test_a_copy_of_the_demo_set_is_the_demo_but_writable(tmp_path: Path) -> None:
    """A clone's puzzles/ beside a non-editable install, or a copy: its dates cycle too."""
    import shutil

    shutil.copytree(packaged_puzzles(), tmp_path / "puzzles")
    found = resolve_puzzles(None, {}, tmp_path)
    assert (found.source, found.demo, found.writable) == ("./puzzles", True, True)
    (tmp_path / "puzzles" / "index.json").write_text("{}")
    assert not resolve_puzzles(None, {}, tmp_path).demo


def test_the_packaged_set_is_the_committed_one() -> None:
    packaged = packaged_puzzles()
    names = [p.relative_to(packaged) for p in puzzle_files(packaged)]
    assert names == [p.relative_to(ROOT / "puzzles") for p in puzzle_files(ROOT / "puzzles")]
    assert len(names) == 360 and (packaged / "index.json").is_file()


def test_the_data_folder_follows_xdg() -> None:
    assert data_folder({"XDG_DATA_HOME": "/srv/data"}) == Path("/srv/data/cruel-tools/puzzles")
    home = Path.home() / ".local" / "share" / "cruel-tools" / "puzzles"
    assert data_folder({}) == home
    assert data_folder({"XDG_DATA_HOME": "relative/path"}) == home  # the spec: ignore it


def test_the_demo_set_is_a_cycle_of_its_dates() -> None:
    first, last = dt.date(2027, 1, 1), dt.date(2027, 3, 31)  # 90 days
    assert demo_day(dt.date(2027, 2, 14), first, last) == dt.date(2027, 2, 14)
    assert demo_day(dt.date(2026, 12, 2), first, last) == dt.date(2027, 3, 2)  # 30 days before
    assert demo_day(dt.date(2027, 4, 1), first, last) == first
    assert demo_day(dt.date(2027, 4, 2), first, last) == dt.date(2027, 1, 2)
    days = {demo_day(dt.date(2026, 1, 1) + dt.timedelta(d), first, last) for d in range(400)}
    assert min(days) == first and max(days) == last and len(days) == 90


def test_a_demo_server_has_open_puzzles_on_any_date(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(config, "_now", lambda zone: dt.datetime(2026, 12, 2, 12, tzinfo=zone))
    settings = service.Settings(puzzles=packaged_puzzles(), db=tmp_path / "db.sqlite", demo=True)
    with TestClient(service.create_app(settings)) as client:
        assert client.get("/v1/health").json()["today"] == "2027-03-02"
        daily = client.get("/v1/puzzles/daily/today").json()
        assert [p["id"] for p in daily["puzzles"]][0] == "2027-03-02-easy"
        assert client.get("/v1/puzzles/2027-03-02-hard").status_code == 200
    # Not a demo: the real date, and no puzzle of it.
    plain = service.Settings(puzzles=packaged_puzzles(), db=tmp_path / "db.sqlite")
    with TestClient(service.create_app(plain)) as client:
        assert client.get("/v1/health").json()["today"] == "2026-12-02"
        assert client.get("/v1/puzzles/daily/today").status_code == 404


def test_demo_is_sent_to_the_workers() -> None:
    sent = service.Settings(puzzles=packaged_puzzles(), demo=True)
    assert service.Settings.from_env(sent.to_env()).demo is True
    assert service.Settings.from_env(service.Settings().to_env()).demo is False


def test_the_packaged_set_loads_as_a_set() -> None:
    assert len(PuzzleSet.load(packaged_puzzles())) == 360
