"""Settings that are gone, and how a config that still names one is read.

A run folder's ``config.yaml`` names every key of the config it ran with, so a switch taken
out of the config would make every older run folder unreadable. Each removed switch is kept
here with the value that left it off: a config that names it at that value loads as if the
key were absent (it ran as the code without the switch runs). Any other value ran something
the code no longer has, so training or resuming from it stops with one line; the research
record's configs, which are read rather than run, may ask for the key to be ignored instead.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml

from .errors import ConfigError


class Removed(NamedTuple):
    """A removed switch: the value that left it off, and why it went."""

    off: Any
    why: str


_LOST = "its study did not win: docs/research/learning_speed.md"
_LOST_C4 = "its study did not win: docs/research/learning_speed/connect4.md"
_FIXED = "no study varied it"

REMOVED_SETTINGS: dict[str, dict[str, Removed]] = {
    "search": {
        "dirichlet_alpha_scaled": Removed(False, "never measured: the configs scale alpha by hand"),
        "gumbel_c_visit": Removed(50.0, _FIXED),
        "gumbel_c_scale": Removed(0.1, _FIXED),
        "leaves_per_tree": Removed(1, "self-play batches whole games instead"),
        "virtual_loss": Removed(1.0, _FIXED),
    },
    "selfplay": {
        "value_discount": Removed(1.0, _LOST),
        "symmetric_search": Removed(False, _LOST),
        "weak_side_share": Removed(0.0, _LOST),
        "weak_side_simulations": Removed(16, _LOST),
        "weak_side_random": Removed(0.0, _LOST),
        "final_temperature": Removed(0.0, _FIXED),
        "carry_over": Removed(
            False, "it played fewer games per CPU-hour: docs/research/benchmarks.md"
        ),
        "resign_threshold": Removed(None, "never measured: no run resigned"),
        "resign_playthrough": Removed(0.1, "it measured resignations, which are gone"),
        "temperature_value_cutoff": Removed(
            None, "its study did not win: docs/research/learning_speed/connect4_2025.md"
        ),
    },
    "network": {
        "policy_channels": Removed(2, _LOST_C4),
    },
    "train": {
        "optimizer": Removed("adam", "every run used Adam; SGD was never tried"),
        "momentum": Removed(0.9, "SGD's, which was never tried"),
        "value_loss_weight": Removed(1.0, _LOST_C4),
        "late_value_loss_weight": Removed(None, _LOST_C4),
        "late_value_from_step": Removed(0, _LOST_C4),
    },
    "evaluation": {
        "rollout_knowledge": Removed(False, "an opponent's spec asks for it: uct:1000:knowledge"),
    },
    "replay": {
        "window_exponent": Removed(0.75, _FIXED),
        "window_growth": Removed(0.4, _FIXED),
    },
}
"""Removed switches by section: each one's off value (what the code now always does) and
why it went. ``docs/configuration.md`` lists them."""


def shown_off(value: Any) -> str:
    """A removed switch's off value as YAML writes it (``false``, ``null``, ``0.75``)."""
    return yaml.safe_dump(value, default_flow_style=True).removesuffix("\n...\n").strip()


def _is_off(value: Any, off: Any) -> bool:
    """Whether ``value`` is the removed switch's off value: equal and of its type (an integer
    stands for a float, as it does for every float setting)."""
    same_type = type(value) is type(off) or (isinstance(off, float) and type(value) is int)
    return same_type and value == off


def without_removed(data: Any, *, ignore: bool = False) -> tuple[Any, list[str]]:
    """``data`` (a config's sections) without the removed switches, and the keys (``section.
    name``) that were set to anything but their off value. Such a key is a one-line
    ``ConfigError`` unless ``ignore``. ``data`` that is not a mapping of sections is
    returned as it is, for the config's own checks to refuse."""
    if not isinstance(data, dict):
        return data, []
    kept = dict(data)
    ignored: list[str] = []
    for section, removed in REMOVED_SETTINGS.items():
        values = data.get(section)
        if not isinstance(values, dict) or not removed.keys() & values.keys():
            continue
        for key, value in values.items():
            if key in removed and not _is_off(value, removed[key].off):
                if not ignore:
                    gone = removed[key]
                    raise ConfigError(
                        f"{section}.{key}: this switch is gone, always {shown_off(gone.off)} "
                        f"now ({gone.why}); remove it from the config"
                    )
                ignored.append(f"{section}.{key}")
        kept[section] = {key: value for key, value in values.items() if key not in removed}
    return kept, ignored
