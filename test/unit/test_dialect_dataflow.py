"""The dataflow dialect (dialects/dataflow.py, dataflow-scheduler's
Dataflow/*.td): every op, type and attribute parsed, verified and printed back
in custom and generic form, and one test per verifier rule."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import AffineSetAttr
from xdsl.ir.affine import AffineSet
from xdsl.parser import Parser

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.dataflow import (
    CustomMXFloatType,
    CustomMXIntType,
    CustomMXType,
    DataflowRoutingDirection,
    DebugNameOpInterface,
    GetPagedLogicalMemoryViewOp,
    GetUnitOp,
    ProgramUnitOp,
    ReturnOp,
    SendOp,
    is_hyper_rectangular,
)

EVERY_OP = """
func.func @f(%id: index, %data: vector<128xi8>, %cv: !dataflow.custom_vector<64xf16>, %buffer: memref<4xi8>) {
  %l1lu = dataflow.get_unit {core = 0 : i64, corelet = 0 : i64, name = "L1-LU", type = "L1LU"} : index
  %u0, %u1 = dataflow.get_unit {name = "L1-LU", type = "L1LU"} : index, index
  %unit = dataflow.get_local_unit %id {name = "L1-LU"} : index
  %group = dataflow.create_group(%u0, %u1 : index, index) : index
  %none = dataflow.create_group() : index
  %mg = dataflow.create_multicast_group(%l1lu -> (%u0, %u1)) {count = 0 : i32, group_id = 1 : i32, num_consumers = 2 : i32} : index
  %lone = dataflow.create_multicast_group(%l1lu -> ()) {count = 0 : i32, group_id = 0 : i32, num_consumers = 1 : i32} : index
  dataflow.program_unit %l1lu : {
    dataflow.sync_send %u0 {wait_immediately_for_async_transfers = false} : index
    dataflow.sync_recv %u0 {dbgName = "r"} : index
    dataflow.send %mg, %data : vector<128xi8>
    %received = dataflow.receive %l1lu : vector<128xi8>
  }
  dataflow.program_unit iter_arg : %pu -> (%u0, %u1) {precision = "fp16"} : {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %view = dataflow.get_logical_memory_view %pu, %c0 {layout_map = affine_map<(d0, d1) -> (d0 + d1 * 8)>} : index, index, memref<8x16xi8>
    %paged = dataflow.get_paged_logical_memory_view %pu, %c0 {layout_map = affine_map<(d0, d1) -> (d0 * 4 + d1)>}
      {segments =
        page0: (idx_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 1 >= 0)>, start_addr = %c0),
        page1: (idx_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 - 2 >= 0, -d1 + 3 >= 0)>, start_addr = %c64)} : index, index, memref<64x4xf16>
    dataflow.implicit_sync_on_streaming_buffer %buffer, %pu, %c64 {dbgName = "stream"} : memref<4xi8>, index, index
    dataflow.send %l1lu, %cv {dbgName = "s", dir = #dataflow<direction CounterClockwise>} : !dataflow.custom_vector<64xf16>
    %mx = dataflow.receive %l1lu : !dataflow.custom_vector<32x!dataflow.mxfp<4>>
    dataflow.opaque {func_name = "reciprocal", parameter_dictionary = {unroll_factor = "2"}, read_only_register_dictionary = {c0 = "R2"}, read_write_register_dictionary = {p0 = "R0", p1 = "R1"}}
    "dataflow.return"() {last} : () -> ()
  }
  return
}
"""

TYPES = (
    "func.func private @types(!dataflow.custom_vector<64xf16>, !dataflow.mxfp<16>, !dataflow.mxint<8>, "
    "!dataflow.custom<mxfp4>, !dataflow.custom<mxfp8>, !dataflow.custom<mxint4>, memref<8x!dataflow.mxint<4>>)"
)


def _print(text: str, generic: bool = False) -> str:
    module = ir.parse_module(text)
    ir.verify(module)
    return ir.print_ir(module, generic=generic) if generic else ir.print_ir(module)


def _ops(text: str, cls):
    return [op for op in ir.parse_module(text).walk() if isinstance(op, cls)]


def test_every_op_round_trips_in_custom_and_generic_form():
    custom = _print(EVERY_OP)
    assert _print(custom) == custom
    assert _print(_print(EVERY_OP, generic=True)) == custom
    for line in EVERY_OP.strip().splitlines()[1:-1]:
        if "map<" not in line and "set<" not in line:  # maps and sets print as aliases
            assert line.strip() in custom, line


def test_types_round_trip():
    printed = _print(TYPES)
    assert TYPES in printed
    assert _print(printed) == printed


def test_attribute_dictionary_prints_sorted_as_mlir():
    """The .td's get_unit example lists `type` before `name`; MLIR prints sorted."""
    printed = _print('%u = dataflow.get_unit {core = 0, corelet = 0, type = "L1LU", name = "L1-LU"} : index')
    assert '{core = 0 : i64, corelet = 0 : i64, name = "L1-LU", type = "L1LU"}' in printed


