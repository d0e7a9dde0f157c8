"""Ctrl-C deferred and ignored (``alphazero.training.interrupts``).

Each check signals a fresh Python process of its own, never the pytest process: once a
process has made and dropped OpenVINO and ONNX Runtime objects (as other tests do), a SIGINT
to it was seen to crash it with a segmentation fault.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_fresh(code: str) -> str:
    """Run ``code`` in a new interpreter that imports this checkout; its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_ctrl_c_inside_a_deferred_block_is_raised_after_the_block_ends() -> None:
    out = run_fresh(
        """
        import os, signal
        from alphazero.training.interrupts import deferred_interrupt

        before = signal.getsignal(signal.SIGINT)  # SIG_IGN when run in the background
        finished = []
        try:
            with deferred_interrupt():
                os.kill(os.getpid(), signal.SIGINT)
                finished.append(True)  # the write the interrupt must not cut short
        except KeyboardInterrupt:
            print("interrupted after the block")
        assert finished == [True]
        assert signal.getsignal(signal.SIGINT) is before
        """
    )
    assert out.strip() == "interrupted after the block"


def test_ctrl_c_while_ignored_is_dropped_and_the_handler_restored() -> None:
    out = run_fresh(
        """
        import os, signal
        from alphazero.training.interrupts import sigint_ignored

        before = signal.getsignal(signal.SIGINT)
        with sigint_ignored():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is before
        print("dropped")
        """
    )
    assert out.strip() == "dropped"


def test_ctrl_c_that_a_finalizer_swallowed_is_raised_at_the_next_check() -> None:
    out = run_fresh(
        """
        import os, signal
        from alphazero.training.interrupts import raise_if_interrupted, stop_on_ctrl_c

        class Finalized:
            def __del__(self):  # where TensorFlow's resources are freed
                os.kill(os.getpid(), signal.SIGINT)

        before = signal.getsignal(signal.SIGINT)
        with stop_on_ctrl_c():
            Finalized()  # Python prints the KeyboardInterrupt raised in __del__, and drops it
            print("went on")
            try:
                raise_if_interrupted()
            except KeyboardInterrupt:
                print("raised at the check")
            raise_if_interrupted()  # once only: whoever caught it has stopped
            try:
                Finalized()
            except KeyboardInterrupt:
                pass
        assert signal.getsignal(signal.SIGINT) is before
        raise_if_interrupted()  # the one left over is forgotten with the block
        print("done")
        """
    )
    assert out.split() == ["went", "on", "raised", "at", "the", "check", "done"]


def test_training_stops_on_a_ctrl_c_that_a_finalizer_swallowed(tmp_path: Path) -> None:
    """As it did when the signal landed in TensorFlow's ``EagerResourceDeleter.__del__``."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(
            f"""
            import os, signal
            from alphazero.config import config_from_dict
            from alphazero.training.trainer import Trainer
            from alphazero.training.loop import train

            class Finalized:
                def __del__(self):
                    os.kill(os.getpid(), signal.SIGINT)

            calls = []
            train_step = Trainer.train_step

            def step_that_drops_a_ctrl_c(self, *args):
                calls.append(None)
                if len(calls) == 6:  # iteration 2's second step: iteration 1 is saved
                    Finalized()
                return train_step(self, *args)

            Trainer.train_step = step_that_drops_a_ctrl_c
            config = config_from_dict({{
                "game": {{"name": "tictactoe"}},
                "network": {{"filters": 8, "blocks": 1, "value_hidden": 8}},
                "search": {{"simulations": 8}},
                "selfplay": {{"games_per_iteration": 4, "parallel_games": 4}},
                "train": {{"batch_size": 16, "steps_per_iteration": 4, "min_positions": 0}},
                "evaluation": {{"every": 0}},
                "iterations": 30,
            }})
            state = train(config, {str(tmp_path / "run")!r}, progress=False)
            print("stopped at iteration", state.iteration, "after", len(calls), "steps")
            """
        )],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-5:] == ["iteration", "1", "after", "6", "steps"]
    assert "holds iteration 1" in done.stderr and "--resume" in done.stderr
    # The Ctrl-C came in iteration 2's training: its 2 steps so far are not in the checkpoint.
    assert "iteration 2's 2 training steps so far are not kept" in done.stderr


def test_self_play_and_a_match_stop_at_their_next_step_after_a_swallowed_ctrl_c() -> None:
    out = run_fresh(
        """
        import os, signal
        import numpy as np
        from alphazero.evaluation.arena import play_match
        from alphazero.config import SearchConfig, SelfPlayConfig
        from alphazero.games import make
        from alphazero.training.interrupts import stop_on_ctrl_c
        from alphazero.evaluation.players import RandomPlayer
        from alphazero.selfplay.loop import play_games

        class Finalized:
            def __del__(self):
                os.kill(os.getpid(), signal.SIGINT)

        calls = []

        def uniform(planes):  # a network that drops a Ctrl-C in its third call
            calls.append(None)
            if len(calls) == 3:
                Finalized()
            return np.zeros((len(planes), 9)), np.zeros(len(planes))

        with stop_on_ctrl_c():
            try:
                play_games(lambda: make("tictactoe"), uniform, 100, SearchConfig(simulations=8),
                           SelfPlayConfig(parallel_games=4), np.random.default_rng(0), False)
            except KeyboardInterrupt:
                print("self-play stopped after", len(calls), "network calls")

        class DropsCtrlC(RandomPlayer):
            def __call__(self, game):
                calls.append(None)
                if len(calls) == 10:
                    Finalized()
                return super().__call__(game)

        calls.clear()
        with stop_on_ctrl_c():
            try:
                play_match(DropsCtrlC(), RandomPlayer(), lambda: make("tictactoe"), 1000, False)
            except KeyboardInterrupt:
                print("the match stopped after", len(calls), "moves")
        """
    )
    assert out.splitlines() == [
        "self-play stopped after 3 network calls",
        # a match checks between rounds: the first is one move in each of its 500 games as first
        "the match stopped after 500 moves",
    ]
