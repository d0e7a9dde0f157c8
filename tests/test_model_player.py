"""``ModelPlayer``: a network guiding PUCT, and keeping its tree between moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from alphazero.evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from alphazero.evaluation.model_search import PlaySearch
from alphazero.games import make

PRETRAINED = Path(__file__).resolve().parents[1] / "checkpoints" / "pretrained"
REUSE_TREE = PlayerOptions(reuse_tree=True)


def test_a_kept_tree_carries_the_visits_of_the_reply_played():
    game = make("connect4")
    keeping = ModelPlayer(PRETRAINED / "connect4", game, 200, options=REUSE_TREE)
    in_memory = ModelSource(PRETRAINED / "connect4", model=keeping.inference.model)
    fresh = ModelPlayer(in_memory, game, 200)
    first = keeping.think(game)
    assert first.simulations == fresh.think(game).simulations
    reply = make("connect4").sim_move(first.action).sim_move(3)
    again = keeping.think(reply)
    # The reply was searched after the model's own move: its visits are kept and added to.
    assert again.simulations > fresh.think(reply).simulations
    assert again.action in reply.available_moves
    unexpected = make("connect4").sim_move(0).sim_move(6)  # never searched: a fresh root
    assert keeping.think(unexpected).simulations == fresh.think(unexpected).simulations


def test_kept_trees_play_whole_games_through_extra_moves():
    game = make("dots_and_boxes")
    player = ModelPlayer(PRETRAINED / "dots_and_boxes", game, 32, options=REUSE_TREE)
    rng = np.random.default_rng(0)
    games = [make("dots_and_boxes") for _ in range(3)]  # the same start: twins at first
    for _ in range(80):
        live = [i for i, g in enumerate(games) if g.score is None]
        if not live:
            break
        model_turn = [i for i in live if games[i].player == 1]
        moves = player.batch_moves([games[i] for i in model_turn])
        for i, move in zip(model_turn, moves, strict=True):
            assert move in games[i].available_moves
            games[i] = games[i].sim_move(move)
        for i in live:
            if i not in model_turn and games[i].score is None:
                games[i] = games[i].sim_move(int(rng.choice(games[i].available_moves)))
    assert all(g.score is not None for g in games)


def test_a_kept_position_and_its_own_replies_searched_at_once_do_not_share_a_tree():
    # Game one: the model moved first; game two: the opponent opened with the same move,
    # so game two now stands where game one's kept tree starts, and game one a move further.
    empty = make("connect4")
    player = ModelPlayer(PRETRAINED / "connect4", empty, 100, options=REUSE_TREE)
    fresh = ModelPlayer(
        ModelSource(PRETRAINED / "connect4", model=player.inference.model), empty, 100
    )
    opened = empty.sim_move(player.batch_moves([empty])[0])
    replies = [opened.sim_move(column) for column in opened.available_moves]
    thoughts = player.batch_think([*replies, opened])
    assert all(
        t.action in g.available_moves for t, g in zip(thoughts, [*replies, opened], strict=True)
    )
    # Game two keeps the tree; the replies inside it start afresh rather than search subtrees
    # that game two's search is adding to at the same time.
    assert thoughts[-1].simulations > fresh.think(opened).simulations
    for reply, thought in zip(replies, thoughts[:-1], strict=True):
        assert thought.simulations == fresh.think(reply).simulations


def test_a_symmetric_model_spec_values_mirror_images_alike():
    from alphazero.evaluation.players import make_player

    game = make("connect4").__class__.from_moves([0, 0, 1, 3])
    mirror = make("connect4").__class__.from_moves([6, 6, 5, 3])
    plain = make_player(f"model:{PRETRAINED / 'connect4'}:50", game)
    symmetric = make_player(f"model:{PRETRAINED / 'connect4'}:50:symmetric", game)
    assert symmetric.name.endswith(":50:symmetric") and not plain.name.endswith("symmetric")
    planes = np.stack([game.encode(), mirror.encode()])
    _, plain_values = plain.inference(planes)
    logits, values = symmetric.inference(planes)
    assert abs(plain_values[0] - plain_values[1]) > 1e-3  # the network alone tells them apart
    assert values[0] == pytest.approx(values[1], abs=1e-5)
    assert np.allclose(logits[0], logits[1][::-1], atol=1e-4)
    thought, mirrored = symmetric.batch_think([game, mirror])
    assert thought.action in game.available_moves
    # The win / draw / loss estimate is averaged over the same copies as the search.
    assert thought.wdl == pytest.approx(mirrored.wdl, abs=1e-4)
    plain_wdl = [t.wdl for t in plain.batch_think([game, mirror])]
    assert max(abs(a - b) for a, b in zip(*plain_wdl, strict=True)) > 1e-4


def test_more_leaves_per_call_make_fewer_larger_network_calls():
    game = make("connect4")
    batches: dict[int, list[int]] = {1: [], 4: []}

    def counting(leaves: int):
        def inference(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            batches[leaves].append(len(planes))
            return np.zeros((len(planes), 7), np.float32), np.zeros(len(planes), np.float32)

        return inference

    for leaves in batches:
        source = ModelSource("stand-in", inference=counting(leaves))
        player = ModelPlayer(source, game, 64, PlaySearch(leaves=leaves))
        assert player.leaves == leaves and player(game) in game.available_moves
    assert max(batches[1]) == 1 and len(batches[1]) == 64
    assert max(batches[4]) == 4 and len(batches[4]) <= 64 / 3
    with pytest.raises(ValueError, match="leaves must be at least 1"):
        ModelPlayer(ModelSource("stand-in", inference=counting(1)), game, 64, PlaySearch(leaves=0))


def test_a_model_spec_takes_the_leaves_and_the_engine_given():
    from alphazero.evaluation.players import make_player

    game = make("tictactoe")
    player = make_player(
        f"model:{PRETRAINED / 'tictactoe'}:20", game, leaves=3, engine="tensorflow"
    )
    assert isinstance(player, ModelPlayer) and player.leaves == 3
    assert player.network.engine == "tensorflow"  # type: ignore[attr-defined]
    assert player(game) in game.available_moves
    default = make_player(f"model:{PRETRAINED / 'tictactoe'}:20", game)
    assert default.leaves == 1 and default.network.engine == "tensorflow"  # type: ignore[attr-defined]


def test_a_cache_across_moves_saves_network_calls_and_keeps_the_moves():
    """Each move's search meets again positions the last one evaluated: with ``cache`` the
    network sees far fewer, and the player's moves are the same."""
    rows = {0: 0, 4096: 0}

    def counting(cache: int):
        def inference(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            rows[cache] += len(planes)
            flat = planes.reshape(len(planes), -1)
            # Any fixed function of the position: answers do not depend on the batch.
            logits = np.stack([np.sin(flat[:, : 7 * 6].sum(1) * (k + 1)) for k in range(7)], 1)
            return logits.astype(np.float32), np.tanh(flat.sum(1) / 10 - 1).astype(np.float32)

        return inference

    players = {
        size: ModelPlayer(
            ModelSource("stand-in", inference=counting(size), cache=size), make("connect4"), 200
        )
        for size in rows
    }
    game, moves = make("connect4"), {0: [], 4096: []}
    for _ in range(6):
        for size, player in players.items():
            moves[size].append(player(game))
        game = game.sim_move(moves[0][-1])
    assert moves[0] == moves[4096]
    assert rows[4096] < 0.8 * rows[0]  # 852 of 1,200 when written
