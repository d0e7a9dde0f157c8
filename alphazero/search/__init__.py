"""Tree search: the PUCT tree (``Node``), the door to the network (``process_policy``), the
batched driver that searches many games at once (``run_simulations``, one step of it:
``search_step``), Gumbel AlphaZero's root and interior selection (``gumbel``), and the
functions that choose the move once a search is done (``choice``)."""

from .batched import Selector, run_simulations, search_step
from .choice import Choice, by_visits, candidates, detach, quickest_win, visit_distribution
from .gumbel import (
    GumbelParams,
    GumbelRoot,
    gumbel_choice,
    gumbel_search,
    gumbel_select,
    gumbel_selector,
    improved_policy,
    reroot,
)
from .node import Node, add_dirichlet_noise, backup, expand, select
from .policy import (
    EvaluationCache,
    Policy,
    process_policies,
    process_policy,
    symmetric_policy,
)

__all__ = [
    "Choice",
    "EvaluationCache",
    "GumbelParams",
    "GumbelRoot",
    "Node",
    "Policy",
    "Selector",
    "add_dirichlet_noise",
    "backup",
    "by_visits",
    "candidates",
    "detach",
    "expand",
    "gumbel_choice",
    "gumbel_search",
    "gumbel_select",
    "gumbel_selector",
    "improved_policy",
    "process_policies",
    "process_policy",
    "quickest_win",
    "reroot",
    "run_simulations",
    "search_step",
    "select",
    "symmetric_policy",
    "visit_distribution",
]
