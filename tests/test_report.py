"""python -m alphazero.report draws a run's curves; a folder without metrics is one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def record(iteration: int, elo: float | None) -> dict:
    data = {
        "iteration": iteration,
        "train": {"policy_loss": 2.0 / iteration, "value_loss": 0.5, "policy_entropy": 1.5},
    }
    if elo is not None:
        data["evaluation"] = {
            "elo": elo,
            "ladder": {"uct:200": 0.0, "uct:1000": 150.0},
            "opponents": {"uct:200": {"score": 0.6}, "uct:1000": {"score": 0.4}},
        }
    return data


def test_report_draws_a_png(tmp_path):
    lines = [json.dumps(record(i, 10.0 * i if i % 2 == 0 else None)) for i in range(1, 7)]
    (tmp_path / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.report", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    png = (tmp_path / "report.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_report_on_a_folder_without_metrics_is_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.report", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "metrics.jsonl" in result.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [("nowhere", "no such folder"), ("metrics.jsonl", "not a folder")],
)
def test_report_on_a_folder_that_is_not_there_says_so(tmp_path, capsys, name, message):
    from alphazero.report.command import main

    (tmp_path / "metrics.jsonl").write_text(json.dumps(record(1, None)) + "\n")
    assert main([str(tmp_path / name)]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / name}: {message} (give a run folder from train.py)\n"
    )


def test_a_shipped_runs_report_goes_to_the_current_directory_not_into_the_checkout(
    tmp_path, monkeypatch, capsys
):
    from alphazero.report.command import main

    lines = [json.dumps(record(i, 10.0 * i)) for i in range(1, 4)]
    for shipped in ("pretrained", "in_progress"):
        run = tmp_path / "checkpoints" / shipped / "game"
        run.mkdir(parents=True)
        (run / "metrics.jsonl").write_text("\n".join(lines) + "\n")
        here = tmp_path / f"here_{shipped}"
        here.mkdir()
        monkeypatch.chdir(here)
        assert main([str(run)]) == 0
        assert capsys.readouterr().out.startswith("wrote game_report.png")
        assert (here / "game_report.png").is_file() and not (run / "report.png").exists()
    own = tmp_path / "checkpoints" / "game"  # a run of one's own: its report beside it
    own.mkdir()
    (own / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    assert main([str(own)]) == 0
    assert (own / "report.png").is_file()


def test_hours_that_are_no_number_are_one_line_naming_the_option(tmp_path, capsys):
    from alphazero.report.command import main

    with pytest.raises(SystemExit) as exit:
        main([str(tmp_path), "-o", str(tmp_path / "r.png"), "--hours", "all"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == "error: --hours: expected a number, got 'all'\n"


@pytest.mark.parametrize("hours", ["-1", "0", "nan", "inf"])
def test_hours_that_are_no_positive_number_are_one_line(tmp_path, capsys, hours):
    from alphazero.report.command import main

    out = tmp_path / "r.png"
    assert main([str(tmp_path), "-o", str(out), "--hours", hours]) == 2
    message = f"error: --hours must be above 0 and finite, got {float(hours):g}\n"
    assert capsys.readouterr().err == message and not out.exists()


def test_an_x_axis_that_is_none_of_the_choices_is_one_line_naming_them(tmp_path, capsys):
    from alphazero.report.command import main

    with pytest.raises(SystemExit) as exit:
        main([str(tmp_path), "--x", "days"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == "error: --x: expected cpu-hours or iteration, got 'days'\n"


def test_cpu_hours_count_selfplay_and_training_or_the_recorded_total():
    from alphazero.report.strength import cpu_hours

    old = [{"selfplay": {"cpu_seconds": 1800}, "train_seconds": 1800}] * 2
    assert cpu_hours(old) == [1.0, 2.0]
    new = [{"selfplay": {"cpu_seconds": 10}, "train_cpu_seconds": 10, "cpu_seconds": 7200}]
    assert cpu_hours(new) == [2.0]


def test_several_runs_share_one_correct_moves_panel(tmp_path):
    runs = []
    for name, share in (("a", 0.6), ("b", 0.7)):
        run = tmp_path / name
        run.mkdir()
        lines = [
            json.dumps(
                {
                    **record(i, None),
                    "selfplay": {"cpu_seconds": 360.0},
                    "train_cpu_seconds": 0.0,
                    "connect4_positions": {"policy_correct": share + 0.01 * i},
                }
            )
            for i in range(1, 5)
        ]
        (run / "metrics.jsonl").write_text("\n".join(lines) + "\n")
        runs.append(str(run))
    out = tmp_path / "curves.png"
    command = [sys.executable, "-m", "alphazero.report", *runs]
    missing = subprocess.run(command, capture_output=True, text=True)
    assert missing.returncode == 2 and "-o PATH" in missing.stderr
    result = subprocess.run([*command, "-o", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(b"\x89PNG")


def test_one_run_given_twice_is_one_line(tmp_path, monkeypatch, capsys):
    """``RUN RUN/`` or two paths to one folder: a run compared with itself is refused, where the
    two labels were once the same and the panel crashed."""
    from alphazero.report.command import main

    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_text(json.dumps(record(1, None)) + "\n")
    (tmp_path / "link").symlink_to(run)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.png"
    for given, message in (
        (["run", "run/"], "run given twice"),
        (["run", "../" + tmp_path.name + "/run"], f"run and ../{tmp_path.name}/run are one folder"),
        (["link", "run"], "link and run are one folder"),
    ):
        assert main([*given, "-o", str(out)]) == 2
        assert capsys.readouterr().err == f"error: {message}\n" and not out.exists()


def test_positions_record_lands_in_the_run_and_on_its_curve(tmp_path):
    """``connect4_positions.py --record`` appends a kept model's figures with search, at the
    CPU hours its run had spent, and the several-run panel draws them beside the raw policy."""
    from alphazero.config import NetworkConfig
    from alphazero.games import make
    from alphazero.network.model import build_network

    game = make("connect4")
    run = tmp_path / "run"
    (run / "models").mkdir(parents=True)
    net = build_network(game.plane_shape, game.num_actions, NetworkConfig(filters=8, blocks=1))
    net.save(run / "models" / "iter_0002.keras")
    lines = [
        {**record(i, None), "selfplay": {"cpu_seconds": 900.0}, "train_cpu_seconds": 900.0,
         "connect4_positions": {"policy_correct": 0.5}}
        for i in (1, 2, 3)
    ]  # fmt: skip
    (run / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    script = [sys.executable, "benchmarks/connect4_positions.py", "--sims", "2", "--record"]

    bare = tmp_path / "model.keras"
    net.save(bare)
    refused = subprocess.run([*script, "--model", str(bare)], capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr

    model = run / "models" / "iter_0002.keras"
    result = subprocess.run([*script, "--model", str(model)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    (measure,) = [json.loads(line) for line in (run / "solved_positions_search.jsonl").open()]
    assert measure["iteration"] == 2 and measure["cpu_hours"] == 1.0  # 2 x (900 + 900) s
    assert measure["simulations"] == 2 and 0.0 <= measure["search_correct"] <= 1.0

    other = tmp_path / "other"
    other.mkdir()
    (other / "metrics.jsonl").write_text((run / "metrics.jsonl").read_text())
    pngs = []
    for name in ("with.png", "without.png"):
        if name == "without.png":
            (run / "solved_positions_search.jsonl").unlink()
        out = tmp_path / name
        drawn = subprocess.run(
            [sys.executable, "-m", "alphazero.report", str(run), str(other), "-o", str(out)],
            capture_output=True,
            text=True,
        )
        assert drawn.returncode == 0, drawn.stderr
        pngs.append(out.read_bytes())
    assert pngs[0] != pngs[1]  # the markers and their legend entry are drawn


def test_positions_record_of_a_run_folder_measures_the_latest_model_not_best(tmp_path):
    """``--record --model RUN`` records the latest iteration, so it must measure that
    iteration's model, not the ``best.keras`` that loading the folder gives."""
    from alphazero.config import NetworkConfig
    from alphazero.games import make
    from alphazero.network.model import build_network

    small = NetworkConfig(filters=8, blocks=1)
    run = tmp_path / "run"
    (run / "models").mkdir(parents=True)
    connect4 = make("connect4")
    build_network(connect4.plane_shape, connect4.num_actions, small).save(
        run / "models" / "iter_0003.keras"
    )
    # A best.keras that is not this iteration's model (here not even a Connect Four one): the
    # measure must not touch it.
    ttt = make("tictactoe")
    build_network(ttt.plane_shape, ttt.num_actions, small).save(run / "best.keras")
    metadata = {"format": 2, "iteration": 3, "model": "models/iter_0003.keras"}
    (run / "metadata.json").write_text(json.dumps(metadata))
    lines = [
        {**record(i, None), "selfplay": {"cpu_seconds": 900.0}, "train_cpu_seconds": 900.0}
        for i in (1, 2, 3)
    ]
    (run / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    script = [sys.executable, "benchmarks/connect4_positions.py", "--sims", "2", "--record"]
    result = subprocess.run([*script, "--model", str(run)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    (measure,) = [json.loads(line) for line in (run / "solved_positions_search.jsonl").open()]
    assert measure["iteration"] == 3 and measure["cpu_hours"] == 1.5


def test_a_search_measure_without_its_figures_is_one_line(tmp_path):
    from alphazero.report.records import ReportError, read_search_measures

    (tmp_path / "solved_positions_search.jsonl").write_text('{"iteration": 3}\n')
    with pytest.raises(ReportError, match="line 1 lacks cpu_hours, search_correct, simulations"):
        read_search_measures(tmp_path)


def test_a_run_of_one_iteration_says_not_enough_iterations_yet(tmp_path):
    (tmp_path / "metrics.jsonl").write_text(json.dumps(record(1, None)) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.report", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "not enough iterations yet: 1 recorded" in result.stdout
    assert (tmp_path / "report.png").read_bytes().startswith(b"\x89PNG")


def test_a_clean_sweep_is_marked_above_the_elo_scale_not_drawn_at_the_cap(tmp_path):
    from alphazero.evaluation.ladder import ELO_BOUND
    from alphazero.report.figure import draw
    from alphazero.report.strength import capped

    records = [record(i, elo) for i, elo in ((1, 300.0), (2, ELO_BOUND), (3, 700.0))]
    shown = draw(records, tmp_path / "r.png", "sweep")
    assert "clean sweep: above the scale (Elo unmeasured)" in shown
    assert capped(ELO_BOUND) and capped(-ELO_BOUND) and not capped(2999.0)
    shown = draw([record(1, 300.0), record(2, 700.0)], tmp_path / "r.png", "no sweep")
    assert not any("sweep" in note for note in shown)


def test_one_run_shows_its_solved_positions_and_scores_with_their_interval(tmp_path):
    from alphazero.report.figure import draw

    records = [
        {**record(i, 100.0 * i), "connect4_positions": {"policy_correct": 0.5 + 0.1 * i,
                                                         "value_result": 0.4}}
        for i in (1, 2, 3)
    ]  # fmt: skip
    for r in records:
        r["evaluation"]["opponents"]["uct:200"].update(score_low=0.4, score_high=0.8)
    shown = draw(records, tmp_path / "r.png", "solved")
    assert shown == ["loss", "solved positions", "Elo (ladder)", "score (shaded: 95% interval)"]
    # A run that measures none, and has no evaluation yet, says so in one low panel.
    plain = [{"iteration": i, "train": record(i, None)["train"]} for i in (1, 2)]
    shown = draw(plain, tmp_path / "r.png", "plain")
    assert shown[0] == "loss" and shown[1].startswith("no evaluation yet")


def spent(iteration: int, elo: float | None, cpu_seconds: float) -> dict:
    """A record of ``record`` with its CPU: the run's total so far and its parts."""
    return {
        **record(iteration, elo),
        "selfplay": {"cpu_seconds": 100.0},
        "train_cpu_seconds": 50.0,
        "cpu_seconds": cpu_seconds,
    }


# Totals that do not grow in step with the iteration: the evaluations at 2 and 4 lie at
# 0.3 and 1.0 CPU hours, not at any multiple of their iteration.
TOTALS = {1: 360.0, 2: 1080.0, 3: 1440.0, 4: 3600.0}


def _bottom(fig):
    """The lowest panel, the scores, which carries the x axis's label."""
    return next(ax for ax in fig.axes if ax.get_ylabel().startswith("score"))


def _strength_lines(fig) -> dict[str, list]:
    """The x values of each labelled line on the Elo and score panels."""
    panels = [ax for ax in fig.axes if ax.get_ylabel().startswith(("Elo", "score"))]
    return {line.get_label(): list(line.get_xdata()) for ax in panels for line in ax.lines}


def test_one_run_draws_its_strength_against_the_cpu_hours_it_had_spent():
    from alphazero.report.figure import figure

    records = [spent(i, 100.0 * i if i % 2 == 0 else None, TOTALS[i]) for i in TOTALS]
    fig, _ = figure(records, "hours")
    lines = _strength_lines(fig)
    assert lines["Elo"] == pytest.approx([0.3, 1.0])
    assert lines["vs uct:200"] == pytest.approx([0.3, 1.0])
    assert lines["vs uct:1000"] == pytest.approx([0.3, 1.0])
    assert _bottom(fig).get_xlabel().startswith("CPU hours, cumulative: all train.py processes")
    (top,) = fig.axes[0].child_axes  # the iteration, above the top panel
    assert top.get_xlabel() == "iteration"

    fig, _ = figure(records, "iterations", x="iteration")
    assert _strength_lines(fig)["Elo"] == [2, 4]
    assert _bottom(fig).get_xlabel() == "iteration"
    # Metrics without the CPU spent are drawn by iteration, whatever was asked.
    bare = [record(i, 100.0 * i if i % 2 == 0 else None) for i in TOTALS]
    fig, _ = figure(bare, "no hours")
    assert _strength_lines(fig)["Elo"] == [2, 4]


def test_one_runs_hours_show_its_first_cpu_hours(tmp_path, capsys):
    """``--hours`` on one run cuts its CPU-hours axis as it does several runs' panel; where the
    run is drawn by iteration, it is refused in one line rather than ignored."""
    from alphazero.report.command import main
    from alphazero.report.figure import figure

    records = [spent(i, 100.0 * i if i % 2 == 0 else None, TOTALS[i]) for i in TOTALS]
    fig, _ = figure(records, "hours", hours=0.5)
    assert _bottom(fig).get_xlim() == pytest.approx((0.0, 0.5))
    assert _strength_lines(fig)["Elo"] == pytest.approx([0.3, 1.0])  # drawn, the axis cut

    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "r.png"
    assert main([str(run), "-o", str(out), "--hours", "0.5"]) == 0
    assert out.read_bytes().startswith(b"\x89PNG")
    out.unlink()
    assert main([str(run), "-o", str(out), "--hours", "0.5", "--x", "iteration"]) == 2
    err = capsys.readouterr().err
    assert err == "error: --hours needs the CPU-hours x axis, not --x iteration\n"
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "metrics.jsonl").write_text("".join(json.dumps(record(i, None)) + "\n" for i in TOTALS))
    assert main([str(bare), "-o", str(out), "--hours", "0.5"]) == 2
    assert capsys.readouterr().err == (
        f"error: --hours: {bare}'s metrics.jsonl lacks the self-play CPU of some iterations, "
        "so it is drawn by iteration\n"
    )
    assert not out.exists()


def test_several_runs_are_drawn_by_iteration_with_x_iteration(tmp_path, capsys):
    """``--x iteration`` applies to several runs too, where it was once silently ignored: the
    raw policy's line and the search markers lie at their iterations, not their CPU hours;
    ``--hours`` with it is refused in one line rather than cut an iteration axis."""
    from alphazero.report.command import main
    from alphazero.report.compare import correct_moves_figure

    runs = {
        name: [{**spent(i, None, TOTALS[i]), "connect4_positions": {"policy_correct": 0.6}}
               for i in TOTALS]
        for name in ("a", "b")
    }  # fmt: skip
    searched = {"a": [{"iteration": 3, "cpu_hours": 0.4, "simulations": 50,
                       "search_correct": 0.8}]}  # fmt: skip
    (ax,) = correct_moves_figure(runs, searched=searched, x="iteration").axes
    xs = {line.get_label(): list(line.get_xdata()) for line in ax.lines}
    assert xs == {
        "a: raw policy": [1, 2, 3, 4],
        "a: 50 simulations": [3],
        "b: raw policy": [1, 2, 3, 4],
    }
    assert ax.get_xlabel() == "iteration"
    (ax,) = correct_moves_figure(runs, searched=searched).axes  # CPU hours, as before
    assert list(ax.lines[0].get_xdata()) == pytest.approx([0.1, 0.3, 0.4, 1.0])
    assert list(ax.lines[1].get_xdata()) == [0.4]

    for name, records in runs.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records)
        )
    out = tmp_path / "r.png"
    given = [str(tmp_path / "a"), str(tmp_path / "b"), "-o", str(out), "--x", "iteration"]
    assert main(given) == 0 and out.read_bytes().startswith(b"\x89PNG")
    out.unlink()
    assert main([*given, "--hours", "0.5"]) == 2 and not out.exists()
    err = capsys.readouterr().err
    assert err == "error: --hours needs the CPU-hours x axis, not --x iteration\n"


def test_the_hours_label_says_what_the_metrics_counted():
    from alphazero.report.strength import cpu_hours, hours_label

    old = [{"selfplay": {"cpu_seconds": 1800.0}, "train_seconds": 1800.0}] * 2
    assert hours_label(old).endswith("self-play CPU + training wall time (evaluation not recorded)")
    assert cpu_hours(old) == [1.0, 2.0]
    assert hours_label([{"selfplay": {}, "train_seconds": 1.0}]) is None
    assert "evaluation + checkpoints" in hours_label([spent(1, None, 60.0)])


def test_the_report_prints_each_evaluation_with_the_cpu_hours_spent_by_then(tmp_path):
    from alphazero.evaluation.ladder import ELO_BOUND

    elos = {1: None, 2: 150.0, 3: None, 4: ELO_BOUND}
    records = [spent(i, elos[i], TOTALS[i]) for i in TOTALS]
    records[1]["evaluation"]["opponents"]["uct:200"].update(score_low=0.4, score_high=0.8)
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = subprocess.run(
        [sys.executable, "-m", "alphazero.report", str(tmp_path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    head = lines.index(next(line for line in lines if line.startswith("iteration")))
    assert lines[head].split() == ["iteration", "CPU", "hours", "Elo", "uct:200", "uct:1000"]
    assert "all train.py processes" in lines[head - 1]
    rows = lines[head + 1 :]
    assert [row.split()[:2] for row in rows] == [["2", "0.30"], ["4", "1.00"]]
    assert rows[0].split()[2:] == ["150", "0.60", "[0.40,", "0.80]", "0.40"]
    assert rows[1].split()[2:] == ["all", "won", "0.60", "0.40"]
