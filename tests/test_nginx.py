"""``cruel serve`` behind Debian's nginx with the shipped configuration, deploy/nginx/cruel.conf
(docs/service.md, Connections and reverse proxies; issue #24).

nginx runs as a foreground process of the test: its own prefix, pid file, logs and temporary
files in a temporary folder, a free port. Without nginx the tests skip, except under
``CRUEL_REQUIRE_NGINX=1`` (``.ci/run``), where they fail: ``apt-get install -y nginx``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_guard_addresses import ATTACKERS, attack, need_addresses, run_apart
from .test_hostile import free_port, parse, read_all

# nginx and cruel serve as processes, end to end: what tests/test_guard_addresses.py and the
# clients tests check in-process, again through the proxy (the slow tier: CI runs it).
pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).parent.parent
CONFIG = ROOT / "deploy" / "nginx" / "cruel.conf"
#: Debian puts nginx in /usr/sbin, which a user's PATH may lack.
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
FORGED = "203.0.113.9"


def need_nginx() -> str:
    if NGINX is None:
        if os.environ.get("CRUEL_REQUIRE_NGINX"):
            pytest.fail(
                "CRUEL_REQUIRE_NGINX is set but nginx is missing (apt-get install -y nginx)"
            )
        pytest.skip("nginx is not installed (apt-get install -y nginx)")
    return NGINX


def wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"{what} did not come up: {log.read_text(errors='replace')}")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def nginx_config(tmp: Path, port: int, upstream: int) -> Path:
    """The shipped file with only its port and its upstream's changed, inside a main
    configuration of the test's own (what Debian's /etc/nginx/nginx.conf is)."""
    text = CONFIG.read_text()
    for old, new in (
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (tmp / "cruel.conf").write_text(text)
    user = "user root root;" if os.geteuid() == 0 else ""  # workers otherwise become nobody
    temps = "\n".join(
        f"    {kind}_temp_path {tmp}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    main = tmp / "nginx.conf"
    main.write_text(
        f"""daemon off;
worker_processes 1;
{user}
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
{temps}
    include {tmp}/cruel.conf;
}}
"""
    )
    return main


class Stack:
    """``cruel serve --trusted-proxy 127.0.0.1`` (access log on, to a file) and nginx in front."""

    def __init__(self, tmp: Path) -> None:
        self.port, self.upstream = free_port(), free_port()
        self.out = tmp / "serve-stdout.txt"
        self.err = tmp / "serve-stderr.txt"
        args = [sys.executable, "-m", "cruel_tools.cli.app", "serve", "--port", str(self.upstream)]
        args += ["--db", str(tmp / "cruel.sqlite"), "--today", "2027-01-05"]
        args += ["--puzzles", str(ROOT / "puzzles"), "--trusted-proxy", "127.0.0.1"]
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.serve = subprocess.Popen(args, stdout=out, stderr=err)
        wait_for_port(self.upstream, self.serve, "cruel serve", self.err)
        main = nginx_config(tmp, self.port, self.upstream)
        nginx = need_nginx()
        check = subprocess.run(
            [nginx, "-t", "-q", "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(main)],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stderr
        with (tmp / "nginx-stderr.txt").open("wb") as err:
            self.nginx = subprocess.Popen(
                [nginx, "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(main)],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        wait_for_port(self.port, self.nginx, "nginx", tmp / "error.log")

    def close(self) -> None:
        stop(self.nginx, signal.SIGQUIT)  # nginx's graceful stop
        stop(self.serve)

    def access_log(self) -> str:
        return self.out.read_text(errors="replace")


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    need_nginx()
    need_addresses()
    made = Stack(tmp_path)
    try:
        yield made
    finally:
        made.close()


def get(port: int, path: str, source: str, *headers: str) -> tuple[int, object]:
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as s:
        head = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        head += "".join(f"{h}\r\n" for h in headers)
        s.sendall(head.encode() + b"\r\n")
        return parse(read_all(s))


def logged_clients(log: str, path: str) -> list[str]:
    """The client addresses of the access log's lines for ``path`` (uvicorn's format)."""
    return re.findall(rf"INFO: +(\S+):\d+ - \"GET {re.escape(path)} ", log)


def test_requests_pass_and_the_client_is_the_one_nginx_saw(stack: Stack) -> None:
    status, body = get(stack.port, "/v1/health", ATTACKERS[0])
    assert status == 200 and isinstance(body, dict) and body["format"] == "cruel-health/1"
    # A body over the limit is refused by nginx before it is read, in the service's words.
    with socket.create_connection(("127.0.0.1", stack.port), 10, (ATTACKERS[0], 0)) as s:
        s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n")
        status, body = parse(read_all(s))
    assert status == 413 and isinstance(body, dict), body
    assert (body["format"], body["code"]) == ("cruel-error/1", "too-large")
    # Through nginx, a forged header is replaced by the address nginx saw.
    path = "/v1/health?through=nginx"
    assert get(stack.port, path, ATTACKERS[1], f"X-Forwarded-For: {FORGED}")[0] == 200
    # Straight to cruel serve, from a peer that is not a trusted proxy: the header is ignored.
    direct = "/v1/health?through=none"
    assert get(stack.upstream, direct, ATTACKERS[2], f"X-Forwarded-For: {FORGED}")[0] == 200
    deadline = time.monotonic() + 10
    while not (
        logged_clients(stack.access_log(), direct) and logged_clients(stack.access_log(), path)
    ):
        assert time.monotonic() < deadline, stack.access_log()
        time.sleep(0.1)
    log = stack.access_log()
    assert logged_clients(log, path) == [ATTACKERS[1]]
    assert logged_clients(log, direct) == [ATTACKERS[2]]
    assert FORGED not in log


def test_connections_over_nginx_s_per_address_limit_are_refused_in_json(stack: Stack) -> None:
    # 32 requests being read from one address (headers in, body to come), then a 33rd.
    held = []
    try:
        for _ in range(32):
            s = socket.create_connection(("127.0.0.1", stack.port), 10, (ATTACKERS[3], 0))
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            held.append(s)
        time.sleep(0.5)
        status, body = get(stack.port, "/v1/health", ATTACKERS[3])
        assert status == 429 and isinstance(body, dict), body
        assert (body["format"], body["code"]) == ("cruel-error/1", "too-many-connections")
        assert get(stack.port, "/v1/health", ATTACKERS[4])[0] == 200  # another address
    finally:
        for s in held:
            s.close()


def test_slow_connections_through_nginx_do_not_starve_health(stack: Stack) -> None:
    latencies, probes, failures, seen = run_apart(attack(stack.port, 30, 8.0))
    assert seen["connections"] >= 300, seen
    assert len(latencies) >= 0.95 * probes, (len(latencies), probes, failures, seen)
