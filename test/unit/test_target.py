"""The target model (spyre_mlir.target): element widths, the module attribute, target files, and the
target given to the pass manager and the tools (`--target FILE`)."""

from __future__ import annotations

import json

import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    NoneType,
    StringAttr,
)

import spyre_mlir
from spyre_mlir.dialects.spyre import TARGET_ATTR
from spyre_mlir.ir import print_ir
from spyre_mlir.target import SPYRE, Target, TargetError, element_bytes, load_target, set_target, target_of
from spyre_mlir.tools import spyre_opt, spyre_run

# -- element widths -------------------------------------------------------------------------


@pytest.mark.parametrize(("elem", "nbytes"), [
    (IntegerType(1), 1),  # i1 takes a byte
    (IntegerType(8), 1),
    (IntegerType(12), 2),  # rounded up: (12 + 7) // 8
    (Float16Type(), 2),
    (BFloat16Type(), 2),
    (Float32Type(), 4),
    (Float64Type(), 8),
    (IndexType(), 8),
])
def test_element_bytes(elem, nbytes):
    assert element_bytes(elem) == nbytes == SPYRE.element_bytes(elem)


def test_index_bytes_come_from_the_target():
    assert element_bytes(IndexType(), Target(index_bytes=4)) == 4


def test_an_element_type_without_a_width_is_an_error():
    with pytest.raises(TargetError, match="no byte width for element type none"):
        element_bytes(NoneType())


def test_stick_elements_and_alignment():
    assert SPYRE.stick_elements(Float16Type()) == 64 and SPYRE.stick_elements(Float32Type()) == 32
    assert SPYRE.align(1) == 128 and SPYRE.align(128) == 128 and Target(alignment_bytes=64).align(65) == 128


# -- the module attribute -------------------------------------------------------------------


def test_target_of_reads_the_nearest_modules_facts():
    """Inner modules override the facts of outer ones; facts not named keep the outer (or default) value."""
    outer = ModuleOp([])
    inner = ModuleOp([])
    innermost = ModuleOp([])
    inner.body.block.add_op(innermost)
    outer.body.block.add_op(inner)
    set_target(outer, Target(cores=4, lx_bytes=65536))
    set_target(inner, Target(lx_bytes=4096))
    assert target_of(outer) == Target(cores=4, lx_bytes=65536)
    assert target_of(innermost) == target_of(inner) == Target(cores=4, lx_bytes=4096)
    assert target_of(ModuleOp([])) is SPYRE


def test_set_target_records_only_what_differs():
    module = ModuleOp([])
    set_target(module, Target(cores=4))
    assert "module attributes {spyre.target = {cores = 4 : i64}}" in print_ir(module)
    set_target(module, SPYRE)
    assert TARGET_ATTR not in module.attributes


def test_a_bad_attribute_is_a_target_error():
    module = ModuleOp([])
    module.attributes[TARGET_ATTR] = StringAttr("spyre")
    with pytest.raises(TargetError, match="spyre.target must be a dictionary attribute"):
        target_of(module)
    with pytest.raises(TargetError, match="unknown target fact 'corez'"):
        target_of(spyre_mlir.parse("module attributes {spyre.target = {corez = 4 : i64}} {}\n"))


# -- target files ---------------------------------------------------------------------------


def test_load_target(tmp_path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"cores": 4, "lx_bytes": 65536}))
    assert load_target(path) == Target(cores=4, lx_bytes=65536)
    assert load_target(path, base=Target(stick_bytes=64)) == Target(cores=4, lx_bytes=65536, stick_bytes=64)


@pytest.mark.parametrize(("text", "message"), [
    (None, "cannot read target file '{path}': No such file or directory"),
    ('{"cores": ', "{path}:1:11: target file is not JSON"),
    ("[4]", '{path}: a target file is a JSON object of facts, e.g. {{"cores": 4}}'),
    ('{"lx": 4}', "{path}: unknown target fact 'lx' (known: name, cores, lx_bytes"),
    ('{"cores": 0}', "{path}: target fact 'cores' must be positive, not 0"),
    ('{"cores": 2.5}', "{path}: target fact 'cores' must be an integer, not 2.5"),
    ('{"cores": "4"}', "{path}: target fact 'cores' must be a number, not '4'"),
])
def test_load_target_errors_name_the_file(tmp_path, text, message):
    path = tmp_path / "card.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(TargetError) as info:
        load_target(path)
    assert str(info.value).startswith(message.format(path=path))


# -- the pass manager and the tools ---------------------------------------------------------

BIG = """\
func.func @big(%x: index, %y: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<64x64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [64, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<64x64xf32>
  %t = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<64x64xf32> -> !ktdp.access_tile<64x64xindex>
  %a = ktdp.load %t : !ktdp.access_tile<64x64xindex> -> tensor<64x64xf32>
  %e = math.exp %a : tensor<64x64xf32>
  %u = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<64x64xf32> -> !ktdp.access_tile<64x64xindex>
  ktdp.store %e, %u : tensor<64x64xf32>, !ktdp.access_tile<64x64xindex>
  func.return
}
"""
"""A 64x64 f32 exp: 16 KiB each way, one untiled group on Spyre's 2 MiB of LX."""

TILE = "ktdp-extract-compute-groups,spyre-coarse-tile"


def _loops(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "spyre_loop.loop" in line]


