"""Who sends a request: the client's address, as rate limits and logs count it.

Behind a reverse proxy every connection comes from the proxy, so the client's own address is in
the proxy's ``X-Forwarded-For`` header. A client can write that header too, so it is read only
from a connection whose peer is one of ``settings.trusted_proxies`` (``cruel serve
--trusted-proxy``); from anyone else it is ignored and the peer's address counts
(docs/service.md, Behind a reverse proxy).
"""

from __future__ import annotations

from typing import Final

from starlette.requests import HTTPConnection

from .config import Settings
from .proxies import forwarded_client

__all__ = [
    "UNKNOWN",
    "DUPLICATE_HEADER",
    "DuplicateHeader",
    "client_address",
    "one_header",
]

#: The address of a request whose peer is not known (a test client without one).
UNKNOWN: Final = "unknown"
#: The error code of a header sent more than once where one is meant (``Authorization``).
DUPLICATE_HEADER: Final = "duplicate-header"


class DuplicateHeader(Exception):
    """A header sent more than once where one is meant: answered **400** ``duplicate-header``
    (:mod:`cruel_tools.service.errors` translates it; this module stays below that one, which
    the guard's imports need)."""

    def __init__(self, name: str, count: int) -> None:
        super().__init__(f"the {name} header is sent {count} times: send it once")
        self.name = name


def one_header(request: HTTPConnection, name: str) -> str | None:
    """The value of header ``name``, None when it is absent; :class:`DuplicateHeader` (400
    ``duplicate-header``) when it is sent more than once. Two ``Authorization`` headers are two
    credentials: which one counts would be up to each reader (a proxy, a log, this service), so
    neither does."""
    values = request.headers.getlist(name)
    if len(values) > 1:
        raise DuplicateHeader(name, len(values))
    return values[0] if values else None


def client_address(request: HTTPConnection, settings: Settings) -> str:
    """The client's address: the connection's peer, or, when the peer is a trusted proxy, the
    last address in ``X-Forwarded-For`` that is not itself a trusted proxy (the one the
    nearest trusted proxy saw; addresses further left were written by the client and prove
    nothing)."""
    peer = request.client.host if request.client else UNKNOWN
    forwarded = request.headers.getlist("x-forwarded-for")
    return forwarded_client(peer, forwarded, settings.trusted_proxies)
