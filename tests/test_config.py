"""Config validation: each bad setting or combination is one line naming the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alphazero.config import ConfigError, config_from_dict, load_config


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"trian": {}}, "trian: unknown setting"),
        ({"train": {"batch_size": "x"}}, "train.batch_size: expected an integer"),
        ({"search": {"simulations": 1}}, "search.simulations: must be >= 2"),
        ({"search": {"c_puct": 0}}, "search.c_puct: must be > 0 and <= 100, got 0.0"),
        ({"train": {"learning_rate": float("nan")}}, "train.learning_rate: must be a finite"),
        ({"search": {"c_puct": float("inf")}}, "search.c_puct: must be a finite number"),
        ({"network": {"l2": float("-inf")}}, "network.l2: must be a finite number"),
        (
            {"selfplay": {"full_search_share": float("nan")}},
            "selfplay.full_search_share: must be a finite number",
        ),
        ({"train": {"lr_min_factor": 10**400}}, "train.lr_min_factor: must be a finite number"),
        ({"selfplay": {"augment": "yes"}}, "selfplay.augment: expected true or false"),
        ({"train": {"lr_schedule": "linear"}}, "one of 'constant', 'cosine', 'step'"),
        ({"game": {"name": "chess"}}, "unknown game 'chess'"),
        ({"game": {"name": "connect4", "params": {"size": 3}}}, "has no parameter size"),
        ({"evaluation": {"opponents": "uct:200"}}, "evaluation.opponents: expected a list"),
        ({"evaluation": {"opponents": []}}, "give at least one player"),
        ({"evaluation": {"opponents": ["uct:x"]}}, "evaluation.opponents[0]"),
        ({"evaluation": {"opponents": ["human"]}}, "a person cannot be a ladder opponent"),
        ({"evaluation": {"opponents": ["perfect"]}}, "no perfect player for connect4"),
        ({"evaluation": {"opponents": ["model:/nowhere.keras"]}}, "no model at /nowhere.keras"),
        (
            {"evaluation": {"opponents": ["model:/nowhere.keras:800:symmetric"]}},
            "no model at /nowhere.keras",
        ),
        (
            {"game": {"name": "tictactoe"}, "evaluation": {"solved_positions": True}},
            "evaluation.solved_positions: there are no solved positions of",
        ),
        (
            {
                "game": {"name": "connect4", "params": {"rows": 5}},
                "evaluation": {"solved_positions": True},
            },
            "evaluation.solved_positions: there are no solved positions of",
        ),
        ({"train": {"min_positions": 10}, "replay": {"capacity": 5}}, "would never start"),
        ({"selfplay": {"fast_simulations": 300}}, "must be below search.simulations"),
        (
            {"selfplay": {"fast_simulations": 20, "full_search_share": 0.0}},
            "no move would become a training example",
        ),
    ],
)
def test_bad_settings_are_one_line_errors_naming_the_key(data, message):
    with pytest.raises(ConfigError) as error:
        config_from_dict(data)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


ROW = re.compile(r"^\| `([a-z_.]+)` \| [^|]* \| ([>=]+ [\d,.]+ and <= ([\d,.]+))(, or `null`)? \|")


def test_a_value_out_of_range_is_told_the_range_docs_configuration_md_gives():
    """Each bounded setting's error words its range as the page's allowed column, thousands
    apart: ``train.batch_size: must be >= 1 and <= 65,536, got 65537``."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text()
    rows = [match.groups() for line in page.splitlines() if (match := ROW.match(line))]
    assert len(rows) > 30 and any(high == "4,294,967,295" for _, _, high, _ in rows)
    for key, allowed, high, _ in rows:
        value = int(float(high.replace(",", ""))) + 1
        *sections, name = key.split(".")
        data: dict = {name: value}
        for section in reversed(sections):
            data = {section: data}
        with pytest.raises(ConfigError) as error:
            config_from_dict(data)
        assert str(error.value).startswith(f"{key}: must be {allowed}, got {value}"), key


