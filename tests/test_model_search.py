"""A model plays with the search its run was trained with, unless told otherwise; and both
search policies answer through the one entry point, ``search``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from alphazero.config import Config, SearchConfig
from alphazero.evaluation.model_player import ModelPlayer, ModelSource
from alphazero.evaluation.model_search import (
    PLAY_ALGORITHM,
    PlaySearch,
    play_search,
    trained_search,
)
from alphazero.games import make
from alphazero.search import GumbelParams, Node, SearchParams, search


def _run(tmp_path, **search_settings):
    config = Config(search=SearchConfig(**search_settings))
    (tmp_path / "models").mkdir()
    (tmp_path / "config.yaml").write_text(config.to_yaml())
    return tmp_path


def test_a_models_trained_search_comes_from_its_runs_config(tmp_path):
    run = _run(tmp_path, algorithm="gumbel", c_puct=2.5, gumbel_considered=4)
    for path in (run, run / "best.keras", run / "models" / "iter_0010.keras"):
        found = trained_search(path)
        assert (found.algorithm, found.c_puct) == ("gumbel", 2.5)
        assert found.gumbel == GumbelParams(considered=4)
    assert trained_search(tmp_path / "elsewhere" / "model.keras") == SearchParams()


def test_play_takes_the_runs_constants_and_the_flags_override_them(tmp_path):
    run = _run(tmp_path, algorithm="gumbel", c_puct=2.5)
    default = PlaySearch().resolve(run)
    assert default.algorithm == (PLAY_ALGORITHM or "gumbel") and default.c_puct == 2.5
    flagged = PlaySearch("gumbel", 0.7, leaves=3).resolve(run)
    assert (flagged.algorithm, flagged.c_puct, flagged.leaves_per_tree) == ("gumbel", 0.7, 3)
    assert play_search(SearchParams(), "puct").algorithm == "puct"


def test_search_params_refuse_what_no_search_can_do():
    with pytest.raises(ValueError, match="puct or gumbel"):
        SearchParams(algorithm="mcts")  # type: ignore[arg-type]
    for c_puct in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="c_puct"):
            SearchParams(c_puct=c_puct)


def _flat(planes):
    return np.zeros((len(planes), 7)), np.zeros(len(planes))


@pytest.mark.parametrize("algorithm", ["puct", "gumbel"])
def test_both_policies_take_a_win_in_one_and_value_it_for_the_mover(algorithm):
    game = make("connect4").__class__.from_moves([0, 1, 0, 1, 0, 1])  # X wins in column 1
    quiet = make("connect4").__class__.from_moves([3])
    params = SearchParams(algorithm=algorithm)
    found = search([Node(game), Node(quiet)], _flat, params, 32, np.random.default_rng(0))
    assert found.actions.shape == (2,) and found.values.shape == (2,)
    assert found.policies.shape == (2, 7)
    assert np.allclose(found.policies.sum(axis=1), 1.0)
    assert found.actions[0] == 0 and found.values[0] == 1.0  # for X, the player to move
    assert found.chosen[0].mother is None and found.chosen[0].game.score == 1


@pytest.mark.parametrize("algorithm", ["puct", "gumbel"])
def test_a_model_player_searches_with_the_policy_it_is_given(algorithm):
    game = make("connect4").__class__.from_moves([0, 1, 0, 1, 0])  # O must block column 1
    params = dataclasses.replace(SearchParams(), algorithm=algorithm)
    player = ModelPlayer(ModelSource("stand-in", inference=_flat), make("connect4"), 64, params)
    assert player.search.algorithm == algorithm
    assert player(game) == 0
