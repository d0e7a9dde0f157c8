"""The network run by OpenVINO (``alphazero.network.engines``): the same answers as Keras, kept
fresh when the weights change, and a plain error or TensorFlow when it cannot be used."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import keras
import numpy as np
import pytest
from test_network import GAMES, random_positions, random_targets

from alphazero.config import NetworkConfig, TrainConfig
from alphazero.games import make
from alphazero.network import engines
from alphazero.network.engines import EngineError, resolve_engine
from alphazero.network.model import InferenceModel, build_network, load_model, wdl_value
from alphazero.training.trainer import Trainer

SMALL = NetworkConfig(filters=16, blocks=2, value_hidden=16, l2=1e-4)
PRETRAINED = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained"
needs_openvino = pytest.mark.skipif(
    not engines.openvino_installed(), reason="OpenVINO is not installed: pip install -e .[fast]"
)


def with_batch_statistics(model: keras.Model, seed: int) -> keras.Model:
    """``model`` with batch-norm statistics away from 0 and 1, as a trained network has, so
    that a copy that got them wrong (or ignored them) shows."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, variance = layer.get_weights()
            layer.set_weights(
                [
                    rng.uniform(0.5, 1.5, gamma.shape),
                    rng.normal(0.0, 0.2, beta.shape),
                    rng.normal(0.0, 0.2, mean.shape),
                    rng.uniform(0.5, 1.5, variance.shape),
                ]
            )
    return model


def assert_agrees_with_keras(inference: InferenceModel, planes: np.ndarray) -> None:
    """Policy logits and value within 1e-4 of the Keras model's own forward pass."""
    logits, values = inference(planes)
    expected_logits, expected_wdl = inference.model(planes, training=False)
    np.testing.assert_allclose(logits, expected_logits, rtol=0, atol=1e-4)
    expected_values = np.asarray(wdl_value(expected_wdl)[0])
    np.testing.assert_allclose(values, expected_values, rtol=0, atol=1e-4)


@needs_openvino
@pytest.mark.parametrize(("name", "params"), GAMES, ids=[g[0] for g in GAMES])
def test_openvino_agrees_with_keras_for_every_game_and_batch(name: str, params: dict) -> None:
    keras.utils.set_random_seed(3)
    game = make(name, **params)
    model = with_batch_statistics(build_network(game.encode().shape, game.num_actions, SMALL), 3)
    inference = InferenceModel(model, max_batch=64, precision="float32", engine="openvino")
    assert inference.engine == "openvino"
    planes = random_positions(name, params, 100, seed=3)
    for rows in (1, 3, 8, 64, 100):  # padded to a bucket; 100 cut into chunks of 64
        assert_agrees_with_keras(inference, planes[:rows])
    logits, values = inference(planes[:0])
    assert logits.shape == (0, game.num_actions) and values.shape == (0,)


@needs_openvino
def test_openvino_agrees_with_keras_on_the_shipped_connect4_model() -> None:
    game = make("connect4")
    model = load_model(PRETRAINED / "connect4" / "best.keras")
    inference = InferenceModel(model, max_batch=256, precision="float32", engine="openvino")
    assert_agrees_with_keras(inference, random_positions("connect4", {}, 256, seed=4))
    _, wdl = inference.evaluate(game.encode()[None])
    np.testing.assert_allclose(wdl.sum(axis=1), 1.0, atol=1e-5)


