"""PUCT search: the tree (``Node``), the door to the network (``process_policy``) and the
batched driver that searches many games at once (``run_simulations``, one step of it:
``search_step``)."""

from .batched import run_simulations, search_step
from .node import Choice, Node, add_dirichlet_noise, backup, expand, select
from .policy import Policy, process_policies, process_policy, symmetric_policy

__all__ = [
    "Choice",
    "Node",
    "Policy",
    "add_dirichlet_noise",
    "backup",
    "expand",
    "process_policies",
    "process_policy",
    "run_simulations",
    "search_step",
    "select",
    "symmetric_policy",
]
