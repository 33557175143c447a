"""Public import path kept: the code lives in :mod:`normalize.values.mathanswer`."""

from normalize.values.mathanswer import *  # noqa: F403
