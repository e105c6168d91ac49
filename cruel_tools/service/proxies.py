"""Which peers are trusted reverse proxies, and the client a trusted proxy forwards: the one
reading of ``X-Forwarded-For``, for the connection guard (:mod:`cruel_tools.service.connections`)
and the
service's rate limits (:func:`cruel_tools.service.clients.client_address`).

A client can write ``X-Forwarded-For`` itself, so the header is believed only on a connection
whose peer is one of the proxies given (``cruel serve --trusted-proxy``), and only its last
address that is not itself a trusted proxy: the one the nearest trusted proxy saw. Addresses
further left were written by the client and prove nothing (docs/service.md, Connections and
reverse proxies).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["is_trusted", "forwarded_client"]


@lru_cache(maxsize=64)
def _networks(
    proxies: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def is_trusted(peer: str | None, proxies: tuple[str, ...]) -> bool:
    """Whether ``peer`` (an IP address) is one of the trusted proxies (addresses or networks)."""
    if peer is None or not proxies:
        return False
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in network for network in _networks(proxies))


def forwarded_client(peer: str, forwarded: Iterable[str], proxies: tuple[str, ...]) -> str:
    """The client's address: ``peer``, or, when ``peer`` is a trusted proxy, the last address
    of the ``X-Forwarded-For`` headers ``forwarded`` that is not itself a trusted proxy."""
    if not is_trusted(peer, proxies):
        return peer
    hops = [hop.strip() for header in forwarded for hop in header.split(",")]
    for hop in reversed(hops):
        if not hop or is_trusted(hop, proxies):
            continue
        try:
            return str(ipaddress.ip_address(hop))
        except ValueError:
            return peer  # a proxy that writes nonsense: count the proxy itself
    return peer
