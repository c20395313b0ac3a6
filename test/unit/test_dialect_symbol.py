"""The symbol dialect (dialects/symbol.py, dataflow-scheduler's Symbol.td):
every op parsed, verified and printed back in custom and generic form, and
one test per verifier rule."""

from __future__ import annotations

import pytest

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.symbol import CreateSymbolOp, ScalarValue, SymbolImmutableMappingOp

EVERY_OP = """
func.func @symbols(%value: f32, %lb: index, %ub: index) {
  %symbol = symbol.create_symbol : index
  %s1 = symbol.create_symbol {SymbolId = 7 : i64} : index
  symbol.create_id %value {symbol_id = -100 : si64} : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %map = symbol.symbol_immutable_mapping ([%c0 -> %symbol], [%c1 -> %s1]) : index
  scf.for %i = %lb to %ub step %c1 {
    %q = symbol.query_map(map:%map, key:%i) : index
  }
  %q0 = symbol.query_map(map:%map, key:%c0) : index
  func.return
}
"""


def _print(text: str, generic: bool = False) -> str:
    module = ir.parse_module(text)
    ir.verify(module)
    return ir.print_ir(module, generic=generic) if generic else ir.print_ir(module)


def _error(text: str) -> tuple[str, int | None]:
    """The message of the error verifying `text`, and the line it is located at."""
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ir.parse_module(text))
    diagnostic = info.value.diagnostic
    return diagnostic.message, diagnostic.location.line if diagnostic.location else None


def test_every_op_round_trips_in_custom_and_generic_form():
    custom = _print(EVERY_OP)
    for line in EVERY_OP.strip().splitlines()[1:-1]:
        if "=" in line or "symbol." in line:
            assert line.strip() in custom
    assert _print(custom) == custom
    assert _print(_print(EVERY_OP, generic=True)) == custom


def test_a_lowering_dialect_registered_by_name():
    assert "symbol" in ir.LOWERING_DIALECTS and "symbol" in ir.SPYRE_DIALECTS


def test_create_symbol_is_a_scalar_value():
    """OpTraits.td's ScalarValue: uniform.def_immutable_mapping mixes such values."""
    assert CreateSymbolOp().has_trait(ScalarValue)


def test_query_map_prints_without_spaces_inside_as_upstream():
    printed = _print(EVERY_OP)
    assert "symbol.query_map(map:%map, key:%c0) : index" in printed


def test_mapping_keeps_keys_and_values_paired():
    module = ir.parse_module(EVERY_OP)
    mapping = next(op for op in module.walk() if isinstance(op, SymbolImmutableMappingOp))
    assert [k.name_hint for k in mapping.keys] == ["c0", "c1"]
    assert [v.name_hint for v in mapping.values] == ["symbol", "s1"]


RULES = {
    "symbol_id is SI64Attr (the .td's `-100 : i64` example fails it)": (
        "func.func @f(%v: f32) {\n  symbol.create_id %v {symbol_id = -100 : i64} : f32\n  func.return\n}",
        "attribute 'symbol_id' failed to satisfy constraint: 64-bit signed integer attribute",
    ),
    "keys are constants": (
        "func.func @f(%k: index) {\n  %s = symbol.create_symbol : index\n"
        "  %m = symbol.symbol_immutable_mapping([%k -> %s]) : index\n  func.return\n}",
        "All keys expected to be constant operations",
    ),
    "values are create_symbol results": (
        "func.func @f() {\n  %c0 = arith.constant 0 : index\n"
        "  %m = symbol.symbol_immutable_mapping([%c0 -> %c0]) : index\n  func.return\n}",
        "Values in SymbolImmutableMapping should be results of symbol.create_symbol",
    ),
    "as many keys as values": (
        "func.func @f() {\n  %c0 = arith.constant 0 : index\n  %s = symbol.create_symbol : index\n"
        '  %m = "symbol.symbol_immutable_mapping"(%c0, %s, %c0) : (index, index, index) -> index\n'
        "  func.return\n}",
        "marked as having the same size",
    ),
    "the map is a symbol_immutable_mapping": (
        "func.func @f(%m: index) {\n  %c0 = arith.constant 0 : index\n"
        "  %q = symbol.query_map(map:%m, key:%c0) : index\n  func.return\n}",
        "map's defOp must be symbol_immutable_mapping op.",
    ),
    "a block-argument key is a loop's": (
        "func.func @f(%k: index) {\n  %c0 = arith.constant 0 : index\n  %s = symbol.create_symbol : index\n"
        "  %m = symbol.symbol_immutable_mapping([%c0 -> %s]) : index\n"
        "  %q = symbol.query_map(map:%m, key:%k) : index\n  func.return\n}",
        "key's parentOp must be a ForOp.",
    ),
}


@pytest.mark.parametrize("rule", RULES)
def test_verifier_rule(rule: str):
    text, message = RULES[rule]
    error, line = _error(text)
    assert message in error
    assert line == len(text.splitlines()) - 2  # at the failing op, the one before `func.return`
