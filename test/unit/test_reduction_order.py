"""A float sum's bits depend on the values summed, not on their memory order.

Kernel 78 of `kernel_gen --seed 2026` (an f32 rms-norm fed by a double
`linalg.transpose`): `linalg.transpose` yields a NumPy view, and NumPy's f32
summation order follows memory order, so the interpreter's `linalg.reduce`
summed the same values differently before and after `ktir-to-schedule` (which
routes the tile through HBM, making it contiguous): 4.8e-07 apart. The
interpreter now reduces a C-contiguous operand (interpreter/ops_linalg.py,
`_in_value_order`): the scheduled kernel equals its source bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import ops_linalg

KERNEL = """
module {
func.func @gen_2026_78(%x0: index, %x1: index, %x2: index, %out: index) attributes {grid = [4]} {
  %pid1 = ktdp.get_compute_tile_id : index
  %c0_2 = arith.constant 0 : index
  %x0_v3 = ktdp.construct_memory_view %x0, sizes: [48, 160], strides: [176, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 47 >= 0, d1 >= 0, -d1 + 159 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<48x160xf32>
  %x1_v4 = ktdp.construct_memory_view %x1, sizes: [48, 160], strides: [160, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 47 >= 0, d1 >= 0, -d1 + 159 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<48x160xf32>
  %x2_v5 = ktdp.construct_memory_view %x2, sizes: [48, 160], strides: [160, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 47 >= 0, d1 >= 0, -d1 + 159 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<48x160xf32>
  %out_v6 = ktdp.construct_memory_view %out, sizes: [48, 160], strides: [160, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 47 >= 0, d1 >= 0, -d1 + 159 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<48x160xf32>
  %c16_8 = arith.constant 16 : index
  %start7 = arith.muli %pid1, %c16_8 : index
  %c48_9 = arith.constant 48 : index
  %c3_11 = arith.constant 3 : index
  %ok10 = arith.cmpi ult, %pid1, %c3_11 : index
  scf.if %ok10 {
    %x0_t12 = ktdp.construct_access_tile %x0_v3[%start7, %c0_2] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 159 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<48x160xf32> -> !ktdp.access_tile<16x160xindex>
    %x0_d13 = ktdp.load %x0_t12 : !ktdp.access_tile<16x160xindex> -> tensor<16x160xf32>
    %x1_t14 = ktdp.construct_access_tile %x1_v4[%start7, %c0_2] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 159 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<48x160xf32> -> !ktdp.access_tile<16x160xindex>
    %x1_d15 = ktdp.load %x1_t14 : !ktdp.access_tile<16x160xindex> -> tensor<16x160xf32>
    %add16 = arith.addf %x0_d13, %x1_d15 : tensor<16x160xf32>
    %e17 = tensor.empty() : tensor<160x16xf32>
    %tr18 = linalg.transpose ins(%add16 : tensor<16x160xf32>) outs(%e17 : tensor<160x16xf32>) permutation = [1, 0]
    %k21 = arith.constant dense<0.5> : tensor<160x16xf32>
    %tm22 = arith.mulf %tr18, %k21 : tensor<160x16xf32>
    %e19 = tensor.empty() : tensor<16x160xf32>
    %trb20 = linalg.transpose ins(%tm22 : tensor<160x16xf32>) outs(%e19 : tensor<16x160xf32>) permutation = [1, 0]
    %mul23 = arith.mulf %trb20, %trb20 : tensor<16x160xf32>
    %z25 = arith.constant 0.0 : f32
    %init24 = tensor.splat %z25 : tensor<16xf32>
    %red26 = linalg.reduce { arith.addf } ins(%mul23 : tensor<16x160xf32>) outs(%init24 : tensor<16xf32>) dimensions = [1]
    %k27 = arith.constant dense<160.0> : tensor<16xf32>
    %div28 = arith.divf %red26, %k27 : tensor<16xf32>
    %k29 = arith.constant dense<0.0625> : tensor<16xf32>
    %add30 = arith.addf %div28, %k29 : tensor<16xf32>
    %sqrt31 = math.sqrt %add30 : tensor<16xf32>
    %e32 = tensor.empty() : tensor<16x160xf32>
    %bc33 = linalg.broadcast ins(%sqrt31 : tensor<16xf32>) outs(%e32 : tensor<16x160xf32>) dimensions = [1]
    %div34 = arith.divf %trb20, %bc33 : tensor<16x160xf32>
    %flat35 = tensor.collapse_shape %div34 [[0, 1]] : tensor<16x160xf32> into tensor<2560xf32>
    %k36 = arith.constant dense<-1.25> : tensor<2560xf32>
    %fm37 = arith.mulf %flat35, %k36 : tensor<2560xf32>
    %back38 = tensor.expand_shape %fm37 [[0, 1]] output_shape [16, 160] : tensor<2560xf32> into tensor<16x160xf32>
    %out_t39 = ktdp.construct_access_tile %out_v6[%start7, %c0_2] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 159 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<48x160xf32> -> !ktdp.access_tile<16x160xindex>
    ktdp.store %back38, %out_t39 : tensor<16x160xf32>, !ktdp.access_tile<16x160xindex>
    }
  return
}
}
"""


def _args(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return dict(
        x0=rng.standard_normal((48, 176)).astype(np.float32),
        x1=rng.standard_normal((48, 160)).astype(np.float32),
        x2=rng.standard_normal((48, 160)).astype(np.float32),
        out=np.zeros((48, 160), np.float32),
    )


def _run_both() -> tuple[np.ndarray, np.ndarray]:
    source = spyre_mlir.interpret(spyre_mlir.parse(KERNEL), "gen_2026_78", **_args())
    module = spyre_mlir.parse(KERNEL)
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
    scheduled = spyre_mlir.interpret(module, "gen_2026_78", **_args())
    return source["out"], scheduled["out"]


def test_rms_norm_of_a_double_transpose_through_ktir_to_schedule_is_bit_exact():
    source, scheduled = _run_both()
    np.testing.assert_array_equal(scheduled, source)


def test_without_reducing_in_value_order_the_two_differ(monkeypatch):
    """The test above is not vacuous: summing in memory order makes them differ."""
    monkeypatch.setattr(ops_linalg, "_in_value_order", lambda x, dtype=None: x if dtype is None else x.astype(dtype))
    source, scheduled = _run_both()
    if np.array_equal(scheduled, source):
        pytest.skip("this NumPy sums both memory orders alike")
    assert np.max(np.abs(scheduled - source)) < 1e-5
