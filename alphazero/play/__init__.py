"""Playing the games: ``play.py`` in the terminal (``cli``: a person's ``session``, or a
``match`` between two players) and in the browser (``web``, its page in ``static/``)."""
