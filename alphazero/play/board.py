"""Board drawing and styling: ``GameView.render``'s boards and the players' marks in ANSI colour,
when the output is a terminal that wants colour."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from .text import is_tty

ANSI = {
    "reset": "0",
    "bold": "1",
    "dim": "2",
    "underline": "4",
    "reverse": "7",
    "red": "31",
    "yellow": "33",
}
MARK_COLORS = {"X": "red", "O": "yellow"}


def use_color(stream: TextIO, mode: str = "auto", environ: Mapping[str, str] | None = None) -> bool:
    """Whether to write ANSI colours to ``stream``.

    ``always`` / ``never`` decide; ``auto`` colours a terminal only, and never when
    ``NO_COLOR`` is set to anything non-empty (https://no-color.org) or ``TERM=dumb``.
    """
    if mode == "always":
        return True
    if mode == "never":
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    return is_tty(stream)


@dataclass(frozen=True)
class Style:
    """ANSI styling, or none at all (``color=False``: every method returns its text)."""

    color: bool

    def paint(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        codes = ";".join(ANSI[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def mark(self, mark: str, last: bool = False) -> str:
        """A player's mark in its colour; the last move bold and underlined."""
        styles = (MARK_COLORS[mark],) if mark in MARK_COLORS else ()
        return self.paint(mark, *styles, *(("bold", "underline") if last else ()))

    def board(self, text: str) -> str:
        """Colour a ``GameView.render`` board: marks, the last move (in parentheses, or the
        ``*`` edge of Dots and Boxes), the winning line (in brackets) and the empty points."""
        if not self.color:
            return text

        def repl(m: re.Match[str]) -> str:
            if m.group(1):
                return "(" + self.mark(m.group(1), last=True) + ")"
            if m.group(2):
                return "[" + self.winning(m.group(2)) + "]"
            if m.group(3):
                return self.paint(m.group(3), "bold")
            if m.group(4):
                return self.mark(m.group(4))
            return self.paint(m.group(5), "dim")

        pattern = r"\(([XO])\)|\[([XO])\]|(-\*-|\*)|\b([XO])\b|(?<= )(\.)(?= |$)"
        return re.sub(pattern, repl, text)

    def winning(self, mark: str) -> str:
        """A stone of the winning line: its colour reversed, so the line stands out."""
        styles = (MARK_COLORS[mark],) if mark in MARK_COLORS else ()
        return self.paint(mark, *styles, "bold", "reverse")
