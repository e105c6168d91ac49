"""The secret daily stream (tracker issue 10): ``cruel daily --secret-file`` and ``cruel generate
--secret-file`` draw deals from a stream keyed by the site's secret, reproducible by whoever holds
it and not by anyone with the toolkit alone; the set's index records the key's fingerprint, never
the key. Small grading budgets; the generated folders are shared by the tests of this module."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import shutil
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner, Result

from cruel_tools import puzzles
from cruel_tools.cli import app
from cruel_tools.grading import Budget

SMALL = Budget(
    solver_states=5000,
    critical_states=30,
    playouts=10,
    playout_steps=200,
    player_states=2000,
    optimal_states=2000,  # par: the fewest-actions search, kept small here too
)
DAY = dt.date(2027, 1, 1)  # a committed day of the public demo set, too
SECRET = b"correct horse battery staple 7f3a9c"
OTHER = b"another site's secret, 41d2"
runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def small_budgets() -> Iterator[None]:
    real_daily: Callable[..., Any] = puzzles.daily
    real_generate: Callable[..., Any] = puzzles.generate
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            puzzles, "daily", lambda *a, **k: real_daily(*a, budget=SMALL, max_candidates=60, **k)
        )
        mp.setattr(puzzles, "generate", lambda *a, **k: real_generate(*a, budget=SMALL, **k))
        yield


def cli(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), result.exception
    return result


def secret_file(folder: Path, secret: bytes, name: str = "secret") -> Path:
    path = folder / name
    path.write_bytes(secret + b"\n")  # as an editor saves it: the final newline is not the key
    return path


def daily(out: Path, secret: Path | None, jobs: int = 1) -> Result:
    args = ["daily", "--start", DAY.isoformat(), "--days", "1", "--out", str(out)]
    if secret is not None:
        args += ["--secret-file", str(secret)]
    return cli(*args, "--jobs", str(jobs))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def deal_numbers(folder: Path) -> list[int | None]:
    return [puzzles.load_puzzle(p).deal.number for p in puzzles.puzzle_files(folder)]


def fingerprint(secret: bytes) -> str:
    return hmac.new(secret, b"cruel-tools key fingerprint", hashlib.sha256).hexdigest()[:16]


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One day made four ways: with SECRET (jobs 1 and jobs 2), with OTHER, and public."""
    root = tmp_path_factory.mktemp("sets")
    keys = root / "keys"
    keys.mkdir()
    made = {}
    for name, secret, jobs in [
        ("secret", SECRET, 1),
        ("secret-jobs-2", SECRET, 2),
        ("other", OTHER, 1),
        ("public", None, 1),
    ]:
        key = secret_file(keys, secret, name) if secret is not None else None
        result = daily(root / name, key, jobs)
        assert result.exit_code == 0, result.output
        made[name] = root / name
    made["keys"] = keys
    return made


def test_a_secret_set_is_reproducible_whatever_the_jobs(sets: dict[str, Path]) -> None:
    first = snapshot(sets["secret"])
    assert len(puzzles.puzzle_files(sets["secret"])) >= 3
    assert snapshot(sets["secret-jobs-2"]) == first
    # a rerun over the set, with the same secret, rewrites the same bytes
    assert daily(sets["secret"], sets["keys"] / "secret").exit_code == 0
    assert snapshot(sets["secret"]) == first


def test_a_secret_set_has_other_deals_than_the_public_one(sets: dict[str, Path]) -> None:
    keyed = set(deal_numbers(sets["secret"]))
    assert keyed.isdisjoint(deal_numbers(sets["public"]))
    assert keyed.isdisjoint(deal_numbers(sets["other"]))
    assert set(deal_numbers(sets["other"])).isdisjoint(deal_numbers(sets["public"]))
    committed = puzzles.puzzle_files(Path(__file__).resolve().parent.parent / "puzzles")
    published = {puzzles.load_puzzle(p).deal.number for p in committed if DAY.isoformat() in p.name}
    assert published and keyed.isdisjoint(published)


def test_without_the_secret_the_tool_cannot_derive_the_deals(sets: dict[str, Path]) -> None:
    # Everything the tool can draw for that day without the secret: the public stream, as far as
    # a day ever looks (and far beyond), and the streams of other secrets.
    seed = f"daily-{DAY.isoformat()}"
    public = set(islice(puzzles.candidates(seed), 20 * puzzles.MAX_CANDIDATES))
    other = set(islice(puzzles.candidates(seed, OTHER), 20 * puzzles.MAX_CANDIDATES))
    for number in deal_numbers(sets["secret"]):
        assert number not in public and number not in other
    # ... while whoever holds the secret finds every one of them at the head of its stream
    keyed = list(islice(puzzles.candidates(seed, SECRET), puzzles.MAX_CANDIDATES))
    assert set(deal_numbers(sets["secret"])) <= set(keyed)


