"""Tree search: the PUCT tree (``Node``) and its steps (``select``, ``expand``, ``backup``),
the door to the network (``process_policy``), the batched driver that searches many trees
at once (``batched.py``), the two search policies over it and the one entry point
(``policies.py``: ``search``, ``puct_policy``, ``gumbel_policy``), their parameters
(``params.py``: ``SearchParams``), Gumbel AlphaZero's selection (``gumbel.py``) and the
functions that choose the move once a search is done (``choice.py``), and a search that runs
until told to stop, for play's time budgets (``deadline.py``: ``search_until``)."""

from .batched import RootSearch, run, search_step
from .choice import Choice, by_visits, candidates, detach, quickest_win, visit_distribution
from .deadline import search_until
from .gumbel import GumbelRoot, gumbel_choice, improved_policy, reroot
from .node import Node, add_dirichlet_noise, backup, expand, puct_child, select
from .params import C_PUCT, GumbelParams, RootNoise, SearchParams
from .policies import (
    SearchOutput,
    SearchPolicy,
    gumbel_policy,
    make_policy,
    puct_policy,
    search,
)
from .policy import (
    EvaluationCache,
    Policy,
    process_policies,
    process_policy,
    symmetric_policy,
)

__all__ = [
    "C_PUCT",
    "Choice",
    "EvaluationCache",
    "GumbelParams",
    "GumbelRoot",
    "Node",
    "Policy",
    "RootNoise",
    "RootSearch",
    "SearchOutput",
    "SearchParams",
    "SearchPolicy",
    "add_dirichlet_noise",
    "backup",
    "by_visits",
    "candidates",
    "detach",
    "expand",
    "gumbel_choice",
    "gumbel_policy",
    "improved_policy",
    "make_policy",
    "process_policies",
    "process_policy",
    "puct_child",
    "puct_policy",
    "quickest_win",
    "reroot",
    "run",
    "search",
    "search_step",
    "search_until",
    "select",
    "symmetric_policy",
    "visit_distribution",
]
