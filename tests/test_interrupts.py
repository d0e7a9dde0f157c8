"""Ctrl-C deferred and ignored (``alphazero.interrupts``).

Each check signals a fresh Python process of its own, never the pytest process: once a
process has made and dropped OpenVINO and ONNX Runtime objects (as other tests do), a SIGINT
to it was seen to crash it with a segmentation fault.
"""

from __future__ import annotations

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
        from alphazero.interrupts import deferred_interrupt

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
        from alphazero.interrupts import sigint_ignored

        before = signal.getsignal(signal.SIGINT)
        with sigint_ignored():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is before
        print("dropped")
        """
    )
    assert out.strip() == "dropped"
