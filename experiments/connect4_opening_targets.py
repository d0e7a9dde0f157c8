"""What value targets self-play gave Connect Four openings, against their solved result (issue 60).

``docs/research/connect4_openings.md`` supposes that the shipped model reads drawn openings as
won or lost because self-play taught it so: the first 20 moves are sampled
(``temperature_moves``), half the games start from random moves, so a drawn opening is most
often followed by a decided game, and the value target is half that result and half the
search's value (``value_target_mix: 0.5``). This reads the targets themselves, from a replay
buffer file (the shipped run's last: ``checkpoints/pretrained/connect4/buffer_0150.npz``, all
of which its last training steps sampled), and sets them against the truth:

1. the examples with a given number of stones, merged by position (a position and its mirror
   image are one: ``selfplay.augment`` stores both with the same target), each position's
   target the mean of its examples' (what a squared-error head is pulled to);
2. a random sample of the positions (``--sample``), and the positions with the most examples
   (``--common``: self-play's usual lines, which hold most of the examples), each rebuilt as
   a legal move sequence (checked by replaying it: the encoded planes must equal the
   buffer's) and solved with ``experiments/connect4_solver.c --weak`` (won, drawn or lost
   for the mover);
3. tables by the true result: the targets' mean, their mean size, the shares above 1/3, 1/2
   and 2/3, and the share of the wrong sign; for the sample a target a position, then its
   drawn positions by number of stones; for the usual lines every example's target.

Planes and targets are both the mover's (``Connect4.encode``; ``selfplay.moves.value_targets``
gives ``(1 - mix) * result * player + mix * search value``, the search's value being for the
player to move too). With the mix at 0.5 a drawn game's targets stay within [-1/2, 1/2], so a
target beyond +-1/2 says that its game was decided. Run:

    python experiments/connect4_opening_targets.py --sample 1200 --common 50 --out targets.tsv

The solver takes a second or two a position at 6-12 stones (its ``--weak`` mode solves every move);
its progress is shown.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from connect4_fresh_positions import build_solver, lengths_range, notation, run_solver

from alphazero.games import Connect4
from alphazero.training.replay_buffer import ReplayBuffer, ReplayBufferError

BUFFER = Path("checkpoints/pretrained/connect4/buffer_0150.npz")
RESULTS = ((1, "won"), (0, "drawn"), (-1, "lost"))
"""The mover's true result and its name, in the order the tables give them."""


@dataclass
class Position:
    """One position of the buffer (its mirror image merged in) and the targets it was given."""

    planes: np.ndarray
    """``[6, 7, 3]`` the mover's stones, the opponent's, ones; row 0 on top (one example's)."""
    targets: list[float]
    """The value target of every example of it (either mirror image), for the mover."""
    moves: list[int] | None = None
    """A legal sequence of columns (0-based) reaching ``planes``."""
    result: int | None = None
    """The solver's result for the mover: 1 won, 0 drawn, -1 lost."""

    @property
    def stones(self) -> int:
        return int(self.planes[..., :2].sum())

    @property
    def target(self) -> float:
        return float(np.mean(self.targets))


def buffer_positions(path: Path, stones: tuple[int, int]) -> list[Position]:
    """The buffer's positions with ``stones`` (low, high) stones, each once, in the order they
    first appear (oldest first). ``ReplayBufferError`` if the file cannot be read."""
    buffer = ReplayBuffer.load(path, plane_shape=(6, 7, 3), num_actions=7)
    planes, _, values = buffer.arrays()  # [N, 6, 7, 3] float32, [N, 7], [N]
    counts = planes[..., :2].sum(axis=(1, 2, 3))
    keep = np.flatnonzero((counts >= stones[0]) & (counts <= stones[1]))
    boards = planes[keep].astype(np.uint8)
    positions: dict[bytes, Position] = {}
    for board, value in zip(boards, values[keep], strict=True):
        # A position and its mirror image share a key: the smaller of their stone planes.
        key = min(board[..., :2].tobytes(), board[:, ::-1, :2].tobytes())
        if key in positions:
            positions[key].targets.append(float(value))
        else:
            positions[key] = Position(board, [float(value)])
    return list(positions.values())


