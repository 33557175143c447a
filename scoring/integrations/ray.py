"""Ray Data: normalize and score a dataset on a cluster, and reduce the report there.

>>> import ray  # doctest: +SKIP
>>> from scoring.integrations.ray import NormalizeBatches, ScoreBatches, report_from_dataset  # doctest: +SKIP
>>> ds = ray.data.read_parquet("rollouts.parquet")  # doctest: +SKIP
>>> scored = ds.map_batches(ScoreBatches, fn_constructor_kwargs={"task": "gsm8k"},  # doctest: +SKIP
...                         batch_format="pyarrow", concurrency=8)
>>> report = report_from_dataset(scored)  # doctest: +SKIP

:class:`NormalizeBatches` adds the columns ``normalize run`` adds (``normalized``, ``answer``,
``status``, ``reason``, ``trace`` unless ``trace="none"``, ``rules_hash``, ``extra``,
``task_type``); :class:`ScoreBatches` those of ``normalize score -o`` (also ``correct``,
``score``, ``score_note``).  Both are callable classes for ``Dataset.map_batches(...,
batch_format="pyarrow" | "pandas" | "numpy", concurrency=N)``: Ray builds one per actor, which
loads the pack once (a ``Pack`` given here travels pickled, ~15 kB; a path is read on each
node) and checks its hash (``pack_hash=``: fail on a node whose pack differs).  ``answer``,
``trace`` and ``extra`` are JSON text (one Arrow type per column whatever the task; see
:mod:`scoring.integrations._batches`); :func:`decode_columns` reads a row back.  The values are
those of ``normalize run`` on the same rows: the rows take its very path.

:func:`report_from_dataset` builds ``normalize score``'s report from a scored dataset without
bringing rows to the driver: each block becomes the report's running totals for its rows (a
:class:`~scoring.report.ReportBuilder`, a few counters per task plus a byte per scorable item
for the bootstrap), and the driver merges them in the dataset's order
(:meth:`~scoring.report.ReportBuilder.merge`), so the report, intervals included, is the one
``normalize score`` gives on the same rows in the same order.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from normalize.core.pack import Pack
from normalize.io.arrow import JSON_COLUMNS, batch_rows, pyarrow
from normalize.io.jsonl import restore_written_values
from scoring._items import item_of
from scoring.integrations._batches import BatchScorer, decode_columns
from scoring.integrations._shared import cached_pack
from scoring.metrics import read_scored
from scoring.report import DEFAULT_CV_THRESHOLD, ReportBuilder

__all__ = ["NormalizeBatches", "ScoreBatches", "apply_to_batch", "decode_columns", "report_from_dataset"]


def _plain(value: Any) -> Any:
    """A numpy value (a batch of ``batch_format="numpy"``) as the Python value a JSON row holds."""
    tolist = getattr(value, "tolist", None)
    if tolist is not None and not isinstance(value, (str, bytes)):
        value = tolist()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def apply_to_batch(scorer: BatchScorer, batch: Any) -> Any:
    """``batch`` (a ``pyarrow.Table``/``RecordBatch``, a pandas ``DataFrame`` or a dict of numpy
    arrays) with the scorer's columns added, in the same batch format."""
    pa = pyarrow()
    if isinstance(batch, (pa.Table, pa.RecordBatch)):
        return scorer.table(batch)
    if hasattr(batch, "to_dict") and hasattr(batch, "columns") and hasattr(batch, "copy"):  # pandas
        return scorer.frame(batch)
    if isinstance(batch, Mapping):
        import numpy as np

        names = list(batch)
        n = len(batch[names[0]]) if names else 0
        rows = [{name: _plain(batch[name][i]) for name in names} for i in range(n)]
        out = dict(batch)
        for name, values in scorer.added(rows).items():
            column = np.empty(n, dtype=object)
            column[:] = values
            out[name] = column
        return out
    raise TypeError(f"a batch must be a pyarrow Table, a pandas DataFrame or a dict of arrays, "
                    f"got {type(batch).__name__}")


class NormalizeBatches:
    """``ds.map_batches(NormalizeBatches, fn_constructor_kwargs={...}, concurrency=N)``: the columns
    ``normalize run`` adds.  ``task``: the task of every row (default: each row's ``task``);
    ``pack``: a ``Pack`` or a pack file (default: the shipped packs); ``trace``: ``none``
    (default), ``rules`` or ``full``; ``pack_hash``: the hash the pack must have here;
    ``line_column``: a column of row numbers for the reasons of invalid rows (default: the
    row's place in its batch)."""

    score = False

    def __init__(self, task: str | None = None, pack: Pack | str | Path | None = None, trace: str = "none", *,
                 pack_hash: str | None = None, line_column: str | None = None) -> None:
        self.scorer = BatchScorer(task, pack, trace, pack_hash=pack_hash, score=self.score, line_column=line_column)

    @property
    def pack_hash(self) -> str:
        return self.scorer.pack_hash

    def __call__(self, batch: Any) -> Any:
        return apply_to_batch(self.scorer, batch)


class ScoreBatches(NormalizeBatches):
    """``ds.map_batches(ScoreBatches, ...)``: the columns ``normalize score -o`` adds (those of
    :class:`NormalizeBatches`, then ``correct``, ``score``, ``score_note``); same arguments."""

    score = True


def _partial_report(batch: Any, pack: Pack | str | None, pack_hash: str) -> Any:
    """One block's report running totals, pickled into a one-row table."""
    from scoring._scorefile import verifier_here

    pa = pyarrow()
    here = cached_pack(pack)
    if here.hash != pack_hash:
        raise ValueError(f"the pack here has hash {here.hash}, not the driver's {pack_hash}")
    builder = ReportBuilder()
    verifier = verifier_here()
    rows = batch_rows(batch, JSON_COLUMNS)
    for row in rows:
        builder.add(item_of(read_scored(here, restore_written_values(row), verifier=verifier)))
    return pa.table({"report_state": pa.array([pickle.dumps(builder)], pa.binary()),
                     "rows": pa.array([len(rows)], pa.int64())})


def report_from_dataset(
    dataset: Any,
    pack: Pack | str | Path | None = None,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    cv_threshold: float = DEFAULT_CV_THRESHOLD,
    concurrency: int | None = None,
) -> dict[str, Any]:
    """``normalize score``'s report of a dataset of scored rows (:class:`ScoreBatches`' output,
    or rows as ``normalize score -o`` writes them), reduced from per-block running totals.

    Each block is read back as ``score --resume`` reads its rows and counted where it lies; only
    the totals (about a byte per scorable item, for the bootstrap) come to the driver, merged in
    the dataset's order (this function's own pass keeps the order, whatever the dataset's
    context says).  Per-id aggregation (``--aggregate``) is not done here.
    """
    from ray.data import Dataset

    loaded = cached_pack(pack)
    source: Pack | str | None = loaded if isinstance(pack, Pack) or pack is None else str(pack)
    kwargs: dict[str, Any] = {"fn_kwargs": {"pack": source, "pack_hash": loaded.hash}, "batch_format": "pyarrow"}
    if concurrency is not None:
        kwargs["concurrency"] = concurrency
    partials = Dataset.copy(dataset.map_batches(_partial_report, **kwargs), _deep_copy=True)
    partials.context.execution_options.preserve_order = True  # a copy of the context: the caller's is untouched
    builder = ReportBuilder()
    for row in partials.iter_rows():
        builder.merge(pickle.loads(row["report_state"]))
    return builder.build(loaded, n_resamples=n_resamples, seed=seed, confidence=confidence, cv_threshold=cv_threshold)
