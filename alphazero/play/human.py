"""A person as a player (``player(game) -> action``): the ``human`` of ``play.py --p1``."""

from __future__ import annotations

import sys

from ..games.base import Game
from .prompt import Leave, LineReader, ask_move


class HumanPlayer:
    """A person at the terminal: reads moves typed on standard input until one is legal.

    This is the bare prompt for code that calls players one move at a time, the same loop
    (``prompt.ask_move``) as ``play.py``'s session, which adds commands, hints and undo.
    End of input raises ``SystemExit`` with a short message, never a traceback.
    """

    def __init__(self, prompt: str = "your move: ", reader: LineReader | None = None) -> None:
        self.name = "human"
        self.prompt = prompt
        self.reader = reader if reader is not None else LineReader(sys.stdout)

    def __call__(self, game: Game) -> int:
        try:
            return ask_move(game, self.reader, self.prompt, print)
        except Leave:
            raise SystemExit("\nend of input: game abandoned") from None
