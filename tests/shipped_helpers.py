"""A tiny untrained model laid out as a shipped one: ``checkpoints/pretrained/<folder>/`` of a
temporary project, where ``play.py`` run in that folder looks first for its default model."""

from __future__ import annotations

from pathlib import Path

from alphazero.games.base import Game


def ship_tiny_model(root: Path, folder: str, game: Game) -> Path:
    """``root/checkpoints/pretrained/<folder>/``: the ``config.yaml`` of ``game`` (its name and
    every parameter) and the ``best.keras`` of an untrained network of a few thousand weights.
    The run folder, relative to ``root``."""
    import keras

    from alphazero.config import NetworkConfig
    from alphazero.network.model import build_network

    run = Path("checkpoints", "pretrained", folder)
    (root / run).mkdir(parents=True)
    params = ", ".join(f"{key}: {value}" for key, value in game.params.items())
    config = f"game:\n  name: {game.name}\n  params: {{{params}}}\n"
    (root / run / "config.yaml").write_text(config)
    # Seeded: an untrained network's prior decides how far a few simulations reach, which
    # the tests that play it count on.
    keras.utils.set_random_seed(0)
    network = build_network(
        game.plane_shape, game.num_actions, NetworkConfig(filters=8, blocks=1, value_hidden=8)
    )
    network.save(root / run / "best.keras")
    return run
