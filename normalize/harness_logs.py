"""Public import path kept: the code lives in :mod:`normalize.io.harness_logs`."""

from normalize.io.harness_logs import *  # noqa: F403
