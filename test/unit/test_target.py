"""The target model (spyre_mlir.target): element widths, the module attribute, target files, and the
target given to the pass manager and the tools (`--target FILE`)."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED
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
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.spyre import TARGET_ATTR
from spyre_mlir.ir import print_ir
from spyre_mlir.target import (
    DEVICE_STATED_FACTS,
    SPYRE,
    SPYRE_DEVICE_FILE,
    DeviceFactError,
    Target,
    TargetError,
    device_facts,
    device_of,
    device_target,
    element_bytes,
    load_target,
    set_target,
    target_of,
)
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
    assert "module attributes {spyre.target = {lx_bytes = 8192 : i64}}" in out
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


# -- a ktdf_arch.device as the target (docs/target.md) ------------------------------------------

SAMPLE_DEVICE = SHARED / "corpus" / "dataflow-scheduler" / "test" / "Dialect" / "KTDFArch" / "sample_device.mlir"


def _device(lx: int = 8192, cores: int = 2, *, mapping: bool = True, name: str = "card", granularity: int = 64) -> str:
    """A device of `cores` core groups, each with its own LX of `lx` bytes, DMA units for HBM and a PT unit."""
    attrs = (' attributes {mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<global> = "HBM", '
             '#ktdp.memory_space<ct_local> = "LX">}') if mapping else ""
    load = ('{ktdf_arch.features = {ktdf_arch.feature.load = {word_size = #ktdf_arch.map<"HBM" = 32>, '
            'access_granularity = #ktdf_arch.map<"HBM" = [{size_in_words = 1, align_in_words = 2}]>}}}')
    core = (
        '  group {kind = "core"} share(%hbm) {\n'
        f'    %lx = memory {{kind = "LX", size = {lx}}}\n'
        f'    %dma = exec_unit {load}\n'
        '    %pt = exec_unit {ktdf_arch.features = {ktdf_arch.feature.compute, '
        'ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<f16 = 32>}}}\n'
        f'    datapath {{ktdf_arch.transfer_granularity = array<i64: {granularity}>}} %hbm to %dma : memory, exec_unit\n'
        '    datapath %dma to %lx : exec_unit, memory\n'
        '    datapath %lx to %pt : memory, exec_unit\n'
        '  }\n'
    )
    return f'ktdf_arch.device @{name}{attrs} {{\n  %hbm = memory {{kind = "HBM"}}\n' + core * cores + "}\n"


def test_spyre_is_the_default_device_file():
    """SPYRE (the facts in target.py) and the default device (data) say the same, fact for fact."""
    assert SPYRE_DEVICE_FILE.is_file()
    assert device_target(SPYRE_DEVICE_FILE) == SPYRE
    assert device_target(SPYRE_DEVICE_FILE).stated == {
        "name", "cores", "lx_bytes", "stick_bytes", "alignment_bytes", "simd_elements_per_cycle"}


def test_what_a_device_sets():
    module = spyre_mlir.parse(_device(lx=8192, cores=3, granularity=64))
    assert device_facts(device_of(module)) == {
        "name": "card", "cores": 3, "lx_bytes": 8192, "stick_bytes": 64,
        "alignment_bytes": 64,  # word_size 32 x align_in_words 2
        "simd_elements_per_cycle": 32,
    }
    assert target_of(module) == SPYRE.replace(name="card", cores=3, lx_bytes=8192, stick_bytes=64,
                                              alignment_bytes=64, simd_elements_per_cycle=32)
    # Without mem_space_mapping: the core-local memory is the one kind declared in the top-level groups.
    assert target_of(spyre_mlir.parse(_device(mapping=False))).lx_bytes == 8192


@pytest.mark.skipif(not SAMPLE_DEVICE.is_file(), reason="../shared/corpus/dataflow-scheduler not present")
def test_their_sample_device():
    """dataflow-scheduler's sample device: one core, 1 MiB of L1, 64-byte DMA transfers."""
    assert device_target(SAMPLE_DEVICE) == SPYRE.replace(
        name="sample_device", cores=1, lx_bytes=1048576, stick_bytes=64, alignment_bytes=64, simd_elements_per_cycle=64)


