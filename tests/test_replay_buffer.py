"""The replay buffer: ring behaviour, sampling, and its .npz file."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from alphazero.training.replay_buffer import FORMAT_VERSION, ReplayBuffer, ReplayBufferError

SHAPE = (3, 4, 2)
ACTIONS = 5


def examples(start: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` distinguishable examples numbered from ``start``: value == number."""
    ids = np.arange(start, start + n)
    planes = np.zeros((n, *SHAPE), dtype=np.float32)
    for i, k in enumerate(ids):
        bits = (k >> np.arange(np.prod(SHAPE))) & 1
        planes[i] = bits.reshape(SHAPE)
    policies = np.zeros((n, ACTIONS), dtype=np.float32)
    policies[np.arange(n), ids % ACTIONS] = 1.0
    return planes, policies, ids.astype(np.float32)


def filled(capacity: int, total: int, chunk: int = 3) -> ReplayBuffer:
    buffer = ReplayBuffer(capacity, SHAPE, ACTIONS)
    for start in range(0, total, chunk):
        buffer.add(*examples(start, min(chunk, total - start)))
    return buffer


def test_ring_keeps_the_most_recent_in_order():
    buffer = filled(capacity=10, total=7)
    assert len(buffer) == 7 and buffer.total_added == 7
    np.testing.assert_array_equal(buffer.arrays()[2], np.arange(7))

    buffer = filled(capacity=10, total=23)
    assert len(buffer) == 10 and buffer.total_added == 23
    planes, policies, values = buffer.arrays()
    np.testing.assert_array_equal(values, np.arange(13, 23))
    expected = examples(13, 10)
    np.testing.assert_array_equal(planes, expected[0])
    np.testing.assert_array_equal(policies, expected[1])


def test_batch_larger_than_capacity_keeps_its_tail():
    buffer = filled(capacity=4, total=2)
    buffer.add(*examples(2, 9))
    assert len(buffer) == 4 and buffer.total_added == 11
    np.testing.assert_array_equal(buffer.arrays()[2], np.arange(7, 11))
    buffer.add(*examples(11, 0))
    assert buffer.total_added == 11


def test_planes_are_stored_as_uint8_unless_they_are_not_binary():
    buffer = filled(capacity=8, total=5)
    assert buffer.planes_dtype == np.uint8
    planes, policies, values = examples(5, 2)
    planes[0, 0, 0, 0] = 0.5
    buffer.add(planes, policies, values)
    assert buffer.planes_dtype == np.float32
    held = buffer.arrays()[0]
    assert held[-2, 0, 0, 0] == 0.5
    np.testing.assert_array_equal(held[:5], examples(0, 5)[0])


def test_add_rejects_wrong_shapes():
    buffer = ReplayBuffer(4, SHAPE, ACTIONS)
    planes, policies, values = examples(0, 2)
    with pytest.raises(ValueError, match="planes"):
        buffer.add(planes[:, :, :, :1], policies, values)
    with pytest.raises(ValueError, match="policies"):
        buffer.add(planes, policies[:1], values)
    with pytest.raises(ValueError, match="values"):
        buffer.add(planes, policies, values[:1])
    assert len(buffer) == 0 and buffer.total_added == 0


def test_sample_shapes_dtypes_and_uniformity():
    buffer = filled(capacity=10, total=14)
    rng = np.random.default_rng(0)
    planes, policies, values = buffer.sample(4000, rng)
    assert planes.shape == (4000, *SHAPE) and planes.dtype == np.float32
    assert policies.shape == (4000, ACTIONS) and policies.dtype == np.float32
    assert values.shape == (4000,) and values.dtype == np.float32
    assert set(values.tolist()) == set(range(4, 14))
    counts = np.bincount(values.astype(int) - 4, minlength=10)
    assert counts.min() > 300  # about 400 each
    # Each sampled example is whole: its planes and policy belong to its value.
    ids = values.astype(int)
    np.testing.assert_array_equal(policies.argmax(axis=1), ids % ACTIONS)
    np.testing.assert_array_equal(planes[:50], examples(0, 14)[0][ids[:50]])
    with pytest.raises(ValueError, match="empty"):
        ReplayBuffer(3, SHAPE, ACTIONS).sample(1, rng)


