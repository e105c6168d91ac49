"""The web front end's pages, their static files, and the API's reference (``/v1/docs``), each
revalidated on every use (an ETag), under a Content-Security-Policy that loads nothing from
another origin (docs/web.md). Text files are sent gzip-compressed to a browser that accepts it
(compressed once per file, with an ETag of their own), ``HEAD`` is answered on every page and
file, and a page path that names no page gets the HTML 404 page (``404.html``)."""

from __future__ import annotations

import functools
import gzip
import hashlib
from importlib.resources import files
from pathlib import Path
from typing import Final

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import Response

from .errors import ApiError
from .scripts import without_comment_lines

__all__ = [
    "STATIC",
    "PAGES",
    "router",
    "static_file",
    "embed_file",
    "swagger_file",
    "api_docs",
    "page",
    "not_found_page",
    "accepts_gzip",
]


#: Media types of the web front end's files, by suffix: a file of another kind is not served.
_MEDIA: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}


def _web_files() -> dict[str, tuple[bytes, str]]:
    """The package's web folder (``cruel.js``, the pages, their scripts and styles), by name;
    the scripts without their comment lines (:mod:`.scripts`)."""
    folder = files("cruel_tools") / "web"
    found: dict[str, tuple[bytes, str]] = {}
    for item in folder.iterdir():
        media = _MEDIA.get(Path(item.name).suffix)
        if media is not None and item.is_file():
            body = item.read_bytes()
            if item.name.endswith(".js"):  # comment lines stay in the package (scripts.py)
                body = without_comment_lines(body.decode("utf-8")).encode("utf-8")
            found[item.name] = (body, media)
    return found


#: The files ``GET /static/{name}`` serves, by name: their bytes (read from the installed package
#: when the service module loads) and media type. A name not listed is a 404, so no request can
#: name a path.
STATIC: Final[dict[str, tuple[bytes, str]]] = _web_files()

#: The pages of the web front end (docs/web.md): route, and the file of :data:`STATIC` it answers.
#: Each page reads what it shows from the API, so one file serves every puzzle id.
PAGES: Final = {
    "/": "index.html",
    "/play/{id}": "play.html",
    "/play/deal/{number}": "play.html",  # free play: any deal number, ?rules=preset
    "/replay": "replay.html",
    "/leaderboard/{id}": "leaderboard.html",
}

#: What the pages may load: nothing from another origin, no inline script, no framing. The
#: browser enforces it, so a page cannot leak a player's moves elsewhere even if a script tried.
_PAGE_POLICY: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
# /v1/docs: Swagger UI starts from an inline script; still nothing from another origin.
_DOCS_POLICY: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'"
)
#: The files of Swagger UI that ``/v1/docs`` loads, from the swagger-ui-bundle package.
_SWAGGER: Final = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
}


#: Files smaller than this are sent as they are: gzip's header would eat the gain.
_GZIP_MIN: Final = 256


def _etag(body: bytes, suffix: str = "") -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + suffix + '"'


@functools.lru_cache(maxsize=64)
def _gzipped(body: bytes) -> bytes | None:
    """``body`` compressed (gzip, level 9, no time stamp: the same bytes on every run), once per
    file; None when compressing does not make it smaller."""
    if len(body) < _GZIP_MIN:
        return None
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    return packed if len(packed) < len(body) else None


