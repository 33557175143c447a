"""Public import path kept: the code lives in :mod:`normalize.io.lm_eval_log`."""

from normalize.io.lm_eval_log import *  # noqa: F403
