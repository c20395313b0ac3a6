"""Option syntax several passes share (not a pass)."""

from __future__ import annotations

import re


def parse_scalars(text: str) -> dict[str, str]:
    """A `scalars=` option: `"K=2048,BLOCK_SIZE=128"` -> {"K": "2048", "BLOCK_SIZE": "128"}
    (`spatial-tile`, `spyre-emit-bundle`); ValueError naming a malformed item."""
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in re.split(r"[,\s]+", text))):
        name, eq, value = item.partition("=")
        if not eq or not name or not value:
            raise ValueError(f"expected NAME=VALUE, got '{item}'")
        out[name] = value
    return out
