"""BERTScore from a local model directory equals bert-score itself; a tiny random BERT is built here."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("bert_score")
pytest.importorskip("transformers")

import torch
from bert_score import score as bert_score
from transformers import BertConfig, BertModel, BertTokenizer

from scoring._textsim import TextSettings, text_metric_report

HYPS = ["the cat sat on the mat", "a dog ran in the park", "今天天气很好", "the mat"]
REFS = [("the cat sat on a mat",), ("the dog was running in a park", "a dog ran"), ("今天天气不错",), ("a cat",)]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer BERT with random weights and a word-piece vocabulary written here (no hub)."""
    directory = tmp_path_factory.mktemp("bert") / "tiny-bert"
    directory.mkdir()
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
             *"the a cat dog sat on mat ran in park was running . , 今 天 气 很 好 不 错".split()]
    (directory / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    BertTokenizer(str(directory / "vocab.txt"), model_max_length=64).save_pretrained(directory)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=64)
    BertModel(config).save_pretrained(directory)
    return directory


def test_bertscore_equals_bert_score(tiny_bert: Path) -> None:
    settings = TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert))
    report = text_metric_report(HYPS, REFS, settings, n_resamples=50)["bertscore"]
    _p, _r, f = bert_score(HYPS, [list(r) for r in REFS], model_type=str(tiny_bert), num_layers=2)
    assert report["corpus"]["value"] == pytest.approx(float(f.mean()), abs=1e-6)
    assert report["corpus"]["low"] <= report["corpus"]["value"] <= report["corpus"]["high"]
    assert "rescaled:no" in report["signature"] and "layer:2" in report["signature"]


def test_bertscore_layer_setting(tiny_bert: Path) -> None:
    settings = TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert), bertscore_layers=1)
    got = text_metric_report(HYPS, REFS, settings, n_resamples=10)["bertscore"]["corpus"]["value"]
    _p, _r, f = bert_score(HYPS, [list(r) for r in REFS], model_type=str(tiny_bert), num_layers=1)
    assert got == pytest.approx(float(f.mean()), abs=1e-6)


def test_bertscore_rescales_with_a_baseline_file(tiny_bert: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.6,0.6,0.6\n2,0.7,0.72,0.71\n", encoding="utf-8")
    settings = TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert), bertscore_baseline=str(baseline))
    report = text_metric_report(HYPS, REFS, settings, n_resamples=10)["bertscore"]
    _p, _r, f = bert_score(HYPS, [list(r) for r in REFS], model_type=str(tiny_bert), num_layers=2, lang="en",
                           rescale_with_baseline=True, baseline_path=str(baseline))
    assert report["corpus"]["value"] == pytest.approx(float(f.mean()), abs=1e-6)
    assert "rescaled:yes" in report["signature"]
    # the raw scores differ: rescaling really happened
    raw = text_metric_report(HYPS, REFS, TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert)),
                             n_resamples=10)["bertscore"]["corpus"]["value"]
    assert raw != pytest.approx(report["corpus"]["value"])


def test_a_baseline_file_in_the_model_directory_is_used(tiny_bert: Path, tmp_path: Path) -> None:
    import shutil

    model = tmp_path / "with-baseline"
    shutil.copytree(tiny_bert, model)
    (model / "baseline.tsv").write_text("LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.6,0.6,0.6\n2,0.7,0.72,0.71\n", encoding="utf-8")
    report = text_metric_report(HYPS, REFS, TextSettings(metrics=("bertscore",), bertscore_model=str(model)),
                                n_resamples=10)["bertscore"]
    assert "rescaled:yes" in report["signature"]


def test_empty_hypothesis_scores_zero_like_bert_score(tiny_bert: Path, tmp_path: Path) -> None:
    settings = TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert))
    report = text_metric_report(["", HYPS[0]], [REFS[0], REFS[0]], settings, n_resamples=10)["bertscore"]
    _p, _r, f = bert_score([HYPS[0]], [list(REFS[0])], model_type=str(tiny_bert), num_layers=2)
    assert report["corpus"]["value"] == pytest.approx(float(f[0]) / 2, abs=1e-6)


