"""Replay buffer file format 2: packed planes and symmetric copies stored as references,
read back bit for bit; format 1 files still load."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from alphazero.games import make
from alphazero.games.base import Game
from alphazero.training.buffer_format import Symmetry, symmetry_tables
from alphazero.training.replay_buffer import FORMAT_VERSION, ReplayBuffer

GAMES = {
    "connect4": ("connect4", {}),
    "gomoku_8x8": ("gomoku", {"size": 8, "n_in_row": 5}),
    "tictactoe": ("tictactoe", {}),
}


def tables(game: Game) -> tuple[Symmetry, ...]:
    return symmetry_tables(game.symmetries, game.plane_shape, game.num_actions)


def self_play_examples(
    game: Game, games: int, augment: bool, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random games, with examples made as self-play makes them: each position's planes, a
    policy of arbitrary float32 bits over the legal moves, the outcome, and with ``augment``
    every symmetric copy from ``game.symmetries``."""
    rng = np.random.default_rng(seed)
    planes, policies, values = [], [], []
    for _ in range(games):
        position = game.copy()
        while position.score is None:
            policy = np.zeros(position.num_actions, np.float32)
            moves = position.available_moves
            policy[moves] = rng.dirichlet(np.ones(len(moves))).astype(np.float32)
            value = np.float32(rng.choice([-1.0, 0.0, 1.0]))
            planes_now = position.encode()
            pairs = position.symmetries(planes_now, policy) if augment else [(planes_now, policy)]
            for sym_planes, sym_policy in pairs:
                planes.append(sym_planes)
                policies.append(sym_policy)
                values.append(value)
            position = position.sim_move(int(rng.choice(moves)))
    return np.array(planes), np.array(policies, np.float32), np.array(values, np.float32)


def assert_same(loaded: ReplayBuffer, buffer: ReplayBuffer) -> None:
    assert (loaded.capacity, loaded.total_added, len(loaded)) == (
        buffer.capacity,
        buffer.total_added,
        len(buffer),
    )
    assert loaded.planes_dtype == buffer.planes_dtype
    for mine, theirs in zip(loaded.arrays(), buffer.arrays(), strict=True):
        assert mine.dtype == theirs.dtype
        assert mine.tobytes() == theirs.tobytes()  # bit for bit, -0.0 and all


