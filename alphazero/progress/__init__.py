"""Progress while a long phase runs: the bars, a live one on a terminal and whole lines in a
log (``bars``), and where a training run is and how long it has left, which those bars and the
iteration's summary lines show (``eta``)."""