@needs_openvino
def test_openvino_copies_the_weights_again_after_training_and_when_told() -> None:
    keras.utils.set_random_seed(5)
    planes = random_positions("tictactoe", {}, 8, seed=5)
    policies, values = random_targets(8, 9, seed=6)
    model = build_network((3, 3, 3), 9, SMALL)
    inference = InferenceModel(model, max_batch=8, precision="float32", engine="openvino")
    before, _ = inference(planes)
    Trainer(model, TrainConfig(learning_rate=0.05, batch_size=8)).train_step(
        planes, policies, values
    )
    after, _ = inference(planes)  # an optimizer step: copied again
    assert not np.allclose(before, after, atol=1e-3)
    assert_agrees_with_keras(inference, planes)

    # Weights set from outside (a self-play worker given the learner's) show no optimizer
    # step: weights_changed() says so.
    other = with_batch_statistics(build_network((3, 3, 3), 9, SMALL), 7)
    model.set_weights(other.get_weights())
    stale, _ = inference(planes)
    np.testing.assert_allclose(stale, after)
    inference.weights_changed()
    assert_agrees_with_keras(inference, planes)


@needs_openvino
def test_openvino_in_bfloat16_stays_close_to_float32() -> None:
    keras.utils.set_random_seed(8)
    model = with_batch_statistics(build_network((6, 7, 3), 7, SMALL), 8)
    planes = random_positions("connect4", {}, 64, seed=8)
    fast = InferenceModel(model, max_batch=64, precision="bfloat16", engine="openvino")
    exact = InferenceModel(model, max_batch=64, precision="float32")
    for rows in (1, 64):
        logits, values = fast(planes[:rows])
        expected_logits, expected_values = exact(planes[:rows])
        np.testing.assert_allclose(logits, expected_logits, atol=0.1)
        np.testing.assert_allclose(values, expected_values, atol=0.05)


def a_model_openvino_cannot_copy() -> keras.Model:
    planes = keras.Input(shape=(3, 3, 3))
    x = keras.layers.Flatten()(planes)
    x = keras.layers.Dense(8, activation="tanh")(x)  # an activation the copy does not know
    return keras.Model(planes, [keras.layers.Dense(9)(x), keras.layers.Dense(3)(x)])


@needs_openvino
def test_auto_keeps_a_model_openvino_cannot_copy_on_tensorflow() -> None:
    model = a_model_openvino_cannot_copy()
    assert InferenceModel(model, engine="auto").engine == "tensorflow"
    with pytest.raises(EngineError, match="tanh"):
        InferenceModel(model, engine="openvino")


@needs_openvino
def test_auto_uses_openvino_when_installed() -> None:
    assert resolve_engine("auto") == "openvino"
    model = build_network((3, 3, 3), 9, SMALL)
    assert InferenceModel(model, engine="auto").engine == "openvino"
    assert InferenceModel(model).engine == "tensorflow"  # training's default stays


def test_without_openvino_auto_is_tensorflow_and_openvino_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engines, "openvino_installed", lambda: False)
    assert resolve_engine("auto") == "tensorflow"
    assert resolve_engine("tensorflow") == "tensorflow"
    with pytest.raises(EngineError, match=r"not installed: pip install -e '\.\[fast\]'"):
        resolve_engine("openvino")
    model = build_network((3, 3, 3), 9, SMALL)
    assert InferenceModel(model, engine="auto").engine == "tensorflow"
    with pytest.raises(EngineError, match="engine must be one of"):
        resolve_engine("onnx")


@needs_openvino
def test_copying_to_openvino_makes_no_network_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    # openvino.convert_model would report to Intel's telemetry server; the copy must not.
    # Attempts are recorded rather than raised: a telemetry sender catches what it raises.
    import socket

    import openvino

    attempts: list[str] = []

    def record(what: str) -> Callable[..., None]:
        def attempt(*args: object, **kwargs: object) -> None:
            attempts.append(what)
            raise OSError("no network in this test")

        return attempt

    monkeypatch.setattr(socket.socket, "connect", record("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", record("connect_ex"))
    monkeypatch.setattr(socket, "create_connection", record("create_connection"))
    monkeypatch.setattr(openvino, "convert_model", record("convert_model"))
    model = build_network((6, 7, 3), 7, SMALL)
    inference = InferenceModel(model, max_batch=8, precision="float32", engine="openvino")
    assert_agrees_with_keras(inference, random_positions("connect4", {}, 8, seed=9))
    assert attempts == []
