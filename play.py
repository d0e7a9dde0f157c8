"""Play a game in the terminal or in the browser, or run a match between any two players.

python play.py                                   # you against the shipped Connect Four model
python play.py --model checkpoints/connect4      # you against the model you trained
python play.py --game tictactoe --p2 uct:2000    # you against a baseline
python play.py --p1 uct:1000 --p2 random --games 100
python play.py --web                             # the board in your browser, played with the mouse
python play.py --help                            # every option, the notation, the commands

The session itself (board, prompt, hints, undo, records) lives in ``alphazero.terminal``, the
page and its server in ``alphazero.play.web``.
"""

from __future__ import annotations

import sys

from alphazero.terminal import main, parse_args, parse_game

__all__ = ["main", "parse_args", "parse_game"]

if __name__ == "__main__":
    sys.exit(main())
