"""Batching through `func.call`: a callee that cannot run batched makes its
kernel fall back to running per core, as the kernel's own body does.

Callees are decoded with their caller, so that `NotBatchable` is raised while
the kernel decodes (before, the callee was decoded on its first call, and the
exception escaped the run as an internal error).
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions

# Core i stores the sum of the first i + 1 elements of x: the callee's access
# tile is 1x(i + 1), a shape that differs between cores.
PREFIX_SUMS = """
func.func @prefix_sum(%x: index, %n: index) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %x_view = ktdp.construct_memory_view %x, sizes: [1, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<1x8xf32>
  %t = ktdp.construct_access_tile %x_view[%c0, %c0] symbols(%n) {
    access_tile_set = affine_set<(d0, d1)[s0] : (d0 == 0, d1 >= 0, -d1 + s0 - 1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<1x8xf32> -> !ktdp.access_tile<1x?xindex>
  %head = ktdp.load %t : !ktdp.access_tile<1x?xindex> -> tensor<1x?xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %sum = linalg.reduce { arith.addf } ins(%head : tensor<1x?xf32>) outs(%zero : tensor<1xf32>) dimensions = [1]
  return %sum : tensor<1xf32>
}

func.func @k(%x: index, %out: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c1 = arith.constant 1 : index
  %n = arith.addi %core, %c1 : index
  %sum = func.call @prefix_sum(%x, %n) : (index, index) -> tensor<1xf32>
  %out_view = ktdp.construct_memory_view %out, sizes: [4], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  %o = ktdp.construct_access_tile %out_view[%core] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf32> -> !ktdp.access_tile<1xindex>
  ktdp.store %sum, %o : tensor<1xf32>, !ktdp.access_tile<1xindex>
  return
}
"""


def _run(text: str, execution: str, x: np.ndarray):
    return spyre_mlir.interpret(
        text, "k", x=x, out=np.zeros(4, np.float32), options=InterpreterOptions(execution=execution)
    )


def test_a_callee_with_a_per_core_tile_shape_falls_back_to_per_core():
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 8)
    auto = _run(PREFIX_SUMS, "auto", x)
    per_core = _run(PREFIX_SUMS, "per-core", x)
    assert auto.report.mode == "per-core"
    assert "the shape of an access tile depends on the core id at " in auto.report.fallback_reason
    np.testing.assert_array_equal(auto["out"], per_core["out"])
    np.testing.assert_array_equal(auto["out"], np.cumsum(x[0, :4]))


def test_forced_batching_of_such_a_callee_is_a_located_refusal():
    x = np.ones((1, 8), np.float32)
    with pytest.raises(
        spyre_mlir.DiagnosticError, match="cannot run the cores batched: the shape of an access tile"
    ) as exc:
        _run(PREFIX_SUMS, "batched", x)
    assert "internal error" not in str(exc.value)


def test_a_batchable_callee_still_runs_batched():
    """Same kernel with a tile shape every core shares: the call does not force per-core."""
    text = PREFIX_SUMS.replace("%n = arith.addi %core, %c1 : index", "%n = arith.addi %c1, %c1 : index")
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 8)
    auto = _run(text, "auto", x)
    assert auto.report.mode == "batched"
    np.testing.assert_array_equal(auto["out"], np.full(4, x[0, 0] + x[0, 1]))
    np.testing.assert_array_equal(auto["out"], _run(text, "per-core", x)["out"])
