"""Shared pytest setup: the ``--runslow`` switch and a seeded random generator."""

from __future__ import annotations

import random

import pytest

import alphazero.network.tf_setup  # noqa: F401  (TensorFlow without its start-up chatter)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="also run the tests marked @pytest.mark.slow",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow test: give --runslow to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


@pytest.fixture
def rng() -> random.Random:
    """A seeded generator, so that every run plays the same 'random' games."""
    return random.Random(20240611)
