"""Arena statistics on known results, player specs, and the perfect player."""

from __future__ import annotations

import io
import math
import sys

import numpy as np
import pytest

from alphazero.baselines.perfect import PerfectPlayer, solve
from alphazero.evaluation.arena import (
    MatchResult,
    Opening,
    elo_difference,
    play_match,
    play_openings,
    random_openings,
    score_below,
)
from alphazero.evaluation.players import PlayerSpecError, RandomPlayer, make_player
from alphazero.games import make
from alphazero.progress import bars


def test_score_confidence_interval_and_elo_on_known_results():
    result = MatchResult("a", "b", wins=60, draws=20, losses=20)
    assert result.games == 100
    assert result.score == pytest.approx(0.7)
    # two won and two lost games added: 62 x 1, 20 x 0.5, 22 x 0 over 104 games
    mean = (62 + 10) / 104
    variance = (62 + 5) / 104 - mean**2
    half = 1.959963984540054 * math.sqrt(variance / 104)
    low, high = result.score_interval()
    assert low == pytest.approx(mean - half) and high == pytest.approx(mean + half)
    assert low < 0.7 < high  # about as wide as unadjusted, 2 x 1.96 x sqrt(0.16 / 100):
    assert high - low == pytest.approx(2 * 1.96 * 0.04, abs=0.005)
    assert result.elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))
    assert result.elo == pytest.approx(147.2, abs=0.1)


def test_elo_difference_reference_points():
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(1 / (1 + 10 ** (-400 / 400))) == pytest.approx(400)
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf


def test_a_clean_sweep_has_an_open_elo_and_an_interval_below_certainty():
    """100 wins in 100 do not prove the opponent never wins: the interval's low end is
    near the 96% that the rule of three gives, and it narrows as the sweep grows."""
    result = MatchResult("a", "b", wins=100)
    assert result.score == 1.0 and result.elo == math.inf
    assert result.to_dict()["elo"] is None  # JSON has no infinity
    low, high = result.score_interval()
    assert 0.94 < low < 0.97 and high == 1.0
    assert MatchResult("a", "b", wins=10).score_interval()[0] < low
    lost = MatchResult("a", "b", losses=100).score_interval()
    assert lost == pytest.approx((1 - high, 1 - low))


def test_a_match_drawn_throughout_has_an_interval_around_half():
    low, high = MatchResult("a", "b", draws=100).score_interval()
    assert 0.47 < low < 0.5 < high < 0.53


def test_a_score_is_significantly_below_another_only_beyond_both_matches_noise():
    sweep = MatchResult("a", "b", wins=40)
    assert not score_below(MatchResult("a", "b", wins=39, losses=1), sweep)
    assert not score_below(MatchResult("a", "b", wins=37, losses=3), sweep)
    assert score_below(MatchResult("a", "b", wins=34, losses=6), sweep)
    assert not score_below(sweep, MatchResult("a", "b", wins=34, losses=6))  # one-sided
    assert not score_below(sweep, sweep)
    # Draws are half a point: forty draws score as twenty wins and twenty losses.
    even = MatchResult("a", "b", wins=20, losses=20)
    assert not score_below(MatchResult("a", "b", draws=40), even)
    # More games tell a smaller gap apart: 55% against 65% in 40 games, and in 1,000.
    assert not score_below(
        MatchResult("a", "b", wins=22, losses=18), MatchResult("a", "b", wins=26, losses=14)
    )
    assert score_below(
        MatchResult("a", "b", wins=550, losses=450), MatchResult("a", "b", wins=650, losses=350)
    )
    assert not score_below(MatchResult("a", "b"), sweep)  # no games: nothing to tell


def test_one_game_leaves_the_score_wide_open_and_an_even_match_reads_plus_zero():
    low, high = MatchResult("a", "b", wins=1).score_interval()
    assert low < 0.3 and high == 1.0
    even = MatchResult("a", "b", wins=1, losses=1).table()
    assert "Elo difference         +0  (95% CI" in even and "-0 " not in even


