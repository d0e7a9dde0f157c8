"""The strength table of the shipped models, measured the same way for every game.

Each model in ``checkpoints/pretrained/<game>/`` plays ``--games`` games (sides alternating)
against ``uct:200``, ``uct:1000`` and ``uct:5000``, and against the perfect player where the
game is small enough to solve. The table (score with its 95% confidence interval, and
wins / draws / losses) is printed; ``--out PATH`` also writes its results as JSON. Each row
also gives what the model cost to train (self-play games and CPU hours, ``best_cost`` in its
``metadata.json``).

``--model PATH`` measures one other model the same way (a run folder, or a kept
``RUN/models/iter_NNNN.keras``), outside the table: with the default opponents its matches
are the very ones a shipped model of its game would play (the same seeds and games).

``--seed N`` seeds the players' random choices: the opponent at index ``i`` of the list
(``--opponents``, then ``perfect``) gets seed ``N + i``, the model ``N``; the default, 0, gives
the seeds the committed table was measured with. Two processes with different seeds play
different games, so a long match splits into halves run side by side, one a core:

    TF_NUM_INTRAOP_THREADS=1 TF_NUM_INTEROP_THREADS=1 python benchmarks/strength.py \
        --model RUN --opponents alphabeta:10 --games 50 --seed 0 --out a.json &
    TF_NUM_INTRAOP_THREADS=1 TF_NUM_INTEROP_THREADS=1 python benchmarks/strength.py \
        --model RUN --opponents alphabeta:10 --games 50 --seed 1000 --out b.json &

``--openings K`` starts each pair of games from a different position ``K`` uniformly random
moves in (seeded by ``--seed``, the same positions for every opponent), the sides swapped
within the pair. Without it every game starts from the empty board, and two players that
choose their moves by search alone replay a handful of games: 20 games of a 15x15 Gomoku model
against ``alphabeta:5`` from the empty board were 6 different games
(``docs/research/gomoku_15x15.md``).

``--out``'s JSON has, for each model, the table's entry (``label``, ``training``, ``games``,
``results``: the counts by opponent), its ``seed``, and ``matches``: by opponent, the
opponent's seed, every game's moves (game ``k``'s model moving first when ``k`` is even) and
the CPU seconds each side spent a move (``CpuTimed``). ``--readme`` keeps ``matches`` out of
the committed ``docs/strength.json``, which stays small.

Only ``--readme`` touches the committed files, and it needs at least 100 games per opponent:
the results go into ``docs/strength.json`` (so ``--only NAME`` measures one model and keeps
the other rows), the whole table into ``docs/strength.md`` and into README.md between its
strength markers. Regenerate them all with:

    python benchmarks/strength.py --readme
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from alphazero.config.command_line import OneLineParser, non_negative_integer
from alphazero.evaluation.arena import (
    MatchResult,
    Opening,
    play_match,
    play_openings,
    random_openings,
)
from alphazero.evaluation.model_player import ModelPlayer, ModelSource, PlayerOptions
from alphazero.evaluation.model_search import PlaySearch
from alphazero.evaluation.players import BatchPlayer, Player, make_player
from alphazero.games import make
from alphazero.games.base import Game
from alphazero.play.defaults import DEFAULT_SIMULATIONS
from alphazero.play.models import config_game
from alphazero.play.options import output_problem

ROOT = Path(__file__).resolve().parents[1]
PRETRAINED = ROOT / "checkpoints" / "pretrained"
RESULTS = ROOT / "docs" / "strength.json"
SIMULATIONS = {"tictactoe": 100, "gomoku_8x8": 400, "connect4": 400}
"""PUCT simulations per move for a model folder, where it differs from 800 (Gomoku 8x8:
its games are the longest; Connect Four: 400 since its shipped model was a 128x6 network,
kept so that its rows compare across models; 400 keep each one's 300 games within about
half an hour)."""
START, END = "<!-- strength:start -->", "<!-- strength:end -->"
README_GAMES = 100
"""The fewest games per opponent the committed table is measured on (``--readme``)."""


class CpuTimed:
    """``player`` whose moves' CPU seconds are added up by the plies played before them.

    The seconds are ``time.process_time``'s: this process's CPU in all its threads (a model's
    network runs in several), steadier than the wall clock beside another process. Measured
    here for every player alike, as a baseline such as ``alphabeta`` keeps no ``SearchLog``
    and a model's counts wall seconds unless built with another clock. A model's first move of
    its first match also pays for its network's start-up (a fraction of a second).
    """

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.by_ply: dict[int, list[float]] = {}
        """``by_ply[ply] = [moves, seconds]`` summed."""

    def _add(self, games: Sequence[Game], seconds: float) -> None:
        for game in games:
            entry = self.by_ply.setdefault(game.plies[0], [0, 0.0])
            entry[0] += 1
            entry[1] += seconds / len(games)

    def __call__(self, game: Game) -> int:
        start = time.process_time()
        action = self.player(game)
        self._add([game], time.process_time() - start)
        return action

    def summary(self) -> dict[str, Any]:
        """``moves``, ``seconds_per_move`` and, by ply (a string, as JSON keys are), the mean
        seconds of a move."""
        moves = sum(int(n) for n, _ in self.by_ply.values())
        return {
            "moves": moves,
            "seconds_per_move": sum(s for _, s in self.by_ply.values()) / max(moves, 1),
            "by_ply": {str(ply): s / n for ply, (n, s) in sorted(self.by_ply.items())},
        }


class CpuTimedBatch(CpuTimed):
    """``CpuTimed`` of a player that moves in many games at once (a model): each move gets an
    equal share of its call's seconds, as ``ModelPlayer.log`` shares them. A call holds the
    games moving first at one ply and the others at the ply before, so its mean by ply is
    that of neighbouring plies alike; the mean a move is exact."""

    player: BatchPlayer

    def batch_moves(self, games: Sequence[Game]) -> list[int]:
        start = time.process_time()
        actions = self.player.batch_moves(games)
        if games:
            self._add(games, time.process_time() - start)
        return actions


def cpu_timed(player: Player) -> CpuTimed:
    """``player`` timed, still batching its moves if it did (``play_match`` asks whether it
    is a ``BatchPlayer``)."""
    return CpuTimedBatch(player) if isinstance(player, BatchPlayer) else CpuTimed(player)


def cell(counts: dict[str, int]) -> str:
    """A table cell from stored counts (``wins``, ``draws``, ``losses``): the interval is
    computed here, so a change to ``MatchResult.score_interval`` reaches the committed table
    without replaying a game."""
    result = MatchResult("", "", counts["wins"], counts["draws"], counts["losses"])
    low, high = result.score_interval()
    return (
        f"{result.score:.0%} ({low:.0%}-{high:.0%})<br>{result.wins}/{result.draws}/{result.losses}"
    )


def training_cost(folder: Path) -> str:
    """What the run's best.keras cost to train: self-play games and CPU hours.

    From ``best_cost`` in the run's ``metadata.json``, recorded when it saved best.keras; a
    run from before that was recorded gives its whole total, marked as such.
    """
    try:
        metadata = json.loads((folder / "metadata.json").read_text())
        cost = metadata.get("best_cost")
        if cost:
            return f"{cost['games']:,} games<br>{cost['cpu_seconds'] / 3600:.2f} CPU-h"
        hours = metadata["timings"]["cpu_seconds"] / 3600
        return (
            f"{metadata['games']:,} games<br>{hours:.2f} CPU-h<br>"
            f"(all {metadata['iteration']} iterations)"
        )
    except (OSError, ValueError, KeyError, TypeError):
        return "-"


def render(results: dict[str, dict]) -> tuple[str, str]:
    """``(note, table)``: the Markdown table of ``results`` (rows of shipped models only)."""
    shipped = {p.name for p in PRETRAINED.iterdir()}
    rows = [(r["label"], r["training"], {spec: cell(c) for spec, c in r["results"].items()})
            for k, r in sorted(results.items()) if k in shipped]  # fmt: skip
    games = sorted({r["games"] for k, r in results.items() if k in shipped})
    specs = list(dict.fromkeys(spec for _, _, cells in rows for spec in cells))
    lines = [
        "| model | trained on | " + " | ".join(f"vs `{s}`" for s in specs) + " |",
        "| --- | ---: |" + " ---: |" * len(specs),
    ]
    for label, training, cells in rows:
        lines.append(
            f"| {label} | {training} | " + " | ".join(cells.get(s, "-") for s in specs) + " |"
        )
    note = (
        f"Score (95% CI, with two won and two lost games added so that a sweep is no certainty) "
        f"and wins/draws/losses over {' or '.join(map(str, games))} games per "
        f'opponent, sides alternating; the model plays its run\'s best.keras, and "trained on" '
        f"is what the run had spent when it saved that model (or the run's total where that was "
        f"not recorded). `python benchmarks/strength.py --readme` regenerates it."
    )
    return note, "\n".join(lines)


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=int,
        default=README_GAMES,
        help=f"games per opponent (default {README_GAMES}; --readme needs at least that)",
    )
    parser.add_argument(
        "--opponents", default="uct:200,uct:1000,uct:5000", help="comma-separated player specs"
    )
    parser.add_argument(
        "--seed",
        type=non_negative_integer,
        default=0,
        metavar="N",
        help="the opponent at index I of the list (--opponents, then perfect) gets seed N + I, "
        "the model N (default 0: the committed table's seeds); two processes with different "
        "seeds play different games, so --games 50 --seed 0 and --games 50 --seed 1000 are the "
        "two halves of a 100-game match",
    )
    parser.add_argument(
        "--openings",
        type=non_negative_integer,
        default=0,
        metavar="K",
        help="start each pair of games from its own position K random moves in (seeded by "
        "--seed), the sides swapped within the pair; --games must be even. Default 0: every "
        "game from the start, as the committed table (players without noise then replay few "
        "different games)",
    )
    parser.add_argument("--only", default=None, help="measure only this model folder name")
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        metavar="PATH",
        help="measure this model instead of the shipped ones: a run folder (its best.keras) "
        "or a kept RUN/models/iter_NNNN.keras; the game comes from the run's config.yaml",
    )
    parser.add_argument(
        "--sims",
        type=int,
        default=None,
        help="model simulations per move for every model (default: 800, or the table's own: "
        + ", ".join(f"{k} {v}" for k, v in SIMULATIONS.items())
        + ")",
    )
    parser.add_argument(
        "--search",
        choices=("puct", "gumbel"),
        help="the models' search algorithm (default: as play.py searches each model)",
    )
    parser.add_argument(
        "--c-puct",
        type=float,
        help="PUCT's exploration constant (default: each model's run's config.yaml)",
    )
    parser.add_argument(
        "--symmetric",
        action="store_true",
        help="models average the network over the board's symmetries (see play.py --symmetric)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PATH",
        help="also write the results as JSON, with the seeds, every game's moves and the CPU "
        "seconds each side spent a move",
    )
    parser.add_argument(
        "--readme",
        action="store_true",
        help="update the committed docs/strength.json, docs/strength.md and README.md's table",
    )
    parser.add_argument(
        "--table-only",
        action="store_true",
        help="play nothing: print the committed table (with --readme, rewrite it everywhere)",
    )
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.sims is not None and args.sims < 2:
        parser.error(f"--sims must be at least 2, got {args.sims}")
    if args.c_puct is not None and not 0 < args.c_puct <= 100:
        parser.error(f"--c-puct must be above 0 and at most 100, got {args.c_puct:g}")
    # The committed table is what the README quotes: a handful of games would replace it with
    # noise (and its note says how many games it is measured on).
    if args.readme and args.games < README_GAMES:
        parser.error(f"--readme needs --games {README_GAMES} or more, got {args.games}")
    if args.openings and args.games % 2:
        parser.error(f"--openings plays each opening twice: --games must be even, got {args.games}")
    if args.openings and args.readme:
        parser.error("--readme's table starts every game from the start: not with --openings")
    if args.model is not None:
        if args.only or args.readme or args.table_only:
            parser.error("--model measures one model outside the table: not with --only, "
                         "--readme or --table-only")  # fmt: skip
        if not args.model.exists():
            parser.error(f"--model {args.model}: no such file or folder")
    if args.out is not None:
        if args.table_only:
            parser.error("--out writes what is measured, and --table-only measures nothing")
        if (problem := output_problem("--out", args.out)) is not None:
            parser.error(problem)

    folders = sorted(p for p in PRETRAINED.iterdir() if (p / "config.yaml").exists())
    # (name in the results, run folder, what the model player loads)
    models = [(p.name, p, p) for p in folders]
    if args.model is not None:
        model_path = args.model
        run = next((d for d in (model_path, *model_path.parents) if (d / "config.yaml").is_file()),
                   None)  # fmt: skip
        if run is None:
            parser.error(f"--model {model_path}: no run's config.yaml in it or above it")
        models = [(str(model_path), run, model_path)]
    elif args.only:
        if args.only not in {p.name for p in folders}:
            names = ", ".join(p.name for p in folders)
            parser.error(f"--only {args.only}: no such model in {PRETRAINED} (there are {names})")
        models = [m for m in models if m[0] == args.only]
    if args.table_only:
        models = []
    elif not models:
        print(f"error: no shipped models in {PRETRAINED}", file=sys.stderr)
        return 2

    measured: dict[str, dict] = {}
    for key, folder, model_path in models:
        found = config_game(folder / "config.yaml")
        if found is None:
            print(f"error: {folder / 'config.yaml'} names no game", file=sys.stderr)
            return 2
        name, params = found
        start = make(name, **params)
        sims = (
            args.sims
            if args.sims is not None
            else SIMULATIONS.get(folder.name, SIMULATIONS.get(name, DEFAULT_SIMULATIONS))
        )
        source = ModelSource(model_path, symmetric=args.symmetric)
        model = ModelPlayer(
            source, start, sims, PlaySearch(args.search, args.c_puct), PlayerOptions(seed=args.seed)
        )
        setting = f"{sims} sims" + (", symmetric" if args.symmetric else "")
        if args.search is not None or args.c_puct is not None:
            setting += f", {model.search.describe()}"
        openings: list[Opening] = []
        if args.openings:
            setting += f", {args.openings}-move openings"
            rng = np.random.default_rng(args.seed)
            try:
                openings = random_openings(start, args.games // 2, args.openings, rng)
            except ValueError as error:
                print(f"error: --openings {args.openings}: {error}", file=sys.stderr)
                return 2
        opponents = args.opponents.split(",") + (["perfect"] if start.solvable else [])
        counts: dict[str, dict[str, int]] = {}
        matches: dict[str, dict[str, Any]] = {}
        for index, spec in enumerate(opponents):
            began = time.perf_counter()
            # N + i: the default seed 0 gives each opponent its index, the seeds the committed
            # table was measured with; another N, other games for the same opponents.
            seed = args.seed + index
            # A fresh wrapper a match, so that each match's seconds are its own.
            timed_model, opponent = cpu_timed(model), cpu_timed(make_player(spec, start, seed=seed))
            if openings:
                result = play_openings(timed_model, opponent, openings)
            else:
                result = play_match(timed_model, opponent, lambda n=name, p=params: make(n, **p),
                                    args.games)  # fmt: skip
            # With the wins by side: where a model is weak (moving first, or second) shows.
            counts[spec] = {
                "wins": result.wins,
                "draws": result.draws,
                "losses": result.losses,
                "wins_first": result.wins_first,
                "games_first": result.games_first,
            }
            matches[spec] = {
                "seed": seed,
                "moves": result.moves,
                "cpu_seconds": {"model": timed_model.summary(), "opponent": opponent.summary()},
            }
            if openings:  # game k starts from openings[k // 2]: their moves, then its own
                matches[spec]["openings"] = [list(opening.moves) for opening in openings]
            print(f"{key} ({setting}) vs {spec}: {result.wins}/{result.draws}/"
                  f"{result.losses}, score {result.score:.1%}, wins first "
                  f"{result.wins_first}/{result.games_first}, second "
                  f"{result.wins - result.wins_first}/{result.games - result.games_first} "
                  f"({time.perf_counter() - began:.0f} s)", flush=True)  # fmt: skip
        measured[key] = {
            "label": f"{key} ({setting})",
            "training": training_cost(folder) if model_path == folder else "-",
            "games": args.games,
            "seed": args.seed,
            "results": counts,
            "matches": matches,
        }
        if args.openings:
            measured[key]["openings"] = args.openings
        # Written after every model, so a long run stopped part way keeps what it measured.
        if args.out is not None:
            args.out.write_text(json.dumps(measured, indent=1) + "\n")
        if args.readme:
            # Read again just before writing: another --only run may have added its row.
            results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
            # Without the games: the committed file stays a table's worth of numbers.
            results[key] = {k: v for k, v in measured[key].items() if k != "matches"}
            RESULTS.write_text(json.dumps(results, indent=1) + "\n")

    if args.table_only or args.readme:
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    else:
        results = measured
    note, table = render(results)
    if args.model is None:  # the table has rows of shipped models only
        print("\n" + table)
    if args.out is not None:
        print(f"results written to {args.out}")
    if args.readme:
        (ROOT / "docs" / "strength.md").write_text(f"# Strength of the shipped models\n\n{note}\n\n"
                                                   f"{table}\n")  # fmt: skip
        readme = ROOT / "README.md"
        text = readme.read_text()
        block = f"{START}\n{note}\n\n{table}\n{END}"
        text, count = re.subn(re.escape(START) + ".*?" + re.escape(END), block, text,
                              flags=re.S)  # fmt: skip
        if count != 1:
            print("error: README.md has no strength markers", file=sys.stderr)
            return 2
        readme.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
