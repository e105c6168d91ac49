"""Which engine runs, and who says so (issue #22): ``cruel --version``'s engine line under
``CRUEL_ENGINE`` = python, native and auto, with the compiled core and without it; the one-line
refusal (exit 4) of every command under ``CRUEL_ENGINE=native`` when the core is missing, and
of a ``CRUEL_ENGINE`` that names no engine; ``/v1/health``'s engine.

``cruel --version`` answers in two places, the console script's fast path (console.py, before
Typer loads) and the Typer app (``python -m cruel_tools.cli.app``, ``CliRunner``): both are run
here and must agree. A missing core is simulated in a subprocess by an import hook that refuses
``cruel_tools._native`` as Python does when no such file exists, and in-process by replacing
``engine._load``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import cruel_tools
from cruel_tools import service
from cruel_tools.cli.app import app
from cruel_tools.cli.startup import EXIT_NO_NATIVE_CORE
from cruel_tools.game import engine

pytestmark = pytest.mark.fallback  # what they test holds on the pure-Python install too

ROOT = Path(__file__).resolve().parent.parent
VERSION = f"cruel {cruel_tools.__version__}"
#: What Python says of ``from . import _native`` where no compiled module lies.
NO_MODULE = f"cannot import name '_native' from 'cruel_tools' ({cruel_tools.__file__})"
MISSING = (
    f"error: CRUEL_ENGINE=native but the native core is not available (no compiled core: "
    f"{NO_MODULE}); reinstall with a C++17 compiler (g++ or clang++) on the PATH"
)
BUILT = engine._load()[0] is not None
needs_core = pytest.mark.skipif(not BUILT, reason="the native core is not built here")

#: Runs ``main`` (the console script's) or the Typer app with ``cruel_tools._native`` made
#: impossible to import, as on a machine where no compiler built it.
WITHOUT_CORE = """
import sys

class NoCore:
    def find_spec(self, name, path=None, target=None):
        if name == "cruel_tools._native":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoCore())
sys.argv[0] = "cruel"
if sys.argv[1] == "typer":
    del sys.argv[1]
    from cruel_tools.cli.app import app
    app()
from cruel_tools.cli.console import main
sys.exit(main())
"""


def run(
    *args: str, engine_env: str | None, core: bool = True, typer: bool = False
) -> subprocess.CompletedProcess[str]:
    """``cruel ARGS`` as a process, through the console script's entry point (or, with
    ``typer``, the Typer app's), with ``CRUEL_ENGINE`` set (None: unset), with the compiled
    core or without it."""
    env = {k: v for k, v in os.environ.items() if k != engine.ENV}
    if engine_env is not None:
        env[engine.ENV] = engine_env
    if core:
        module = "cruel_tools.cli.app" if typer else "cruel_tools.cli.console"
        argv = [sys.executable, "-m", module, *args]
    else:
        argv = [sys.executable, "-c", WITHOUT_CORE, *(["typer"] if typer else []), *args]
    return subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def version_out(*, engine_env: str | None, core: bool = True) -> str:
    """``cruel --version``'s output, the same from the fast path and from Typer."""
    fast = run("--version", engine_env=engine_env, core=core)
    slow = run("--version", engine_env=engine_env, core=core, typer=True)
    assert (fast.returncode, fast.stderr) == (0, ""), fast.stderr
    assert (slow.returncode, slow.stderr) == (0, ""), slow.stderr
    assert fast.stdout == slow.stdout
    return fast.stdout


# --- cruel --version --------------------------------------------------------------------------


def test_version_under_cruel_engine_python_says_so() -> None:
    out = version_out(engine_env="python")
    assert out == f"{VERSION}\nengine: python (CRUEL_ENGINE=python)\n"


@needs_core
@pytest.mark.parametrize("choice", ["native", "auto", None, "  Native "])
def test_version_says_native_where_the_core_is_built(choice: str | None) -> None:
    assert version_out(engine_env=choice) == f"{VERSION}\nengine: native\n"


@pytest.mark.parametrize("choice", ["auto", None, ""])
def test_version_without_the_core_falls_back_and_says_why(choice: str | None) -> None:
    out = version_out(engine_env=choice, core=False)
    assert out == f"{VERSION}\nengine: python (no compiled core: {NO_MODULE})\n"


