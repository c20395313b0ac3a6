"""How ops reach the interpreter: handlers by op class, batching rules, terminators.

A dialect the product does not know (`toy`, defined here) gets an interpreter
handler from this file alone, as ops_<dialect>.py files do: a region op
without a batching rule of its own must batch correctly (every block argument
and result varies as soon as anything the op reads does), and its terminator
is recognized by xDSL's `IsTerminator` trait.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from conftest import REPO, SHARED
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import Dialect, Operation
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.dialects.arith import IndexCastUIOp
from spyre_mlir.interpreter import Interpreter, InterpreterOptions
from spyre_mlir.interpreter.core import (
    HANDLERS,
    NOT_EXECUTABLE,
    VARYING_RULES,
    FunctionCompiler,
    Step,
    gather_frame,
    handles,
    is_block_terminator,
    registered_class,
)

# -- a toy dialect, unknown to the product -------------------------------------------


@irdl_op_definition
class RepeatOp(IRDLOperation):
    """`%r = toy.repeat %n iter(%init) : T { ^bb0(%i: index, %acc: T): ... toy.yield %next : T }`:
    the body `n` times with `i` = 0, 1, ..., n - 1, carrying `acc` from `init`."""

    name = "toy.repeat"
    T: ClassVar = VarConstraint("T", AnyAttr())
    count = operand_def(IndexType)
    init = operand_def(T)
    res = result_def(T)
    body = region_def("single_block")
    assembly_format = "$count `iter` `(` $init `)` attr-dict `:` type($init) $body"


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "toy.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($values^ `:` type($values))?"


ToyNegfOp = type(
    "ToyNegfOp",
    (arith.NegfOp,),
    {"name": "toy.negf", "__module__": __name__, "__doc__": "A subclass of a handled op, but another op."},
)


TOY = Dialect("toy", [RepeatOp, YieldOp, ToyNegfOp], [])


def _repeat(fc: FunctionCompiler, op: Operation) -> Step:
    """The toy handler, as an ops_toy.py would write it: it produces every value
    in the representation its marks ask for (a lane axis when varying)."""
    assert isinstance(op, RepeatOp)
    block = op.body.block
    iv_arg, acc_arg = block.args
    yielded = block.last_op.operands[0]
    n, init, res, iv, acc = (fc.slot(v) for v in (op.count, op.init, op.res, iv_arg, acc_arg))
    body = fc.compile_block(block)

    def identity(x, count):
        return x

    to_acc = fc.lanes_of(op.init) if fc.is_varying(acc_arg) else identity
    from_yield = fc.lanes_of(yielded) if fc.is_varying(acc_arg) else identity
    to_res = fc.lanes_of(acc_arg) if fc.is_varying(op.res) else identity
    iv_lanes = fc.is_varying(iv_arg)

    if not fc.is_varying(op.count):

        def step(frame):
            count = frame[0].count
            carried = to_acc(frame[init], count)
            for i in range(frame[n]):
                frame[iv] = np.full(count, i, np.int64) if iv_lanes else i
                frame[acc] = carried
                (out,) = body(frame)
                carried = from_yield(out, count)
            frame[res] = to_res(carried, count)

        return step

    captured = fc.varying_captured_slots(op.body)

    def step(frame):  # each lane runs its own trip count: iteration i on the lanes that have it
        count = frame[0].count
        trips = np.broadcast_to(np.asarray(frame[n]), (count,))
        carried = to_acc(frame[init], count)
        for i in range(int(trips.max(initial=0))):
            active = np.nonzero(trips > i)[0]
            sub = gather_frame(frame, captured, active)
            sub[iv] = np.full(active.shape[0], i, np.int64)
            sub[acc] = carried[active]
            (out,) = body(sub)
            carried = np.array(carried)
            carried[active] = from_yield(out, active.shape[0])
        frame[res] = to_res(carried, count)

    return step


def legacy_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The rule every op without a special case had before: results vary with
    an operand or a value used from outside; block arguments never vary."""
    reads = any(fc.is_varying(x) for x in op.operands) or any(fc.is_varying(x) for x in fc.captured(*op.regions))
    return fc.mark(op.results, reads)


@contextmanager
def toy_handler(varying: Callable | None = None):
    """`_repeat` registered for `toy.repeat` (with `varying` as its rule) while the block runs."""
    handles(RepeatOp, varying=varying)(_repeat)
    try:
        yield
    finally:
        HANDLERS.pop(RepeatOp)
        VARYING_RULES.pop(RepeatOp, None)


