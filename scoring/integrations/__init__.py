"""Integrations with the harnesses and trainers people already use.

Each module imports its host library lazily (or only when used), so importing
``scoring.integrations`` never needs lm-eval, inspect_ai, TRL, verl or pandas:

* :mod:`scoring.integrations.lm_eval` — an lm-evaluation-harness filter and metrics for task YAMLs;
* :mod:`scoring.integrations.inspect` — an inspect_ai scorer with parse-rate and strict-accuracy metrics;
* :mod:`scoring.integrations.rewards` — reward functions with TRL's and verl's signatures;
* :mod:`scoring.integrations.frame` — :func:`~scoring.integrations.frame.results_frame`, a table view.

Reading lm-eval's ``--log_samples`` files lives in :mod:`normalize.io.lm_eval_log` (no lm-eval needed).
"""
