"""Pascal Pons' benchmark sets: the mistake rule, the files, the per-move results the project's
solver wrote for them (``experiments/connect4_pons_solve.py``), and the benchmark's table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from connect4_fresh_positions import build_solver  # experiments/
from connect4_pons_solve import FOLDER, solve_set  # experiments/

from alphazero.evaluation.players import RandomPlayer
from alphazero.evaluation.pons_positions import (
    SETS,
    PonsPosition,
    PonsPositionsError,
    load_set,
    read_classes,
    read_set,
    wilson_interval,
)

ROOT = Path(__file__).resolve().parents[1]


def position(classes: str, score: int) -> PonsPosition:
    return PonsPosition(moves=(3, 3), score=score, classes=classes)


def test_in_a_won_position_only_a_move_that_does_not_win_is_a_mistake():
    won = position("WDLNW.W", 5)
    assert [won.is_mistake(a) for a in range(7)] == [False, True, True, True, False, True, False]


def test_in_a_drawn_position_only_a_losing_move_is_a_mistake():
    drawn = position("LDDLD.D", 0)
    assert [drawn.is_mistake(a) for a in range(7)] == [True, False, False, True, False, True, False]


def test_in_a_lost_position_no_move_is_a_mistake():
    lost = position("LLLLLLL", -3)
    assert not any(lost.is_mistake(a) for a in range(7))


def test_a_set_file_reads_as_moves_and_scores(tmp_path):
    (tmp_path / "Test_L3_R1").write_text("4453 2\n1234567 -1\n")
    assert read_set(tmp_path / "Test_L3_R1") == [("4453", 2), ("1234567", -1)]


@pytest.mark.parametrize("line", ["4453", "4483 2", "4453 two", "4453 2 1"])
def test_a_bad_set_line_is_named_by_its_number(tmp_path, line):
    (tmp_path / "Test_L3_R1").write_text(f"44 0\n{line}\n")
    with pytest.raises(PonsPositionsError, match="Test_L3_R1, line 2"):
        read_set(tmp_path / "Test_L3_R1")


@pytest.mark.parametrize("line", ["4453\tWDL", "4453 WDLWDLW", "4453\tWDLXWDL", "4453\t......."])
def test_a_bad_classes_line_is_named_by_its_number(tmp_path, line):
    (tmp_path / "x.classes").write_text(f"44\tDDDDDDD\n{line}\n")
    with pytest.raises(PonsPositionsError, match="line 2"):
        read_classes(tmp_path / "x.classes")


def test_a_set_loads_its_solved_positions_in_its_order(tmp_path):
    (tmp_path / "Test_L3_R1").write_text("4453 2\n44 0\n11 -1\n")
    (tmp_path / "Test_L3_R1.classes").write_text("11\tLLLLLLL\n4453\tNWNNNNN\n")
    positions, total = load_set(tmp_path, "Test_L3_R1")
    assert total == 3
    assert [(p.moves, p.score, p.classes) for p in positions] == [
        ((3, 3, 4, 2), 2, "NWNNNNN"),
        ((0, 0), -1, "LLLLLLL"),
    ]


def test_a_best_move_that_disagrees_with_the_sets_score_is_refused(tmp_path):
    (tmp_path / "Test_L3_R1").write_text("4453 2\n")
    (tmp_path / "Test_L3_R1.classes").write_text("4453\tDDDDDDD\n")
    with pytest.raises(PonsPositionsError, match="4453 scores 2"):
        load_set(tmp_path, "Test_L3_R1")


def test_the_wilson_interval_holds_the_share_and_stays_in_bounds():
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    low, high = wilson_interval(0, 1000)
    assert low == 0.0 and high == pytest.approx(0.00383, abs=1e-5)


@pytest.fixture(scope="module")
def solver(tmp_path_factory) -> Path:
    if not any(Path(d, "cc").exists() or Path(d, "gcc").exists() for d in ("/usr/bin", "/bin")):
        pytest.skip("no C compiler to build the solver")
    return build_solver(tmp_path_factory.mktemp("solver"))


def solve(solver: Path, moves: list[str], flag: str) -> list[str]:
    given = "".join(f"{m}\n" for m in moves)
    done = subprocess.run([str(solver), flag], input=given, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def committed_lines(name: str, count: int) -> list[str]:
    """The first ``count`` lines of a set's committed per-move results."""
    lines = (FOLDER / f"{name}.classes").read_text().splitlines()
    if len(lines) < count:
        pytest.skip(f"{name} has only {len(lines)} positions solved")
    return lines[:count]


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2"])
def test_the_committed_results_are_the_solvers(solver, name):
    expected = committed_lines(name, 10)
    got = solve(solver, [line.split("\t")[0] for line in expected], "--classes")
    # The files of these sets were written before N: there a D or an L is a move that does
    # not keep a win, which the solver now writes as N.
    assert [g.split("\t")[1] for g in got] == [
        "".join("N" if c in "DL" and "W" in e else c for c in e.split("\t")[1]) for e in expected
    ]


