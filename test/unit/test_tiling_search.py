"""The tiling search (issue 12, part 5): `spyre-coarse-tile{auto-tile=true}` and `search_tilings`.

Seed 000's example with LX reduced so that the untiled kernel does not fit:
the search must refuse the untiled candidate for LX (without running it),
find a tiling whose bundle fits, and that bundle must compute the source
kernel's outputs. Every engine gives the same choice.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import REPO

import spyre_mlir
from spyre_mlir.diagnostics import Refusal
from spyre_mlir.passes.bundle.tiling_search import search_tilings

SEED = REPO / "test" / "unit" / "kernels" / "tiling" / "seed000_add_mul.mlir"
LX = 512 * 1024  # the untiled group needs 768 KiB per core
PREFIX = "spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,ktdp-extract-compute-groups"


def unhinted():
    module = spyre_mlir.parse(SEED)
    for op in module.walk():
        op.attributes.pop("spyre.slices", None)
    return module


def extracted():
    module = unhinted()
    spyre_mlir.PassManager.parse(PREFIX).run(module)
    return module


def test_search_finds_a_tiling_that_fits_and_computes_the_kernel(tmp_path):
    rng = np.random.default_rng(3)
    args = {k: rng.standard_normal(1024 * 4096).astype(np.float16) for k in "abcz"}
    source = spyre_mlir.interpret(SEED, "add_mul", **{k: v.copy() for k, v in args.items()})
    module = unhinted()
    report_path = tmp_path / "search.json"
    spyre_mlir.PassManager.from_pipeline(
        f"ktir-to-bundle{{out-dir={tmp_path},format=ktir,auto-tile=true,lx-bytes={LX},max-evaluations=4,search-report={report_path}}}"
    ).run(module)
    report = json.loads(report_path.read_text())
    untiled = next(c for c in report["candidates"] if c["label"] == "untiled")
    assert untiled["status"] == "refused" and untiled["reason"].startswith("does not fit LX")
    best = report["best"]["local_schedule_0"]
    assert best != "untiled", "no tiling chosen"
    chosen = next(c for c in report["candidates"] if c["label"] == best)
    assert chosen["status"] == "evaluated" and chosen["peak_lx_bytes_per_core"] <= LX
    assert report["counts"]["evaluated"] == 4 and report["counts"]["generated"] == len(report["candidates"])
    bundle = spyre_mlir.interpret(tmp_path / "bundle.mlir", "sdsc_bundle", **{k: v.copy() for k, v in args.items()})
    for k in source:
        np.testing.assert_array_equal(bundle[k], source[k])
    assert "scf.for" in (tmp_path / "bundle.mlir").read_text()


def test_refusals_are_typed_reasons_not_exceptions():
    report = search_tilings(extracted(), lx_bytes=LX, max_evaluations=2)
    reasons = {c.status for c in report.candidates}
    assert reasons <= {"evaluated", "refused", "skipped", "duplicate"}
    assert all(c.reason for c in report.candidates if c.status in ("refused", "skipped", "duplicate"))
    # Every divisor of every dim within 2..64 is generated: [64, 32, 64] per core.
    singles = {(c.levels[0][1][0], c.levels[0][0]) for c in report.candidates if len(c.levels) == 1}
    assert singles == {(d, k) for d, n in enumerate([64, 32, 64]) for k in range(2, min(n - 1, 64) + 1) if n % k == 0}
    assert "candidates:" in report.table()


def test_processes_choose_what_inprocess_chooses():
    a = search_tilings(extracted(), lx_bytes=LX, max_evaluations=3)
    b = search_tilings(extracted(), lx_bytes=LX, max_evaluations=3, engine="processes", jobs=2)
    assert {g: c.label for g, c in a.best.items()} == {g: c.label for g, c in b.best.items()}
    assert [(c.label, c.status, c.hbm_bytes, c.peak_lx_bytes_per_core) for c in a.candidates] == [
        (c.label, c.status, c.hbm_bytes, c.peak_lx_bytes_per_core) for c in b.candidates
    ]


def test_ray_engine_needs_ray_or_runs():
    try:
        import ray  # noqa: F401
    except ImportError:
        with pytest.raises(Refusal, match="pip install 'spyre-mlir\\[ray\\]'"):
            search_tilings(extracted(), lx_bytes=LX, max_evaluations=2, engine="ray")
        return
    a = search_tilings(extracted(), lx_bytes=LX, max_evaluations=2)
    b = search_tilings(extracted(), lx_bytes=LX, max_evaluations=2, engine="ray")
    assert {g: c.label for g, c in a.best.items()} == {g: c.label for g, c in b.best.items()}


def test_unknown_engine_and_underivable_arguments_are_located_errors(tmp_path):
    with pytest.raises(spyre_mlir.DiagnosticError, match="engine must be one of"):
        spyre_mlir.PassManager.parse(PREFIX + ",spyre-coarse-tile{auto-tile=true engine=\"mpi\"}").run(unhinted())
    # Scalars cannot be derived from views: with a scalar parameter the search says what to give.
    text = """func.func @k(%x: index, %n: index) {
      %c0 = arith.constant 0 : index
      %v = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
      %t = ktdp.construct_access_tile %v[%n] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 31 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<64xf32> -> !ktdp.access_tile<32xindex>
      %a = ktdp.load %t : !ktdp.access_tile<32xindex> -> tensor<32xf32>
      %b = math.exp %a : tensor<32xf32>
      ktdp.store %b, %t : tensor<32xf32>, !ktdp.access_tile<32xindex>
      return
    }"""
    with pytest.raises(spyre_mlir.DiagnosticError, match="spyre.search_args"):
        spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile{auto-tile=true}").run(spyre_mlir.parse(text))
    given = text.replace("func.func @k(%x: index, %n: index) {", "func.func @k(%x: index, %n: index) attributes {spyre.search_args = {n = 16 : index}} {")
    module = spyre_mlir.parse(given)
    spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile{auto-tile=true max-evaluations=2}").run(module)
    assert "spyre.search_args" in str(module)  # the kernel keeps its arguments; the search ran


LOOP_KERNEL = """func.func @rows(%x: index, %y: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %xv = ktdp.construct_memory_view %x, sizes: [32, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32x64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %init = tensor.splat %zero : tensor<4x64xf32>
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (tensor<4x64xf32>) {
    %r = arith.muli %i, %c4 : index
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<32x64xf32> -> !ktdp.access_tile<4x64xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf32>
    %b = math.exp %a : tensor<4x64xf32>
    %next = arith.addf %acc, %b : tensor<4x64xf32>
    scf.yield %next : tensor<4x64xf32>
  }
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf32> -> !ktdp.access_tile<4x64xindex>
  ktdp.store %sum, %yt : tensor<4x64xf32>, !ktdp.access_tile<4x64xindex>
  return
}"""


def test_loop_transformations_are_candidates_and_apply_exactly():
    """A group with a static scf.for: coarse tiling refuses it (a typed reason), the
    loop's tile/unroll/interchange/parallelize are candidates, evaluated by running."""
    from spyre_mlir.passes.bundle.spyre_coarse_tile import _apply_transformations

    module = spyre_mlir.parse(LOOP_KERNEL)
    spyre_mlir.PassManager.parse("ktdp-extract-compute-groups").run(module)
    report = search_tilings(module, max_evaluations=8)
    by_label = {c.label: c for c in report.candidates}
    assert by_label["d0/2"].status == "refused" and "has regions" in by_label["d0/2"].reason
    assert by_label["unroll L0/2"].status == "evaluated"
    assert by_label["unroll L0/2"].hbm_bytes == by_label["untiled"].hbm_bytes == (32 + 4) * 64 * 4
    parallel = next(c for c in report.candidates if c.label.startswith("parallelize"))
    assert parallel.status == "refused" and parallel.reason.startswith("CARRIES_VALUES")  # an accumulator
    assert report.best["local_schedule_0"].status == "evaluated"

    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    before = spyre_mlir.interpret(module, "rows", x=x.copy(), y=np.zeros((4, 64), np.float32))
    _apply_transformations(module, [by_label["unroll L0/2"].transform])
    assert str(module).count("math.exp") == 2
    after = spyre_mlir.interpret(module, "rows", x=x.copy(), y=np.zeros((4, 64), np.float32))
    np.testing.assert_array_equal(after["y"], before["y"])
    np.testing.assert_allclose(after["y"], np.exp(x).reshape(8, 4, 64).sum(axis=0), rtol=1e-5)
