import os
import signal

import pytest

from alphazero.interrupts import deferred_interrupt, sigint_ignored


def test_ctrl_c_inside_a_deferred_block_is_raised_after_the_block_ends() -> None:
    finished = []
    with pytest.raises(KeyboardInterrupt), deferred_interrupt():
        os.kill(os.getpid(), signal.SIGINT)
        finished.append(True)  # the write the interrupt must not cut short
    assert finished == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_while_ignored_is_dropped_and_the_handler_restored() -> None:
    with sigint_ignored():
        os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
