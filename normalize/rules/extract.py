"""Stage: extract."""

from __future__ import annotations
