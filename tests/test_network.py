"""The policy-value network, its inference wrapper, the trainer and saving with Keras 3."""

from __future__ import annotations

import random

import keras
import numpy as np
import pytest
import tensorflow as tf

from alphazero.config import NetworkConfig, TrainConfig
from alphazero.games import make
from alphazero.network.model import (
    InferenceModel,
    build_network,
    load_model,
    network_shape,
    wdl_value,
)
from alphazero.network.model_files import check_network_matches
from alphazero.training.run_errors import CheckpointError
from alphazero.training.trainer import StepDecay, Trainer, make_optimizer, make_schedule

TINY = NetworkConfig(filters=8, blocks=1, value_hidden=8, l2=1e-4)
GAMES = [
    ("tictactoe", {}),
    ("connect4", {}),
    ("gomoku", {"size": 6, "n_in_row": 4}),
    ("dots_and_boxes", {"rows": 2, "cols": 2}),
]


def random_positions(name: str, params: dict, count: int, seed: int = 0) -> np.ndarray:
    """``count`` distinct encoded positions ``[count, H, W, C]`` reached by random play."""
    rng = random.Random(seed)
    seen: dict[bytes, np.ndarray] = {}
    while len(seen) < count:
        game = make(name, **params)
        for _ in range(rng.randrange(0, game.num_actions)):
            if game.is_over:
                break
            game = game.sim_move(rng.choice(game.available_moves))
        planes = game.encode()
        seen.setdefault(planes.tobytes(), planes)
    return np.stack(list(seen.values()))


