"""The agen dialect (dialects/agen.py) against dataflow-scheduler's Agen.td: every
op and enum case, the .td's description examples, subscripts as affine maps of
SSA names, the forms Agen.cpp reads and prints (the lit tests
test/lit/dialects/agen/ hold one case per verifier rule)."""

from __future__ import annotations

import re

import pytest
from conftest import SHARED
from xdsl.ir.affine import AffineMap

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects import agen

TD = SHARED / "corpus/dataflow-scheduler/dialects/Agen"
needs_td = pytest.mark.skipif(not TD.is_dir(), reason="../shared/corpus/dataflow-scheduler not present")


def _round_trip(text: str) -> str:
    module = ir.parse_module(text, "agen.mlir")
    ir.verify(module)
    printed = ir.print_ir(module)
    assert ir.print_ir(ir.parse_module(printed)) == printed
    assert ir.print_ir(ir.parse_module(ir.print_ir(module, generic=True))) == printed
    return printed


def _description_example(op: str) -> str:
    """The ```mlir block of `op`'s description in Agen.td, verbatim."""
    td = (TD / "Agen.td").read_text()
    start = td.index(f'Agen_Op<"{op}"')
    block = re.search(r"```mlir\n(.*?)```", td[start:], re.S)
    assert block is not None
    return block.group(1)


@needs_td
def test_every_op_of_the_td_is_defined():
    names = set(re.findall(r'Agen_Op<"(\w+)"', (TD / "Agen.td").read_text()))
    assert len(names) == 15
    assert {op.name for op in agen.AGEN.operations} == {f"agen.{n}" for n in names}


@needs_td
def test_every_direction_of_the_td_is_defined():
    cases = re.findall(r'I32EnumAttrCase<"(\w+)", (\d)>', (TD / "AgenEnums.td").read_text())
    assert [c.value for c in agen.AgenRoutingDirection] == [name for name, _ in sorted(cases, key=lambda c: c[1])]
    assert '"direction"' in (TD / "Agen.td").read_text() and agen.AgenRoutingDirectionAttr.name == "agen.direction"


@needs_td
@pytest.mark.parametrize("op", ["vector_load", "vector_store"])
def test_the_description_examples_read_verbatim(op):
    example = _description_example(op)
    data = "" if op == "vector_load" else ", %data: vector<8xi8>"  # the load defines %data
    text = f"func.func @f(%l1_view: memref<8x16xi8>{data}) {{\n{example}  return\n}}\n"
    printed = _round_trip(text)
    assert f"agen.{op} " in printed and "%l1_view[0, 0]" in printed


@needs_td
def test_the_composite_example_is_an_outline_not_ir():
    # `...}` and a region holding only a comment: the description sketches the form.
    example = _description_example("composite_load_and_store")
    assert "load_time_addr_map = affine_map<(t0) -> (0, t0)>, ...}" in example
    text = f"func.func @f(%src: memref<8x16xi8>, %dst: memref<8x16xi8>) {{\n{example}  return\n}}\n"
    with pytest.raises(DiagnosticError) as info:
        ir.parse_module(text, "example.mlir")
    assert info.value.diagnostic.render().startswith("example.mlir:")


def _load(subscripts: str) -> agen.VectorLoadOp:
    text = (
        "func.func @f(%m: memref<8x16xi8>, %i: index, %j: index, %n: index) {\n"
        f"  %v = agen.vector_load %m{subscripts} {{load_order = affine_map<(d0, d1) -> (d1, d0)>, "
        "load_set = affine_set<(d0, d1) : (d0 >= 0, d1 == 0)>} : memref<8x16xi8>, vector<8xi8>\n  return\n}\n"
    )
    module = ir.parse_module(text)
    ir.verify(module)
    return next(op for op in module.walk() if isinstance(op, agen.VectorLoadOp))


def test_subscripts_are_an_affine_map_of_ssa_names():
    op = _load("[%i + %j * 4, symbol(%n) - 1]")
    # distinct names are dims in order of appearance, symbol(...) a symbol, as MLIR's parseAffineMapOfSSAIds
    assert op.affine_map.data == AffineMap.from_callable(lambda d0, d1, s0: (d0 + d1 * 4, s0 - 1), dim_symbol_split=(2, 1))
    assert [o.name_hint for o in op.map_operands] == ["i", "j", "n"]


def test_a_name_used_twice_is_one_dim():
    op = _load("[%i, %i + 1]")
    assert op.affine_map.data.num_dims == 1 and len(op.map_operands) == 1


