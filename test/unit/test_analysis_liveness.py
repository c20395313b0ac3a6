"""spyre_mlir.analysis.liveness: live ranges, peak bytes, tensor sizes."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ComplexType, TensorType, f16, f32, i1, i8
from xdsl.ir import Block

import spyre_mlir
from spyre_mlir.analysis.liveness import (
    LiveRange,
    live_bytes,
    live_ranges,
    peak_bytes,
    peak_live_bytes,
    tensor_bytes,
    value_bytes,
)
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.target import SPYRE, TargetError


def test_tensor_bytes_uses_the_target_widths():
    assert tensor_bytes(TensorType(f16, [4, 8])) == 64
    assert tensor_bytes(TensorType(f32, [4, 8])) == 128
    assert tensor_bytes(TensorType(i1, [10])) == 10  # a byte each
    assert tensor_bytes(TensorType(i8, [3]), SPYRE.replace(index_bytes=4)) == 3
    assert tensor_bytes(TensorType(f16, [DYNAMIC_INDEX, 8])) is None


def test_tensor_bytes_of_an_element_without_a_width_is_an_error():
    with pytest.raises(TargetError):
        tensor_bytes(TensorType(ComplexType(f32), [2]))  # not a guessed 64 bits


def test_peak_bytes_of_ranges():
    assert peak_bytes([]) == 0
    # [0,1] and [1,2] meet at 1; [3,3] is alone.
    assert peak_bytes([LiveRange(0, 1, 10), LiveRange(1, 2, 20), LiveRange(3, 3, 5)]) == 30
    # One ends at 1, the next starts at 2: never together.
    assert peak_bytes([LiveRange(0, 1, 10), LiveRange(2, 3, 20)]) == 20
    assert peak_bytes([LiveRange(-1, 0, 7), LiveRange(0, 0, 1)]) == 8  # an argument counts from 0


def test_live_bytes_per_position():
    assert live_bytes([LiveRange(-1, 1, 10), LiveRange(1, 2, 5)], 4) == [10, 15, 5, 0]


KERNEL = """
func.func @k(%a: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %b = math.exp %a : tensor<4x8xf16>
  %c = math.exp %b : tensor<4x8xf16>
  %d = arith.addf %c, %b : tensor<4x8xf16>
  %e = scf.execute_region -> tensor<4x8xf16> {
    %f = math.exp %a : tensor<4x8xf16>
    %g = math.exp %f : tensor<4x8xf16>
    %k = arith.addf %f, %g : tensor<4x8xf16>
    scf.yield %k : tensor<4x8xf16>
  }
  %h = arith.addf %d, %e : tensor<4x8xf16>
  func.return %h : tensor<4x8xf16>
}
"""


def _kernel():
    module = spyre_mlir.parse(KERNEL)
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


def test_live_ranges_of_a_block():
    fn = _kernel()
    block: Block = fn.body.block
    ranges = live_ranges(block, value_bytes)
    a = block.args[0]
    b, c, d, e, h = (op.results[0] for op in list(block.ops)[:5])
    assert ranges[a] == LiveRange(-1, 3, 64, captured=True)  # read inside the region of op 3
    assert ranges[b] == LiveRange(0, 2, 64)
    assert ranges[c] == LiveRange(1, 2, 64)
    assert ranges[d] == LiveRange(2, 4, 64)
    assert ranges[e] == LiveRange(3, 4, 64)
    assert ranges[h] == LiveRange(4, 5, 64)
    assert peak_bytes(ranges.values()) == 4 * 64  # a, b, c, d at op 2


def test_peak_live_bytes_counts_a_region_on_top_of_what_is_live_around_it():
    fn = _kernel()
    peak, where = peak_live_bytes(fn, {"k": fn}, value_bytes)
    # Around the execute_region a (captured) and d stay live; inside, f, g and k at the addf.
    assert peak == 5 * 64
    assert where is not None and where.name == "arith.addf" and where.parent_op().name == "scf.execute_region"


def test_value_bytes_of_an_element_without_a_width_is_a_located_error():
    module = spyre_mlir.parse(
        'func.func @k() -> tensor<2xcomplex<f32>> {\n'
        '  %z = "test.op"() : () -> tensor<2xcomplex<f32>>\n'
        "  func.return %z : tensor<2xcomplex<f32>>\n}\n"
    )
    op = next(o for o in module.walk() if o.name == "test.op")
    with pytest.raises(DiagnosticError, match="cannot size a tensor<2xcomplex<f32>>"):
        value_bytes(op.results[0])