def random_targets(count: int, actions: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    policies = rng.dirichlet(np.full(actions, 0.5), size=count).astype(np.float32)
    values = rng.uniform(-1.0, 1.0, size=count).astype(np.float32)
    return policies, values


def entropy(p: np.ndarray) -> np.ndarray:
    return -np.sum(np.where(p > 0, p * np.log(np.maximum(p, 1e-30)), 0.0), axis=-1)


def assert_same_variables(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=x.path)


# ------------------------------------------------------------------------- the model
@pytest.mark.parametrize(("name", "params"), GAMES, ids=[g[0] for g in GAMES])
def test_output_shapes_for_every_game(name: str, params: dict) -> None:
    keras.utils.set_random_seed(0)
    game = make(name, **params)
    model = build_network(game.plane_shape, game.num_actions, TINY)
    planes = random_positions(name, params, 5)
    logits, wdl = model(planes, training=False)
    assert tuple(logits.shape) == (5, game.num_actions)
    assert tuple(wdl.shape) == (5, 3)  # win, draw, loss logits for the mover
    value, probabilities = (np.asarray(t) for t in wdl_value(wdl))
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    assert np.all(np.abs(value) <= 1.0)
    # the value stays in [-1, 1] even on huge inputs
    _, big = model(planes * 1e4, training=False)
    assert np.all(np.abs(np.asarray(wdl_value(big)[0])) <= 1.0 + 1e-6)
    assert model.get_layer("policy").units == game.num_actions
    assert model.get_layer("value").units == 3


def test_architecture() -> None:
    model = build_network((6, 7, 3), 7, NetworkConfig(filters=16, blocks=3, value_hidden=32))
    convs = [layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]
    # stem + 2 per block + one per head
    assert len(convs) == 1 + 2 * 3 + 2
    assert all(not c.use_bias and c.kernel_regularizer is not None for c in convs)
    assert model.get_layer("value_hidden").units == 32
    assert model.get_layer("value").activation is keras.activations.linear  # W/D/L logits
    assert len(model.losses) == len(convs) + 3  # every conv and dense kernel is penalised
    no_l2 = build_network((3, 3, 3), 9, NetworkConfig(filters=4, blocks=0, l2=0.0))
    assert no_l2.losses == []


def test_value_channels_widen_the_value_head_and_are_read_back_from_the_model() -> None:
    config = NetworkConfig(filters=16, blocks=2, value_hidden=32, value_channels=8)
    model = build_network((6, 7, 3), 7, config)
    assert model.get_layer("value_conv").filters == 8
    assert model.get_layer("value_hidden").kernel.shape == (6 * 7 * 8, 32)
    assert network_shape(model) == {
        "filters": 16,
        "blocks": 2,
        "value_hidden": 32,
        "value_channels": 8,
        "policy_channels": 2,
    }
    # AlphaZero's one channel stays the default, so every saved model reads as before.
    assert network_shape(build_network((6, 7, 3), 7, NetworkConfig()))["value_channels"] == 1


def test_policy_channels_widen_the_policy_head_and_are_read_back_from_the_model() -> None:
    """Not a setting (every run has 2), but the policy-head probe of the research record
    builds wider heads."""
    model = build_network((6, 7, 3), 7, NetworkConfig(filters=16, blocks=2), policy_channels=8)
    assert model.get_layer("policy_conv").filters == 8
    assert model.get_layer("policy").kernel.shape == (6 * 7 * 8, 7)
    assert network_shape(model)["policy_channels"] == 8
    # AlphaZero's two channels stay the default, so every saved model reads as before.
    assert network_shape(build_network((6, 7, 3), 7, NetworkConfig()))["policy_channels"] == 2


def test_a_model_with_a_wider_policy_head_does_not_train_on_in_a_run() -> None:
    network = NetworkConfig(filters=8, blocks=1)
    check_network_matches(build_network((6, 7, 3), 7, network), network, "run/config.yaml")
    wider = build_network((6, 7, 3), 7, network, policy_channels=16)
    with pytest.raises(CheckpointError, match="has 16 policy channels, not the 2 of every run"):
        check_network_matches(wider, network, "run/config.yaml")


def test_network_overfits_a_small_batch() -> None:
    keras.utils.set_random_seed(1)
    planes = random_positions("tictactoe", {}, 32, seed=1)
    policies, values = random_targets(32, 9, seed=2)
    model = build_network((3, 3, 3), 9, NetworkConfig(filters=32, blocks=2, value_hidden=32))
    trainer = Trainer(model, TrainConfig(batch_size=32, learning_rate=3e-3))
    first = trainer.train_step(planes, policies, values)
    for _ in range(250):
        last = trainer.train_step(planes, policies, values)
    floor = float(np.mean(entropy(policies)))  # the lowest cross-entropy possible
    assert first["policy_loss"] > floor + 0.3
    assert last["policy_loss"] < floor + 0.1
    assert last["value_mse"] < 0.05
    assert abs(last["policy_entropy"] - floor) < 0.15
    # In inference mode too (BatchNorm's moving statistics followed the batch).
    _, wdl = model(planes, training=False)
    assert float(np.mean((np.asarray(wdl_value(wdl)[0]) - values) ** 2)) < 0.15


def test_train_step_reports_the_losses() -> None:
    keras.utils.set_random_seed(3)
    planes = random_positions("connect4", {}, 8, seed=3)
    policies, values = random_targets(8, 7, seed=4)
    model = build_network((6, 7, 3), 7, TINY)
    trainer = Trainer(model, TrainConfig(batch_size=8))
    # Same trainable weights and the same batch statistics as the step will see.
    logits, wdl = (np.asarray(t, dtype=np.float64) for t in model(planes, training=True))
    log_wdl = wdl - wdl.max(axis=1, keepdims=True)
    log_wdl -= np.log(np.exp(log_wdl).sum(axis=1, keepdims=True))
    win, loss = np.maximum(values, 0), np.maximum(-values, 0)
    targets = np.stack([win, 1 - win - loss, loss], axis=1)
    value = np.exp(log_wdl[:, 0]) - np.exp(log_wdl[:, 2])
    log_p = logits - logits.max(axis=1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(axis=1, keepdims=True))
    l2 = sum(
        1e-4 * float(np.sum(np.square(w))) for w in model.trainable_weights if "kernel" in w.path
    )
    metrics = trainer.train_step(planes, policies, values)
    assert set(metrics) == {
        "policy_loss",
        "value_loss",
        "value_mse",
        "l2_loss",
        "total_loss",
        "policy_entropy",
        "learning_rate",
    }
    assert metrics["policy_loss"] == pytest.approx(-np.mean(np.sum(policies * log_p, 1)), rel=1e-4)
    assert metrics["value_loss"] == pytest.approx(-np.mean(np.sum(targets * log_wdl, 1)), rel=1e-4)
    assert metrics["value_mse"] == pytest.approx(np.mean((value - values) ** 2), rel=1e-4)
    assert metrics["l2_loss"] == pytest.approx(l2, rel=1e-4)
    assert metrics["policy_entropy"] == pytest.approx(np.mean(entropy(np.exp(log_p))), rel=1e-4)
    assert metrics["total_loss"] == pytest.approx(
        metrics["policy_loss"] + metrics["value_loss"] + metrics["l2_loss"], rel=1e-5
    )
    assert metrics["learning_rate"] == pytest.approx(1e-3)
    assert trainer.iterations == 1


def test_train_runs_steps_and_averages() -> None:
    keras.utils.set_random_seed(5)
    planes = random_positions("tictactoe", {}, 16, seed=5)
    policies, values = random_targets(16, 9, seed=6)
    model = build_network((3, 3, 3), 9, TINY)
    trainer = Trainer(
        model,
        TrainConfig(batch_size=16, learning_rate=0.1, lr_schedule="step", lr_decay_steps=3),
    )
    calls = []

    def sample(n: int):
        calls.append(n)
        rows = n if len(calls) != 2 else n // 2  # one short batch: same trace
        return planes[:rows], policies[:rows], values[:rows]

    assert trainer.train(sample, 0, progress=False) == {}
    result = trainer.train(sample, 5, progress=False)
    assert calls == [16] * 5
    assert trainer.iterations == 5
    assert trainer.trace_count == 1
    assert result["learning_rate"] == pytest.approx(0.01)  # the 5th step is step 4
    for key in ("policy_loss", "value_loss", "l2_loss", "total_loss", "policy_entropy"):
        assert np.isfinite(result[key]) and result[key] >= 0


# ------------------------------------------------------------------------ inference
def test_inference_matches_the_model_with_padding_and_chunks() -> None:
    keras.utils.set_random_seed(7)
    model = build_network((6, 7, 3), 7, TINY)
    inference = InferenceModel(model, max_batch=64)
    assert inference.buckets == (1, 2, 4, 8, 16, 32, 64)
    planes = random_positions("connect4", {}, 300, seed=7)
    for rows in (1, 3, 64, 300):
        logits, values = inference(planes[:rows])
        expected_logits, expected_values = model(planes[:rows], training=False)
        assert logits.dtype == np.float32 and values.dtype == np.float32
        assert logits.shape == (rows, 7) and values.shape == (rows,)
        np.testing.assert_allclose(logits, expected_logits, rtol=1e-4, atol=1e-4)
        expected_values = np.asarray(wdl_value(expected_values)[0])
        np.testing.assert_allclose(values, expected_values, rtol=1e-4, atol=1e-4)
    logits, values = inference(planes[:0])
    assert logits.shape == (0, 7) and values.shape == (0,)
    with pytest.raises(ValueError, match="shape"):
        inference(planes[0])


def test_inference_traces_once_per_bucket() -> None:
    model = build_network((3, 3, 3), 9, TINY)
    inference = InferenceModel(model, max_batch=20, jit_compile=False)
    assert inference.max_batch == 32 and len(inference.buckets) == 6
    planes = random_positions("tictactoe", {}, 100)
    rng = np.random.default_rng(0)
    for rows in [*rng.integers(1, 100, size=40), 1, 2, 32, 33, 100]:
        inference(planes[:rows])
    assert inference.trace_count <= len(inference.buckets)
    before = inference.trace_count
    inference.warmup()
    assert inference.trace_count == len(inference.buckets)
    assert before <= inference.trace_count
    inference(planes[:5])
    assert inference.trace_count == len(inference.buckets)


def test_inference_uses_the_live_weights() -> None:
    keras.utils.set_random_seed(8)
    planes = random_positions("tictactoe", {}, 8, seed=8)
    policies, values = random_targets(8, 9, seed=9)
    model = build_network((3, 3, 3), 9, TINY)
    inference = InferenceModel(model, max_batch=8)
    before_logits, before_values = inference(planes)
    Trainer(model, TrainConfig(learning_rate=0.05, batch_size=8)).train_step(
        planes, policies, values
    )
    after_logits, after_values = inference(planes)
    assert not np.allclose(before_logits, after_logits)
    assert not np.allclose(before_values, after_values)
    expected_logits, expected_values = model(planes, training=False)
    np.testing.assert_allclose(after_logits, expected_logits, rtol=1e-4, atol=1e-4)
    expected_values = np.asarray(wdl_value(expected_values)[0])
    np.testing.assert_allclose(after_values, expected_values, rtol=1e-4, atol=1e-4)
    assert inference.trace_count == 1


def test_bfloat16_inference_is_close_and_follows_training() -> None:
    keras.utils.set_random_seed(10)
    planes = random_positions("connect4", {}, 64, seed=10)
    policies, values = random_targets(64, 7, seed=11)
    model = build_network((6, 7, 3), 7, TINY)
    trainer = Trainer(model, TrainConfig(learning_rate=0.05, batch_size=64))
    bf16 = InferenceModel(model, max_batch=64, precision="bfloat16")
    fp32 = InferenceModel(model, max_batch=64, precision="float32")
    assert bf16.uses_bfloat16(64) and not bf16.uses_bfloat16(1)
    before, _ = bf16(planes)
    np.testing.assert_allclose(before, fp32(planes)[0], atol=0.1)
    trainer.train_step(planes, policies, values)  # the bfloat16 copy must pick this up
    after, after_values = bf16(planes)
    assert not np.allclose(before, after, atol=1e-3)
    np.testing.assert_allclose(after, fp32(planes)[0], atol=0.1)
    np.testing.assert_allclose(after_values, fp32(planes)[1], atol=0.05)


def test_traced_functions_do_not_reread_the_source_so_editing_it_mid_run_is_safe(
    monkeypatch,
) -> None:
    # A user edits network.py or trainer.py while a long run goes on; the run traces new
    # buckets later (the evaluation ladder). Had tracing read the edited file, it would
    # compile whatever code now sits at the old line numbers and the run would crash.
    import linecache

    import alphazero.network.model
    import alphazero.training.trainer

    edited = {alphazero.network.model.__file__, alphazero.training.trainer.__file__}
    real_getlines = linecache.getlines

    def getlines(filename, module_globals=None):
        lines = real_getlines(filename, module_globals)
        return ["# an edit\n"] * 3 + lines if filename in edited else lines

    monkeypatch.setattr(linecache, "getlines", getlines)
    keras.utils.set_random_seed(12)
    planes = random_positions("connect4", {}, 16, seed=12)
    policies, values = random_targets(16, 7, seed=13)
    model = build_network((6, 7, 3), 7, TINY)
    metrics = Trainer(model, TrainConfig(batch_size=16)).train_step(planes, policies, values)
    assert np.isfinite(metrics["total_loss"])
    for precision in ("float32", "bfloat16"):
        logits, _ = InferenceModel(model, max_batch=16, precision=precision)(planes)
        np.testing.assert_allclose(logits, model(planes, training=False)[0], atol=0.1)


def test_inference_rejects_an_unknown_precision() -> None:
    with pytest.raises(ValueError, match="precision"):
        InferenceModel(build_network((3, 3, 3), 9, TINY), precision="float16")  # type: ignore[arg-type]


# ----------------------------------------------------------------- saving and schedules
# Keras' own saving code converts variables with np.array, which numpy 2 warns about.
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
@pytest.mark.parametrize("schedule", ["step", "cosine", "constant"])
def test_save_and_load_round_trip_with_optimizer_state(tmp_path, schedule) -> None:
    keras.utils.set_random_seed(10)
    planes = random_positions("tictactoe", {}, 16, seed=10)
    policies, values = random_targets(16, 9, seed=11)
    config = TrainConfig(
        lr_schedule=schedule,
        learning_rate=0.02,
        lr_decay_steps=2,
        batch_size=16,
    )
    model = build_network((3, 3, 3), 9, TINY)
    trainer = Trainer(model, config)
    for _ in range(3):
        trainer.train_step(planes, policies, values)
    path = tmp_path / "model.keras"
    model.save(path)

    loaded = keras.models.load_model(path)
    assert_same_variables(model.weights, loaded.weights)
    assert type(loaded.optimizer) is type(model.optimizer)
    assert int(loaded.optimizer.iterations.numpy()) == 3
    assert len(loaded.optimizer.variables) > len(model.trainable_weights)  # slots too
    assert_same_variables(model.optimizer.variables, loaded.optimizer.variables)

    resumed = Trainer(loaded, config)
    assert resumed.optimizer is loaded.optimizer
    a = trainer.train_step(planes, policies, values)
    b = resumed.train_step(planes, policies, values)
    assert a == b
    assert_same_variables(model.weights, loaded.weights)
    assert_same_variables(model.optimizer.variables, loaded.optimizer.variables)
    # the helper loads the same thing
    assert len(load_model(path).optimizer.variables) == len(loaded.optimizer.variables)


@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
def test_resume_takes_the_learning_rate_of_an_edited_config(tmp_path) -> None:
    planes = random_positions("tictactoe", {}, 16, seed=12)
    policies, values = random_targets(16, 9, seed=13)
    model = build_network((3, 3, 3), 9, TINY)
    trainer = Trainer(model, TrainConfig(learning_rate=0.02, batch_size=16))
    for _ in range(3):
        trainer.train_step(planes, policies, values)
    model.save(tmp_path / "constant.keras")

    # constant -> step: the drop counts the 3 steps already taken
    dropped = TrainConfig(
        learning_rate=0.02, lr_schedule="step", lr_decay_steps=3, lr_min_factor=0.1, batch_size=16
    )
    resumed = Trainer(keras.models.load_model(tmp_path / "constant.keras"), dropped)
    assert resumed.iterations == 3
    step = resumed.train_step(planes, policies, values)
    assert step["learning_rate"] == pytest.approx(0.002, rel=1e-5)
    resumed.model.save(tmp_path / "step.keras")

    # step -> constant, which Keras cannot set directly on a schedule
    constant = TrainConfig(learning_rate=0.005, batch_size=16)
    again = Trainer(keras.models.load_model(tmp_path / "step.keras"), constant)
    assert again.iterations == 4
    assert again.train_step(planes, policies, values)["learning_rate"] == pytest.approx(0.005)
    again.model.save(tmp_path / "constant_again.keras")
    reloaded = keras.models.load_model(tmp_path / "constant_again.keras")
    assert float(tf.convert_to_tensor(reloaded.optimizer.learning_rate)) == pytest.approx(0.005)


def test_step_schedule() -> None:
    config = TrainConfig(
        learning_rate=0.1, lr_schedule="step", lr_decay_steps=10, lr_min_factor=0.01
    )
    schedule = make_schedule(config)
    assert isinstance(schedule, StepDecay)
    expected = {0: 0.1, 9: 0.1, 10: 0.01, 19: 0.01, 20: 0.001, 35: 0.001, 10_000: 0.001}
    for step, rate in expected.items():
        assert float(schedule(step)) == pytest.approx(rate, rel=1e-5), step
    again = StepDecay.from_config(schedule.get_config())
    assert float(again(15)) == pytest.approx(0.01, rel=1e-5)
    zero_floor = make_schedule(
        TrainConfig(learning_rate=1.0, lr_schedule="step", lr_decay_steps=1, lr_min_factor=0.0)
    )
    assert float(zero_floor(3)) == pytest.approx(1e-3, rel=1e-4)


def test_cosine_and_constant_schedules_and_optimizers() -> None:
    cosine = make_schedule(
        TrainConfig(learning_rate=0.2, lr_schedule="cosine", lr_decay_steps=100, lr_min_factor=0.1)
    )
    assert float(cosine(0)) == pytest.approx(0.2)
    assert float(cosine(50)) == pytest.approx(0.2 * (0.1 + 0.9 * 0.5), rel=1e-5)
    assert float(cosine(100)) == pytest.approx(0.02, rel=1e-5)
    assert float(cosine(1000)) == pytest.approx(0.02, rel=1e-5)
    assert make_schedule(TrainConfig(learning_rate=0.3)) == 0.3

    adam = make_optimizer(TrainConfig(lr_schedule="cosine"))
    assert isinstance(adam, keras.optimizers.Adam)
    assert adam.beta_1 == 0.9 and adam.beta_2 == 0.999
