"""The ktdf_lowering dialect (dialects/ktdf_lowering.py, dataflow-scheduler's
KTDFLowering.td): every op parsed, verified and printed back in custom and
generic form. The .td states no verifier rule; its constraints are tested."""

from __future__ import annotations

import pytest

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.ktdf_lowering import ExecuteOnOp, SignalOp

# Upstream's printed form (KTDFLoweringOps.cpp): the units a bare list.
EVERY_OP = """
func.func @f(%su: index, %lu: index, %a: f32) {
  ktdf_lowering.execute_on %su, %lu {
    ktdf_lowering.execute_on %su {
      %r = arith.addf %a, %a : f32
      ktdf_lowering.signal %su, %lu {phase = 2 : i64}
    } {unit = "su"}
    ktdf_lowering.execute_on {
    }
    ktdf_lowering.signal
  }
  return
}
"""

# KTDFLowering.td's examples, verbatim: the units in parentheses.
TD_EXAMPLES = """
func.func @f(%sfu_unit: index, %mnilu_unit: index, %mnisu_unit: index, %l1lu_unit: index, %a: f32, %b: f32) {
    ktdf_lowering.execute_on(%sfu_unit) {
      %result = arith.addf %a, %b : f32
    }
    ktdf_lowering.execute_on(%mnilu_unit, %mnisu_unit) {
      // Operations for multiple units
    }
    ktdf_lowering.signal(%mnilu_unit, %l1lu_unit)
    ktdf_lowering.signal(%l1lu_unit, %sfu_unit)
    func.return
}
"""


def _print(text: str, generic: bool = False) -> str:
    module = ir.parse_module(text)
    ir.verify(module)
    return ir.print_ir(module, generic=generic) if generic else ir.print_ir(module)


def test_every_op_round_trips_in_custom_and_generic_form():
    custom = _print(EVERY_OP)
    for line in EVERY_OP.strip().splitlines()[1:-1]:
        assert line.strip() in custom
    assert _print(custom) == custom
    assert _print(_print(EVERY_OP, generic=True)) == custom


def test_td_examples_read_and_printed_in_upstream_form():
    printed = _print(TD_EXAMPLES)
    assert "ktdf_lowering.execute_on %sfu_unit {" in printed
    assert "ktdf_lowering.execute_on %mnilu_unit, %mnisu_unit {" in printed
    assert "ktdf_lowering.signal %mnilu_unit, %l1lu_unit\n" in printed
    assert "ktdf_lowering.signal %l1lu_unit, %sfu_unit\n" in printed
    assert _print(printed) == printed


def test_units_are_index_operands_and_the_body_one_block():
    module = ir.parse_module(TD_EXAMPLES)
    execute = next(op for op in module.walk() if isinstance(op, ExecuteOnOp))
    signal = next(op for op in module.walk() if isinstance(op, SignalOp))
    assert [u.name_hint for u in execute.units] == ["sfu_unit"]
    assert [u.name_hint for u in signal.units] == ["mnilu_unit", "l1lu_unit"]
    assert len(execute.body.blocks) == 1


def test_a_lowering_dialect_registered_by_name():
    assert "ktdf_lowering" in ir.LOWERING_DIALECTS and "ktdf_lowering" in ir.SPYRE_DIALECTS


@pytest.mark.parametrize(
    "text, message",
    [
        ("func.func @f(%u: i32) {\n  ktdf_lowering.signal %u\n  func.return\n}", "'index' vs 'i32'"),
        ('func.func @f(%u: i32) {\n  "ktdf_lowering.signal"(%u) : (i32) -> ()\n  func.return\n}',
         "operand 'units' at position 0 does not verify"),
        ("func.func @f(%u: index) {\n  ktdf_lowering.execute_on %u {\n    cf.br ^bb1\n  ^bb1:\n  }\n  func.return\n}",
         "expected a single block, but got 2 blocks"),
    ],
    ids=["units are index", "units are index (generic)", "body is one block"],
)
def test_constraint(text: str, message: str):
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ir.parse_module(text))
    assert message in info.value.diagnostic.message
    assert info.value.diagnostic.location is not None
