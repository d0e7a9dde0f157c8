"""What ``play.py`` and its page do where nothing says otherwise: the game, the model's search,
whom a person plays without a model, and where ``--web`` serves. Here, apart from the
command line, because the session, the page and the benchmarks start from them too."""

from __future__ import annotations

DEFAULT_GAME = "connect4"
DEFAULT_SIMULATIONS = 800
"""What the README's strength table measures; with ``DEFAULT_LEAVES`` and ``DEFAULT_CACHE``
a move takes a fraction of a second on two cores (``benchmarks/play_speed.py``,
docs/research/benchmarks.md)."""
DEFAULT_LEAVES = 4
"""Leaves searched per network call (virtual loss keeps them apart): the search makes a
quarter of the calls, each of 4 positions, for the same simulations, and on the solved
Connect Four positions it plays as well as one leaf (docs/research/benchmarks.md)."""
DEFAULT_CACHE = 10_000
"""Positions whose network answers a model player keeps across its moves (``ModelPlayer``'s
``cache``): each move's search meets again most of the positions the last searches
evaluated, so a move is several times faster with the same moves (``benchmarks/play_speed.py``,
docs/research/benchmarks.md)."""
FALLBACK_OPPONENT = "uct:2000"
"""Whom a person plays in the terminal when the game has no model (said in one line): the UCT
baseline needs none, and plays every game on every board."""
DEFAULT_ENGINE = "auto"
"""OpenVINO (a dependency of the package) when installed, else TensorFlow."""
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
"""Where ``--web`` serves: this machine only, unless ``--host`` says otherwise."""