@pytest.mark.parametrize(("text", "message"), [
    (_device().replace('%lx = memory {kind = "LX", size = 8192}', '%lx = memory {kind = "LX"}'),
     "the core-local memory (kind \"LX\") has no 'size': it sets lx_bytes"),
    (_device(cores=1) + "", None),
    (_device(cores=2).replace('size = 8192}', 'size = 4096}', 1),
     'the core-local memories (kind "LX") differ in size (4096, 8192, or none): one lx_bytes'),
    (_device(mapping=False).replace('%pt = exec_unit', '%reg = memory {kind = "REG"}\n    %pt = exec_unit'),
     'the top-level groups declare memories of several kinds ("LX", "REG"): name the core-local one with '
     'mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<ct_local> = KIND>'),
    (_device().replace('#ktdp.memory_space<ct_local> = "LX"', '#ktdp.memory_space<ct_local> = "L1"'),
     'mem_space_mapping maps #ktdp.memory_space<ct_local> to kind "L1", but no memory of the device has that kind'),
    (_device().replace('array<i64: 64>', 'array<i64: 128>', 1),
     'the datapaths of the global memory (kind "HBM") differ in transfer granularity ([128]; [64]): one stick_bytes'),
])
def test_a_device_without_what_a_fact_needs_is_a_located_error(text, message):
    module = spyre_mlir.parse(text)
    if message is None:
        assert target_of(module).cores == 1
        return
    target = target_of(module)  # the device is read when a fact it may state is asked for
    assert target.clock_ghz == SPYRE.clock_ghz  # a fact no device states: not read yet
    with pytest.raises(DiagnosticError) as info:
        _ = target.cores
    assert info.value.diagnostic.message == f"'ktdf_arch.device' op @card: {message} (needed for target fact 'cores')"
    assert info.value.diagnostic.location is not None and info.value.diagnostic.location.line == 1


def test_an_imported_device_is_read_relative_to_the_declaring_file(tmp_path):
    (tmp_path / "devices").mkdir()
    (tmp_path / "devices" / "card.mlir").write_text(_device(lx=4096))
    kernel = tmp_path / "k.mlir"
    kernel.write_text('ktdf_arch.device @card import("devices/card.mlir")\n' + BIG)
    assert target_of(spyre_mlir.parse(kernel)).lx_bytes == 4096
    # The declaration's attributes override the file's: here, which memory is core-local.
    kernel.write_text('ktdf_arch.device @card attributes {mem_space_mapping = #ktdf_arch.map<'
                      '#ktdp.memory_space<ct_local> = "HBM">} import("devices/card.mlir")\n' + BIG)
    with pytest.raises(DiagnosticError, match="the core-local memory \\(kind \"HBM\"\\) has no 'size'"):
        _ = target_of(spyre_mlir.parse(kernel)).lx_bytes


@pytest.mark.parametrize(("declaration", "message"), [
    ('ktdf_arch.device @card import("missing.mlir")',
     "'ktdf_arch.device' op unable to import device graph: cannot open input file '{dir}/missing.mlir': "
     "No such file or directory"),
    ('ktdf_arch.device @other import("card.mlir")',
     "'ktdf_arch.device' op unable to import device graph: no device named 'other'"),
])
def test_a_device_that_cannot_be_imported_is_a_located_error(tmp_path, declaration, message):
    (tmp_path / "card.mlir").write_text(_device())
    kernel = tmp_path / "k.mlir"
    kernel.write_text(declaration + "\n" + BIG)
    module = spyre_mlir.parse(kernel)
    with pytest.raises(DiagnosticError) as info:
        _ = target_of(module).lx_bytes
    assert info.value.diagnostic.message == message.format(dir=tmp_path) + " (needed for target fact 'lx_bytes')"
    assert str(info.value.diagnostic.location) == f"{kernel}:1:1"


def test_a_spyre_target_fact_that_contradicts_the_device_is_a_located_error():
    def module(facts: str):
        return spyre_mlir.parse(f"module attributes {{spyre.target = {{{facts}}}}} {{\n" + _device() + "}\n")

    assert target_of(module("clock_ghz = 2.0 : f64")).clock_ghz == 2.0  # a fact the device does not state
    assert target_of(module("lx_bytes = 8192 : i64")).lx_bytes == 8192  # the same fact, the same value
    clash = target_of(module("lx_bytes = 4096 : i64, cores = 2 : i64"))  # read when a fact is asked for
    with pytest.raises(DiagnosticError) as info:
        _ = clash.stick_bytes
    assert info.value.diagnostic.message == (
        "'ktdf_arch.device' op @card and spyre.target (the module's, or --target's) disagree: "
        "lx_bytes is 8192 on the device, 4096 there")
    assert info.value.diagnostic.location.line == 2


