"""Text-similarity metrics: BLEU, chrF, TER (sacrebleu), ROUGE (rouge-score), WER, CER (jiwer),
BERTScore (bert-score), exact match — sentence-level and corpus-level, with bootstrap intervals.

The numbers are the reference implementations' own: this module only feeds them (extra ``text``)
and resamples.  What it adds:

* **CJK-aware tokens** where a library's default would lose Chinese: ROUGE's default tokenizer
  keeps only ``[a-z0-9]`` and so drops every Chinese character; :func:`rouge_tokens` keeps
  letters and digits of every script and makes each CJK character a token (ASCII text gets
  exactly the default tokens).  WER counts each CJK character as a word (:func:`wer_words`);
  on text without CJK it is jiwer's word split.  BLEU uses sacrebleu's tokenizers by name
  (``bleu_tokenize: zh`` for Chinese); chrF and CER work on characters already.
* **Corpus level** is each metric's own corpus statistic: BLEU, chrF and TER sum sacrebleu's
  sufficient statistics over sentences; WER and CER are total edits over total reference
  words/characters; ROUGE, BERTScore and exact match are means of sentence scores (as
  rouge-score and bert-score report them).  **Sentence level** is the mean of per-sentence
  scores (BLEU with effective order, as ``sentence_bleu``).
* **Intervals**: a percentile bootstrap that resamples sentences and recomputes the statistic —
  for corpus BLEU it sums the resampled sentences' statistics and recomputes BLEU, as
  sacrebleu's own bootstrap does, never averaging sentence BLEUs.  Resampling indices come from
  ``numpy.random.default_rng(seed)`` only.
* **Several references** (a list target, plus ``aliases``): sacrebleu and rouge-score take them
  natively (ROUGE scores the best reference); WER/CER use the reference with the fewest edits.

Scales are the libraries': BLEU, chrF, TER in 0–100; ROUGE, WER, CER, BERTScore, exact in
0–1.  TER, WER and CER are error rates (lower is better).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

__all__ = [
    "LOWER_IS_BETTER",
    "ROUGE_TYPES",
    "ROW_METRICS",
    "TEXT_METRICS",
    "TextSettings",
    "corpus_stats",
    "our_signature",
    "paired_text_report",
    "require_text_extra",
    "rouge_tokens",
    "sentence_score",
    "text_metric_report",
    "wer_words",
]

TEXT_METRICS: Final = ("exact", "bleu", "chrf", "ter", "rouge1", "rouge2", "rougeL", "rougeLsum",
                       "wer", "cer", "bertscore")
ROUGE_TYPES: Final = ("rouge1", "rouge2", "rougeL", "rougeLsum")
LOWER_IS_BETTER: Final = frozenset({"ter", "wer", "cer"})
#: Metrics a row's ``value`` may be (higher is better, in [0, 1] after scaling); BERTScore is
#: computed in batches for reports only, so a model is loaded once per report, not per row.
ROW_METRICS: Final = ("bleu", "chrf", "rouge1", "rouge2", "rougeL", "rougeLsum")
_HUNDRED: Final = frozenset({"bleu", "chrf", "ter"})


@dataclass(frozen=True)
class TextSettings:
    """How text metrics are computed for one task (from the pack's ``scoring:`` section)."""

    metrics: tuple[str, ...] = ()
    bleu_tokenize: str = "13a"
    bertscore_model: str | None = None
    bertscore_layers: int | None = None
    bertscore_baseline: str | None = None
    bertscore_idf: bool = False
    bertscore_batch_size: int = 32


# --------------------------------------------------------------------------- tokens


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x323AF
            or 0xF900 <= cp <= 0xFAFF or 0x3040 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF
            or 0xFF66 <= cp <= 0xFF9F or 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF
            or 0x3130 <= cp <= 0x318F)


def rouge_tokens(text: str) -> list[str]:
    """ROUGE tokens: lower case, runs of letters/digits of any script, each CJK character alone.

    On ASCII text these are exactly rouge-score's default tokens (without stemming).

    >>> rouge_tokens("The cat-sat, 3 times!")
    ['the', 'cat', 'sat', '3', 'times']
    >>> rouge_tokens("北京大学在Beijing。")
    ['北', '京', '大', '学', '在', 'beijing']
    """
    tokens: list[str] = []
    word: list[str] = []
    for ch in text.lower():
        if _is_cjk(ch):
            if word:
                tokens.append("".join(word))
                word = []
            tokens.append(ch)
        elif ch.isalnum():
            word.append(ch)
        elif word:
            tokens.append("".join(word))
            word = []
    if word:
        tokens.append("".join(word))
    return tokens


