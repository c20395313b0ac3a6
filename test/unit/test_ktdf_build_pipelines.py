"""ktdf-build-pipelines: a group's load -> compute -> store body becomes a three-stage ktdf pipeline
(the printed pipelines are in test/lit/passes/schedule/ktdf-build-pipelines.mlir)."""

from __future__ import annotations

import pytest

import spyre_mlir

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
