"""Unit tests of spyre-fold-reshapes (passes/frontend/spyre_fold_reshapes.py).

The pass folds an exact reshape round trip: a `tensor.collapse_shape` of a
`tensor.expand_shape` (or the other way round) whose result has the type of
the pair's source is replaced by that source. Pairs that change the shape,
and expand-of-collapse pairs with dynamic dims, are left alone; the dead
reshapes are left for DCE.

Tested: both directions fold (the users now read the source), a round trip
through different reassociations folds, a real reshape and a dynamic pair do
not, translation validation (functions and a KTIR kernel interpreted before
and after on seeded inputs, with a NumPy oracle), and that the pass has no
stage requirement (it folds inside extracted compute groups too).
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, tensor

import spyre_mlir
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.contracts import CONTRACTS

PASS = "spyre-fold-reshapes"

FUNCTIONS = """
func.func @collapse_of_expand(%x: tensor<128xf32>) -> tensor<128xf32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [1, 128] : tensor<128xf32> into tensor<1x128xf32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<1x128xf32> into tensor<128xf32>
  %y = math.exp %c : tensor<128xf32>
  return %y : tensor<128xf32>
}
func.func @expand_of_collapse(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %y = arith.mulf %e, %e : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
func.func @unit_axis(%x: tensor<2x1x64xf32>) -> tensor<2x1x64xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x1x64xf32> into tensor<2x64xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %y = math.exp %e : tensor<2x1x64xf32>
  return %y : tensor<2x1x64xf32>
}
func.func @real_reshape(%x: tensor<8xf32>) -> tensor<4x2xf32> {
  %e = tensor.expand_shape %x [[0, 1, 2]] output_shape [2, 2, 2] : tensor<8xf32> into tensor<2x2x2xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x2x2xf32> into tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}
func.func @dynamic(%x: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [%n, 4] : tensor<?xf32> into tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}
"""

SHAPES = {"collapse_of_expand": (128,), "expand_of_collapse": (2, 4), "unit_axis": (2, 1, 64), "real_reshape": (8,)}
ORACLE = {
    "collapse_of_expand": np.exp,
    "expand_of_collapse": lambda x: x * x,
    "unit_axis": np.exp,
    "real_reshape": lambda x: x.reshape(4, 2),
}


def _folded(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(PASS).run(module)
    return module


def _function(module, name: str) -> func.FuncOp:
    return next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name)


def _live_reshapes(fn: func.FuncOp) -> list:
    """The reshapes whose result is still used (the pass leaves dead ones for DCE)."""
    return [op for op in fn.walk() if isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp) and op.result.uses]


@pytest.mark.parametrize("name", ["collapse_of_expand", "expand_of_collapse", "unit_axis"])
def test_round_trip_folds_to_its_source(name):
    fn = _function(_folded(FUNCTIONS), name)
    assert _live_reshapes(fn) == []
    compute = next(op for op in fn.body.block.ops if op.name in ("math.exp", "arith.mulf"))
    assert set(compute.operands) == {fn.args[0]}, f"{name}: the source is read directly"


@pytest.mark.parametrize("name", ["real_reshape", "dynamic"])
def test_a_real_reshape_and_a_dynamic_pair_are_left(name):
    module = spyre_mlir.parse(FUNCTIONS)
    before = print_ir(_function(module, name))
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(_function(module, name)) == before
    assert len(_live_reshapes(_function(module, name))) >= 1


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_functions_compute_the_same_before_and_after_and_match_numpy(name):
    x = np.random.default_rng(len(name)).standard_normal(SHAPES[name]).astype(np.float32)
    before = np.asarray(spyre_mlir.interpret(FUNCTIONS, name, x=x.copy())["return_0"])
    after = np.asarray(spyre_mlir.interpret(_folded(FUNCTIONS), name, x=x.copy())["return_0"])
    np.testing.assert_array_equal(after, before)
    np.testing.assert_allclose(after, ORACLE[name](x), rtol=1e-6)


# A KTIR kernel that sends each loaded row through a no-op collapse/expand pair: out = exp(x) per row.
KERNEL = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
    %flat = tensor.collapse_shape %a [[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
    %back = tensor.expand_shape %flat [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
    %e = math.exp %back : tensor<1x64xf32>
    %ot = ktdp.construct_access_tile %ov[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
    ktdp.store %e, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  }
  return
}
"""


def _run_kernel(module, x: np.ndarray) -> np.ndarray:
    return np.asarray(spyre_mlir.interpret(module, "rows", x=x.copy(), out=np.zeros_like(x))["out"])


def test_kernel_round_trip_folds_and_computes_the_same():
    x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
    module = _folded(KERNEL)
    exp = next(op for op in module.walk() if op.name == "math.exp")
    assert exp.operands[0].owner.name == "ktdp.load"
    np.testing.assert_array_equal(_run_kernel(module, x), _run_kernel(spyre_mlir.parse(KERNEL), x))
    np.testing.assert_allclose(_run_kernel(module, x), np.exp(x), rtol=1e-6)


def test_no_stage_requirement_it_folds_inside_extracted_groups_too():
    assert not CONTRACTS[PASS].requires
    module = spyre_mlir.parse(KERNEL)
    spyre_mlir.PassManager.parse(f"ktdp-extract-compute-groups,{PASS}").run(module)
    exps = [op for op in module.walk() if op.name == "math.exp"]
    assert exps and all(not isinstance(e.operands[0].owner, tensor.ExpandShapeOp) for e in exps)
