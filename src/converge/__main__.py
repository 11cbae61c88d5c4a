"""``python -m converge``: the ``converge`` command."""

import sys

from converge.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