class _RougeTokenizer:
    """The tokenizer object rouge-score calls (it only needs ``tokenize``)."""

    def tokenize(self, text: str) -> list[str]:
        return rouge_tokens(text)


def wer_words(text: str) -> str:
    """Text for jiwer's word split: every CJK character set apart by spaces, nothing else changed.

    >>> wer_words("我们 去 北京 ok")
    '我 们 去 北 京 ok'
    """
    out: list[str] = []
    for ch in text:
        out.append(f" {ch} " if _is_cjk(ch) else ch)
    return " ".join("".join(out).split())


# --------------------------------------------------------------------------- per-sentence statistics


def require_text_extra(module: str) -> None:
    """Import ``module`` or raise ``ValueError`` saying how to install the extra ``text``."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        raise ValueError(f"text metrics need the extra 'text' (module {module!r} is missing): "
                         "pip install 'harness-normalize[text]'") from None


def _sacrebleu_metric(name: str, settings: TextSettings, *, sentence: bool = False) -> Any:
    require_text_extra("sacrebleu")
    from sacrebleu.metrics.bleu import BLEU
    from sacrebleu.metrics.chrf import CHRF
    from sacrebleu.metrics.ter import TER

    if name == "bleu":
        return BLEU(tokenize=settings.bleu_tokenize, effective_order=sentence)
    if name == "chrf":
        return CHRF()
    return TER()


def _edits(kind: str, hyp: str, refs: Sequence[str]) -> tuple[float, float]:
    """(edits, reference length) against the reference with the fewest edits."""
    require_text_extra("jiwer")
    import jiwer

    best: tuple[float, float] | None = None
    for ref in refs:
        if kind == "wer":
            r, h = wer_words(ref), wer_words(hyp)
            if not r:
                pair = (float(len(h.split())), 0.0)
            else:
                out = jiwer.process_words(r, h)
                pair = (float(out.substitutions + out.deletions + out.insertions),
                        float(out.substitutions + out.deletions + out.hits))
        else:
            if not ref:
                pair = (float(len(hyp)), 0.0)
            else:
                out_c = jiwer.process_characters(ref, hyp)
                pair = (float(out_c.substitutions + out_c.deletions + out_c.insertions),
                        float(out_c.substitutions + out_c.deletions + out_c.hits))
        if best is None or pair[0] < best[0]:
            best = pair
    if best is None:
        raise ValueError("a sentence needs at least one reference")
    return best


def _rate(edits: float, length: float) -> float:
    if length == 0:
        return 0.0 if edits == 0 else 1.0
    return edits / length


def _ref_streams(refs: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """sacrebleu's reference streams; a sentence with fewer references is padded with None."""
    width = max(len(r) for r in refs)
    return [[r[i] if i < len(r) else None for r in refs] for i in range(width)]


@dataclass(frozen=True)
class CorpusStats:
    """Per-sentence sufficient statistics and how to turn their sum into the corpus score."""

    stats: np.ndarray  # (n_sentences, n_stats)
    compute: Callable[[np.ndarray], float]  # summed stats -> corpus score
    sentence: np.ndarray  # per-sentence scores
    signature: str


