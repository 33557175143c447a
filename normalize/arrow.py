"""Public import path kept: the code lives in :mod:`normalize.io.arrow`."""

from normalize.io.arrow import *  # noqa: F403