def test_bad_bertscore_settings(tmp_path: Path, tiny_bert: Path) -> None:
    with pytest.raises(ValueError, match="not a directory"):
        text_metric_report(HYPS, REFS, TextSettings(metrics=("bertscore",), bertscore_model=str(tmp_path / "nope")))
    with pytest.raises(ValueError, match="does not exist"):
        text_metric_report(HYPS, REFS, TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert),
                                                    bertscore_baseline=str(tmp_path / "missing.tsv")))
    bad = tmp_path / "bad.tsv"
    bad.write_text("layer\tp\n", encoding="utf-8")
    with pytest.raises(ValueError, match="LAYER,P,R,F"):
        text_metric_report(HYPS, REFS, TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert),
                                                    bertscore_baseline=str(bad)))


def test_bertscore_through_the_pack_and_report(tiny_bert: Path, tmp_path: Path) -> None:
    """``scoring: open_writing: text_metrics: [bertscore]`` with a local model, end to end."""
    import json

    from scoring.cli import main

    root = Path(__file__).resolve().parent.parent
    text = (root / "rules" / "default.yaml").read_text(encoding="utf-8")
    for line in [line for line in text.splitlines() if line.startswith("  - ") and line.endswith(".yaml")]:
        text = text.replace(line + "\n", f"  - shipped:{line[4:]}\n", 1)  # every include, from the shipped folder
    text = text.replace("name: default", "name: bert").replace(
        "    text_metrics: [exact, bleu, chrf, ter, rouge1, rouge2, rougeL, rougeLsum, wer, cer]",
        f"    text_metrics: [chrf, bertscore]\n    bertscore_model: {json.dumps(str(tiny_bert))}")
    pack = tmp_path / "pack.yaml"
    pack.write_text(text, encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "task": "creative_writing", "output": h, "target": list(r)},
                                       ensure_ascii=False) + "\n" for i, (h, r) in enumerate(zip(HYPS, REFS, strict=True))),
                    encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["score", str(rows), "--pack", str(pack), "--report", str(out), "--bootstrap", "20"]) == 0
    overall = next(g for g in json.loads(out.read_text(encoding="utf-8"))["groups"] if g["level"] == "overall")
    got = overall["text_metrics"]["metrics"]["bertscore"]["corpus"]["value"]
    _p, _r, f = bert_score(HYPS, [list(r) for r in REFS], model_type=str(tiny_bert), num_layers=2)
    assert got == pytest.approx(float(f.mean()), abs=1e-6)


def test_bertscore_idf_equals_bert_score(tiny_bert: Path) -> None:
    settings = TextSettings(metrics=("bertscore",), bertscore_model=str(tiny_bert), bertscore_idf=True)
    got = text_metric_report(HYPS, REFS, settings, n_resamples=10)["bertscore"]
    _p, _r, f = bert_score(HYPS, [list(r) for r in REFS], model_type=str(tiny_bert), num_layers=2, idf=True)
    assert got["corpus"]["value"] == pytest.approx(float(f.mean()), abs=1e-6)
    assert "idf:yes" in got["signature"]


def test_the_signature_names_the_exact_weights_and_baseline(tiny_bert: Path, tmp_path: Path) -> None:
    """The pack names the model folder by path only; a BERTScore is tied to the folder's content
    (issue 24: a file that changes a result without the hash moving)."""
    import shutil

    copy = tmp_path / "copy" / tiny_bert.name
    shutil.copytree(tiny_bert, copy)

    def signature(model: Path, baseline: Path | None = None) -> str:
        settings = TextSettings(metrics=("bertscore",), bertscore_model=str(model),
                                bertscore_baseline=None if baseline is None else str(baseline))
        return str(text_metric_report(HYPS, REFS, settings, n_resamples=5)["bertscore"]["signature"])

    first = signature(tiny_bert)
    assert "model-sha256:" in first and signature(copy) == first  # the same bytes elsewhere: the same signature
    weights = next(p for p in copy.iterdir() if p.suffix in (".safetensors", ".bin"))
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    assert signature(copy) != first
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.6,0.6,0.6\n2,0.7,0.72,0.71\n", encoding="utf-8")
    with_baseline = signature(tiny_bert, baseline)
    baseline.write_text("LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.6,0.6,0.6\n2,0.7,0.72,0.70\n", encoding="utf-8")
    assert "baseline-sha256:" in with_baseline and signature(tiny_bert, baseline) != with_baseline
