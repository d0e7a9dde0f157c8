"""The command lines of the benchmark and experiment scripts: a bad argument is one line, and
only ``strength.py --readme`` rewrites the committed strength table."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphazero.games import make
from alphazero.training.replay_buffer import ReplayBuffer

ROOT = Path(__file__).resolve().parents[1]


def run(script: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def copy_strength(folder: Path) -> Path:
    """``benchmarks/strength.py`` in a copy under ``folder`` of the files it writes, beside the
    real shipped models: a test that finds it rewriting them must not rewrite the committed
    ones."""
    (folder / "benchmarks").mkdir()
    shutil.copy(ROOT / "benchmarks" / "strength.py", folder / "benchmarks")
    shutil.copytree(ROOT / "docs", folder / "docs")
    shutil.copy(ROOT / "README.md", folder)
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "pretrained").symlink_to(ROOT / "checkpoints" / "pretrained")
    return folder / "benchmarks" / "strength.py"


@pytest.fixture
def strength_copy(tmp_path) -> Path:
    """``copy_strength`` in the test's own folder."""
    return copy_strength(tmp_path)


COMMITTED = ("docs/strength.json", "docs/strength.md", "README.md")


def committed(root: Path) -> list[bytes]:
    """The files that ``strength.py --readme`` writes, as they are under ``root``."""
    return [(root / name).read_bytes() for name in COMMITTED]


