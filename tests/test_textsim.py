"""Text-similarity metrics equal the reference implementations on the same inputs."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from statistics import fmean

import numpy as np
import pytest

pytest.importorskip("sacrebleu")
pytest.importorskip("rouge_score")
pytest.importorskip("jiwer")

import jiwer
import sacrebleu
from rouge_score import rouge_scorer

from normalize import load_pack
from scoring._textsim import (
    TEXT_METRICS,
    TextSettings,
    corpus_stats,
    rouge_tokens,
    sentence_score,
    text_metric_report,
    wer_words,
)
from scoring.metrics import ScoringConfig, compare, scoring_config

HYPS = [
    "The cat sat on the mat.",
    "A dog ran quickly through the park",
    "It is raining heavily in the north today.",
    "He picked the He sphere off the the the floor .",
    "Completely unrelated output here",
    "The meeting was moved to Friday afternoon.",
]
REFS = [
    "The cat sat on the mat.",
    "The dog ran through the park.",
    "Heavy rain is falling in the north today.",
    "He took the book off the floor .",
    "The budget was approved.",
    "The meeting has been moved to Friday.",
]
ZH_HYPS = ["今天北京天气晴朗，气温二十度。", "公司第三季度的利润增长了百分之十。", "我们明天去公园散步。"]
ZH_REFS = ["今天北京天气晴，气温二十度左右。", "该公司三季度利润增长百分之十。", "明天我们一起去公园散步吧。"]


def single(refs: list[str]) -> list[tuple[str, ...]]:
    return [(r,) for r in refs]


# --------------------------------------------------------------------------- sacrebleu


@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_bleu_corpus_and_sentence_equal_sacrebleu(tokenize: str) -> None:
    settings = TextSettings(metrics=("bleu",), bleu_tokenize=tokenize)
    report = text_metric_report(HYPS, single(REFS), settings, n_resamples=50)["bleu"]
    want = sacrebleu.corpus_bleu(HYPS, [REFS], tokenize=tokenize)
    assert report["corpus"]["value"] == pytest.approx(want.score, abs=1e-9)
    sentences = [sacrebleu.sentence_bleu(h, [r], tokenize=tokenize).score for h, r in zip(HYPS, REFS, strict=True)]
    assert report["sentence"]["value"] == pytest.approx(fmean(sentences), abs=1e-9)
    metric = sacrebleu.BLEU(tokenize=tokenize)
    metric.corpus_score(HYPS, [REFS])
    assert report["signature"] == metric.get_signature().format()


def test_bleu_chinese_tokenizer_equals_sacrebleu_zh() -> None:
    settings = TextSettings(metrics=("bleu",), bleu_tokenize="zh")
    report = text_metric_report(ZH_HYPS, single(ZH_REFS), settings, n_resamples=20)["bleu"]
    assert report["corpus"]["value"] == pytest.approx(sacrebleu.corpus_bleu(ZH_HYPS, [ZH_REFS], tokenize="zh").score)
    assert "tok:zh" in report["signature"]
    assert report["corpus"]["value"] > 0  # 13a would see each sentence as one token


def test_chrf_and_ter_equal_sacrebleu() -> None:
    report = text_metric_report(HYPS + ZH_HYPS, single(REFS + ZH_REFS), TextSettings(metrics=("chrf", "ter")),
                                n_resamples=20)
    assert report["chrf"]["corpus"]["value"] == pytest.approx(sacrebleu.corpus_chrf(HYPS + ZH_HYPS, [REFS + ZH_REFS]).score)
    assert report["ter"]["corpus"]["value"] == pytest.approx(sacrebleu.corpus_ter(HYPS + ZH_HYPS, [REFS + ZH_REFS]).score)
    sentences = [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(HYPS + ZH_HYPS, REFS + ZH_REFS, strict=True)]
    assert report["chrf"]["sentence"]["value"] == pytest.approx(fmean(sentences))
    assert report["ter"]["higher_is_better"] is False


def test_variable_references_equal_sacrebleu_with_none_padding() -> None:
    refs = [("The cat sat on the mat.", "A cat was on the mat."), ("The dog ran through the park.",),
            ("Heavy rain is falling in the north today.", "It rains hard up north.")]
    hyps = HYPS[:3]
    streams = [[r[0] for r in refs], [r[1] if len(r) > 1 else None for r in refs]]
    report = text_metric_report(hyps, refs, TextSettings(metrics=("bleu", "chrf")), n_resamples=20)
    assert report["bleu"]["corpus"]["value"] == pytest.approx(sacrebleu.corpus_bleu(hyps, streams).score)
    assert report["chrf"]["corpus"]["value"] == pytest.approx(sacrebleu.corpus_chrf(hyps, streams).score)
    assert "nrefs:var" in report["bleu"]["signature"]


def test_corpus_bleu_bootstrap_recomputes_the_corpus_statistic_on_resampled_sentences() -> None:
    settings = TextSettings(metrics=("bleu",))
    data = corpus_stats("bleu", HYPS, single(REFS), settings)
    rng = np.random.default_rng(3)
    for _ in range(5):
        idx = rng.integers(0, len(HYPS), size=len(HYPS))
        want = sacrebleu.corpus_bleu([HYPS[i] for i in idx], [[REFS[i] for i in idx]]).score
        assert data.compute(data.stats[idx].sum(0)) == pytest.approx(want, abs=1e-9)
    # and the interval is made of exactly such resamples (seeded)
    report = text_metric_report(HYPS, single(REFS), settings, n_resamples=200, seed=7)["bleu"]
    idxs = np.random.default_rng(7).integers(0, len(HYPS), size=(200, len(HYPS)))
    values = [sacrebleu.corpus_bleu([HYPS[i] for i in idx], [[REFS[i] for i in idx]]).score for idx in idxs]
    assert report["corpus"]["low"] == pytest.approx(min(float(np.quantile(values, 0.025)), report["corpus"]["value"]))
    assert report["corpus"]["high"] == pytest.approx(max(float(np.quantile(values, 0.975)), report["corpus"]["value"]))
    # the corpus interval is not the interval of mean sentence BLEU
    assert report["corpus"]["value"] != pytest.approx(report["sentence"]["value"])


def test_report_is_seeded() -> None:
    settings = TextSettings(metrics=("chrf", "wer"))
    one = text_metric_report(HYPS, single(REFS), settings, n_resamples=100, seed=1)
    assert one == text_metric_report(HYPS, single(REFS), settings, n_resamples=100, seed=1)
    assert one != text_metric_report(HYPS, single(REFS), settings, n_resamples=100, seed=2)


# --------------------------------------------------------------------------- ROUGE


def test_rouge_on_english_equals_rouge_score_default() -> None:
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types)
    report = text_metric_report(HYPS, single(REFS), TextSettings(metrics=tuple(types)), n_resamples=20)
    for name in types:
        want = fmean(scorer.score(r, h)[name].fmeasure for h, r in zip(HYPS, REFS, strict=True))
        assert report[name]["corpus"]["value"] == pytest.approx(want), name


def test_rouge_tokens_equal_the_default_tokenizer_on_ascii() -> None:
    from rouge_score import tokenize

    for text in [*HYPS, *REFS, "Don't stop -- 3.5 times, e-mail me!"]:
        assert rouge_tokens(text) == tokenize.tokenize(text, None)


def test_rouge_on_chinese_splits_characters_where_the_default_drops_them() -> None:
    default = rouge_scorer.RougeScorer(["rouge1"])
    assert default.score(ZH_REFS[0], ZH_HYPS[0])["rouge1"].fmeasure == 0.0  # the bug we work around
    # reference: the default scorer on a one-to-one ASCII spelling of every character
    def spell(text: str) -> str:
        return " ".join(f"c{ord(ch)}" for ch in text if ch.isalnum())

    for name in ("rouge1", "rouge2", "rougeL"):
        scorer = rouge_scorer.RougeScorer([name])
        want = fmean(scorer.score(spell(r), spell(h))[name].fmeasure for h, r in zip(ZH_HYPS, ZH_REFS, strict=True))
        got = text_metric_report(ZH_HYPS, single(ZH_REFS), TextSettings(metrics=(name,)), n_resamples=10)
        assert got[name]["corpus"]["value"] == pytest.approx(want), name
        assert want > 0.5


def test_rouge_with_several_references_takes_the_best() -> None:
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    refs = ("The budget was approved.", "Completely unrelated output")
    want = scorer.score_multi(list(refs), HYPS[4])["rougeL"].fmeasure
    assert sentence_score("rougeL", HYPS[4], refs, TextSettings()) == pytest.approx(want)
    assert want == max(scorer.score(r, HYPS[4])["rougeL"].fmeasure for r in refs)


# --------------------------------------------------------------------------- WER / CER


def test_wer_and_cer_equal_jiwer() -> None:
    report = text_metric_report(HYPS, single(REFS), TextSettings(metrics=("wer", "cer")), n_resamples=20)
    assert report["wer"]["corpus"]["value"] == pytest.approx(jiwer.wer(REFS, HYPS))
    assert report["cer"]["corpus"]["value"] == pytest.approx(jiwer.cer(REFS, HYPS))
    assert report["wer"]["sentence"]["value"] == pytest.approx(fmean(jiwer.wer(r, h) for h, r in zip(HYPS, REFS, strict=True)))
    assert report["wer"]["higher_is_better"] is False


def test_seed_exercise_wer() -> None:
    report = text_metric_report(["the cat sit on mat"], [("the cat sat on the mat",)], TextSettings(metrics=("wer",)),
                                n_resamples=10)
    assert report["wer"]["corpus"]["value"] == pytest.approx(2 / 6)


def test_chinese_wer_counts_characters_as_words() -> None:
    report = text_metric_report(ZH_HYPS, single(ZH_REFS), TextSettings(metrics=("wer", "cer")), n_resamples=10)
    spaced_h, spaced_r = [wer_words(h) for h in ZH_HYPS], [wer_words(r) for r in ZH_REFS]
    assert report["wer"]["corpus"]["value"] == pytest.approx(jiwer.wer(spaced_r, spaced_h))
    assert report["cer"]["corpus"]["value"] == pytest.approx(jiwer.cer(ZH_REFS, ZH_HYPS))
    assert report["wer"]["corpus"]["value"] < 1.0  # without the split every sentence is one wrong "word"


def test_wer_with_several_references_uses_the_closest() -> None:
    refs = [("the cat sat on the mat", "a cat sat on a mat")]
    report = text_metric_report(["a cat sat on a mat"], refs, TextSettings(metrics=("wer",)), n_resamples=5)
    assert report["wer"]["corpus"]["value"] == 0.0


# --------------------------------------------------------------------------- scoring rows


def test_row_value_is_the_sentence_score_and_correct_is_exact_match() -> None:
    cfg = ScoringConfig("open_writing", "chrf", text=TextSettings(metrics=("bleu",)))
    score = compare(cfg, HYPS[1], [REFS[1]])
    assert score.value == pytest.approx(sacrebleu.sentence_chrf(HYPS[1], [REFS[1]]).score / 100)
    assert score.correct is False and score.texts == (HYPS[1], (REFS[1],))
    exact = compare(cfg, REFS[0], [REFS[0]])
    assert exact.correct is True and exact.value == pytest.approx(1.0)
    unparsed = compare(cfg, None, [REFS[0]])
    assert unparsed.outcome == "no_answer" and unparsed.texts == ("", (REFS[0],))


def test_unparsed_rows_count_as_empty_text_in_the_corpus() -> None:
    report = text_metric_report(["", HYPS[0]], [(REFS[0],), (REFS[0],)], TextSettings(metrics=("bleu", "wer")),
                                n_resamples=10)
    assert report["bleu"]["corpus"]["value"] == pytest.approx(sacrebleu.corpus_bleu(["", HYPS[0]], [[REFS[0]] * 2]).score)
    assert report["wer"]["corpus"]["value"] == pytest.approx(jiwer.wer([REFS[0]] * 2, ["", HYPS[0]]))


def test_shipped_pack_scores_open_writing_with_targets(tmp_path: Path) -> None:
    from scoring.cli import main

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "report.json"
    assert main(["score", str(root / "examples" / "writing.jsonl"), "--report", str(out), "--bootstrap", "50"]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    overall = next(g for g in report["groups"] if g["level"] == "overall")
    metrics = overall["text_metrics"]["metrics"]
    assert set(TEXT_METRICS) - {"bertscore"} <= set(metrics)
    assert overall["no_target"] == 0
    bleu = metrics["bleu"]
    assert bleu["corpus"]["low"] <= bleu["corpus"]["value"] <= bleu["corpus"]["high"]
    assert bleu["signature"].startswith("nrefs:")


@pytest.mark.parametrize(("section", "message"), [
    ({"text_metrics": ["blue"]}, "unknown metric 'blue'"),
    ({"text_metrics": "bleu"}, "valid tuple"),
    ({"text_metrics": ["bleu"], "bleu_tokenize": "klingon"}, "not a sacrebleu tokenizer"),
    ({"text_metrics": ["bertscore"]}, "no bertscore_model"),
    ({"metric": "ter"}, "not a metric for open_writing"),
    ({"bertscore_idf": "yes"}, "valid boolean"),
    ({"bertscore_layers": 0}, "greater than or equal to 1"),
])
def test_bad_text_settings_are_refused(section: dict[str, object], message: str) -> None:
    pack = load_pack()
    bad = dataclasses.replace(pack, scoring={**pack.scoring, "open_writing": section})
    with pytest.raises(ValueError, match=message):
        scoring_config(bad, "open_writing")


def test_intervals_contain_their_point() -> None:
    report = text_metric_report(HYPS, single(REFS), TextSettings(metrics=tuple(m for m in TEXT_METRICS if m != "bertscore")),
                                n_resamples=100)
    for name, block in report.items():
        for level in ("corpus", "sentence"):
            b = block[level]
            assert b["low"] <= b["value"] <= b["high"], (name, level)
            assert all(math.isfinite(b[k]) for k in ("low", "value", "high"))


def test_paired_text_report_recomputes_both_corpora_on_the_same_resamples() -> None:
    from scoring._textsim import paired_text_report

    other = [*REFS[:3], *HYPS[3:]]
    report = paired_text_report(HYPS, other, single(REFS), TextSettings(metrics=("bleu", "ter")), n_resamples=100,
                                seed=4)
    assert report["bleu"]["a"] == pytest.approx(sacrebleu.corpus_bleu(HYPS, [REFS]).score)
    assert report["bleu"]["b"] == pytest.approx(sacrebleu.corpus_bleu(other, [REFS]).score)
    idxs = np.random.default_rng(4).integers(0, len(HYPS), size=(100, len(HYPS)))
    diffs = [sacrebleu.corpus_bleu([other[i] for i in idx], [[REFS[i] for i in idx]]).score
             - sacrebleu.corpus_bleu([HYPS[i] for i in idx], [[REFS[i] for i in idx]]).score for idx in idxs]
    assert report["bleu"]["low"] == pytest.approx(min(float(np.quantile(diffs, 0.025)), report["bleu"]["diff"]))
    assert report["bleu"]["p_b_not_better"] == pytest.approx(float(np.mean(np.array(diffs) <= 0)))
    assert report["ter"]["diff"] < 0 and report["ter"]["higher_is_better"] is False


def test_compare_reports_text_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.cli import main

    root = Path(__file__).resolve().parent.parent
    assert main(["compare", str(root / "examples" / "writing.jsonl"), str(root / "examples" / "writing_b.jsonl"),
                 "--format", "json", "--bootstrap", "100"]) == 0
    data = json.loads(capsys.readouterr().out)
    bleu = data["text_metrics"]["creative_writing"]["bleu"]
    assert bleu["b"] > bleu["a"] and bleu["low"] <= bleu["diff"] <= bleu["high"]
    assert data["mcnemar"]["note"]  # graded values: McNemar says why it is not run


def test_signatures_are_pinned() -> None:
    report = text_metric_report(HYPS, single(REFS), TextSettings(metrics=("bleu", "rougeL", "wer")), n_resamples=10)
    assert report["bleu"]["signature"] == f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:{sacrebleu.__version__}"
    assert report["bleu"]["ours"] == ("bleu|tok:13a|corpus:summed-stats|sentence:eff-order|multi-ref:native|"
                                      "boot:percentile,n=10,seed=0,conf=0.95")
    assert report["bleu"]["ours_hash"] == "67e63a535f45"
    assert report["rougeL"]["ours"].startswith("rougeL|tok:cjk-char+alnum|corpus:mean|multi-ref:max|")
    assert report["wer"]["ours"].startswith("wer|unit:word,cjk-char|corpus:edits/ref-length|")


def test_a_missing_extra_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from scoring._textsim import require_text_extra

    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> object:
        if name == "jiwer":
            raise ModuleNotFoundError("No module named 'jiwer'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(ValueError, match=r"extra 'text'.*harness-normalize\[text\]"):
        require_text_extra("jiwer")
    with pytest.raises(ValueError, match="extra 'text'"):
        text_metric_report(HYPS, single(REFS), TextSettings(metrics=("wer",)), n_resamples=5)
