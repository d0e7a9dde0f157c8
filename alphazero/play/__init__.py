"""Playing against the trained models: ``web`` serves the board in a browser (``python play.py
--web``); the terminal game is ``alphazero.terminal``.
"""
