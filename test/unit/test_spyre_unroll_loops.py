"""spyre-unroll-loops: every static spyre_loop.loop becomes copies of its body.

Translation validation: each kernel runs in the reference interpreter before
and after the pass on the same seeded random inputs; the outputs must be
identical, and equal to a NumPy oracle. The unrolled IR is inspected too: no
loop left, one copy per iteration with its own tile-number constant, HBM
addresses that move from copy to copy and an LX (ct_local) offset that does
not.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import affine, arith
from xdsl.ir import SSAValue

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.ktdp import ConstructAccessTileOp, ConstructMemoryViewOp, StoreOp
from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.passes.bundle.spyre_unroll_loops import SpyreUnrollLoopsPass


def unroll(module, **options):
    SpyreUnrollLoopsPass(**options).apply(ir.make_context(), module)
    ir.verify(module)
    return module


def loops(module) -> list[LoopOp]:
    return [op for op in module.walk() if isinstance(op, LoopOp)]


def index_value(value: SSAValue) -> int:
    """The integer an index value is once %k is a constant: arith.constant,
    addi / muli and affine.apply of such values (what the kernels use)."""
    op = value.owner
    if isinstance(op, arith.ConstantOp):
        return op.value.value.data
    if isinstance(op, arith.AddiOp):
        return index_value(op.lhs) + index_value(op.rhs)
    if isinstance(op, arith.MuliOp):
        return index_value(op.lhs) * index_value(op.rhs)
    if isinstance(op, affine.ApplyOp):
        (result,) = op.map.data.eval([index_value(v) for v in op.mapOperands], [])
        return result
    raise AssertionError(f"not a constant index: {value} defined by {op}")


def anchor(tile: ConstructAccessTileOp) -> tuple[int, ...]:
    """The tile's anchor, `base_map(indices)`, once its indices are constants."""
    dims = [index_value(v) for v in tile.indices]
    syms = [index_value(v) for v in tile.symbol_operands]
    return tuple(tile.base_map.data.eval(dims, syms))


def is_lx(view: ConstructMemoryViewOp) -> bool:
    return "ct_local" in str(view.attributes.get("memory_space") or view.properties.get("memory_space"))


# -- a 2x3 nest over HBM: addresses affine in both tile numbers ---------------

