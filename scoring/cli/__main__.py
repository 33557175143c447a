"""``python -m scoring.cli``: the ``normalize`` command, as the console script runs it."""

from scoring.cli import main

raise SystemExit(main())
