"""The Ray backend, tested on a local Ray instance inside a private network namespace.

The scenarios in ``ray_cases.py`` run in a namespace of their own (``private_network.py``):
Ray otherwise talks over the machine's own network address even for a local instance.
"""

from __future__ import annotations

from private_network import run_cases


def test_ray_backend_trains_and_survives_a_killed_actor():
    result = run_cases("ray_cases.py", timeout=900)
    output = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, output
    assert "2 passed" in result.stdout, output
