"""Public import path kept: the code lives in :mod:`normalize.io.stream`."""

from normalize.io.stream import *  # noqa: F403
