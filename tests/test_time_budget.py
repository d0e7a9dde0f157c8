"""Time budgets for a model's search (issue 60 item 3): the time manager, a search that stops
when told, the player that searches until its seconds are spent, the specs and options that
ask for one. Every clock here is a fake one, moved on by the stand-in network: no test waits
or measures real time."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import time_budget_match
from time_budget_match import match, matched_seconds, phases, players  # experiments/

from alphazero.evaluation.arena import save_results, search_costs
from alphazero.evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from alphazero.evaluation.model_search import PlaySearch
from alphazero.evaluation.player_specs import PlayerSpecError, check_spec, model_spec_parts
from alphazero.evaluation.time_budget import (
    MIN_SECONDS,
    OPENING_MOVES,
    OPENING_WEIGHT,
    SearchLog,
    TimeBudget,
    move_seconds,
)
from alphazero.games import make
from alphazero.play.cli import main as play_main
from alphazero.play.match import write_match
from alphazero.play.option_parser import build_parser
from alphazero.search import Node, SearchParams, search, search_until
from alphazero.search.deadline import CHUNK

CONNECT4 = make("connect4").__class__
MIDDLE_GAME = [int(c) - 1 for c in "71324677554451437653"]
"""20 plies in, drawn: a middle-medium position of Pascal Pons' sets."""


class FakeClock:
    """Seconds that pass only when the stand-in network is called: ``tick`` a position."""

    def __init__(self, tick: float = 0.001) -> None:
        self.now = 0.0
        self.tick = tick

    def __call__(self) -> float:
        return self.now


