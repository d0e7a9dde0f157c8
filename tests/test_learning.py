"""The one end-to-end learning test: tic-tac-toe from scratch to perfect play.

It runs the real pipeline (``train.py``'s loop: self-play, buffer, trainer, checkpoints) on
``configs/tictactoe.yaml`` and then lets the network-guided search play a perfect minimax
player from both sides, following *every* optimal reply the perfect player could choose.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from alphazero.baselines import perfect
from alphazero.config import load_config
from alphazero.games import Game, make
from alphazero.network.model import InferenceModel
from alphazero.search import Node, SearchParams, search
from alphazero.training.checkpoints import load_model
from alphazero.training.loop import train

SIMULATIONS = 64


def model_move(policy, game: Game) -> int:
    found = search([Node(game)], policy, SearchParams(), SIMULATIONS, np.random.default_rng(0))
    return int(found.actions[0])


def losses_against_perfect_play(policy, model_side: int) -> tuple[int, int]:
    """(games lost, games played) over every line where the perfect player stays optimal."""
    return perfect.losses_against_perfect_play(
        functools.partial(model_move, policy), make("tictactoe"), model_side
    )


def test_tictactoe_training_reaches_perfect_play(tmp_path):
    config = load_config("configs/tictactoe.yaml")
    config = dataclasses.replace(config, iterations=config.iterations, seed=0)
    state = train(config, tmp_path / "run", progress=False)
    assert state.iteration == config.iterations

    policy = InferenceModel(load_model(tmp_path / "run"), max_batch=16)
    for side in (1, -1):
        lost, played = losses_against_perfect_play(policy, side)
        assert played > 1
        side_name = "first" if side == 1 else "second"
        assert lost == 0, f"lost {lost} of {played} games playing {side_name}"


@pytest.mark.parametrize("side", [1, -1])
def test_untrained_search_is_not_perfect(tmp_path, side):
    """The measure can fail: a network-free shallow search loses some lines."""

    def uniform(planes):
        return np.zeros((len(planes), 9)), np.zeros(len(planes))

    global SIMULATIONS
    saved, SIMULATIONS = SIMULATIONS, 4
    try:
        lost, _ = losses_against_perfect_play(uniform, side)
    finally:
        SIMULATIONS = saved
    assert lost > 0