def toy_module(text: str) -> ModuleOp:
    ctx = ir.make_context()
    ctx.load_dialect(TOY)
    return ir.parse_module(text, "toy.mlir", ctx)


def _store_row(value: str, ty: str) -> str:
    """Store the scalar `value` at out[tile id] (a 4-element output)."""
    return f"""
  %t = tensor.splat {value} : tensor<1x{ty}>
  %core = ktdp.get_compute_tile_id : index
  %view = ktdp.construct_memory_view %out, sizes: [4], strides: [1] {{
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>}} : memref<4x{ty}>
  %tile = ktdp.construct_access_tile %view[%core] {{
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>}} : memref<4x{ty}> -> !ktdp.access_tile<1xindex>
  ktdp.store %t, %tile : tensor<1x{ty}>, !ktdp.access_tile<1xindex>
"""


# Core c repeats c + 1 times: sum over i <= c of (10 i + c).
TRIP_COUNT_FROM_TILE_ID = f"""
func.func @k(%out: index) attributes {{grid = [4]}} {{
  %tid = ktdp.get_compute_tile_id : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %n = arith.addi %tid, %c1 : index
  %zero = arith.constant 0.0 : f32
  %sum = toy.repeat %n iter(%zero) : f32 {{
  ^bb0(%i: index, %acc: f32):
    %a = arith.muli %i, %c10 : index
    %b = arith.addi %a, %tid : index
    %bi = arith.index_cast %b : index to i32
    %bf = arith.sitofp %bi : i32 to f32
    %next = arith.addf %acc, %bf : f32
    toy.yield %next : f32
  }}
{_store_row("%sum", "f32")}
  return
}}
"""

# Three trips everywhere, from init = tile id: c + (0 + 1 + 2) * 5.
INIT_FROM_TILE_ID = f"""
func.func @k(%out: index) attributes {{grid = [4]}} {{
  %tid = ktdp.get_compute_tile_id : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %sum = toy.repeat %c3 iter(%tid) : index {{
  ^bb0(%i: index, %acc: index):
    %a = arith.muli %i, %c5 : index
    %next = arith.addi %acc, %a : index
    toy.yield %next : index
  }}
  %s32 = arith.index_cast %sum : index to i32
{_store_row("%s32", "i32")}
  return
}}
"""

# Nothing the op reads varies; its body reads the tile id: (c + 0) + (c + 1) = 2c + 1.
TILE_ID_INSIDE = f"""
func.func @k(%out: index) attributes {{grid = [4]}} {{
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %sum = toy.repeat %c2 iter(%c0) : index {{
  ^bb0(%i: index, %acc: index):
    %core_inside = ktdp.get_compute_tile_id : index
    %a = arith.addi %core_inside, %i : index
    %next = arith.addi %acc, %a : index
    toy.yield %next : index
  }}
  %s32 = arith.index_cast %sum : index to i32
{_store_row("%s32", "i32")}
  return
}}
"""

# As above in f32, each core storing a row of four: row c is 2c everywhere.
TILE_ID_INSIDE_ROWS = """
func.func @k(%out: index) attributes {grid = [4]} {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %sum = toy.repeat %c2 iter(%zero) : f32 {
  ^bb0(%i: index, %acc: f32):
    %core_inside = ktdp.get_compute_tile_id : index
    %ci = arith.index_cast %core_inside : index to i32
    %cf = arith.sitofp %ci : i32 to f32
    %next = arith.addf %acc, %cf : f32
    toy.yield %next : f32
  }
  %t = tensor.splat %sum : tensor<1x4xf32>
  %core = ktdp.get_compute_tile_id : index
  %view = ktdp.construct_memory_view %out, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %tile = ktdp.construct_access_tile %view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<1x4xindex>
  ktdp.store %t, %tile : tensor<1x4xf32>, !ktdp.access_tile<1x4xindex>
  return
}
"""

TOY_CASES = {  # kernel, output dtype, NumPy oracle of the output
    "trip_count_from_tile_id": (TRIP_COUNT_FROM_TILE_ID, np.float32, [sum(10 * i + c for i in range(c + 1)) for c in range(4)]),
    "init_from_tile_id": (INIT_FROM_TILE_ID, np.int32, [c + 15 for c in range(4)]),
    "tile_id_inside_the_region": (TILE_ID_INSIDE, np.int32, [2 * c + 1 for c in range(4)]),
    "tile_id_inside_the_region_rows": (TILE_ID_INSIDE_ROWS, np.float32, [[2 * c] * 4 for c in range(4)]),
}


