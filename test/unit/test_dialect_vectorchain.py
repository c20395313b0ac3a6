"""The vectorchain dialect (dialects/vectorchain.py) against dataflow-scheduler's
VectorChain.td: every op and enum case of the .td, its syntax, its verifiers
(the lit tests test/lit/dialects/vectorchain/ hold one case per rule)."""

from __future__ import annotations

import re

import pytest
from conftest import SHARED

from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects import vectorchain

TD = SHARED / "corpus/dataflow-scheduler/dialects/VectorChain"
needs_td = pytest.mark.skipif(not TD.is_dir(), reason="../shared/corpus/dataflow-scheduler not present")


def _round_trip(text: str) -> str:
    module = ir.parse_module(text, "vc.mlir")
    ir.verify(module)
    printed = ir.print_ir(module)
    assert ir.print_ir(ir.parse_module(printed)) == printed
    generic = ir.print_ir(module, generic=True)
    assert ir.print_ir(ir.parse_module(generic)) == printed
    return printed


@needs_td
def test_every_op_of_the_td_is_defined():
    td = (TD / "VectorChain.td").read_text()
    names = set(re.findall(r'def VectorChain_\w+\s*:\s*VectorChain_Op<"(\w+)"', td))
    assert len(names) == 23
    assert {op.name for op in vectorchain.VECTORCHAIN.operations} == {f"vectorchain.{n}" for n in names}


@needs_td
def test_every_enum_case_of_the_td_is_defined():
    td = (TD / "VectorChainEnums.td").read_text()
    cases = set(re.findall(r'I32EnumAttrCase<"(\w+)"', td))
    ours = {
        case.value
        for attr in vectorchain.VECTORCHAIN.attributes
        for case in attr.enum_type  # pyright: ignore[reportAttributeAccessIssue]
    }
    assert ours == cases
    names = {a.name for a in vectorchain.VECTORCHAIN.attributes}
    mnemonics = set(re.findall(r'EnumAttr<VectorChain_Dialect, \w+, "(\w+)">', (TD / "VectorChain.td").read_text()))
    assert names == {f"vectorchain.{m}" for m in mnemonics}


FORMS = {
    # op: its custom form (the .td's assemblyFormat), printed back as is
    "select": "%0 = vectorchain.select %a {selection_map = #map} : vector<64xf16>, vector<64xf16>",
    "multiply masked": "%0 = vectorchain.multiply %a, %b[%m : vector<64xi1>] {reduction_map = #map} : vector<64xf16>, vector<64xf16>, vector<64xf16>",
    "binary on a custom vector": (
        "%0 = vectorchain.binary %a, %c {binary_op = #vectorchain.binary_operator<mul_div2>, dbgName = \"x\", "
        "op_specific_map = #map} : vector<64xf16>, !dataflow.custom_vector<64xf16>, vector<64xf16>"
    ),
    "selection": "%0 = vectorchain.element_wise_selection %m ? %a : %b : vector<64xi1>, vector<64xf16>, vector<64xf16>, vector<64xf16>",
    "mask without parameter": "%0 = vectorchain.create_affine_mask {mask_set = #set} : vector<64xi1>",
    "rotate left": "%0 = vectorchain.rotate %a, %i {right_shift = false} : vector<64xf16>, index, vector<64xf16>",
    "shuffle with every group": (
        "%0 = vectorchain.shuffle input(%a), variable(%i, %f), pad(%p), mask(%m) {indices = [-1, -2, -3, 63], "
        "repetition = 16 : i32} : vector<64xf16>, index, f32, f16, vector<64xi1>, vector<64xf16>"
    ),
    "bitstream in hex": "%0 = vectorchain.constant_bitstream {value = [0x1, 0xFF]} : vector<2xi8>",
}

HEADER = (
    "#map = affine_map<(d0) -> (d0)>\n#set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>\n"
    "func.func @f(%a: vector<64xf16>, %b: vector<64xf16>, %c: !dataflow.custom_vector<64xf16>, %m: vector<64xi1>, "
    "%i: index, %f: f32, %p: f16) {{\n  {op}\n  func.return\n}}\n"
)


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_custom_forms_print_back_unchanged(form):
    printed = _round_trip(HEADER.format(op=form))
    assert form in printed