NEST = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 23 >= 0)>
#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @nest(%x: index, %out: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 24], strides: [24, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x24xf32>
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
  ^bb0(%i: index):
    spyre_loop.loop count(3) tiled_dims [1] tile_sizes [8] {
    ^bb1(%j: index):
      %row = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
      %col = arith.muli %j, %c8 : index
      %xt = ktdp.construct_access_tile %xv[%row, %col] {access_tile_set = #box, access_tile_order = #id2} : memref<8x24xf32> -> !ktdp.access_tile<4x8xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
      %e = math.exp %a : tensor<4x8xf32>
      %tag = affine.apply affine_map<(d0, d1) -> (d0 * 10 + d1)>(%i, %j)
      %tag32 = arith.index_cast %tag : index to i32
      %tagf = arith.sitofp %tag32 : i32 to f32
      %tags = tensor.splat %tagf : tensor<4x8xf32>
      %r = arith.addf %e, %tags : tensor<4x8xf32>
      %base = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 96 + d1 * 8)>(%i, %j)[%out]
      %ov = ktdp.construct_memory_view %base, sizes: [4, 8], strides: [24, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
      %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<4x8xf32> -> !ktdp.access_tile<4x8xindex>
      ktdp.store %r, %ot : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
    }
  }
  return
}
"""


def nest_args(seed: int = 0) -> dict:
    x = np.random.default_rng(seed).random((8, 24)).astype(np.float32)
    return {"x": x, "out": np.zeros((8, 24), np.float32)}


def nest_oracle(x: np.ndarray) -> np.ndarray:
    tags = np.repeat(np.repeat(np.array([[0, 1, 2], [10, 11, 12]], np.float32), 4, axis=0), 8, axis=1)
    return np.exp(x) + tags


@pytest.mark.parametrize("seed", [0, 1])
def test_nest_unrolls_and_keeps_results(seed):
    args = nest_args(seed)
    before = spyre_mlir.interpret(spyre_mlir.parse(NEST), "nest", **args)
    module = unroll(spyre_mlir.parse(NEST))
    assert not loops(module)
    after = spyre_mlir.interpret(module, "nest", **args)
    assert before.keys() == after.keys()
    np.testing.assert_array_equal(after["out"], before["out"])
    np.testing.assert_allclose(after["out"], nest_oracle(args["x"]), rtol=1e-6)


def test_nest_copies_in_order_with_per_copy_constants():
    """2 x 3 = 6 copies of the inner body, in loop order; the HBM addresses
    (the load tile's anchor, the stored view's base) differ in every copy."""
    module = unroll(spyre_mlir.parse(NEST))
    stores = [op for op in module.walk() if isinstance(op, StoreOp)]
    assert len(stores) == 6
    bases = []
    for store in stores:
        tile = store.operands[1].owner
        assert isinstance(tile, ConstructAccessTileOp)
        view = tile.operands[0].owner
        assert isinstance(view, ConstructMemoryViewOp) and not is_lx(view)
        bases.append(view.operands[0])
    out = next(a for a in module.walk() if a.name == "func.func").body.block.args[1]
    # Each base is `out + 96 i + 8 j`: an affine.apply of constants and %out.
    offsets = []
    for base in bases:
        apply = base.owner
        assert isinstance(apply, affine.ApplyOp)
        assert apply.mapOperands[-1] is out
        i, j = (index_value(v) for v in apply.mapOperands[:2])
        (offset,) = apply.map.data.eval([i, j], [0])
        offsets.append(offset)
    assert offsets == [0, 8, 16, 96, 104, 112]
    anchors = [
        anchor(op)
        for op in module.walk()
        if isinstance(op, ConstructAccessTileOp) and op.operands[0].owner.operands[0].name_hint == "x"
    ]
    assert anchors == [(0, 0), (0, 8), (0, 16), (4, 0), (4, 8), (4, 16)]


def test_nest_through_pass_manager():
    from spyre_mlir.passes import SPYRE_PASSES

    assert "spyre-unroll-loops" in SPYRE_PASSES
    args = nest_args()
    module = spyre_mlir.parse(NEST)
    spyre_mlir.PassManager.parse("spyre-unroll-loops{max-copies=6}").run(module)
    assert not loops(module)
    np.testing.assert_allclose(spyre_mlir.interpret(module, "nest", **args)["out"], nest_oracle(args["x"]), rtol=1e-6)
    with pytest.raises(DiagnosticError, match=r"6 copies .* max-copies=5"):
        spyre_mlir.PassManager.parse("spyre-unroll-loops{max-copies=5}").run(spyre_mlir.parse(NEST))


# -- a loop-internal LX buffer at a fixed offset ------------------------------

LX = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @lx(%x: index, %out: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  spyre_loop.loop count(4) tiled_dims [0] tile_sizes [4] {
  ^bb0(%k: index):
    %row = arith.muli %k, %c4 : index
    %xt = ktdp.construct_access_tile %xv[%row, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<4x32xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
    %e = math.exp %a : tensor<4x32xf32>
    %lx_offset = arith.constant 512 : index
    %buf = ktdp.construct_memory_view %lx_offset, sizes: [4, 32], strides: [32, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<ct_local>} : memref<4x32xf32>
    %bt = ktdp.construct_access_tile %buf[%c0, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
    ktdp.store %e, %bt : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
    %b = ktdp.load %bt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
    %r = arith.addf %b, %a : tensor<4x32xf32>
    %ot = ktdp.construct_access_tile %ov[%row, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<4x32xindex>
    ktdp.store %r, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  }
  return
}
"""


def test_lx_offset_stays_fixed_while_hbm_tiles_move():
    module = unroll(spyre_mlir.parse(LX))
    assert not loops(module)
    views = [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp)]
    lx = [v for v in views if is_lx(v)]
    assert len(lx) == 4  # one copy of the loop-internal buffer per iteration
    assert [index_value(v.operands[0]) for v in lx] == [512] * 4
    hbm_tiles = [
        op for op in module.walk()
        if isinstance(op, ConstructAccessTileOp) and not is_lx(op.operands[0].owner)
    ]
    # load tile and store tile of each copy, both at row 4 k
    assert [anchor(t) for t in hbm_tiles] == [(r, 0) for r in (0, 0, 4, 4, 8, 8, 12, 12)]
    lx_tiles = [op for op in module.walk() if isinstance(op, ConstructAccessTileOp) and is_lx(op.operands[0].owner)]
    assert [anchor(t) for t in lx_tiles] == [(0, 0)] * 4