def test_the_pass_managers_target_decides_what_is_tiled():
    assert _loops(print_ir(spyre_mlir.PassManager.parse(TILE).run(spyre_mlir.parse(BIG)))) == []
    small = spyre_mlir.PassManager.parse(TILE, target=Target(lx_bytes=8192)).run(spyre_mlir.parse(BIG))
    loops = _loops(print_ir(small))
    assert loops == ["spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {"]
    assert target_of(small) == Target(lx_bytes=8192)
    # The module attribute says the same.
    marked = spyre_mlir.parse("module attributes {spyre.target = {lx_bytes = 8192 : i64}} {\n" + BIG + "}\n")
    assert _loops(print_ir(spyre_mlir.PassManager.parse(TILE).run(marked))) == loops
    # The pass manager's target replaces the module's.
    marked = spyre_mlir.parse("module attributes {spyre.target = {lx_bytes = 8192 : i64}} {\n" + BIG + "}\n")
    assert _loops(print_ir(spyre_mlir.PassManager.parse(TILE, target=SPYRE).run(marked))) == []
    pm = spyre_mlir.PassManager.from_pipeline("ktir-to-bundle{out-dir=unused}", target=Target(lx_bytes=8192))
    assert pm.target == Target(lx_bytes=8192)


def test_a_bad_target_attribute_is_a_located_error():
    module = spyre_mlir.parse("module attributes {spyre.target = {lx_bytes = -1 : i64}} {\n" + BIG + "}\n")
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(TILE).run(module)
    assert info.value.diagnostic.message == "target fact 'lx_bytes' must be positive, not -1"
    assert info.value.diagnostic.location is not None


def test_spyre_opt_target(tmp_path, capsys):
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.json"
    card.write_text('{"lx_bytes": 8192}')
    assert spyre_opt.main([str(kernel), "-p", TILE, "--target", str(card)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("builtin.module attributes {spyre.target = {lx_bytes = 8192 : i64}}")
    assert _loops(out) == ["spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {"]
    assert spyre_opt.main([str(kernel), "-p", TILE]) == 0
    assert _loops(capsys.readouterr().out) == []


@pytest.mark.parametrize(("text", "message"), [
    (None, "spyre-opt: error: cannot read target file '{path}': No such file or directory"),
    ('{"lx_bytes": ', "spyre-opt: error: {path}:1:14: target file is not JSON: Expecting value"),
    ('{"lx_bytes": 0}', "spyre-opt: error: {path}: target fact 'lx_bytes' must be positive, not 0"),
])
def test_spyre_opt_bad_target_file(tmp_path, capsys, text, message):
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.json"
    if text is not None:
        card.write_text(text)
    assert spyre_opt.main([str(kernel), "-p", TILE, "--target", str(card), "-o", str(tmp_path / "out.mlir")]) == 1
    err = capsys.readouterr().err
    assert err == message.format(path=card) + "\n"
    assert not (tmp_path / "out.mlir").exists()


def test_spyre_opt_bad_target_attribute_is_located(tmp_path, capsys):
    kernel = tmp_path / "big.mlir"
    kernel.write_text("module attributes {spyre.target = {cores = 0 : i64}} {\n" + BIG + "}\n")
    assert spyre_opt.main([str(kernel), "-p", TILE]) == 1
    assert capsys.readouterr().err.startswith(f"{kernel}:1:1: error: target fact 'cores' must be positive, not 0")


SCALE = """\
func.func @scale(%x: index, %y: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %t = ktdp.construct_access_tile %xv[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %a = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [64], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %u = ktdp.construct_access_tile %yv[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  ktdp.store %a, %u : tensor<64xf32>, !ktdp.access_tile<64xindex>
  func.return
}
"""
"""Holds one 64-element f32 tensor (256 bytes) in LX."""


def _spyre_run(tmp_path, capsys, text: str, *extra: str) -> tuple[int, str, str]:
    kernel = tmp_path / "k.mlir"
    kernel.write_text(text)
    code = spyre_run.main([str(kernel), "--arg", "x=random:64xf32", "--arg", "y=zeros:64xf32", "--check-lx", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_spyre_run_lx_limit_defaults_to_the_target(tmp_path, capsys):
    card = tmp_path / "card.json"
    card.write_text('{"lx_bytes": 128}')
    assert _spyre_run(tmp_path, capsys, SCALE)[0] == 0
    code, _, err = _spyre_run(tmp_path, capsys, SCALE, "--target", str(card))
    assert code == 1 and "exceeds the 128-byte scratchpad" in err
    marked = "module attributes {spyre.target = {lx_bytes = 128 : i64}} {\n" + SCALE + "}\n"
    code, _, err = _spyre_run(tmp_path, capsys, marked)
    assert code == 1 and "exceeds the 128-byte scratchpad" in err
    assert _spyre_run(tmp_path, capsys, marked, "--lx-limit", "1KiB")[0] == 0  # the option wins


def test_spyre_run_bad_target(tmp_path, capsys):
    card = tmp_path / "card.json"
    card.write_text('{"lx_bytes": "big"}')
    code, _, err = _spyre_run(tmp_path, capsys, SCALE, "--target", str(card))
    assert (code, err) == (1, f"spyre-run: error: bad --target: {card}: target fact 'lx_bytes' must be a number, not 'big'\n")
    code, _, err = _spyre_run(tmp_path, capsys, "module attributes {spyre.target = {cores = 0 : i64}} {\n" + SCALE + "}\n")
    assert code == 1 and err.startswith(f"{tmp_path / 'k.mlir'}:1:1: error: target fact 'cores' must be positive, not 0")


def test_the_compile_cache_keys_on_the_target(tmp_path, capsys):
    """A cached output for one target is not reused for another."""
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.json"
    card.write_text('{"lx_bytes": 8192}')
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert spyre_opt.main([str(kernel), "-p", TILE, *cache]) == 0
    assert _loops(capsys.readouterr().out) == []
    assert spyre_opt.main([str(kernel), "-p", TILE, "--target", str(card), *cache]) == 0
    assert _loops(capsys.readouterr().out) == ["spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {"]
