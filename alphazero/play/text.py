"""Text for the terminal: lines wrapped to its width, two-column help tables, and typed lines
shown back safely."""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Sequence
from typing import TextIO

ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` when set; 80 when the output is not one)."""
    return shutil.get_terminal_size().columns


def is_tty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (False for a closed stream or one without isatty)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def fill(text: str, width: int, columns: bool = True) -> str:
    """``text`` with every line wider than ``width`` wrapped; lines that fit are kept as
    written, so hand-made layouts (tables, examples) stay as they are where there is room.

    A wrapped line of prose goes on at its own indent, an indented line (an item of a list)
    two further in. With ``columns``, a line laid out in two columns (a gap of two or more
    spaces after its first words) goes on under its second column, where that column starts
    in the left half; otherwise as an item. Never wider than ``width`` (at least 20).
    """
    width = max(width, 20)
    out = []
    for line in text.splitlines():
        if len(ANSI_CODE.sub("", line)) <= width:  # colour codes take no room on the screen
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        hang = lead + 2 if lead else 0
        second = re.match(r" *\S.*?\S {2,}(?=\S)", line) if columns else None
        if second is not None and second.end() <= width // 2:
            hang = second.end()
        # Deep indents (continuations of a table's column) would leave too little room.
        lead, hang = min(lead, width // 3), min(hang, width // 3)
        out.extend(
            textwrap.wrap(
                line.strip(),
                width,
                initial_indent=" " * lead,
                subsequent_indent=" " * hang,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def two_columns(rows: Sequence[tuple[str, str]], width: int, indent: int = 2) -> str:
    """``rows`` as two columns within ``width``: the second starts after the widest first
    part that takes at most half the width; a first part wider than that stands on its own
    line, its second part under the column. Each part wraps within its room."""
    width = max(width, 30)
    gap = 2
    fitting = [len(left) for left, _ in rows if indent + len(left) + gap <= width // 2]
    start = indent + (max(fitting) + gap if fitting else 4)
    lines = []
    for left, right in rows:
        body = textwrap.wrap(right, width - start, break_on_hyphens=False)
        if indent + len(left) + gap <= start and body:
            lines.append((" " * indent + left).ljust(start) + body.pop(0))
        else:
            margin = " " * indent
            lines += textwrap.wrap(
                left,
                width,
                initial_indent=margin,
                subsequent_indent=margin + "  ",
                break_on_hyphens=False,
            )
        lines += [" " * start + line for line in body]
    return "\n".join(lines)


def printable(text: str, limit: int = 40) -> str:
    """``text`` as it can be shown back: control characters escaped, cut at ``limit``."""
    shown = text if text.isprintable() else ascii(text)[1:-1]
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
