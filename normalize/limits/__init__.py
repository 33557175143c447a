"""Bounds on work: per-row budgets, deadlines, growth (linearity) checks, guarded regexes and schemas."""