def test_strength_without_readme_prints_and_writes_only_its_out_file(strength_copy, tmp_path):
    before = committed(tmp_path)
    out = tmp_path / "result.json"
    args = ["--only", "tictactoe", "--games", "2", "--opponents", "uct:10", "--out", str(out)]
    done = run(strength_copy, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| tictactoe (100 sims) |" in done.stdout and "vs `uct:10`" in done.stdout
    assert "connect4" not in done.stdout.split("| model |")[1]  # only what was measured
    assert json.loads(out.read_text())["tictactoe"]["games"] == 2
    assert committed(tmp_path) == before


def test_strength_measures_a_model_file_of_a_run_outside_the_table(strength_copy, tmp_path):
    before = committed(tmp_path)
    run_folder = ROOT / "checkpoints" / "pretrained" / "tictactoe"
    kept = next(run_folder.glob("resume_*.keras"))  # any model file beside the run's config
    out = tmp_path / "result.json"
    args = ["--model", str(kept), "--games", "2", "--opponents", "uct:10", "--out", str(out)]
    done = run(strength_copy, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    # the run's config.yaml gave the game and its simulations; no table of shipped rows
    assert f"{kept} (100 sims) vs uct:10: " in done.stdout and "| model |" not in done.stdout
    counts = json.loads(out.read_text())[str(kept)]["results"]["uct:10"]
    assert counts["wins"] + counts["draws"] + counts["losses"] == 2
    assert committed(tmp_path) == before


def strength_games(script: Path, out: Path, *args: str) -> dict:
    """The tictactoe entry of ``--out`` after 4 games against ``random`` (and ``perfect``)."""
    common = ["--only", "tictactoe", "--games", "4", "--opponents", "random", "--out", str(out)]
    done = run(script, *common, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text())["tictactoe"]


def test_strength_seed_gives_other_games_and_the_out_file_keeps_them(strength_copy, tmp_path):
    before = committed(tmp_path)
    default = strength_games(strength_copy, tmp_path / "default.json")
    zero = strength_games(strength_copy, tmp_path / "zero.json", "--seed", "0")
    seven = strength_games(strength_copy, tmp_path / "seven.json", "--seed", "7")
    # The default is seed 0, whose opponents get their index: the committed table's seeds.
    assert default["seed"] == zero["seed"] == 0 and seven["seed"] == 7
    for entry, seeds in ((default, [0, 1]), (seven, [7, 8])):  # random's, then perfect's
        assert [match["seed"] for match in entry["matches"].values()] == seeds
    # The same seed plays the same games; another seed, against a random player, others.
    games = [entry["matches"]["random"]["moves"] for entry in (default, zero, seven)]
    assert len(games[0]) == 4 and all(len(moves) >= 5 for moves in games[0])
    assert games[0] == games[1] and games[2] != games[0]
    # Each side's CPU seconds count its own moves: the model's in game k at even plies when
    # k is even (it moves first), at odd ones otherwise.
    costs = seven["matches"]["random"]["cpu_seconds"]
    model_moves = sum(len(moves[k % 2 :: 2]) for k, moves in enumerate(games[2]))
    assert costs["model"]["moves"] == model_moves
    assert costs["opponent"]["moves"] == sum(map(len, games[2])) - model_moves
    assert costs["model"]["seconds_per_move"] > 0 and costs["opponent"]["seconds_per_move"] >= 0
    # The table's counts are as they were, beside the new keys.
    counts = {"wins", "draws", "losses", "wins_first", "games_first"}
    assert set(seven["results"]["random"]) == counts
    assert committed(tmp_path) == before


def test_strength_openings_start_each_pair_of_games_from_its_own_position(strength_copy, tmp_path):
    entry = strength_games(strength_copy, tmp_path / "out.json", "--openings", "2")
    assert entry["openings"] == 2 and "2-move openings" in entry["label"]
    start = make("tictactoe")
    for match in entry["matches"].values():  # random's and perfect's: the same two openings
        openings, games = match["openings"], match["moves"]
        assert openings == entry["matches"]["random"]["openings"]
        assert len(openings) == 2 and openings[0] != openings[1]
        assert all(len(opening) == 2 for opening in openings)
        for k, moves in enumerate(games):  # game k: opening k // 2, then its own moves
            game = start.from_moves(openings[k // 2] + moves)
            assert game.is_over and len(moves) >= 3


def test_strength_readme_keeps_the_games_out_of_the_committed_json(strength_copy, tmp_path):
    out = tmp_path / "result.json"
    args = ["--only", "tictactoe", "--readme", "--opponents", "random", "--seed", "3"]
    done = run(strength_copy, *args, "--out", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(out.read_text())["tictactoe"]["matches"]["random"]["moves"]) == 100
    kept = json.loads((tmp_path / "docs" / "strength.json").read_text())["tictactoe"]
    assert kept["seed"] == 3 and "matches" not in kept and "random" in kept["results"]


def test_strength_readme_regenerates_the_committed_table(strength_copy, tmp_path):
    before = committed(tmp_path)
    done = run(strength_copy, "--readme", "--table-only")
    assert done.returncode == 0, done.stderr[-2000:]
    assert committed(tmp_path) == before  # the same results give the same files


def tiny_buffer(path: Path, examples: int) -> Path:
    """A Connect Four replay buffer file of ``examples`` empty-board examples."""
    buffer = ReplayBuffer(examples, (6, 7, 3), 7)
    policies = np.full((examples, 7), 1 / 7, dtype=np.float32)
    buffer.add(np.zeros((examples, 6, 7, 3), np.uint8), policies, np.zeros(examples))
    buffer.save(path)
    return path


BENCH, EXPERIMENTS = ROOT / "benchmarks", ROOT / "experiments"
STRENGTH = Path("benchmarks") / "strength.py"
"""The copy's ``strength.py``, relative to the folder of ``shared_strength_copy``."""

BAD_ARGUMENTS: list[tuple[Path, list[str], str]] = [
    (STRENGTH, ["--readme", "--games", "5"], "--readme needs --games 100 or more"),
    (STRENGTH, ["--games", "0"], "--games must be at least 1"),
    (STRENGTH, ["--only", "chess"], "--only chess: no such model"),
    (STRENGTH, ["--out", "{tmp}"], "--out {tmp}: that is a folder"),
    (STRENGTH, ["--model", "{tmp}/nope"], "nope: no such file or folder"),
    (STRENGTH, ["--model", "{tmp}"], "no run's config.yaml in it or above"),
    (STRENGTH, ["--model", "{tmp}", "--readme"], "--model measures one model"),
    # Each opponent's seed is --seed plus its index, for np.random.default_rng.
    (STRENGTH, ["--seed", "-1"], "--seed: expected a non-negative integer, got '-1'"),
    (STRENGTH, ["--seed", "1.5"], "--seed: expected a non-negative integer, got '1.5'"),
    (STRENGTH, ["--openings", "-1"], "--openings: expected a non-negative integer"),
    (STRENGTH, ["--openings", "2", "--games", "3"], "--games must be even, got 3"),
    (STRENGTH, ["--openings", "2", "--readme"], "not with --openings"),
    (
        STRENGTH,
        ["--only", "tictactoe", "--openings", "1", "--games", "20"],
        "--openings 1: fewer than 10 different positions 1 random moves in",
    ),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}/nope"], "nope: not a run folder"),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--last", "0"], "--last must be"),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--at", "1", "2"], "--at needs one"),
    (
        EXPERIMENTS / "compare_runs.py",
        ["{tmp}", "--at", "1", "--cpu-hours", "1"],
        "--at and --cpu-hours both",
    ),
    (EXPERIMENTS / "pcr.py", ["--game", "chess"], "unknown game 'chess'"),
    (EXPERIMENTS / "pcr.py", ["--rounds", "0"], "--rounds must be at least 1"),
    (EXPERIMENTS / "pcr.py", ["--games", "0"], "--games must be at least 1, got 0"),
    (EXPERIMENTS / "pcr.py", ["--full", "1"], "--full must be at least 2, got 1"),
    (EXPERIMENTS / "pcr.py", ["--fast", "200"], "--fast must be at least 2 and below --full"),
    (EXPERIMENTS / "pcr.py", ["--share", "nan"], "--share must be above 0 and at most 1"),
    (EXPERIMENTS / "policy_head_probe.py", ["{buffer}", "--held-out", "0"], "--held-out must be"),
    (EXPERIMENTS / "policy_head_probe.py", ["{buffer}", "--steps", "0"], "--steps must be"),
    (EXPERIMENTS / "policy_head_probe.py", ["{buffer}", "--channels", "2", "0"], "--channels"),
    (
        EXPERIMENTS / "policy_head_probe.py",
        ["{buffer}", "--held-out", "10"],
        "--held-out must be below the buffer's 10 examples, got 10",
    ),
    (
        EXPERIMENTS / "connect4_opening_errors.py",
        ["--model", "m", "--positions", "p.tsv", "--sims", "800", "1"],
        "--sims must be at least 2, got 1",
    ),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--games", "-1"], "--games must be"),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--sims", "1"], "--sims must be"),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--opening", "-1"], "--opening must"),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--seed", "-1"], "--seed: expected a"),
    (EXPERIMENTS / "compare_runs.py", ["{tmp}", "--cpu-hours", "nan"], "--cpu-hours"),
    (
        EXPERIMENTS / "compare_runs.py",
        ["{tmp}", "--budgets", "1", "nan"],
        "--budgets must be above 0, got nan",
    ),
    (
        EXPERIMENTS / "connect4_drawn_openings.py",
        ["--out", "x.tsv", "--minutes", "nan"],
        "--minutes must be positive, got nan",
    ),
    (
        EXPERIMENTS / "connect4_drawn_openings.py",
        ["--out", "x.tsv", "--drawn", "5", "--good-simulations", "0"],
        "--good-simulations must be at least 1",
    ),
    (
        EXPERIMENTS / "connect4_finetune.py",
        ["--fresh", "64x2", "--buffer", "{buffer}", "--lr", "nan"],
        "--lr must be above 0 and finite, got nan",
    ),
    (
        EXPERIMENTS / "connect4_finetune.py",
        ["--fresh", "64x2", "--buffer", "{buffer}", "--batch-size", "0"],
        "--batch-size must be at least 1, got 0",
    ),
    (
        EXPERIMENTS / "connect4_fresh_positions.py",
        ["--out", "x.tsv", "--jobs", "0"],
        "--jobs must be at least 1, got 0",
    ),
    (EXPERIMENTS / "connect4_opening_targets.py", ["--jobs", "0"], "--jobs must be at least"),
    (EXPERIMENTS / "connect4_pons_solve.py", ["--jobs", "0"], "--jobs must be at least 1"),
    (EXPERIMENTS / "play_search.py", ["--model", "m", "--sims", "1"], "--sims must be at"),
    (EXPERIMENTS / "play_search.py", ["--model", "m", "--speed", "-1"], "--speed must be"),
    (EXPERIMENTS / "time_budget_match.py", ["--model", "m", "--opening", "-1"], "--opening"),
    (
        EXPERIMENTS / "gomoku_defence.py",
        ["--model", "m", "--seed", "-1"],
        "--seed: expected a non-negative integer, got '-1'",
    ),
    # A seed reaches np.random.default_rng, which refuses a negative one with a traceback.
    (
        BENCH / "connect4_pons.py",
        ["--seed", "-1"],
        "--seed: expected a non-negative integer, got '-1'",
    ),
    (
        BENCH / "connect4_pons.py",
        ["--seed", "x"],
        "--seed: expected a non-negative integer, got 'x'",
    ),
    (
        BENCH / "selfplay_cost.py",
        ["--seed", "-1"],
        "--seed: expected a non-negative integer, got '-1'",
    ),
    (
        BENCH / "selfplay_cost.py",
        ["--seed", "1.5"],
        "--seed: expected a non-negative integer, got '1.5'",
    ),
    (
        BENCH / "gomoku_alphabeta.py",
        ["--seed", "-1"],
        "--seed: expected a non-negative integer, got '-1'",
    ),
    (
        BENCH / "gomoku_alphabeta.py",
        ["--seed", "x"],
        "--seed: expected a non-negative integer, got 'x'",
    ),
    (BENCH / "uct.py", ["--rounds", "0"], "--rounds must be at least 1"),
    (BENCH / "gomoku_alphabeta.py", ["--max-depth", "0"], "--max-depth must be at least 1"),
    (BENCH / "gomoku_alphabeta.py", ["--limit", "nan"], "--limit must be above 0, got nan"),
    (BENCH / "gomoku_alphabeta.py", ["--positions", "{tmp}/gone.txt"], "--positions: No such file"),
    (BENCH / "games.py", ["--rounds", "0"], "--rounds must be at least 1"),
    (BENCH / "games.py", ["--seconds", "-1"], "--seconds must be above 0, got -1"),
    (BENCH / "selfplay.py", ["--rounds", "-1"], "--rounds must be at least 1, got -1"),
    (BENCH / "selfplay.py", ["--workers-games", "0"], "--workers-games must be at least 1"),
    (BENCH / "selfplay.py", ["--simulations", "1"], "--simulations must be at least 2"),
    (BENCH / "selfplay.py", ["--seconds", "-5"], "--seconds must be above 0, got -5"),
    (BENCH / "search_python.py", ["--games", "-1"], "--games must be at least 1, got -1"),
    (BENCH / "uct.py", ["--moves", "0"], "--moves must be at least 1, got 0"),
    (BENCH / "uct.py", ["--simulations", "-3"], "--simulations must be at least 1, got -3"),
    (BENCH / "inference_engines.py", ["--seconds", "0"], "--seconds must be above 0, got 0"),
    (BENCH / "play_startup.py", ["--timeout", "-1"], "--timeout must be above 0, got -1"),
    (BENCH / "selfplay_cost.py", ["--rounds", "0"], "--rounds must be at least 1"),
    (BENCH / "selfplay_cost.py", ["--cpu-seconds", "0"], "--cpu-seconds must be above 0"),
    (BENCH / "selfplay_cost.py", ["--cpu-seconds", "nan"], "--cpu-seconds must be above 0"),
    (BENCH / "selfplay_cost.py", ["--only", "metrics"], "--only metrics needs --metrics"),
    (BENCH / "selfplay_cost.py", ["--metrics", "{tmp}"], "no metrics.jsonl there"),
    (BENCH / "selfplay_cost.py", ["nope.yaml"], "nope.yaml: no such config"),
    (BENCH / "inference_engines.py", ["--rounds", "0"], "--rounds must be at least 1"),
    (BENCH / "inference_engines.py", ["--engines", "onnx"], "--engines: unknown 'onnx'"),
    (BENCH / "play_speed.py", ["--moves", "0"], "--moves must be at least 1"),
    (BENCH / "training_step.py", ["--steps", "0"], "--steps must be at least 1"),
    (BENCH / "training_step.py", ["--networks", "9x9"], "--networks: unknown '9x9'"),
    (BENCH / "play_speed.py", ["--leaves", "0"], "--leaves and --old-leaves must be"),
    (BENCH / "play_startup.py", ["--runs", "0"], "--runs must be at least 1"),
    (BENCH / "play_startup.py", ["--version", "old"], "expected LABEL=FOLDER, got 'old'"),
    (BENCH / "play_startup.py", ["--version", "old={tmp}"], "no play.py there"),
    (BENCH / "gumbel_python_ab.py", ["--rounds", "0"], "--rounds must be at least 1"),
    (BENCH / "gumbel_python_ab.py", ["--base", "no-such-rev"], "--base: no alphazero/"),
    (
        BENCH / "connect4_positions.py",
        ["--model", "x", "--leaves", "0"],
        "--leaves must be at least 1",
    ),
    (
        BENCH / "connect4_positions.py",
        ["--model", "x", "--c-puct", "nan"],
        "--c-puct must be above 0 and at most 100, got nan",
    ),
    (
        BENCH / "connect4_positions.py",
        ["--model", "x", "--positions", "{tmp}/gone.tsv"],
        "gone.tsv: No such file",
    ),
    (
        BENCH / "connect4_positions.py",
        ["--model", "x", "--positions", "y.tsv", "--record"],
        "--record keeps the run's curve on the committed positions",
    ),
]
"""(script, arguments, part of the message): ``{tmp}`` in the arguments and the message is the
shared folder (the working directory), ``{buffer}`` a 10-example buffer in it."""