def rebuild_moves(planes: np.ndarray) -> list[int] | None:
    """A sequence of columns (0-based) that reaches the position ``planes [rows, cols, >= 2]``
    (the mover's stones, the opponent's; row 0 on top) from the empty board, the colours
    alternating from the first player's; None if there is none (a stone floating, counts that
    no game gives). The mover is the side with as many stones as the other or one fewer.

    Any order that fills each column from the bottom will do: stones are never taken away, so
    a position with no line has passed through none."""
    mine, theirs = planes[..., 0] > 0, planes[..., 1] > 0
    rows, cols = mine.shape
    if (mine & theirs).any() or int(theirs.sum()) - int(mine.sum()) not in (0, 1):
        return None
    first = mine if mine.sum() == theirs.sum() else theirs  # the mover has moved as often
    stacks: list[list[int]] = []  # each column bottom up: 0 the first player's stone, 1 the other
    for c in range(cols):
        cells = [
            (mine[r, c] or theirs[r, c], 0 if first[r, c] else 1) for r in reversed(range(rows))
        ]
        height = sum(filled for filled, _ in cells)
        if not all(filled for filled, _ in cells[:height]):
            return None  # a stone above an empty cell
        stacks.append([colour for _, colour in cells[:height]])
    total = sum(len(stack) for stack in stacks)
    dead_ends: set[tuple[int, ...]] = set()
    moves: list[int] = []

    def extend(heights: tuple[int, ...]) -> bool:
        """Depth first: whether the stones not yet at ``heights`` can follow in turn."""
        if len(moves) == total:
            return True
        if heights in dead_ends:
            return False
        colour = len(moves) % 2
        for c, stack in enumerate(stacks):
            if heights[c] < len(stack) and stack[heights[c]] == colour:
                moves.append(c)
                if extend((*heights[:c], heights[c] + 1, *heights[c + 1 :])):
                    return True
                moves.pop()
        dead_ends.add(heights)
        return False

    return list(moves) if extend((0,) * cols) else None


def replays_to(moves: Sequence[int], planes: np.ndarray) -> bool:
    """Whether ``moves`` are legal, end no game, and reach ``planes`` as ``Connect4`` encodes
    them."""
    game = Connect4()
    for move in moves:
        if game.score is not None or not game.is_legal(move):
            return False
        game = game.sim_move(move)
    return game.score is None and np.array_equal(game.encode(), planes)


def shares(targets: np.ndarray, result: int) -> str:
    """One table row's figures for ``targets`` of positions whose true result is ``result``."""
    size = np.abs(targets)
    wrong = f"{np.mean(np.sign(targets) == -result):.1%}" if result else "-"
    return (
        f"{targets.mean():+.3f} | {size.mean():.3f} | {np.mean(size > 1 / 3):.1%} | "
        f"{np.mean(size > 1 / 2):.1%} | {np.mean(size > 2 / 3):.1%} | {wrong}"
    )


HEADER = "mean target | mean \\|t\\| | \\|t\\| > 1/3 | \\|t\\| > 1/2 | \\|t\\| > 2/3 | wrong sign"


def table(first: str, rows: Sequence[tuple[str, str, np.ndarray, int]]) -> None:
    """A Markdown table: ``first`` the first column's title, a row ``(label, count, targets,
    result)`` each."""
    print(f"| {first} | {HEADER} |")
    print("| --- | ---: " + "| ---: " * 6 + "|")
    for label, count, targets, result in rows:
        print(f"| {label} | {count} | {shares(targets, result)} |")


