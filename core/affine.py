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


def bounding_box(aset: AffineSet, syms: Sequence[int] = ()) -> list[tuple[int, int]] | None:
    """Inclusive per-dim bounds implied by the single-dim constraints of `aset`."""
    relaxed = AffineSet(
        aset.num_dims,
        aset.num_symbols,
        tuple(
            c
            for c in aset.constraints
            if (s := _linear(c.lhs - c.rhs, aset.num_dims)) is not None
            and sum(1 for k in s[0] if k) == 1
            and abs(next(k for k in s[0] if k)) == 1
        ),
    )
    return box_bounds(relaxed, syms)


def contains(aset: AffineSet, points: np.ndarray, syms: Sequence[int] = ()) -> np.ndarray:
    """Membership mask for `points` (shape [N, num_dims])."""
    import numpy as np

    dims = [points[:, i] for i in range(aset.num_dims)]
    mask = np.ones(points.shape[0], dtype=bool)
    for c in aset.constraints:
        v = np.asarray(eval_expr(c.lhs - c.rhs, dims, syms))
        mask &= (v == 0) if c.kind is AffineConstraintKind.eq else (v >= 0) if c.kind is AffineConstraintKind.ge else (v <= 0)
    return mask


def grid_points(bounds: Sequence[tuple[int, int]]) -> np.ndarray:
    """All integer points of an inclusive box, row-major, shape [N, rank]."""
    import numpy as np

    if not bounds:
        return np.zeros((1, 0), dtype=np.int64)
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