@pytest.fixture(scope="module")
def shared_strength_copy(tmp_path_factory) -> tuple[Path, list[bytes]]:
    """``strength_copy``'s folder, with a 10-example ``buffer_0001.npz``, and its committed
    files as copied: made once for the module's (each worker's) cases, as each case refuses
    its arguments before writing anything."""
    folder = tmp_path_factory.mktemp("bad_arguments")
    copy_strength(folder)
    tiny_buffer(folder / "buffer_0001.npz", 10)
    return folder, committed(folder)


@pytest.mark.parametrize(
    ("script", "args", "reason"),
    BAD_ARGUMENTS,
    ids=[f"{script.name} {' '.join(args)}" for script, args, _ in BAD_ARGUMENTS],
)
def test_bad_benchmark_arguments_are_one_line_errors(
    shared_strength_copy, script: Path, args: list[str], reason: str
):
    folder, before = shared_strength_copy
    places = {"tmp": folder, "buffer": folder / "buffer_0001.npz"}
    args = [arg.format(**places) for arg in args]
    # An absolute path (the repository's scripts) stays itself; STRENGTH is the copy's.
    done = run(folder / script, *args, cwd=folder)
    # One line, as train.py's: no usage block before the scripts' own checks' message.
    one_line = done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert done.returncode == 2 and one_line, (script.name, args, done.stderr[-2000:])
    assert reason.format(**places) in done.stderr, (script.name, args, done.stderr)
    assert committed(folder) == before


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("benchmarks/inference_engines.py", ["--batches", "x"],
         "--batches: expected comma-separated integers, got 'x'"),
        ("benchmarks/inference_engines.py", ["--batches", "1,0"], "--batches must be at least 1"),
        ("benchmarks/selfplay_cost.py", ["--forward-batches", "16,a"],
         "--forward-batches: expected comma-separated integers, got '16,a'"),
        ("benchmarks/uct.py", ["--rounds", "many"], "--rounds: expected an integer, got 'many'"),
        ("benchmarks/games.py", ["--seconds", "1s"], "--seconds: expected a number, got '1s'"),
        ("benchmarks/selfplay.py", ["--rounds", "2.5"], "--rounds: expected an integer"),
        ("benchmarks/strength.py", ["--games", "ten"], "--games: expected an integer"),
        ("benchmarks/buffer_format.py", ["--rounds", "x"], "--rounds: expected an integer"),
        ("benchmarks/play_startup.py", ["--version", "old"], "--version: expected LABEL=FOLDER"),
        ("experiments/compare_runs.py", ["run", "--last", "x"], "--last: expected an integer"),
        ("experiments/connect4_opening_errors.py", ["--model", "m", "--positions", "p.tsv",
         "--sims", "800", "x"], "--sims: expected an integer, got 'x'"),
        ("experiments/connect4_fresh_positions.py", ["--out", "x.tsv", "--lengths", "4"],
         "--lengths: expected LOW-HIGH such as 4-12, got '4'"),
        ("experiments/tictactoe_robustness.py", ["--seeds", "a-b"],
         "--seeds: expected a seed or LOW-HIGH such as 0-4, got 'a-b'"),
        ("experiments/tictactoe_robustness.py", ["--seeds", "5-2"],
         "--seeds: expected LOW-HIGH with LOW at most HIGH, such as 0-4, got '5-2'"),
        ("experiments/tictactoe_robustness.py", ["--seeds", "3-"],
         "--seeds: expected a seed or LOW-HIGH such as 0-4, got '3-'"),
    ],
)  # fmt: skip
def test_a_value_that_is_no_number_is_one_line_naming_the_option(tmp_path, script, args, message):
    """A plain ``type=int`` or ``type=float`` of a script, a list of integers and a script's
    own type: one line, where argparse printed its usage first (or, for --batches, a
    traceback)."""
    done = run(ROOT / script, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith(f"error: {message}") and done.stderr.count("\n") == 1, (
        done.stderr[-2000:]
    )


def test_an_unknown_option_of_a_benchmark_still_shows_the_usage(tmp_path):
    done = run(ROOT / "benchmarks" / "uct.py", "--frob", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: uct.py ") and "unrecognized arguments: --frob" in (
        done.stderr
    )


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("connect4_pons.py", ["--clock", "sundial"], "--clock: expected wall or cpu"),
        ("connect4_pons.py", ["--sets", "end-easy", "x"], "--sets: expected beginning-easy, "),
        ("connect4_positions.py", ["--model", "x", "--search", "mcts"], "--search: expected"),
        ("connect4_positions.py", ["--model", "x", "--precision", "16"], "--precision: "),
        ("connect4_positions.py", ["--model", "x", "--engine", "onnx"], "--engine: expected"),
        ("play_speed.py", ["--engine", "onnx"], "--engine: expected auto, tensorflow or "),
        ("search_python.py", ["--only", "mcts"], "--only: expected gumbel or puct"),
        ("selfplay.py", ["--algorithm", "mcts"], "--algorithm: expected gumbel or puct"),
        ("selfplay.py", ["--precision", "16"], "--precision: expected auto, float32 or"),
        ("selfplay_cost.py", ["--only", "all"], "--only: expected selfplay, training, "),
        ("strength.py", ["--search", "mcts"], "--search: expected puct or gumbel"),
        ("../experiments/tictactoe_robustness.py", ["--precisions", "float32", "float16"],
         "--precisions: expected auto, float32 or bfloat16, got 'float16'"),
    ],
)  # fmt: skip
def test_a_bad_choice_is_one_line_naming_the_option_and_its_choices(
    tmp_path, script, args, message
):
    done = run(ROOT / "benchmarks" / script, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith(f"error: {message}") and done.stderr.count("\n") == 1, (
        done.stderr[-2000:]
    )


POSITIONS = str(ROOT / "alphazero" / "data" / "connect4_positions.tsv")


@pytest.mark.parametrize(
    ("script", "args", "reason"),
    [
        ("experiments/connect4_opening_errors.py", ["--model", "gone", "--positions", "gone.tsv"],
         "error: gone.tsv: No such file"),
        ("experiments/connect4_opening_errors.py", ["--model", "gone", "--positions", POSITIONS],
         "error: gone: no such model file or run folder"),
        ("experiments/connect4_fresh_positions.py", ["--out", "x.tsv", "--exclude", "gone.tsv"],
         "error: --exclude: gone.tsv: No such file"),
        ("experiments/policy_head_probe.py", ["gone.npz"],
         "error: gone.npz: no such replay buffer file"),
        ("experiments/tictactoe_robustness.py", ["--config", "gone.yaml"],
         "error: gone.yaml: no such config file"),
        ("benchmarks/evaluation_cache.py", ["--model", "gone.keras"],
         "error: gone.keras: no such model file or run folder"),
        ("benchmarks/play_speed.py", ["--model", "gone.keras"],
         "error: gone.keras: no such model file or run folder"),
    ],
)  # fmt: skip
def test_a_missing_model_or_data_file_is_a_one_line_error(tmp_path, script, args, reason):
    done = run(ROOT / script, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1].startswith(reason), done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def fake_run(folder: Path, cpu_per_iteration: float, shares: list[float]) -> Path:
    """A run folder whose iterations each cost ``cpu_per_iteration`` seconds and scored
    ``shares`` on the solved positions (raw policy; the value head 0.1 lower)."""
    folder.mkdir()
    (folder / "config.yaml").write_text("game:\n  name: connect4\n")
    lines = []
    for i, share in enumerate(shares, start=1):
        record = {
            "iteration": i,
            "games": 128 * i,
            "selfplay": {"cpu_seconds": cpu_per_iteration / 2},
            "train_cpu_seconds": cpu_per_iteration / 2,
            "connect4_positions": {"policy_correct": share, "value_result": share - 0.1},
        }
        lines.append(json.dumps(record))
    (folder / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_compare_runs_budget_table_averages_the_last_iterations_within_each_budget(tmp_path):
    # 0.25 CPU-h per iteration: by 1 CPU-h, iterations 2-4 (0.5, 0.6, 0.7) count, not 5.
    cheap = fake_run(tmp_path / "cheap", 900, [0.3, 0.5, 0.6, 0.7, 0.9])
    # 0.5 CPU-h per iteration: by 1 CPU-h only iterations 1-2; 2 CPU-h is beyond the run.
    dear = fake_run(tmp_path / "dear", 1800, [0.2, 0.4, 0.8])
    done = run(ROOT / "experiments" / "compare_runs.py", str(cheap), str(dear),
               "--games", "0", "--budgets", "1", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    one, two = done.stdout.splitlines()[-2:]
    assert one.split() == ["1.00", "60.0%", "/", "50.0%", "(", "4)", "30.0%", "/", "20.0%", "(",
                           "2)"]  # fmt: skip
    assert "not yet (1.25 CPU-h)" in two and "not yet (1.50 CPU-h)" in two
    by_games = run(ROOT / "experiments" / "compare_runs.py", str(cheap), str(dear), "--games",
                   "0", "--budgets", "256", "--by-games", "--last", "1")  # fmt: skip
    assert by_games.returncode == 0, by_games.stderr[-2000:]
    # 128 games an iteration in both: iteration 2 of each, alone.
    row = by_games.stdout.splitlines()[-1].split()
    assert row == ["256", "50.0%", "/", "40.0%", "(", "2)", "40.0%", "/", "30.0%", "(", "2)"]


def test_selfplay_cost_splits_a_runs_cpu_between_selfplay_and_training(tmp_path):
    run_folder = tmp_path / "run"
    run_folder.mkdir()
    (run_folder / "config.yaml").write_text(
        "game:\n  name: tictactoe\ntrain:\n  steps_per_iteration: 10\n"
    )
    # Each iteration: 60 CPU-s of self-play (120 moves), 30 of training, 10 of the rest.
    lines = [
        json.dumps({"iteration": i, "cpu_seconds": 100.0 * i, "train_cpu_seconds": 30.0,
                    "selfplay": {"cpu_seconds": 60.0, "moves": 120}, "train": {"loss": 1.0}})
        for i in (1, 2)
    ]  # fmt: skip
    (run_folder / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    done = run(ROOT / "benchmarks" / "selfplay_cost.py", "--only", "metrics", "--metrics",
               str(run_folder))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    row = done.stdout.splitlines()[-1].split()
    assert row[1:] == ["2", "0.06", "60.0%", "30.0%", "10.0%", "3.00", "2.0"]


def test_selfplay_cost_accounts_for_all_of_a_rounds_cpu_by_part():
    done = run(ROOT / "benchmarks" / "selfplay_cost.py", str(ROOT / "configs" / "tictactoe.yaml"),
               "--only", "selfplay", "--rounds", "1", "--cpu-seconds", "0.5")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split("CPU share by part:")[1].splitlines()[1:]
    shares = {line[:32].strip(): float(line[32:].strip().rstrip("%")) for line in lines}
    instrumentation = shares.pop("instrumentation (in the above)")
    # The last part is what no timer counted: below 0, a call inside another counted twice.
    assert min(shares.values()) >= 0 and sum(shares.values()) == pytest.approx(100, abs=0.6)
    assert shares["(a) network forward pass"] > 0 and shares["(b) tree walk (search/)"] > 0
    assert 0 <= instrumentation < 50
    assert float(done.stdout.split("moves per CPU-second")[1].split()[0]) > 0


def test_every_command_line_option_says_what_it_does_in_help():
    """``--help`` explains every option of every script: an ``add_argument`` without ``help=``
    shows only its name."""
    import ast

    scripts = [*ROOT.glob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    scripts += [*(ROOT / "experiments").glob("*.py"), *(ROOT / "alphazero").rglob("*.py")]
    silent = []
    for path in scripts:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
                and not any(keyword.arg == "help" for keyword in node.keywords)
            ):
                silent.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(scripts) > 20 and not silent, silent


def test_two_models_readings_are_told_apart_where_they_differ(tmp_path):
    """``compare_opening_errors.py``: counts over the openings both files read, and the exact
    sign test the research record's tables give (9 against 17 where they differ: p 0.17)."""

    def reading(moves: str, result: int, move: int) -> dict:
        return {
            "moves": moves,
            "result": result,
            "correct": [3],
            "searches": {"800": {"move": move}},
        }

    first = [reading(f"d{i}", 0, 0 if i < 27 else 3) for i in range(60)]  # errs on 27
    second = [reading(f"d{i}", 0, 0 if 9 <= i < 44 else 3) for i in range(60)]  # on 35
    first += [reading("w", 1, 3), reading("only-in-first", 1, 0)]
    second += [reading("w", 1, 0)]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(first))
    b.write_text(json.dumps(second))
    done = run(EXPERIMENTS / "compare_opening_errors.py", str(a), str(b))
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert "| a / b | 800 | 60 drawn openings lost | 27 / 35 | 9 | 17 | 18 | 0.17 |" in rows
    assert "| a / b | 800 | 1 won openings not kept | 0 / 1 | 0 | 1 | 0 | 1.00 |" in rows
    done = run(EXPERIMENTS / "compare_opening_errors.py", str(a))
    assert done.returncode == 2 and "give at least two files" in done.stderr