def test_set_target_on_a_module_with_a_device():
    module = spyre_mlir.parse(_device())
    set_target(module, target_of(module).replace(clock_ghz=2.0))
    assert facts_in(module) == {"clock_ghz": 2.0}  # the device's own facts are not repeated
    # A stated fact is recorded even where it is Spyre's default, so that the clash shows.
    set_target(module, SPYRE.replace(lx_bytes=SPYRE.lx_bytes))
    assert facts_in(module) == {"lx_bytes": SPYRE.lx_bytes}
    with pytest.raises(DiagnosticError, match="lx_bytes is 8192 on the device, 2097152 there"):
        _ = target_of(module).lx_bytes


def facts_in(module) -> dict:
    from spyre_mlir.target import facts_of_attr

    return facts_of_attr(module.attributes[TARGET_ATTR]) if TARGET_ATTR in module.attributes else {}


def test_which_device_is_the_target():
    two = spyre_mlir.parse(_device(name="a", lx=4096) + _device(name="b", lx=8192) + BIG)
    assert target_of(two) == SPYRE  # two and nothing says which: none (upstream's findDeviceDeclarationFor)
    named = spyre_mlir.parse(_device(name="a", lx=4096) + _device(name="b", lx=8192)
                             + BIG.replace("attributes {", "attributes {ktdf_arch.maps_to = @b, ", 1))
    func = next(op for op in named.walk() if op.name == "func.func")
    assert target_of(func).lx_bytes == 8192  # an enclosing op's ktdf_arch.maps_to names it
    assert target_of(named) == SPYRE


def test_the_pass_managers_device_decides_what_is_tiled(tmp_path):
    card = tmp_path / "card.mlir"
    card.write_text(_device(lx=8192))
    small = spyre_mlir.PassManager.parse(TILE, device=str(card)).run(spyre_mlir.parse(BIG))
    assert _loops(print_ir(small)) == ["spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {"]
    assert f'ktdf_arch.device @card import("{card}")' in print_ir(small)
    # The same as a device written in the module.
    inline = spyre_mlir.parse(_device(lx=8192) + BIG)
    assert _loops(print_ir(spyre_mlir.PassManager.parse(TILE).run(inline))) == _loops(print_ir(small))
    # A device and a target that disagree: a located error, not a choice.
    with pytest.raises(DiagnosticError, match="lx_bytes is 8192 on the device, 4096 there"):
        spyre_mlir.PassManager.parse(TILE, device=str(card), target=Target(lx_bytes=4096)).run(spyre_mlir.parse(BIG))


def test_spyre_opt_device(tmp_path, capsys):
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.mlir"
    card.write_text(_device(lx=8192))
    assert spyre_opt.main([str(kernel), "-p", TILE, "--device", str(card)]) == 0
    assert _loops(capsys.readouterr().out) == ["spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {"]
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n}\n")
    assert spyre_opt.main([str(kernel), "-p", TILE, "--device", str(bad)]) == 1
    assert capsys.readouterr().err == f"spyre-opt: error: cannot use device file '{bad}': no device in import file '{bad}'\n"


def test_the_compile_cache_keys_on_the_device(tmp_path, capsys):
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.mlir"
    card.write_text(_device(lx=2 * SPYRE.lx_bytes))
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert spyre_opt.main([str(kernel), "-p", TILE, "--device", str(card), *cache]) == 0
    assert _loops(capsys.readouterr().out) == []
    card.write_text(_device(lx=8192))  # the same path, another device
    assert spyre_opt.main([str(kernel), "-p", TILE, "--device", str(card), *cache]) == 0
    assert _loops(capsys.readouterr().out) == ["spyre_loop.loop count(4) tiled_dims [0] tile_sizes [16] {"]


def test_spyre_run_device(tmp_path, capsys):
    card = tmp_path / "card.mlir"
    card.write_text(_device(lx=128))
    code, _, err = _spyre_run(tmp_path, capsys, SCALE, "--device", str(card))
    assert code == 1 and "exceeds the 128-byte scratchpad" in err
    # A device declared in the kernel is read the same way; the interpreter runs the kernel beside it.
    code, _, err = _spyre_run(tmp_path, capsys, _device(lx=128) + SCALE)
    assert code == 1 and "exceeds the 128-byte scratchpad" in err
    assert _spyre_run(tmp_path, capsys, _device(lx=4096) + SCALE)[0] == 0
    code, _, err = _spyre_run(tmp_path, capsys, SCALE, "--device", str(tmp_path / "none.mlir"))
    assert code == 1 and "bad --device: cannot use device file" in err


