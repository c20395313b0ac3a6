"""Unit tests of ktdf-build-pipelines (passes/schedule/ktdf_build_pipelines.py).

After ktdp-extract-compute-groups, the pass turns each block of a compute
group that is one load -> compute -> store pass into a `ktdf.pipeline` of
three token-ordered stages: a load stage (`depends_in(none)`) moving each
tile into a FIFO slot (`ktdf.data_transfer` for a box tile in order, else
`ktdp.load` + `ktdf.write_to_fifo`), a compute stage on the SFU reading the
slots, and a store stage. Blocks that are not such a pass (a loop carrying a
value) stay KTIR, and their loops are tried in turn.

Tested: the pipeline's stages, tokens, slots and transfers; a reduction loop
stays KTIR; a second run changes nothing; translation validation (the kernel
before extraction, after it and after the pass on seeded inputs, and a NumPy
oracle); the located refusals of a kernel not split into groups (pass
manager and `apply`) and of an emitted bundle; the may-alias rule (a load
of what an earlier store of the group writes keeps the group as it is). The
printed pipelines are in test/lit/passes/schedule/ktdf-build-pipelines.mlir.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context

import spyre_mlir
from spyre_mlir.dialects import ktdf
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.contracts import group_functions
from spyre_mlir.passes.schedule.ktdf_build_pipelines import KtdfBuildPipelinesPass

EXTRACT = "ktdp-extract-compute-groups"
PASS = "ktdf-build-pipelines"

# out = exp(x) * y, row by row: each of 2 cores takes 4 rows of 32 in a loop.
ROWS = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: index, %y: index, %out: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %core = ktdp.get_compute_tile_id : index
  %first = arith.muli %core, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.addi %first, %i : index
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %b = ktdp.load %yt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %e = math.exp %a : tensor<1x32xf32>
    %m = arith.mulf %e, %b : tensor<1x32xf32>
    %ot = ktdp.construct_access_tile %ov[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    ktdp.store %m, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  }
  return
}
"""