@pytest.mark.parametrize(
    ("written", "value"), [("1e-3", 1e-3), ("2.5E-4", 2.5e-4), ("5e-4", 5e-4), ("+1.5e-3", 1.5e-3)]
)
def test_a_number_in_scientific_notation_is_that_number(tmp_path, written, value):
    # PyYAML (YAML 1.1) reads 1e-3 as the string '1e-3': a float setting takes it as a number.
    path = tmp_path / "c.yaml"
    path.write_text(f"game: {{name: tictactoe}}\ntrain: {{learning_rate: {written}}}\n")
    assert load_config(path).train.learning_rate == value


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"train": {"learning_rate": "fast"}}, "learning_rate: expected a number, got 'fast'"),
        ({"train": {"learning_rate": "nan"}}, "learning_rate: expected a number, got 'nan'"),
        ({"train": {"learning_rate": "1e999"}}, "train.learning_rate: must be a finite number"),
        ({"train": {"learning_rate": "1e-3x"}}, "expected a number, got '1e-3x'"),
        ({"train": {"batch_size": "1e3"}}, "train.batch_size: expected an integer, got '1e3'"),
    ],
)  # fmt: skip
def test_a_string_that_is_no_number_in_scientific_notation_is_still_refused(data, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        config_from_dict(data)


def test_every_shipped_config_loads():
    configs = sorted(Path(__file__).resolve().parents[1].glob("configs/*.yaml"))
    assert len(configs) >= 4
    for path in configs:
        assert load_config(path).run_name == path.stem


def test_the_perfect_player_is_a_valid_opponent_where_the_game_is_solved():
    config = config_from_dict(
        {"game": {"name": "tictactoe"}, "evaluation": {"opponents": ["random", "perfect"]}}
    )
    assert config.evaluation.opponents == ["random", "perfect"]


def test_a_ladder_model_spec_takes_every_model_form():
    shipped = Path(__file__).parent.parent / "checkpoints" / "pretrained" / "connect4"
    for spec in (f"model:{shipped}", f"model:{shipped}:800", f"model:{shipped}:800:symmetric"):
        config = config_from_dict({"evaluation": {"opponents": [spec]}})
        assert config.evaluation.opponents == [spec]


@pytest.mark.parametrize(
    "budget", ["uct:2s", "rave:0.5s:knowledge", "SHIPPED:2s", "SHIPPED:60s/game:symmetric"]
)
def test_a_ladder_opponent_searching_for_a_time_is_a_one_line_error(budget):
    shipped = Path(__file__).parent.parent / "checkpoints" / "pretrained" / "connect4"
    spec = budget.replace("SHIPPED", f"model:{shipped}")
    with pytest.raises(ConfigError) as error:
        config_from_dict({"evaluation": {"opponents": ["uct:200", spec]}})
    message = str(error.value)
    assert message.startswith("evaluation.opponents[1]: the ladder needs a fixed count of ")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("train: {learning_rate: .nan}", "train.learning_rate"),
        ("search: {dirichlet_alpha: .inf}", "search.dirichlet_alpha"),
        ("selfplay: {value_target_mix: 1.0e+999}", "selfplay.value_target_mix"),
    ],
)
def test_yaml_nan_and_inf_are_one_line_errors_naming_the_key(tmp_path, text, key):
    path = tmp_path / "nan.yaml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"{key}: must be a finite number" in str(error.value)
    assert "\n" not in str(error.value)


# ------------------------------------------------------------ hostile and mistaken YAML
def _load_text(tmp_path: Path, text: str) -> str:
    """The one-line ``ConfigError`` that loading ``text`` as a config file gives."""
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message[:500]
    return message


