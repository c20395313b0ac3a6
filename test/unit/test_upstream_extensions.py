"""The upstream forms added in dialects/arith.py and dialects/linalg.py execute as MLIR means them."""

from __future__ import annotations

import numpy as np
from conftest import REPO

import spyre_mlir

ARITH = REPO / "test" / "lit" / "dialects" / "arith" / "ops.mlir"
LINALG = REPO / "test" / "lit" / "dialects" / "linalg" / "ops.mlir"


def test_arith_on_tensors_matches_numpy():
    rng = np.random.default_rng(3)
    a = rng.integers(-1000, 1000, 4, dtype=np.int32)
    b = rng.integers(-1000, 1000, 4, dtype=np.int32)
    x = rng.standard_normal(4).astype(np.float32) * 50
    y = rng.standard_normal(4).astype(np.float32) * 50
    r = spyre_mlir.interpret(ARITH, "arith_on_tensors", a=a, b=b, x=x, y=y)
    np.testing.assert_array_equal(r["return_0"], np.where(a < b, x, y))
    np.testing.assert_array_equal(r["return_1"], x < y)
    np.testing.assert_array_equal(r["return_2"], a.astype(np.int64))
    np.testing.assert_array_equal(r["return_3"], a.astype(np.int64))
    np.testing.assert_array_equal(r["return_4"], a.astype(np.int16))  # trunci wraps
    np.testing.assert_array_equal(r["return_5"], np.trunc(x).astype(np.int32))


def test_reduce_short_and_long_forms_agree():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 8)).astype(np.float16)
    init = np.full(4, -np.inf, np.float16)
    r = spyre_mlir.interpret(LINALG, "reduce_forms", x=x, i=init)
    np.testing.assert_array_equal(r["return_0"], np.fmax.reduce(x, axis=1))
    r = spyre_mlir.interpret(LINALG, "reduce_forms", x=x, i=np.zeros(4, np.float16))
    np.testing.assert_allclose(r["return_1"].astype(np.float32), x.astype(np.float32).sum(axis=1), rtol=2e-3, atol=2e-3)


def test_named_elementwise_op_on_a_scalar_is_a_located_error():
    """xDSL's named elementwise ops assumed shaped operands (an internal error)."""
    import pytest

    import spyre_mlir

    src = (
        "func.func @f(%c: f16, %t: tensor<1xf16>) -> tensor<1xf16> {\n"
        "  %0 = linalg.add ins(%c : f16) outs(%t : tensor<1xf16>) -> tensor<1xf16>\n"
        "  return %0 : tensor<1xf16>\n}\n"
    )
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(src)
    d = info.value.diagnostic
    assert (d.message, d.location.line) == ("'linalg.add' op expected operand #0 to be a tensor or memref, got 'f16'", 2)


DIV = """
func.func @div(%a: tensor<8xf16>, %b: tensor<8xf16>, %o: tensor<8xf16>, %p: tensor<8xi32>, %q: tensor<8xi32>,
               %r: tensor<8xi32>) -> (tensor<8xf16>, tensor<8xi32>) {
  %0 = linalg.div ins(%a, %b : tensor<8xf16>, tensor<8xf16>) outs(%o : tensor<8xf16>) -> tensor<8xf16>
  %1 = linalg.div ins(%p, %q : tensor<8xi32>, tensor<8xi32>) outs(%r : tensor<8xi32>) -> tensor<8xi32>
  return %0, %1 : tensor<8xf16>, tensor<8xi32>
}
"""


def test_linalg_div_matches_numpy():
    """linalg.div (dialects/linalg.py): divf on floats, divsi (rounding toward zero) on integers."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(8).astype(np.float16)
    b = (rng.standard_normal(8) + 3).astype(np.float16)
    p = rng.integers(-100, 100, 8, dtype=np.int32)
    q = np.array([3, -3, 7, -7, 1, 2, -5, 9], np.int32)
    r = np.zeros(8, np.int32)
    out = spyre_mlir.interpret(DIV, "div", a=a, b=b, o=np.zeros(8, np.float16), p=p, q=q, r=r)
    np.testing.assert_array_equal(out["return_0"], a / b)
    np.testing.assert_array_equal(out["return_1"], np.trunc(p / q).astype(np.int32))


def test_linalg_div_on_a_scalar_is_a_located_error():
    import pytest

    src = (
        "func.func @f(%c: f16, %t: tensor<1xf16>) -> tensor<1xf16> {\n"
        "  %0 = linalg.div ins(%c, %c : f16, f16) outs(%t : tensor<1xf16>) -> tensor<1xf16>\n"
        "  return %0 : tensor<1xf16>\n}\n"
    )
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(src)
    d = info.value.diagnostic
    assert (d.message, d.location.line) == ("'linalg.div' op expected operand #0 to be a tensor or memref, got 'f16'", 2)