@pytest.mark.parametrize("seed", [0, 3])
def test_lx_kernel_keeps_results(seed):
    x = np.random.default_rng(seed).random((16, 32)).astype(np.float32)
    args = {"x": x, "out": np.zeros((16, 32), np.float32)}
    before = spyre_mlir.interpret(spyre_mlir.parse(LX), "lx", **args)
    after = spyre_mlir.interpret(unroll(spyre_mlir.parse(LX)), "lx", **args)
    np.testing.assert_array_equal(after["out"], before["out"])
    np.testing.assert_allclose(after["out"], np.exp(x) + x, rtol=1e-6)


# -- what is copied, what is refused ------------------------------------------

def test_unused_tile_number_makes_no_constant():
    text = """
func.func @f(%a: index) {
  spyre_loop.loop count(3) tiled_dims [0] tile_sizes [1] {
  ^bb0(%k: index):
    %b = arith.addi %a, %a : index
  }
  return
}
"""
    module = unroll(spyre_mlir.parse(text))
    names = [op.name for op in module.walk()]
    assert names.count("arith.addi") == 3 and "arith.constant" not in names


def test_no_loop_no_change():
    plain = spyre_mlir.parse("func.func @f(%a: index) -> index {\n  %b = arith.addi %a, %a : index\n  return %b : index\n}\n")
    before = ir.print_ir(plain)
    assert ir.print_ir(unroll(plain)) == before


SIBLINGS = """
func.func @f(%a: index) {
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [1] {
  ^bb0(%i: index):
    spyre_loop.loop count(3) tiled_dims [1] tile_sizes [1] {
    ^bb1(%j: index):
      %s = arith.addi %i, %j : index
    }
    spyre_loop.loop count(4) tiled_dims [1] tile_sizes [1] {
    ^bb2(%j: index):
      %t = arith.muli %i, %j : index
    }
  }
  return
}
"""


def test_sibling_inner_loops_add_up_to_the_limit():
    """2 x (3 + 4) = 14 copies: allowed at max-copies=14, refused at 13."""
    module = unroll(spyre_mlir.parse(SIBLINGS), max_copies=14)
    pairs = [(index_value(op.lhs), index_value(op.rhs)) for op in module.walk() if op.name == "arith.addi"]
    products = [(index_value(op.lhs), index_value(op.rhs)) for op in module.walk() if op.name == "arith.muli"]
    assert pairs == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert products == [(i, j) for i in range(2) for j in range(4)]
    module = spyre_mlir.parse(SIBLINGS)
    before = ir.print_ir(module)
    with pytest.raises(DiagnosticError) as info:
        unroll(module, max_copies=13)
    assert "14 copies" in info.value.diagnostic.message and "max-copies=13" in info.value.diagnostic.message
    assert ir.print_ir(module) == before  # refused before anything changed


def test_max_copies_error_is_located_and_changes_nothing():
    module = spyre_mlir.parse(NEST)
    before = ir.print_ir(module)
    with pytest.raises(DiagnosticError) as info:
        unroll(module, max_copies=5)
    diag = info.value.diagnostic
    assert diag.severity == "error" and diag.location is not None
    assert diag.location.line == NEST.splitlines().index(
        next(line for line in NEST.splitlines() if "count(2)" in line)) + 1
    assert "6 copies" in diag.message and "max-copies=5" in diag.message
    assert ir.print_ir(module) == before
    unroll(module, max_copies=6)  # exactly at the limit: allowed
    assert not loops(module)


def test_symbolic_count_is_a_located_error_and_changes_nothing():
    text = """
func.func @f(%n: index) {
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [1] {
  ^bb0(%i: index):
    %s = arith.addi %i, %i : index
  }
  spyre_loop.loop count(%n) tiled_dims [0] tile_sizes [1] {
  ^bb0(%k: index):
    %t = arith.addi %k, %k : index
  }
  return
}
"""
    module = spyre_mlir.parse(text)
    before = ir.print_ir(module)
    with pytest.raises(DiagnosticError) as info:
        unroll(module)
    diag = info.value.diagnostic
    assert diag.message == "cannot unroll a loop with a symbolic count"
    assert diag.location is not None and diag.location.line == 7
    assert ir.print_ir(module) == before  # the static loop before it was not unrolled either