DEEP = 3000  # far past Python's recursion limit, well under the 1 MB size limit
BILLION_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{n}: &{n} [{','.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize(
    "text",
    [
        "train: " + "[" * DEEP + "]" * DEEP + "\n",
        "train: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",
        "train:\n" + "".join(" " * i + "-\n" for i in range(1, 1200)) + " " * 1200 + "1\n",
        "train:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 1200)) + " " * 1200 + "v: 1\n",
    ],
    ids=["flow-list", "flow-mapping", "block-list", "block-mapping"],
)
def test_deeply_nested_yaml_is_a_one_line_error(tmp_path, text):
    assert "nested more than 16 levels deep at line" in _load_text(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "key"),
    [("1: a\nfoo: b\n", "1"), ("train: {2: a, batch_size: 8, null: 3}\n", "train.2")],
    ids=["top", "section"],
)
def test_unknown_keys_mixing_integers_and_strings_are_a_one_line_error(tmp_path, text, key):
    assert f": {key}: unknown setting" in _load_text(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("iterations: 3\nseed: 1\niterations: 4\n", "duplicate key 'iterations' at line 3"),
        ("train:\n  batch_size: 8\n  batch_size: 16\n", "duplicate key 'batch_size' at line 3"),
        ("train: {batch_size: 8, batch_size: 16}\n", "duplicate key 'batch_size' at line 1"),
    ],
    ids=["top", "block", "flow"],
)
def test_a_duplicated_key_is_refused_with_its_line(tmp_path, text, where):
    assert where in _load_text(tmp_path, text)


def test_a_key_written_out_still_overrides_a_merged_one(tmp_path):
    path = tmp_path / "merge.yaml"
    path.write_text("game: {name: tictactoe}\ntrain: {<<: {batch_size: 8}, batch_size: 16}\n")
    assert load_config(path).train.batch_size == 16


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("game: {name: tictactoe}\ntrain:\n\tbatch_size: 8\n",
         "not valid YAML at line 3: found character '\\t' that cannot start any token"),
        ("game: [1, 2\n", "not valid YAML at line 2: expected ',' or ']', but got '<stream end>'"),
    ],
    ids=["tab", "unclosed"],
)  # fmt: skip
def test_a_yaml_syntax_error_says_the_parsers_reason_in_one_line(tmp_path, text, reason):
    assert _load_text(tmp_path, text).endswith(reason)


@pytest.mark.parametrize(
    "text", ["", "\n\n", "# only a comment\n", "---\n"], ids=["empty", "blank", "comment", "---"]
)
def test_an_empty_config_file_is_refused(tmp_path, text):
    assert "empty, no settings in it" in _load_text(tmp_path, text)


def _within_seconds(call, seconds: float = 20.0):
    """``call()``'s result or exception, failing the test if it has not returned in time."""
    import threading

    done: list = []

    def run():
        try:
            done.append(call())
        except Exception as error:
            done.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"still waiting after {seconds} s"
    return done[0]


def test_a_fifo_no_one_writes_to_is_an_empty_config_not_a_wait(tmp_path, monkeypatch):
    import os

    from alphazero.play.models import default_model

    os.mkfifo(tmp_path / "fifo.yaml")
    error = _within_seconds(lambda: load_config(tmp_path / "fifo.yaml"))
    assert isinstance(error, ConfigError) and "empty, no settings in it" in str(error)
    # play.py reads every run folder's config.yaml unasked, looking for a model.
    run = tmp_path / "checkpoints" / "downloaded"
    run.mkdir(parents=True)
    os.mkfifo(run / "config.yaml")
    (run / "best.keras").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    assert _within_seconds(lambda: default_model("connect4", {"rows": 5})) is None


def test_a_pipe_is_read_and_a_device_is_refused():
    import os

    read, write = os.pipe()  # what the shell's --config <(...) passes: /dev/fd/N
    os.write(write, b"game: {name: tictactoe}\n")
    os.close(write)
    try:
        config = _within_seconds(lambda: load_config(Path(f"/dev/fd/{read}")))
    finally:
        os.close(read)
    assert config.game.name == "tictactoe"
    with pytest.raises(ConfigError, match=r"^/dev/zero: not a file \(a device or socket\)"):
        load_config(Path("/dev/zero"))


def test_a_missing_config_names_the_configs_beside_it_that_it_may_have_meant(tmp_path):
    for name in ("gomoku_6x6.yaml", "gomoku_15x15.yaml", "connect4.yaml"):
        (tmp_path / name).write_text("game: {name: gomoku}\n")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "gomoku.yaml")
    assert str(error.value) == (
        f"{tmp_path}/gomoku.yaml: no such config file (did you mean "
        f"{tmp_path}/gomoku_15x15.yaml or {tmp_path}/gomoku_6x6.yaml?)"
    )
    with pytest.raises(ConfigError, match=r"connect4\.yaml\?\)$"):
        load_config(tmp_path / "conect4.yaml")  # a slip of the hand
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "chess.yaml")
    assert str(error.value) == f"{tmp_path}/chess.yaml: no such config file"
    with pytest.raises(ConfigError) as error:  # nor does a folder that is not there matter
        load_config(tmp_path / "gone" / "gomoku.yaml")
    assert str(error.value) == f"{tmp_path}/gone/gomoku.yaml: no such config file"


