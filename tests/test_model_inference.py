"""A model file read without TensorFlow and run by OpenVINO (``keras_graph``,
``model_inference``): the same answers as Keras, no TensorFlow imported to play, and Keras
(with its one-line errors) for whatever the reader does not know."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pytest
from test_engines import SMALL, a_model_openvino_cannot_copy, needs_openvino, with_batch_statistics
from test_network import random_positions

from alphazero.games import make
from alphazero.network.engines import OpenVINONetwork
from alphazero.network.inference import load_inference
from alphazero.network.keras_graph import graph_of, read_keras_file
from alphazero.network.model import InferenceModel, build_network, wdl_value
from alphazero.training.run_errors import CheckpointError

ROOT = Path(__file__).resolve().parents[1]
PRETRAINED = ROOT / "checkpoints" / "pretrained"


def test_a_saved_network_reads_the_same_from_its_file_as_from_keras(tmp_path) -> None:
    keras.utils.set_random_seed(11)
    model = with_batch_statistics(build_network((6, 7, 3), 7, SMALL), 11)
    model.save(tmp_path / "m.keras")
    from_file, from_model = read_keras_file(tmp_path / "m.keras"), graph_of(model)
    assert from_file.plane_shape == from_model.plane_shape == (6, 7, 3)
    assert from_file.outputs == from_model.outputs and from_file.output_sizes == [7, 3]
    assert [(x.kind, x.name, x.inputs) for x in from_file.layers] == [
        (x.kind, x.name, x.inputs) for x in from_model.layers
    ]
    for saved, live in zip(from_file.layers, from_model.layers, strict=True):
        assert len(saved.weights) == len(live.weights)
        for a, b in zip(saved.weights, live.weights, strict=True):
            np.testing.assert_array_equal(a, b)


@needs_openvino
@pytest.mark.parametrize("name", ["connect4", "dots_and_boxes"])
def test_a_model_file_run_by_openvino_alone_agrees_with_keras(tmp_path, name) -> None:
    keras.utils.set_random_seed(12)
    game = make(name)
    model = with_batch_statistics(build_network(game.plane_shape, game.num_actions, SMALL), 12)
    model.save(tmp_path / "m.keras")
    network = OpenVINONetwork(read_keras_file(tmp_path / "m.keras"), 64, bfloat16=False)
    planes = random_positions(name, {}, 100, seed=12)
    for rows in (1, 3, 100):  # padded to a power of two; 100 cut into chunks of 64
        logits, values = network(planes[:rows])
        expected_logits, expected_wdl = model(planes[:rows], training=False)
        np.testing.assert_allclose(logits, expected_logits, rtol=0, atol=1e-4)
        np.testing.assert_allclose(values, wdl_value(expected_wdl)[0], rtol=0, atol=1e-4)
    logits, wdl = network.evaluate(planes[:0])
    assert logits.shape == (0, game.num_actions) and wdl.shape == (0, 3)


@needs_openvino
def test_play_searches_with_openvino_and_never_imports_tensorflow() -> None:
    code = f"""
import sys
from alphazero.games import make
from alphazero.play.web_networks import load_network
from alphazero.evaluation.model_player import ModelPlayer, ModelSource
game = make("tictactoe")
player = ModelPlayer(ModelSource({str(PRETRAINED / "tictactoe")!r}, engine="auto"), game, 20)
thought = player.think(game)
served = load_network({str(PRETRAINED / "tictactoe")!r}, game, engine="auto")
served.evaluate(game.encode()[None])
print(type(player.network).__name__, type(served).__name__, thought.wdl is not None,
      "tensorflow" in sys.modules, "keras" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["OpenVINONetwork", "OpenVINONetwork", "True", "False", "False"]


@needs_openvino
def test_a_file_the_reader_does_not_know_is_loaded_by_keras(tmp_path) -> None:
    a_model_openvino_cannot_copy().save(tmp_path / "tanh.keras")
    network = load_inference(tmp_path / "tanh.keras", make("tictactoe"), engine="auto")
    assert isinstance(network, InferenceModel) and network.engine == "tensorflow"


@needs_openvino
def test_a_broken_or_foreign_model_file_is_the_same_one_line_error(tmp_path) -> None:
    broken = tmp_path / "broken.keras"
    broken.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="not a Keras model file"):
        load_inference(broken, make("connect4"), engine="auto")
    with pytest.raises(CheckpointError, match=r"reads planes \[6, 7, 3\].*another game"):
        load_inference(PRETRAINED / "connect4" / "best.keras", make("tictactoe"), engine="auto")
    with pytest.raises(CheckpointError, match="this run trained connect4, not tictactoe"):
        load_inference(PRETRAINED / "connect4", make("tictactoe"), engine="auto")
