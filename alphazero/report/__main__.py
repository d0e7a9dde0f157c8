"""``python -m alphazero.report``."""

import sys

from .command import main

sys.exit(main())
