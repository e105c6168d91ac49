"""``cruel serve --open`` from a wheel, run outside the clone, serves a playable puzzle (issue #26,
works from anywhere): the wheel carries the public demo set, and the server finds it with no
``--puzzles``, no ``puzzles/`` in its folder and no data folder.

The wheel is built from this checkout (``pip wheel``, which fetches its build requirements as
every install does; the C++ core takes about a minute on a fresh clone, 15 s with ``build/``
warm) and installed, alone, into a fresh venv; its dependencies come from the project's venv through a ``.pth`` line (no network; the
project's own editable install is not among them: a ``.pth`` line adds a folder, not the
folder's own ``.pth`` files). Slow tier.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

from cruel_tools.game.log import compact, to_step
from cruel_tools.puzzles import load_puzzle

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fetch(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def get_json(port: int, path: str, body: bytes | None = None) -> tuple[int, Any]:
    status, data = fetch(port, "POST" if body is not None else "GET", path, body)
    return status, json.loads(data)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with this checkout's wheel installed in it, and nothing else of ours."""
    base = tmp_path_factory.mktemp("anywhere")
    wheels, env_dir = base / "wheels", base / "venv"
    build = [sys.executable, "-m", "pip", "wheel", ".", "--no-deps"]
    # The lock every rebuild of the native core takes (build/ is shared with them).
    subprocess.run(
        ["flock", "/tmp/cruel-build.lock", *build, "-q", "-w", str(wheels)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("cruel_tools-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + ["--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "project_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return env_dir


def test_cruel_serve_open_from_tmp_serves_a_playable_puzzle(venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "elsewhere"  # no puzzles/ here, and no data folder
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRUEL_")}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "xdg"))
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import cruel_tools; print(cruel_tools.__file__)"],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert where.startswith(str(venv)), where  # the wheel's package, not the checkout's
    port = free_port()
    args = ["serve", "--open", "--port", str(port), "--no-access-log"]
    proc = subprocess.Popen(
        [str(venv / "bin" / "cruel"), *args],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, health = get_json(port, "/v1/health")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"cruel serve did not come up: {_stderr(proc)}")
                time.sleep(0.2)
        assert status == 200 and health["puzzles"] == 360
        status, front = fetch(port, "GET", "/")
        assert status == 200 and b"<html" in front.lower()
        status, daily = get_json(port, "/v1/puzzles/daily/today?tier=easy")
        assert status == 200 and daily["date"] == health["today"], daily
        puzzle_id = daily["puzzles"][0]["id"]
        status, page = fetch(port, "GET", f"/play/{puzzle_id}")
        assert status == 200 and b"<html" in page.lower()
        status, public = get_json(port, f"/v1/puzzles/{puzzle_id}")
        assert status == 200 and len(public["deal"]["piles"]) == 12
        # Played: a live attempt of its par solution (from the packaged file) wins.
        packaged = Path(where).parent / "data" / "puzzles"
        puzzle = load_puzzle(packaged / puzzle_id[:4] / f"{puzzle_id}.json")
        start = json.dumps({"format": "cruel-attempt/1", "player": "ada", "auto": "off"})
        status, attempt = get_json(port, f"/v1/puzzles/{puzzle_id}/attempts", start.encode())
        assert status == 201, attempt
        steps = json.dumps({"steps": [compact(to_step(e)) for e in puzzle.solution]})
        url = f"/v1/attempts/{attempt['attempt']}/steps"
        status, won = get_json(port, url, steps.encode())
        assert status == 200 and won["status"] == "won", won
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    said = _stderr(proc)
    assert f"puzzles: {packaged} (from package): the public demo set, 2027-01-01 to 2027-03-31" in (
        said
    ), said
    assert not (tmp_path / "xdg").exists()  # nothing written to the data folder


def _stderr(proc: subprocess.Popen[bytes]) -> str:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    return proc.stderr.read().decode() if proc.stderr else ""
