"""Import TensorFlow and Keras once, without their C++ start-up chatter.

TensorFlow's native libraries print to stderr while they load and while they look for a GPU
(oneDNN notices, "could not find cuda drivers", a cuInit error on CPU-only machines), before
its own logging settings apply. Those lines bury the one-line errors and progress bars users
should see, so the import and the device probe run with file descriptor 2 pointed at
/dev/null. Python errors are raised after stderr is restored, so nothing useful is lost.
Set ``ALPHAZERO_TF_VERBOSE=1`` to see the chatter.

On x86-64, TensorFlow turns its oneDNN kernels on only for CPUs with AVX-512 or AMX; on an
AVX2 machine (many AMD and older Intel ones) training then runs on slower kernels, markedly
slower for the larger networks (``benchmarks/training_step.py``), so they are asked for
here unless ``TF_ENABLE_ONEDNN_OPTS`` is already set (``0`` turns them off). Results may
differ from the other kernels in the last bits of float arithmetic.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def _silenced_stderr() -> Iterator[None]:
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (some embedded interpreters)
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _import_quietly() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if platform.machine().lower() in ("x86_64", "amd64"):
        os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")
    if "tensorflow" in sys.modules or os.environ.get("ALPHAZERO_TF_VERBOSE"):
        return
    with _silenced_stderr():
        import keras  # noqa: F401
        import tensorflow as tf

        tf.config.list_physical_devices("GPU")  # the device probe that logs on CPU machines


_import_quietly()

import keras  # noqa: E402, F401  (imported quietly above: modules take it from here)
