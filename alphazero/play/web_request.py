"""What the server reads from a request besides its path: the body, a JSON object of at most
``MAX_BODY`` bytes sent with a ``Content-Length``; the ``since`` version in a query; and the one
method each page answers. Anything else is a ``RequestError``.
"""

from __future__ import annotations

import json
from email.message import Message
from http import HTTPStatus
from typing import Any, BinaryIO
from urllib.parse import parse_qs

from .web_errors import RequestError

MAX_BODY = 16 * 1024
"""Larger request bodies are refused: everything the page sends is a few dozen bytes."""
MAX_DRAIN = 1024 * 1024
"""A refused body up to this size is read and dropped, so the client reads the refusal instead
of a reset connection; a larger one is left unread."""
MAX_LENGTH_DIGITS = 18
"""A longer ``Content-Length`` is refused unread as too large."""
MAX_VERSION_DIGITS = 12


def read_body(headers: Message, rfile: BinaryIO) -> dict[str, Any]:
    """The request's JSON object, read from ``rfile`` (``{}`` for no body or an empty one)."""
    length = body_length(headers)
    if length is None:
        return {}
    if length > MAX_BODY:
        if length <= MAX_DRAIN:
            drain(rfile, length)
        raise RequestError(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            f"the body is too large: {length} bytes, at most {MAX_BODY}",
        )
    raw = rfile.read(length)
    if len(raw) < length:
        raise RequestError(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")
    return parse_body(raw)


def body_length(headers: Message) -> int | None:
    """The body's ``Content-Length`` in bytes, or ``None`` when there is none (no body)."""
    if "chunked" in headers.get("Transfer-Encoding", "").lower():
        raise RequestError(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
    text = headers.get("Content-Length")
    if text is None:
        return None
    text = text.strip()
    if not (text.isascii() and text.isdigit()):  # not "²"
        raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
    if len(text) > MAX_LENGTH_DIGITS:  # thousands of digits do not even convert to an int
        raise RequestError(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            f"the body is too large: a Content-Length of {len(text)} digits, "
            f"at most {MAX_BODY} bytes",
        )
    return int(text)


def drain(rfile: BinaryIO, length: int) -> None:
    """Read and drop up to ``length`` bytes; stop early if the client stops sending."""
    left = length
    while left > 0:
        chunk = rfile.read(min(left, 65536))
        if not chunk:
            return
        left -= len(chunk)


def parse_body(raw: bytes) -> dict[str, Any]:
    """A body read in full as a JSON object (``{}`` for only white space)."""
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: [[[[...
        raise RequestError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise RequestError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
    return data


def since_version(query: str) -> int | None:
    """The ``since`` version of ``GET /api/sessions/ID?since=V``, or ``None`` without one."""
    values = parse_qs(query).get("since")
    if not values:
        return None
    text = values[0]
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_VERSION_DIGITS:
        raise RequestError(HTTPStatus.BAD_REQUEST, "since must be a version number")
    return int(text)


def expect_method(method: str, allowed: str) -> None:
    """Refuse ``method`` where a page answers only ``allowed``."""
    if method != allowed:
        raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"use {allowed} here, not {method}")