def corpus_stats(name: str, hyps: Sequence[str], refs: Sequence[Sequence[str]], settings: TextSettings) -> CorpusStats:
    """Everything a corpus score and its bootstrap need, for one metric."""
    if len(hyps) != len(refs):
        raise ValueError(f"got {len(hyps)} hypotheses but {len(refs)} reference lists")
    if not hyps:
        raise ValueError("a text metric needs at least one sentence")
    for i, r in enumerate(refs):
        if not r:
            raise ValueError(f"sentence {i} has no reference")
    if name in ("bleu", "chrf", "ter"):
        metric = _sacrebleu_metric(name, settings)
        streams = _ref_streams(refs)
        raw = metric._extract_corpus_statistics(list(hyps), streams)
        stats = np.array(raw, dtype=np.float64)
        whole = metric.corpus_score(list(hyps), streams)
        signature = metric.get_signature().format()
        single = _sacrebleu_metric(name, settings, sentence=True)
        sentence = np.array([single.sentence_score(h, list(r)).score for h, r in zip(hyps, refs, strict=True)])

        def compute(summed: np.ndarray, metric: Any = metric) -> float:
            return float(metric._compute_score_from_stats(summed.tolist()).score)

        if not math.isclose(compute(stats.sum(0)), whole.score, rel_tol=1e-9, abs_tol=1e-9):
            raise RuntimeError(f"{name}: summed statistics disagree with sacrebleu's corpus score "
                               f"(sacrebleu {_version('sacrebleu')} changed its internals?)")
        return CorpusStats(stats, compute, sentence, signature)
    if name in ("wer", "cer"):
        pairs = np.array([_edits(name, h, r) for h, r in zip(hyps, refs, strict=True)], dtype=np.float64)
        sentence = np.array([_rate(e, n) for e, n in pairs])
        unit = "word,cjk-char" if name == "wer" else "char"
        return CorpusStats(pairs, lambda s: _rate(float(s[0]), float(s[1])), sentence,
                           f"{name}|jiwer:{_version('jiwer')}|unit:{unit}|multi-ref:fewest-edits"
                           "|agg:total-edits/total-ref")
    if name in ROUGE_TYPES:
        sentence = np.array(_rouge_f(name, hyps, refs))
        return _mean_stats(sentence, f"{name}|rouge-score:{_version('rouge-score')}|tok:cjk-char+alnum|"
                                     "stem:no|score:f|multi-ref:max|agg:mean")
    if name == "exact":
        sentence = np.array([float(any(h.strip() == r.strip() for r in rs)) for h, rs in zip(hyps, refs, strict=True)])
        return _mean_stats(sentence, "exact|strip|agg:mean")
    if name == "bertscore":
        sentence, signature = _bertscore_f(hyps, refs, settings)
        return _mean_stats(sentence, signature)
    raise ValueError(f"unknown text metric {name!r}; choose from {', '.join(TEXT_METRICS)}")