def run_toy(text: str, dtype, execution: str, shape: tuple[int, ...]):
    out = Interpreter(toy_module(text), InterpreterOptions(execution=execution)).run(
        "k", {"out": np.zeros(shape, dtype)}
    )
    assert out.report.mode == execution
    return out["out"]


@pytest.mark.parametrize("case", TOY_CASES)
def test_a_region_op_without_a_batching_rule_batches_correctly(case):
    text, dtype, oracle = TOY_CASES[case]
    expected = np.array(oracle, dtype)
    with toy_handler():
        batched = run_toy(text, dtype, "batched", expected.shape)
        per_core = run_toy(text, dtype, "per-core", expected.shape)
    np.testing.assert_array_equal(batched, per_core)
    np.testing.assert_array_equal(batched, expected)


@pytest.mark.parametrize("case", TOY_CASES)
def test_the_old_rule_for_region_ops_would_be_wrong_here(case):
    """The same kernels under the rule region ops had before (block arguments
    uniform, results from operands and captured values only): the batched run
    fails with an internal error, or (the last kernel) silently stores wrong
    rows. So the test above can fail."""
    text, dtype, oracle = TOY_CASES[case]
    expected = np.array(oracle, dtype)
    with toy_handler(varying=legacy_varying):
        per_core = run_toy(text, dtype, "per-core", expected.shape)  # one core: nothing varies
        np.testing.assert_array_equal(per_core, expected)
        try:
            batched = run_toy(text, dtype, "batched", expected.shape)
        except spyre_mlir.DiagnosticError as exc:
            assert "internal error" in exc.diagnostic.message  # a lane array where a scalar was promised
            assert case != "tile_id_inside_the_region_rows"
            return
    # silently wrong: the four cores' sums taken as one row, which every core stores
    assert case == "tile_id_inside_the_region_rows"
    np.testing.assert_array_equal(batched, np.broadcast_to(expected[:, 0], (4, 4)))


def test_an_op_without_a_handler_is_a_located_error():
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        Interpreter(toy_module(TRIP_COUNT_FROM_TILE_ID)).run("k", {"out": np.zeros(4, np.float32)})
    d = info.value.diagnostic
    assert d.message == "the interpreter does not support 'toy.repeat'"
    line = next(i for i, text in enumerate(TRIP_COUNT_FROM_TILE_ID.splitlines(), 1) if "toy.repeat" in text)
    assert (d.location.file, d.location.line, d.location.col) == ("toy.mlir", line, 3)


def test_a_listed_op_is_the_same_located_error():
    text = """
func.func @k(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [4], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf16>
  %c = arith.constant 3 : i32
  %lo, %hi = arith.mului_extended %c, %c : i32
  return
}
"""
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, a=np.zeros(4, np.float16))
    d = info.value.diagnostic
    assert d.message == "the interpreter does not support 'arith.mului_extended'"
    assert d.location.line == 6


# -- batching rules of the product's own region ops ---------------------------------------

_OUT_ROW = """
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %view = ktdp.construct_memory_view %out, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xi32>
  %tile = ktdp.construct_access_tile %view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xi32> -> !ktdp.access_tile<1x4xindex>
  ktdp.store %row, %tile : tensor<1x4xi32>, !ktdp.access_tile<1x4xindex>
  return
}
"""


def test_execute_region_yielding_the_tile_id_batches():
    """Its result varies through what it yields (the rule of ops without one
    looks at their terminators): before, an internal error when batched."""
    text = """
func.func @k(%out: index) attributes {grid = [4]} {
  %r = scf.execute_region -> i32 {
    %i = ktdp.get_compute_tile_id : index
    %i32 = arith.index_cast %i : index to i32
    scf.yield %i32 : i32
  }
  %row = tensor.splat %r : tensor<1x4xi32>
""" + _OUT_ROW
    for execution in ("batched", "per-core"):
        out = spyre_mlir.interpret(text, out=np.zeros((4, 4), np.int32), options=InterpreterOptions(execution=execution))
        np.testing.assert_array_equal(out["out"], np.repeat(np.arange(4, dtype=np.int32)[:, None], 4, axis=1))


