"""docs/configuration.md is written from the config dataclasses: it must match them."""

from __future__ import annotations

import dataclasses

from alphazero.config import Config
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
