"""Per-op dimension maps: which dim of each tensor of an op runs along which of its loops.

One answer, in MLIR's own terms, to "which dim of the result is which dim of
each operand": an op has loops (its iteration space) and every tensor
operand and result has an *indexing map* from the loops to its dims, as
linalg's structured ops have; each loop is parallel or a reduction. Coarse
tiling (which dims must be tiled together), physicalization (where a layout's
dims go through an op) and the cost model (an op's iteration domain) ask here.

    dm = dim_map(op)                   # None: an op without a dim structure known here
    dm.operand_loops(0)                # [0, None, 2]: dim 1 of operand 0 is no single loop
    dm.result_loops(0), dm.reductions  # [0, 2], frozenset({1}) for a sum over dim 1
    dm.extents([shape0, shape1])       # each loop's extent, read from the tensors' shapes

The maps, for an op with tensors of rank r:

- elementwise (`spyre_mlir.traits.is_elementwise`): r parallel loops, every
  tensor the identity;
- `linalg.broadcast`: loops are the init's dims; the input runs along the
  loops the broadcast does not add;
- `linalg.reduce`: loops are the input's dims, those in `dimensions`
  reductions; the init and the result run along the others;
- linalg structured ops (`linalg.generic`, `matmul`, `transpose`, `fill`,
  named elementwise ops ...): their indexing maps and iterator types;
- `tensor.collapse_shape` / `tensor.expand_shape`: loops are the dims of the
  larger side; a dim of the smaller side is the linear index of its group
  (`d1 * 64 + d2`), so it runs along no single loop (static sizes only);
- `tensor.extract_slice`: loops are the result's dims; a source dim is
  `offset + stride * d` (a constant where the slice drops the dim; static
  offsets and strides only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, TensorType
from xdsl.dialects.linalg.ops import BroadcastOp, LinalgStructuredOperation, MatmulOp, ReduceOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from spyre_mlir.traits import is_elementwise

PARALLEL = "parallel"
REDUCTION = "reduction"


def loops_of(amap: AffineMap) -> list[int | None]:
    """For each result of `amap` (each dim of the tensor it indexes), the loop it is, or None when it is
    not a single loop (a linear combination, a constant)."""
    return [e.position if isinstance(e, AffineDimExpr) else None for e in amap.results]


def _projected(amap: AffineMap) -> bool:
    loops = loops_of(amap)
    return None not in loops and len(set(loops)) == len(loops)


@dataclass(frozen=True)
class DimMap:
    """An op's loops and how each of its operands and results indexes them."""

    iterators: tuple[str, ...]
    """Per loop: `PARALLEL` or `REDUCTION`."""
    operands: tuple[AffineMap | None, ...]
    """Per operand: the map from the loops to its dims; None for an operand the loops do not index
    (an index, a scalar the op does not broadcast, a shape)."""
    results: tuple[AffineMap | None, ...]
    """Per result, likewise."""
    contraction: bool = False
    """Whether it reduces a product of two tensor inputs (a matmul): more than a sum over loops."""
    sizes_in_attributes: bool = False
    """Whether the op names sizes in its attributes (extract_slice's sizes, expand_shape's output shape):
    giving its tensors other shapes also needs those rewritten."""

    @property
    def loops(self) -> int:
        return len(self.iterators)

    @property
    def reductions(self) -> frozenset[int]:
        return frozenset(k for k, it in enumerate(self.iterators) if it == REDUCTION)

    def operand_loops(self, index: int) -> list[int | None] | None:
        """Per dim of operand `index`, the loop it runs along (None: no single loop); None when the loops do
        not index it."""
        amap = self.operands[index]
        return None if amap is None else loops_of(amap)

    def result_loops(self, index: int) -> list[int | None] | None:
        """Per dim of result `index`, the loop it runs along (see `operand_loops`)."""
        amap = self.results[index]
        return None if amap is None else loops_of(amap)

    def is_projected(self) -> bool:
        """Whether every indexed dim runs along one loop, each loop at most once per tensor (a projected
        permutation, as linalg's named ops have): dims can then be followed one to one through the op."""
        return all(_projected(m) for m in (*self.operands, *self.results) if m is not None)

    def extents(self, operand_shapes: Sequence[Sequence[int] | None], result_shapes: Sequence[Sequence[int] | None] = ()) -> list[int | None]:
        """Each loop's extent, read from the shapes of the operands and results (in order; None for one
        without a shape); None for a loop no static dim runs along."""
        found: list[int | None] = [None] * self.loops
        for amap, shape in (*zip(self.operands, operand_shapes), *zip(self.results, result_shapes)):
            if amap is None or shape is None:
                continue
            for loop, n in zip(loops_of(amap), shape):
                if loop is not None and n >= 0 and n != DYNAMIC_INDEX:
                    found[loop] = n
        return found


def _rank(value: SSAValue) -> int:
    ty = value.type
    return len(ty.get_shape()) if isinstance(ty, TensorType) else 0


def _tensor_map(value: SSAValue, amap: AffineMap) -> AffineMap | None:
    return amap if isinstance(value.type, TensorType) else None


def _projection(loops: int, kept: Sequence[int]) -> AffineMap:
    return AffineMap(loops, 0, tuple(AffineDimExpr(k) for k in kept))