# out = the sum of the four 64-element quarters of x: a loop carrying a value.
REDUCTION = """
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @reduction(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %xv = ktdp.construct_memory_view %x, sizes: [256], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 255 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<256xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<64xf32>) {
    %off = arith.muli %i, %c64 : index
    %t = ktdp.construct_access_tile %xv[%off] {access_tile_set = #all, access_tile_order = #id1} : memref<256xf32> -> !ktdp.access_tile<64xindex>
    %d = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
    %n = arith.addf %a, %d : tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  ktdp.store %s, %ot : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""


def _built(text: str, passes: str = f"{EXTRACT},{PASS}"):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(passes).run(module)
    return module


def _of(root, cls) -> list:
    return [op for op in root.walk() if isinstance(op, cls)]


def _rows_args(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x, y = (rng.standard_normal((8, 32)).astype(np.float32) for _ in range(2))
    return dict(x=x, y=y, out=np.zeros((8, 32), np.float32))


def _run_rows(module, args: dict) -> np.ndarray:
    return np.asarray(spyre_mlir.interpret(module, "rows", **{k: v.copy() for k, v in args.items()})["out"])


def test_a_load_compute_store_body_becomes_a_three_stage_pipeline():
    module = _built(ROWS)
    (pipeline,) = _of(module, ktdf.PipelineOp)
    load, compute, store = _of(pipeline, ktdf.StageOp)
    # Stages are ordered by tokens: none -> load -> compute -> store.
    assert "depends_in(none)" in print_ir(load).splitlines()[0]
    assert [u.data for u in compute.applicable_units.data] == ["SFU"]
    assert load.applicable_units is None and store.applicable_units is None
    # Box tiles in order move by data_transfer: two in (x, y), one out.
    assert len(_of(load, ktdf.DataTransferOp)) == 2 and len(_of(store, ktdf.DataTransferOp)) == 1
    assert len(_of(compute, ktdf.ReadFromFifoOp)) == 2 and len(_of(compute, ktdf.WriteToFifoOp)) == 1
    assert {op.name for op in compute.walk()} >= {"math.exp", "arith.mulf"}
    # No KTIR access is left in the group: every load and store went into the pipeline.
    assert not [op for op in module.walk() if op.name in ("ktdp.load", "ktdp.store")]
    # The loop stays in the kernel and calls the group, whose body is the pipeline.
    assert pipeline.parent_op() in group_functions(module)
    (loop,) = [op for op in module.walk() if op.name == "scf.for"]
    assert [op.name for op in loop.walk() if op.name == "func.call"] == ["func.call"]


def test_a_loop_carrying_a_value_stays_ktir():
    extracted = _built(REDUCTION, EXTRACT)
    module = _built(REDUCTION)
    assert not _of(module, ktdf.PipelineOp)
    assert print_ir(module) == print_ir(extracted)


def test_a_second_run_changes_nothing():
    module = _built(ROWS)
    text = print_ir(module)
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(module) == text


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_computes_the_same_before_and_after_and_matches_numpy(seed):
    args = _rows_args(seed)
    source = _run_rows(spyre_mlir.parse(ROWS), args)
    extracted = _run_rows(_built(ROWS, EXTRACT), args)
    piped = _run_rows(_built(ROWS), args)
    np.testing.assert_array_equal(extracted, source)
    np.testing.assert_array_equal(piped, extracted)
    np.testing.assert_allclose(piped, np.exp(args["x"]) * args["y"], rtol=1e-6)


def test_reduction_computes_the_same_and_matches_numpy():
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)

    def run(module):
        return np.asarray(spyre_mlir.interpret(module, "reduction", x=x.copy(), out=np.zeros(64, np.float32))["out"])

    np.testing.assert_array_equal(run(_built(REDUCTION)), run(spyre_mlir.parse(REDUCTION)))
    np.testing.assert_allclose(run(_built(REDUCTION)), x.reshape(4, 64).sum(0), rtol=1e-5)


def test_a_kernel_not_split_into_groups_is_refused_at_its_first_access():
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(PASS).run(spyre_mlir.parse(ROWS))
    exc = info.value
    assert exc.diagnostic.message == (
        "pass 'ktdf-build-pipelines' needs extracted compute groups: run 'ktdp-extract-compute-groups' first")
    assert exc.diagnostic.location is not None
    assert "%a = ktdp.load" in ROWS.splitlines()[exc.diagnostic.location.line - 1]
    with pytest.raises(spyre_mlir.DiagnosticError, match="run 'ktdp-extract-compute-groups' first"):
        KtdfBuildPipelinesPass().apply(Context(), spyre_mlir.parse(ROWS))


def test_an_emitted_bundle_is_refused(tmp_path):
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        _built(ROWS, f"{EXTRACT},spyre-emit-bundle{{out-dir={tmp_path}}},{PASS}")
    assert "already an emitted bundle: run 'ktdf-build-pipelines' before 'spyre-emit-bundle'" in info.value.diagnostic.message


# One compute group: row i of @A doubled into @D, row i of @C copied into @E. The
# store into @D comes before the load of @C: the loads can all move into a load
# stage only if @C does not overlap @D (the may-alias query of spyre_mlir.analysis.access;
# addresses count elements).
GROUP = """
builtin.module @local_schedule_0 {
func.func @local_schedule_0() attributes {spyre.compute_group} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %a0 = arith.constant 0 : index
  %c0a = arith.constant CADDR : index
  %d0 = arith.constant 8192 : index
  %e0 = arith.constant 12288 : index
  %A = ktdp.construct_memory_view %a0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %C = ktdp.construct_memory_view %c0a, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %D = ktdp.construct_memory_view %d0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %E = ktdp.construct_memory_view %e0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  scf.for %i = %c0 to %n step %c1 {
    %ta = ktdp.construct_access_tile %A[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %tc = ktdp.construct_access_tile %C[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %td = ktdp.construct_access_tile %D[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %te = ktdp.construct_access_tile %E[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %a = ktdp.load %ta : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = tensor.empty() : tensor<1x64xf16>
    %r = linalg.add ins(%a, %a : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
    ktdp.store %r, %td : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    %c = ktdp.load %tc : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    ktdp.store %c, %te : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  }
  return
}
}
"""


def _ops(c_address: int) -> list[str]:
    module = spyre_mlir.parse(GROUP.replace("CADDR", str(c_address)))
    spyre_mlir.PassManager.parse("ktdf-build-pipelines").run(module)
    return [op.name for op in module.walk()]


def test_a_group_without_aliasing_becomes_a_three_stage_pipeline():
    ops = _ops(4096)
    assert ops.count("ktdf.pipeline") == 1 and ops.count("ktdf.stage") == 3
    assert "ktdp.load" not in ops and "ktdp.store" not in ops


@pytest.mark.parametrize("c_address", [8192, 8192 + 3 * 64])
def test_a_load_of_what_an_earlier_store_writes_keeps_the_group_as_it_is(c_address):
    ops = _ops(c_address)
    assert "ktdf.pipeline" not in ops and ops.count("ktdp.load") == 2 and ops.count("ktdp.store") == 2