def test_the_index_records_the_fingerprint_and_no_file_holds_the_secret(
    sets: dict[str, Path],
) -> None:
    for name, secret in [("secret", SECRET), ("other", OTHER)]:
        index = orjson.loads((sets[name] / "index.json").read_bytes())
        assert index["key_fingerprint"] == fingerprint(secret)
        assert index["format"] == puzzles.INDEX_FORMAT
        for path in sets[name].rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert secret not in data and secret.hex().encode() not in data, path
    assert fingerprint(SECRET) != fingerprint(OTHER)
    assert "key_fingerprint" not in orjson.loads((sets["public"] / "index.json").read_bytes())
    assert (sets["public"] / "index.json").read_bytes() == puzzles.index_bytes(sets["public"])


@pytest.mark.parametrize(
    ("made", "given"),
    [("secret", "other"), ("secret", None), ("public", "secret")],
    ids=["another-secret", "no-secret-over-a-secret-set", "a-secret-over-the-public-set"],
)
def test_writing_over_a_set_made_with_another_stream_is_refused(
    sets: dict[str, Path], tmp_path: Path, made: str, given: str | None
) -> None:
    folder = tmp_path / made
    shutil.copytree(sets[made], folder)
    before = snapshot(folder)
    result = daily(folder, sets["keys"] / given if given is not None else None)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "secret" in lines[0]
    assert SECRET.decode() not in result.output and OTHER.decode() not in result.output
    assert snapshot(folder) == before


def test_the_library_refuses_with_a_puzzle_set_error(sets: dict[str, Path]) -> None:
    with pytest.raises(puzzles.PuzzleSetError) as info:
        puzzles.daily(DAY, 1, sets["secret"], secret=OTHER)
    assert info.value.code == "secret-mismatch"
    assert fingerprint(SECRET) in str(info.value)


def test_an_index_that_cannot_tell_is_refused(tmp_path: Path) -> None:
    (tmp_path / "index.json").write_bytes(b"not json")
    with pytest.raises(puzzles.PuzzleSetError) as info:
        puzzles.daily(DAY, 1, tmp_path, secret=SECRET)
    assert info.value.code == "secret-mismatch"


def test_an_empty_or_missing_secret_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"\n")
    missing = tmp_path / "missing"
    expected = {
        empty: f"error: --secret-file: {empty} is empty: a secret is needed\n",
        missing: f"error: --secret-file: cannot read {missing}: No such file or directory\n",
    }
    daily = ["daily", "--start", DAY.isoformat()]
    generate = ["generate", "--tier", "hard", "--seed", "s"]
    for command in (daily, generate):
        for path, message in expected.items():
            result = cli(*command, "--out", str(tmp_path / "out"), "--secret-file", str(path))
            assert result.exit_code == 2
            assert result.stderr == message
    assert not (tmp_path / "out").exists()


def test_the_keyed_stream_is_hmac_sha256_of_the_seed() -> None:
    seed = f"daily-{DAY.isoformat()}"
    block = hmac.digest(SECRET, b"cruel-tools stream " + seed.encode() + bytes(8), "sha256")
    numbers = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]
    assert list(islice(puzzles.candidates(seed, SECRET), 8)) == numbers
    many = list(islice(puzzles.candidates("x", SECRET), 2000))
    assert many == list(islice(puzzles.candidates("x", SECRET), 2000))
    assert len(set(many)) == len(many) and all(0 <= n <= 2**32 - 1 for n in many)
    with pytest.raises(ValueError, match="empty"):
        next(puzzles.candidates("x", b""))


def test_cli_generate_with_a_secret(tmp_path: Path) -> None:
    key = secret_file(tmp_path, SECRET)
    args = ["generate", "--tier", "medium", "--seed", "test"]
    keyed = cli(*args, "--secret-file", str(key))
    assert keyed.exit_code == 0, keyed.output
    assert cli(*args, "--secret-file", str(key)).stdout == keyed.stdout
    public = cli(*args)
    assert public.exit_code == 0, public.output
    one = puzzles.Puzzle.model_validate_json(keyed.stdout)
    assert one.id == "test-medium-1" and one.tier == "medium"
    assert one.deal.number != puzzles.Puzzle.model_validate_json(public.stdout).deal.number
    assert one.deal.number in islice(puzzles.candidates("test", SECRET), 200)