def _mean_stats(sentence: np.ndarray, signature: str) -> CorpusStats:
    stats = np.stack([sentence, np.ones_like(sentence)], axis=1)
    return CorpusStats(stats, lambda s: float(s[0] / s[1]), sentence, signature)


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def _rouge_f(name: str, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> list[float]:
    require_text_extra("rouge_score")
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer([name], tokenizer=_RougeTokenizer())
    return [float(scorer.score_multi(list(r), h)[name].fmeasure) for h, r in zip(hyps, refs, strict=True)]


def sentence_score(name: str, hyp: str, refs: Sequence[str], settings: TextSettings) -> float:
    """One sentence's score in [0, 1] for a row's ``value`` (BLEU and chrF divided by 100).

    >>> s = TextSettings()
    >>> round(sentence_score("chrf", "the cat sat", ["the cat sat"], s), 4)
    1.0
    >>> round(sentence_score("rouge1", "北京大学", ["北京"], s), 4)
    0.6667
    """
    if name not in ROW_METRICS:
        raise ValueError(f"{name!r} is not a per-row text metric; choose from {', '.join(ROW_METRICS)}")
    if name in ROUGE_TYPES:
        return _rouge_f(name, [hyp], [refs])[0]
    metric = _sacrebleu_metric(name, settings, sentence=True)
    return float(metric.sentence_score(hyp, list(refs)).score) / 100.0


# --------------------------------------------------------------------------- BERTScore


def _bertscore_f(hyps: Sequence[str], refs: Sequence[Sequence[str]], settings: TextSettings) -> tuple[np.ndarray, str]:
    if settings.bertscore_model is None:
        raise ValueError("bertscore needs scoring.<task>.bertscore_model: a local model directory")
    model_dir = Path(settings.bertscore_model)
    if not model_dir.is_dir():
        raise ValueError(f"bertscore_model {settings.bertscore_model!r} is not a directory "
                         "(models are never downloaded)")
    baseline = _baseline_path(model_dir, settings.bertscore_baseline)
    layers = settings.bertscore_layers if settings.bertscore_layers is not None else _model_layers(model_dir)
    require_text_extra("bert_score")
    import torch
    from bert_score import BERTScorer

    device = "cuda" if torch.cuda.is_available() else "cpu"
    scorer = BERTScorer(model_type=str(model_dir), num_layers=layers, lang="custom" if baseline else None,
                        rescale_with_baseline=baseline is not None,
                        baseline_path=str(baseline) if baseline else None,
                        idf=settings.bertscore_idf,
                        # idf from every reference, as bert-score's own score() computes it
                        idf_sents=[x for r in refs for x in r if x.strip()] if settings.bertscore_idf else None,
                        batch_size=settings.bertscore_batch_size, device=device)
    # bert-score sets the raw score of an empty candidate to 0 (and then rescales it); it does
    # so through a tokenizer call that newer transformers lack, so empty sentences are done here.
    scores = np.zeros(len(hyps), dtype=np.float64)
    kept = [i for i, (h, r) in enumerate(zip(hyps, refs, strict=True)) if h.strip() and any(x.strip() for x in r)]
    if kept:
        _p, _r, f = scorer.score([hyps[i] for i in kept], [[x for x in refs[i] if x.strip()] for i in kept])
        scores[kept] = np.array(f.tolist(), dtype=np.float64)
    if baseline is not None and len(kept) < len(hyps):
        base_f = _baseline_f(baseline, layers)
        empty = np.array([i for i in range(len(hyps)) if i not in set(kept)], dtype=np.int64)
        scores[empty] = (0.0 - base_f) / (1.0 - base_f)
    signature = (f"bertscore|model:{model_dir.name}|model-sha256:{_content_hash(model_dir)}|layer:{layers}"
                 f"|idf:{'yes' if settings.bertscore_idf else 'no'}|rescaled:{'yes' if baseline else 'no'}"
                 + (f"|baseline-sha256:{_content_hash(baseline)}" if baseline is not None else "")
                 + f"|multi-ref:max|bert-score:{_version('bert-score')}|agg:mean")
    return scores, signature


def _content_hash(path: Path) -> str:
    """The first 12 hex digits of a sha256 over a file's bytes, or over every file of a folder
    (relative path, size and bytes, in path order; hidden files left out): the pack names a
    model folder by path, and this ties a BERTScore to the exact weights and baseline it came
    from, whatever machine the folder was copied to."""
    import hashlib
    import os

    root = path.resolve()
    files = [root]
    if not root.is_file():
        files = []
        for folder, subfolders, names in os.walk(root, followlinks=True):
            subfolders[:] = [d for d in subfolders if not d.startswith(".")]
            files.extend(Path(folder) / name for name in names if not name.startswith("."))
        files.sort()
    digest = hashlib.sha256()
    for file in files:
        relative = file.relative_to(root).as_posix() if file != root else ""
        digest.update(f"{relative}\0{file.stat().st_size}\0".encode())
        with file.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()[:12]


def _baseline_f(path: Path, layers: int) -> float:
    """The F baseline of ``layers`` (bert-score reads row ``layers`` of the file, as here)."""
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    if layers >= len(rows):
        raise ValueError(f"{path}: no baseline row for layer {layers}")
    return float(rows[layers][3])


def _baseline_path(model_dir: Path, configured: str | None) -> Path | None:
    """The baseline file: the configured one (which must exist), else ``baseline.tsv`` in the model
    directory when present; None means no rescaling."""
    if configured is not None:
        path = Path(configured)
        if not path.is_file():
            raise ValueError(f"bertscore_baseline {configured!r} does not exist")
        _check_baseline(path)
        return path
    default = model_dir / "baseline.tsv"
    if default.is_file():
        _check_baseline(default)
        return default
    return None


def _check_baseline(path: Path) -> None:
    with path.open(encoding="utf-8") as handle:
        header = next(csv.reader(handle), [])
    if [h.strip() for h in header[:4]] != ["LAYER", "P", "R", "F"]:
        raise ValueError(f"{path}: a BERTScore baseline file starts with the header LAYER,P,R,F, got {header!r}")


def _model_layers(model_dir: Path) -> int:
    import json

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    layers = config.get("num_hidden_layers")
    if not isinstance(layers, int):
        raise ValueError(f"{model_dir}/config.json states no num_hidden_layers: set bertscore_layers")
    return layers


# --------------------------------------------------------------------------- bootstrap and report


def _resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def _percentile(values: np.ndarray, confidence: float, point: float) -> tuple[float, float]:
    alpha = 1.0 - confidence
    low = float(np.quantile(values, alpha / 2))
    high = float(np.quantile(values, 1 - alpha / 2))
    return min(low, point), max(high, point)


def text_metric_report(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    settings: TextSettings,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Per metric of ``settings.metrics``: corpus and sentence-level scores, each with a
    percentile bootstrap interval over resampled sentences (the same resamples for all).

    >>> r = text_metric_report(["the cat sat on the mat", "a dog"], [["the cat sat on the mat"], ["the dog"]],
    ...                        TextSettings(metrics=("wer",)), n_resamples=200)
    >>> r["wer"]["corpus"]["value"], r["wer"]["sentence"]["value"]
    (0.125, 0.25)
    """
    indices = _resample_indices(len(hyps), n_resamples, seed)
    out: dict[str, Any] = {}
    for name in settings.metrics:
        data = corpus_stats(name, hyps, refs, settings)
        corpus = data.compute(data.stats.sum(0))
        boot_corpus = np.array([data.compute(data.stats[idx].sum(0)) for idx in indices])
        sentence = float(data.sentence.mean())
        boot_sentence = data.sentence[indices].mean(axis=1)
        c_low, c_high = _percentile(boot_corpus, confidence, corpus)
        s_low, s_high = _percentile(boot_sentence, confidence, sentence)
        ours = our_signature(name, settings, n_resamples=n_resamples, seed=seed, confidence=confidence)
        out[name] = {
            "corpus": {"value": corpus, "low": c_low, "high": c_high},
            "sentence": {"value": sentence, "low": s_low, "high": s_high},
            "n": len(hyps),
            "scale": 100 if name in _HUNDRED else 1,
            "higher_is_better": name not in LOWER_IS_BETTER,
            "signature": data.signature,
            "ours": ours,
            "ours_hash": _short_hash(ours),
        }
    return out


def our_signature(name: str, settings: TextSettings, *, n_resamples: int, seed: int, confidence: float) -> str:
    """Our readable signature of how a text metric was computed and resampled (beside the
    library's own): the metric's settings, the corpus statistic, and the bootstrap.

    >>> our_signature("bleu", TextSettings(), n_resamples=1000, seed=0, confidence=0.95)
    'bleu|tok:13a|corpus:summed-stats|sentence:eff-order|multi-ref:native|boot:percentile,n=1000,seed=0,conf=0.95'
    """
    parts = [name]
    if name == "bleu":
        parts += [f"tok:{settings.bleu_tokenize}", "corpus:summed-stats", "sentence:eff-order", "multi-ref:native"]
    elif name in ("chrf", "ter"):
        parts += ["corpus:summed-stats", "multi-ref:native"]
    elif name in ROUGE_TYPES:
        parts += ["tok:cjk-char+alnum", "corpus:mean", "multi-ref:max"]
    elif name in ("wer", "cer"):
        parts += ["unit:word,cjk-char" if name == "wer" else "unit:char", "corpus:edits/ref-length",
                  "multi-ref:fewest-edits"]
    elif name == "bertscore":
        parts += [f"model:{Path(settings.bertscore_model or '').name}", f"layer:{settings.bertscore_layers or 'last'}",
                  f"idf:{'yes' if settings.bertscore_idf else 'no'}", "corpus:mean", "multi-ref:max"]
    else:
        parts += ["strip", "corpus:mean"]
    parts.append(f"boot:percentile,n={n_resamples},seed={seed},conf={confidence:g}")
    return "|".join(parts)


def _short_hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def paired_text_report(
    hyps_a: Sequence[str],
    hyps_b: Sequence[str],
    refs: Sequence[Sequence[str]],
    settings: TextSettings,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Two systems on the same sentences: per metric, corpus-level B − A with a paired bootstrap
    (the same resampled sentences for both, each corpus statistic recomputed, as sacrebleu's
    paired bootstrap does) and the share of resamples in which B is not better than A.

    >>> r = paired_text_report(["a cat", "the dog"], ["a cat sat", "the dog ran"],
    ...                        [["a cat sat"], ["the dog ran"]], TextSettings(metrics=("wer",)), n_resamples=50)
    >>> r["wer"]["a"], r["wer"]["b"], r["wer"]["diff"]
    (0.3333333333333333, 0.0, -0.3333333333333333)
    """
    if len(hyps_a) != len(hyps_b):
        raise ValueError(f"paired systems need the same sentences, got {len(hyps_a)} and {len(hyps_b)}")
    indices = _resample_indices(len(hyps_a), n_resamples, seed)
    alpha = 1.0 - confidence
    out: dict[str, Any] = {}
    for name in settings.metrics:
        one = corpus_stats(name, hyps_a, refs, settings)
        two = corpus_stats(name, hyps_b, refs, settings)
        a = one.compute(one.stats.sum(0))
        b = two.compute(two.stats.sum(0))
        diffs = np.array([two.compute(two.stats[idx].sum(0)) - one.compute(one.stats[idx].sum(0)) for idx in indices])
        better = name not in LOWER_IS_BETTER
        not_better = float(np.mean(diffs <= 0.0)) if better else float(np.mean(diffs >= 0.0))
        low = min(float(np.quantile(diffs, alpha / 2)), b - a)
        high = max(float(np.quantile(diffs, 1 - alpha / 2)), b - a)
        out[name] = {"a": a, "b": b, "diff": b - a, "low": low, "high": high, "p_b_not_better": not_better,
                     "higher_is_better": better, "scale": 100 if name in _HUNDRED else 1,
                     "n": len(hyps_a), "signature": two.signature}
    return out
