"""Rows in and out: JSONL, typed rows, streaming jobs, Parquet/Arrow, the harness log readers."""
