"""The pages and static files as HTTP answers (issue #27): gzip for a browser that accepts it
(one ETag per encoding, ``Vary: Accept-Encoding``, 304 still), ``HEAD`` on every page and file,
and the HTML 404 page for a page path that names no page (the API's paths keep their JSON)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.service.pages import PAGES, STATIC

from .test_service import open_settings

PAGE_PATHS = ["/", "/play/2027-01-05-easy", "/replay", "/leaderboard/2027-01-05-easy"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("pages") / "db.sqlite"
    with TestClient(service.create_app(open_settings(db))) as c:
        yield c


def raw(
    client: TestClient, path: str, encoding: str | None, **headers: str
) -> tuple[int, bytes, dict[str, str]]:
    """A GET whose body is not decoded by the client: the bytes on the wire."""
    if encoding is not None:
        headers["Accept-Encoding"] = encoding
    with client.stream("GET", path, headers=headers) as r:
        body = b"".join(r.iter_raw())
        return r.status_code, body, dict(r.headers)


def test_every_page_and_its_files_are_named() -> None:
    assert set(PAGES.values()) <= set(STATIC)
    assert {"404.html", "notfound.js"} <= set(STATIC)


@pytest.mark.parametrize(
    "path", [*PAGE_PATHS, "/static/play.js", "/static/style.css", "/static/cruel.js"]
)
def test_gzip_only_when_accepted_with_its_own_etag(client: TestClient, path: str) -> None:
    status, plain, plain_headers = raw(client, path, "identity")
    assert status == 200 and "content-encoding" not in plain_headers
    status, packed, packed_headers = raw(client, path, "gzip, deflate, br")
    assert status == 200 and packed_headers["content-encoding"] == "gzip"
    assert gzip.decompress(packed) == plain and len(packed) < len(plain)
    assert int(packed_headers["content-length"]) == len(packed)
    for headers in (plain_headers, packed_headers):
        assert headers["vary"] == "Accept-Encoding"
    assert plain_headers["etag"] != packed_headers["etag"]
    # Each encoding revalidates with its own tag: a 304 without a body.
    tag = packed_headers["etag"]
    assert raw(client, path, "gzip", **{"If-None-Match": tag})[0] == 304
    again = raw(client, path, "identity", **{"If-None-Match": tag})
    assert again[0] == 200 and again[1] == plain  # the gzip tag is not the plain body's
    assert raw(client, path, "identity", **{"If-None-Match": plain_headers["etag"]})[0] == 304
    assert raw(client, path, None, **{"If-None-Match": f'W/{tag}, "other"'})[0] in (200, 304)


@pytest.mark.parametrize(
    ("accept", "gzipped"),
    [
        ("gzip", True),
        ("GZIP;q=0.5", True),
        ("*", True),
        ("br, *;q=0.1", True),
        ("gzip;q=0", False),
        ("gzip;q=0, *", False),
        ("identity", False),
        ("deflate, br", False),
        ("", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_accept_encoding_is_read_with_its_q_values(
    client: TestClient, accept: str, gzipped: bool
) -> None:
    _, _, headers = raw(client, "/static/play.js", accept)
    assert (headers.get("content-encoding") == "gzip") is gzipped


def test_a_file_too_small_to_gain_goes_as_it_is(client: TestClient) -> None:
    name = min((n for n in STATIC if n.endswith(".json") is False), key=lambda n: len(STATIC[n][0]))
    _, body, headers = raw(client, f"/static/{name}", "gzip")
    if len(STATIC[name][0]) < 256:
        assert "content-encoding" not in headers and body == STATIC[name][0]


@pytest.mark.parametrize(
    "path", [*PAGE_PATHS, "/static/cruel.js", "/static/favicon.svg", "/v1/docs", "/nowhere"]
)
def test_head_answers_every_page_and_file_with_the_gets_headers(
    client: TestClient, path: str
) -> None:
    got = client.get(path, headers={"Accept-Encoding": "gzip"})
    head = client.head(path, headers={"Accept-Encoding": "gzip"})
    assert head.status_code == got.status_code and head.content == b""
    for key in ("content-type", "etag", "content-encoding", "content-security-policy"):
        assert head.headers.get(key) == got.headers.get(key), key
    with client.stream("GET", path, headers={"Accept-Encoding": "gzip"}) as r:
        wire = len(b"".join(r.iter_raw()))
    assert int(head.headers["content-length"]) == wire


@pytest.mark.parametrize(
    "path",
    ["/nowhere", "/play", "/play/", "/leaderboard", "/replay/x", "/index.html", "/%2e%2e/etc"],
)
def test_a_page_path_that_names_no_page_gets_the_html_404_page(
    client: TestClient, path: str
) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert r.content == (files("cruel_tools") / "web" / "404.html").read_bytes()
    assert 'class="skip-link"' in r.text and 'href="/"' in r.text
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "unsafe-inline" not in policy
    assert client.head(path).status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/v1/nowhere", 404),
        ("GET", "/v1", 404),
        ("GET", "/static/nosuch.js", 404),
        ("GET", "/static/swagger/index.html", 404),
        ("POST", "/nowhere", 404),
        ("POST", "/", 405),
        ("GET", "/v1/verify", 405),
    ],
)
def test_the_api_and_static_paths_keep_their_json_errors(
    client: TestClient, method: str, path: str, status: int
) -> None:
    r = client.request(method, path)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    assert r.json()["format"] == "cruel-error/1"


def test_the_404_page_and_every_page_share_one_header_and_a_skip_link() -> None:
    web = Path(str(files("cruel_tools") / "web"))
    for name in [*PAGES.values(), "404.html"]:
        text = (web / name).read_text()
        assert text.count('<header class="site-header">') == 1, name
        assert text.count('class="skip-link" href="#') == 1, name
        assert 'class="site-name" href="/"' in text, name
        target = text.split('class="skip-link" href="#', 1)[1].split('"', 1)[0]
        assert f'id="{target}"' in text, name
