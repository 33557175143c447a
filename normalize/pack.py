"""Public import path kept: the code lives in :mod:`normalize.core.pack`."""

from normalize.core.pack import *  # noqa: F403
