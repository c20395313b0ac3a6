"""Regression tests for the fixes to xDSL in core/xdsl_fixes.py and core/ir.py."""

from __future__ import annotations

import time

import pytest

import spyre_mlir


def test_unterminated_string_is_reported_quickly():
    # Before the fix, a stray `"` in a long line backtracked for minutes.
    line = '  %v = ".construct_memory_view %p, sizes: [4096], strides: [1] {' + " x" * 200 + "\n"
    src = "func.func @f(%p: index) {\n" + line * 3 + "  return\n}\n"
    start = time.perf_counter()
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(src)
    assert time.perf_counter() - start < 5
    d = info.value.diagnostic
    assert (d.location.line, d.location.col) == (2, 8)
    assert "closing string literal" in d.message


def test_a_crash_inside_an_xdsl_op_parser_is_a_located_error():
    # xDSL 0.75's linalg.fill parser indexes past the end of a truncated op.
    src = "func.func @f(%x: f16) {\n  %e = tensor.empty() : tensor<4xf16>\n  %f = linalg.fill \n"
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(src)
    d = info.value.diagnostic
    assert d.location.line in (3, 4)
    assert "internal error" not in d.message


def test_arrow_type_list_without_parentheses():
    src = """
    func.func @f(%n: index, %x: tensor<4xf16>) -> tensor<4xf16> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<4xf16> {
        scf.yield %a : tensor<4xf16>
      }
      return %r : tensor<4xf16>
    }"""
    module = spyre_mlir.parse(src)
    assert any(op.name == "scf.for" and len(op.results) == 1 for op in module.walk())


def test_upstream_extensions_replace_ops_of_their_dialect():
    import importlib

    from spyre_mlir.ir import UPSTREAM_EXTENSIONS, make_context

    ctx = make_context()
    for dialect, module in UPSTREAM_EXTENSIONS.items():
        replacements = importlib.import_module(module).REPLACEMENTS
        assert replacements
        for op in replacements:
            assert op.name.startswith(dialect + ".")
            assert ctx.get_op(op.name) is op


def test_hex_in_a_float_dense_literal_is_a_bit_pattern():
    import math

    from xdsl.dialects.arith import ConstantOp

    module = spyre_mlir.parse(
        """func.func @f() -> (tensor<2xf16>, tensor<2xf32>) {
          %a = arith.constant dense<0xFC00> : tensor<2xf16>
          %b = arith.constant dense<[0x3F800000, 0xFF800000]> : tensor<2xf32>
          return %a, %b : tensor<2xf16>, tensor<2xf32>
        }"""
    )
    a, b = [op.value.get_values() for op in module.walk() if isinstance(op, ConstantOp)]
    assert list(a) == [-math.inf, -math.inf]
    assert list(b) == [1.0, -math.inf]