def report(sample: Sequence[Position], common: Sequence[Position], examples: int) -> None:
    """Print the tables of the solved ``sample`` and ``common`` positions; ``examples``: how
    many the buffer holds in the range of stones."""
    groups = [(r, label, [p for p in sample if p.result == r]) for r, label in RESULTS]
    print(f"\n{len(sample)} positions drawn at random, a target each (its examples' mean):\n")
    table(
        "result | positions",
        [(label, str(len(g)), np.array([p.target for p in g]), r) for r, label, g in groups if g],
    )
    drawn = [p for p in sample if p.result == 0]
    if drawn:
        print("\nthe drawn ones by stones on the board:\n")
        table(
            "stones | positions",
            [
                (str(n), str(len(t)), t, 0)
                for n in sorted({p.stones for p in drawn})
                for t in [np.array([p.target for p in drawn if p.stones == n])]
            ],
        )
    if common:
        held = sum(len(p.targets) for p in common)
        print(
            f"\nthe {len(common)} positions with the most examples ({held} of {examples}, "
            f"{held / examples:.0%}), every example's target:\n"
        )
        rows = []
        for r, label in RESULTS:
            group = [p for p in common if p.result == r]
            if group:
                targets = np.array([t for p in group for t in p.targets])
                rows.append((label, f"{len(group)} | {len(targets)}", targets, r))
        table("result | positions | examples", rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--buffer",
        type=Path,
        default=BUFFER,
        help=f"replay buffer file of a Connect Four run (default {BUFFER})",
    )
    parser.add_argument(
        "--stones",
        type=lengths_range,
        default=(6, 12),
        metavar="LOW-HIGH",
        help="only positions with LOW to HIGH stones on the board (default 6-12)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=400,
        help="how many of those positions (each once, whatever its examples) to solve, drawn "
        "at random (default 400)",
    )
    parser.add_argument(
        "--common",
        type=int,
        default=50,
        help="also solve the positions with the most examples, this many (default 50; 0: none): "
        "self-play's usual lines hold most of the examples, and a random sample of positions "
        "seldom meets them",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="solver processes at once (default 2)")
    parser.add_argument(
        "--out",
        type=Path,
        help="also write a TSV, a row a position solved: moves (1-based columns), stones, "
        "examples, target (their mean), result for the mover (1, 0, -1), sampled (1 if drawn "
        "at random), common (1 if among the --common)",
    )
    args = parser.parse_args()
    if args.sample < 0 or args.common < 0 or args.sample + args.common == 0:
        parser.error("--sample and --common must be at least 0, and one of them positive")
    try:
        every = buffer_positions(args.buffer, args.stones)
    except ReplayBufferError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    low, high = args.stones
    if not every:
        print(f"error: {args.buffer}: no position with {low}-{high} stones", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    picked = rng.choice(len(every), min(args.sample, len(every)), replace=False)
    sample = [every[i] for i in sorted(picked)]
    common = sorted(every, key=lambda p: len(p.targets), reverse=True)[: args.common]
    solving = list({id(p): p for p in [*sample, *common]}.values())
    examples = sum(len(p.targets) for p in every)
    print(
        f"{args.buffer}: {examples} examples with {low}-{high} stones, {len(every)} positions "
        f"(mirror images merged); solving {len(solving)} of them"
    )
    for position in solving:
        position.moves = rebuild_moves(position.planes)
        if position.moves is None or not replays_to(position.moves, position.planes):
            print(f"error: no legal game reaches a position of {args.buffer}", file=sys.stderr)
            return 1
    lines = [notation(p.moves) for p in solving if p.moves is not None]
    with tempfile.TemporaryDirectory() as folder:
        solved = run_solver(build_solver(Path(folder)), lines, "--weak", max(1, args.jobs))
    for position, line in zip(solving, solved, strict=True):
        position.result = int(line.split("\t")[1])
    report(sample, common, examples)
    if args.out is not None:
        in_sample, in_common = {id(p) for p in sample}, {id(p) for p in common}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            "moves\tstones\texamples\ttarget\tresult\tsampled\tcommon\n"
            + "".join(
                f"{line}\t{p.stones}\t{len(p.targets)}\t{p.target:+.4f}\t{p.result}\t"
                f"{int(id(p) in in_sample)}\t{int(id(p) in in_common)}\n"
                for line, p in zip(lines, solving, strict=True)
            )
        )
        print(f"\nwrote {len(solving)} positions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
