"""The spyreop dialect (dialects/spyreop.py): parsed, verified, printed back, and
run by the interpreter (interpreter/ops_spyreop.py) against NumPy oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import SHARED

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError

ACCEPT_INTRINSIC = (
    SHARED
    / "corpus/dataflow-scheduler/test/Conversion/frontend/KTIRToScheduleIR/KTIRLegalityCheck/accept-supported-intrinsic.mlir"
)

EVERY_OP = """
func.func @all(%h: f16, %d: !spyreop.df16, %f: f32, %i: i32, %l: i64, %t: tensor<64xf16>, %p: !spyreop.fp16_fused) {
  %0 = spyreop.gelu %d : !spyreop.df16
  %1 = spyreop.softplus %h beta 1.000000e+00 threshold 2.000000e+01 : f16
  %2:2 = spyreop.exx2 %f : f32
  %3 = spyreop.exx2_fused %h : f16 -> !spyreop.fp16_fused
  %4 = spyreop.layernormscale_fused %p : !spyreop.fp16_fused -> f16
  %5 = spyreop.layernormnorm %f squares %f scale %f weight %f bias %f : f32
  %6 = spyreop.layernormscale %f squares %f : f32
  %7 = spyreop.addi32toi32 %i, %i
  %8 = spyreop.addi64toi64 %l, %l
  %9 = spyreop.muli32toi32 %i, %i
  %10 = spyreop.idx32toaddr %i base %i stride %i
  %11 = spyreop.slice_reduction %t {reduction_kind = #spyreop.reduction_kind<add>, reduction_scope = #spyreop.reduction_scope<in_slice>} : tensor<64xf16> -> tensor<64xf16>
  %12 = spyreop.constant 1.500000e+00 : f16
  %13 = spyreop.exp %h : f16
  %14 = spyreop.realdiv %h, %h : f16
  %15 = spyreop.sigmoid %h : f16
  %16 = spyreop.silu %h : f16
  %17 = spyreop.rsqrt %h : f16
  %18 = spyreop.reciprocal %h : f16
  %19 = spyreop.sqrt %f : f32
  func.return
}
"""


def _print(text: str, generic: bool = False) -> str:
    module = ir.parse_module(text)
    ir.verify(module)
    return ir.print_ir(module, generic=generic) if generic else ir.print_ir(module)


def test_every_op_round_trips_in_custom_and_generic_form():
    custom = _print(EVERY_OP)
    for line in EVERY_OP.strip().splitlines():
        if "spyreop." in line and "func.func" not in line:
            assert line.strip() in custom
    assert _print(custom) == custom
    assert _print(_print(EVERY_OP, generic=True)) == custom


def test_spyreop_is_executed_not_a_lowering_dialect():
    assert "spyreop" in ir.SPYRE_DIALECTS and "spyreop" not in ir.LOWERING_DIALECTS


@pytest.mark.parametrize(
    "text, message",
    [
        ("%r = spyreop.exp %x : i32", "i32"),  # only f16, df16 and f32
        ("%r = spyreop.gelu %y : f32", "f32"),  # gelu: f16 and df16 only
        ("%r = spyreop.softplus %x beta 0.0 threshold 0.0 : f16", "which is non-zero"),
        ("%r = spyreop.exx2_fused %x : f16 -> !spyreop.fp32_fused", "'!spyreop.fp16_fused' are incompatible"),
        ("%r = spyreop.constant 0 : i32", "i32"),
        ("%r = spyreop.constant 0.0 : f64", "f64"),
        ('%r = "spyreop.constant"() <{value = 0.0 : f32}> : () -> f16', "have same type"),
        ("%r = spyreop.slice_reduction %t {reduction_kind = #spyreop.reduction_kind<sum>, "
         "reduction_scope = #spyreop.reduction_scope<in_slice>} : tensor<4xf16> -> tensor<4xf16>", "add"),
    ],
)
def test_invalid_intrinsics_are_located_errors(text, message):
    source = f"func.func @f(%x: f16, %y: f32, %t: tensor<4xf16>) {{\n  {text}\n  func.return\n}}\n"
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ir.parse_module(source, "bad.mlir"))
    rendered = info.value.diagnostic.render()
    assert "bad.mlir:2:" in rendered and message in rendered


@pytest.mark.skipif(not ACCEPT_INTRINSIC.is_file(), reason="../shared/corpus/dataflow-scheduler not present")
def test_their_intrinsic_kernel_runs_and_equals_numpy():
    a = np.array([0.5, 1.0, 2.0, -1.0], np.float16)
    b = np.array([1.0, 2.0, 3.0, 4.0], np.float16)
    out = spyre_mlir.interpret(str(ACCEPT_INTRINSIC), "ok_compute", a=a, b=b, o=np.zeros(4, np.float16))
    expected = np.exp(a + b) / b  # linalg.add, then exp(x) / y in the body
    np.testing.assert_array_equal(out["return_0"], expected)


OWN_KERNEL = """
#id = affine_map<(d0) -> (d0)>
func.func @intrinsics(%x: tensor<8xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = spyreop.sigmoid %v : f32
    %q = spyreop.sqrt %s : f32
    %r0 = spyreop.rsqrt %q : f32
    %c = spyreop.constant 2.000000e+00 : f32
    %d = spyreop.realdiv %r0, %c : f32
    %n = spyreop.reciprocal %d : f32
    %u = spyreop.silu %n : f32
    linalg.yield %u : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @scalars(%h: f16, %i: i32, %j: i32) -> (f16, f16, i32, i32, i32) {
  %g = spyreop.gelu %h : f16
  %p = spyreop.softplus %h beta 2.000000e+00 threshold 1.000000e+00 : f16
  %a = spyreop.addi32toi32 %i, %j
  %m = spyreop.muli32toi32 %i, %j
  %addr = spyreop.idx32toaddr %i base %j stride %i
  return %g, %p, %a, %m, %addr : f16, f16, i32, i32, i32
}
"""


def test_own_kernel_equals_numpy(tmp_path):
    path = tmp_path / "intrinsics.mlir"
    path.write_text(OWN_KERNEL)
    x = np.linspace(-3, 3, 8, dtype=np.float32)
    out = spyre_mlir.interpret(str(path), "intrinsics", x=x, o=np.zeros(8, np.float32))["return_0"]
    s = 1 / (1 + np.exp(-x.astype(np.float64)))
    n = 1 / ((1 / np.sqrt(np.sqrt(s))) / 2)
    expected = n / (1 + np.exp(-n))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_scalar_intrinsics_equal_their_definitions(tmp_path):
    path = tmp_path / "scalars.mlir"
    path.write_text(OWN_KERNEL)
    h = np.float16(0.75)
    i, j = np.int32(2**30), np.int32(3)
    out = spyre_mlir.interpret(str(path), "scalars", h=h, i=int(i), j=int(j))
    gelu = 0.5 * 0.75 * (1 + math.erf(0.75 / math.sqrt(2)))
    assert out["return_0"] == np.float16(gelu)
    assert out["return_1"] == np.float16(0.75)  # beta x = 1.5 > threshold 1: x itself
    wrap = lambda v: (v + 2**31) % 2**32 - 2**31  # noqa: E731
    assert out["return_2"] == wrap(2**30 + 3)
    assert out["return_3"] == wrap(3 * 2**30)  # wraps at 32 bits
    assert out["return_4"] == wrap(3 + 2**30 * 2**30)


def test_softplus_below_the_threshold_is_log1p_exp(tmp_path):
    path = tmp_path / "scalars.mlir"
    path.write_text(OWN_KERNEL)
    out = spyre_mlir.interpret(str(path), "scalars", h=np.float16(0.25), i=1, j=1)
    assert out["return_1"] == np.float16(math.log1p(math.exp(0.5)) / 2)


def test_an_intrinsic_without_documented_arithmetic_is_refused_at_the_op(tmp_path):
    path = tmp_path / "exx2.mlir"
    path.write_text("func.func @f(%x: f32) -> f32 {\n  %m, %s = spyreop.exx2 %x : f32\n  return %m : f32\n}\n")
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.interpret(str(path), "f", x=np.float32(1))
    rendered = info.value.diagnostic.render()
    assert "exx2.mlir:2:" in rendered and "does not run 'spyreop.exx2'" in rendered


def test_df16_is_an_unsupported_type(tmp_path):
    path = tmp_path / "df16.mlir"
    path.write_text("func.func @f(%x: !spyreop.df16) -> !spyreop.df16 {\n  %e = spyreop.exp %x : !spyreop.df16\n  return %e : !spyreop.df16\n}\n")
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.interpret(str(path), "f", x=np.float16(1))
    rendered = info.value.diagnostic.render()
    assert "df16.mlir:1:1:" in rendered and "!spyreop.df16 are not supported" in rendered