def test_python_is_chosen_even_without_the_core() -> None:
    out = version_out(engine_env="python", core=False)
    assert out == f"{VERSION}\nengine: python (CRUEL_ENGINE=python)\n"


# --- CRUEL_ENGINE=native without the core: every command stops at once ---------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["verify", "samples/won.json"],
        ["rules"],
        ["solve", "17"],
        ["serve", "--port", "0"],
        ["keys", "list"],
        ["nosuch"],
    ],
)
@pytest.mark.parametrize("typer", [False, True], ids=["script", "typer"])
def test_native_without_the_core_is_one_line_and_exit_4(args: list[str], typer: bool) -> None:
    done = run(*args, engine_env="native", core=False, typer=typer)
    assert (done.returncode, done.stdout) == (EXIT_NO_NATIVE_CORE, "")
    assert done.stderr == MISSING + "\n"


@pytest.mark.parametrize("value", ["fast", "c++", "nativ"])
def test_a_cruel_engine_naming_no_engine_is_refused_in_one_line(value: str) -> None:
    words = f"error: CRUEL_ENGINE={value!r}: use one of auto, python, native\n"
    for typer in (False, True):
        done = run("--version", engine_env=value, typer=typer)
        assert (done.returncode, done.stdout, done.stderr) == (EXIT_NO_NATIVE_CORE, "", words)


def test_exit_4_is_no_other_exit_code() -> None:
    from cruel_tools.cli.app import EXIT_CLOSED_PIPE, EXIT_INTERNAL_ERROR
    from cruel_tools.game.verify import EXIT_CODES

    taken = {*EXIT_CODES.values(), EXIT_INTERNAL_ERROR, EXIT_CLOSED_PIPE}
    assert EXIT_NO_NATIVE_CORE not in taken


# --- the same in-process (CliRunner), the core taken away by replacing engine._load ---------


@pytest.fixture
def no_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_load", lambda: (None, f"no compiled core: {NO_MODULE}"))


def test_in_process_version_and_refusal_without_the_core(
    no_core: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    monkeypatch.setenv(engine.ENV, "auto")
    shown = runner.invoke(app, ["--version"])
    assert shown.exit_code == 0
    assert shown.stdout == f"{VERSION}\nengine: python (no compiled core: {NO_MODULE})\n"
    monkeypatch.setenv(engine.ENV, "native")
    refused = runner.invoke(app, ["deal", "1"])
    assert refused.exit_code == EXIT_NO_NATIVE_CORE
    assert (refused.stdout, refused.stderr) == ("", MISSING + "\n")


# --- /v1/health -----------------------------------------------------------------------------


Health = Callable[[], dict[str, Any]]


@pytest.fixture
def health_of(tmp_path: Path) -> Health:
    """The health document of a service made now (the engine is decided at start)."""

    def health() -> dict[str, Any]:
        settings = service.Settings(puzzles=ROOT / "puzzles", db=tmp_path / "cruel.sqlite")
        with TestClient(service.create_app(settings)) as client:
            response = client.get("/v1/health")
            assert response.status_code == 200
            body: dict[str, Any] = response.json()
            return body

    return health


def test_health_says_python_under_cruel_engine_python(
    health_of: Health, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine.ENV, "python")
    body = health_of()
    assert (body["engine"], body["engine_line"]) == (
        "python",
        "engine: python (CRUEL_ENGINE=python)",
    )


def test_health_says_why_without_the_core(
    health_of: Health, no_core: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(engine.ENV, raising=False)
    body = health_of()
    assert (body["engine"], body["engine_line"]) == (
        "python",
        f"engine: python (no compiled core: {NO_MODULE})",
    )


@needs_core
def test_health_says_native_where_the_core_is_built(
    health_of: Health, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine.ENV, "native")
    body = health_of()
    assert (body["engine"], body["engine_line"]) == ("native", "engine: native")


def test_the_service_refuses_to_start_on_a_missing_native_core(
    no_core: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(engine.ENV, "native")
    settings = service.Settings(puzzles=ROOT / "puzzles", db=tmp_path / "cruel.sqlite")
    with pytest.raises(engine.NativeCoreMissing) as info:
        service.create_app(settings)
    assert info.value.code == "no-native-core"