def test_a_linalg_body_reading_the_tile_id_runs_per_core():
    """A value that varies inside a structured op's body cannot broadcast
    against the body's domain arrays: such a kernel runs per core (before, its
    batched run silently stored the four cores' ids as every core's row)."""
    text = """
func.func @k(%out: index) attributes {grid = [4]} {
  %e = tensor.empty() : tensor<1x4xi32>
  %row = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<1x4xi32>) {
  ^bb0(%o: i32):
    %i = ktdp.get_compute_tile_id : index
    %x = arith.index_cast %i : index to i32
    linalg.yield %x : i32
  } -> tensor<1x4xi32>
""" + _OUT_ROW
    expected = np.repeat(np.arange(4, dtype=np.int32)[:, None], 4, axis=1)
    out = spyre_mlir.interpret(text, out=np.zeros((4, 4), np.int32))
    assert out.report.mode == "per-core"
    assert "its body reads a value that differs between cores ('ktdp.get_compute_tile_id')" in out.report.fallback_reason
    np.testing.assert_array_equal(out["out"], expected)
    with pytest.raises(spyre_mlir.DiagnosticError, match="cannot run the cores batched"):
        spyre_mlir.interpret(text, out=np.zeros((4, 4), np.int32), options=InterpreterOptions(execution="batched"))


# -- dispatch by class -----------------------------------------------------------------


def test_a_subclass_of_another_name_is_not_run_as_its_base():
    assert registered_class(arith.NegfOp) is arith.NegfOp
    assert registered_class(ToyNegfOp) is None
    text = """
func.func @k(%a: f32) -> f32 {
  %r = toy.negf %a : f32
  return %r : f32
}
"""
    with pytest.raises(spyre_mlir.DiagnosticError, match="does not support 'toy.negf'"):
        Interpreter(toy_module(text)).run("k", {"a": 1.0})


def test_our_replacements_use_the_handler_of_their_xdsl_base():
    ctx = ir.make_context()
    for name in ("arith.cmpi", "arith.select", "tensor.empty", "linalg.fill", "scf.if", "scf.while"):
        ours = ctx.get_op(name)
        assert ours.__module__.startswith("spyre_mlir.dialects"), name
        assert registered_class(ours) is next(c for c in ours.__mro__[1:] if getattr(c, "name", None) == name)
    # arith.index_castui subclasses xDSL's index_cast: it has its own registration
    assert registered_class(IndexCastUIOp) is IndexCastUIOp
    # every linalg structured op without its own handler: the family's
    assert registered_class(ctx.get_op("linalg.add")) is LinalgStructuredOperation
    assert registered_class(ctx.get_op("linalg.matmul")) is LinalgStructuredOperation


def test_a_second_handler_for_an_op_is_refused_naming_both():
    def another(fc, op):
        return None

    with pytest.raises(ValueError) as info:
        handles(arith.AddfOp)(another)
    message = str(info.value)
    assert "'arith.addf'" in message
    assert "spyre_mlir.interpreter.ops_arith._float_binary" in message
    assert "test_interpreter_dispatch" in message and "another" in message
    assert HANDLERS[arith.AddfOp].__name__ == "_float_binary"


def test_a_handler_for_a_listed_op_or_a_terminator_is_refused():
    def another(fc, op):
        return None

    pad = next(cls for cls in NOT_EXECUTABLE if getattr(cls, "name", "") == "tensor.pad")
    with pytest.raises(ValueError, match="listed as not executable"):
        handles(pad)(another)
    with pytest.raises(ValueError, match="is a terminator"):
        handles(YieldOp)(another)
    assert pad not in HANDLERS and YieldOp not in HANDLERS


# -- every op we know has a handler or a reason ------------------------------------------


def _corpus_files() -> list[Path]:
    files = []
    for folder in ("ktir", "ktir-inter-tile"):
        files += sorted((SHARED / "corpus" / folder).glob("*.mlir"))
    files += sorted((REPO / "examples").glob("*.mlir"))
    files += sorted(Path(p) for p in glob.glob(str(REPO / "test" / "unit" / "kernels" / "**" / "*.mlir"), recursive=True))
    return files


_OP_NAME = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)"?[\s({<:]', re.M)


def _ops_of(path: Path, ctx) -> set[type[Operation]]:
    """The op classes of a file: from its parsed module, or (for a file with ops
    no dialect of ours has yet) from its text, the names any dialect knows."""
    try:
        return {type(op) for op in spyre_mlir.parse(path).walk()}
    except spyre_mlir.DiagnosticError:
        text = re.sub(r"//.*", "", path.read_text())
        found = (ctx.get_optional_op(name) for name in _OP_NAME.findall(text))
        return {cls for cls in found if cls is not None}


