"""Public import path kept: the code lives in :mod:`normalize.core.engine`."""

from normalize.core.engine import *  # noqa: F403
