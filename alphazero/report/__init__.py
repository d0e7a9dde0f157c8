"""A training run's report: ``python -m alphazero.report RUN_DIR`` draws its curves as a PNG
and prints its strength table (``command``). What it reads from a run folder is ``records``',
one run's figure ``figure``'s, several runs in one panel ``compare``'s, and the strength by
CPU hours ``strength``'s."""
