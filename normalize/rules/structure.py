"""Stage: structure."""

from __future__ import annotations