def test_a_config_file_over_1_mb_is_refused_unread(tmp_path):
    text = "game: {name: tictactoe}\n# " + "x" * 1_000_000 + "\n"  # valid, and too large
    assert "larger than 1 MB" in _load_text(tmp_path, text)


def test_yaml_aliases_that_expand_past_the_limit_are_refused_in_a_short_line(tmp_path):
    message = _load_text(tmp_path, BILLION_LAUGHS + "iterations: *i\n")
    assert "more than 10000 values at line" in message and "aliases" in message
    assert len(message) < 300


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x0: &x0 [1]\n" + "".join(f"x{i}: &x{i} [*x{i - 1}]\n" for i in range(1, 30)),
         "nested more than 16 levels deep at line"),
        ("iterations: &a [*a]\n", "alias *a at line 1 refers to a value that contains it"),
    ],
    ids=["nested-through-aliases", "recursive"],
)  # fmt: skip
def test_aliases_cannot_nest_deeper_or_contain_themselves(tmp_path, text, expected):
    assert expected in _load_text(tmp_path, text)


LONG = "x" * 500_000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"game: {{name: {LONG}}}\n", "game: unknown game 'xxx"),
        (f"iterations: {LONG}\n", "iterations: expected an integer, got 'xxx"),
        (f"? {LONG}\n: 1\n", "xxx...: unknown setting"),
        (f"evaluation: {{opponents: [{LONG}]}}\n", "evaluation.opponents[0]: unknown player"),
        (f"evaluation: {{opponents: ['uct:1:{LONG}']}}\n", "unknown option 'xxx"),
        (f"evaluation: {{opponents: ['model:{LONG}']}}\n", "no model at xxx"),
        (f"train: {{batch_size: [{', '.join(['1'] * 5000)}]}}\n", "got [1, 1, 1, 1, ...]"),
    ],
    ids=["game", "value", "key", "player", "player-option", "model-path", "list"],
)
def test_values_quoted_in_errors_are_cut_to_about_80_characters(tmp_path, text, expected):
    message = _load_text(tmp_path, text)
    assert expected in message
    longest_run = max(len(word) for word in message.split())
    assert longest_run <= 90 and len(message) < 500, message


def test_an_integer_too_long_to_read_is_a_one_line_error(tmp_path):
    assert "not a usable value in it" in _load_text(tmp_path, "iterations: " + "1" * 5000)


def test_a_config_on_a_base_changes_only_what_it_names(tmp_path):
    (tmp_path / "flagship.yaml").write_text(
        "game: {name: connect4}\nsearch: {simulations: 32, c_puct: 2.0}\nrun_name: flag\n"
    )
    (tmp_path / "studies").mkdir()
    study = tmp_path / "studies" / "more_sims.yaml"
    study.write_text("base: ../flagship.yaml  # relative to this file\nsearch: {simulations: 64}\n")
    config = load_config(study)
    assert config.game.name == "connect4"
    assert (config.search.simulations, config.search.c_puct) == (64, 2.0)
    assert config.run_name == "more_sims"  # its own name, not the base's


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"a.yaml": "base: nope.yaml\n"}, "a.yaml: base: "),
        ({"a.yaml": "base: b.yaml\n", "b.yaml": "base: a.yaml\n"}, "base: a.yaml leads back to"),
        ({"a.yaml": "base: a.yaml\n"}, "base: a.yaml leads back to a.yaml"),
        ({"a.yaml": "base: 3\n"}, "base: must be the path of another config, got 3"),
        ({"a.yaml": "base: b.yaml\n", "b.yaml": "- 1\n"}, "is not a mapping of sections"),
        ({"a.yaml": "base: b.yaml\n", "b.yaml": "train: {batch_size: 0}\n"}, "b.yaml: train.bat"),
        ({"a.yaml": 'base: "b\\0.yaml"\n'}, "base: must be the path of another config, got"),
        ({"a.yaml": 'base: "b\\n.yaml"\n'}, "base: must be the path of another config, got"),
        ({"a.yaml": f"base: {'b' * 5000}.yaml\n"}, "a.yaml: base: "),
    ],
    ids=[
        "missing",
        "cycle",
        "itself",
        "not-a-path",
        "not-a-mapping",
        "bad-base-value",
        "nul",
        "newline",
        "long",
    ],
)
def test_a_bad_base_is_a_one_line_error(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "a.yaml")
    assert expected in str(error.value) and "\n" not in str(error.value)
    assert len(str(error.value)) < 400 + 2 * len(str(tmp_path))


