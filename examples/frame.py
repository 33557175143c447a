"""A data frame of scored rows: unparsed answers are False in `correct` and NaN in `correct_valid`.

    python examples/frame.py   (needs pandas: pip install 'harness-normalize[integrations]')
"""

from __future__ import annotations

from scoring.integrations.frame import results_frame

df = results_frame("examples/predictions.jsonl")
print(df[["id", "task", "status", "answer", "correct", "correct_valid"]].to_string(index=False))
print()
print("strict accuracy (unparsed = wrong):", round(df["correct"].mean(), 3))
print("accuracy among parsed answers:     ", round(df["correct_valid"].mean(), 3))
print("parse rate:                        ", round(df["parsed"].mean(), 3))
print(df.groupby("task")[["correct", "correct_valid", "parsed"]].mean().round(3))
print("pack:", df.attrs["pack_hash"])
