"""Players that do not learn: the yardsticks a trained network is measured against."""

from .perfect import PerfectPlayer, solve
from .rave import RAVENode, RAVEPlayer, RAVESearch
from .rollouts import rollout, rollout_moves
from .uct import UCT, MonteCarloTreeSearch, UCTNode, UCTPlayer

__all__ = [
    "UCT",
    "MonteCarloTreeSearch",
    "PerfectPlayer",
    "RAVENode",
    "RAVEPlayer",
    "RAVESearch",
    "UCTNode",
    "UCTPlayer",
    "rollout",
    "rollout_moves",
    "solve",
]
