"""Formats as data (issue 23, points 1-2): a language or an answer format added from YAML alone,
the row's lang narrowing the markers, native letters and digits, near variants refused."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from normalize import load_pack
from normalize import status as st


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_language_added_from_yaml_alone_works(tmp_path: Path) -> None:
    """A new language file in a temporary pack: its markers, option letters and digits apply to
    rows in that language, with no Python."""
    _write(
        tmp_path / "eo.yaml",
        """\
        languages:
          eo:
            option_letters: [Ā, Ḃ, Ċ, Ḋ]
            digits: '𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗'
            answer_markers:
              - ['fina\\s+respondo\\s*[:：]']
              - ['respondo\\s*[:：]']
        """,
    )
    pack_file = _write(tmp_path / "pack.yaml", "extends: shipped:default\ninclude: [eo.yaml]\n")
    pack = load_pack(pack_file)
    base = load_pack()
    assert pack.hash != base.hash  # the language is part of the hash
    mc = pack.run("La unua opcio estas malĝusta.\nRespondo: Ḃ", "mmlu", options=4, lang="eo")
    assert (mc.answer, mc.status) == ("B", st.OK)
    assert pack.replay(mc) == mc.text
    math = pack.run("48 + 24 = 72\nFina respondo: 72", "gsm8k", lang="eo")
    assert (math.answer, math.status) == ("72", st.OK)
    # the same row in the shipped pack: no such language, nothing read as an answer
    assert base.run("La unua opcio estas malĝusta.\nRespondo: Ḃ", "mmlu", options=4, lang="eo").status != st.OK


def test_an_answer_format_added_from_yaml_alone_works(tmp_path: Path) -> None:
    _write(
        tmp_path / "fmt.yaml",
        """\
        formats:
          final_tag:
            kind: tags
            tier: 1
            open: '\\[FINAL\\]'
            close: '\\[/FINAL\\]'
        """,
    )
    pack = load_pack(_write(tmp_path / "pack.yaml", "extends: shipped:default\ninclude: [fmt.yaml]\n"))
    assert pack.run("The answer is 70.\n[FINAL] 72 [/FINAL]", "gsm8k").answer == "72"
    assert "final_tag" in pack.resources["formats"]


@pytest.mark.parametrize(
    ("output", "lang", "answer"),
    [
        ("الإجابة: ب", "ar", "B"),
        ("الإجابة الصحيحة هي: د", "ar", "D"),
        ("Ответ: В", "ru", "C"),
        ("Відповідь: Б", "uk", "B"),
        ("উত্তর: খ", "bn", "B"),
        ("उत्तर: ग", "hi", "C"),
        ("คำตอบ: ข", "th", "B"),
        ("پاسخ: ج", "fa", "C"),
        ("答え：C", "ja", "C"),
        ("정답: B", "ko", "B"),
        ("Jawaban: D", "id", "D"),
        ("Jibu: B", "sw", "B"),
        ("Đáp án: B", "vi", "B"),
        ("Cevap: D", "tr", "D"),
        ("Antwoord: B", "nl", "B"),
        ("Odpowiedź: C", "pl", "C"),
        ("Jawapan: C", "ms", "C"),
        ("Ìdáhùn: C", "yo", "C"),
        ("תשובה: ב", "he", "B"),
        ("సమాధానం: C", "te", "C"),
        # the English marker keeps working in every language's rows
        ("Ответ ниже.\nAnswer: D", "ru", "D"),
    ],
)
def test_native_markers_and_letters(output: str, lang: str, answer: str) -> None:
    result = load_pack().run(output, "mmmlu", options=4, lang=lang)
    assert (result.answer, result.status) == (answer, st.OK)


@pytest.mark.parametrize(
    ("output", "lang"),
    [
        ("Jawaban: B atau C", "id"),
        ("Ответ: Б или В", "ru"),
        ("答え：BまたはC", "ja"),
        ("الإجابة: ب أو ج", "ar"),
        ("Đáp án: B vì A sai", "vi"),
        ("Ответ: Варианты не подходят", "ru"),  # a word starting with В is no option letter
        ("الإجابة", "ar"),  # the word with no colon or verb states nothing
        ("Ответ: В данном случае это неверно.", "ru"),  # В opens a sentence ("In this case"), no option
        ("Відповідь: Б сьогодні", "uk"),
    ],
)
def test_near_variants_are_refused(output: str, lang: str) -> None:
    result = load_pack().run(output, "mmmlu", options=4, lang=lang)
    assert result.status != st.OK and result.answer is None


def test_lang_narrows_the_markers() -> None:
    pack = load_pack()
    # a Japanese row does not read a Russian marker; a row without lang reads en / zh first and,
    # when they state nothing, is read again as the language whose marker word it holds
    assert pack.run("Ответ: 72", "gsm8k", lang="ja").extra.get("found_by") != "marker"
    assert pack.run("Ответ: 72", "gsm8k", lang="ru").extra.get("found_by") == "marker"
    guessed = pack.run("答え：B", "mmmlu", options=4)
    assert (guessed.status, guessed.answer, guessed.extra["lang"], guessed.extra["lang_guessed"]) == ("ok", "B", "ja", True)
    assert pack.replay(guessed) == guessed.text
    # a stated English answer is never read again
    assert "lang" not in pack.run("The answer is B. 答え：C", "mmmlu", options=4).extra
    # a screen word without a marker reads nothing new: the first reading stands
    assert pack.run("Die Antwortzeit war lang; 5 apples, then 7", "gsm8k").extra.get("lang") is None
    assert pack.chain_for_lang("multiple_choice", "xx") is pack.task_types["multiple_choice"].chain


@pytest.mark.parametrize(
    ("output", "lang"),
    [("الإجابة: ٧٢", "ar"), ("پاسخ: ۷۲", "fa"), ("उत्तर: ७२", "hi"), ("উত্তর: ৭২", "bn"), ("คำตอบ: ๗๒", "th"), ("答案：７２", "zh")],
)
def test_native_digits_are_numbers(output: str, lang: str) -> None:
    result = load_pack().run(output, "mgsm", lang=lang)
    assert (result.answer, result.status) == ("72", st.OK)


def test_formats_view_lists_languages_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.cli import main

    main(["formats"])
    shown = capsys.readouterr().out
    resources = load_pack().resources
    assert resources["formats"] and resources["languages"]
    for name in (*resources["formats"], *resources["languages"]):  # every one the shipped pack has
        assert name in shown


def test_gate_case_orbits_are_exact() -> None:
    """Every cased letter a marker gate may use matches (ignoring case) exactly its lower and
    upper case: the wide orbits are listed in _WIDE_CASE_ORBITS, checked over every code point."""
    from collections import defaultdict

    from normalize.rules._speed import _GATE_BLOCKS, _WIDE_CASE_ORBITS, _gate_variants

    orbit: dict[str, set[str]] = defaultdict(set)
    for point in range(0x110000):
        if 0xD800 <= point < 0xE000:
            continue
        char = chr(point)
        folded = char.casefold()
        if len(folded) == 1:
            orbit[folded].add(char)
    for start, end in _GATE_BLOCKS:
        for point in range(start, end):
            char = chr(point)
            variants = _gate_variants(char)
            if variants is None or len(variants) == 1:
                continue
            assert char not in _WIDE_CASE_ORBITS
            assert orbit[char.casefold()] | {char} == set(variants), char


def test_char_gate_rules_out_other_scripts() -> None:
    from normalize.rules._speed import char_gate

    assert char_gate("(?:правильный\\s+)?ответ\\s*[:：]") == "еЕ"
    assert char_gate("answer\\s*:") is None  # ASCII: the literal screens do it
    pack = load_pack()
    assert pack.run("ОТВЕТ: 72", "gsm8k", lang="ru").answer == "72"  # upper case passes the gate


def test_a_format_of_unknown_kind_is_an_error(tmp_path: Path) -> None:
    from normalize.errors import PackError

    _write(tmp_path / "fmt.yaml", "formats:\n  typo:\n    kind: tgas\n    tier: 1\n    open: '<a>'\n    close: '</a>'\n")
    with pytest.raises(PackError, match="kind must be one of"):
        load_pack(_write(tmp_path / "pack.yaml", "extends: shipped:default\ninclude: [fmt.yaml]\n"))


def test_a_tagged_answer_counts_as_stated() -> None:
    from scoring._items import found_by

    result = load_pack().run("<think>x</think><answer>72</answer>", "gsm8k")
    assert result.extra["answer_format"] == "answer_tags" and found_by(result) == "answer_format"


def test_explain_takes_the_row_language(capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.cli import main

    main(["explain", "--task", "mmmlu", "--options", "4", "--lang", "ar", "الإجابة: ب"])
    assert "answer: \"B\"  status: ok" in capsys.readouterr().out


def test_verdict_shapes_are_held_listed_and_hashed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The formats: section holds a judge's verdict shapes too (read by the judge parser, not by
    extract_answer_format): loaded, listed, in the hash, never an extraction format."""
    from scoring.cli import main

    _write(tmp_path / "v.yaml", "formats:\n  prometheus_result:\n    kind: verdict\n    pattern: '\\[RESULT\\]\\s*([1-5])'\n")
    pack_file = _write(tmp_path / "pack.yaml", "extends: shipped:default\ninclude: [v.yaml]\n")
    pack = load_pack(pack_file)
    assert pack.resources["formats"]["prometheus_result"]["kind"] == "verdict"
    assert pack.hash != load_pack().hash
    spec = next(s for s in pack.task_types["math"].chain.specs if s.name == "extract_answer_format")
    assert "prometheus_result" not in [e.name for e in spec.params.entries]
    main(["formats", "--pack", str(pack_file)])
    assert "prometheus_result: verdict" in capsys.readouterr().out