def test_a_stated_fact_is_recorded_and_keys_the_cache(tmp_path, capsys):
    """`--target` naming Spyre's own value is recorded (so a device that says otherwise clashes), and a
    cached output without it is not reused for it."""
    assert SPYRE.replace(cores=SPYRE.cores).to_attr().data.keys() == {"cores"}
    assert Target(cores=SPYRE.cores).to_attr().data == {}
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"cores": SPYRE.cores}))
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert spyre_opt.main([str(kernel), "-p", TILE, *cache]) == 0
    assert "spyre.target" not in capsys.readouterr().out
    assert spyre_opt.main([str(kernel), "-p", TILE, "--target", str(card), *cache]) == 0
    assert f"spyre.target = {{cores = {SPYRE.cores} : i64}}" in capsys.readouterr().out


# -- the device is read when a fact needs it -------------------------------------------------------
#
# dataflow-scheduler's test/Transforms/ReductionLoopExposure/muil_fifo_dest.mlir imports
# `@spyre_single_corelet`, which its device file does not define, and their tool runs passes on it;
# their KTIRToScheduleIR tests import relative paths that need not exist where a copy of a test runs.

UNREADABLE = [
    pytest.param('ktdf_arch.device @spyre_single_corelet import("card.mlir")',
                 "unable to import device graph: no device named 'spyre_single_corelet'", id="a name its file lacks"),
    pytest.param('ktdf_arch.device @card import("missing/card.mlir")',
                 "unable to import device graph: cannot open input file '{dir}/missing/card.mlir': No such file or directory",
                 id="a missing file"),
]


def _kernel_with(tmp_path, declaration: str, body: str = BIG):
    (tmp_path / "card.mlir").write_text(_device(lx=8192))
    kernel = tmp_path / "k.mlir"
    kernel.write_text(declaration + "\n" + body)
    return kernel


@pytest.mark.parametrize(("declaration", "message"), UNREADABLE)
def test_a_pass_that_needs_no_fact_runs_beside_a_device_that_cannot_be_read(tmp_path, capsys, declaration, message):
    kernel = _kernel_with(tmp_path, declaration)
    for passes in ("canonicalize", "cse", "canonicalize,cse"):
        out = print_ir(spyre_mlir.PassManager.parse(passes).run(spyre_mlir.parse(kernel)))
        assert declaration in out  # kept as written
        assert spyre_opt.main([str(kernel), "-p", passes]) == 0
        assert declaration in capsys.readouterr().out
    # A pass that needs a fact: the device's error, at its declaration, naming the fact.
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.PassManager.parse(TILE).run(spyre_mlir.parse(kernel))
    assert info.value.diagnostic.message == (
        f"'ktdf_arch.device' op {message.format(dir=tmp_path)} (needed for target fact 'lx_bytes')")
    assert str(info.value.diagnostic.location) == f"{kernel}:1:1"
    assert spyre_opt.main([str(kernel), "-p", TILE]) == 1
    assert capsys.readouterr().err.startswith(f"{kernel}:1:1: error: 'ktdf_arch.device' op {message.format(dir=tmp_path)}")


@pytest.mark.parametrize(("declaration", "message"), UNREADABLE)
def test_the_interpreters_lx_limit_needs_the_device(tmp_path, capsys, declaration, message):
    kernel = _kernel_with(tmp_path, declaration, SCALE)
    code, _, err = _spyre_run(tmp_path, capsys, kernel.read_text())
    assert code == 1
    assert err.startswith(f"{kernel}:1:1: error: 'ktdf_arch.device' op {message.format(dir=tmp_path)} "
                          "(needed for target fact 'lx_bytes')")


def test_a_verifier_that_needs_a_fact_gets_the_devices_error(tmp_path):
    """spatial.buffer's verifier reads the LX size: after spatial-tile, the device's located error
    (the user's), not an internal error blaming the pass."""
    kernel = _kernel_with(tmp_path, UNREADABLE[0].values[0], SCALE)
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.PassManager.parse("spatial-tile").run(spyre_mlir.parse(kernel))
    assert info.value.diagnostic.message.endswith("no device named 'spyre_single_corelet' (needed for target fact 'lx_bytes')")
    assert str(info.value.diagnostic.location) == f"{kernel}:1:1"