def test_generic_form_keeps_the_map_and_segments():
    printed = ir.print_ir(ir.parse_module(
        "func.func @f(%m: memref<8x16xi8>, %i: index, %c: index) {\n"
        "  %v = agen.vector_load %m[%i, 0] multicast_info = %c {load_order = affine_map<(d0, d1) -> (d1, d0)>, "
        "load_set = affine_set<(d0, d1) : (d0 >= 0, d1 == 0)>} : memref<8x16xi8>, vector<8xi8>\n  return\n}\n"
    ), generic=True)
    alias = re.search(r"^(#map\d*) = affine_map<\(d0\) -> \(d0, 0\)>$", printed, re.M)
    assert alias is not None and f"affine_map = {alias.group(1)}," in printed
    assert "operandSegmentSizes = array<i32: 1, 1, 1>" in printed


MASK = (
    '%mask = agen.set_transfer_mask_state mask_value(%c0) {{ num_slices = 8 : i32, slice_mask_map = "(A)(A)(A)(A)(A)(A|B)(1)(1)", '
    'maskA = "(unmasked = 6 : i32, masked = 2 : i32)", maskB = "(unmasked = 1 : i32, masked = 1 : i32)"{extra} }} : index, vector<64xf16>'
)


def test_mask_strings_become_the_element_counts_and_print_back():
    text = f"func.func @f(%c0: index) {{\n  {MASK.format(extra='')}\n  return\n}}\n"
    printed = _round_trip(text)
    assert 'maskA = "(unmasked = 6, masked = 2)", maskB = "(unmasked = 1, masked = 1)" } :  index , vector<64xf16>' in printed
    op = next(o for o in ir.parse_module(text).walk() if isinstance(o, agen.SetTransferMaskStateOp))
    assert [a.value.data for a in op.num_unmasked_elements.data] == [6, 1]  # pyright: ignore
    assert [a.value.data for a in op.num_masked_elements.data] == [2, 1]  # pyright: ignore


def test_the_debug_name_of_a_mask_state_is_kept():
    # Upstream's printer drops it; it is printed after the masks here.
    op = MASK.format(extra=', dbgName = "m"')
    printed = _round_trip(f"func.func @f(%c0: index) {{\n  {op}\n  return\n}}\n")
    assert ', dbgName = "m" }' in printed


@needs_td
def test_the_mask_state_example_names_an_operand_the_td_has_not():
    td = (TD / "Agen.td").read_text()
    assert "mask_unit(%l1lu_c0)" in td and "mask_unit" not in td.split("let arguments", td.count("let arguments"))[-1]
    with pytest.raises(DiagnosticError) as info:
        ir.parse_module(
            "func.func @f(%l1lu_c0: index, %c0: index) {\n"
            "  %mask = agen.set_transfer_mask_state mask_unit(%l1lu_c0) mask_value(%c0) { num_slices = 8 : i32 } :\n"
            "    index, index : vector<64xf16>\n  return\n}\n",
            "example.mlir",
        )
    assert info.value.diagnostic.render().startswith("example.mlir:2:")


def test_the_input_vector_store_gets_the_identity_order():
    text = (
        "#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>\n"
        "func.func @f(%m: memref<8x16xi8>, %d: vector<8xi8>) {\n"
        "  agen.composite_store %m[0, 0] input_vector=%d time_symbols() {time_addr_map = affine_map<(t0) -> (0, t0)>, "
        "time_order = affine_map<(t0) -> (t0)>, time_set = #t} : memref<8x16xi8> , vector<8xi8>\n  return\n}\n"
    )
    printed = _round_trip(text)
    assert "input_vector=%d time_symbols()" in printed and "store_order" not in printed
    op = next(o for o in ir.parse_module(text).walk() if isinstance(o, agen.CompositeStoreOp))
    assert op.store_order is not None and op.store_order.data == AffineMap.identity(2)


def test_a_composite_region_gets_its_implicit_yield():
    text = (
        "func.func @f() {\n  agen.composite_memory_interleave {} {\n  }\n  return\n}\n"
    )
    module = ir.parse_module(text)
    ir.verify(module)
    interleave = next(o for o in module.walk() if isinstance(o, agen.CompositeMemoryInterleaveOp))
    assert isinstance(interleave.region.block.last_op, agen.YieldOp)
    assert "agen.yield" not in ir.print_ir(module)  # printed without its terminator, as upstream


def test_agen_is_a_lowering_dialect():
    assert "agen" in ir.LOWERING_DIALECTS