def network(clock: FakeClock | None = None):
    """A fixed function of the position (answers that do not depend on the batch) that moves
    ``clock`` on by its tick for every position it evaluates."""

    def inference(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if clock is not None:
            clock.now += clock.tick * len(planes)
        flat = planes.reshape(len(planes), -1)
        mine, theirs = flat[:, 0::3].sum(1), flat[:, 1::3].sum(1)
        logits = np.stack([np.sin(mine * (k + 1) + 0.3 * theirs) for k in range(7)], 1)
        values = np.tanh(0.1 * (mine - theirs) + np.cos(flat @ np.arange(flat.shape[1]) / 7))
        return logits.astype(np.float32), values.astype(np.float32)

    return inference


def timed_player(budget: TimeBudget | int, clock: FakeClock, leaves: int = 1) -> ModelPlayer:
    source = ModelSource("stand-in", inference=network(clock))
    options = PlayerOptions(clock=clock)
    return ModelPlayer(source, make("connect4"), budget, PlaySearch(leaves=leaves), options)


# ----------------------------------------------------------------------- the time manager
def test_the_time_manager_gives_the_opening_more_and_a_whole_game_exactly_its_budget():
    seconds = [move_seconds(60.0, move, 21) for move in range(21)]
    assert sum(seconds) == pytest.approx(60.0)
    opening = seconds[: OPENING_MOVES + 1]
    assert all(a > b for a, b in itertools.pairwise(opening))  # falling
    assert seconds[OPENING_MOVES:] == pytest.approx([seconds[-1]] * (21 - OPENING_MOVES))
    assert seconds[0] == pytest.approx(OPENING_WEIGHT * seconds[-1])
    assert seconds[0] > 60.0 / 21 > seconds[-1]  # more than an even share, then less
    # Each move is its weight's share of what the moves before it left.
    left = 60.0 - sum(seconds[:5])
    assert left > 0 and seconds[5] < left
    even = [move_seconds(60.0, move, 21, opening_weight=1.0) for move in range(21)]
    assert even == pytest.approx([60.0 / 21] * 21)


def test_a_game_that_ends_early_leaves_less_of_the_plan_unspent_than_of_an_even_share():
    # The shares of the moves not made are never spent: no plan knows the game will be short.
    # After 10 of its 21 moves the plan has spent 19/30 of its budget, an even share 10/21.
    plan = sum(move_seconds(60.0, move, 21) for move in range(10))
    even = sum(move_seconds(60.0, move, 21, opening_weight=1.0) for move in range(10))
    assert plan == pytest.approx(60.0 * 19 / 30) and even == pytest.approx(60.0 * 10 / 21)


FULL_BOARD = [int(c) - 1 for c in "666165577462463234152541333211132724554777"]
"""A drawn game to the last of the 42 cells."""


def test_a_game_budget_shared_out_by_the_plies_played_never_exceeds_the_game():
    rng = np.random.default_rng(3)
    budget = TimeBudget(42.0, per_game=True)
    # Random games end early; the last one fills the board.
    games: list[list[int] | None] = [None] * 20 + [FULL_BOARD]
    for moves in games:
        game, allotted = make("connect4"), {1: 0.0, -1: 0.0}
        while game.score is None:
            allotted[game.player] += budget.move_seconds(game)
            played = game.plies[0]
            action = moves[played] if moves else int(rng.choice(game.available_moves))
            game = game.sim_move(action)
        full = game.plies[0] == 42
        assert full == (moves is not None)
        for side in (1, -1):
            assert allotted[side] <= 42.0 + 1e-9
            if full:  # a game to its last cell spends all of each side's budget
                assert allotted[side] == pytest.approx(42.0)


def test_the_plies_played_are_the_stones_or_the_edges_drawn():
    assert CONNECT4.from_moves([3, 3, 2]).plies == (3, 42)
    assert make("gomoku", size=8, n_in_row=5).sim_move(27).plies == (1, 64)
    boxes = make("dots_and_boxes", rows=2, cols=2)
    for action in boxes.available_moves[:6]:
        boxes = boxes.sim_move(action)
    assert boxes.plies == (6, 12)
    per_move = TimeBudget(2.0)
    assert per_move.move_seconds(boxes) == 2.0 and str(per_move) == "2s"
    assert str(TimeBudget(60.0, per_game=True)) == "60s/game"


@pytest.mark.parametrize("seconds", [0.0, -1.0, 0.0009, float("nan"), 1e9])
def test_a_time_budget_out_of_range_is_refused(seconds):
    with pytest.raises(ValueError, match=r"a time budget is from 0\.001 to 86400 seconds"):
        TimeBudget(seconds)


# --------------------------------------------------------------------- stopping the search
@pytest.mark.parametrize("leaves", [1, 4])
def test_a_search_stopped_after_some_chunks_is_the_search_of_that_many_simulations(leaves):
    game = CONNECT4.from_moves([3, 3, 2])
    params = SearchParams(leaves_per_tree=leaves)
    for chunks in (1, 3, 7):
        asked: list[int] = []

        def stop(done: int, asked: list[int] = asked, chunks: int = chunks) -> bool:
            asked.append(done)
            return len(asked) >= chunks

        stopped = search_until(Node(game), network(), params, stop, np.random.default_rng(5))
        done = stopped.roots[0].N
        assert len(asked) == chunks and asked[-1] == done >= CHUNK * chunks
        fixed = search([Node(game)], network(), params, done, np.random.default_rng(5))
        visits = [
            sorted((c.action, c.N, round(c.W, 9)) for c in found.roots[0].children.values())
            for found in (stopped, fixed)
        ]
        assert visits[0] == visits[1]
        assert stopped.actions[0] == fixed.actions[0]
        assert stopped.values[0] == pytest.approx(fixed.values[0])


def test_a_search_stops_at_a_proven_win_without_asking_for_more_time():
    game = CONNECT4.from_moves([0, 1, 0, 1, 0, 1])  # X wins in column 1 at once
    found = search_until(
        Node(game), network(), SearchParams(), lambda _: False, np.random.default_rng(0)
    )
    assert found.actions[0] == 0 and found.roots[0].N <= 2 * CHUNK


def test_gumbel_cannot_search_to_a_deadline():
    with pytest.raises(ValueError, match="needs the puct search"):
        search_until(Node(make("connect4")), network(), SearchParams(algorithm="gumbel"),
                     lambda _: True, np.random.default_rng(0))  # fmt: skip
    gumbel = SearchParams(algorithm="gumbel")
    with pytest.raises(ValueError, match="needs the puct search"):
        ModelPlayer(
            ModelSource("stand-in", inference=network()), make("connect4"), TimeBudget(1.0), gumbel
        )


def test_a_game_budget_is_refused_where_a_move_can_give_the_mover_another():
    boxes = make("dots_and_boxes", rows=2, cols=2)
    with pytest.raises(ValueError, match=r"players who take turns.*--move-time"):
        TimeBudget(60.0, per_game=True).move_seconds(boxes)
    with pytest.raises(ValueError, match="players who take turns"):
        ModelPlayer(ModelSource("stand-in", inference=network()), boxes, TimeBudget(60.0, True))
    assert TimeBudget(2.0).move_seconds(boxes) == 2.0


# ------------------------------------------------------------------------------ the player
def test_a_move_time_player_stops_at_its_deadline_and_plays_the_fixed_searchs_move():
    clock = FakeClock(tick=0.001)  # a simulation a network call: 1 ms each
    player = timed_player(TimeBudget(0.1), clock)
    game = CONNECT4.from_moves([3, 2])
    thought = player.think(game)
    spent, simulations = player.log.seconds, player.log.simulations
    assert 0.1 <= spent < 0.1 + CHUNK * 0.001 + 1e-9  # past its deadline by under a chunk
    assert simulations % CHUNK == 0 and simulations == round(spent / 0.001)
    fixed = timed_player(simulations, FakeClock()).think(game)
    assert (thought.action, thought.top) == (fixed.action, fixed.top)
    longer = timed_player(TimeBudget(0.5), FakeClock(tick=0.001))
    longer.think(game)
    assert longer.log.simulations >= 0.5 / 0.001 > simulations
    assert player.name == "model:stand-in:0.1s"


def test_a_game_budget_player_searches_the_opening_longer_than_the_middle_game():
    clock = FakeClock(tick=0.001)
    player = timed_player(TimeBudget(4.2, per_game=True), clock, leaves=4)
    player.batch_moves([make("connect4"), CONNECT4.from_moves(MIDDLE_GAME)])
    opening, middle = player.log.by_ply[0], player.log.by_ply[20]
    # 4.2 s over 21 moves: 0.42 s at the first move (weight 3 of 30), 0.14 s at the 11th.
    assert opening[2] == pytest.approx(0.42, abs=0.04)
    assert middle[2] == pytest.approx(0.14, abs=0.04)
    assert opening[1] > 2 * middle[1]


# --------------------------------------------------------------------- specs and options
def test_a_model_spec_gives_a_time_a_move_or_a_game():
    assert model_spec_parts("model:runs/c4:2s") == ("runs/c4", TimeBudget(2.0), False)
    assert model_spec_parts("model:runs/c4:0.5s/game:symmetric") == (
        "runs/c4",
        TimeBudget(0.5, per_game=True),
        True,
    )
    assert model_spec_parts("model:runs/c4:400") == ("runs/c4", 400, False)
    check_spec("model:x.keras:60s/game")
    for budget in (TimeBudget(0.001), TimeBudget(86_400.0, per_game=True), TimeBudget(2 / 3)):
        parsed = model_spec_parts(f"model:x:{budget}")  # a player's name is a spec again
        assert parsed is not None and isinstance(parsed[1], TimeBudget)
        assert parsed[1].per_game == budget.per_game
        assert parsed[1].seconds == pytest.approx(budget.seconds, rel=1e-5)


@pytest.mark.parametrize(
    "spec", ["model:x:0s", "model:x:2s/move", "model:x:1.2.3s", "model:x:99999s"]
)
def test_a_bad_time_in_a_model_spec_is_one_line(spec):
    with pytest.raises(PlayerSpecError, match="a model's time is seconds a move") as error:
        model_spec_parts(spec)
    assert "\n" not in str(error.value)


def test_play_help_explains_the_time_options():
    text = build_parser().format_help()
    for option, words in (
        ("--move-time SECONDS", "searches each move for"),
        ("--game-time SECONDS", "shared out move by"),
        ("--clock {wall,cpu}", "CPU seconds"),
    ):
        assert option in text
        assert words in " ".join(text.split())
    assert "model:PATH[:SIMS|:SECONDSs|:SECONDSs/game]" in " ".join(text.split())


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--move-time", "0"], "--move-time must be from 0.001 to 86400 seconds (a day), got 0"),
        (["--game-time", "nan"], "--game-time must be from 0.001"),
        (["--move-time", "1", "--game-time", "9"], "give --move-time or --game-time, not both"),
        (["--game-time", "9", "--search", "gumbel"], "--game-time needs the puct search"),
        (["--move-time", "1", "--web"], "--move-time is for the terminal and matches"),
        (["--p2", "model:x:2s/turn"], "a model's time is seconds a move"),
    ],
)
def test_bad_time_options_are_one_line_errors(args, reason, capsys):
    assert play_main(["--p1", "random", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and reason in err and err.count("\n") == 1


# ----------------------------------------------------------------------- matches and JSON
def test_a_matchs_json_shows_the_simulations_each_side_bought_by_ply(tmp_path):
    plan, even = players("stand-in", network(clock := FakeClock()), make("connect4"),
                         TimeBudget(2.1, per_game=True), clock, leaves=1)  # fmt: skip
    start = CONNECT4.from_moves([3, 3])
    result = match(plan, even, [start], progress=False)
    assert result.games == 2
    write_match(result, plan, even, lambda: make("connect4"), tmp_path / "m.json", None)
    data = json.loads((tmp_path / "m.json").read_text())[0]
    costs = data["searches"]
    assert set(costs) == {"player", "opponent"}
    assert costs["player"]["by_ply"]["2"]["moves"] == 1  # the plan moves first in game one
    # Each side's first move: the plan's share of its 21 moves' budget, against an even one.
    assert costs["player"]["by_ply"]["2"]["seconds"] == pytest.approx(2.1 * 2.75 / 30, abs=0.04)
    assert costs["opponent"]["by_ply"]["3"]["seconds"] == pytest.approx(0.1, abs=0.04)
    for side in (plan, even):
        assert side.log.seconds <= 2 * (2.1 + 21 * CHUNK * clock.tick)  # two games' budgets
    assert "opening" in phases(plan.log, 16) and "after" in phases(plan.log, 16)
    save_results([result], tmp_path / "n.json", [search_costs(plan, even)])
    assert json.loads((tmp_path / "n.json").read_text())[0]["searches"] == costs


def log_of(moves: int, seconds: float) -> SearchLog:
    log = SearchLog()
    for ply in range(moves):
        log.add(ply, CHUNK, seconds / moves)
    return log


def test_the_even_sides_seconds_a_move_would_have_spent_what_the_plan_spent():
    # The even side was given 0.4 s for each of 21 moves and spent 0.6 s more, its searches
    # running to the end of their chunks: 0.4476 s a move would have matched the plan's 10 s.
    seconds = matched_seconds(log_of(20, 10.0), log_of(21, 9.0), given=21 * 0.4)
    assert seconds == pytest.approx((10.0 - 0.6) / 21)
    assert seconds * 21 + 0.6 == pytest.approx(10.0)
    assert matched_seconds(log_of(20, 10.0), SearchLog(), given=0.0) is None  # before any game
    assert matched_seconds(log_of(2, 0.1), log_of(2, 1.0), given=0.002) == MIN_SECONDS


def test_the_match_gives_the_even_side_seconds_a_move_matched_pair_by_pair_to_the_plans(
    monkeypatch,
):
    clock = FakeClock()
    plan, even = players("stand-in", network(clock), make("connect4"),
                         TimeBudget(2.1, per_game=True), clock, leaves=1)  # fmt: skip
    pairs: list[tuple[float, float, float, int]] = []  # before each: budget, spent, moves

    def snapshot() -> None:
        budget = even.simulations
        assert isinstance(budget, TimeBudget) and not budget.per_game  # seconds a move
        pairs.append((budget.seconds, plan.log.seconds, even.log.seconds, even.log.moves))

    play_pair = time_budget_match.play_match

    def recorded(*args, **kwargs):
        snapshot()
        return play_pair(*args, **kwargs)

    monkeypatch.setattr(time_budget_match, "play_match", recorded)
    starts = [CONNECT4.from_moves(moves) for moves in ([3, 3], [2, 4], [0, 6])]
    result = match(plan, even, starts, progress=False)
    assert result.games == 6 and len(result.moves) == 6
    snapshot()  # and after the last pair
    assert pairs[0][0] == pytest.approx(2.1 / 21)  # before any game: an even share
    given = 0.0
    for (budget, _, _, moves), (after, plan_spent, even_spent, moves_after) in itertools.pairwise(
        pairs
    ):
        given += budget * (moves_after - moves)
        overrun = even_spent - given  # past the deadlines, to the ends of the chunks
        # The new seconds a move, given to every move so far, would have spent the plan's.
        assert after * moves_after + overrun == pytest.approx(plan_spent)
    assert pairs[1][0] > pairs[0][0]  # the plan spent more than an even share of 21 moves
    # Over the match both spent about the same; the plan more in the opening, less after.
    assert even.log.seconds == pytest.approx(plan.log.seconds, rel=0.1)
    opening, late = plan.log.by_ply[2], plan.log.by_ply[20]
    assert opening[2] / opening[0] > pairs[-1][0] > late[2] / late[0]
