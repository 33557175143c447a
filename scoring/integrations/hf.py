"""Hugging Face ``datasets``: the columns of ``normalize run`` / ``score -o`` with ``Dataset.map``.

>>> from datasets import load_dataset  # doctest: +SKIP
>>> from scoring.integrations.hf import NormalizeMap, map_dataset  # doctest: +SKIP
>>> ds = load_dataset("json", data_files="rollouts.jsonl", split="train")  # doctest: +SKIP
>>> scored = map_dataset(ds, task="gsm8k", score=True, num_proc=4)  # doctest: +SKIP
>>> m = NormalizeMap(task="gsm8k")  # the same by hand  # doctest: +SKIP
>>> ds.map(m, batched=True, with_indices=True, num_proc=4, features=m.features(ds.features))  # doctest: +SKIP

:class:`NormalizeMap` is a picklable callable for ``Dataset.map(fn, batched=True, num_proc=N)``
(each process reloads the pack once and checks it has the driver's hash).  Given a batch as
``datasets`` passes it (a dict of column lists) it returns the added columns, which ``map``
sets beside the others; given a ``pyarrow.Table`` (``ds.with_format("arrow")``) it returns the
table with them.  The columns, their types and their values are those of
:mod:`scoring.integrations.ray` (``answer``, ``trace`` and ``extra`` as JSON text:
:func:`decode_columns` reads a row back).  With ``with_indices=True`` the reason of an invalid
row names its line as ``normalize run`` on the same rows in the same order does.  Pass
``features=`` (:meth:`NormalizeMap.features` merged with the dataset's, as :func:`map_dataset`
does): ``datasets`` otherwise types a column by its first batch's values, and a batch whose
rows all parse has only nulls in ``reason``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from normalize.core.pack import Pack
from normalize.io.arrow import pyarrow
from scoring.integrations._batches import BatchScorer, column_type, decode_columns

__all__ = ["NormalizeMap", "decode_columns", "map_dataset"]


class NormalizeMap:
    """``ds.map(NormalizeMap(...), batched=True)``: ``task``, ``pack``, ``trace`` (default
    ``none``) and ``pack_hash`` as :class:`~scoring.integrations.ray.NormalizeBatches`;
    ``score=True`` adds ``score -o``'s ``correct``, ``score`` and ``score_note`` too."""

    def __init__(self, task: str | None = None, pack: Pack | str | Path | None = None, trace: str = "none", *,
                 score: bool = False, pack_hash: str | None = None) -> None:
        self.scorer = BatchScorer(task, pack, trace, pack_hash=pack_hash, score=score)

    @property
    def pack_hash(self) -> str:
        return self.scorer.pack_hash

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns added (``trace`` only when traced)."""
        return self.scorer.columns

    def features(self, base: Mapping[str, Any] | None = None) -> Any:
        """The ``datasets.Features`` of the added columns after those of ``base`` (the dataset's
        own, ``ds.features``: ``Dataset.map(..., features=)`` wants every column's)."""
        from datasets import Features, Value

        added = {name: Value("bool" if name == "correct" else "float64" if name == "score" else "string")
                 for name in self.columns}
        return Features({**(base or {}), **added})

    def __call__(self, batch: Any, indices: Sequence[int] | None = None) -> Any:
        pa = pyarrow()
        if isinstance(batch, (pa.Table, pa.RecordBatch)):
            return self._table(batch, indices)
        if not isinstance(batch, Mapping):
            raise TypeError(f"NormalizeMap needs batched=True (a dict of column lists), got {type(batch).__name__}")
        names = list(batch)
        n = len(batch[names[0]]) if names else 0
        rows = [{name: batch[name][i] for name in names} for i in range(n)]
        return self._added(rows, indices)

    def _added(self, rows: list[dict[str, Any]], indices: Sequence[int] | None) -> dict[str, list[Any]]:
        numbers = None if indices is None else [int(i) + 1 for i in indices]
        return self.scorer.added(rows, numbers)

    def _table(self, batch: Any, indices: Sequence[int] | None) -> Any:
        from normalize.io.arrow import batch_rows

        pa = pyarrow()
        table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
        added = self._added(batch_rows(table), indices)
        for name, values in added.items():
            column = pa.array(values, type=column_type(name))
            if name in table.column_names:
                table = table.set_column(table.column_names.index(name), name, column)
            else:
                table = table.append_column(name, column)
        return table



def map_dataset(dataset: Any, task: str | None = None, pack: Pack | str | Path | None = None, trace: str = "none", *,
                score: bool = False, pack_hash: str | None = None, num_proc: int | None = None,
                batch_size: int = 1000, **map_kwargs: Any) -> Any:
    """``dataset.map`` with :class:`NormalizeMap`: batched, with indices (reasons name the line
    ``normalize run`` would), the added columns' features declared; ``map_kwargs`` go to ``map``."""
    mapper = NormalizeMap(task, pack, trace, score=score, pack_hash=pack_hash)
    return dataset.map(mapper, batched=True, with_indices=True, num_proc=num_proc, batch_size=batch_size,
                       features=mapper.features(dataset.features), **map_kwargs)
