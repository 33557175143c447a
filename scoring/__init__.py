"""Scoring: metrics, reports, statistics, the cache and the LM scorer."""
