"""Fresh solved Connect Four positions, drawn like the committed file's but none of them in it.

``alphazero/data/connect4_positions.tsv`` (1,002 positions) is the yardstick of every Connect
Four run, so a recipe could come to fit it without playing better. This draws another set
after the file's README (semi-random games, half random moves and half good ones; none won at
once by the mover) and matches two things it can count: as many positions of each length
4-30 as the file has, and of those as many where the mover must block a threat to win at
once. It drops any position the file holds (as played or mirrored) and solves every move with
``experiments/connect4_solver.c``, a perfect solver built here with the C compiler. The
scores are signs (1 win, 0 draw, -1 loss for the mover), enough for the correct-move share.
Run:

    python experiments/connect4_fresh_positions.py --out experiments/data/connect4_fresh.tsv
    python experiments/connect4_fresh_positions.py --seed 2 \\
        --out experiments/data/connect4_fresh_seed2.tsv   # a second set, drawn later
    python benchmarks/connect4_positions.py --model checkpoints/pretrained/connect4 \\
        --positions experiments/data/connect4_fresh.tsv --sims 800

``--lengths 4-12 --scale 3`` draws only openings, three times as many of each length as the
file has; ``--exclude FILE...`` also leaves out the positions of other sets, so that a set
used to choose between recipes (a development set) shares none with the sets that report.

The good moves are plain UCT's (``uct:300``), not a network's, so the set leans toward no
model; the file's good moves may have been a solver's, so the sets can still differ in what
the lengths and threats do not capture (the draws, for one). The whole run takes a few
minutes on 2 cores, most of it in the solver on positions of 4-6 moves.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

from alphazero.baselines.uct import UCTPlayer
from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.solved_positions import SolvedPositionsError, load_positions
from alphazero.games import Connect4, make

SOLVER = Path(__file__).with_name("connect4_solver.c")


def build_solver(folder: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("connect4_fresh_positions: no C compiler (cc or gcc) to build the solver")
    binary = folder / "connect4_solver"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(SOLVER)], check=True)
    return binary


def notation(moves: list[int] | tuple[int, ...]) -> str:
    """Actions (0-based columns) as the file writes them: 1-based columns, ``"4453"``."""
    return "".join(str(m + 1) for m in moves)


def semi_random_game(length: int, rng: np.random.Generator, good: UCTPlayer) -> list[int] | None:
    """Columns (0-based) of a game ``length`` moves long, each move random or ``good``'s with
    even odds; None if the game ends before, or its last position is won at once."""
    game = make("connect4")
    moves: list[int] = []
    for _ in range(length):
        if game.score is not None:
            return None
        legal = game.available_moves
        move = int(rng.choice(legal)) if rng.random() < 0.5 else good(game)
        moves.append(move)
        game = game.sim_move(move)
    # ending_moves: the mover's wins at once (a last-cell draw needs 41 stones, not <= 30).
    if game.score is not None or game.ending_moves():
        return None
    return moves


def board_keys(moves: list[int]) -> set[tuple[int, ...]]:
    """The position after ``moves`` and its mirror image, as game keys."""
    mirrored = [Connect4().cols - 1 - m for m in moves]
    return {Connect4.from_moves(moves).key(), Connect4.from_moves(mirrored).key()}


def run_solver(binary: Path, lines: list[str], flag: str, jobs: int) -> list[str]:
    """The solver's answers to ``lines`` of 1-based moves, in order: ``jobs`` processes on
    interleaved shares, each reading and writing a file (pipes could fill and stall)."""
    shares = [lines[i::jobs] for i in range(jobs)]
    with tempfile.TemporaryDirectory() as folder:
        running = []
        for i, share in enumerate(shares):
            given, answers = Path(folder) / f"in{i}", Path(folder) / f"out{i}"
            given.write_text("".join(f"{line}\n" for line in share))
            with given.open() as stdin, answers.open("w") as stdout:
                running.append(
                    (subprocess.Popen([str(binary), flag], stdin=stdin, stdout=stdout), answers)
                )
        if flag == "--weak":  # a bar where it takes a while: solving, not finding threats
            with tqdm(total=len(lines), desc="solving", unit="position") as bar:
                while any(process.poll() is None for process, _ in running):
                    time.sleep(0.5)
                    bar.n = sum(answers.read_text().count("\n") for _, answers in running)
                    bar.refresh()
                bar.n = len(lines)
        for process, _ in running:
            if process.wait() != 0:
                raise SystemExit(
                    f"connect4_fresh_positions: the solver failed ({process.returncode})"
                )
        outputs = [answers.read_text().splitlines() for _, answers in running]
    merged = [""] * len(lines)
    for i, output in enumerate(outputs):
        merged[i::jobs] = output
    refused = [line for line in merged if line.endswith("\tinvalid")]
    if refused or any(not line for line in merged):
        raise SystemExit(f"connect4_fresh_positions: the solver refused {refused[:1]}")
    return merged


def must_block(binary: Path, lines: list[str]) -> list[bool]:
    """Whether the opponent threatens to win at once in each position (the mover must block)."""
    return [line.split("\t")[2] == "1" for line in run_solver(binary, lines, "--threats", 1)]


def draw_positions(
    binary: Path,
    seed: int,
    good_simulations: int,
    lengths: tuple[int, int] = (0, 42),
    scale: int = 1,
    exclude: Sequence[Path] = (),
) -> list[str]:
    """Positions (1-based moves) as many of each length within ``lengths`` (times ``scale``),
    and of those as many where the mover must block a threat, as the committed file has; none
    of the file's or of the files ``exclude``, played or mirrored."""
    committed = load_positions()
    lines = [notation(p.moves) for p in committed if lengths[0] <= len(p.moves) <= lengths[1]]
    wanted = collections.Counter(
        (len(line), block) for line, block in zip(lines, must_block(binary, lines), strict=True)
    )
    wanted = collections.Counter({key: scale * count for key, count in wanted.items()})
    seen: set[tuple[int, ...]] = set()
    for position in [*committed, *(p for path in exclude for p in load_positions(path))]:
        seen |= board_keys(list(position.moves))
    rng = np.random.default_rng(seed)
    good = UCTPlayer(simulations=good_simulations, seed=seed)
    fresh: list[str] = []
    with tqdm(total=sum(wanted.values()), desc="games", unit="position") as bar:
        for length in sorted({length for length, _ in wanted}):
            missing = {block: wanted[length, block] for block in (False, True)}
            while any(missing.values()):
                candidates: list[str] = []
                while len(candidates) < 2 * sum(missing.values()):
                    moves = semi_random_game(length, rng, good)
                    if moves is None:
                        continue
                    keys = board_keys(moves)
                    if not keys & seen:
                        seen |= keys
                        candidates.append(notation(moves))
                for line, block in zip(candidates, must_block(binary, candidates), strict=True):
                    if missing[block]:
                        missing[block] -= 1
                        fresh.append(line)
                        bar.update()
    return fresh


