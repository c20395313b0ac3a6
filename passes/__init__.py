"""The one pass registry: dashed pass name -> factory of the pass class.

Two parts, in this order (`spyre-opt --list-passes` shows them so):

- `SPYRE_PASSES`: our passes. Each lives in its own module
  `passes/<name_with_underscores>.py` and its `name` equals its key here
  (checked by test/unit/test_registry.py).
- `UPSTREAM_PASSES`: a named allow-list of xDSL's transformations that make
  sense on KTIR. Only pure IR-to-IR rewrites on func/arith/tensor/linalg/
  scf/math/affine are admitted, each after reading its source: nothing that
  runs a program (xDSL's `mlir-opt`), reads or writes a file named in its
  options (`apply-pdl{pdl_file=...}`, `eqsat-add-costs{cost_file=...}`),
  prints to stdout (`eqsat-serialize-egraph`), or targets another stack
  (riscv, x86, csl, stencil, gpu, ...). Everything else in
  `xdsl.transforms` is deliberately not reachable from `spyre-opt -p` or
  `PassManager.parse`.

To admit another upstream pass: read its module (and what it imports from
`xdsl.transforms`), check the points above, add it here with the reason.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable

from xdsl.passes import ModulePass


def _spatial_verify() -> type[ModulePass]:
    from spyre_mlir.passes.spatial_verify import SpatialVerifyPass

    return SpatialVerifyPass


def _spatial_tile() -> type[ModulePass]:
    from spyre_mlir.passes.spatial_tile import SpatialTilePass

    return SpatialTilePass


def _spatial_place() -> type[ModulePass]:
    from spyre_mlir.passes.spatial_place import SpatialPlacePass

    return SpatialPlacePass


def _spatial_fuse_readers() -> type[ModulePass]:
    from spyre_mlir.passes.spatial_fuse_readers import SpatialFuseReadersPass

    return SpatialFuseReadersPass


def _spatial_size_buffers() -> type[ModulePass]:
    from spyre_mlir.passes.spatial_size_buffers import SpatialSizeBuffersPass

    return SpatialSizeBuffersPass


def _spatial_synthesize_handshakes() -> type[ModulePass]:
    from spyre_mlir.passes.spatial_synthesize_handshakes import SpatialSynthesizeHandshakesPass

    return SpatialSynthesizeHandshakesPass


def _spyre_fold_reshapes() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_fold_reshapes import SpyreFoldReshapesPass

    return SpyreFoldReshapesPass


def _ktdp_check_inter_tile() -> type[ModulePass]:
    from spyre_mlir.passes.ktdp_check_inter_tile import KtdpCheckInterTilePass

    return KtdpCheckInterTilePass


def _ktdp_normalize_memory_space() -> type[ModulePass]:
    from spyre_mlir.passes.ktdp_normalize_memory_space import KtdpNormalizeMemorySpacePass

    return KtdpNormalizeMemorySpacePass


def _spyre_physicalize_layouts() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_physicalize_layouts import SpyrePhysicalizeLayoutsPass

    return SpyrePhysicalizeLayoutsPass


def _ktdf_build_pipelines() -> type[ModulePass]:
    from spyre_mlir.passes.ktdf_build_pipelines import KtdfBuildPipelinesPass

    return KtdfBuildPipelinesPass


def _ktdp_hbm_roundtrip() -> type[ModulePass]:
    from spyre_mlir.passes.ktdp_hbm_roundtrip import KtdpHbmRoundtripPass

    return KtdpHbmRoundtripPass


def _ktdp_extract_compute_groups() -> type[ModulePass]:
    from spyre_mlir.passes.ktdp_extract_compute_groups import KtdpExtractComputeGroupsPass

    return KtdpExtractComputeGroupsPass


def _spyre_coarse_tile() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_coarse_tile import SpyreCoarseTilePass

    return SpyreCoarseTilePass


def _spyre_unroll_loops() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_unroll_loops import SpyreUnrollLoopsPass

    return SpyreUnrollLoopsPass


def _spyre_raise_counted_loops() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_raise_counted_loops import SpyreRaiseCountedLoopsPass

    return SpyreRaiseCountedLoopsPass


def _spyre_plan_scratchpad() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_plan_scratchpad import SpyrePlanScratchpadPass

    return SpyrePlanScratchpadPass


def _spyre_distribute_work() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_distribute_work import SpyreDistributeWorkPass

    return SpyreDistributeWorkPass


def _spyre_emit_bundle() -> type[ModulePass]:
    from spyre_mlir.passes.spyre_emit_bundle import SpyreEmitBundlePass

    return SpyreEmitBundlePass


SPYRE_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "ktdf-build-pipelines": _ktdf_build_pipelines,
    "ktdp-check-inter-tile": _ktdp_check_inter_tile,
    "ktdp-extract-compute-groups": _ktdp_extract_compute_groups,
    "ktdp-hbm-roundtrip": _ktdp_hbm_roundtrip,
    "ktdp-normalize-memory-space": _ktdp_normalize_memory_space,
    "spatial-tile": _spatial_tile,
    "spatial-place": _spatial_place,
    "spatial-fuse-readers": _spatial_fuse_readers,
    "spatial-size-buffers": _spatial_size_buffers,
    "spatial-synthesize-handshakes": _spatial_synthesize_handshakes,
    "spatial-verify": _spatial_verify,
    "spyre-coarse-tile": _spyre_coarse_tile,
    "spyre-distribute-work": _spyre_distribute_work,
    "spyre-emit-bundle": _spyre_emit_bundle,
    "spyre-fold-reshapes": _spyre_fold_reshapes,
    "spyre-physicalize-layouts": _spyre_physicalize_layouts,
    "spyre-plan-scratchpad": _spyre_plan_scratchpad,
    "spyre-raise-counted-loops": _spyre_raise_counted_loops,
    "spyre-unroll-loops": _spyre_unroll_loops,
}
"""Passes defined in this project."""

BEYOND_THE_KERNEL: frozenset[str] = frozenset({
    "spyre-emit-bundle",  # writes the bundle: the module becomes @sdsc_bundle
    "spatial-tile",  # the kernel becomes a spatial.program
    "spatial-place",  # these take a spatial.program in their phase
    "spatial-fuse-readers",
    "spatial-size-buffers",
    "spatial-synthesize-handshakes",
})
"""Our passes whose output is not the kernel they were given (or whose input is
not a kernel): translation validation runs what they produce against the
source (test_coarse_tiling.py, test_ktir_to_spatial.py), not the kernel
before and after."""


UPSTREAM_PASSES: dict[str, str] = {
    # name: one-line summary for --list-passes where xDSL's class docstring has
    # none or an unhelpful one ("": the docstring's first sentence)
    # Generic clean-ups (any dialect; patterns and folders of the ops themselves).
    "canonicalize": "",
    "cse": "Eliminate common subexpressions (pure ops with equal operands and attributes).",
    "dce": "Remove dead operations (unused results, no side effects) and unreachable blocks.",
    "licm": "",
    "control-flow-hoist": "",
    # linalg on tensors.
    "linalg-generalize-named-ops": "",
    "linalg-fuse-multiply-add": "",
    "lift-arith-to-linalg": "",
    # affine and scf loops.
    "lower-affine": "Lower affine.for/apply/load/store to scf and arith.",
    "scf-for-loop-flatten": "",
    "scf-for-loop-range-folding": "Fold an induction variable's add/mul into the scf.for bounds.",
    "scf-for-loop-unroll": "",
    "scf-parallel-loop-tiling": "Tile the innermost scf.parallel loops by the given tile sizes.",
    # math and arith.
    "expand-math-to-polynomials": "",
    "arith-add-fastmath": "",
}
"""Upstream (xDSL) passes admitted on KTIR, by name (see the module docstring)."""


def _upstream(name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        from xdsl.transforms import get_all_passes as xdsl_passes

        return xdsl_passes()[name]()

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes, then the allowed upstream ones (ours win on a name clash)."""
    passes = dict(SPYRE_PASSES)
    for name in UPSTREAM_PASSES:
        passes.setdefault(name, _upstream(name))
    return passes


def summary(name: str) -> str:
    """One line about the pass `name`: the summary in `UPSTREAM_PASSES` if
    any, else the first sentence of its class docstring."""
    if UPSTREAM_PASSES.get(name) and name not in SPYRE_PASSES:
        return UPSTREAM_PASSES[name]
    cls = get_all_passes()[name]()
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")  # not inherited from ModulePass
    if doc.startswith(cls.__name__ + "("):  # the signature a dataclass puts there
        doc = ""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    sentence = re.split(r"(?<=[.:])\s", paragraph, maxsplit=1)[0]
    return sentence
