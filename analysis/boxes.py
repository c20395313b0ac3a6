"""Boxes as affine sets: the coordinate sets of memory views and access tiles.

A KTDP view's `coordinate_set` and an access tile's `access_tile_set` are
integer sets; the passes that build views (spyre-physicalize-layouts,
spyre-coarse-tile, spyre-plan-scratchpad, ktdp-hbm-roundtrip) build boxes,
and build them here. Reading a box back from a set is
`spyre_mlir.analysis.affine.box_bounds`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AffineSetAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineSet, AffineSymExpr
from xdsl.ir.affine.affine_set import AffineConstraintExpr, AffineConstraintKind


def nonnegative(expr: AffineExpr) -> AffineConstraintExpr:
    """The constraint `expr >= 0`."""
    return AffineConstraintExpr(AffineConstraintKind.ge, expr, AffineConstantExpr(0))


def box_set(bounds: Sequence[tuple[int, int]]) -> AffineSetAttr:
    """`affine_set<(d0, ...) : (d0 - lo >= 0, -d0 + hi >= 0, ...)>`: the box of inclusive `bounds`."""
    constraints = []
    for k, (lo, hi) in enumerate(bounds):
        d = AffineDimExpr(k)
        constraints.append(nonnegative(d - lo))
        constraints.append(nonnegative(AffineConstantExpr(hi) - d))
    return AffineSetAttr(AffineSet(len(bounds), 0, tuple(constraints)))


def shape_set(shape: Sequence[int]) -> AffineSetAttr:
    """The box `0 <= d_k < shape_k` of a static shape."""
    return box_set([(0, n - 1) for n in shape])


def extent_set(sizes: Sequence[int | SSAValue]) -> AffineSetAttr:
    """The box `0 <= d_k < size_k`; a dynamic size (a value) is the next symbol of the set (symbols
    bind the dynamic sizes in order)."""
    constraints = []
    symbols = 0
    for k, s in enumerate(sizes):
        d = AffineDimExpr(k)
        if isinstance(s, int):
            bound: AffineExpr = AffineConstantExpr(s - 1)
        else:
            bound = AffineSymExpr(symbols) - 1
            symbols += 1
        constraints.append(nonnegative(d))
        constraints.append(nonnegative(bound - d))
    return AffineSetAttr(AffineSet(len(sizes), symbols, tuple(constraints)))


__all__ = ["box_set", "extent_set", "nonnegative", "shape_set"]