def test_default_valued_attributes_are_elided():
    printed = _round_trip(HEADER.format(op="%0 = vectorchain.rotate %a, %i {right_shift = true} : vector<64xf16>, index, vector<64xf16>"))
    assert "vectorchain.rotate %a, %i : vector<64xf16>" in printed
    op = next(o for o in ir.parse_module(printed).walk() if isinstance(o, vectorchain.RotateOp))
    assert op.right_shift.value.data != 0  # true


def test_decimal_bitstream_values_print_in_hex():
    printed = _round_trip(HEADER.format(op="%0 = vectorchain.constant_bitstream {value = [10, 255]} : vector<2xi8>"))
    assert "{value = [0xA, 0xFF]}" in printed


def test_symbolic_bitstream_keeps_its_values():
    form = "%0 = vectorchain.constant_bitstream {is_symbol = true, value = [7, 300]} : vector<2xi8>"
    assert form in _round_trip(HEADER.format(op=form))  # no width check when the values are symbols


# The .td's description examples, verbatim: none is valid MLIR (a stray quote,
# `{#map}` for an attribute, parentheses the format has not, `indices:` for
# `indices =`, a vector where a scalar operand is allowed), so each is refused
# with a located error; the forms above are the ones the assembly formats define.
DESCRIPTION_EXAMPLES = {
    "select": "%data = vectorchain.select %data {selection_map} : vector<4xi8>, vector<128xi8>",
    "multiply": '%data = vectorchain.multiply"(%op1, %op2) [%mask] {#reduction_map}\n    : vector<128xi8>, vector<128xi8>, vector<64xi8>',
    "binary": '%data = vectorchain.binary"(%op1, %op2) [%mask] {#op_specific_map}\n    : vector<128xi8>, vector<128xi8>, vector<128xi8>',
    "multiply_and_accumulate": (
        "%data = vectorchain.multiply_and_accumulate(%op1, %op2, %op3) [%mask] {#reduction_map}\n"
        "    : vector<128xi8>, vector<128xi8>, vector<256xi8>, vector<64xi8>"
    ),
    "shuffle": (
        "%0 = vectorchain.shuffle input(%inp), variable(%arg0, %arg1, %arg2), pad(%c0)\n"
        "    { indices: [-1 : i32, -2 : i32, -3 : i32, -4 : i32], repetition = 16 : i32 } :\n"
        "    vector<64xf16>, vector<3xindex>, index, vector<64xf16>"
    ),
}


@needs_td
@pytest.mark.parametrize("name", DESCRIPTION_EXAMPLES)
def test_description_examples_are_refused_at_their_line(name):
    example = DESCRIPTION_EXAMPLES[name]
    assert example.split("\n")[0].strip() in (TD / "VectorChain.td").read_text()
    text = (
        "func.func @f(%data: vector<4xi8>, %op1: vector<128xi8>, %op2: vector<128xi8>, %op3: vector<256xi8>, "
        f"%mask: vector<128xi1>, %inp: vector<64xf16>, %arg0: index, %arg1: index, %arg2: index, %c0: index) {{\n{example}\n  return\n}}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        ir.verify(ir.parse_module(text, "example.mlir"))
    assert re.match(r"example\.mlir:[2-4]:\d+: error: ", info.value.diagnostic.render())


def test_the_shuffle_example_corrected_is_accepted():
    text = (
        "func.func @f(%inp: vector<64xf16>, %arg0: index, %arg1: index, %arg2: index, %c0: index) {\n"
        "  %0 = vectorchain.shuffle input(%inp), variable(%arg0, %arg1, %arg2), pad(%c0)\n"
        "    { indices = [-1 : i32, -2 : i32, -3 : i32, -4 : i32], repetition = 16 : i32 } :\n"
        "    vector<64xf16>, index, index, index, index, vector<64xf16>\n  return\n}\n"
    )
    assert "variable(%arg0, %arg1, %arg2), pad(%c0) {indices = [-1 : i32" in _round_trip(text)


def test_vectorchain_is_a_lowering_dialect():
    assert "vectorchain" in ir.LOWERING_DIALECTS
