"""Checks across settings: each valid alone, but together they would waste a run (or stop
it hours in)."""

from __future__ import annotations

from pathlib import Path

from ..evaluation.player_specs import (
    PlayerSpecError,
    check_spec,
    model_spec_parts,
    searches_for_a_time,
)
from ..games import make
from .errors import ConfigError, cut, from_elsewhere
from .sections import Config


def check_combinations(config: Config) -> None:
    """``ConfigError`` for the first combination of ``config``'s settings that cannot work.
    The ``model:`` opponents are only looked for here; training loads them at its start."""
    game = make(config.game.name, **config.game.params)
    evaluation = config.evaluation
    if evaluation.every and not evaluation.opponents:
        raise ConfigError("evaluation.opponents: give at least one player, e.g. [uct:200]")
    for i, spec in enumerate(evaluation.opponents):
        key = f"evaluation.opponents[{i}]"
        try:
            check_spec(spec)
        except PlayerSpecError as error:
            raise ConfigError(f"{key}: {from_elsewhere(error)}") from None
        kind = spec.strip().partition(":")[0]
        if kind.lower() == "human":
            raise ConfigError(f"{key}: a person cannot be a ladder opponent during training")
        if kind.lower() == "perfect" and not game.solvable:
            raise ConfigError(f"{key}: there is no perfect player for {game.name}")
        if kind.lower() == "alphabeta" and game.name != "gomoku":
            raise ConfigError(f"{key}: alphabeta plays only Gomoku, not {game.name}")
        if searches_for_a_time(spec):
            raise ConfigError(
                f"{key}: the ladder needs a fixed count of simulations (uct:2000, "
                "model:PATH:800), not a time: timed moves differ from run to run and machine "
                "to machine"
            )
        if (model := model_spec_parts(spec)) is not None and not _exists(model[0]):
            raise ConfigError(f"{key}: no model at {cut(model[0])}")
    if evaluation.openings and evaluation.games % 2:
        raise ConfigError(
            f"evaluation.games ({evaluation.games}) must be even with evaluation.openings: "
            "each opening is played twice, the sides swapped"
        )
    if evaluation.solved_positions and not game.has_solved_positions:
        raise ConfigError(
            f"evaluation.solved_positions: there are no solved positions of {game.name}"
        )
    if config.train.min_positions > config.replay.capacity:
        raise ConfigError(
            f"train.min_positions ({config.train.min_positions}) is above replay.capacity "
            f"({config.replay.capacity}): training would never start"
        )
    fast = config.selfplay.fast_simulations
    if fast is not None:
        if fast >= config.search.simulations:
            raise ConfigError(
                f"selfplay.fast_simulations ({fast}) must be below search.simulations "
                f"({config.search.simulations})"
            )
        if config.selfplay.full_search_share <= 0:
            raise ConfigError(
                "selfplay.full_search_share must be above 0 with fast_simulations: "
                "no move would become a training example"
            )


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False
