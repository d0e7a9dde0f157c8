import os
import signal

import pytest

from alphazero.interrupts import deferred_interrupt, sigint_ignored


def test_ctrl_c_inside_a_deferred_block_is_raised_after_the_block_ends() -> None:
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when run in the background
    finished = []
    with pytest.raises(KeyboardInterrupt), deferred_interrupt():
        os.kill(os.getpid(), signal.SIGINT)
        finished.append(True)  # the write the interrupt must not cut short
    assert finished == [True]
    assert signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_while_ignored_is_dropped_and_the_handler_restored() -> None:
    before = signal.getsignal(signal.SIGINT)
    with sigint_ignored():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before
