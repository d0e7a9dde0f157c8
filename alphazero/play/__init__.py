"""Playing the games: ``play.py`` in the terminal (``cli``: a person's ``session``, or a
``match`` between two players) and in the browser (``web`` and the ``web_*`` modules, its page
in ``static/``)."""
