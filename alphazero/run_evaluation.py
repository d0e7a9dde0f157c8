"""A training run's evaluation, once per iteration: ladder matches and Elo (through
``evaluation``), the choice of the best model, and the solved-positions measure.

The ladder's ``model:`` opponents are loaded when the run starts (``check_model_opponents``),
so a bad one stops the run then, not at its first evaluation.
"""

from __future__ import annotations

from typing import Any

from . import evaluation  # called as evaluation.evaluate: tests replace it
from . import progress as progress_bars
from .checkpoints import CheckpointError, load_model
from .config import Config
from .games import make
from .player_specs import model_spec_parts
from .run_state import RunState
from .solved_positions import evaluate_network


def check_model_opponents(config: Config) -> None:
    """Load every ``model:`` opponent of the evaluation ladder now, so that one of another
    game (or a damaged file) stops the run at its start, not at its first evaluation hours in.
    (The config only checks that the path exists: it reads no models.)"""
    if not config.evaluation.every:
        return
    game = make(config.game.name, **config.game.params)
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

    Evaluation draws its randomness from seeds of its own, so the training run's random
    state (and hence ``--resume``) does not depend on it.
    """

    every = config.evaluation.every
    if not every:
        return None, True
    if iteration % every:
        return None, state.best_elo is None  # until a model is rated, best is the latest
    seed = config.seed * 1_000_003 + iteration
    if state.ladder is None:
        progress_bars.write(
            f"rating the evaluation ladder: {', '.join(config.evaluation.opponents)}",
            enabled=progress,
        )
        state.ladder = evaluation.calibrate_ladder(config.evaluation, new_game, seed, progress)
    result = evaluation.evaluate(
        model, config.evaluation, new_game, state.ladder, seed, progress, config.search.c_puct
    )
    result["ladder"] = state.ladder
    state.elo_history.append((iteration, result["elo"]))
    # Ties go to the later model: a sweep of the whole ladder rates at the bound and a model
    # that only draws a perfect player at its rating, whatever the margin, so equal ratings
    # are models the ladder cannot tell apart, and the later one has trained longer.
    is_best = state.best_elo is None or result["elo"] >= state.best_elo
    if is_best:
        state.best_elo = result["elo"]
    return result, is_best


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
