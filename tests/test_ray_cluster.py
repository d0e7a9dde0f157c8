"""Self-play on a two-node Ray cluster started with ``ray start``, driven by ``train.py``.

The cases (``ray_cluster_cases.py``) run in a private network and PID namespace
(``private_network.py``): all their traffic stays on the loopback, and every node they
start ends with them. The two-node run is in the default suite; the faults (a lost node,
a lost head and --resume, no room, no token) are slow.
"""

from __future__ import annotations

import pytest
from private_network import run_cases


def _run(selection: str, *options: str) -> None:
    result = run_cases("ray_cluster_cases.py", "-k", repr(selection), *options, timeout=1800)
    output = result.stdout[-6000:] + result.stderr[-2000:]
    assert result.returncode == 0, output
    assert " passed" in result.stdout and "skipped" not in result.stdout, output


def test_a_two_node_cluster_trains_with_the_drivers_code_and_the_local_games():
    _run("two_node")


@pytest.mark.slow
def test_a_cluster_loses_nothing_to_a_lost_node_or_head_and_says_what_it_lacks():
    _run("not two_node", "--runslow")
