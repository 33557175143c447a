"""``python -m normalize.cli``: this layer's commands alone (the ``normalize`` script adds scoring's)."""

from normalize.cli import main

raise SystemExit(main())
