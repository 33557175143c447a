"""The params of the format rules (pydantic models; why they live apart: :mod:`normalize.rules`)."""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from normalize.core.registry import Params, StrTuple


class StripMarkdownParams(Params):
    """``blockquotes``: also remove ``>`` quote markers at the start of lines."""

    blockquotes: bool = False


class NormalizeWhitespaceParams(Params):
    """``newlines``: ``keep`` line breaks (at most one blank line in a row) or ``collapse`` them."""

    newlines: Literal["keep", "collapse"] = "keep"


class StripTrailingWhitespaceParams(Params):
    """``per_line``: strip the end of every line, or only the end of the text."""

    per_line: bool = True


class StripTrailingPeriodParams(Params):
    """``chars``: the sentence-final marks that may be removed (one of them, once)."""

    chars: str = ".。"

    @field_validator("chars")
    @classmethod
    def _check_chars(cls, value: str) -> str:
        if not value or any(c.isspace() for c in value):
            raise ValueError(f"chars must be non-empty and hold no whitespace, got {value!r}")
        return value


class FoldCaseParams(Params):
    """``mode``: ``casefold`` (full Unicode folding, ``ß`` → ``ss``) or ``lower``."""

    mode: Literal["lower", "casefold"] = "casefold"


class NativeDigitsParams(Params):
    """``digits``: strings of ten native digits, 0 to 9 each (``٠١٢٣٤٥٦٧٨٩``); empty → filled
    when the pack loads from the ``digits`` of every language of ``from_languages`` (``"*"``:
    every language of the pack that has them)."""

    from_languages: StrTuple = ("*",)
    digits: StrTuple = ()

    @field_validator("digits")
    @classmethod
    def _ten_digits(cls, digits: tuple[str, ...]) -> tuple[str, ...]:
        for run in digits:
            if len(run) != 10 or len(set(run)) != 10 or any(c.isascii() for c in run):
                raise ValueError(f"digits must be ten distinct non-ASCII characters, 0 to 9, got {run!r}")
        return digits
