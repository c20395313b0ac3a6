"""The one pass registry: dashed pass name -> factory of the pass class.

Each of our passes lives in its own module `passes/<name_with_underscores>.py`
and its `name` equals its key here (checked by test/unit/test_registry.py).
Upstream passes (cse, canonicalize, ...) come from xDSL.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _spyre_fold_reshapes() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_fold_reshapes import SpyreFoldReshapesPass

    return SpyreFoldReshapesPass


def _ktdp_normalize_memory_space() -> type[ModulePass]:
    from spyre_mlir.passes.ktdp_normalize_memory_space import KtdpNormalizeMemorySpacePass

    return KtdpNormalizeMemorySpacePass


SPYRE_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "ktdp-normalize-memory-space": _ktdp_normalize_memory_space,
    "spyre-fold-reshapes": _spyre_fold_reshapes,
}
"""Passes defined in this project."""


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Upstream (xDSL) passes plus ours; ours win on a name clash."""
    from xdsl.transforms import get_all_passes as xdsl_passes

    return {**xdsl_passes(), **SPYRE_PASSES}
