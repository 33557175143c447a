"""Public import path kept: the code lives in :mod:`normalize.core.registry`."""

from normalize.core.registry import *  # noqa: F403
