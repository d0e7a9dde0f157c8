"""AlphaZero on an ordinary machine: games, PUCT search, self-play and training from YAML."""

__version__ = "0.1.0"
