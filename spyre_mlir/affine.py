"""Affine helpers shared by the KTDP verifier, printer and interpreter.

Plain functions over xDSL's `AffineExpr`/`AffineMap`/`AffineSet`: evaluation
with floor semantics, MLIR-style printing with SSA names, and the geometry of
an integer set (static box bounds, enumeration of its points).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineConstraintKind,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSet,
    AffineSymExpr,
)

if TYPE_CHECKING:
    import numpy as np


def eval_expr(expr: AffineExpr, dims: Sequence, syms: Sequence = ()):
    """Evaluate `expr`; `dims`/`syms` may be ints or NumPy integer arrays."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs = eval_expr(expr.lhs, dims, syms)
    rhs = eval_expr(expr.rhs, dims, syms)
    match expr.kind:
        case AffineBinaryOpKind.Add:
            return lhs + rhs
        case AffineBinaryOpKind.Mul:
            return lhs * rhs
        case AffineBinaryOpKind.FloorDiv:
            return lhs // rhs
        case AffineBinaryOpKind.CeilDiv:
            return -((-lhs) // rhs)
        case AffineBinaryOpKind.Mod:
            return lhs % rhs


def eval_map(amap: AffineMap, dims: Sequence, syms: Sequence = ()) -> list:
    return [eval_expr(r, dims, syms) for r in amap.results]


def format_expr(expr: AffineExpr, name: Callable[[AffineExpr], str]) -> str:
    """Print `expr` the way MLIR does (`d0 + d1 * 2`, `-d0 + 95`, `d0 - 1`).

    `name` spells a dim or symbol leaf, e.g. as an SSA value name."""

    def leaf_or_paren(e: AffineExpr) -> str:
        s = go(e)
        return f"({s})" if isinstance(e, AffineBinaryOpExpr) and e.kind is AffineBinaryOpKind.Add else s

    def go(e: AffineExpr) -> str:
        if isinstance(e, AffineDimExpr | AffineSymExpr):
            return name(e)
        if isinstance(e, AffineConstantExpr):
            return str(e.value)
        assert isinstance(e, AffineBinaryOpExpr)
        if e.kind is AffineBinaryOpKind.Add:
            rhs = e.rhs
            if isinstance(rhs, AffineConstantExpr) and rhs.value < 0:
                return f"{go(e.lhs)} - {-rhs.value}"
            if (
                isinstance(rhs, AffineBinaryOpExpr)
                and rhs.kind is AffineBinaryOpKind.Mul
                and isinstance(rhs.rhs, AffineConstantExpr)
                and rhs.rhs.value < 0
            ):
                coeff = -rhs.rhs.value
                term = leaf_or_paren(rhs.lhs)
                return f"{go(e.lhs)} - {term}" if coeff == 1 else f"{go(e.lhs)} - {term} * {coeff}"
            return f"{go(e.lhs)} + {go(rhs)}"
        if e.kind is AffineBinaryOpKind.Mul:
            if isinstance(e.rhs, AffineConstantExpr) and e.rhs.value == -1:
                return f"-{leaf_or_paren(e.lhs)}"
            return f"{leaf_or_paren(e.lhs)} * {leaf_or_paren(e.rhs)}"
        return f"{leaf_or_paren(e.lhs)} {e.kind.get_token()} {leaf_or_paren(e.rhs)}"

    return go(expr)


def _dsym(e: AffineExpr) -> str:
    return f"d{e.position}" if isinstance(e, AffineDimExpr) else f"s{e.position}"


def format_map(amap: AffineMap) -> str:
    dims = ", ".join(f"d{i}" for i in range(amap.num_dims))
    syms = f"[{', '.join(f's{i}' for i in range(amap.num_symbols))}]" if amap.num_symbols else ""
    return f"({dims}){syms} -> ({', '.join(format_expr(r, _dsym) for r in amap.results)})"


def format_set(aset: AffineSet) -> str:
    dims = ", ".join(f"d{i}" for i in range(aset.num_dims))
    syms = f"[{', '.join(f's{i}' for i in range(aset.num_symbols))}]" if aset.num_symbols else ""
    cons = ", ".join(
        f"{format_expr(c.lhs, _dsym)} {c.kind.value} {format_expr(c.rhs, _dsym)}" for c in aset.constraints
    )
    return f"({dims}){syms} : ({cons})"


# --------------------------------------------------------------------------
# Integer-set geometry
# --------------------------------------------------------------------------


def _linear(expr: AffineExpr, num_dims: int) -> tuple[list[int], AffineExpr] | None:
    """Split `expr` into dim coefficients and a dim-free rest, if linear in dims."""
    coeffs = [0] * num_dims

    def go(e: AffineExpr, scale: int) -> list[AffineExpr] | None:
        if isinstance(e, AffineDimExpr):
            coeffs[e.position] += scale
            return []
        if isinstance(e, AffineSymExpr | AffineConstantExpr):
            return [e * scale if scale != 1 else e]
        assert isinstance(e, AffineBinaryOpExpr)
        if e.kind is AffineBinaryOpKind.Add:
            a, b = go(e.lhs, scale), go(e.rhs, scale)
            return None if a is None or b is None else a + b
        if e.kind is AffineBinaryOpKind.Mul:
            if isinstance(e.rhs, AffineConstantExpr):
                return go(e.lhs, scale * e.rhs.value)
            if isinstance(e.lhs, AffineConstantExpr):
                return go(e.rhs, scale * e.lhs.value)
        if not any(isinstance(x, AffineDimExpr) for x in e.dfs()):
            return [e * scale if scale != 1 else e]
        return None

    rest = go(expr, 1)
    if rest is None:
        return None
    total: AffineExpr = AffineExpr.constant(0)
    for r in rest:
        total = total + r
    return coeffs, total


def box_bounds(aset: AffineSet, syms: Sequence[int] = ()) -> list[tuple[int, int]] | None:
    """Inclusive per-dim bounds if `aset` is exactly a box, else None.

    A box here: every constraint involves one dim with coefficient ±1
    (`d - lo >= 0`, `-d + hi >= 0`, `d - c == 0`), symbols evaluated from `syms`."""
    lo: list[int | None] = [None] * aset.num_dims
    hi: list[int | None] = [None] * aset.num_dims
    for c in aset.constraints:
        split = _linear(c.lhs - c.rhs, aset.num_dims)
        if split is None:
            return None
        coeffs, rest = split
        nz = [i for i, k in enumerate(coeffs) if k != 0]
        if len(nz) != 1 or abs(coeffs[nz[0]]) != 1:
            return None
        if rest.used_dims():
            return None
        try:
            r = int(eval_expr(rest, [], syms))
        except IndexError:
            return None
        d, k = nz[0], coeffs[nz[0]]
        if c.kind is AffineConstraintKind.eq:
            v = -r * k
            lo[d] = v if lo[d] is None else max(lo[d], v)
            hi[d] = v if hi[d] is None else min(hi[d], v)
        elif (c.kind is AffineConstraintKind.ge) == (k > 0):
            # d + r >= 0  -> d >= -r ; (-d + r <= 0 likewise)
            v = -r if k > 0 else r
            lo[d] = v if lo[d] is None else max(lo[d], v)
        else:
            v = r if k < 0 else -r
            hi[d] = v if hi[d] is None else min(hi[d], v)
    if any(x is None for x in lo) or any(x is None for x in hi):
        return None
    return [(int(a), int(b)) for a, b in zip(lo, hi)]  # type: ignore[arg-type]


EXACT_BOX_POINT_LIMIT = 1 << 20
"""Up to this many candidate points, `bounding_box` is exact."""


def bounding_box(aset: AffineSet, syms: Sequence[int] = ()) -> list[tuple[int, int]] | None:
    """The smallest inclusive box holding every integer point of `aset`, or
    None if some dim is unbounded. An empty set gives extents of 0.

    A set's tile shape depends on the set, not on how its constraints are
    written: `0 <= d0, d1 <= 3, d0 + d1 <= 2` is bounded by a 3x3 box. Exact
    up to EXACT_BOX_POINT_LIMIT candidate points; beyond, the box from
    interval propagation (which may be larger)."""
    empty = [(0, -1)] * aset.num_dims
    if (box := box_bounds(aset, syms)) is not None:
        return empty if any(lo > hi for lo, hi in box) else box
    box = _propagated_box(aset, syms)
    if box is None:
        return None
    if any(lo > hi for lo, hi in box):
        return empty
    if product(hi - lo + 1 for lo, hi in box) > EXACT_BOX_POINT_LIMIT:
        return box
    points = grid_points(box)
    if not _fits_int64(aset, box, syms):
        points = points.astype(object)  # exact Python ints: no silent wrap
    members = points[contains(aset, points, syms)]
    if members.shape[0] == 0:
        return empty
    return [(int(a), int(b)) for a, b in zip(members.min(axis=0), members.max(axis=0))]


def _propagated_box(aset: AffineSet, syms: Sequence[int] = ()) -> list[tuple[int, int]] | None:
    """Interval propagation over the linear constraints: bounds that come
    through other dims count too (in `0 <= d1 <= d0 <= 3`, d1 <= 3).
    Constraints not linear in the dims are left out, which only loosens it."""
    n = aset.num_dims
    rows: list[tuple[list[int], int]] = []  # sum(k_i d_i) + c >= 0
    for c in aset.constraints:
        split = _linear(c.lhs - c.rhs, n)
        if split is None:
            continue
        coeffs, rest = split
        try:
            const = int(eval_expr(rest, [], syms))
        except IndexError:
            continue
        if c.kind is AffineConstraintKind.le:
            coeffs, const = [-k for k in coeffs], -const
        rows.append((coeffs, const))
        if c.kind is AffineConstraintKind.eq:
            rows.append(([-k for k in coeffs], -const))
    lo: list[int | None] = [None] * n
    hi: list[int | None] = [None] * n
    for _ in range(n + 1):
        changed = False
        for coeffs, const in rows:
            for j, kj in enumerate(coeffs):
                if kj == 0:
                    continue
                # kj*dj >= -(const + max of the other terms)
                best = const
                for i, ki in enumerate(coeffs):
                    if i == j or ki == 0:
                        continue
                    bound = hi[i] if ki > 0 else lo[i]
                    if bound is None:
                        break
                    best += ki * bound
                else:
                    if kj > 0:
                        new = -(best // kj)  # ceil(-best / kj)
                        if lo[j] is None or new > lo[j]:
                            lo[j], changed = new, True
                    else:
                        new = best // -kj  # floor(best / -kj)
                        if hi[j] is None or new < hi[j]:
                            hi[j], changed = new, True
        if not changed:
            break
    if any(x is None for x in lo) or any(x is None for x in hi):
        return None
    return [(int(a), int(b)) for a, b in zip(lo, hi)]  # type: ignore[arg-type]


_SAFE = 1 << 62


def _fits_int64(aset: AffineSet, box: Sequence[tuple[int, int]], syms: Sequence[int] = ()) -> bool:
    """Whether every constraint of `aset`, and each of its subexpressions,
    stays well inside 64 bits over `box` (so NumPy int64 evaluates it
    exactly). Constants are 64-bit, but a product of a coefficient and a
    coordinate, or a sum, need not be."""
    dims = [max(abs(lo), abs(hi)) for lo, hi in box]
    bounds = [abs(int(s)) for s in syms]

    def magnitude(e: AffineExpr) -> int:
        if isinstance(e, AffineDimExpr):
            return dims[e.position]
        if isinstance(e, AffineSymExpr):
            return bounds[e.position] if e.position < len(bounds) else _SAFE
        if isinstance(e, AffineConstantExpr):
            return abs(e.value)
        assert isinstance(e, AffineBinaryOpExpr)
        a, b = magnitude(e.lhs), magnitude(e.rhs)
        match e.kind:
            case AffineBinaryOpKind.Add:
                m = a + b
            case AffineBinaryOpKind.Mul:
                m = a * b
            case AffineBinaryOpKind.Mod:
                m = b
            case _:  # floordiv, ceildiv (and the negation in ceildiv's formula)
                m = a + 1
        return m if m < _SAFE and a < _SAFE and b < _SAFE else _SAFE

    return all(d < _SAFE for d in dims) and all(
        magnitude(c.lhs - c.rhs) < _SAFE for c in aset.constraints
    )


def contains(aset: AffineSet, points: np.ndarray, syms: Sequence[int] = ()) -> np.ndarray:
    """Membership mask for `points` (shape [N, num_dims]). Exact for
    `points` of dtype object (Python ints); int64 points wrap on overflow."""
    import numpy as np

    dims = [points[:, i] for i in range(aset.num_dims)]
    mask = np.ones(points.shape[0], dtype=bool)
    for c in aset.constraints:
        v = np.asarray(eval_expr(c.lhs - c.rhs, dims, syms))
        mask &= (v == 0) if c.kind is AffineConstraintKind.eq else (v >= 0) if c.kind is AffineConstraintKind.ge else (v <= 0)
    return mask


def grid_points(bounds: Sequence[tuple[int, int]]) -> np.ndarray:
    """All integer points of an inclusive box, row-major, shape [N, rank]
    (int64; dtype object, of Python ints, for coordinates beyond 2^62)."""
    import numpy as np

    if not bounds:
        return np.zeros((1, 0), dtype=np.int64)
    if not all(-_SAFE < lo and hi < _SAFE for lo, hi in bounds):  # beyond int64: Python ints
        axes = [np.array(range(lo, hi + 1), dtype=object) for lo, hi in bounds]
    else:
        axes = [np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in bounds]
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.reshape(-1) for m in mesh], axis=1)


def permutation_of(amap: AffineMap) -> list[int] | None:
    """`amap` as a dim permutation (result k = d[perm[k]]), or None."""
    perm = []
    for r in amap.results:
        if not isinstance(r, AffineDimExpr):
            return None
        perm.append(r.position)
    if sorted(perm) != list(range(amap.num_dims)):
        return None
    return perm


def product(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


__all__ = [
    "eval_expr",
    "eval_map",
    "format_expr",
    "format_map",
    "format_set",
    "box_bounds",
    "bounding_box",
    "contains",
    "grid_points",
    "permutation_of",
    "product",
]
