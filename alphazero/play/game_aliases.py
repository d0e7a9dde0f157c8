"""The short names ``--game`` takes (``c4``, ``ttt``...): ``options.parse_game`` reads them and
``play.py --help`` lists them (``option_help``) from this one table, so the two cannot drift."""

from __future__ import annotations

GAME_ALIASES: dict[str, tuple[str, dict[str, int]]] = {
    "c4": ("connect4", {}),
    "ttt": ("tictactoe", {}),
    "boxes": ("dots_and_boxes", {}),
    "dots": ("dots_and_boxes", {}),
}
"""Short names for ``--game``: each one's game and parameters. ``gomokuN`` (N x N, five in a
row from 8 up, else four, or N below 4) is a rule of ``parse_game``'s, not a row here."""
