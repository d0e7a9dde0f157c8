"""Players that do not learn: the yardsticks a trained network is measured against."""

from .perfect import PerfectPlayer, solve

__all__ = ["PerfectPlayer", "solve"]
