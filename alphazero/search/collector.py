"""The garbage collector paced for the search: full collections made rare while one runs.

Python's collector makes a full collection (of generation 2) after every 10 collections of
generation 1, once the objects promoted since the last one are a quarter of those it already
holds, and a full collection walks every object it tracks: with TensorFlow loaded about
350,000 besides the search trees. A search makes several objects per simulation (a node per
legal move, a dict of children), most of which live long enough to be promoted, so at the
default thresholds full collections came every few thousand simulations and took about a
third of the search's CPU (PUCT, 128 Connect Four games; ``benchmarks/search_python.py``).

While a search runs, a full collection waits for ``FULL_COLLECTION_EVERY`` collections of
generation 1 instead. That keeps no more garbage: a search tree holds no reference cycle (a
node's ``mother`` is a weak reference), so reference counting frees a dropped tree at once.
Not ``gc.freeze()`` after the model is loaded: it takes TensorFlow's objects out of the walk
but not the trees, and with fewer objects held the quarter rule fires more often (measured:
no faster). Not ``gc.disable()``: cycles made elsewhere in the process would never be freed.

The threshold is one for the whole process, and the web app searches in one thread per
session: the first search step to start raises it and the last one to end restores it.
``policies.search`` holds it from its first root's beginning to its last choice, and
self-play from its first game to its last (``selfplay.play_games``): held during the steps
alone, a full collection they held back came all the same at the first allocations between
two steps (the quarter rule still lets one come once enough objects were promoted).
"""

from __future__ import annotations

import gc
import threading
from types import TracebackType

FULL_COLLECTION_EVERY = 1000
"""Collections of generation 1 between two full collections while a search runs (Python's
default is 10)."""


class _RareFullCollections:
    """Context manager: full collections rare until the last search inside it ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._searches = 0
        self._saved = gc.get_threshold()

    def __enter__(self) -> None:
        with self._lock:
            if self._searches == 0:
                current = gc.get_threshold()
                # A Ctrl-C between __exit__'s count and its restore can leave our own
                # threshold set: that is not the one to restore later.
                if current[2] != FULL_COLLECTION_EVERY:
                    self._saved = current
                first, second, third = self._saved
                gc.set_threshold(first, second, max(third, FULL_COLLECTION_EVERY))
            self._searches += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with self._lock:
            self._searches -= 1
            if self._searches == 0:
                gc.set_threshold(*self._saved)


rare_full_collections = _RareFullCollections()
"""``with rare_full_collections:`` around a search step (``batched.search_step``), a whole
search (``policies.search``) and all of self-play."""
