"""Affine maps and sets: the one evaluator, MLIR's spelling, and the geometry
of integer sets. Shared by the KTDP verifiers, the module checks, the printer
and the interpreter (`spyre_mlir.interpreter.affine_eval` re-exports the
evaluator with the interpreter's error class).

Evaluation compiles a map or set once (cached) into a Python function of
`d` (dims) and `s` (symbols), each a Python int or a NumPy integer array, so
one compiled map serves a single value and a batch of cores alike.

- **Maps** (`compile_map`) are `index` arithmetic, as MLIR lowers them: `+`
  and `*` wrap at 64 bits (two's complement); `floordiv` and `ceildiv` round
  the quotient of their 64-bit operands toward -inf and +inf, `mod` is the
  remainder of `floordiv` (non-negative for a positive divisor), and a
  result that does not fit (`-2^63 floordiv -1`) wraps too. MLIR leaves a
  non-positive divisor undefined; here a negative one rounds the same way,
  and a zero one raises `error`. Python ints are exact, so they are wrapped
  where it matters (an operand of a division, a result); int64 arrays wrap
  by themselves; both give the same values.
- **Sets** (`compile_set`, `contains`, `bounding_box`) are sets of integer
  points, as in MLIR's integer-set analyses: a constraint is evaluated
  exactly, never wrapped. Over int64 arrays the compiled set checks, from
  the range of its inputs, that no value it compares or divides can leave 64
  bits, and otherwise evaluates over Python ints (dtype object).

Affine constants are 64-bit (the parser refuses larger literals, see
`spyre_mlir.xdsl_fixes`); a wider one, in IR built by code, raises `error`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache
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

from spyre_mlir.xdsl_fixes import INT64_MAX, INT64_MIN

if TYPE_CHECKING:
    import numpy as np


class AffineEvaluationError(ValueError):
    """A map or set that cannot be evaluated: a constant beyond 64 bits, or
    a division by zero. Compiling with `error=` raises that class instead."""


# --------------------------------------------------------------------------
# The evaluator
# --------------------------------------------------------------------------

_ADD, _MUL = AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul
_FLOOR, _CEIL, _MOD = AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod
_OPS = {_FLOOR: "floordiv", _CEIL: "ceildiv", _MOD: "mod"}


def _wrapped(source: str, tmp: str) -> str:
    """`source` wrapped to 64 bits when it is a Python int (arrays wrap by themselves)."""
    return (
        f"({tmp} if ({tmp} := {source}).__class__ is not int or {INT64_MIN} <= {tmp} <= {INT64_MAX} "
        f"else (({tmp} + {1 << 63}) & {(1 << 64) - 1}) - {1 << 63})"
    )


def _is_leaf(e: AffineExpr) -> bool:
    return isinstance(e, AffineDimExpr | AffineSymExpr | AffineConstantExpr)


def _fits_64(e: AffineExpr) -> bool:
    """Whether `e`, evaluated as index arithmetic, is a 64-bit value without a
    final wrap: a leaf, or a division of a 64-bit operand by a constant that
    cannot overflow (|divisor| >= 2), or a `mod` by a nonzero constant."""
    if _is_leaf(e):
        return True
    assert isinstance(e, AffineBinaryOpExpr)
    if isinstance(e.rhs, AffineConstantExpr):
        if e.kind is _MOD:
            return e.rhs.value != 0
        if e.kind in (_FLOOR, _CEIL):
            return abs(e.rhs.value) >= 2
    return False


class _Source:
    """Python source of affine expressions over `d[i]`, `s[j]`.

    `wrap`: index arithmetic (maps): Python-int operands of a division are
    wrapped to 64 bits first, and with `wrap_all` every sum and product is.
    Without `wrap`, exact arithmetic (sets)."""

    def __init__(self, wrap: bool, wrap_all: bool, error: type[Exception]):
        self.wrap, self.wrap_all, self.error = wrap, wrap_all, error
        self.temps = 0

    def temp(self) -> str:
        self.temps += 1
        return f"_t{self.temps}"

    def wrapped(self, e: AffineExpr, source: str) -> str:
        return source if not self.wrap or _fits_64(e) else _wrapped(source, self.temp())

    def expr(self, e: AffineExpr) -> str:
        if isinstance(e, AffineDimExpr):
            return f"d[{e.position}]"
        if isinstance(e, AffineSymExpr):
            return f"s[{e.position}]"
        if isinstance(e, AffineConstantExpr):
            if not INT64_MIN <= e.value <= INT64_MAX:
                raise self.error(f"affine constant {e.value} does not fit in 64 bits (index)")
            return str(e.value)
        assert isinstance(e, AffineBinaryOpExpr)
        lhs = self.expr(e.lhs)
        rhs = self.expr(e.rhs)
        if e.kind in (_ADD, _MUL):
            source = f"({lhs} {'+' if e.kind is _ADD else '*'} {rhs})"
            return _wrapped(source, self.temp()) if self.wrap_all else source
        lhs = self.wrapped(e.lhs, lhs)
        if isinstance(e.rhs, AffineConstantExpr) and e.rhs.value != 0:
            c = e.rhs.value
            if e.kind is _FLOOR:
                return f"({lhs} // {c})"
            if e.kind is _MOD:
                return f"({lhs} % {c})"
            # ceil = floor + 1 unless exact; `-(-x // c)` would overflow at -2^63 in int64
            t = self.temp()
            return f"(({t} := {lhs}) // {c} + ({t} % {c} != 0))"
        # A divisor that is not a nonzero constant (IR built by code): checked.
        return f"_{_OPS[e.kind]}({lhs}, {self.wrapped(e.rhs, rhs)})"


def _division_helpers(error: type[Exception]) -> dict[str, Callable]:
    def nonzero(b):
        if (b == 0) if b.__class__ is int else (b == 0).any():
            raise error("affine expression divides by zero")
        return b

    def floordiv(a, b):
        return a // nonzero(b)

    def ceildiv(a, b):
        return a // nonzero(b) + (a % b != 0)

    def mod(a, b):
        return a % nonzero(b)

    return {"_floordiv": floordiv, "_ceildiv": ceildiv, "_mod": mod}


def _build(source: str, error: type[Exception], names: dict | None = None):
    # The source is generated from the expression tree above: only integer
    # literals, `d[i]`, `s[i]`, arithmetic operators and the helpers below.
    scope = {"__builtins__": {}, "int": int, "OverflowError": OverflowError, **_division_helpers(error), **(names or {})}
    code = compile(source, "<affine>", "exec" if source.startswith("def") else "eval")
    if source.startswith("def"):
        exec(code, scope)  # noqa: S102
        return scope["f"]
    return eval(code, scope)  # noqa: S307


@cache
def compile_map(
    amap: AffineMap, error: type[Exception] = AffineEvaluationError
) -> Callable[[Sequence, Sequence], tuple]:
    """`f(dims, syms) -> tuple of results`, in index arithmetic (module docstring)."""

    def results(src: _Source) -> str:
        return "".join(f"{src.wrapped(e, src.expr(e))}, " for e in amap.results)

    # Python ints beyond 64 bits meeting an int64 array (a huge symbol term
    # added to coordinates) overflow in NumPy: then wrap after every step.
    slow = _build(f"lambda d, s: ({results(_Source(True, True, error))})", error)
    return _build(
        f"def f(d, s):\n try:\n  return ({results(_Source(True, False, error))})\n"
        " except OverflowError:\n  return slow(d, s)\n",
        error,
        {"slow": slow},
    )


_COMPARE = {AffineConstraintKind.eq: "==", AffineConstraintKind.ge: ">=", AffineConstraintKind.le: "<="}


@cache
def compile_set(aset: AffineSet, error: type[Exception] = AffineEvaluationError) -> Callable[[Sequence, Sequence], object]:
    """`f(dims, syms) -> membership`: a bool, or a bool array for array dims;
    exact (module docstring)."""
    import numpy as np

    src = _Source(False, False, error)
    terms = [f"({src.expr(c.lhs)} {_COMPARE[c.kind]} {src.expr(c.rhs)})" for c in aset.constraints]
    fast = _build(f"lambda d, s: {' & '.join(terms) if terms else 'True'}", error)
    bound = _magnitude_bound(aset)

    def objects(values: Sequence) -> list:
        return [v.astype(object) if isinstance(v, np.ndarray | np.integer) else v for v in values]

    def member(d: Sequence, s: Sequence = ()):
        if bound is not None:
            radius = None
            for v in (*d, *s):
                if isinstance(v, np.ndarray | np.integer) and v.dtype != object and v.size:
                    hi = max(-int(v.min()), int(v.max()))
                    radius = hi if radius is None or hi > radius else radius
            if radius is not None:  # int64 values: exact only if nothing leaves 64 bits
                for v in (*d, *s):
                    if v.__class__ is int:
                        radius = max(radius, abs(v))
                if bound(radius) > INT64_MAX:
                    d, s = objects(d), objects(s)
        try:
            return fast(d, s)
        except OverflowError:  # a Python int beyond 64 bits met an int64 array
            return fast(objects(d), objects(s))

    return member


def _magnitude_bound(aset: AffineSet) -> Callable[[int], int] | None:
    """`g(r)`: a bound on the magnitude of every value `compile_set(aset)`
    compares or divides, when every dim and symbol is at most `r` in
    magnitude; None when there is no such value but the inputs themselves.
    Sums and products in between may wrap in int64: they are exact modulo
    2^64, so a compared or divided value is exact when its bound fits."""
    checks: list[str] = []

    def magnitude(e: AffineExpr) -> str:
        if isinstance(e, AffineDimExpr | AffineSymExpr):
            return "r"
        if isinstance(e, AffineConstantExpr):
            return str(abs(e.value))
        assert isinstance(e, AffineBinaryOpExpr)
        a, b = magnitude(e.lhs), magnitude(e.rhs)
        if e.kind is _ADD:
            return f"({a} + {b})"
        if e.kind is _MUL:
            return f"({a} * {b})"
        checked(e.lhs, a)
        checked(e.rhs, b)
        if e.kind is _MOD:
            return b
        if isinstance(e.rhs, AffineConstantExpr) and e.rhs.value:
            return f"(-(-{a} // {abs(e.rhs.value)}))"  # |quotient| <= ceil(|a| / |c|)
        return a

    def checked(e: AffineExpr, m: str) -> None:
        if not _is_leaf(e):
            checks.append(m)

    for c in aset.constraints:
        checked(c.lhs, magnitude(c.lhs))
        checked(c.rhs, magnitude(c.rhs))
    if not checks:
        return None
    return eval(f"lambda r: max({', '.join(checks)}, 0)", {"__builtins__": {"max": max}})  # noqa: S307


# --------------------------------------------------------------------------
# Linear forms: the one linearizer
# --------------------------------------------------------------------------


class Linear:
    """`const + sum(coeff * key)`: exact integer arithmetic over opaque keys
    (dim positions, SSA values: whatever the caller linearizes over)."""

    __slots__ = ("const", "terms")

    def __init__(self, const: int = 0, terms: Mapping[Hashable, int] | None = None):
        self.const = const
        self.terms = {k: c for k, c in (terms or {}).items() if c != 0}

    def plus(self, other: Linear, scale: int = 1) -> Linear:
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms.get(k, 0) + scale * c
        return Linear(self.const + scale * other.const, terms)

    def times(self, k: int) -> Linear:
        return Linear(self.const * k, {v: c * k for v, c in self.terms.items()})

    @property
    def is_constant(self) -> bool:
        return not self.terms

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Linear) and self.const == other.const and self.terms == other.terms

    def __hash__(self) -> int:
        return hash((self.const, frozenset(self.terms.items())))

    def __repr__(self) -> str:
        parts = [f"{c}*{_key_name(k)}" for k, c in self.terms.items()]
        return " + ".join([str(self.const), *parts]) if parts else str(self.const)


def _key_name(key: object) -> str:
    hint = getattr(key, "name_hint", None)
    return f"%{hint}" if hint else f"d{key}" if isinstance(key, int) else repr(key)


def linear_form(e: AffineExpr, dims: Sequence[Linear | None], syms: Sequence[Linear | None] = ()) -> Linear | None:
    """`e` with dim i replaced by `dims[i]` and symbol j by `syms[j]`, as one
    `Linear`, or None when it is not linear: a leaf given as None or missing,
    a product of two non-constant forms, a division or `mod` by a
    non-constant or zero divisor, or of a form whose coefficients the divisor
    does not divide. Exact (Python ints, nothing wraps): `(d0 * 4) floordiv 2`
    is `2 * d0`, `(d0 * 4 + 5) mod 2` is 1.

    The one index-to-affine linearizer: `spyre_mlir.analysis.loops.linearize`
    applies it to SSA values, the integer-set geometry here to constraints,
    with `dims = [Linear(0, {i: 1}) for i in range(n)]` for coefficients per dim."""
    if isinstance(e, AffineConstantExpr):
        return Linear(e.value)
    if isinstance(e, AffineDimExpr):
        return dims[e.position] if e.position < len(dims) else None
    if isinstance(e, AffineSymExpr):
        return syms[e.position] if e.position < len(syms) else None
    assert isinstance(e, AffineBinaryOpExpr)
    lhs = linear_form(e.lhs, dims, syms)
    rhs = linear_form(e.rhs, dims, syms) if lhs is not None else None
    if lhs is None or rhs is None:
        return None
    if e.kind is _ADD:
        return lhs.plus(rhs)
    if e.kind is _MUL:
        if rhs.is_constant:
            return lhs.times(rhs.const)
        return rhs.times(lhs.const) if lhs.is_constant else None
    b = rhs.const
    if not rhs.is_constant or b == 0 or any(c % b for c in lhs.terms.values()):
        return None
    # The terms are multiples of b: only the constant rounds.
    if e.kind is _MOD:
        return Linear(lhs.const % b)
    quotient = {k: c // b for k, c in lhs.terms.items()}
    return Linear(lhs.const // b if e.kind is _FLOOR else -(-lhs.const // b), quotient)


# --------------------------------------------------------------------------
# MLIR's spelling
# --------------------------------------------------------------------------


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
                # `-x` binds tighter than any binary op: `-(d0 floordiv 2)`, not `-d0 floordiv 2`
                return f"-({go(e.lhs)})" if isinstance(e.lhs, AffineBinaryOpExpr) else f"-{go(e.lhs)}"
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
# Integer-set geometry (exact, on the evaluator above)
# --------------------------------------------------------------------------


def _linear(c, num_dims: int, syms: Sequence[int]) -> tuple[list[int], int] | None:
    """Constraint `c` as `sum(k_i * d_i) + r (>=, <=, ==) 0`: the dim
    coefficients and the value of the dim-free rest, exactly (Python ints);
    None if it is not linear in the dims, or names a symbol not in `syms`."""
    dims = [Linear(0, {i: 1}) for i in range(num_dims)]
    form = linear_form(c.lhs - c.rhs, dims, [Linear(int(v)) for v in syms])
    if form is None:
        return None
    return [form.terms.get(i, 0) for i in range(num_dims)], form.const


def box_bounds(aset: AffineSet, syms: Sequence[int] = ()) -> list[tuple[int, int]] | None:
    """Inclusive per-dim bounds if `aset` is exactly a box, else None.

    A box here: every constraint involves one dim with coefficient ±1
    (`d - lo >= 0`, `-d + hi >= 0`, `d - c == 0`), symbols evaluated from `syms`."""
    lo: list[int | None] = [None] * aset.num_dims
    hi: list[int | None] = [None] * aset.num_dims
    syms = tuple(int(s) for s in syms)
    for c in aset.constraints:
        split = _linear(c, aset.num_dims, syms)
        if split is None:
            return None
        coeffs, r = split
        nz = [i for i, k in enumerate(coeffs) if k != 0]
        if len(nz) != 1 or abs(coeffs[nz[0]]) != 1:
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
    syms = tuple(int(s) for s in syms)
    if (box := box_bounds(aset, syms)) is not None:
        return empty if any(lo > hi for lo, hi in box) else box
    box = _propagated_box(aset, syms)
    if box is None:
        return None
    if any(lo > hi for lo, hi in box):
        return empty
    if math.prod(hi - lo + 1 for lo, hi in box) > EXACT_BOX_POINT_LIMIT:
        return box
    points = _grid_points(box)
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
        split = _linear(c, n, syms)
        if split is None:
            continue
        coeffs, const = split
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


def contains(aset: AffineSet, points: np.ndarray, syms: Sequence[int] = ()) -> np.ndarray:
    """Membership mask (bool, [N]) of `points` (shape [N, num_dims]; int64,
    or dtype object of Python ints), exact: `compile_set`."""
    import numpy as np

    mask = compile_set(aset)([points[:, i] for i in range(aset.num_dims)], tuple(syms))
    if isinstance(mask, np.ndarray):
        return mask.astype(bool, copy=False)
    return np.full(points.shape[0], bool(mask))


def _grid_points(bounds: Sequence[tuple[int, int]]) -> np.ndarray:
    """All integer points of an inclusive box, row-major, shape [N, rank]
    (int64; dtype object, of Python ints, for coordinates beyond 64 bits)."""
    import numpy as np

    if not bounds:
        return np.zeros((1, 0), dtype=np.int64)
    if all(INT64_MIN <= lo and hi <= INT64_MAX for lo, hi in bounds):
        axes = [np.arange(hi - lo + 1, dtype=np.int64) + lo for lo, hi in bounds]
    else:
        axes = [np.array(range(lo, hi + 1), dtype=object) for lo, hi in bounds]
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([m.reshape(-1) for m in mesh], axis=1)


def projected_dims(amap: AffineMap) -> list[int] | None:
    """The dims of a projected permutation map (each result a distinct dim), else None."""
    dims = []
    for e in amap.results:
        if not isinstance(e, AffineDimExpr) or e.position in dims:
            return None
        dims.append(e.position)
    return dims


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


__all__ = [
    "Linear",
    "linear_form",
    "projected_dims",
    "AffineEvaluationError",
    "compile_map",
    "compile_set",
    "format_expr",
    "format_map",
    "format_set",
    "box_bounds",
    "bounding_box",
    "contains",
    "permutation_of",
]
