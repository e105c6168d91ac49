"""Session checks: the tests run against the native core that was built from these sources.

The trap (measured): after a non-editable ``pip install .``, ``python -m pytest`` run from the
checkout imports ``cruel_tools`` from the source tree, where no compiled core lies, and every
test would quietly run on the Python engine. An editable install (``pip install -e``, the
README's test command) builds the core in place, next to its sources. These checks stop a run
that would test something other than what it says.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import cruel_tools
from cruel_tools.game import engine

SOURCES = Path(cruel_tools.__file__).parent / "native"
REBUILD = (
    "rebuild it in place: .venv/bin/pip install -q -e '.[test]' (CONTRIBUTING.md, Native core)"
)


#: Modules whose tests start processes, servers, databases, a browser, Node or a type checker: the
#: default tier runs them, the quick subset for every commit (-m "not slow and not integration and
#: not heavy", CONTRIBUTING.md) leaves them out. tests/browser/ is integration as a whole.
INTEGRATION = frozenset(
    {
        "test_hostile",
        "test_hostile_storage",
        "test_hostile_hints",
        "test_hostile_replay",
        "test_hostile_parsing",
        "test_instances",
        "test_serve_process",
        "test_doc_shell_examples",
        "test_cruel_js",
        "test_lint",
        "test_public_api",
        "test_secret_stream",
        "test_engine_choice",
        "test_cli_conventions",
        "test_service",
        "test_moderation",
        "test_keys",
        "test_attempts",
        "test_player_records",
        "test_leaderboard",
    }
)


#: Modules whose tests run the solver or the fewest-actions search at real budgets (seconds
#: each); single heavy tests elsewhere carry the mark themselves (@pytest.mark.heavy). The quick
#: subset leaves them out. The second group: modules of ten seconds or more of test time in the
#: quick subset on the 2-core machine (measured with --durations=0, issue #34), which took it to
#: 100 s, over its minute; they stay in the default tier.
HEAVY = frozenset(
    {"test_optimal", "test_optimal_puzzles", "test_analysis", "test_replay_analyze", "test_grading"}
    | {
        "test_cli_verify",
        "test_puzzles",
        "test_live_attempts",
        "test_hostile_terminal",
        "test_player_tokens",
        "test_native_solver",
        "test_input_voice",
        "test_native_optimal",
        "test_native_engine",
        "test_i18n",
        "test_puzzle_lookup",
    }
)


#: The committed puzzle set, which no test writes to.
COMMITTED_PUZZLES = (Path(__file__).resolve().parent.parent / "puzzles").resolve()


@pytest.fixture(autouse=True, scope="session")
def _committed_puzzles_read_once() -> Iterator[None]:
    """Test speed only: every app a test makes (hundreds) reads the committed puzzle set and
    computes its deals' canonical forms (about 0.3 s each); the set is never written by a test,
    so each worker reads it once and shares it. Any other folder is read as the service reads
    it. The service itself reads its set once per process, at start, so nothing is skipped that
    a server does."""
    from cruel_tools.puzzles import PuzzleSet
    from cruel_tools.service import help_guard
    from cruel_tools.site.embargo import Embargo

    load = PuzzleSet.load.__func__  # type: ignore[attr-defined]
    sets: dict[Path, PuzzleSet] = {}
    embargoes: dict[tuple[int, ...], Embargo] = {}
    make_embargo = Embargo

    def read_once(cls: type[PuzzleSet], folder: Path) -> PuzzleSet:
        where = Path(folder).resolve()
        if where != COMMITTED_PUZZLES:
            return load(cls, folder)  # type: ignore[no-any-return]
        if where not in sets:
            sets[where] = load(cls, folder)
        return sets[where]

    def embargo_once(puzzles: Iterable[Any]) -> Embargo:
        listed = list(puzzles)
        key = tuple(id(p) for p in listed)
        if key not in embargoes:
            embargoes[key] = make_embargo(listed)
        return embargoes[key]

    patch = pytest.MonkeyPatch()
    patch.setattr(PuzzleSet, "load", classmethod(read_once))
    patch.setattr(help_guard, "Embargo", embargo_once)
    yield
    patch.undo()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores this process may use. About a third of the
    default tier waits (servers, browsers, PostgreSQL, subprocesses), so a third worker on two
    cores keeps them busier: the default tier in 4 min 13 s with three workers against 4 min
    40 s with two, side by side on a quiet 2-core machine (CONTRIBUTING.md, Tests)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return cores + 1


#: Default-tier tests the slow tier takes, as measured (benchmarks/tier_split.py writes the list:
#: each took 1.5 s or more on the 2-core machine, and together they were more than half of the
#: README's command, over its 5 minutes; issue #34).
MEASURED_SLOW = Path(__file__).parent / "slow_tests.txt"


def measured_slow() -> frozenset[str]:
    """The node ids of tests/slow_tests.txt. Under ``CRUEL_ENGINE=python`` none: the fallback
    tier (``-m 'fallback and not slow'``) keeps every test it had."""
    if os.environ.get(engine.ENV) == "python" or not MEASURED_SLOW.exists():
        return frozenset()
    lines = (line.strip() for line in MEASURED_SLOW.read_text().splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow = measured_slow()
    for item in items:
        path = Path(str(item.fspath))
        if path.stem in INTEGRATION or path.parent.name == "browser":
            item.add_marker(pytest.mark.integration)
        if path.stem in HEAVY:
            item.add_marker(pytest.mark.heavy)
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


def pytest_sessionstart(session: pytest.Session) -> None:
    # cruel.js's tests skip without Node on a contributor's machine; CI requires it (.ci/run).
    if os.environ.get("CRUEL_REQUIRE_NODE") and shutil.which("node") is None:
        pytest.exit(
            "CRUEL_REQUIRE_NODE is set but node is not on PATH (apt-get install -y nodejs)", 4
        )
    try:
        core = engine.native()
    except engine.NativeCoreMissing as exc:
        pytest.exit(f"{exc}; {REBUILD}", returncode=4)
    if core is not None:
        built = Path(core.__file__)
        newest = max(p.stat().st_mtime for p in SOURCES.glob("*.[ch]pp"))
        if built.parent == SOURCES.parent and built.stat().st_mtime < newest:
            pytest.exit(
                f"the native core {built.name} is older than its sources; {REBUILD}", returncode=4
            )
    elif os.environ.get(engine.ENV, "auto") != "python" and _built_elsewhere():
        pytest.exit(
            "pip built the native core into site-packages, but the tests import cruel_tools from "
            f"this checkout, which has none; {REBUILD}",
            returncode=4,
        )


def _built_elsewhere() -> bool:
    """Whether a compiled core lies in another copy of the package on the path (site-packages)
    than the one imported. Looked for by file: the checkout's own egg-info, which pip leaves
    there, shadows the installed distribution's metadata."""
    here = SOURCES.parent.resolve()
    for entry in sys.path:
        folder = Path(entry or ".").resolve() / "cruel_tools"
        if folder != here and any(f.suffix in (".so", ".pyd") for f in folder.glob("_native.*")):
            return True
    return False


@pytest.fixture
def sigint_soon() -> Iterator[None]:
    """SIGINT to the main thread 0.3 s from now (what Ctrl-C sends): the tests that stop a
    native search as Ctrl-C would."""
    main = threading.main_thread().ident
    assert main is not None and threading.current_thread() is threading.main_thread()
    timer = threading.Timer(0.3, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
