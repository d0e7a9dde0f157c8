"""Config validation: each bad setting or combination is one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from alphazero.config import ConfigError, config_from_dict, load_config


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"trian": {}}, "trian: unknown setting"),
        ({"train": {"batch_size": "x"}}, "train.batch_size: expected an integer"),
        ({"search": {"simulations": 1}}, "search.simulations: must be >= 2"),
        ({"search": {"c_puct": 0}}, "search.c_puct: must be > 0.0"),
        ({"train": {"learning_rate": float("nan")}}, "train.learning_rate: must be a finite"),
        ({"search": {"c_puct": float("inf")}}, "search.c_puct: must be a finite number"),
        ({"network": {"l2": float("-inf")}}, "network.l2: must be a finite number"),
        (
            {"selfplay": {"temperature_value_cutoff": float("nan")}},
            "selfplay.temperature_value_cutoff: must be a finite number",
        ),
        ({"train": {"momentum": 10**400}}, "train.momentum: must be a finite number"),
        ({"selfplay": {"resign_threshold": 0.5}}, "selfplay.resign_threshold"),
        ({"train": {"optimizer": "rmsprop"}}, "one of 'sgd', 'adam'"),
        ({"game": {"name": "chess"}}, "unknown game 'chess'"),
        ({"game": {"name": "connect4", "params": {"size": 3}}}, "has no parameter size"),
        ({"evaluation": {"opponents": "uct:200"}}, "evaluation.opponents: expected a list"),
        ({"evaluation": {"opponents": []}}, "give at least one player"),
        ({"evaluation": {"opponents": ["uct:x"]}}, "evaluation.opponents[0]"),
        ({"evaluation": {"opponents": ["human"]}}, "a person cannot be a ladder opponent"),
        ({"evaluation": {"opponents": ["perfect"]}}, "no perfect player for connect4"),
        ({"evaluation": {"opponents": ["model:/nowhere.keras"]}}, "no model at /nowhere.keras"),
        (
            {"evaluation": {"opponents": ["model:/nowhere.keras:800:symmetric"]}},
            "no model at /nowhere.keras",
        ),
        ({"train": {"min_positions": 10}, "replay": {"capacity": 5}}, "would never start"),
        ({"selfplay": {"fast_simulations": 300}}, "must be below search.simulations"),
        (
            {"selfplay": {"fast_simulations": 20, "full_search_share": 0.0}},
            "no move would become a training example",
        ),
    ],
)
def test_bad_settings_are_one_line_errors_naming_the_key(data, message):
    with pytest.raises(ConfigError) as error:
        config_from_dict(data)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_every_shipped_config_loads():
    configs = sorted(Path(__file__).resolve().parents[1].glob("configs/*.yaml"))
    assert len(configs) >= 4
    for path in configs:
        assert load_config(path).run_name == path.stem


def test_the_perfect_player_is_a_valid_opponent_where_the_game_is_solved():
    config = config_from_dict(
        {"game": {"name": "tictactoe"}, "evaluation": {"opponents": ["random", "perfect"]}}
    )
    assert config.evaluation.opponents == ["random", "perfect"]


def test_a_ladder_model_spec_takes_every_model_form():
    shipped = Path(__file__).parent.parent / "checkpoints" / "pretrained" / "connect4"
    for spec in (f"model:{shipped}", f"model:{shipped}:800", f"model:{shipped}:800:symmetric"):
        config = config_from_dict({"evaluation": {"opponents": [spec]}})
        assert config.evaluation.opponents == [spec]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("train: {learning_rate: .nan}", "train.learning_rate"),
        ("search: {dirichlet_alpha: .inf}", "search.dirichlet_alpha"),
        ("selfplay: {value_discount: 1.0e+999}", "selfplay.value_discount"),
    ],
)
def test_yaml_nan_and_inf_are_one_line_errors_naming_the_key(tmp_path, text, key):
    path = tmp_path / "nan.yaml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"{key}: must be a finite number" in str(error.value)
    assert "\n" not in str(error.value)