@pytest.mark.parametrize("augment", [True, False])
@pytest.mark.parametrize("name", list(GAMES))
def test_round_trip_is_bit_for_bit_with_wrap_around(tmp_path, name, augment):
    game = make(GAMES[name][0], **GAMES[name][1])
    planes, policies, values = self_play_examples(game, 6, augment)
    capacity = len(values) * 2 // 3  # wraps around, and cuts a position's copies apart
    buffer = ReplayBuffer(capacity, game.plane_shape, game.num_actions, symmetries=tables(game))
    for start in range(0, len(values), 37):
        buffer.add(
            planes[start : start + 37], policies[start : start + 37], values[start : start + 37]
        )
    path = tmp_path / "buffer.npz"
    buffer.save(path)
    assert_same(ReplayBuffer.load(path), buffer)
    # A smaller capacity keeps the newest examples, rebuilt the same.
    smaller = ReplayBuffer.load(path, capacity // 3)
    kept = [array[-(capacity // 3) :] for array in buffer.arrays()]
    for mine, theirs in zip(smaller.arrays(), kept, strict=True):
        assert mine.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("name", list(GAMES))
def test_augmented_copies_are_stored_once(tmp_path, name):
    game = make(GAMES[name][0], **GAMES[name][1])
    symmetries = tables(game)
    assert len(symmetries) == (2 if name == "connect4" else 8)
    planes, policies, values = self_play_examples(game, 4, augment=True)
    buffer = ReplayBuffer(len(values), game.plane_shape, game.num_actions, symmetries=symmetries)
    buffer.add(planes, policies, values)
    buffer.save(tmp_path / "buffer.npz")
    with np.load(tmp_path / "buffer.npz") as npz:
        assert int(npz["format"]) == FORMAT_VERSION == 2
        stored = len(npz["values"])
        packed = npz["packed_planes"]
    positions = len(values) // len(symmetries)
    # Every position is stored once (or a few times, for a symmetric position's copies).
    assert positions <= stored < len(values) / len(symmetries) * 1.5
    assert packed.shape[1] == (np.prod(game.plane_shape) + 7) // 8


def test_a_copy_that_differs_in_one_bit_is_stored_whole(tmp_path):
    game = make("connect4")
    planes, policies, values = self_play_examples(game, 2, augment=True)
    policies[1] = np.nextafter(policies[1], np.float32(1))  # the mirror of row 0, nudged
    buffer = ReplayBuffer(len(values), game.plane_shape, game.num_actions, symmetries=tables(game))
    buffer.add(planes, policies, values)
    buffer.save(tmp_path / "buffer.npz")
    with np.load(tmp_path / "buffer.npz") as npz:
        assert npz["copy_offset"][1] == 0
    assert_same(ReplayBuffer.load(tmp_path / "buffer.npz"), buffer)


def test_float_planes_fall_back_to_plain_arrays(tmp_path):
    game = make("connect4")
    planes, policies, values = self_play_examples(game, 3, augment=True)
    planes = planes.astype(np.float32) * np.float32(0.5)
    buffer = ReplayBuffer(len(values), game.plane_shape, game.num_actions, symmetries=tables(game))
    buffer.add(planes, policies, values)
    assert buffer.planes_dtype == np.float32
    buffer.save(tmp_path / "buffer.npz")
    with zipfile.ZipFile(tmp_path / "buffer.npz") as archive:
        names = set(archive.namelist())
    assert "planes.npy" in names and "packed_planes.npy" not in names
    loaded = ReplayBuffer.load(tmp_path / "buffer.npz")
    assert_same(loaded, buffer)
    np.testing.assert_array_equal(loaded.arrays()[0], planes)


def write_format_1(buffer: ReplayBuffer, path: Path) -> None:
    """The file format 1's ``save`` wrote: the ring's arrays oldest first, uncompacted."""
    order = buffer._order()
    np.savez_compressed(
        path,
        format=np.int64(1),
        capacity=np.int64(buffer.capacity),
        total_added=np.int64(buffer.total_added),
        planes=buffer._planes[order],
        policies=buffer._policies[order],
        values=buffer._values[order],
    )


def test_a_format_1_file_still_loads_and_saves_smaller(tmp_path):
    game = make("gomoku", size=8, n_in_row=5)
    planes, policies, values = self_play_examples(game, 3, augment=True)
    buffer = ReplayBuffer(len(values) - 10, game.plane_shape, game.num_actions)
    buffer.add(planes, policies, values)
    write_format_1(buffer, tmp_path / "old.npz")
    loaded = ReplayBuffer.load(tmp_path / "old.npz", symmetries=tables(game))
    assert_same(loaded, buffer)
    loaded.save(tmp_path / "new.npz")
    assert_same(ReplayBuffer.load(tmp_path / "new.npz"), buffer)
    assert (tmp_path / "new.npz").stat().st_size < (tmp_path / "old.npz").stat().st_size / 3


def test_symmetry_tables_reproduce_the_games_symmetries():
    game = make("gomoku", size=8, n_in_row=5).sim_move(3).sim_move(20)
    policy = np.random.default_rng(1).random(game.num_actions).astype(np.float32)
    planes = game.encode()
    for (sym_planes, sym_policy), table in zip(
        game.symmetries(planes, policy), tables(game), strict=True
    ):
        np.testing.assert_array_equal(
            planes.reshape(-1)[table.planes].reshape(planes.shape), sym_planes
        )
        np.testing.assert_array_equal(policy[table.policy], sym_policy)
