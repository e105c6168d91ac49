"""``GET /metrics`` (issue #26, operator docs and metrics): Prometheus' text format from
prometheus-client, behind an admin key; requests by route template, latencies, store errors,
the engine, and the publisher's gauges; labels bounded whatever paths clients ask for."""

from __future__ import annotations

import datetime as dt
import random
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from cruel_tools import service
from cruel_tools.game.engine import engine_name
from cruel_tools.service.metrics import UNMATCHED, Metrics, collected
from cruel_tools.site.keys import KeyStore

from .helpers import failing_leaderboard

ROOT = Path(__file__).resolve().parent.parent
TODAY = dt.date(2027, 1, 6)


def settings(db: Path) -> service.Settings:
    return service.Settings(puzzles=ROOT / "puzzles", db=db, fixed_today=TODAY)


@pytest.fixture
def keys(tmp_path: Path) -> Iterator[dict[str, str]]:
    store = KeyStore(tmp_path / "db.sqlite")
    _, site = store.add("example.com", "site")
    _, admin = store.add("ops", "admin")
    yield {"site": site, "admin": admin}
    store.close()


@pytest.fixture
def client(tmp_path: Path, keys: dict[str, str]) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings(tmp_path / "db.sqlite"))) as c:
        yield c


def scrape(client: TestClient, key: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``, parsed by prometheus-client's own parser."""
    answer = client.get("/metrics", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(answer.text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_need_an_admin_key(client: TestClient, keys: dict[str, str]) -> None:
    answer = client.get("/metrics")
    assert answer.status_code == 401 and answer.json()["code"] == "missing-key"
    assert answer.headers["www-authenticate"] == "Bearer"
    site = client.get("/metrics", headers={"Authorization": f"Bearer {keys['site']}"})
    assert site.status_code == 403 and site.json()["code"] == "wrong-role"
    assert site.json()["message"] == "a site key may not read metrics (only an admin key may)"
    bad = client.get("/metrics", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["code"] == "bad-key"


def test_requests_are_counted_by_route_template_and_status(
    client: TestClient, keys: dict[str, str]
) -> None:
    before = scrape(client, keys["admin"])
    for _ in range(3):
        assert client.get("/v1/puzzles/2027-01-05-hard").status_code == 200
    assert client.get("/v1/puzzles/2027-01-09-hard").status_code == 404  # not open yet
    assert client.get("/v1/health").status_code == 200
    after = scrape(client, keys["admin"])
    route = "/v1/puzzles/{id}"
    counted = "cruel_http_requests_total"
    assert value(after, counted, route=route, method="GET", status="200") == 3 + value(
        before, counted, route=route, method="GET", status="200"
    )
    assert value(after, counted, route=route, method="GET", status="404") == 1
    assert value(after, counted, route="/v1/health", method="GET", status="200") >= 1
    assert value(after, counted, route="/metrics", method="GET", status="200") >= 1  # the first
    timed = "cruel_http_request_duration_seconds_count"
    assert value(after, timed, route=route) == value(before, timed, route=route) + 4
    assert value(after, "cruel_http_request_duration_seconds_bucket", route=route, le="+Inf") == (
        value(after, timed, route=route)
    )
    assert value(after, "cruel_engine_info", engine=engine_name()) == 1
    assert not any(k[0] == "cruel_http_requests_total" and "2027-01-05" in str(k) for k in after)


@pytest.mark.heavy  # 1,000 requests: about 6 s
def test_labels_stay_bounded_under_random_paths_and_methods(
    client: TestClient, keys: dict[str, str]
) -> None:
    rng = random.Random(26)
    letters = string.ascii_letters + string.digits + "-_.~%"
    for _ in range(1000):
        word = "".join(rng.choices(letters, k=rng.randint(1, 24)))
        path = rng.choice(
            [f"/{word}", f"/v1/puzzles/{word}", f"/play/{word}", f"/v1/{word}/x", f"/static/{word}"]
        )
        method = rng.choice(["GET", "POST", word.upper()[:8] or "X"])
        client.request(method, path)
    samples = scrape(client, keys["admin"])
    series = {labels for name, labels in samples if name == "cruel_http_requests_total"}
    routes = {dict(labels)["route"] for labels in series}
    methods = {dict(labels)["method"] for labels in series}
    # Only the app's own templates (and one series for paths no route takes).
    app_routes = iter_route_contexts(client.app.routes)  # type: ignore[attr-defined]
    assert routes <= {r.path for r in app_routes} | {UNMATCHED}
    assert UNMATCHED in routes and "/v1/puzzles/{id}" in routes
    assert methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}
    assert len(series) < 60, sorted(series)


def test_store_errors_are_counted_by_code(
    tmp_path: Path, keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = failing_leaderboard(tmp_path / "db.sqlite", monkeypatch)
    app = service.create_app(settings(tmp_path / "db.sqlite"), stores)
    with TestClient(app) as client:
        for _ in range(3):
            answer = client.get("/v1/puzzles/2027-01-05-hard/leaderboard")
            assert answer.status_code == 503 and answer.json()["code"] == "store-unavailable"
        # The store is now marked lost: keys cannot be read either, so read the app's own.
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(app.state.metrics.exposition().decode())
            for s in family.samples
        }
    assert value(samples, "cruel_store_errors_total", code="store-unavailable") == 3


def test_the_publishers_gauges_and_each_apps_own_registry() -> None:
    one, two = Metrics("python"), Metrics("native")
    one.set_days_ready(7)
    one.observe_generation(75.0)
    one.observe_generation(110.0)
    text = one.exposition().decode()
    assert "cruel_days_ready_ahead 7.0" in text
    assert "cruel_generation_seconds_count 2.0" in text
    assert 'cruel_generation_seconds_bucket{le="90.0"} 1.0' in text
    other = two.exposition().decode()  # another app's registry: nothing of the first's
    assert "cruel_days_ready_ahead 0.0" in other and "cruel_generation_seconds_count 0.0" in other
    assert 'cruel_engine_info{engine="native"} 1.0' in other and 'engine="python"' not in other


@pytest.mark.integration  # two child processes
def test_workers_values_are_added_up_from_the_multiprocess_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under --workers N each worker writes to PROMETHEUS_MULTIPROC_DIR; an answer reads them
    all. (prometheus-client picks its files at import: here, in a child process.)"""
    import subprocess
    import sys

    code = (
        "from cruel_tools.service.metrics import Metrics\n"
        "m = Metrics('native')\n"
        "m.observe_request('/v1/health', 'GET', 200, 0.002)\n"
    )
    env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for _ in range(2):  # two workers
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    text = collected().decode()
    assert 'cruel_http_requests_total{method="GET",route="/v1/health",status="200"} 2.0' in text, (
        text
    )


@pytest.mark.slow  # a real server of two workers, about 13 s
@pytest.mark.integration
def test_metrics_bind_serves_every_workers_counts_with_no_key(tmp_path: Path) -> None:
    """``cruel serve --workers 2 --metrics-bind``: the separate address answers with no key,
    with the requests of both workers added up; the service's own port still needs the key (the
    end-to-end run of what the multiprocess test above checks in child processes)."""
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    from .test_serve_process import free_port, stop

    port, apart = free_port(), free_port()
    args = ["serve", "--port", str(port), "--workers", "2", "--today", "2027-01-06"]
    args += ["--metrics-bind", f"127.0.0.1:{apart}", "--no-access-log"]
    args += ["--puzzles", str(ROOT / "puzzles"), "--db", str(tmp_path / "db.sqlite")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cruel_tools.cli.app", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        answered = 0
        while answered < 40:  # requests spread over the two workers
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=10):
                    answered += 1
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "did not start"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{apart}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10)
        assert refused.value.code == 401
    finally:
        stop(proc)
    said = proc.stderr.read().decode() if proc.stderr else ""
    assert f"metrics: http://127.0.0.1:{apart}/metrics with no key" in said, said
    counts = [
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "cruel_http_requests_total" and s.labels["route"] == "/v1/health"
    ]
    assert sum(counts) == 40, text


def test_metrics_bind_refuses_what_is_not_an_address(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cruel_tools.cli.app import app

    result = CliRunner().invoke(app, ["serve", "--metrics-bind", "9108", "--db", "x.sqlite"])
    assert result.exit_code == 2
    assert "--metrics-bind: '9108' is not HOST:PORT (like 127.0.0.1:9108)" in result.output
