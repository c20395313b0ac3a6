"""The ktdf_arch dialect (dialects/ktdf_arch.py): dataflow-scheduler's device model read, verified
and printed as upstream writes it, every device of their tests, and the reading of a device
(imports, the graph's memories and units through groups)."""

from __future__ import annotations

import re

import pytest
from conftest import SHARED
from xdsl.dialects.builtin import Float16Type, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.ktdf_arch import (
    DatapathOp,
    DeviceImportError,
    DeviceOp,
    ExecutionUnitOp,
    GroupOp,
    MapAttr,
    MemoryOp,
    devices_in,
    exec_unit_of,
    features_of,
    import_device,
    memory_of,
    read_device_file,
    verify_intrinsics,
)
from spyre_mlir.ir import make_context, parse_module, print_ir, verify

SCHEDULER_TESTS = SHARED / "corpus" / "dataflow-scheduler" / "test"
SAMPLE_DEVICE = SCHEDULER_TESTS / "Dialect" / "KTDFArch" / "sample_device.mlir"
needs_corpus = pytest.mark.skipif(not SAMPLE_DEVICE.is_file(), reason="../shared/corpus/dataflow-scheduler not present")


def _parse(text: str, name: str = "<string>") -> ModuleOp:
    module = parse_module(text, name, make_context(allow_unregistered=True))
    verify(module)
    return module


def _device_files() -> list:
    if not SCHEDULER_TESTS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/dataflow-scheduler not present"))]
    declares = re.compile(r"^\s*ktdf_arch\.device", re.M)
    files = sorted(p for p in SCHEDULER_TESTS.rglob("*.mlir") if declares.search(p.read_text()))
    return [pytest.param(p, id=str(p.relative_to(SCHEDULER_TESTS))) for p in files]


@pytest.mark.parametrize("path", _device_files())
def test_every_device_of_their_tests_reads_verifies_and_round_trips(path):
    """Each device they declare (inline or imported), printed alone, reads back to the same text."""
    text = path.read_text()
    found = 0
    for chunk in re.split(r"^// -----\s*$", text, flags=re.M):
        if "ktdf_arch.device" not in chunk:
            continue
        module = parse_module(chunk, str(path), make_context(allow_unregistered=True))  # their other ops: not ours to judge here
        for device in devices_in(module):
            found += 1
            device.verify()
            again = print_ir(_parse(print_ir(device)))
            assert print_ir(_parse(again)) == again  # printing is a fixed point
            assert print_ir(_parse(print_ir(device, generic=True))) == again  # the generic form reads back
    assert found


@needs_corpus
def test_their_sample_device_as_a_graph():
    (device,) = devices_in(_parse(SAMPLE_DEVICE.read_text(), str(SAMPLE_DEVICE)))
    memories = [op for op in device.walk() if isinstance(op, MemoryOp)]
    assert [(m.kind, m.size_bytes) for m in memories] == [
        (StringAttr("DDR"), 1073741824), (StringAttr("L1"), 1048576), (StringAttr("SFU_REG"), 2048),
        (StringAttr("SFU_REG"), 2048)]
    core = next(op for op in device.body.block.ops if isinstance(op, GroupOp))
    assert core.kind == StringAttr("core")
    # A sub-core's datapath names L1 by the group's argument; it is the core's L1.
    subcore = [op for op in core.block.ops if isinstance(op, GroupOp)][0]
    to_unit = next(op for op in subcore.block.ops if isinstance(op, DatapathOp))
    assert memory_of(to_unit.source) is memories[1]
    # A datapath to a group's result reaches the unit the group yields.
    to_sfu = [op for op in subcore.block.ops if isinstance(op, DatapathOp)][1]
    (sfu,) = exec_unit_of(to_sfu.target)
    assert sfu.kind == StringAttr("SFU")
    assert features_of(sfu)["ktdf_arch.feature.simd"].data["lanes"].get(Float16Type()) == IntegerAttr(64, i64)


def test_a_group_sees_its_shared_memories_under_their_names():
    text = """\
ktdf_arch.device @d {
  %m = memory {kind = 1}
  %g = group share(%m) {
    %m2 = memory {kind = 2}
    %e = exec_unit
    datapath %m to %e : memory, exec_unit
    yield %e
  } -> exec_unit
  datapath %g to %m : exec_unit, memory
}
"""
    module = _parse(text)
    printed = print_ir(module)
    assert "%g = group share(%m) {" in printed
    assert "datapath %m to %e : memory, exec_unit" in printed  # the argument prints as %m
    group = next(op for op in module.walk() if isinstance(op, GroupOp))
    assert group.block.args[0].type == group.shared_memory[0].type
    # Isolated from above: an outer value that is not shared is out of reach.
    with pytest.raises(DiagnosticError, match="use of undeclared SSA value name"):
        _parse(text.replace("share(%m)", "share()"))


def test_map_attr():
    m = MapAttr([(StringAttr("DDR"), IntegerAttr(64, i64)), (Float16Type(), IntegerAttr(32, i64))])
    assert len(m) == 2 and m.get(Float16Type()) == IntegerAttr(32, i64) and m.get(StringAttr("L1")) is None
    with pytest.raises(VerifyException, match='maps key "DDR" more than once'):
        MapAttr([(StringAttr("DDR"), IntegerAttr(1, i64)), (StringAttr("DDR"), IntegerAttr(2, i64))])


