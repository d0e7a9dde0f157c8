"""docs/configuration.md is written from the config dataclasses: it must match them."""

from __future__ import annotations

import dataclasses

from alphazero.config import Config, strict_yaml
from alphazero.config import reference as config_reference


def test_the_committed_reference_matches_the_config_dataclasses():
    assert config_reference.PAGE.read_text() == config_reference.render(), (
        "docs/configuration.md is stale: run python -m alphazero.config.reference"
    )


def test_every_key_says_what_it_does():
    assert config_reference.missing_docs() == []


def test_the_reference_names_every_key_with_its_default():
    page = config_reference.render()
    for section in dataclasses.fields(Config):
        if dataclasses.is_dataclass(section.type) or section.name in {
            "game",
            "network",
            "search",
            "selfplay",
            "replay",
            "train",
            "checkpoint",
            "evaluation",
        }:
            for f in dataclasses.fields(getattr(Config(), section.name)):
                assert f"| `{section.name}.{f.name}` |" in page
        else:
            assert f"| `{section.name}` |" in page
    assert "| `train.batch_size` | `256` | >= 1 and <= 65,536 |" in page
    assert "| `replay.capacity` | `100000` | >= 1 and <= 100,000,000 |" in page
    assert "| `evaluation.opponents` | `[uct:200, uct:1000]` |" in page
    assert "| `selfplay.fast_simulations` | `null` | >= 2 and <= 1,000,000, or `null` |" in page
    assert "| `seed` | `0` | >= 0 and <= 4,294,967,295 |" in page


def test_every_default_is_spelled_as_yaml_reads_it_back():
    """The page's defaults are what a user would write: ``100000``, not ``100_000``;
    ``[uct:200, uct:1000]``, not a Python list; ``1.0e-05``, which YAML reads as a number
    where ``1e-05`` would be text."""
    for section in [getattr(Config(), f.name) for f in dataclasses.fields(Config)]:
        if not dataclasses.is_dataclass(section):
            continue
        for f in dataclasses.fields(section):
            value = getattr(section, f.name)
            assert strict_yaml.load(strict_yaml.spelling(value)) == value, f.name
    for value in [1e-05, 100_000, "yes", "a,b", ["uct:200", "a,b", None], {"size": 8}]:
        assert strict_yaml.load(strict_yaml.spelling(value)) == value, value
    assert strict_yaml.spelling(["uct:200", "uct:1000"]) == "[uct:200, uct:1000]"
    assert strict_yaml.spelling(1e-05) == "1.0e-05"


def test_a_field_without_a_docstring_is_reported():
    @dataclasses.dataclass
    class Section:
        documented: int = 1
        """Says what it does."""
        bare: int = 2

    assert config_reference.field_docs(Section) == {"documented": "Says what it does."}


def test_every_section_names_settings_worth_trying_that_exist():
    sections = [getattr(Config(), f.name) for f in dataclasses.fields(Config)]
    for section in [s for s in sections if dataclasses.is_dataclass(s)] + [Config()]:
        names = {f.name for f in dataclasses.fields(section)}
        assert section.TRY_FIRST and set(section.TRY_FIRST) <= names, type(section).__name__


def test_the_reference_lists_every_removed_switch_with_its_value():
    from alphazero.config import REMOVED_SETTINGS

    page = config_reference.render()
    assert "Worth trying first: `search.algorithm`, `search.simulations`" in page
    for section, keys in REMOVED_SETTINGS.items():
        for key in keys:
            assert f"| `{section}.{key}` | `" in page
    assert "| `train.optimizer` | `adam` |" in page
    assert "read_recorded_config" not in page  # a maintainer's function, not a user's
