"""Players that do not learn, the yardsticks a trained network is measured against, and exact
searches where a game is small enough."""

from .forced_win import ForcedWinSearch, shortest_forced_win
from .perfect import PerfectPlayer, solve
from .rave import RAVENode, RAVEPlayer, RAVESearch
from .uct import UCT, MonteCarloTreeSearch, UCTNode, UCTPlayer

__all__ = [
    "UCT",
    "ForcedWinSearch",
    "MonteCarloTreeSearch",
    "PerfectPlayer",
    "RAVENode",
    "RAVEPlayer",
    "RAVESearch",
    "UCTNode",
    "UCTPlayer",
    "shortest_forced_win",
    "solve",
]
