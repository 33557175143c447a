"""Public import path kept: the code lives in :mod:`normalize.io.rows`."""

from normalize.io.rows import *  # noqa: F403