def test_get_unit_results_one_per_time_step():
    (get_unit,) = _ops('%a, %b = dataflow.get_unit {name = "n", type = "t"} : index, index', GetUnitOp)
    assert len(get_unit.units) == 2 and get_unit.unit is get_unit.units[0]
    assert get_unit.unit_name.data == "n" and get_unit.type.data == "t"


def test_program_unit_region_argument_and_implicit_return():
    units = {op.units[0].name_hint: op for op in _ops(EVERY_OP, ProgramUnitOp)}
    single, iterated = units["l1lu"], units["u0"]
    assert not single.region.block.args and isinstance(single.region.block.last_op, ReturnOp)
    assert [a.type for a in iterated.region.block.args] == [iterated.units[0].type]
    assert iterated.precision is not None and iterated.precision.data == "fp16"
    printed = _print(EVERY_OP)
    assert "dataflow.program_unit iter_arg : %pu -> (%u0, %u1) {precision = \"fp16\"} : {" in printed
    assert '"dataflow.return"() {last} : () -> ()' in printed  # printed: it has attributes
    assert printed.count("dataflow.return") == 1  # the implicit one is not


def test_paged_view_pages_in_order():
    (paged,) = _ops(EVERY_OP, GetPagedLogicalMemoryViewOp)
    assert [a.name_hint for a in paged.page_start_addrs] == ["c0", "c64"]
    assert len(paged.idx_sets.data) == 2
    printed = _print(EVERY_OP)
    # Upstream's layout: the op at 6 spaces, the segments 2 deeper, the pages 4.
    assert "\n      %paged = " in printed
    assert "\n        {segments =\n          page0: (idx_set = #set, start_addr = %c0),\n          page1: (" in printed


def test_routing_directions_are_the_td_spellings():
    assert [d.value for d in DataflowRoutingDirection] == ["PseudoRandom", "CounterClockwise", "Clockwise", "BothWays"]
    for direction in DataflowRoutingDirection:
        text = f"func.func @f(%u: index, %d: vector<4xf16>) {{\n  dataflow.send %u, %d {{dir = #dataflow<direction {direction.value}>}} : vector<4xf16>\n  return\n}}"
        (send,) = _ops(text, SendOp)
        assert send.dir is not None and send.dir.data == direction
        assert f"#dataflow<direction {direction.value}>" in _print(text)


def test_mx_short_spellings_name_the_mx_types():
    assert CustomMXType("mxfp4").mx_type() == CustomMXFloatType(4)
    assert CustomMXType("mxfp8").mx_type() == CustomMXFloatType(8)
    assert CustomMXType("mxint4").mx_type() == CustomMXIntType(4)
    assert CustomMXType("mxint4").bitwidth == 4 and CustomMXFloatType(16).bitwidth == 16


def test_debug_name_interface():
    (send,) = _ops(EVERY_OP.replace('{dbgName = "s", ', "{"), SendOp)[1:]
    assert send.has_trait(DebugNameOpInterface)
    assert DebugNameOpInterface.get_dbg_name(send) is None
    DebugNameOpInterface.set_dbg_name(send, "named")
    assert DebugNameOpInterface.get_dbg_name(send) == "named"


def _set(text: str) -> AffineSet:
    attr = Parser(ir.make_context(), text).parse_attribute()
    assert isinstance(attr, AffineSetAttr)
    return attr.data


def test_hyper_rectangular_sets():
    box = _set("affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + 63 >= 0, s0 - 2 >= 0, d1 * 2 == 0)>")
    skew = _set("affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, -d0 - d1 + 63 >= 0)>")
    symbol_bound = _set("affine_set<(d0)[s0] : (d0 - s0 >= 0)>")
    modular = _set("affine_set<(d0) : (d0 mod 2 == 0)>")
    assert is_hyper_rectangular(box)
    assert not is_hyper_rectangular(skew)
    assert not is_hyper_rectangular(symbol_bound)  # a symbol is a variable too
    assert not is_hyper_rectangular(modular)


def test_a_lowering_dialect_registered_by_name():
    assert "dataflow" in ir.LOWERING_DIALECTS and "dataflow" in ir.SPYRE_DIALECTS


