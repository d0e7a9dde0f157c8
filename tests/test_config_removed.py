"""Removed switches: a run folder's ``config.yaml`` that names one at the value that left it off
still loads and resumes; any other value is one line saying the switch is gone, unless the
config is read for the record (``read_recorded_config``)."""

from __future__ import annotations

import dataclasses
import typing

import pytest
import yaml

from alphazero.config import (
    REMOVED_SETTINGS,
    Config,
    ConfigError,
    config_from_dict,
    load_config,
    read_recorded_config,
)

REMOVED = [
    (section, key, removed.off)
    for section, keys in REMOVED_SETTINGS.items()
    for key, removed in keys.items()
]


def _other_than(off: object) -> object:
    """A value of the removed switch that is not its off value."""
    if isinstance(off, bool):
        return not off
    if off is None:
        return 0.1
    if isinstance(off, int | float):
        return off + 1
    return f"not {off}"


def _ids(case: tuple[str, str, object]) -> str:
    return f"{case[0]}.{case[1]}"


@pytest.mark.parametrize("case", REMOVED, ids=_ids)
def test_a_removed_switch_at_its_off_value_loads_as_if_absent(tmp_path, case):
    section, key, off = case
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({section: {key: off}}))
    assert load_config(path) == load_config(_empty(tmp_path))


@pytest.mark.parametrize("case", REMOVED, ids=_ids)
def test_a_removed_switch_set_on_is_one_line_naming_it(tmp_path, case):
    section, key, off = case
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({section: {key: _other_than(off)}}))
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {section}.{key}: this switch is gone")
    assert "remove it from the config" in message


@pytest.mark.parametrize("case", REMOVED, ids=_ids)
def test_a_recorded_config_names_the_removed_switch_it_set_and_loads(tmp_path, case):
    section, key, off = case
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({section: {key: _other_than(off)}}))
    recorded = read_recorded_config(path)
    assert recorded.ignored == [f"{section}.{key}"]
    assert recorded.config == load_config(_empty(tmp_path))


def test_a_recorded_config_reads_the_removed_switches_of_its_base_too(tmp_path):
    (section, key, off), *_ = REMOVED
    (tmp_path / "base.yaml").write_text(yaml.safe_dump({section: {key: _other_than(off)}}))
    (tmp_path / "run.yaml").write_text("base: base.yaml\n")
    assert read_recorded_config(tmp_path / "run.yaml").ignored == [f"{section}.{key}"]
    with pytest.raises(ConfigError, match=f"base: .*{section}.{key}: this switch is gone"):
        load_config(tmp_path / "run.yaml")


def test_the_same_value_of_another_type_is_not_the_off_value():
    """``false`` for a removed float switch at 0.0 is a mistake to report, not the off value
    (``True == 1`` and ``False == 0`` in Python)."""
    floats = [(s, k, off) for s, k, off in REMOVED if type(off) is float and off in (0.0, 1.0)]
    section, key, off = floats[0]
    with pytest.raises(ConfigError, match="this switch is gone"):
        config_from_dict({section: {key: bool(off)}})
    assert config_from_dict({section: {key: int(off)}}) == config_from_dict({})


def test_no_removed_switch_is_still_a_setting():
    """A key both removed and a field would be dropped before the field could read it."""
    hints = typing.get_type_hints(Config)
    for section, keys in REMOVED_SETTINGS.items():
        names = {f.name for f in dataclasses.fields(hints[section])}
        assert not names & keys.keys(), section


def _empty(tmp_path):
    """A config with no removed switch, named as the one under test (a run takes its name
    from the file)."""
    path = tmp_path / "plain" / "run.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text("game: {name: connect4}\n")
    return path
