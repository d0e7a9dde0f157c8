"""Fresh solved Connect Four positions, drawn like the committed file's but none of them in it.

``alphazero/data/connect4_positions.tsv`` (1,002 positions) is the yardstick of every Connect
Four run, so a recipe could come to fit it without playing better. This draws another set
the same way its README describes (semi-random games, half random moves and half good ones,
as many positions of each length 4-30 as the file has; none won at once by the mover), drops
any position the file holds (as played or mirrored), and solves every move with
``experiments/connect4_solver.c``, a perfect solver built here with the C compiler. The
scores are signs (1 win, 0 draw, -1 loss for the mover), enough for the correct-move share;
the exact-score columns of the benchmark mean nothing on this file. Run:

    python experiments/connect4_fresh_positions.py --out experiments/data/connect4_fresh.tsv
    python benchmarks/connect4_positions.py --model checkpoints/pretrained/connect4 \\
        --positions experiments/data/connect4_fresh.tsv --sims 800

The good moves are plain UCT's (``uct:300``), not a network's, so the set leans toward no
model. Positions of 4-6 moves take the solver some CPU-seconds each; the whole set about
15 CPU-minutes, most of it on those.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from tqdm import tqdm

from alphazero.baselines.uct import UCTPlayer
from alphazero.games import Connect4, make
from alphazero.games.base import Game
from alphazero.solved_positions import load_positions

SOLVER = Path(__file__).with_name("connect4_solver.c")


def build_solver(folder: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("connect4_fresh_positions: no C compiler (cc or gcc) to build the solver")
    binary = folder / "connect4_solver"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(SOLVER)], check=True)
    return binary


def wins_at_once(game: Game) -> bool:
    return any(game.sim_move(a).score not in (None, 0) for a in game.available_moves)


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
    if game.score is not None or wins_at_once(game):
        return None
    return moves


def board_keys(moves: list[int]) -> set[tuple[int, ...]]:
    """The position after ``moves`` and its mirror image, as game keys."""
    mirrored = [Connect4().cols - 1 - m for m in moves]
    return {Connect4.from_moves(moves).key(), Connect4.from_moves(mirrored).key()}


def solve(binary: Path, lines: list[str], jobs: int) -> list[str]:
    """Solved TSV lines for ``lines`` of 1-based moves, ``jobs`` solver processes at once."""
    shares = [lines[i::jobs] for i in range(jobs)]
    solvers = [
        subprocess.Popen(
            [str(binary), "--weak"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in shares
    ]
    for solver, share in zip(solvers, shares, strict=True):
        assert solver.stdin is not None
        solver.stdin.write("".join(f"{line}\n" for line in share))
        solver.stdin.close()
    solved: dict[str, str] = {}
    with tqdm(total=len(lines), desc="solving", unit="position") as bar:
        for solver in solvers:  # each answers in order; the bar moves as lines arrive
            assert solver.stdout is not None
            for answer in solver.stdout:
                solved[answer.split("\t")[0]] = answer.rstrip("\n")
                bar.update()
            if solver.wait() != 0:
                raise SystemExit(
                    f"connect4_fresh_positions: the solver failed ({solver.returncode})"
                )
    return [solved[line] for line in lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="TSV to write (the file's format)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    parser.add_argument(
        "--good-simulations", type=int, default=300, help="UCT simulations of a good move"
    )
    parser.add_argument("--jobs", type=int, default=2, help="solver processes at once (default 2)")
    args = parser.parse_args()

    committed = load_positions()
    wanted = collections.Counter(len(p.moves) for p in committed)
    seen: set[tuple[int, ...]] = set()
    for position in committed:
        seen |= board_keys(list(position.moves))

    rng = np.random.default_rng(args.seed)
    good = UCTPlayer(simulations=args.good_simulations, seed=args.seed)
    fresh: list[str] = []
    with tqdm(total=sum(wanted.values()), desc="games", unit="position") as bar:
        for length in sorted(wanted):
            found = 0
            while found < wanted[length]:
                moves = semi_random_game(length, rng, good)
                if moves is None or board_keys(moves) & seen:
                    continue
                seen |= board_keys(moves)
                fresh.append("".join(str(m + 1) for m in moves))
                found += 1
                bar.update()

    with tempfile.TemporaryDirectory() as folder:
        solved = solve(build_solver(Path(folder)), fresh, max(1, args.jobs))
    bad = [line for line in solved if "invalid" in line]
    if bad:
        raise SystemExit(f"connect4_fresh_positions: the solver refused {bad[0]!r}")
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