PAGED = (
    "func.func @f(%u: index, %s: index, %p: index) {{\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %v = dataflow.get_paged_logical_memory_view %u, %s {{layout_map = affine_map<(d0, d1) -> (d0 * 4 + d1)>}}\n"
    "    {{segments = page0: (idx_set = {set}, start_addr = {addr})}} : index, index, memref<64x4xf16>\n"
    "  return\n}}"
)
BOX = "affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 3 >= 0)>"

RULES = {
    "get_unit has a result": (
        'func.func @f() {\n  dataflow.get_unit {name = "n", type = "t"} :\n  return\n}',
        "expects at least one result (the unit handle)",
        2,
    ),
    "paged: a start address per idx_set": (
        "func.func @f(%u: index, %s: index) {\n  %c0 = arith.constant 0 : index\n"
        '  %v = "dataflow.get_paged_logical_memory_view"(%u, %s, %c0) <{idx_sets = [], '
        "layout_map = affine_map<(d0) -> (d0)>}> : (index, index, index) -> memref<64xf16>\n  return\n}",
        "there should be a start address and idx_set for every page",
        3,
    ),
    "paged: start addresses are arith.constant": (
        PAGED.format(set=BOX, addr="%p"), "page start addresses should be arith::ConstantOp", 3,
    ),
    "paged: idx_sets are integer sets": (
        PAGED.format(set="affine_map<(d0) -> (d0)>", addr="%c0"), "idx_sets should be IntegerSetAttrs", 3,
    ),
    "paged: idx_sets are boxes": (
        PAGED.format(set="affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, -d0 - d1 + 63 >= 0)>", addr="%c0"),
        "idx_set should be hyper rectangular",
        3,
    ),
    "send: a vector or custom vector": (
        "func.func @f(%u: index, %t: tensor<4xf16>) {\n  dataflow.send %u, %t : tensor<4xf16>\n  return\n}",
        "operand #1 must be vector of any type values or Dataflow custom vector type, but got 'tensor<4xf16>'",
        2,
    ),
    "receive: a vector or custom vector": (
        "func.func @f(%u: index) {\n  %d = dataflow.receive %u : f16\n  return\n}",
        "result #0 must be vector of any type values or Dataflow custom vector type, but got 'f16'",
        2,
    ),
    "streaming buffer: a memref": (
        "func.func @f(%u: index, %t: tensor<4xi8>) {\n"
        "  dataflow.implicit_sync_on_streaming_buffer %t, %u, %u : tensor<4xi8>, index, index\n  return\n}",
        "operand #0 must be memref of any type values, but got 'tensor<4xi8>'",
        2,
    ),
    "memory view: a memref": (
        "func.func @f(%u: index) {\n  %v = dataflow.get_logical_memory_view %u, %u "
        "{layout_map = affine_map<(d0) -> (d0)>} : index, index, memref<*xf16>\n  return\n}",
        "result #0 must be memref of any type values, but got 'memref<*xf16>'",
        2,
    ),
    "multicast group fields are I32Attr": (
        "func.func @f(%p: index) {\n  %g = dataflow.create_multicast_group(%p -> ()) "
        "{count = 0 : i64, group_id = 0 : i32, num_consumers = 1 : i32} : index\n  return\n}",
        "attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute",
        2,
    ),
}


@pytest.mark.parametrize("rule", RULES)
def test_verifier_rule(rule: str):
    text, message, line = RULES[rule]
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ir.parse_module(text))
    diagnostic = info.value.diagnostic
    assert message in diagnostic.message
    assert diagnostic.location is not None and diagnostic.location.line == line


@pytest.mark.parametrize(
    "text, message",
    [
        ("func.func private @t(!dataflow.custom_vector<4x4xf16>)", "expected `NxT`"),
        ("func.func private @t(!dataflow.custom<mxint8>)", "expected 'mxfp4', 'mxfp8' or 'mxint4' but got 'mxint8'"),
        ("func.func @f(%u: index, %d: vector<4xf16>) {\n  dataflow.send %u, %d {dir = #dataflow<direction Up>} "
         ": vector<4xf16>\n  return\n}", "Expected `PseudoRandom`, `CounterClockwise`, `Clockwise`, or `BothWays`"),
    ],
    ids=["custom vector is NxT", "three MX short spellings", "four directions"],
)
def test_bad_syntax_is_a_located_error(text: str, message: str):
    with pytest.raises(DiagnosticError) as info:
        ir.parse_module(text)
    assert message in info.value.diagnostic.message
    assert info.value.diagnostic.location is not None
