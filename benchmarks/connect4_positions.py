"""A Connect Four model against perfect play on 1,002 solved positions.

Reports, by stage of the game (moves played 4-12, 13-20, 21-30), the share of correct moves
(a won position stays won, a drawn one drawn; over positions not already lost) and the
exact accuracy (the best move by the solver's score), for the raw policy (the network's top
move, no search) and with search (as ``play.py`` searches the model; ``--search`` and
``--c-puct`` change that). A uniformly random player scores 43.1% correct and 28.8% exact
in expectation. Also reports the raw value head: the share of positions whose
value reads as the exact result (win above 1/3, loss below -1/3, draw between) and its mean
squared error, and the search's correct share by exact result: drawn positions, positions
won only with one of the mover's last three stones, and positions won sooner. Run:

    python benchmarks/connect4_positions.py --model checkpoints/pretrained/connect4 --sims 800

``--leaves 4 --engine openvino`` measures play.py's settings (4 leaves per tree and network
call, OpenVINO in bfloat16 on a CPU with native bfloat16): the search's share should stay
within a point of one leaf on TensorFlow.

With ``--record``, a model of a run folder (``RUN/models/iter_NNNN.keras``, or the run folder
itself for its latest model) also has its figures appended to
``RUN/solved_positions_search.jsonl``, with the CPU hours the run had spent at that
iteration: ``python -m alphazero.report RUN ...`` draws them beside the raw-policy curve.

``--positions FILE`` measures on another file in the same format instead, such as the fresh
set ``experiments/connect4_fresh_positions.py`` draws (positions the committed file does not
hold, scored by sign only): a check that a model's figures do not rest on the 1,002.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from alphazero.config.command_line import OneLineParser
from alphazero.evaluation.model_search import play_search, trained_search
from alphazero.evaluation.solved_positions import (
    STAGES,
    SolvedPositionsError,
    evaluate_network,
    load_positions,
    measure,
    measure_by_result,
    search_chooser,
)
from alphazero.games import make
from alphazero.network.engines import ENGINES, EngineError
from alphazero.network.model import InferenceModel
from alphazero.report.records import SEARCH_MEASURES, ReportError, read_metrics
from alphazero.report.strength import cpu_hours
from alphazero.search import symmetric_policy
from alphazero.training.checkpoints import load_model
from alphazero.training.metrics import append_jsonl
from alphazero.training.run_errors import CheckpointError


def main() -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="run folder or .keras file")
    parser.add_argument("--sims", type=int, default=800, help="simulations per move with search")
    parser.add_argument(
        "--search",
        choices=["puct", "gumbel"],
        help="the search algorithm (default: as play.py searches this model, "
        "alphazero/evaluation/model_search.py)",
    )
    parser.add_argument(
        "--c-puct",
        type=float,
        help="PUCT's exploration constant (default: the run's config.yaml, else 1.5)",
    )
    parser.add_argument(
        "--symmetric",
        action="store_true",
        help="average the network over each position and its mirror image",
    )
    parser.add_argument(
        "--precision",
        default="auto",
        choices=["auto", "float32", "bfloat16"],
        help="the network's arithmetic; auto: bfloat16 where the CPU has it natively",
    )
    parser.add_argument(
        "--leaves",
        type=int,
        help="PUCT's leaves per tree and network call, kept apart by a virtual loss "
        "(default: the run's config.yaml, else 1)",
    )
    parser.add_argument(
        "--engine", default="tensorflow", choices=ENGINES, help="what runs the network"
    )
    parser.add_argument(
        "--positions",
        type=Path,
        help="another file of solved positions in the same format, such as the fresh set of "
        "experiments/connect4_fresh_positions.py (default: the committed 1,002)",
    )
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        metavar="K",
        help="measure every K-th position only (1, 1+K, ...): a fixed subset, for a busy "
        "machine (default 1: all)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="append the figures to the model's run folder (solved_positions_search.jsonl), "
        "for python -m alphazero.report; --model must be RUN/models/iter_NNNN.keras or RUN",
    )
    args = parser.parse_args()
    if args.sims < 2:  # the first simulation evaluates the root: one visits no move
        parser.error(f"--sims must be at least 2, got {args.sims}")
    if args.leaves is not None and args.leaves < 1:
        parser.error(f"--leaves must be at least 1, got {args.leaves}")
    if args.c_puct is not None and not 0 < args.c_puct <= 100:  # NaN too, as play.py's
        parser.error(f"--c-puct must be above 0 and at most 100, got {args.c_puct:g}")
    if args.every < 1:
        parser.error(f"--every must be at least 1, got {args.every}")
    if args.record and (args.positions is not None or args.every > 1):
        parser.error(
            "--record keeps the run's curve on the committed positions: not with --positions "
            "or --every"
        )
    try:
        positions = load_positions(args.positions)
    except SolvedPositionsError as error:
        print(f"error: --positions: {error}", file=sys.stderr)
        return 2
    positions = positions[:: args.every]
    try:
        record_to = run_iteration(args.model) if args.record else None
    except (ReportError, ValueError) as error:
        print(f"error: --record: {error}", file=sys.stderr)
        return 2
    # A run folder alone would load its best.keras: what is recorded is the model of the
    # iteration recorded.
    measured = record_to[3] if record_to is not None else args.model
    try:
        model = load_model(measured, make("connect4"), compile=False)
        params = play_search(trained_search(measured), args.search, args.c_puct, args.leaves)
    except CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    game = make("connect4")
    try:
        network = InferenceModel(
            model, max_batch=1024, precision=args.precision, engine=args.engine
        )
    except EngineError as error:
        print(f"error: --engine {args.engine}: {error}", file=sys.stderr)
        return 2
    inference = symmetric_policy(network, game) if args.symmetric else network
    stages = ["all", *(n for n, _, _ in STAGES)]
    start = time.perf_counter()
    policy_report, values = evaluate_network(inference, positions)
    sym = ", symmetric" if args.symmetric else ""
    rows = [(f"policy (no search){sym}", policy_report, time.perf_counter() - start)]
    start = time.perf_counter()
    choose = search_chooser(inference, args.sims, params)
    actions = choose([p.game for p in positions])
    search_report = measure(positions, actions)
    rows.append((f"search, {args.sims} sims{sym}", search_report, time.perf_counter() - start))

    # A file of signs (experiments/connect4_fresh_positions.py) tells a win from a draw or a
    # loss, not a fast win from a slow one: its exact shares would only repeat the correct ones.
    signs_only = args.positions is not None and all(
        abs(v) <= 1 for p in positions for v in p.move_scores if v is not None
    )
    source = f" of {args.positions}" if args.positions is not None else ""
    shown = "correct move % (scores are signs only)" if signs_only else "correct move % / exact %"
    print(f"{args.model}: {len(positions)} positions{source}; {shown}")
    print(f"search {params.describe()}, engine {network.engine}, precision {args.precision}")
    print(f"{'player':<28}" + "".join(f"{s:>16}" for s in stages))
    for label, report, seconds in rows:
        cells = "".join(
            f"{report[k]['correct']:>9.1%}       " if signs_only
            else f"{report[k]['correct']:>9.1%} /{report[k]['exact']:>5.1%}"
            for k in stages
        )  # fmt: skip
        print(f"{label:<28}{cells}   ({seconds:.0f} s)")
    cells = "".join(f"{values[k]['result']:>9.1%} /{values[k]['mse']:>5.2f}" for k in stages)
    print(f"{'value: right result / mse':<28}{cells}")
    if not signs_only:
        by_result = measure_by_result(positions, actions)
        kinds = ", ".join(
            f"{k} {r['correct']:.1%} ({r['positions']})" for k, r in by_result.items()
        )
        print(f"search, correct by exact result: {kinds}")
    if record_to is not None:
        run, iteration, hours, _ = record_to
        entry = {
            "iteration": iteration,
            "cpu_hours": round(hours, 4),
            "simulations": args.sims,
            "algorithm": params.algorithm,
            "c_puct": params.c_puct,
            "symmetric": args.symmetric,
            "leaves": params.leaves_per_tree,
            "engine": network.engine,
            "search_correct": search_report["all"]["correct"],
            "policy_correct": policy_report["all"]["correct"],
            "value_result": values["all"]["result"],
            "by_stage": {s: search_report[s]["correct"] for s in stages[1:]},
        }
        append_jsonl(run / SEARCH_MEASURES, entry)
        print(f"recorded in {run / SEARCH_MEASURES}")
    # How far the plain network is from treating a position and its mirror image alike
    # (what --symmetric averages away).
    planes = np.stack([p.game.encode() for p in positions])
    logits, values_plain = network(planes)
    mirror_logits, mirror_values = network(np.ascontiguousarray(planes[:, :, ::-1]))
    differ = float(np.mean(np.abs(np.asarray(values_plain) - np.asarray(mirror_values))))
    mirrored_top = game.num_actions - 1 - np.argmax(mirror_logits, axis=1)
    agree = float(np.mean(np.argmax(logits, axis=1) == mirrored_top))
    print(f"plain network vs mirror images: values differ by {differ:.2f} on average, "
          f"top moves agree in {agree:.0%}")  # fmt: skip
    return 0


def run_iteration(model: Path) -> tuple[Path, int, float, Path]:
    """``(run folder, iteration, CPU hours the run had spent then, model file)`` of a run's
    model: a kept ``RUN/models/iter_NNNN.keras``, or ``RUN`` itself for its latest model (the
    one its metadata names, not the ``best.keras`` that loading the folder would give)."""
    kept = re.fullmatch(r"iter_(\d+)\.keras", model.name)
    if kept and model.parent.name == "models":
        run, iteration, file = model.parent.parent, int(kept.group(1)), model
    elif (model / "metadata.json").is_file():
        run = model
        metadata = json.loads((model / "metadata.json").read_text())
        if not isinstance(metadata, dict) or not (
            isinstance(metadata.get("model"), str) and isinstance(metadata.get("iteration"), int)
        ):
            raise ValueError(f"{model / 'metadata.json'} names no model and iteration")
        iteration, file = int(metadata["iteration"]), model / metadata["model"]
    else:
        raise ValueError(f"{model} is neither RUN/models/iter_NNNN.keras nor a run folder")
    records = read_metrics(run)
    for record, hours in zip(records, cpu_hours(records), strict=True):
        if record["iteration"] == iteration:
            return run, iteration, hours, file
    raise ValueError(f"{run}/metrics.jsonl has no iteration {iteration}")


if __name__ == "__main__":
    sys.exit(main())
