"""Public import path kept: the code lives in :mod:`normalize.io.jsonl`."""

from normalize.io.jsonl import *  # noqa: F403
