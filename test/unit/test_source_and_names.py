"""Reading sources and keeping names: what users write is what we read and print.

- SSA names are kept exactly (`%a_1` stays `a_1`), and printing never gives
  two values one name.
- `read_source`: an existing file's name is never text; a `Path` is always a path.
- Empty or comment-only input is an empty module, as in mlir-opt.
- Bytes that are not UTF-8 in a string attribute are kept and printed as
  `\\XX` escapes, from a file and from stdin alike, as MLIR prints them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import spyre_mlir
from spyre_mlir import ir

BIN = Path(sys.executable).parent


def test_ssa_names_are_kept_exactly():
    m = spyre_mlir.parse("func.func @f(%a_1: index, %a_2: index, %b_07: index) {\n  func.return\n}\n")
    args = m.body.block.first_op.body.block.args
    assert [a.name_hint for a in args] == ["a_1", "a_2", "b_07"]
    assert "@f(%a_1: index, %a_2: index, %b_07: index)" in ir.print_ir(m)


def test_printing_never_gives_two_values_one_name():
    m = spyre_mlir.parse(
        "func.func @f(%a_1: i32, %x: i32) -> i32 {\n"
        "  %a = arith.addi %x, %a_1 : i32\n"
        "  func.return %a : i32\n"
        "}\n"
    )
    body = m.body.block.first_op.body.block
    add = body.first_op
    for _ in range(3):  # clones keep the hint `a`
        body.insert_op_before(add.clone(), add)
    text = ir.print_ir(m)
    for printed in (text, str(m)):
        again = spyre_mlir.parse(printed)  # a duplicate name would not parse
        assert ir.print_ir(again) == text


def test_an_existing_file_is_never_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kernel = "func.func @f() {\n  func.return\n}\n"
    for name in ("k(1).mlir", "k{x}.mlir", "module {}"):
        Path(name).write_text(kernel)
        text, source = ir.read_source(name)
        assert (text, source) == (kernel, name)
    assert ir.read_source(Path("k(1).mlir"))[1] == "k(1).mlir"
    with pytest.raises(FileNotFoundError):
        ir.read_source(Path("missing{x}.mlir"))  # a Path is never text
    assert ir.read_source("func.func @g() {}")[1] == "<string>"  # no such file: text


@pytest.mark.parametrize("text", ["", "\n\n", "// only a comment\n", "  // one\n// two"])
def test_empty_input_is_an_empty_module(text):
    m = spyre_mlir.parse(text if text.strip() else text + "\n")
    assert list(m.body.block.ops) == []
    assert ir.print_ir(m) == "module {\n}\n"


RAW = b'func.func @f() attributes {s = "a\xffb\\41 \xfe"} {\n  func.return\n}\n'


def test_bytes_that_are_not_utf8_are_kept(tmp_path):
    f = tmp_path / "raw.mlir"
    f.write_bytes(RAW)
    m = spyre_mlir.parse(f)
    assert m.body.block.first_op.attributes["s"].data == b"a\xffbA \xfe"
    assert 's = "a\\FFbA \\FE"' in ir.print_ir(m)


def test_bytes_that_are_not_utf8_from_a_file_and_stdin_alike(tmp_path):
    f = tmp_path / "raw.mlir"
    f.write_bytes(RAW)
    opt = str(BIN / "spyre-opt")
    from_file = subprocess.run([opt, str(f)], capture_output=True, timeout=60)
    from_stdin = subprocess.run([opt, "-"], input=RAW, capture_output=True, timeout=60)
    assert from_file.returncode == from_stdin.returncode == 0, from_file.stderr + from_stdin.stderr
    assert from_file.stdout == from_stdin.stdout
    assert b'"a\\FFbA \\FE"' in from_file.stdout
    iree = BIN / "iree-opt"
    if not iree.exists() and shutil.which("iree-opt") is None:
        pytest.skip("iree-opt not installed")
    upstream = subprocess.run([str(iree) if iree.exists() else "iree-opt", str(f)], capture_output=True, timeout=60)
    assert upstream.returncode == 0, upstream.stderr
    assert b'"a\\FFbA \\FE"' in upstream.stdout  # MLIR prints the same escapes


def test_a_located_error_shows_raw_bytes_as_escapes(tmp_path):
    f = tmp_path / "raw.mlir"
    f.write_bytes(b'func.func @f() attributes {s = "\xff"} {\n  func.return %x\n}\n')
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(f)
    rendered = info.value.diagnostic.render({str(f): f.read_bytes().decode("utf-8", "surrogateescape")})
    rendered.encode("utf-8")  # printable


def test_a_missing_file_is_a_diagnostic_naming_the_rule():
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse("func.func @unsupported")
    assert "cannot read 'func.func @unsupported'" in info.value.diagnostic.message
    assert "is a file name" in info.value.diagnostic.message


def test_the_api_parses_deeply_nested_regions():
    n = 2000
    text = "func.func @f(%c: i1) {\n" + "scf.if %c {\n" * n + "}\n" * n + "func.return\n}\n"
    module = spyre_mlir.parse(text)
    from spyre_mlir.deep import call_deep

    ifs = call_deep(lambda: sum(op.name == "scf.if" for op in module.walk()))  # xDSL's walk recurses too
    assert ifs == n


def test_a_parse_error_always_says_what_was_found():
    # xDSL reports only " in block definition" for a function cut off after a block.
    text = "func.func @f() {\n  func.return\n  ^bb1:\n"
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(text)
    message = info.value.diagnostic.message
    assert message.strip() == message and message
    assert not message.startswith("in ")


def test_warnings_emitted_on_the_deep_stack_reach_the_collector():
    """call_deep runs its work in a copy of the caller's context: a pass's
    warnings reach `collect()` through `PassManager.run` too."""
    from spyre_mlir.deep import call_deep
    from spyre_mlir.diagnostics import collect, warning

    with collect() as seen:
        call_deep(warning, None, "from the deep stack")
    assert [d.message for d in seen] == ["from the deep stack"]