def test_intrinsics_on_a_foreign_op():
    """`ktdf_arch.maps_to` is for the ops mapped onto a device; a link's properties are not."""
    module = _parse("func.func private @f() attributes {ktdf_arch.maps_to = @d}\n")
    func = module.body.block.first_op
    verify_intrinsics(func)
    func.attributes["ktdf_arch.bandwidth"] = IntegerAttr(1, i64)
    with pytest.raises(VerifyException, match="'ktdf_arch.bandwidth' intrinsic only valid on datapath"):
        verify_intrinsics(func)


@pytest.mark.parametrize(("text", "where", "message"), [
    # A link's property on a function, an unknown intrinsic on an arith op, a bad feature record on a
    # function (a requirement there), a bad property on a device declaration (whose verifier has no check).
    ("func.func private @f() attributes {ktdf_arch.transfer_granularity = array<i64: 64>}\n",
     "1:1", "'func.func' op 'ktdf_arch.transfer_granularity' intrinsic only valid on datapath"),
    ("func.func @g() {\n  %c = arith.constant {ktdf_arch.bogus = 1 : i64} 0 : index\n  return\n}\n",
     "2:3", "'arith.constant' op unrecognized 'ktdf_arch' intrinsic: ktdf_arch.bogus (expected one of: "
     "ktdf_arch.bandwidth, ktdf_arch.features, ktdf_arch.maps_to, ktdf_arch.overlaps, ktdf_arch.transfer_granularity)"),
    ("func.func private @f() attributes {ktdf_arch.features = {ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<f16 = 0>}}}\n",
     "1:1", "'func.func' op 'ktdf_arch.feature.simd' intrinsic attribute 'lanes[f16]' must be > 0"),
    ('module {\n  ktdf_arch.device @d attributes {ktdf_arch.overlaps = 1 : i64} import("d.mlir")\n}\n',
     "2:3", "'ktdf_arch.device' op 'ktdf_arch.overlaps' intrinsic requires array attribute"),
    ("module attributes {ktdf_arch.features = 3 : i64} {\n}\n",
     "1:1", "'builtin.module' op 'ktdf_arch.features' intrinsic requires dictionary attribute"),
])
def test_an_intrinsic_is_verified_on_any_op(text, where, message):
    """Upstream verifies a dialect attribute wherever it appears (Dialect::verifyOperationAttribute),
    through spyre_mlir.module_checks here: a located error at the op that carries it."""
    with pytest.raises(DiagnosticError) as info:
        _parse(text, "k.mlir")
    assert info.value.diagnostic.message == message
    assert str(info.value.diagnostic.location) == f"k.mlir:{where}"


def test_well_formed_intrinsics_on_foreign_ops_verify():
    """What a mappable op may carry (a placement, required features), and other dialects' attributes."""
    _parse("func.func private @f() attributes {ktdf_arch.maps_to = @d, ktdf_arch.features = "
           "{ktdf_arch.feature.compute, ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<f16 = 64>}, other.feature}, "
           "ktdf.note = 1 : i64}\n")


def _card(name: str = "card") -> str:
    return f'ktdf_arch.device @{name} {{\n  %m = memory {{kind = "L1", size = 64}}\n  %e = exec_unit\n}}\n'


def test_import_device(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "cards.mlir").write_text(_card("a") + _card("b"))
    kernel = tmp_path / "k.mlir"
    kernel.write_text('ktdf_arch.device @b attributes {note = "mine"} import("lib/cards.mlir")\n')
    (declaration,) = devices_in(_parse(kernel.read_text(), str(kernel)))
    assert declaration.is_imported
    definition = import_device(declaration)
    assert definition.device_name == "b" and not definition.is_imported
    assert definition.attributes["note"] == StringAttr("mine")  # the declaration's attributes win
    inline = devices_in(_parse(_card()))[0]
    assert import_device(inline) is inline


@pytest.mark.parametrize(("content", "name", "message"), [
    (None, "card", "cannot open input file '{path}': No such file or directory"),
    ("module {\n}\n", None, "no device in import file '{path}'"),
    (_card("a") + _card("b"), None, "multiple devices in import file '{path}'"),
    (_card("a"), "b", "no device named 'b'"),
    ('ktdf_arch.device @a import("other.mlir")\n', "a", "recursive importing is prohibited"),
    ("this is not mlir", None, "{path}:1:1: error: "),
])
def test_read_device_file_errors(tmp_path, content, name, message):
    path = tmp_path / "device.mlir"
    if content is not None:
        path.write_text(content)
    with pytest.raises(DeviceImportError) as info:
        read_device_file(path, name)
    assert str(info.value).startswith(message.format(path=path))


def test_builds_from_python():
    memory = MemoryOp(StringAttr("LX"), size=64)
    unit = ExecutionUnitOp()
    from xdsl.ir import Block, Region

    device = DeviceOp("d", Region(Block([memory, unit, DatapathOp(memory, unit)])))
    device.verify()
    assert print_ir(device).splitlines() == [
        "ktdf_arch.device @d {",
        '  %memory = memory {kind = "LX", size = 64 : i64}',  # the default dialect inside a device, as MLIR
        "  %exec_unit = exec_unit",
        "  datapath %memory to %exec_unit : memory, exec_unit",
        "}",
    ]
    imported = DeviceOp("d", import_path="card.mlir")
    imported.verify()
    assert imported.is_imported and print_ir(imported) == 'ktdf_arch.device @d import("card.mlir")\n'
