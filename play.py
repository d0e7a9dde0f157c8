"""Play a game in the terminal against a trained model (not built yet: see issue 5)."""

from __future__ import annotations

import sys


def main() -> int:
    print(
        "play.py is not built yet: playing against a model arrives with the terminal game.\n"
        "Train one meanwhile with: python train.py",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