def test_the_device_is_read_on_the_first_fact_it_may_state(tmp_path):
    kernel = _kernel_with(tmp_path, UNREADABLE[0].values[0])
    module = spyre_mlir.parse(kernel)
    target = target_of(module)  # nothing read yet
    assert "not read yet" in repr(target)
    # Facts no device states are there without it.
    assert (target.clock_ghz, target.index_bytes, target.systolic_rows) == (SPYRE.clock_ghz, SPYRE.index_bytes, 8)
    assert target.element_bytes(Float16Type()) == 2
    for fact in sorted(DEVICE_STATED_FACTS):
        with pytest.raises(DeviceFactError, match=f"\\(needed for target fact '{fact}'\\)$"):
            getattr(target_of(module), fact)
    with pytest.raises(DeviceFactError, match="needed for target fact 'stick_bytes'"):
        target.stick_elements(Float16Type())
    with pytest.raises(DeviceFactError, match="needed for the target's facts"):
        _ = target == SPYRE
    # A readable device: read once asked, then a plain Target equal to the device's.
    (tmp_path / "k.mlir").write_text('ktdf_arch.device @card import("card.mlir")\n' + BIG)
    readable = target_of(spyre_mlir.parse(tmp_path / "k.mlir"))
    assert readable == device_target(tmp_path / "card.mlir") and type(readable) is Target
    assert hash(target_of(spyre_mlir.parse(tmp_path / "k.mlir"))) == hash(readable)


def test_every_fact_a_device_states_reads_it():
    """DEVICE_STATED_FACTS is what device_facts can give: a fact outside it would be read without the device."""
    assert set(device_facts(device_of(spyre_mlir.parse(_device())))) == DEVICE_STATED_FACTS
    assert set(DEVICE_STATED_FACTS) <= set(Target.keys())


def test_a_contradiction_in_the_module_shows_when_a_fact_is_needed(capsys, tmp_path):
    """The lazy path: a spyre.target the module's own device contradicts. canonicalize runs; tiling is a
    located error at the device."""
    kernel = tmp_path / "k.mlir"
    kernel.write_text("module attributes {spyre.target = {lx_bytes = 4096 : i64}} {\n" + _device() + BIG + "}\n")
    assert spyre_opt.main([str(kernel), "-p", "canonicalize"]) == 0
    capsys.readouterr()
    assert spyre_opt.main([str(kernel), "-p", TILE]) == 1
    assert capsys.readouterr().err.startswith(
        f"{kernel}:2:1: error: 'ktdf_arch.device' op @card and spyre.target (the module's, or --target's) disagree: "
        "lx_bytes is 8192 on the device, 4096 there")


def test_device_on_the_command_line_is_checked_up_front(tmp_path, capsys):
    """The eager path: --device's facts and --target's are compared before the first pass, even a pass that
    needs no fact; a bad --device file is reported before any input is read; a module's own device that
    cannot be read cannot be compared with --device."""
    kernel = tmp_path / "big.mlir"
    kernel.write_text(BIG)
    card = tmp_path / "card.mlir"
    card.write_text(_device(lx=8192))
    facts = tmp_path / "t.json"
    facts.write_text('{"lx_bytes": 4096}')
    assert spyre_opt.main([str(kernel), "-p", "canonicalize", "--device", str(card), "--target", str(facts)]) == 1
    assert capsys.readouterr().err.startswith(
        f"{card}:1:1: error: 'ktdf_arch.device' op @card and spyre.target (the module's, or --target's) disagree: "
        "lx_bytes is 8192 on the device, 4096 there")
    with pytest.raises(DiagnosticError, match="lx_bytes is 8192 on the device, 4096 there"):
        spyre_mlir.PassManager.parse("cse", device=str(card), target=Target(lx_bytes=4096)).run(spyre_mlir.parse(BIG))
    missing = tmp_path / "none.mlir"
    assert spyre_opt.main([str(tmp_path / "no-input.mlir"), "-p", "canonicalize", "--device", str(missing)]) == 1
    assert capsys.readouterr().err.startswith(f"spyre-opt: error: cannot use device file '{missing}'")
    own = _kernel_with(tmp_path, UNREADABLE[0].values[0])
    assert spyre_opt.main([str(own), "-p", "canonicalize", "--device", str(card)]) == 1
    assert capsys.readouterr().err.startswith(
        f"{own}:1:1: error: 'ktdf_arch.device' op unable to import device graph: no device named "
        f"'spyre_single_corelet' (needed to compare it with --device {card})")


def test_set_target_beside_a_device_that_cannot_be_read(tmp_path):
    module = spyre_mlir.parse(_kernel_with(tmp_path, UNREADABLE[1].values[0]))
    set_target(module, SPYRE.replace(lx_bytes=8192, clock_ghz=2.0))
    assert facts_in(module) == {"lx_bytes": 8192, "clock_ghz": 2.0}  # nothing known to strip
    assert target_of(module).clock_ghz == 2.0
    with pytest.raises(DeviceFactError, match="needed for target fact 'cores'"):
        _ = target_of(module).cores
