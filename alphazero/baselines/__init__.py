"""Players that do not learn, the yardsticks a trained network is measured against: UCT,
UCT-RAVE, for Gomoku a threat-aware alpha-beta search and, where a game is small enough to
solve, perfect play."""

from .alphabeta import AlphaBetaPlayer, AlphaBetaSearch
from .perfect import PerfectPlayer, solve
from .rave import RAVENode, RAVEPlayer, RAVESearch
from .uct import UCT, MonteCarloTreeSearch, UCTNode, UCTPlayer

__all__ = [
    "UCT",
    "AlphaBetaPlayer",
    "AlphaBetaSearch",
    "MonteCarloTreeSearch",
    "PerfectPlayer",
    "RAVENode",
    "RAVEPlayer",
    "RAVESearch",
    "UCTNode",
    "UCTPlayer",
    "solve",
]
