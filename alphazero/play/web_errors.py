"""How the page's requests are refused: ``RequestError`` (an HTTP status and a one-line reason
for the page), the checks of a request's JSON body that the app and the sessions share, and
``one_line``, an error as the single line the page and the console show.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

MAX_QUERY = 200
"""Longer texts (a game spec, a move's name) are refused: real ones are a few words."""


class RequestError(Exception):
    """A request that cannot be served: its HTTP status and a one-line reason for the page."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_fields(body: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        names = ", ".join(repr(key)[:40] for key in unknown[:3])
        raise RequestError(
            HTTPStatus.BAD_REQUEST,
            f"unknown field {names}: this request takes {', '.join(allowed)}",
        )


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."