def lengths_range(text: str) -> tuple[int, int]:
    """``"4-12"`` as ``(4, 12)``."""
    low, _, high = text.partition("-")
    try:
        bounds = int(low), int(high)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW-HIGH such as 4-12, got {text!r}") from None
    if not 0 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"expected 0 <= LOW <= HIGH, got {text!r}")
    return bounds


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="TSV to write (the file's format)")
    parser.add_argument(
        "--seed", type=non_negative_integer, default=1, help="seed of the games (default 1)"
    )
    parser.add_argument(
        "--good-simulations", type=int, default=300, help="UCT simulations of a good move"
    )
    parser.add_argument("--jobs", type=int, default=2, help="solver processes at once (default 2)")
    parser.add_argument(
        "--lengths",
        type=lengths_range,
        default=(0, 42),
        metavar="LOW-HIGH",
        help="only positions with LOW to HIGH moves played, e.g. 4-12 (default: all)",
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=1,
        help="draw this many times as many positions of each kind as the file has (default 1)",
    )
    parser.add_argument(
        "--exclude",
        type=Path,
        nargs="*",
        default=[],
        metavar="FILE",
        help="solved-position files whose positions (or their mirror images) to leave out",
    )
    args = parser.parse_args()
    for option, value in (
        ("--good-simulations", args.good_simulations),
        ("--jobs", args.jobs),
        ("--scale", args.scale),
    ):
        if value < 1:
            parser.error(f"{option} must be at least 1, got {value}")
    for path in args.exclude:  # read now, not after the solver is built and has run
        try:
            load_positions(path)
        except SolvedPositionsError as error:
            parser.error(f"--exclude: {error}")

    with tempfile.TemporaryDirectory() as folder:
        binary = build_solver(Path(folder))
        fresh = draw_positions(
            binary, args.seed, args.good_simulations, args.lengths, args.scale, args.exclude
        )
        solved = run_solver(binary, fresh, "--weak", args.jobs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(f"{line}\n" for line in solved))
    scores = [int(line.split("\t")[1]) for line in solved]
    print(
        f"wrote {len(solved)} positions to {args.out}: "
        f"{scores.count(1)} won, {scores.count(0)} drawn, {scores.count(-1)} lost for the mover"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
