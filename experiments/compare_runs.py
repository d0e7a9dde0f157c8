"""Compare training runs of one game at equal compute: which setting learns faster per CPU hour?

For each run folder it prints the evaluation history from ``metrics.jsonl`` against the
training CPU hours spent to reach it (self-play CPU plus training CPU; the evaluation
matches themselves are left out, so runs that evaluate at different rates compare fairly).
Then the runs' models play each other head to head: with ``--cpu-hours H`` the snapshot of
each run (``models/iter_*.keras``, kept every ``checkpoint.keep_every`` iterations) that had
spent the most training CPU without passing ``H``; without it, their latest models. Model
against model games start from random openings of ``--opening`` moves, each opening played
twice with the sides swapped, since two searches without noise would otherwise replay the same
game. Run:

    python experiments/compare_runs.py checkpoints/dots_and_boxes checkpoints/dots_and_boxes_pcr \\
        --cpu-hours 0.5 --games 200
    python experiments/compare_runs.py checkpoints/connect4 checkpoints/connect4_games256 \\
        --games 0 --budgets 0.5 1 1.5
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import yaml

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.arena import play_match
from alphazero.evaluation.model_player import ModelPlayer
from alphazero.games import make
from alphazero.games.base import Game
from alphazero.training.run_errors import CheckpointError


def history(run: Path) -> list[dict]:
    """One row per iteration: iteration, games, cumulative training CPU hours, evaluation."""
    rows, cpu = [], 0.0
    for line in (run / "metrics.jsonl").read_text().splitlines():
        record = json.loads(line)
        # Training CPU where recorded (older runs: its wall time, which undercounts threads).
        train = record.get("train_cpu_seconds", record.get("train_seconds", 0.0))
        cpu += record["selfplay"].get("cpu_seconds", 0.0) + train
        rows.append(
            {
                "iteration": record["iteration"],
                "games": record["games"],
                "cpu_hours": cpu / 3600,
                "evaluation": record.get("evaluation"),
                "solved": record.get("connect4_positions"),
                "machine": record.get("machine"),  # recorded since 2026-11-27
            }
        )
    return rows


def solved_at(
    rows: list[dict], budget: float, axis: str = "cpu_hours", last: int = 3
) -> tuple[float, float, int] | None:
    """Raw policy and value-head shares on the solved positions, averaged over the ``last``
    iterations that had spent no more than ``budget`` of ``axis`` (``cpu_hours`` or
    ``games``; one iteration's share swings by a point or two); also the last of those
    iterations. None if no such iteration was measured."""
    within = [r for r in rows if r[axis] <= budget and r["solved"]][-last:]
    if not within:
        return None
    policy = float(np.mean([r["solved"]["policy_correct"] for r in within]))
    value = float(np.mean([r["solved"]["value_result"] for r in within]))
    return policy, value, within[-1]["iteration"]


def snapshot(
    run: Path, rows: list[dict], cpu_hours: float | None, iteration: int | None = None
) -> tuple[Path, dict]:
    """The kept model with the most training CPU up to ``cpu_hours`` (None: the latest), or
    the one of ``iteration`` if given."""
    kept = {int(p.stem.split("_")[1]): p for p in (run / "models").glob("iter_*.keras")}
    if iteration is not None:
        if iteration not in kept:
            raise SystemExit(f"error: {run} kept no model of iteration {iteration}")
        row = next((r for r in rows if r["iteration"] == iteration), None)
        if row is None:
            raise SystemExit(f"error: {run}/metrics.jsonl has no iteration {iteration}")
        return kept[iteration], row
    if cpu_hours is None:
        return run / "latest.keras", rows[-1]
    within = [r for r in rows if r["iteration"] in kept and r["cpu_hours"] <= cpu_hours]
    if not within:
        raise SystemExit(f"error: {run} kept no model within {cpu_hours} CPU hours")
    row = within[-1]
    return kept[row["iteration"]], row


def openings(start: Game, count: int, moves: int, rng: np.random.Generator) -> list[Game]:
    """``count`` positions reached by ``moves`` uniformly random moves (none finished)."""
    found: list[Game] = []
    while len(found) < count:
        game = start
        for _ in range(moves):
            if game.score is not None:
                break
            game = game.sim_move(int(rng.choice(game.available_moves)))
        if game.score is None:
            found.append(game)
    return found


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders of the same game")
    parser.add_argument(
        "--cpu-hours", type=float, default=None, help="snapshots at this training CPU"
    )
    parser.add_argument(
        "--at",
        type=int,
        nargs="+",
        default=None,
        metavar="I",
        help="the kept models of these iterations play, one per run (instead of --cpu-hours: "
        "for runs whose CPU hours were spent on different machines)",
    )
    parser.add_argument(
        "--games", type=int, default=100, help="head-to-head games per pair (0: none)"
    )
    parser.add_argument("--sims", type=int, default=200, help="simulations per move")
    parser.add_argument("--opening", type=int, default=2, help="random moves before each game")
    parser.add_argument(
        "--seed",
        type=non_negative_integer,
        default=0,
        help="seed of the random openings (default 0)",
    )
    parser.add_argument(
        "--budgets",
        type=float,
        nargs="+",
        default=[],
        metavar="H",
        help="also print each run's raw policy / value-head share on the solved Connect Four "
        "positions at these training CPU hours (mean of the last --last iterations within each)",
    )
    parser.add_argument(
        "--last",
        type=int,
        default=3,
        metavar="N",
        help="--budgets average this many iterations (default 3; a run with bigger iterations "
        "then lags by more games, so compare such runs with --last 1 too)",
    )
    parser.add_argument(
        "--by-games",
        action="store_true",
        help="--budgets are self-play games, not CPU hours (CPU hours from two machines do "
        "not compare; games do, but ignore what each game cost)",
    )
    args = parser.parse_args()
    if args.last < 1:
        parser.error("--last must be at least 1")
    if args.games < 0:
        parser.error(f"--games must be at least 0, got {args.games}")
    if args.sims < 2:  # the first simulation evaluates the root: one visits no move
        parser.error(f"--sims must be at least 2, got {args.sims}")
    if args.opening < 0:
        parser.error(f"--opening must be at least 0, got {args.opening}")
    if args.cpu_hours is not None and not args.cpu_hours > 0:  # NaN too
        parser.error(f"--cpu-hours must be above 0, got {args.cpu_hours:g}")
    refused = [budget for budget in args.budgets if not budget > 0]  # NaN too
    if refused:
        parser.error(f"--budgets must be above 0, got {refused[0]:g}")
    if args.at is not None and len(args.at) != len(args.runs):
        parser.error("--at needs one iteration per run")
    if args.at is not None and args.cpu_hours is not None:
        parser.error("--at and --cpu-hours both choose the models: give one")
    for run in args.runs:
        missing = [f for f in ("config.yaml", "metrics.jsonl") if not (run / f).is_file()]
        if missing:
            parser.error(f"{run}: not a run folder with iterations (no {' or '.join(missing)})")

    games = set()
    for run in args.runs:
        config = yaml.safe_load((run / "config.yaml").read_text())["game"]
        games.add((config["name"], json.dumps(config.get("params") or {}, sort_keys=True)))
    if len(games) != 1:
        print("error: the runs train different games", file=sys.stderr)
        return 2
    name, params = next(iter(games))
    start = make(name, **json.loads(params))

    histories = [history(run) for run in args.runs]
    machines = sorted({row["machine"] for rows in histories for row in rows if row["machine"]})
    if len(machines) > 1:
        print(
            f"note: these iterations ran on {len(machines)} kinds of machine "
            f"({'; '.join(machines)}), whose CPU hours do not compare: see --at and --by-games",
            file=sys.stderr,
        )
    players = []
    for index, (run, rows) in enumerate(zip(args.runs, histories, strict=True)):
        if not rows:
            parser.error(f"{run}: metrics.jsonl has no iterations yet")
        print(f"\n{run}: evaluations by training CPU")
        for row in rows:
            if row["evaluation"]:
                opponents = row["evaluation"]["opponents"].items()
                scores = ", ".join(
                    f"{spec} {o['wins']}/{o['draws']}/{o['losses']}" for spec, o in opponents
                )
                print(f"  iteration {row['iteration']:4d}  {row['games']:6d} games  "
                      f"{row['cpu_hours']:.2f} CPU-h  {scores}")  # fmt: skip
        if args.games == 0:
            continue
        at = None if args.at is None else args.at[index]
        path, row = snapshot(run, rows, args.cpu_hours, at)
        print(f"  head to head: {path} (iteration {row['iteration']}, {row['games']} games, "
              f"{row['cpu_hours']:.2f} CPU-h)")  # fmt: skip
        try:
            player = ModelPlayer(path, start, simulations=args.sims)
        except CheckpointError as error:
            parser.error(str(error))
        player.name = f"{run.name}@{row['iteration']}"
        players.append(player)

    if args.budgets:
        axis, unit = ("games", "games") if args.by_games else ("cpu_hours", "CPU-h")
        print("\nsolved positions, raw policy / value head (iteration):")
        print(f"  {unit:>6}  " + "  ".join(f"{run.name:>24}" for run in args.runs))
        for budget in args.budgets:
            cells = []
            for run in args.runs:
                rows = history(run)
                found = solved_at(rows, budget, axis, args.last)
                if rows[-1][axis] < budget:
                    cells.append(f"not yet ({rows[-1][axis]:.{0 if args.by_games else 2}f} {unit})")
                else:
                    cells.append(
                        f"{found[0]:6.1%} / {found[1]:5.1%} ({found[2]:3d})" if found else "-"
                    )
            shown = f"{budget:6.0f}" if args.by_games else f"{budget:6.2f}"
            print(f"  {shown}  " + "  ".join(f"{c:>24}" for c in cells))

    if args.games == 0:
        return 0
    rng = np.random.default_rng(args.seed)
    print()
    for a, b in itertools.combinations(players, 2):
        pairs = openings(start, (args.games + 1) // 2, args.opening, rng)
        queue = iter([game for game in pairs for _ in range(2)])
        result = play_match(a, b, lambda q=queue: next(q), 2 * len(pairs))
        low, high = result.score_interval()
        print(f"{a.name} vs {b.name}: {result.wins}/{result.draws}/{result.losses}, "
              f"score {result.score:.1%} (95% CI {low:.1%}-{high:.1%})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