def test_move_classes_agree_with_the_weak_solvers_move_signs(solver):
    moves = [moves for moves, _ in read_set(FOLDER / "Test_L3_R1")[:40]]
    classes = [line.split("\t")[1] for line in solve(solver, moves, "--classes")]
    for line, result in zip(solve(solver, moves, "--weak"), classes, strict=True):
        _, best, signs = line.split("\t")
        for sign, c in zip(signs.split(), result, strict=True):
            wanted = {"x": ".", "1": "W", "0": "D", "-1": "L"}[sign]
            assert c == wanted or (c == "N" and best == "1" and wanted in "DL"), line


def test_solving_a_set_appends_what_is_missing_and_checks_the_score(solver, tmp_path):
    entries = read_set(FOLDER / "Test_L3_R1")[:4]
    (tmp_path / "Test_L3_R1").write_text("".join(f"{m} {s}\n" for m, s in entries))
    first = solve(solver, [entries[0][0]], "--classes")[0]
    (tmp_path / "Test_L3_R1.classes").write_text(f"{first}\n")
    solve_set(solver, tmp_path, "Test_L3_R1", jobs=2)
    positions, _ = load_set(tmp_path, "Test_L3_R1")
    assert [p.score for p in positions] == [s for _, s in entries]
    written = [
        line.split("\t")[0] for line in (tmp_path / "Test_L3_R1.classes").read_text().splitlines()
    ]
    assert written == [m for m, _ in entries]  # in the set's order, whichever job was first
    solve_set(solver, tmp_path, "Test_L3_R1")  # nothing left: nothing written twice
    assert len(read_classes(tmp_path / "Test_L3_R1.classes")) == 4

    moves, score = entries[1]
    wrong = 0 if score else 1
    (tmp_path / "Test_L2_R1").write_text(f"{moves} {wrong}\n")
    with pytest.raises(SystemExit, match="the set's score is"):
        solve_set(solver, tmp_path, "Test_L2_R1")


def run_benchmark(*args: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "benchmarks" / "connect4_pons.py"
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=300
    )


