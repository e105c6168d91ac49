"""Every HTTP example of README.md and docs/service.md runs against a server, and prints what
the page says it prints (issue #24, finding 9: README's submission example sent no key and got
401 for months, because its examples were ```` ```sh ```` blocks that no test ran).

The notation (CONTRIBUTING.md, "Examples in the docs"): a ```` ```console server ```` block is
run as a ```` ```console ```` block is (tests/test_doc_shell_examples.py: ``$ `` commands, the
lines they print, ``...`` matching any text), with a server to speak to:

- one ``cruel serve --today 2027-01-06`` per page, on a free loopback port and a new database,
  started before the page's first block and stopped after its last; the page's blocks run in
  the order of the page, in one working folder, so a later block sees what an earlier one
  stored (ids count from 1). ``localhost:8000`` in a command is that server (what a reader's
  ``cruel serve`` listens on);
- a block whose info string has more after ``server`` (```` ```console server --open
  --burst-player 4 ````) runs on a server of its own, started with those options of
  ``cruel serve`` on a new database, and stopped after the block (the working folder is the
  page's);
- the database has a site key in ``$KEY`` (``cruel keys add --role site --name example.com``)
  and an admin key in ``$ADMIN_KEY`` (``--role admin --name 'ops (ada)'``), made before the
  server starts; both are set in every command's environment;
- ``…`` in an expected line matches any text within the line, as ``...`` does: JSON answers are
  long, and the docs cut them at ``…`` (times, ids of attempts, tokens);
- a command that is an assignment, ``NAME=...`` (``TOKEN=$(curl ... | jq -r .token)``), keeps
  ``NAME`` for the page's later commands, as a shell would (each command runs in a ``bash`` of
  its own). A command that needs ``jq`` is skipped, saying so, when it is not installed.

The working folder holds ``samples/``, ``puzzles/`` and ``docs/`` (the repository's) and every
``file=`` block of the docs, as for the console examples.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from cruel_tools.site.stores import open_stores

from .test_doc_shell_examples import Block, _env, blocks, commands, matches

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/service.md"]
TODAY = "2027-01-06"
TIMEOUT = 60
ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=\S")


def is_server_block(block: Block) -> bool:
    return block.lang == "console" and "server" in block.info.split()[1:]


def server_options(block: Block) -> list[str]:
    """The options of a block's own server (none: the page's server)."""
    return block.info.split()[2:]


def server_blocks(page: str) -> list[Block]:
    return [b for b in blocks() if b.page == page and is_server_block(b)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cruel(*args: str) -> list[str]:
    return [sys.executable, "-m", "cruel_tools.cli.app", *args]


class Server:
    """``cruel serve`` on a free port, with a site and an admin key in its database."""

    def __init__(self, work: Path, options: list[str] | None = None, db_name: str = "") -> None:
        db = work / (db_name or "cruel.sqlite")
        stores = open_stores(db, create=True)  # as `cruel keys add --create` does, in-process
        try:
            self.keys = {
                "KEY": stores.keys.add("example.com", "site")[1],
                "ADMIN_KEY": stores.keys.add("ops (ada)", "admin")[1],
            }
        finally:
            stores.close()
        self.port = free_port()
        args = ["serve", "--port", str(self.port), "--db", str(db), "--today", TODAY]
        args += options or []
        self.proc = subprocess.Popen(
            cruel(*args, "--puzzles", str(ROOT / "puzzles"), "--no-access-log"),
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/v1/health", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                pytest.fail(f"cruel serve did not come up: {err}")
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def workdir(base: Path) -> Path:
    (base / "samples").symlink_to(ROOT / "samples")
    (base / "puzzles").symlink_to(ROOT / "puzzles")
    (base / "docs").symlink_to(ROOT / "docs")
    for block in blocks():
        if block.file:
            (base / block.file).write_text("\n".join(block.body) + "\n", encoding="utf-8")
    return base


def run(
    command: str, server: Server, work: Path, status: int, kept: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` as the page shows it, against ``server``; an assignment's value is added
    to ``kept``, the variables every later command of the page gets."""
    script = f"(exit {status}); {command.replace('localhost:8000', f'127.0.0.1:{server.port}')}"
    assigned = ASSIGNMENT.match(command)
    if assigned:
        name = assigned.group(1)
        script += f'\n__status=$?; printf %s "${name}" > .kept-{name}; exit $__status'
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env=_env() | server.keys | kept,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=TIMEOUT,
        check=False,
    )
    if assigned:
        kept[name] = (work / f".kept-{name}").read_text(encoding="utf-8")
    return done


# --- the tests ---------------------------------------------------------------------------------


def test_the_pages_have_http_examples_run_as_tests() -> None:
    for page in PAGES:
        assert len(server_blocks(page)) >= 1, page
        assert all(commands(b) for b in server_blocks(page))


def section(block: Block) -> str:
    """The heading (without its #s) of the section that holds ``block``."""
    lines = (ROOT / block.page).read_text(encoding="utf-8").splitlines()[: block.line]
    heading = next((line for line in reversed(lines) if line.startswith("#")), "")
    return heading.lstrip("#").strip()


def test_every_curl_to_the_server_is_in_a_block_that_runs() -> None:
    # A `curl localhost:8000` example in a ```sh block is one no test runs (finding 9). Every
    # section's examples run, Moderation's last (on a board its own block makes): no exceptions.
    unrun = [
        f"{b.where} ({section(b)})"
        for b in blocks()
        if b.page in PAGES
        and not is_server_block(b)
        and any("curl" in line and "localhost:8000" in line for line in b.body)
    ]
    assert unrun == [], "make these ```console server blocks"


@pytest.mark.slow  # a server per page, every example run (20-40 s); CI runs the slow tier
@pytest.mark.parametrize("page", PAGES)
def test_http_examples_print_what_the_page_says(page: str, tmp_path: Path) -> None:
    work = workdir(tmp_path)
    main: Server | None = None
    kept: dict[str, str] = {}
    try:
        for block in server_blocks(page):
            options = server_options(block)
            if options:
                own = Server(work, options, f"cruel-{block.line}.sqlite")
                try:
                    run_block(block, own, work, kept)
                finally:
                    own.stop()
                continue
            if main is None:
                main = Server(work)
            run_block(block, main, work, kept)
    finally:
        if main is not None:
            main.stop()


def run_block(block: Block, server: Server, work: Path, kept: dict[str, str]) -> None:
    status = 0
    for command, expected in commands(block):
        if re.search(r"\bjq\b", command) and shutil.which("jq") is None:
            pytest.skip(f"{block.where}: jq is not installed")
        done = run(command, server, work, status, kept)
        status = done.returncode
        actual = done.stdout.decode("utf-8", "replace")
        for key, value in server.keys.items():  # never shown: the page has `$KEY`
            actual = actual.replace(value, f"${key}")
        cut = [line.replace("…", "...") for line in expected]
        shown = "\n".join(expected)
        assert matches(cut, actual), (
            f"{block.where}: $ {command}\n--- the page says:\n{shown}\n--- it prints:\n{actual}"
        )
