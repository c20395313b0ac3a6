"""Affine maps and sets compiled to Python functions.

`spyre_mlir.affine.eval_expr` walks the expression tree on every call; the
interpreter evaluates the same maps once per loop iteration, so it turns each
map into a lambda once, at decode time. The lambdas use `//` and `%`, which
floor like MLIR's `floordiv`/`mod` on Python ints and NumPy integer arrays
alike, so one compiled map serves a single core and a batch of cores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

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

from spyre_mlir.interpreter.errors import InterpreterError


def _source(expr: AffineExpr) -> str:
    if isinstance(expr, AffineDimExpr):
        return f"d[{expr.position}]"
    if isinstance(expr, AffineSymExpr):
        return f"s[{expr.position}]"
    if isinstance(expr, AffineConstantExpr):
        value = int(expr.value)
        if not -(1 << 63) <= value < (1 << 63):
            raise InterpreterError(f"affine constant {value} does not fit in 64 bits (index)")
        return str(value)
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs, rhs = _source(expr.lhs), _source(expr.rhs)
    match expr.kind:
        case AffineBinaryOpKind.Add:
            return f"({lhs} + {rhs})"
        case AffineBinaryOpKind.Mul:
            return f"({lhs} * {rhs})"
        case AffineBinaryOpKind.FloorDiv:
            return f"({lhs} // {rhs})"
        case AffineBinaryOpKind.CeilDiv:
            return f"(-((-{lhs}) // {rhs}))"
        case AffineBinaryOpKind.Mod:
            return f"({lhs} % {rhs})"
    raise AssertionError(f"unknown affine op {expr.kind}")


def _build(source: str) -> Callable:
    # The source is generated from the expression tree above: only integer
    # literals, `d[i]`, `s[i]` and arithmetic operators.
    return eval(compile(source, "<affine>", "eval"), {"__builtins__": {}})  # noqa: S307


@cache
def compile_map(amap: AffineMap) -> Callable[[Sequence, Sequence], tuple]:
    """`f(dims, syms) -> tuple of results`."""
    results = "".join(f"{_source(e)}, " for e in amap.results)
    return _build(f"lambda d, s: ({results})")


@cache
def compile_expr(expr: AffineExpr) -> Callable[[Sequence, Sequence], object]:
    return _build(f"lambda d, s: {_source(expr)}")


@cache
def compile_set(aset: AffineSet) -> Callable[[Sequence, Sequence], object]:
    """`f(dims, syms) -> membership` (a bool, or a bool array for array dims)."""
    terms = []
    for c in aset.constraints:
        diff = _source(c.lhs - c.rhs)
        op = {AffineConstraintKind.eq: "==", AffineConstraintKind.ge: ">=", AffineConstraintKind.le: "<="}[c.kind]
        terms.append(f"({diff} {op} 0)")
    return _build(f"lambda d, s: {' & '.join(terms) if terms else 'True'}")