def test_the_benchmark_tables_a_players_mistakes_on_each_set(tmp_path):
    entries = read_set(FOLDER / "Test_L3_R1")[:30]
    (tmp_path / "Test_L3_R1").write_text("".join(f"{m} {s}\n" for m, s in entries))
    (tmp_path / "Test_L3_R1.classes").write_text(
        "".join(line + "\n" for line in committed_lines("Test_L3_R1", 20))
    )
    done = run_benchmark("--player", "random", "--sets", "end-easy", "--folder", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    # The same random moves, position by position in the set's order, by the rule.
    positions, _ = load_set(tmp_path, "Test_L3_R1")
    player = RandomPlayer(0)
    mistakes = sum(p.is_mistake(player(p.game)) for p in positions)
    assert 0 < mistakes < 20  # the set is one a random player sometimes gets right
    low, high = wilson_interval(mistakes, 20)
    rows = [line for line in done.stdout.splitlines() if line.startswith("| end-easy")]
    assert len(rows) == 1 and rows[0].startswith(
        f"| end-easy | - | 20 of 30 | {mistakes} | {mistakes / 20:.1%} | {low:.1%}-{high:.1%} | - |"
    )
    assert float(rows[0].split("|")[-2]) >= 0  # the CPU seconds a move
    player = RandomPlayer(0)
    wrong = {1: 0, 0: 0}
    for p in positions:
        wrong[p.best] = wrong.get(p.best, 0) + p.is_mistake(player(p.game))
    count = {b: sum(p.best == b for p in positions) for b in (1, 0)}
    assert f"end-easy won {wrong[1]} of {count[1]}, drawn {wrong[0]} of {count[0]}" in done.stdout


def test_the_benchmark_names_a_missing_set_in_one_line(tmp_path):
    done = run_benchmark("--player", "random", "--folder", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1


def test_every_set_is_committed_whole():
    for name, _ in SETS:
        assert len(read_set(FOLDER / name)) == 1000


def small_set(folder: Path, count: int, solved: int) -> None:
    """The first ``count`` end-easy positions, the first ``solved`` of them solved."""
    entries = read_set(FOLDER / "Test_L3_R1")[:count]
    (folder / "Test_L3_R1").write_text("".join(f"{m} {s}\n" for m, s in entries))
    (folder / "Test_L3_R1.classes").write_text(
        "".join(line + "\n" for line in committed_lines("Test_L3_R1", solved))
    )


def test_the_benchmark_resumes_from_its_results_file_scoring_only_what_it_lacks(tmp_path):
    small_set(tmp_path, 12, 12)
    results = tmp_path / "pons.jsonl"
    common = ["--sets", "end-easy", "--folder", str(tmp_path), "--results", str(results)]
    first = run_benchmark("--player", "random", "uct:20", *common, "--limit", "5")
    assert first.returncode == 0, first.stderr[-2000:]
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 10 and {r["spec"] for r in records} == {"random", "uct:20"}
    # A run stopped mid-write leaves its last line cut short: that position is scored again.
    results.write_text(results.read_text() + '{"spec": "random", "se')
    second = run_benchmark("--player", "random", "uct:20", *common)
    assert second.returncode == 0, second.stderr[-2000:]
    lines = results.read_text().splitlines()
    added = [json.loads(line) for line in lines[10:]]
    assert len(lines) == 10 + 14 and {r["spec"] for r in added} == {"random", "uct:20"}
    assert all(r["moves"] not in {f["moves"] for f in records} for r in added)
    rows = [line for line in second.stdout.splitlines() if line.startswith("| end-easy")]
    assert [row.split(" | ")[1:3] for row in rows] == [["-", "12"], ["20", "12"]]
    # The first five positions' moves are the ones the first run wrote, not played again.
    random_moves = [r for r in records if r["spec"] == "random"]
    first_mistakes = sum(r["mistake"] for r in random_moves)
    more = sum(r["mistake"] for r in added if r["spec"] == "random")
    assert f"| end-easy | - | 12 | {first_mistakes + more} |" in second.stdout


def test_the_benchmark_scores_a_model_at_several_budgets_a_row_each(tmp_path):
    small_set(tmp_path, 4, 3)
    model = ROOT / "checkpoints" / "pretrained" / "connect4"
    done = run_benchmark(
        "--model", str(model), "--sims", "4", "8", "--move-time", "0.01", "--sets", "end-easy",
        "--folder", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| end-")]
    assert [(r[1], r[2], r[6]) for r in rows[:2]] == [("4", "3 of 4", "4"), ("8", "3 of 4", "8")]
    assert rows[2][1] == "0.01s" and int(rows[2][6].replace(",", "")) >= 32  # a chunk at least


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--model", "m", "--sims", "1"], "--sims must be at least 2, got 1"),
        (["--model", "m", "--move-time", "0"], "a time budget is from 0.001"),
        (["--player", "random", "--sims", "5"], "--sims, --move-time and --game-time go with"),
        (["--player", "model:m:2s/turn"], "a model's time is seconds a move"),
    ],
)
def test_the_benchmarks_bad_budgets_are_one_line_errors(tmp_path, args, reason):
    small_set(tmp_path, 2, 2)
    done = run_benchmark(*args, "--sets", "end-easy", "--folder", str(tmp_path))
    assert done.returncode == 2 and reason in done.stderr and done.stderr.count("\n") == 1
