"""A training run's evaluation, once per iteration: ladder matches and Elo (through
``evaluation``), the choice of the best model, and the solved-positions measure.

The ladder's ``model:`` opponents are loaded when the run starts (``check_model_opponents``),
so a bad one stops the run then, not at its first evaluation.
"""

from __future__ import annotations

from typing import Any

from ..config import Config, ConfigError
from ..games import make
from ..progress import bars as progress_bars
from ..training.checkpoints import load_model
from ..training.run_errors import CheckpointError
from ..training.run_state import RunState, top_score_record
from . import ladder as evaluation  # called as evaluation.evaluate: tests replace it
from .arena import MatchResult, count_positions, score_below
from .model_search import play_search
from .player_specs import model_spec_parts
from .solved_positions import evaluate_network


def check_model_opponents(config: Config) -> None:
    """Load every ``model:`` opponent of the evaluation ladder now, so that one of another
    game (or a damaged file) stops the run at its start, not at its first evaluation hours in
    (the config only checks that the path exists: it reads no models); and, likewise, that
    the game has enough different positions ``evaluation.openings`` moves in for its games."""
    if not config.evaluation.every:
        return
    game = make(config.game.name, **config.game.params)
    if config.evaluation.openings:  # a small game may not have that many different ones
        pairs, moves = config.evaluation.games // 2, config.evaluation.openings
        if count_positions(game, moves, enough=pairs) < pairs:
            raise ConfigError(
                f"evaluation.openings: fewer than {pairs} different positions {moves} "
                f"moves in ({config.evaluation.games} games need one a pair)"
            )
    for i, spec in enumerate(config.evaluation.opponents):
        if (parts := model_spec_parts(spec)) is not None:
            try:
                load_model(parts[0], game, compile=False)
            except CheckpointError as error:
                raise CheckpointError(f"evaluation.opponents[{i}]: {error}") from None


def evaluate_iteration(
    model: Any,
    config: Config,
    new_game: Any,
    state: RunState,
    iteration: int,
    progress: bool,
) -> tuple[dict[str, Any] | None, bool]:
    """Evaluate when due; ``(evaluation record or None, whether this model is the best)``.

    The best is the latest model whose pooled score against the ladder is not significantly
    below the highest any model of the run has scored (``BEST_RULE``); until the first
    evaluation it is the latest.

    Evaluation draws its randomness from seeds of its own, so the training run's random
    state (and hence ``--resume``) does not depend on it.
    """

    every = config.evaluation.every
    if not every:
        return None, True
    if iteration % every:
        return None, state.best_elo is None  # until a model is rated, best is the latest
    seed = config.seed * 1_000_003 + iteration
    openings = config.evaluation.openings
    if (
        state.ladder is None
        or set(state.ladder) != set(config.evaluation.opponents)
        or state.ladder_openings != openings
    ):
        # A ladder edited in the run's config.yaml (its players, or the openings its games
        # start from) is rated afresh, and scores against the old one say nothing about the
        # new: the top score starts again.
        progress_bars.write(
            f"rating the evaluation ladder: {', '.join(config.evaluation.opponents)}",
            enabled=progress,
        )
        state.ladder = evaluation.calibrate_ladder(config.evaluation, new_game, seed, progress)
        state.top_score = None
        state.ladder_openings = openings
    # The model plays its ladder games as play.py plays it (``play_search``).
    search = play_search(config.search.params())
    result = evaluation.evaluate(
        model, config.evaluation, new_game, state.ladder, seed, progress, search
    )
    result["ladder"] = state.ladder
    state.elo_history.append((iteration, result["elo"]))
    pooled, top = ladder_record(result), state.top_score
    state.top_score = _higher(top, iteration, pooled)
    # The latest model within noise of the top score is the best: from about the middle of a
    # run every model sweeps the ladder or drops a game, so "the highest Elo" would let one
    # lost game in 40 pick, where the later model has trained longer.
    is_best = top is None or not score_below(pooled, _pooled(top))
    if is_best:
        state.best_elo = result["elo"]
    return result, is_best


BEST_RULE = (
    "latest model whose score against the evaluation ladder is not significantly below "
    "the highest (one-sided test, 5%)"
)


def ladder_record(result: dict[str, Any]) -> MatchResult:
    """An evaluation's games against all the ladder opponents, pooled as one match."""
    pooled = MatchResult("model", "ladder")
    for match in result["opponents"].values():
        pooled.wins += match["wins"]
        pooled.draws += match["draws"]
        pooled.losses += match["losses"]
    return pooled


def top_score_from_metrics(records: list[dict[str, Any]]) -> dict[str, int] | None:
    """The highest pooled ladder score in a run's metrics (later ones win ties), as
    ``RunState.top_score`` holds it: for runs saved before it was recorded."""
    top: dict[str, int] | None = None
    for record in records:
        if "evaluation" in record:
            top = _higher(top, record["iteration"], ladder_record(record["evaluation"]))
    return top


def _higher(top: dict[str, int] | None, iteration: int, pooled: MatchResult) -> dict[str, int]:
    """``RunState.top_score`` after an evaluation that pooled ``pooled``: ties go to it."""
    if top is None or pooled.score >= _pooled(top).score:
        return top_score_record(iteration, pooled.wins, pooled.draws, pooled.losses)
    return top


def _pooled(top: dict[str, int]) -> MatchResult:
    return MatchResult("model", "ladder", top["wins"], top["draws"], top["losses"])


def solved_positions_metrics(inference: Any) -> dict[str, float]:
    """The network's shares on the solved Connect Four positions, flat for the
    iteration's record (``connect4_positions``): all stages, and correct moves by stage."""
    moves, values = evaluate_network(inference)
    flat = {
        "policy_correct": moves["all"]["correct"],
        "policy_exact": moves["all"]["exact"],
        "value_result": values["all"]["result"],
        "value_mse": values["all"]["mse"],
    }
    for stage, shares in moves.items():
        if stage != "all":
            flat[f"policy_correct_{stage}"] = shares["correct"]
    return flat
