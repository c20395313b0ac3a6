"""Shared fixtures: the corpus of real KTIR beside the repo (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "ktir"


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.mlir")) if CORPUS.is_dir() else []


def corpus_params():
    """Parametrize over corpus files; one skipped case when ../shared is absent."""
    files = corpus_files()
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/ktir not present"))]
    return [pytest.param(f, id=f.name) for f in files]
