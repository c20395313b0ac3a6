"""spyre_mlir.analysis.dim_maps: which dim of each tensor of an op runs along which loop."""

from __future__ import annotations

from xdsl.ir.affine import AffineDimExpr, AffineMap

import spyre_mlir
from spyre_mlir.analysis.dim_maps import PARALLEL, REDUCTION, DimMap, dim_map, loops_of


def _op(body: str, args: str, name: str):
    module = spyre_mlir.parse(f"func.func @f({args}) {{\n{body}\n  func.return\n}}")
    return next(op for op in module.walk() if op.name == name)


def test_loops_of_a_map():
    d0, d1, d2 = (AffineDimExpr(k) for k in range(3))
    assert loops_of(AffineMap(3, 0, (d2, d0 * 4 + d1, d0))) == [2, None, 0]


def test_extents_read_from_shapes_without_ir():
    dm = DimMap((PARALLEL, REDUCTION, PARALLEL), (AffineMap(3, 0, (AffineDimExpr(0), AffineDimExpr(1))), None),
                (AffineMap(3, 0, (AffineDimExpr(2),)),))
    assert dm.loops == 3 and dm.reductions == frozenset({1})
    assert dm.extents([[4, 8], None], [[16]]) == [4, 8, 16]
    assert dm.extents([[4, -1], None]) == [4, None, None]
    assert dm.is_projected()


def test_elementwise_is_the_identity():
    op = _op("  %c = arith.addf %a, %b : tensor<4x8xf32>", "%a: tensor<4x8xf32>, %b: tensor<4x8xf32>", "arith.addf")
    dm = dim_map(op)
    assert dm is not None and dm.iterators == (PARALLEL, PARALLEL)
    assert dm.operand_loops(0) == dm.operand_loops(1) == dm.result_loops(0) == [0, 1]


def test_reduce_keeps_the_other_dims():
    op = _op(
        "  %s = linalg.reduce { arith.addf } ins(%a : tensor<4x8x16xf32>) outs(%i : tensor<4x16xf32>) dimensions = [1]",
        "%a: tensor<4x8x16xf32>, %i: tensor<4x16xf32>",
        "linalg.reduce",
    )
    dm = dim_map(op)
    assert dm is not None and dm.reductions == frozenset({1})
    assert dm.operand_loops(0) == [0, 1, 2] and dm.operand_loops(1) == [0, 2] and dm.result_loops(0) == [0, 2]
    assert not dm.contraction


def test_broadcast_runs_the_input_along_the_loops_it_does_not_add():
    op = _op(
        "  %b = linalg.broadcast ins(%a : tensor<4xf32>) outs(%i : tensor<4x8xf32>) dimensions = [1]",
        "%a: tensor<4xf32>, %i: tensor<4x8xf32>",
        "linalg.broadcast",
    )
    dm = dim_map(op)
    assert dm is not None and dm.operand_loops(0) == [0] and dm.operand_loops(1) == dm.result_loops(0) == [0, 1]


def test_transpose_follows_the_permutation():
    op = _op(
        "  %t = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%i : tensor<4x2x3xf32>) permutation = [2, 0, 1]",
        "%a: tensor<2x3x4xf32>, %i: tensor<4x2x3xf32>",
        "linalg.transpose",
    )
    dm = dim_map(op)
    # Result dim k is input dim perm[k]: the input's dims run along loops [1, 2, 0].
    assert dm is not None and dm.operand_loops(0) == [1, 2, 0] and dm.result_loops(0) == [0, 1, 2]


def test_matmul_is_a_contraction():
    op = _op(
        "  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%i : tensor<4x16xf32>) -> tensor<4x16xf32>",
        "%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %i: tensor<4x16xf32>",
        "linalg.matmul",
    )
    dm = dim_map(op)
    assert dm is not None and dm.contraction and dm.reductions == frozenset({2})
    assert [dm.operand_loops(k) for k in range(3)] == [[0, 2], [2, 1], [0, 1]]
    assert dm.extents([[4, 8], [8, 16], [4, 16]]) == [4, 16, 8]


def test_collapse_and_expand_linearize_a_group():
    op = _op(
        "  %c = tensor.collapse_shape %a [[0], [1, 2]] : tensor<4x8x16xf32> into tensor<4x128xf32>",
        "%a: tensor<4x8x16xf32>",
        "tensor.collapse_shape",
    )
    dm = dim_map(op)
    assert dm is not None and dm.operand_loops(0) == [0, 1, 2] and dm.result_loops(0) == [0, None]
    assert str(dm.results[0]) == "(d0, d1, d2) -> (d0, ((d1 * 16) + d2))"
    assert not dm.is_projected() and not dm.sizes_in_attributes
    op = _op(
        "  %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [4, 8, 16] : tensor<4x128xf32> into tensor<4x8x16xf32>",
        "%a: tensor<4x128xf32>",
        "tensor.expand_shape",
    )
    dm = dim_map(op)
    assert dm is not None and dm.operand_loops(0) == [0, None] and dm.result_loops(0) == [0, 1, 2]
    assert dm.sizes_in_attributes


def test_extract_slice_offsets_and_dropped_dims():
    op = _op(
        "  %s = tensor.extract_slice %a[2, 0, 4] [1, 8, 4] [1, 1, 2] : tensor<4x8x16xf32> to tensor<8x4xf32>",
        "%a: tensor<4x8x16xf32>",
        "tensor.extract_slice",
    )
    dm = dim_map(op)
    assert dm is not None and dm.loops == 2 and dm.sizes_in_attributes
    assert dm.operand_loops(0) == [None, 0, None]
    assert str(dm.operands[0]) == "(d0, d1) -> (2, d0, ((d1 * 2) + 4))"


def test_an_op_without_a_dim_structure():
    op = _op("  %x = tensor.extract %a[%i] : tensor<4xf32>", "%a: tensor<4xf32>, %i: index", "tensor.extract")
    assert dim_map(op) is None
