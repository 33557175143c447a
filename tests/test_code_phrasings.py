"""Code answers as models really give them (issue 10): the final block beats drafts, two
different alternatives are contradictory, a block plus its tests is that block."""

from __future__ import annotations

from functools import cache

import pytest

from normalize import Pack, load_pack
from normalize import status as st
from normalize.rules._extract_params import CodeBlockParams
from normalize.rules.extract_code import extract_code_block

F1 = "def f(x):\n    return x + 1"
F2 = "def f(x):\n    return 1 + x"
G = "def g(x):\n    return x + 1"
HELPER = "def g(x):\n    return x"
TEST_ASSERT = "assert f(1) == 2"
TEST_DEF = "def test_f():\n    assert f(1) == 2"
USAGE = "print(f(41))"
UNITTEST = "import unittest\n\nclass TestF(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(f(1), 2)"
MAIN = 'if __name__ == "__main__":\n    print(f(2))'
TESTS_AFTER = "\n\nassert f(1) == 2"
JS1 = "function f(x) { return x + 1; }"
JS2 = "const f = x => x + 1;"


def fence(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code}\n```"


@cache
def pack() -> Pack:
    return load_pack()


def code(text: str) -> tuple[object, str]:
    result = pack().run(text, "humaneval")
    return result.answer, result.status


@pytest.mark.parametrize(
    "text",
    [
        f"Draft:\n{fence(F1)}\nHmm, let me simplify.\n\nFinal answer:\n{fence(F2)}",
        f"{fence(F1)}\n**Final Answer**\n{fence(F2)}",
        f"First try:\n{fence(F1)}\nThat fails on negatives. Here is the corrected code:\n{fence(F2)}",
        f"初稿：\n{fence(F1)}\n最终代码：\n{fence(F2)}",
        f"{fence(F1)}\n修正后的代码如下：\n{fence(F2)}",
        f"## Final solution\n{fence(F2)}\nFor comparison, my first draft:\n{fence(F1)}",  # final comes first
        f"{fence(F1)}\nWait, that is wrong for negatives. Here is the fix:\n{fence(F2)}",
        f"{fence(F1)}\n等等，不对。\n{fence(F2)}",
        f"A partial sketch:\n{fence(HELPER)}\nComplete code:\n{fence(F2)}",
        f"思路如下：\n{fence(HELPER)}\n完整代码：\n{fence(F2)}",
    ],
)
def test_the_final_block_beats_earlier_drafts(text: str) -> None:
    assert code(text) == (F2, st.OK)


@pytest.mark.parametrize(
    "text",
    [
        f"{fence(F1)}\nAlternatively:\n{fence(F2)}",
        f"Option 1:\n{fence(F1)}\nOption 2:\n{fence(F2)}",
        f"Here is one way:\n{fence(F1)}\nAnd another:\n{fence(F2)}",  # both define f
        f"{fence(F1)}\n或者：\n{fence(F2)}",
        f"方法一：\n{fence(F1)}\n方法二：\n{fence(G)}",
        f"{fence(JS1, 'js')}\nAlternatively\n{fence(JS2, 'js')}",
    ],
)
def test_two_different_alternatives_without_a_final_marker_are_contradictory(text: str) -> None:
    result = pack().run(text, "humaneval")
    assert (result.answer, result.status) == (None, st.CONTRADICTORY)
    assert result.reason is not None and "final" in result.reason


@pytest.mark.parametrize(
    "text",
    [
        f"{fence(F1)}\nTests:\n{fence(TEST_ASSERT)}",
        f"Tests first:\n{fence(TEST_DEF)}\nSolution:\n{fence(F1)}",
        f"{fence(F1)}\nUsage:\n{fence(USAGE)}",
        f"{fence(F1)}\n测试代码：\n{fence(UNITTEST)}",
        f"实现如下：\n{fence(F1)}\n示例：\n{fence(MAIN)}",
        f"{fence(F1)}\n{fence(F1)}",  # the same block twice
        f"{fence(F1)}\nTesting it:\n{fence(F1 + TESTS_AFTER)}",  # the block again, with its tests
    ],
)
def test_one_block_plus_its_test_code_is_that_block(text: str) -> None:
    assert code(text) == (F1, st.OK)


def test_helper_blocks_that_are_not_alternatives_keep_the_old_reading() -> None:
    text = f"Helper:\n{fence(HELPER)}\nMain:\n{fence(F1)}"
    assert code(text) == (HELPER, st.OK)  # which: first, as before


def test_default_params_keep_the_old_behaviour() -> None:
    text = f"{fence(F1)}\nAlternatively:\n{fence(F2)}"
    assert extract_code_block(text) == F2  # which: last, no final markers, no refusal
    assert extract_code_block(text, CodeBlockParams(which="first")) == F1
