"""``SearchParams``: the one record of how a model searches, wherever it plays.

Self-play, the evaluation ladder, ``play.py`` (its hints and ``--web`` too), the strength
benchmark and the solved-position benchmarks all build their search from one of these, made
from a run's ``search:`` section by ``SearchConfig.params()`` (``alphazero/config/sections.py``),
so a model plays with its run's constants. Only the algorithm differs by default: the ladder
and play search with PUCT (``evaluation.model_search.play_search``), whatever self-play used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

C_PUCT = 1.5
"""PUCT's exploration constant unless a config says otherwise: the weight of the prior
against the mean value, ``U = V + c_puct * prob * sqrt(N_mother) / (1 + N)``."""


@dataclass(frozen=True)
class RootNoise:
    """Dirichlet noise mixed into a root's priors, ``(1 - weight) p + weight n``: PUCT's
    exploration for the self-play moves that become training examples."""

    alpha: float = 0.3
    """Concentration of each move's share (AlphaZero: 0.3 in chess, 0.03 in Go)."""
    weight: float = 0.25


@dataclass(frozen=True)
class GumbelParams:
    """What a Gumbel search may be given (``sigma``'s constants are fixed: ``gumbel.py``)."""

    considered: int = 16
    """Moves sampled at the root (fewer when fewer are legal)."""


@dataclass(frozen=True)
class SearchParams:
    """How to search: which policy (``policies.py``) and its constants."""

    algorithm: Literal["puct", "gumbel"] = "puct"
    """``puct``: AlphaZero's search, visit counts as the policy target. ``gumbel``: Gumbel
    AlphaZero's sequential halving at the root, the improved policy as the target."""
    c_puct: float = C_PUCT
    """PUCT's exploration constant (``puct`` only)."""
    leaves_per_tree: int = 1
    """``puct``: leaves selected per tree per network call, kept apart by a virtual loss."""
    noise: RootNoise = field(default_factory=RootNoise)
    """``puct``: the root noise of searches asked to explore (self-play's recorded moves)."""
    gumbel: GumbelParams = field(default_factory=GumbelParams)
    """``gumbel``: its constants."""

    def __post_init__(self) -> None:
        if self.algorithm not in ("puct", "gumbel"):
            raise ValueError(f"search algorithm must be puct or gumbel, got {self.algorithm!r}")
        if not 0 < self.c_puct < math.inf:  # NaN fails this too, where `<= 0` let it by
            raise ValueError(f"c_puct must be positive and finite, got {self.c_puct:g}")
        if self.leaves_per_tree < 1:
            raise ValueError(f"leaves per tree must be at least 1, got {self.leaves_per_tree}")

    def describe(self) -> str:
        """One line naming the search, for a report: ``puct c_puct 1.5`` or ``gumbel 16``."""
        if self.algorithm == "gumbel":
            return f"gumbel (considered {self.gumbel.considered})"
        leaves = f", {self.leaves_per_tree} leaves" if self.leaves_per_tree > 1 else ""
        return f"puct (c_puct {self.c_puct:g}{leaves})"
