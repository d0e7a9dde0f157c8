"""Which requests the server takes: only those addressed to a name it serves (``Host``), so
that another site cannot reach it by pointing one of its own names at this machine (DNS
rebinding), and changes of a game only from its own page (``check_same_origin``), so that
another site's page open in the same browser cannot start searches or end a person's game.

A browser marks every request a page sends elsewhere: ``Origin`` names the sending page's
site, ``Sec-Fetch-Site`` says whether it is this one. A page may send another site a plain
``text/plain`` POST without asking; a JSON one it may send only after a CORS preflight,
which this server never grants.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Mapping
from http import HTTPStatus
from urllib.parse import urlsplit

from .web_errors import RequestError

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
SAFE_METHODS = ("GET", "HEAD")
"""Requests that change nothing; every other method is a change and must come from the page."""
JSON = "application/json"


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def machine_names() -> set[str]:
    """This machine's own names and the addresses they resolve to."""
    names = set()
    for name in (socket.gethostname(), socket.getfqdn()):
        if not name:
            continue
        names.add(name.lower())
        with contextlib.suppress(OSError, UnicodeError):
            for *_, address in socket.getaddrinfo(name, None):
                names.add(str(address[0]).split("%")[0].lower())
    return names


def served_names(host: str) -> frozenset[str]:
    """The names in a ``Host`` header that a server listening on ``host`` answers to: on a
    loopback address the loopback names; on a wildcard (``0.0.0.0``, ``::``) those and the
    machine's names and addresses; on another address or name, it and the machine's names.
    ``address_names`` adds the address each connection arrived at."""
    bound = host.strip("[]").lower()
    names = {bound} - {""}
    if bound in WILDCARD_HOSTS or is_loopback(bound):
        names.update(LOOPBACK_NAMES)
    if not is_loopback(bound):
        names.update(machine_names())
    return frozenset(names - set(WILDCARD_HOSTS))


def address_names(address: str) -> set[str]:
    """How a page may name the local address a connection arrived at (an IPv4 client of an
    IPv6 wildcard arrives at ``::ffff:a.b.c.d`` but names ``a.b.c.d``)."""
    plain = address.split("%")[0].lower()
    names = {plain}
    with contextlib.suppress(ValueError):
        mapped = getattr(ipaddress.ip_address(plain), "ipv4_mapped", None)
        if mapped is not None:
            names.add(str(mapped))
    return names


def host_and_port(value: str, what: str) -> tuple[str, int | None]:
    """The name (lower case, no trailing dot) and port of a ``Host`` header or an origin's
    address; ``RequestError`` (400) if it is not one."""
    try:
        parts = urlsplit(f"//{value}")
        name, port = parts.hostname or "", parts.port
    except ValueError:  # an unclosed [ of an IPv6 address, a port that is not a number
        raise RequestError(HTTPStatus.BAD_REQUEST, f"the {what} is not a host") from None
    return name.rstrip("."), port


def check_host(headers: Mapping[str, str], names: set[str] | frozenset[str]) -> None:
    """Refuse (403) a request whose ``Host`` names none of ``names``."""
    host = headers.get("Host")
    if host is None:  # HTTP/1.0: a browser always sends one
        return
    name, _ = host_and_port(host, "Host header")
    if name not in names:
        shown = ", ".join(sorted(n for n in names if n in LOOPBACK_NAMES) or sorted(names)[:3])
        raise RequestError(
            HTTPStatus.FORBIDDEN,
            f"this server answers to {shown}, not {name[:80]} (give --host {name[:80]} "
            f"to serve it by that name)",
        )


def check_same_origin(
    method: str, headers: Mapping[str, str], names: set[str] | frozenset[str], port: int
) -> None:
    """Refuse (403, saying why) a request that changes anything unless it is JSON from this
    server's own page: ``Content-Type: application/json``, and an ``Origin`` that is this
    server as the request addressed it, or, without an ``Origin``,
    ``Sec-Fetch-Site: same-origin``. Any ``Sec-Fetch-Site`` other than ``same-origin`` is
    refused as well."""
    if method in SAFE_METHODS:
        return
    media = headers.get("Content-Type", "").split(";")[0].strip().lower()
    if media != JSON:
        raise RequestError(
            HTTPStatus.FORBIDDEN,
            f"refused: a {method} must be sent as Content-Type: {JSON}, "
            f"not {media[:60] or 'nothing'}",
        )
    fetch_site = headers.get("Sec-Fetch-Site")
    if fetch_site is not None and fetch_site.strip().lower() != "same-origin":
        raise RequestError(
            HTTPStatus.FORBIDDEN,
            f"refused: the browser says this {method} came from another site "
            f"(Sec-Fetch-Site: {fetch_site[:40]}); only this server's own page may send it",
        )
    origin = headers.get("Origin")
    if origin is None:
        if fetch_site is None:
            raise RequestError(
                HTTPStatus.FORBIDDEN,
                f"refused: a {method} must say it comes from this server's page, with an "
                f"Origin header naming this server (or Sec-Fetch-Site: same-origin)",
            )
        return
    if not is_own_origin(origin, headers, names, port):
        raise RequestError(
            HTTPStatus.FORBIDDEN,
            f"refused: this {method} came from another site ({origin[:80]}); only this "
            f"server's own page may send it",
        )


def is_own_origin(
    origin: str, headers: Mapping[str, str], names: set[str] | frozenset[str], port: int
) -> bool:
    """Whether ``origin`` is this server as the request addressed it: the ``Host`` header's
    name and port, or without one a name served and the port listened on."""
    scheme, _, address = origin.strip().lower().partition("://")
    if scheme != "http" or not address or "/" in address:
        return False  # "null" (a sandboxed frame, a file), https (not this server), a path
    try:
        name, origin_port = host_and_port(address, "Origin")
    except RequestError:
        return False
    host = headers.get("Host")
    if host is None:
        return name in names and (origin_port or 80) == port
    wanted_name, wanted_port = host_and_port(host, "Host header")
    return (name, origin_port or 80) == (wanted_name, wanted_port or 80)