class Scripted:
    """Plays the first legal move: a deterministic player for exact results."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, game):
        return game.available_moves[0]


def test_match_alternates_sides_and_counts_from_the_first_players_view():
    # Both play the first free point: the first mover completes the diagonal 0-4-8... no,
    # X takes 0, 2, 4, 6 and wins on the anti-diagonal 2-4-6 every time, so the wins must
    # split evenly between the seats.
    result = play_match(Scripted("a"), Scripted("b"), lambda: make("tictactoe"), 6, False)
    first_mover_wins = make("tictactoe").from_moves([0, 1, 2, 3, 4, 5, 6]).score == 1
    assert first_mover_wins
    assert result.games == 6 and result.games_first == 3
    assert result.wins == 3 and result.losses == 3 and result.wins_first == 3
    assert [len(m) for m in result.moves] == [7] * 6


def test_a_long_match_in_a_log_shows_its_moves_before_any_game_ends(monkeypatch):
    # The games move in lockstep and end together; a count of finished games alone would
    # read 0 until the very end.
    now = [0.0]

    class Slow(Scripted):
        def __call__(self, game):
            now[0] += 10.0  # each move takes 10 s
            return super().__call__(game)

    monkeypatch.setattr(bars.time, "monotonic", lambda: now[0])
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    play_match(Slow("a"), Slow("b"), lambda: make("tictactoe"), 4)
    first = log.getvalue().splitlines()[0]
    assert first.startswith("a vs b: 0/4 games, ") and "; moves " in first


def test_perfect_player_never_loses_to_random():
    perfect = PerfectPlayer(np.random.default_rng(0))
    perfect.name = "perfect"
    result = play_match(perfect, RandomPlayer(1), lambda: make("tictactoe"), 60, False)
    assert result.losses == 0
    assert result.wins > 40


def test_perfect_player_against_itself_always_draws():
    a, b = PerfectPlayer(np.random.default_rng(0)), PerfectPlayer(np.random.default_rng(1))
    a.name, b.name = "a", "b"
    result = play_match(a, b, lambda: make("tictactoe"), 10, False)
    assert result.draws == 10
    assert solve(make("tictactoe")) == 0


@pytest.mark.parametrize(
    "spec", ["", "uct", "uct:", "uct:abc", "uct:-3", "rave:0", "model:", "chess", "random:3"]
)
def test_bad_player_spec_is_one_line_listing_the_forms(spec):
    with pytest.raises(PlayerSpecError) as error:
        make_player(spec, make("connect4"))
    message = str(error.value)
    assert "\n" not in message
    assert "uct:SIMS" in message or "budget" in message


def test_player_specs_build_the_right_players():
    game = make("tictactoe")
    assert make_player("random", game).name == "random"
    assert make_player("perfect", game)(game) in game.available_moves
    with pytest.raises(PlayerSpecError, match="tic-tac-toe"):
        make_player("perfect", make("connect4"))


def test_a_person_is_no_player_of_the_evaluation():
    """``human`` is play.py's (``alphazero.play.human``): the ladder and the benchmarks never
    wait for someone to type a move."""
    with pytest.raises(PlayerSpecError, match=r"only in play\.py"):
        make_player("human", make("tictactoe"))


def test_model_spec_with_a_missing_file_is_a_one_line_error(tmp_path):
    from alphazero.training.run_errors import CheckpointError

    with pytest.raises(CheckpointError) as error:
        make_player(f"model:{tmp_path}/nothing.keras:50", make("connect4"))
    assert "\n" not in str(error.value)


def test_rollout_knowledge_is_switched_by_spec_or_flag():
    game = make("dots_and_boxes", rows=2, cols=2)
    plain = make_player("uct:50", game)
    assert plain.name == "uct:50" and not plain.knowledge
    for player in (
        make_player("uct:50:knowledge", game),
        make_player("rave:50", game, knowledge=True),
    ):
        assert player.knowledge and player.name.endswith(":knowledge")
    with pytest.raises(PlayerSpecError, match="unknown option"):
        make_player("uct:50:fast", game)


# ------------------------------------------------------------------------ the ladder's Elo
def test_a_model_that_only_draws_perfect_play_is_not_rated_above_it():
    from alphazero.evaluation.ladder import ladder_elo

    # The case: random swept 10 of 10, perfect drawn 10 of 10. The perfect player's
    # own rating is its sweep of random cut to the step bound; the model's sweep of random
    # used to lift it above that.
    ladder = {"random": 0.0, "perfect": 800.0}
    results = {
        "random": MatchResult("model:64", "random", wins=10),
        "perfect": MatchResult("model:64", "perfect", draws=10),
    }
    assert ladder_elo(results, ladder) == pytest.approx(800.0)
    # Losing a game to it rates the model below it, and a weaker ladder step changes nothing.
    results["perfect"] = MatchResult("model:64", "perfect", draws=9, losses=1)
    assert ladder_elo(results, ladder) < 800.0
    results["perfect"] = MatchResult("model:64", "perfect", draws=10)
    assert ladder_elo(results, {"random": 0.0, "perfect": 500.0}) == pytest.approx(500.0)


def test_without_a_perfect_player_the_ladder_elo_is_the_maximum_likelihood_rating():
    from alphazero.evaluation.ladder import ladder_elo

    ladder = {"uct:200": 0.0, "uct:1000": 300.0}
    results = {
        "uct:200": MatchResult("model:64", "uct:200", wins=10),
        "uct:1000": MatchResult("model:64", "uct:1000", draws=10),
    }
    rating = ladder_elo(results, ladder)
    assert rating > 300.0  # no ceiling: drawing uct:1000 while sweeping uct:200 is above it
    expected = sum(10 / (1 + 10 ** ((ladder[spec] - rating) / 400)) for spec in ladder)
    assert expected == pytest.approx(15.0, abs=1e-6)  # the points scored, 10 + 10 x 0.5


def test_the_evaluated_model_is_labelled_by_its_simulations():
    from alphazero.config import EvaluationConfig, NetworkConfig
    from alphazero.evaluation.ladder import evaluate
    from alphazero.network.model import build_network

    game = make("tictactoe")
    model = build_network(
        game.plane_shape, game.num_actions, NetworkConfig(filters=8, blocks=1, value_hidden=8)
    )
    config = EvaluationConfig(opponents=["random"], games=2, simulations=4)
    result = evaluate(model, config, lambda: make("tictactoe"), {"random": 0.0}, 0, False)
    assert result["opponents"]["random"]["player"] == "model:4"


def test_openings_are_different_unfinished_positions_their_moves_reach():
    """Two players without noise replay the same game from the same position, so a repeated
    opening would count one result twice."""
    start = make("connect4")
    found = random_openings(start, 49, 2, np.random.default_rng(0))
    assert len({o.game for o in found}) == 49  # every 2-move position, once
    assert all(o.game.score is None and len(o.moves) == 2 for o in found)
    assert all(type(start).from_moves(o.moves) == o.game for o in found)


def test_asking_for_more_openings_than_there_are_is_an_error():
    with pytest.raises(ValueError, match="fewer than 50 different positions"):
        random_openings(make("connect4"), 50, 2, np.random.default_rng(0))


def test_each_opening_is_played_twice_with_the_sides_swapped():
    """Perfect players from a tic-tac-toe opening the first player wins (X holds a1 and b1,
    and a fork follows O's forced block): one win each, the first player's in both games."""
    start = make("tictactoe")
    moves = (0, 3, 1)
    opening = Opening(start.from_moves(moves), moves)
    assert solve(opening.game) == -1  # lost for O, to move
    a, b = PerfectPlayer(np.random.default_rng(1)), PerfectPlayer(np.random.default_rng(2))
    a.name, b.name = "a", "b"
    result = play_openings(a, b, [opening], progress=False)
    assert result.games == 2 and result.wins == result.losses == 1
    assert result.wins_first == result.games_first == 1


class Lowest:
    """Always the lowest legal action: a player with no randomness at all."""

    name = "lowest"

    def __call__(self, game):
        return min(game.available_moves)


def test_ladder_games_from_openings_are_as_many_different_games_as_pairs():
    """Two players without randomness replay one game from the start, however many are
    asked for; ``evaluation.openings`` gives each pair of games its own position."""
    from alphazero.config import EvaluationConfig
    from alphazero.evaluation.ladder import ladder_openings, match

    def new_game():
        return make("tictactoe")

    plain_config = EvaluationConfig(games=6)
    assert ladder_openings(plain_config, new_game, 0) is None
    plain = match(Lowest(), Lowest(), new_game, plain_config, None, False)
    assert plain.games == 6 and len({tuple(moves) for moves in plain.moves}) == 1
    config = EvaluationConfig(games=6, openings=2)
    openings = ladder_openings(config, new_game, 0)
    assert openings == ladder_openings(config, new_game, 0)  # the seed fixes them
    paired = match(Lowest(), Lowest(), new_game, config, openings, False)
    assert paired.games == 6 and len({tuple(moves) for moves in paired.moves}) == 3


def test_ladder_openings_need_even_games_and_enough_positions():
    from alphazero.config import ConfigError, config_from_dict
    from alphazero.evaluation.run_evaluation import check_model_opponents

    ladder = {"every": 5, "opponents": ["random"], "openings": 1}
    with pytest.raises(ConfigError, match=r"must be even with evaluation\.openings"):
        config_from_dict({"game": {"name": "tictactoe"}, "evaluation": {**ladder, "games": 5}})
    config = config_from_dict({"game": {"name": "tictactoe"}, "evaluation": ladder})
    with pytest.raises(ConfigError, match=r"evaluation\.openings: fewer than 10 different"):
        check_model_opponents(config)  # 20 games: 10 pairs, and 9 one-move positions
    check_model_opponents(
        config_from_dict({"game": {"name": "tictactoe"}, "evaluation": {**ladder, "games": 18}})
    )


def test_positions_counted_k_moves_in_match_all_move_orders():
    """Tic-tac-toe's positions a few moves in, counted against every ordering of the moves
    (no line of three before the fifth move): 9, 9 * 8 = 72, C(9, 2) * 7 = 252."""
    import itertools

    from alphazero.evaluation.arena import count_positions

    start = make("tictactoe")
    for moves, known in ((1, 9), (2, 72), (3, 252)):
        boards = set()
        for order in itertools.permutations(range(9), moves):
            game = start
            for move in order:
                game = game.sim_move(move)
            boards.add(game)
        assert len(boards) == known
        assert count_positions(start, moves, enough=10**6) == known
        assert count_positions(start, moves, enough=5) == 5  # it stops once it has enough
    # Five moves in, X has three stones: on one of the 8 lines (with O's two among the 6 other
    # squares) the game is over, and only unfinished positions count.
    assert count_positions(start, 5, enough=10**6) == 84 * 15 - 8 * 15