@pytest.mark.parametrize("total", [0, 6, 25])
def test_save_load_round_trip_is_exact(tmp_path, total):
    buffer = filled(capacity=10, total=total)
    path = tmp_path / "buffer.npz"
    buffer.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["buffer.npz"]  # no temp file left
    loaded = ReplayBuffer.load(path)
    assert loaded.capacity == 10 and len(loaded) == len(buffer)
    assert loaded.total_added == buffer.total_added
    assert loaded.plane_shape == SHAPE and loaded.num_actions == ACTIONS
    for a, b in zip(loaded.arrays(), buffer.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)
    # Adding after a load continues the ring from the newest example.
    loaded.add(*examples(total, 3))
    buffer.add(*examples(total, 3))
    for a, b in zip(loaded.arrays(), buffer.arrays(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_file_is_plain_npz_in_chronological_order(tmp_path):
    path = tmp_path / "b.npz"
    filled(capacity=5, total=12).save(path)
    with np.load(path, allow_pickle=False) as npz:
        assert int(npz["format"]) == FORMAT_VERSION
        assert int(npz["capacity"]) == 5 and int(npz["total_added"]) == 12
        np.testing.assert_array_equal(npz["values"], np.arange(7, 12))
        assert npz["packed_planes"].dtype == np.uint8
        assert npz["packed_planes"].shape == (5, (np.prod(SHAPE) + 7) // 8)


def test_float_planes_round_trip(tmp_path):
    buffer = ReplayBuffer(4, SHAPE, ACTIONS)
    planes, policies, values = examples(0, 3)
    planes *= 0.25
    buffer.add(planes, policies, values)
    buffer.save(tmp_path / "b.npz")
    loaded = ReplayBuffer.load(tmp_path / "b.npz")
    np.testing.assert_array_equal(loaded.arrays()[0], planes)


def test_load_with_another_capacity_keeps_the_most_recent(tmp_path):
    path = tmp_path / "b.npz"
    filled(capacity=10, total=16).save(path)
    small = ReplayBuffer.load(path, capacity=4)
    assert small.capacity == 4 and small.total_added == 16
    np.testing.assert_array_equal(small.arrays()[2], np.arange(12, 16))
    large = ReplayBuffer.load(path, capacity=20)
    assert large.capacity == 20 and len(large) == 10
    np.testing.assert_array_equal(large.arrays()[2], np.arange(6, 16))


def _one_line_error(path, **kwargs) -> str:
    with pytest.raises(ReplayBufferError) as info:
        ReplayBuffer.load(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    assert isinstance(info.value, ValueError)
    return message


def test_load_errors_are_one_line(tmp_path):
    good = tmp_path / "good.npz"
    filled(capacity=10, total=10).save(good)
    data = good.read_bytes()

    assert "no such" in _one_line_error(tmp_path / "missing.npz")

    for cut in (10, len(data) // 2, len(data) - 5):
        truncated = tmp_path / f"cut{cut}.npz"
        truncated.write_bytes(data[:cut])
        assert "corrupt" in _one_line_error(truncated)

    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip file at all" * 10)
    _one_line_error(garbage)

    for offset in (200, len(data) // 3, len(data) - 300):  # member header, data, directory
        flipped = bytearray(data)
        flipped[offset : offset + 64] = b"\xff" * 64
        corrupted = tmp_path / f"flipped{offset}.npz"
        corrupted.write_bytes(bytes(flipped))
        _one_line_error(corrupted)

    missing_array = tmp_path / "no_values.npz"
    np.savez(missing_array, format=1, capacity=3, total_added=0, planes=np.zeros((0, *SHAPE)))
    assert "'policies'" in _one_line_error(missing_array)

    with zipfile.ZipFile(tmp_path / "x.npz", "w") as archive:
        archive.writestr("unrelated.txt", "hello")
    assert "not a replay buffer" in _one_line_error(tmp_path / "x.npz")


def test_load_rejects_mismatches(tmp_path):
    path = tmp_path / "b.npz"
    filled(capacity=10, total=4).save(path)
    assert "planes" in _one_line_error(path, plane_shape=(3, 4, 3))
    assert "actions" in _one_line_error(path, num_actions=ACTIONS + 1)
    ReplayBuffer.load(path, plane_shape=SHAPE, num_actions=ACTIONS)

    planes, policies, values = examples(0, 4)
    bad = tmp_path / "bad.npz"
    np.savez(
        bad,
        format=1,
        capacity=10,
        total_added=4,
        planes=planes,
        policies=policies,
        values=values[:3],
    )
    assert "values" in _one_line_error(bad)
    np.savez(
        bad,
        format=99,
        capacity=10,
        total_added=4,
        planes=planes,
        policies=policies,
        values=values,
    )
    assert "format 99" in _one_line_error(bad)
    np.savez(
        bad,
        format=1,
        capacity=2,
        total_added=4,
        planes=planes,
        policies=policies,
        values=values,
    )
    assert "inconsistent" in _one_line_error(bad)
    # An object array needs pickle: refused, and reported as one line.
    np.savez(
        bad,
        format=1,
        capacity=10,
        total_added=4,
        planes=planes,
        policies=policies,
        values=np.array([None] * 4, dtype=object),
    )
    _one_line_error(bad)


def test_a_reloaded_wrapped_buffer_samples_the_same_examples(tmp_path):
    buffer = ReplayBuffer(5, (1, 1, 1), 2)
    for i in range(7):  # wraps: holds examples 2..6
        buffer.add(np.ones((1, 1, 1, 1)), np.array([[0.5, 0.5]]), np.array([float(i)]))
    buffer.save(tmp_path / "b.npz")
    loaded = ReplayBuffer.load(tmp_path / "b.npz")
    original = buffer.sample(16, np.random.default_rng(1))[2]
    again = loaded.sample(16, np.random.default_rng(1))[2]
    np.testing.assert_array_equal(original, again)


def test_sampling_the_newest_only_draws_from_them():
    buffer = ReplayBuffer(100, (1, 1, 1), 2)
    values = np.arange(60, dtype=np.float32)
    buffer.add(np.zeros((60, 1, 1, 1)), np.full((60, 2), 0.5), values)
    _, _, drawn = buffer.sample(500, np.random.default_rng(0), newest=10)
    assert set(drawn.tolist()) == set(range(50, 60))
    _, _, drawn = buffer.sample(2000, np.random.default_rng(0))
    assert drawn.min() < 10  # the whole buffer without it


def test_growing_window_starts_whole_then_grows_slower_than_the_run():
    from alphazero.config import ReplayConfig

    replay = ReplayConfig(capacity=250_000, window_start=20_000)
    assert replay.window(5_000) == 5_000
    assert replay.window(20_000) == 20_000
    grown = [replay.window(n) for n in (40_000, 200_000, 1_000_000, 10_000_000)]
    assert grown == sorted(grown) and grown[0] < 40_000 and grown[-1] == 250_000
    assert ReplayConfig(capacity=100).window(1_000) == 100  # off: the whole buffer
    assert ReplayConfig(capacity=100, window_start=500).window(300) == 100  # never past it
