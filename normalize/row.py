"""Public import path kept: the code lives in :mod:`normalize.io.row`."""

from normalize.io.row import *  # noqa: F403