def _elementwise(op: Operation) -> DimMap | None:
    ranks = {_rank(v) for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)}
    if len(ranks) != 1:
        return None
    (rank,) = ranks
    identity = AffineMap.identity(rank)
    return DimMap(
        (PARALLEL,) * rank,
        tuple(_tensor_map(v, identity) for v in op.operands),
        tuple(_tensor_map(v, identity) for v in op.results),
    )


def _structured(op: LinalgStructuredOperation) -> DimMap | None:
    inputs, outputs = list(op.inputs), list(op.outputs)  # pyright: ignore[reportAttributeAccessIssue]
    maps = [m.data if isinstance(m, AffineMapAttr) else m for m in op.get_indexing_maps()]  # pyright: ignore[reportAttributeAccessIssue]
    if len(maps) != len(inputs) + len(outputs) or len(op.operands) != len(maps):
        return None
    iterators = tuple(
        REDUCTION if REDUCTION in str(getattr(t, "data", t)) else PARALLEL
        for t in op.get_iterator_types()  # pyright: ignore[reportAttributeAccessIssue]
    )
    tensor_inputs = [v for v in inputs if isinstance(v.type, TensorType)]
    return DimMap(
        iterators,
        tuple(maps),  # operands are the inputs, then the outputs
        tuple(_tensor_map(r, amap) for r, amap in zip(op.results, maps[len(inputs) :])),
        contraction=isinstance(op, MatmulOp) or (REDUCTION in iterators and len(tensor_inputs) >= 2),
    )


def _reduce(op: ReduceOp) -> DimMap:
    rank = _rank(op.input)
    reduced = set(op.dimensions.get_values())
    kept = _projection(rank, [d for d in range(rank) if d not in reduced])
    return DimMap(
        tuple(REDUCTION if d in reduced else PARALLEL for d in range(rank)),
        (AffineMap.identity(rank), kept),  # input, init
        tuple(kept for _ in op.results),
    )


def _broadcast(op: BroadcastOp) -> DimMap:
    rank = _rank(op.init)
    added = set(op.dimensions.get_values())
    identity = AffineMap.identity(rank)
    return DimMap(
        (PARALLEL,) * rank,
        (_projection(rank, [d for d in range(rank) if d not in added]), identity),  # input, init
        tuple(identity for _ in op.results),
    )


def _linearized(fine: Sequence[int], groups: Sequence[Sequence[int]]) -> AffineMap | None:
    """The map from the fine dims to the coarse ones, each the row-major linear index of its group;
    None when a size it needs is dynamic."""
    exprs: list[AffineExpr] = []
    for group in groups:
        if any(fine[d] < 0 for d in group[1:]):
            return None
        expr: AffineExpr | None = None
        for k, d in enumerate(group):
            term = AffineDimExpr(d) * math.prod(fine[j] for j in group[k + 1 :])
            expr = term if expr is None else expr + term
        exprs.append(expr if expr is not None else AffineConstantExpr(0))
    return AffineMap(len(fine), 0, tuple(exprs))


def _reshape(op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> DimMap | None:
    collapsing = isinstance(op, tensor.CollapseShapeOp)
    fine_value = op.src if collapsing else op.result
    fine = list(fine_value.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
    groups = [[int(d.value.data) for d in g.data] for g in op.reassociation.data]  # pyright: ignore[reportAttributeAccessIssue]
    coarse = _linearized(fine, groups)
    if coarse is None:
        return None
    identity = AffineMap.identity(len(fine))
    src, res = (identity, coarse) if collapsing else (coarse, identity)
    return DimMap(
        (PARALLEL,) * len(fine),
        tuple(src if k == 0 else None for k in range(len(op.operands))),
        (res,),
        sizes_in_attributes=not collapsing,
    )


def _extract_slice(op: tensor.ExtractSliceOp) -> DimMap | None:
    offsets = list(op.static_offsets.get_values())
    strides = list(op.static_strides.get_values())
    sizes = list(op.static_sizes.get_values())
    if any(v == DYNAMIC_INDEX for v in (*offsets, *strides)):
        return None
    rank = _rank(op.result)
    if rank == len(sizes):
        kept = list(range(rank))
    else:  # a rank-reducing slice drops unit dims: unambiguous when it drops all of them
        kept = [k for k, n in enumerate(sizes) if n != 1]
        if len(kept) != rank:
            return None
    loop_of = {k: j for j, k in enumerate(kept)}
    source = AffineMap(rank, 0, tuple(
        AffineDimExpr(loop_of[k]) * strides[k] + offsets[k] if k in loop_of else AffineConstantExpr(offsets[k])
        for k in range(len(sizes))
    ))
    return DimMap(
        (PARALLEL,) * rank,
        tuple(source if k == 0 else None for k in range(len(op.operands))),
        (AffineMap.identity(rank),),
        sizes_in_attributes=True,
    )


def dim_map(op: Operation) -> DimMap | None:
    """The loops of `op` and how its tensors index them (see the module docstring); None for an op whose
    dims this does not know."""
    if isinstance(op, LinalgStructuredOperation):
        return _structured(op)
    if isinstance(op, ReduceOp):
        return _reduce(op)
    if isinstance(op, BroadcastOp):
        return _broadcast(op)
    if isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp):
        return _reshape(op)
    if isinstance(op, tensor.ExtractSliceOp):
        return _extract_slice(op)
    if is_elementwise(op):
        return _elementwise(op)
    return None


__all__ = ["PARALLEL", "REDUCTION", "DimMap", "dim_map", "loops_of"]
