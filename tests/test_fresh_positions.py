"""The fresh solved positions of ``experiments/connect4_fresh_positions.py``: its C solver agrees
with the committed file's perfect solver, and the fresh set holds none of the file's positions."""

from __future__ import annotations

import collections
import shutil
import subprocess
from pathlib import Path

import pytest
from connect4_fresh_positions import board_keys, build_solver, must_block  # experiments/

from alphazero.evaluation.solved_positions import SolvedPositionsError, load_positions

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def solver(tmp_path_factory) -> Path:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    return build_solver(tmp_path_factory.mktemp("solver"))


def committed_lines(low: int, high: int, count: int) -> list[str]:
    text = (ROOT / "alphazero/data/connect4_positions.tsv").read_text().splitlines()
    return [line for line in text if low <= len(line.split("\t")[0]) <= high][:count]


def run(solver: Path, moves: list[str], *flags: str) -> list[str]:
    done = subprocess.run(
        [str(solver), *flags], input="".join(f"{m}\n" for m in moves), capture_output=True,
        text=True, check=True, timeout=120,
    )  # fmt: skip
    return done.stdout.splitlines()


def test_solver_gives_every_move_the_committed_files_exact_score(solver):
    # Late positions solve in microseconds, ones of 13-16 moves in about 0.1 s each.
    expected = committed_lines(21, 30, 60) + committed_lines(13, 16, 10)
    assert len(expected) == 70
    assert run(solver, [line.split("\t")[0] for line in expected]) == expected


def test_weak_solver_gives_the_sign_of_every_score(solver):
    expected = committed_lines(21, 30, 30)
    got = run(solver, [line.split("\t")[0] for line in expected], "--weak")
    sign = lambda v: v if v == "x" else str((int(v) > 0) - (int(v) < 0))  # noqa: E731
    for want, line in zip(expected, got, strict=True):
        moves, score, scores = want.split("\t")
        assert line == "\t".join([moves, sign(score), " ".join(map(sign, scores.split()))])


def test_solver_refuses_a_full_column_and_a_finished_game(solver):
    assert run(solver, ["1111111", "1212121"]) == ["1111111\tinvalid", "1212121\tinvalid"]


def test_a_position_and_its_mirror_image_share_a_key():
    assert board_keys([3, 0, 1]) == board_keys([3, 6, 5])
    assert board_keys([3, 0, 1]) != board_keys([3, 0, 2])


# The sets of seeds 1 and 2: the second was drawn after the first had been looked at, so
# that a choice made on one can be checked on positions nobody has seen.
FRESH = [
    ROOT / "experiments/data/connect4_fresh.tsv",
    ROOT / "experiments/data/connect4_fresh_seed2.tsv",
]


@pytest.mark.parametrize("fresh", FRESH, ids=lambda path: path.stem)
def test_the_fresh_set_holds_none_of_the_committed_positions(fresh):
    committed = set().union(*(board_keys(list(p.moves)) for p in load_positions()))
    drawn = load_positions(fresh)
    assert len(drawn) == 1002
    assert not any(board_keys(list(p.moves)) & committed for p in drawn)


def test_the_two_fresh_sets_share_no_position():
    first, second = (load_positions(path) for path in FRESH)
    seen = set().union(*(board_keys(list(p.moves)) for p in first))
    assert not any(board_keys(list(p.moves)) & seen for p in second)


@pytest.mark.parametrize("fresh", FRESH, ids=lambda path: path.stem)
def test_the_fresh_set_has_the_files_lengths_and_threats_to_block(solver, fresh):
    def mix(lines: list[str]) -> collections.Counter[tuple[int, bool]]:
        moves = [line.split("\t")[0] for line in lines]
        return collections.Counter(zip(map(len, moves), must_block(solver, moves), strict=True))

    committed = (ROOT / "alphazero/data/connect4_positions.tsv").read_text().splitlines()
    assert mix(fresh.read_text().splitlines()) == mix(committed)


def test_a_positions_file_not_in_the_format_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("4453\t0\t-1 0 0 0 0 0 -1\n44\t0\t0 0 0 0 0 0 0\n")
    with pytest.raises(SolvedPositionsError, match="line 2"):
        load_positions(bad)
    bad.write_text("4453\t1\t-1 0 0 0 0 0 -1\n")
    with pytest.raises(SolvedPositionsError, match="best of 7"):
        load_positions(bad)
    with pytest.raises(SolvedPositionsError, match=r"missing\.tsv"):
        load_positions(tmp_path / "missing.tsv")
