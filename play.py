"""Play a game in the terminal or in the browser, or run a match between any two players.

python play.py                                   # you against the shipped Connect Four model
python play.py --model checkpoints/connect4      # you against the model you trained
python play.py --game tictactoe --p2 uct:2000    # you against a baseline
python play.py --p1 uct:1000 --p2 random --games 100
python play.py --web                             # the board in your browser, played with the mouse
python play.py --help                            # every option, the notation, the commands

The program lives in the package ``alphazero.play``: ``cli`` reads the options, ``session`` is
the game at the terminal (board, prompt, hints, undo), ``web`` starts ``--web`` and the
``web_*`` modules are the page's server (``web_server``) and what it serves.
"""

from __future__ import annotations

import sys

from alphazero.play.cli import main
from alphazero.play.options import parse_args, parse_game

__all__ = ["main", "parse_args", "parse_game"]

if __name__ == "__main__":
    sys.exit(main())
