"""torch-spyre's bundles (../shared/corpus/torch-spyre-bundles/*/bundle.mlir),
read unchanged by our `sdscbundle` dialect (dialects/sdscbundle.py).

Each file is parsed as written (tabs, `"symbol_ids"=[...]`), verified and
printed; the print reads back to the same print. What the file says (its ops,
each execute's operands, file and symbol ids) is compared with the raw text,
not with our own reading of it. The generic form reads in upstream MLIR
(`iree-opt --allow-unregistered-dialect`) and comes back the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SHARED, find_iree_opt, upstream_parse
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, f32, i64
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from spyre_mlir import ir
from spyre_mlir.dialects.sdscbundle import InputArgExtractOp, InputArgType, SdscExecuteOp

BUNDLES = sorted((SHARED / "corpus" / "torch-spyre-bundles").glob("*/bundle.mlir"))
IREE_OPT = find_iree_opt()


def bundle_params():
    if not BUNDLES:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/torch-spyre-bundles not present"))]
    return [pytest.param(path, id=path.parent.name) for path in BUNDLES]


# What the raw text says, read with regular expressions (not with our parser).
_EXECUTE = re.compile(
    r"sdscbundle\.sdsc_execute \(([^)]*)\) \{sdsc_filename=\"([^\"]*)\", \"symbol_ids\"=\[([^\]]*)\]\}"
)
_EXTRACT = re.compile(
    r"%(\w+) = sdscbundle\.input_arg_extract value from %(\w+) : !sdscbundle\.input_arg<index> -> index"
)
_ARGUMENT = re.compile(r"%(\w+): !sdscbundle\.input_arg<index>")


def executes_in_text(text: str) -> list[tuple[list[str], str, list[int]]]:
    """(operand names, sdsc_filename, symbol ids) of each sdsc_execute of `text`, in order."""
    assert text.count("sdscbundle.sdsc_execute") == len(_EXECUTE.findall(text)), "an execute the pattern misses"
    return [
        (re.findall(r"%(\w+)", operands), filename, [int(i) for i in ids.split(",") if i.strip()])
        for operands, filename, ids in _EXECUTE.findall(text)
    ]


def executes_in_module(module) -> list[tuple[list[str], str, list[int] | None]]:
    return [
        ([value.name_hint for value in op.args], op.filename, op.symbol_ids)
        for op in module.walk()
        if isinstance(op, SdscExecuteOp)
    ]


def extracts_in_module(module) -> list[tuple[str, str]]:
    return [(op.result.name_hint, op.input.name_hint) for op in module.walk() if isinstance(op, InputArgExtractOp)]


def read(text: str, name: str):
    module = ir.parse_module(text, name)
    ir.verify(module)
    return module


@pytest.mark.parametrize("path", bundle_params())
def test_bundle_reads_and_prints_to_a_fixed_point(path: Path):
    module = read(path.read_text(), str(path))
    printed = ir.print_ir(module)
    again = ir.print_ir(read(printed, "<printed>"))
    assert again == printed


@pytest.mark.parametrize("path", bundle_params())
def test_bundle_keeps_what_the_file_says(path: Path):
    text = path.read_text()
    expected = executes_in_text(text)
    assert expected and any(ids for _, _, ids in expected)
    module = read(text, str(path))
    (bundle,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    arguments = _ARGUMENT.findall(text)
    assert [arg.name_hint for arg in bundle.args] == arguments
    assert all(arg.type == InputArgType(IndexType()) for arg in bundle.args)
    assert extracts_in_module(module) == _EXTRACT.findall(text)
    assert executes_in_module(module) == expected
    # ... and so does our print of it, read back.
    back = read(ir.print_ir(module), "<printed>")
    assert executes_in_module(back) == expected
    assert extracts_in_module(back) == _EXTRACT.findall(text)


def _shape(module) -> list[tuple]:
    """Each op's name, attributes and operand and result types (not SSA names: real MLIR renumbers them)."""
    return [
        (op.name, dict(op.attributes), [v.type for v in op.operands], [r.type for r in op.results])
        for op in module.walk()
    ]


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")
@pytest.mark.parametrize("path", bundle_params())
def test_generic_form_reads_in_upstream_mlir(path: Path):
    module = read(path.read_text(), str(path))
    for text in (ir.print_ir(module, generic_dialects=tuple(ir.SPYRE_DIALECTS)), ir.print_ir(module, generic=True)):
        back = read(upstream_parse(text), "<iree-opt>")
        assert _shape(back) == _shape(module)
        assert [ids for _, _, ids in executes_in_module(back)] == [
            ids for _, _, ids in executes_in_text(path.read_text())
        ]


# -- the ops built in Python ---------------------------------------------------


def test_execute_built_with_symbol_ids_is_the_one_read():
    a, b = create_ssa_value(IndexType()), create_ssa_value(IndexType())
    op = SdscExecuteOp([a, b], "sdsc_0.json", [-1, -2])
    op.verify()
    assert op.symbol_ids == [-1, -2] and op.filename == "sdsc_0.json"
    text = """func.func @f(%a: index) {
  sdscbundle.sdsc_execute (%a, %a) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2]}
  func.return
}"""
    (parsed,) = [op for op in read(text, "<text>").walk() if isinstance(op, SdscExecuteOp)]
    assert parsed.attributes == op.attributes


def test_execute_built_without_symbol_ids_takes_scalars():
    op = SdscExecuteOp([create_ssa_value(IndexType()), create_ssa_value(f32)], "sdsc_0.json")
    op.verify()
    assert op.symbol_ids is None and "symbol_ids" not in op.attributes


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ([-1], "symbol_ids has 1 entries for 2 operands"),
        ([-1, 0], "symbol id #1 must be negative"),
        ([-3, -3], "symbol id -3 is given twice (#0 and #1)"),
    ],
)
def test_execute_refuses_bad_symbol_ids(ids, message):
    op = SdscExecuteOp([create_ssa_value(IndexType()), create_ssa_value(IndexType())], "sdsc_0.json", ids)
    with pytest.raises(VerifyException, match=re.escape(message)):
        op.verify()


def test_execute_with_symbol_ids_takes_only_index_operands():
    op = SdscExecuteOp([create_ssa_value(IndexType()), create_ssa_value(f32)], "sdsc_0.json", [-1, -2])
    with pytest.raises(VerifyException, match=re.escape("operand #1 must be an index (a start address)")):
        op.verify()


def test_extract_gives_the_type_the_input_arg_holds():
    op = InputArgExtractOp(create_ssa_value(InputArgType(i64)))
    op.verify()
    assert op.result.type == i64