def test_a_config_of_another_game_takes_none_of_the_bases_game_parameters(tmp_path):
    (tmp_path / "c4.yaml").write_text("game: {name: connect4, params: {rows: 5, cols: 6}}\n")
    (tmp_path / "g.yaml").write_text("base: c4.yaml\ngame: {name: gomoku}\n")
    (tmp_path / "small.yaml").write_text("base: c4.yaml\ngame: {params: {rows: 4}}\n")
    assert load_config(tmp_path / "g.yaml").game.name == "gomoku"
    assert load_config(tmp_path / "small.yaml").game.params == {"rows": 4, "cols": 6}


def test_play_finds_the_game_a_config_takes_from_its_base(tmp_path):
    from alphazero.play.models import config_game

    (tmp_path / "c4.yaml").write_text("game: {name: connect4, params: {rows: 5}}\n")
    (tmp_path / "study.yaml").write_text("base: c4.yaml\nsearch: {simulations: 8}\n")
    assert config_game(tmp_path / "study.yaml") == config_game(tmp_path / "c4.yaml")
    assert config_game(tmp_path / "c4.yaml")[0] == "connect4"


def test_the_experiment_configs_are_the_configs_their_runs_trained_with():
    """A config that names its run is that run's config, through any chain of ``base:``
    (both read as the record: the same removed switches set in each).

    Studies name only what they change from the flagship's config (``base:``) and their run
    folder is in ``checkpoints/``; a replaced flagship recipe is frozen in full and its curve
    kept in ``docs/research/runs/``. If ``configs/connect4.yaml`` changes, the studies on it must be
    written out against a frozen copy.
    """
    import dataclasses

    from alphazero.config import read_recorded_config

    root = Path(__file__).resolve().parents[1]
    checked = 0
    for path in sorted((root / "configs/experiments").glob("*.yaml")):
        config, ignored = read_recorded_config(path)
        research = root / "docs/research/runs" / (config.run_name or "")
        runs = [root / config.default_run_dir(), research]
        found = [run for run in runs if config.run_name and (run / "config.yaml").is_file()]
        if "base:" in path.read_text():
            assert found, f"{path.name}: a study needs its run folder, one of {runs}"
        if found:
            trained, trained_ignored = read_recorded_config(found[0] / "config.yaml")
            assert dataclasses.replace(trained, run_name=config.run_name) == config, path
            assert trained_ignored == ignored, path
            checked += 1
    assert checked >= 5


def test_a_network_size_reads_filters_then_blocks():
    from alphazero.config import NetworkConfig

    assert NetworkConfig.from_size("128x6") == NetworkConfig(filters=128, blocks=6)
    assert NetworkConfig.from_size(" 64X5 ") == NetworkConfig(filters=64, blocks=5)
    assert NetworkConfig.from_size("32x0").blocks == 0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("5x64", "filters first"),
        ("64", "FILTERSxBLOCKS"),
        ("64x", "FILTERSxBLOCKS"),
        ("64x5x2", "FILTERSxBLOCKS"),
        ("-64x5", "FILTERSxBLOCKS"),
        ("0x0", "network.filters"),
        ("2048x5", "network.filters"),
    ],
)
def test_a_network_size_that_is_not_filters_by_blocks_is_a_config_error(text, says):
    from alphazero.config import NetworkConfig

    with pytest.raises(ConfigError, match=says):
        NetworkConfig.from_size(text)