def accepts_gzip(request: Request) -> bool:
    """Whether the request's ``Accept-Encoding`` allows gzip (``gzip`` or ``*`` with a q-value
    above 0; an explicit ``gzip;q=0`` refuses it, whatever ``*`` says)."""
    star = False
    for part in request.headers.get("accept-encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        name = name.strip().lower()
        if name in ("gzip", "x-gzip"):
            return q > 0
        if name == "*":
            star = q > 0
    return star


def _matches(header: str | None, tag: str) -> bool:
    """``If-None-Match`` (a list of tags, weak or strong, or ``*``) against ``tag``."""
    if not header:
        return False
    for item in header.split(","):
        item = item.strip()
        if item == "*" or item.removeprefix("W/") == tag:
            return True
    return False


def _compressible(media_type: str) -> bool:
    return media_type.startswith(("text/", "image/svg", "application/json"))


def _file_response(
    request: Request, body: bytes, media_type: str, policy: str | None, status: int = 200
) -> Response:
    """A file, revalidated on every use (``no-cache`` with an ETag: a 304 costs no body), so
    that a page and its scripts always come from the same release of the package. A text file
    goes gzip-compressed when the request accepts it (``Content-Encoding: gzip``, its own ETag,
    ``Vary: Accept-Encoding``); a ``HEAD`` gets the headers of the ``GET`` and no body."""
    packed = _gzipped(body) if _compressible(media_type) else None
    send = body
    tag = _etag(body)
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    if policy is not None:  # a page: its scripts' requests follow its policy (no referrer)
        headers["Referrer-Policy"] = "no-referrer"
    if packed is not None:
        headers["Vary"] = "Accept-Encoding"
        if accepts_gzip(request):
            send, tag = packed, _etag(body, "-gzip")
            headers["Content-Encoding"] = "gzip"
    headers["ETag"] = tag
    if policy is not None:
        headers["Content-Security-Policy"] = policy
    if status == 200 and _matches(request.headers.get("if-none-match"), tag):
        return Response(status_code=304, headers=headers)
    if request.method == "HEAD":
        headers["Content-Length"] = str(len(send))
        return Response(status_code=status, media_type=media_type, headers=headers)
    return Response(send, status_code=status, media_type=media_type, headers=headers)


def not_found_page(request: Request) -> Response | None:
    """The HTML 404 page (``404.html``: the site's header and a link home) for a ``GET`` or
    ``HEAD`` of a path that is not the API's (``/v1/...``) nor a static file's
    (``/static/...``), which keep their JSON errors; None for those."""
    path = request.url.path
    if request.method not in ("GET", "HEAD") or path.startswith(("/v1/", "/static/", "/embed/")):
        return None
    if path in ("/v1", "/static", "/embed"):
        return None
    found = STATIC.get("404.html")
    if found is None:
        return None
    return _file_response(request, *found, policy=_PAGE_POLICY, status=404)


@functools.cache
def _swagger_file(name: str) -> bytes:
    # Read on first use, a megabyte no other route needs. The package has no type hints.
    import swagger_ui_bundle  # type: ignore[import-untyped]

    return bytes((swagger_ui_bundle.swagger_ui_path / name).read_bytes())


#: ``/static/{name}``, Swagger UI's files, ``/v1/docs`` and the pages (:data:`PAGES`): none in
#: the OpenAPI document. No prefix: the pages are at the site's root.
router = APIRouter(include_in_schema=False)


@router.api_route("/static/{name}", methods=["GET", "HEAD"])
async def static_file(name: str, request: Request) -> Response:
    """A file of the package's web folder (``cruel.js``, the rules engine as an ES module,
    and the pages' scripts and styles; docs/web.md): only the names listed in
    :data:`STATIC`, read once, never a path."""
    found = STATIC.get(name)
    if found is None:
        raise ApiError(404, "not-found", f"no static file {name!r}")
    return _file_response(request, *found, policy=None)


#: The files ``GET /embed/{name}`` serves to other sites: the scripts and the stylesheet of
#: ``<cruel-game>`` (docs/embed.md), the same bytes as ``/static/``, to any origin (a module
#: script from another origin is fetched with CORS). Public code and words, no player's data:
#: ``*`` and no credentials.
_EMBED_MEDIA: Final = ("text/javascript", "text/css")


@router.api_route("/embed/{name}", methods=["GET", "HEAD"])
async def embed_file(name: str, request: Request) -> Response:
    """A script or the stylesheet of ``<cruel-game>``, for a page of any site."""
    found = STATIC.get(name)
    if found is None or not found[1].startswith(_EMBED_MEDIA):
        raise ApiError(404, "not-found", f"no embed file {name!r}")
    response = _file_response(request, *found, policy=None)
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Cross-Origin-Resource-Policy"] = "cross-origin"
    return response


@router.api_route("/static/swagger/{name}", methods=["GET", "HEAD"])
async def swagger_file(name: str, request: Request) -> Response:
    """Swagger UI for ``/v1/docs``, served here: the docs load nothing from elsewhere."""
    media_type = _SWAGGER.get(name)
    if media_type is None:
        raise ApiError(404, "not-found", f"no static file {name!r}")
    return _file_response(request, _swagger_file(name), media_type, policy=None)


@router.api_route("/v1/docs", methods=["GET", "HEAD"])
async def api_docs(request: Request) -> Response:
    """The API's reference (Swagger UI over /v1/openapi.json)."""
    page = get_swagger_ui_html(
        openapi_url="/v1/openapi.json",
        title="cruel-tools API",
        swagger_js_url="/static/swagger/swagger-ui-bundle.js",
        swagger_css_url="/static/swagger/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
    )
    return _file_response(request, bytes(page.body), "text/html; charset=utf-8", _DOCS_POLICY)


async def page(request: Request) -> Response:
    """A page of the web front end: the file :data:`PAGES` names for the route's path."""
    path = request.scope["route"].path
    found = STATIC.get(PAGES[path])
    if found is None:  # a package built without its pages
        raise ApiError(404, "not-found", f"no page {path}")
    return _file_response(request, *found, policy=_PAGE_POLICY)


for _path in PAGES:
    router.add_api_route(_path, page, methods=["GET", "HEAD"])