# Every op the interpreter deliberately does not execute, by dialect, each with its
# reason in NOT_EXECUTABLE (interpreter/ops_<dialect>.py, not_executable()). Adding an
# op here is a decision: the list is compared with the registry both ways.
DELIBERATELY_NOT_EXECUTABLE = {
    "arith": {"arith.addui_extended", "arith.mului_extended", "arith.mulsi_extended"},
    "builtin": {"builtin.module"},
    "func": {"func.func"},
    "ktdf": {"ktdf.private", "ktdf.stage"},  # parts of a ktdf.pipeline, run by it
    # the device model: module-level declarations for the scheduler's passes
    "ktdf_arch": {"ktdf_arch.device", "ktdf_arch.group", "ktdf_arch.memory", "ktdf_arch.exec_unit",
                  "ktdf_arch.switch", "ktdf_arch.datapath", "ktdf_arch.patterns"},
    "scf": {"scf.index_switch", "scf.parallel"},
    # declarations and choreographies of a spatial.program, run by interpret(module, "<program>")
    "spatial": {"spatial.program", "spatial.tensor", "spatial.scalar", "spatial.site", "spatial.buffer",
                "spatial.stage", "spatial.edge", "spatial.multicast", "spatial.semaphore", "spatial.trip",
                "spatial.engine", "spatial.loop", "spatial.wait", "spatial.signal", "spatial.load_step",
                "spatial.store_step", "spatial.compute_step", "spatial.recv_step"},
    "tensor": {"tensor.pad"},
}


def test_the_ops_not_executable_are_exactly_the_deliberate_list():
    listed = {cls.name for cls in NOT_EXECUTABLE}
    expected = set().union(*DELIBERATELY_NOT_EXECUTABLE.values())
    assert listed == expected, (
        f"not executable but not in the list: {sorted(listed - expected)}; "
        f"in the list but executable or unknown: {sorted(expected - listed)}"
    )
    assert all(NOT_EXECUTABLE[cls].strip() for cls in NOT_EXECUTABLE)


def _our_dialects() -> list[Dialect]:
    """Every dialect of ours the context registers (spyre_mlir.ir.SPYRE_DIALECTS)
    that the interpreter executes: all but the lowering dialects below the schedule IR."""
    return [factory() for name, factory in ir.SPYRE_DIALECTS.items() if name not in ir.LOWERING_DIALECTS]


def test_the_coverage_includes_every_dialect_of_ours():
    names = {d.name for d in _our_dialects()}
    assert {"ktdp", "spyre", "ktdf", "spyre_loop", "sdscbundle", "spatial"} <= names
    covered = {cls.name.split(".")[0] for cls in (p.values[0] for p in _coverage_params())}
    assert names <= covered


def _coverage_params():
    ctx = ir.make_context()
    ops = dict.fromkeys(cls for dialect in _our_dialects() for cls in dialect.operations)
    for path in _corpus_files():
        ops.update(dict.fromkeys(_ops_of(path, ctx)))
    names = [cls.name for cls in ops]

    def key(cls) -> str:  # xDSL's op and ours of one name (e.g. linalg.yield) are both used
        return cls.name if names.count(cls.name) == 1 else f"{cls.name} ({cls.__module__.split('.')[0]})"

    return [pytest.param(cls, id=key(cls)) for cls in sorted(ops, key=key)]


def test_the_corpus_is_scanned_when_present():
    if not (SHARED / "corpus" / "ktir").is_dir():
        pytest.skip("../shared/corpus/ktir not present")
    ids = {p.id for p in _coverage_params()}
    assert {"linalg.matmul", "ktdp.load", "linalg.yield (xdsl)", "linalg.yield (spyre_mlir)"} <= ids


@pytest.mark.parametrize("op_type", _coverage_params())
def test_every_op_has_a_handler_or_a_reason(op_type):
    if op_type.has_trait(IsTerminator):
        assert registered_class(op_type) is None  # its operands are its block's results
        assert not op_type.get_irdl_definition().successors or registered_class(op_type, NOT_EXECUTABLE)
        return
    handled = registered_class(op_type)
    listed = registered_class(op_type, NOT_EXECUTABLE)
    assert (handled is None) != (listed is None), (
        f"'{op_type.name}' needs an interpreter handler (@handles in interpreter/ops_<dialect>.py) "
        "or an entry, with the reason, in NOT_EXECUTABLE (not_executable() there)"
    )
    if listed is not None:
        assert NOT_EXECUTABLE[listed].strip()


def test_terminators_are_recognized_by_their_trait():
    module = toy_module(TILE_ID_INSIDE)
    yields = [op for op in module.walk() if isinstance(op, YieldOp)]
    assert yields and all(is_block_terminator(op) for op in yields)
