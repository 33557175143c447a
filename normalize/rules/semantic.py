"""Stage: semantic."""

from __future__ import annotations
