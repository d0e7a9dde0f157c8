"""How a config problem is told: ``ConfigError``, one line that names the key, and the
quoting that keeps a hostile value from making that line long."""

from __future__ import annotations

import re
import reprlib
from typing import Any


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key."""


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlong = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 4
_REPR.maxlevel = 3


def cut(text: str, limit: int = 80) -> str:
    """``text``, cut to ``limit`` characters with ``...`` when longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: Any) -> str:
    """``value`` as an error quotes it: its repr, cut to about 80 characters. ``reprlib``
    never builds the whole repr, so a huge value costs no time or memory either."""
    try:
        return cut(_REPR.repr(value))
    except Exception:  # e.g. an integer too long to print: name its type only
        return f"<{type(value).__name__}>"


_LONG_QUOTE = re.compile(r"'[^'\n]{79,}'|\"[^\"\n]{79,}\"")


def from_elsewhere(error: BaseException) -> str:
    """The first line of another module's error (the game registry's, a player spec's),
    with every quoted value in it cut as ``shown`` cuts, and the line as a last guard."""
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else type(error).__name__
    text = _LONG_QUOTE.sub(lambda m: m.group(0)[:38] + "..." + m.group(0)[-38:], text)
    return cut(text, 400)
