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
its progress is shown. ``--positions targets.tsv`` reads such a table back instead of solving
(the buffer is still read: the tables need every example's target, the file holds their mean),
and ``--model`` adds what a network's value head makes of the same positions, a value a
position, beside the targets it was trained on:

    python experiments/connect4_opening_targets.py --positions targets.tsv \\
        --model checkpoints/pretrained/connect4
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from connect4_fresh_positions import build_solver, lengths_range, notation, run_solver
from tqdm import tqdm

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.games import Connect4, make
from alphazero.search.policy import process_policies
from alphazero.training.checkpoints import load_model
from alphazero.training.replay_buffer import ReplayBuffer, ReplayBufferError
from alphazero.training.run_errors import CheckpointError

if TYPE_CHECKING:
    import keras

BUFFER = Path("checkpoints/pretrained/connect4/buffer_0150.npz")
RESULTS = ((1, "won"), (0, "drawn"), (-1, "lost"))
"""The mover's true result and its name, in the order the tables give them."""
ONCE = 2
"""The examples one game gives a position: ``selfplay.augment`` (on in the shipped run) stores it
and its mirror image, so a position met in ``n`` games has ``2 n`` examples."""
COLUMNS = ("moves", "stones", "examples", "target", "result", "sampled", "common")
"""The columns of the TSV ``--out`` writes and ``--positions`` reads."""
CUTS = (1 / 3, 1 / 2, 2 / 3)
"""The sizes the tables count the targets beyond; the head's values only beyond the first."""


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
    value: float | None = None
    """The value head's reading of it (``--model``), for the mover."""

    @property
    def stones(self) -> int:
        return int(self.planes[..., :2].sum())

    @property
    def target(self) -> float:
        return float(np.mean(self.targets))


def position_key(planes: np.ndarray) -> bytes:
    """The key a position and its mirror image share: the smaller of their stone planes
    (``planes [6, 7, >= 2]`` uint8)."""
    return min(planes[..., :2].tobytes(), planes[:, ::-1, :2].tobytes())


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
        key = position_key(board)
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


def replay(moves: Sequence[int]) -> Connect4 | None:
    """The position ``moves`` reach, or None if one is illegal or a game ends on the way."""
    game = Connect4()
    for move in moves:
        if game.score is not None or not game.is_legal(move):
            return None
        game = game.sim_move(move)
    return game if game.score is None else None


def replays_to(moves: Sequence[int], planes: np.ndarray) -> bool:
    """Whether ``moves`` are legal, end no game, and reach ``planes`` as ``Connect4`` encodes
    them."""
    game = replay(moves)
    return game is not None and np.array_equal(game.encode(), planes)


def table_text(
    positions: Sequence[Position], sample: Sequence[Position], common: Sequence[Position]
) -> str:
    """The TSV of the solved ``positions`` (``COLUMNS``, a row each, with the header line);
    ``sample`` and ``common`` say which of them were drawn at random and which were usual."""
    in_sample, in_common = {id(p) for p in sample}, {id(p) for p in common}
    return (
        "\t".join(COLUMNS)
        + "\n"
        + "".join(
            f"{notation(p.moves or [])}\t{p.stones}\t{len(p.targets)}\t{p.target:+.4f}\t"
            f"{p.result}\t{int(id(p) in in_sample)}\t{int(id(p) in in_common)}\n"
            for p in positions
        )
    )


@dataclass(frozen=True)
class TableRow:
    """One row of a TSV ``--out`` wrote: a position solved before."""

    moves: list[int]
    """Columns, 0-based."""
    examples: int
    target: float
    result: int
    sampled: bool
    common: bool


class TableError(ValueError):
    """A ``--positions`` file that is not a table ``--out`` wrote, or not of this buffer (one
    line, naming the file and the line)."""


def parse_table(text: str, name: str) -> list[TableRow]:
    """The rows of ``text``, a TSV ``--out`` wrote (``name``: how errors name it); a
    ``TableError`` at the first row that does not fit."""
    lines = text.splitlines()
    if not lines or lines[0].split("\t") != list(COLUMNS):
        raise TableError(
            f"{name}: not a table --out wrote (its first line should be the columns "
            f"{', '.join(COLUMNS)}, tab-separated)"
        )
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        try:
            if len(fields) != len(COLUMNS) or not set(fields[0]) <= set("1234567"):
                raise ValueError
            stones, examples, result, sampled, common = (int(fields[i]) for i in (1, 2, 4, 5, 6))
            row = TableRow(
                [int(c) - 1 for c in fields[0]],
                examples,
                float(fields[3]),
                result,
                bool(sampled),
                bool(common),
            )
            if (
                len(row.moves) != stones
                or examples < 1
                or result not in (1, 0, -1)
                or {sampled, common} - {0, 1}
                or not sampled | common
            ):
                raise ValueError
        except ValueError:
            raise TableError(
                f"{name} line {number}: expected moves (columns 1-7), stones (as many as "
                f"moves), examples, target, result (1, 0 or -1), sampled and common (0 or 1, "
                f"one of them 1), got {line!r}"
            ) from None
        rows.append(row)
    if not rows:
        raise TableError(f"{name}: no positions in it")
    return rows


def read_table(path: Path) -> list[TableRow]:
    """``parse_table`` of the file at ``path``; a ``TableError`` if it cannot be read."""
    try:
        text = path.read_text()
    except OSError as error:
        raise TableError(f"{path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise TableError(f"{path}: not a text file") from None
    return parse_table(text, str(path))


def attach(
    rows: Sequence[TableRow], every: Sequence[Position], name: str, buffer: str
) -> tuple[list[Position], list[Position]]:
    """Give the buffer's positions (``every``) the moves and results of the ``rows`` of a table
    read from ``name``; the ``sample`` and the ``common`` positions as the table marks them
    (the common ones most examples first). A ``TableError`` for a row that is no legal game,
    or no position of ``buffer`` (another buffer, another ``--stones``)."""
    by_key = {position_key(p.planes): p for p in every}
    sample, common = [], []
    for number, row in enumerate(rows, start=2):
        game = replay(row.moves)
        if game is None:
            raise TableError(f"{name} line {number}: {notation(row.moves)} is no legal game")
        position = by_key.get(position_key(game.encode().astype(np.uint8)))
        if position is not None and position.result is not None:
            raise TableError(f"{name} line {number}: {notation(row.moves)} a second time")
        if position is None or len(position.targets) != row.examples:
            held = f"has {len(position.targets)} examples of" if position else "does not hold"
            raise TableError(
                f"{name} line {number}: {buffer} {held} {notation(row.moves)} "
                f"({row.examples} examples in the table): another buffer, or other --stones?"
            )
        position.moves, position.result = list(row.moves), row.result
        if row.sampled:
            sample.append(position)
        if row.common:
            common.append(position)
    return sample, sorted(common, key=lambda p: len(p.targets), reverse=True)


def read_values(model: keras.Model, positions: Sequence[Position], batch: int = 256) -> None:
    """Set each position's ``value``: ``model``'s value head on it, for the mover (the one
    network call ``process_policies`` makes for a search, a batch at a time)."""
    from alphazero.network.model import InferenceModel  # TensorFlow: only when a model is read

    network = InferenceModel(model, max_batch=batch)
    with tqdm(total=len(positions), desc="value head", unit="position") as bar:
        for start in range(0, len(positions), batch):
            chunk = positions[start : start + batch]
            _, values = process_policies(network, [Connect4.from_moves(p.moves) for p in chunk])
            for position, value in zip(chunk, values, strict=True):
                position.value = float(value)
            bar.update(len(chunk))


def shares(values: np.ndarray, result: int, cuts: Sequence[float] = CUTS) -> str:
    """One table row's figures for ``values`` (targets, or the head's values) of positions
    whose true result is ``result``: their mean, mean size, the shares beyond each of ``cuts``
    and, for a decided result, the share of the wrong sign."""
    size = np.abs(values)
    wrong = f"{np.mean(np.sign(values) == -result):.1%}" if result else "-"
    beyond = " | ".join(f"{np.mean(size > cut):.1%}" for cut in cuts)
    return f"{values.mean():+.3f} | {size.mean():.3f} | {beyond} | {wrong}"


HEADER = "mean target | mean \\|t\\| | \\|t\\| > 1/3 | \\|t\\| > 1/2 | \\|t\\| > 2/3 | wrong sign"
HEAD_HEADER = "mean v | mean \\|v\\| | \\|v\\| > 1/3 | v wrong sign"


TableLine = tuple[str, str, np.ndarray, np.ndarray | None, int]
"""A row of ``table``: label, count, targets, the head's values (or None) and true result."""


def table(first: str, rows: Sequence[TableLine]) -> None:
    """A Markdown table: ``first`` the first column's title, a row ``(label, count, targets,
    values, result)`` each; the head's columns if the rows have ``values`` (not None)."""
    head = any(values is not None for _, _, _, values, _ in rows)
    extra = f" {HEAD_HEADER} |" if head else ""
    print(f"| {first} | {HEADER} |{extra}")
    print("| --- | ---: " + "| ---: " * (6 + 4 * head) + "|")
    for label, count, targets, values, result in rows:
        extra = f" {shares(values, result, CUTS[:1])} |" if values is not None else ""
        print(f"| {label} | {count} | {shares(targets, result)} |{extra}")


def report(sample: Sequence[Position], common: Sequence[Position], examples: int) -> None:
    """Print the tables of the solved ``sample`` and ``common`` positions, with the head's
    columns if they have a ``value``; ``examples``: how many the buffer holds in the range of
    stones."""
    head = all(p.value is not None for p in [*sample, *common])

    def row(
        label: str, count: str, group: Sequence[Position], result: int, every: bool = False
    ) -> TableLine:
        """``every``: each example's target, else each position's (its examples' mean); the
        head's value is always a position's."""
        targets = [t for p in group for t in p.targets] if every else [p.target for p in group]
        values = np.array([p.value for p in group]) if head else None
        return label, count, np.array(targets), values, result

    groups = [(r, label, [p for p in sample if p.result == r]) for r, label in RESULTS]
    print(f"\n{len(sample)} positions drawn at random, a target each (its examples' mean):\n")
    table("result | positions", [row(label, str(len(g)), g, r) for r, label, g in groups if g])
    drawn = [p for p in sample if p.result == 0]
    if drawn:
        print("\nthe drawn ones by stones on the board:\n")
        table(
            "stones | positions",
            [
                row(str(n), str(len(g)), g, 0)
                for n in sorted({p.stones for p in drawn})
                for g in [[p for p in drawn if p.stones == n]]
            ],
        )
    if sample:
        print(
            f"\nthe same by how many of self-play's games met them (one game gives {ONCE} "
            "examples: the position and its mirror image):\n"
        )
        rows = []
        for r, label, group in groups:
            for games, part in (
                ("1", [p for p in group if len(p.targets) <= ONCE]),
                ("2 or more", [p for p in group if len(p.targets) > ONCE]),
            ):
                if part:
                    rows.append(row(f"{label} | {games}", str(len(part)), part, r))
        table("result | games | positions", rows)
    if common:
        held = sum(len(p.targets) for p in common)
        each = ", the head's value a position" if head else ""
        print(
            f"\nthe {len(common)} positions with the most examples ({held} of {examples}, "
            f"{held / examples:.0%}), every example's target{each}:\n"
        )
        rows = []
        for r, label in RESULTS:
            group = [p for p in common if p.result == r]
            if group:
                count = f"{len(group)} | {sum(len(p.targets) for p in group)}"
                rows.append(row(label, count, group, r, every=True))
        table("result | positions | examples", rows)


SOLVING = {"sample": 400, "common": 50, "seed": 0, "jobs": 2}
"""The defaults of the options that choose and solve positions (not read with --positions)."""


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
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
        help="how many of those positions (each once, whatever its examples) to solve, drawn "
        f"at random (default {SOLVING['sample']})",
    )
    parser.add_argument(
        "--common",
        type=int,
        help="also solve the positions with the most examples, this many (default "
        f"{SOLVING['common']}; 0: none): self-play's usual lines hold most of the examples, "
        "and a random sample of positions seldom meets them",
    )
    parser.add_argument(
        "--seed",
        type=non_negative_integer,
        help=f"seed of the sample (default {SOLVING['seed']})",
    )
    parser.add_argument(
        "--jobs", type=int, help=f"solver processes at once (default {SOLVING['jobs']})"
    )
    parser.add_argument(
        "--positions",
        type=Path,
        metavar="FILE.tsv",
        help="read the positions and their results from a TSV --out wrote before (of the same "
        "--buffer and --stones) instead of drawing and solving them; --sample, --common, "
        "--seed and --jobs are then not read",
    )
    parser.add_argument(
        "--model",
        type=Path,
        metavar="PATH",
        help="also read a Connect Four model's value head on every position (a run folder, "
        "its best.keras, else latest.keras, or a .keras file): its mean, mean size, share "
        "beyond 1/3 and share of the wrong sign beside the targets'",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="also write a TSV, a row a position solved: moves (1-based columns), stones, "
        "examples, target (their mean), result for the mover (1, 0, -1), sampled (1 if drawn "
        "at random), common (1 if among the --common)",
    )
    args = parser.parse_args()
    if args.positions is not None:
        unread = [f"--{name}" for name in SOLVING if getattr(args, name) is not None]
        if unread:
            parser.error(
                f"{', '.join(unread)}: not read with --positions (its positions are solved "
                "already); leave them out"
            )
    for name, default in SOLVING.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.sample < 0 or args.common < 0 or args.sample + args.common == 0:
        parser.error("--sample and --common must be at least 0, and one of them positive")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    low, high = args.stones
    try:  # the files first, the model last: a bad file is named before TensorFlow loads
        rows = None if args.positions is None else read_table(args.positions)
        every = buffer_positions(args.buffer, args.stones)
    except (TableError, ReplayBufferError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not every:
        print(f"error: {args.buffer}: no position with {low}-{high} stones", file=sys.stderr)
        return 2
    model = None
    try:
        if rows is not None:
            sample, common = attach(rows, every, str(args.positions), str(args.buffer))
        if args.model is not None:  # as connect4_opening_errors.py loads it: no optimizer
            model = load_model(args.model, make("connect4"), compile=False)
    except (TableError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    examples = sum(len(p.targets) for p in every)
    summary = (
        f"{args.buffer}: {examples} examples with {low}-{high} stones, {len(every)} positions "
        "(mirror images merged); "
    )
    if rows is None:
        rng = np.random.default_rng(args.seed)
        picked = rng.choice(len(every), min(args.sample, len(every)), replace=False)
        sample = [every[i] for i in sorted(picked)]
        common = sorted(every, key=lambda p: len(p.targets), reverse=True)[: args.common]
    solving = list({id(p): p for p in [*sample, *common]}.values())
    if rows is not None:
        print(f"{summary}{len(solving)} of them solved in {args.positions}")
    else:
        print(f"{summary}solving {len(solving)} of them")
        for position in solving:
            position.moves = rebuild_moves(position.planes)
            if position.moves is None or not replays_to(position.moves, position.planes):
                print(f"error: no legal game reaches a position of {args.buffer}", file=sys.stderr)
                return 1
        lines = [notation(p.moves) for p in solving if p.moves is not None]
        with tempfile.TemporaryDirectory() as folder:
            solved = run_solver(build_solver(Path(folder)), lines, "--weak", args.jobs)
        for position, line in zip(solving, solved, strict=True):
            position.result = int(line.split("\t")[1])
    if model is not None:
        read_values(model, solving)
    report(sample, common, examples)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(table_text(solving, sample, common))
        print(f"\nwrote {len(solving)} positions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
