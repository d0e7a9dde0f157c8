"""Self-play speed with playout cap randomisation: each game moving on at once, or in step.

With PCR a move gets either a cheap search (``--fast``) or the full one (``--full``). Two
ways to search many games at once, measured side by side in one run (interleaved rounds,
medians), on one network with random weights (speed does not depend on them):

  lockstep  every game searches its move, the cheap ones stop early, and all the games move
            together once the last full search is done: after the cheap searches finish,
            the network sees only the full searches' leaves (what self-play did before)
  per-game  ``selfplay.play_games``: a game plays its move as soon as its own search is
            done and starts the next one, so every network call has a leaf from every game

Run: ``python experiments/pcr.py`` (Dots and Boxes 3x3, 128 games, 200 / 50 simulations).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from alphazero.config import NetworkConfig, SearchConfig, SelfPlayConfig
from alphazero.config.command_line import OneLineParser
from alphazero.games import make
from alphazero.games.base import GameError
from alphazero.network.model import InferenceModel, build_network
from alphazero.search import Node, puct_policy, run
from alphazero.selfplay.loop import play_games


def lockstep(new_game, policy, games: int, search: SearchConfig, selfplay: SelfPlayConfig,
             rng: np.random.Generator) -> tuple[int, int]:  # fmt: skip
    """Play ``games`` games all in step; (simulations, network calls)."""
    roots = [Node(new_game()) for _ in range(games)]
    simulations = calls = 0
    while roots:
        full = [bool(rng.random() < selfplay.full_search_share) for _ in roots]
        budgets = [search.simulations if f else selfplay.fast_simulations for f in full]
        before = sum(r.N for r in roots)
        begin = puct_policy(search.params()).begin
        searches = [
            begin(root, budget, rng, recorded=is_full)
            for root, budget, is_full in zip(roots, budgets, full, strict=True)
        ]
        calls += run(searches, policy)
        simulations += sum(r.N for r in roots) - before
        roots = [r.next(1.0, rng).node for r in roots]
        roots = [r for r in roots if r.game.score is None]
    return simulations, calls


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dots_and_boxes", help="a registry name")
    parser.add_argument("--games", type=int, default=128, help="games searched at once")
    parser.add_argument("--full", type=int, default=200, help="simulations of a full search")
    parser.add_argument("--fast", type=int, default=50, help="simulations of a cheap search")
    parser.add_argument("--share", type=float, default=0.25, help="share of full searches")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")  # a median of none
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    # As a config's search.simulations, selfplay.fast_simulations and full_search_share: the
    # first simulation only evaluates the root, and a cheap search as dear as the full one,
    # or no full search at all, is no PCR.
    if args.full < 2:
        parser.error(f"--full must be at least 2, got {args.full}")
    if not 2 <= args.fast < args.full:
        parser.error(f"--fast must be at least 2 and below --full ({args.full}), got {args.fast}")
    if not 0 < args.share <= 1:  # NaN too
        parser.error(f"--share must be above 0 and at most 1, got {args.share:g}")
    try:
        start = make(args.game)
    except GameError as error:
        parser.error(str(error))

    def new_game():
        return make(args.game)

    model = build_network(start.plane_shape, start.num_actions, NetworkConfig(blocks=4))
    policy = InferenceModel(model, max_batch=args.games, precision="auto")
    search = SearchConfig(simulations=args.full, dirichlet_alpha=0.5)
    selfplay = SelfPlayConfig(
        games_per_iteration=args.games,
        parallel_games=args.games,
        augment=False,
        fast_simulations=args.fast,
        full_search_share=args.share,
    )
    policy(np.stack([new_game().encode()] * args.games))  # trace the largest bucket first

    rates: dict[str, list[float]] = {"lockstep": [], "per-game": []}
    batches: dict[str, list[float]] = {"lockstep": [], "per-game": []}
    for round_ in range(args.rounds):
        for name in rates:
            rng = np.random.default_rng(round_)
            start = time.process_time()
            if name == "lockstep":
                sims, calls = lockstep(new_game, policy, args.games, search, selfplay, rng)
            else:
                _, stats = play_games(new_game, policy, args.games, search, selfplay, rng, False)
                sims, calls = stats.simulations, stats.network_calls
            seconds = time.process_time() - start
            rates[name].append(sims / seconds)
            batches[name].append(sims / calls)
            print(f"round {round_ + 1} {name:9s} {sims / seconds:8.0f} simulations per CPU-s, "
                  f"{sims / calls:6.1f} simulations per network call", flush=True)  # fmt: skip
    lock, per_game = (statistics.median(rates[n]) for n in ("lockstep", "per-game"))
    print(f"\nmedian: lockstep {lock:.0f}, per-game {per_game:.0f} simulations per CPU-s: "
          f"{per_game / lock:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
