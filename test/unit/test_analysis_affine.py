"""Linear forms, the one index-to-affine linearizer (spyre_mlir.analysis.affine.Linear, linear_form).

Without IR: affine expressions over dims and symbols become `Linear` forms;
products of two variable forms, divisions by variables or by zero, and
divisions the coefficients do not allow are not linear (None)."""

from __future__ import annotations

from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineExpr

from spyre_mlir.analysis.affine import Linear, linear_form

d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
s0 = AffineExpr.symbol(0)
DIMS = [Linear(0, {0: 1}), Linear(0, {1: 1})]


def raw(kind: AffineBinaryOpKind, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    """The binary expression as written (xDSL's operators fold or refuse some)."""
    return AffineBinaryOpExpr(kind, lhs, rhs)


MUL, FLOOR, MOD = AffineBinaryOpKind.Mul, AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.Mod


def test_linear_arithmetic():
    x = Linear(3, {"i": 2})
    assert x.plus(Linear(1, {"i": -2, "j": 1})) == Linear(4, {"j": 1})  # a zero coefficient drops out
    assert x.times(3) == Linear(9, {"i": 6})
    assert Linear(5).is_constant and not x.is_constant
    assert repr(Linear(1, {0: 2})) == "1 + 2*d0"


def test_sums_products_and_symbols():
    assert linear_form(d0 * 4 + d1 + 7, DIMS) == Linear(7, {0: 4, 1: 1})
    assert linear_form(raw(MUL, d0, s0), DIMS, [Linear(3)]) == Linear(0, {0: 3})  # a symbol of known value
    assert linear_form(d0 + s0, DIMS, [Linear(0, {"n": 1})]) == Linear(0, {0: 1, "n": 1})
    assert linear_form(raw(MUL, d0, d1), DIMS) is None  # not linear
    assert linear_form(d0 + s0, DIMS) is None  # a symbol not given
    assert linear_form(d0, [None]) is None  # a leaf that is not a form


def test_divisions_are_exact_or_refused():
    assert linear_form((d0 * 4 + 6) // 2, DIMS) == Linear(3, {0: 2})
    assert linear_form((d0 * 4 + 5) // 2, DIMS) == Linear(2, {0: 2})  # only the constant rounds (down)
    assert linear_form((d0 * 4 + 5).ceil_div(2), DIMS) == Linear(3, {0: 2})
    assert linear_form(raw(MOD, d0 * 4 + 5, AffineExpr.constant(2)), DIMS) == Linear(1)
    assert linear_form(raw(FLOOR, AffineExpr.constant(-7), AffineExpr.constant(2)), DIMS) == Linear(-4)  # floor, as MLIR
    assert linear_form(d0 // 2, DIMS) is None  # d0 floordiv 2 is not linear in d0
    assert linear_form(d0 % 4, DIMS) is None
    assert linear_form(raw(FLOOR, d0, d1), DIMS) is None
    assert linear_form(raw(FLOOR, AffineExpr.constant(4), AffineExpr.constant(0)), DIMS) is None
