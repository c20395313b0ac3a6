"""The ktdf schedule dialect in the interpreter (docs/ktdf.md).

The output form of dataflow-scheduler's --construct-three-stage-pipeline
(test/unit/kernels/ktdf/add_rows.mlir: C = A + B, row by row through FIFOs)
equals NumPy batched and per core; every run-time error is located; stage
executions are recorded in order; the generic form parses in real MLIR; and
the Python constructors a pass uses build IR that verifies and runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    f16,
)
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineConstraintExpr, AffineConstraintKind, AffineExpr, AffineMap, AffineSet

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.dialects import ktdf
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp, GetComputeTileIdOp, MemorySpaceAttr
from spyre_mlir.interpreter import Interpreter, InterpreterOptions
from spyre_mlir.interpreter.runtime import StageRecord

KERNELS = Path(__file__).parent / "kernels" / "ktdf"
ADD_ROWS = KERNELS / "add_rows.mlir"
IREE_OPT = shutil.which("iree-opt", path=str(Path(sys.executable).parent)) or shutil.which("iree-opt")

BATCHED = InterpreterOptions(execution="batched")
PER_CORE = InterpreterOptions(execution="per-core")


def _ab(seed: int = 0, shape=(96, 64)):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float16), rng.standard_normal(shape).astype(np.float16)


# -- the reference's output form ------------------------------------------------


@pytest.mark.parametrize("options", [BATCHED, PER_CORE], ids=["batched", "per-core"])
def test_three_stage_pipeline_equals_numpy(options):
    a, b = _ab()
    out = spyre_mlir.interpret(ADD_ROWS, "add_rows", a=a, b=b, c=np.zeros_like(a), options=options)
    assert out.report.mode == options.execution
    np.testing.assert_array_equal(out["c"], a + b)


def test_batched_equals_per_core_and_stages_are_recorded_in_order():
    a, b = _ab(1)
    module = spyre_mlir.parse(ADD_ROWS)
    batched = spyre_mlir.interpret(module, "add_rows", a=a, b=b, c=np.zeros_like(a), options=BATCHED)
    per_core = spyre_mlir.interpret(module, "add_rows", a=a, b=b, c=np.zeros_like(a), options=PER_CORE)
    np.testing.assert_array_equal(batched["c"], per_core["c"])

    pipeline = next(op for op in module.walk() if isinstance(op, ktdf.PipelineOp))
    stages = pipeline.stages
    records = batched.runtime.stats.stages
    assert all(isinstance(r, StageRecord) for r in records)
    # 3 rows per tile: 3 instances of the pipeline, each its 3 stages in order, on all 32 cores at once.
    assert [(r.instance, r.index) for r in records] == [(i, k) for i in range(3) for k in range(3)]
    assert all(r.pipeline is pipeline and r.stage is stages[r.index] for r in records)
    assert all(r.lanes.tolist() == list(range(32)) for r in records)
    # Per core: the cores one after another, each its 3 instances of 3 stages.
    records = per_core.runtime.stats.stages
    assert [(int(r.lanes[0]), r.index) for r in records] == [(c, k) for c in range(32) for _ in range(3) for k in range(3)]
    assert [r.instance for r in records] == [i for i in range(32 * 3) for _ in range(3)]


def test_a_second_run_counts_instances_from_zero():
    a, b = _ab(2)
    interp = Interpreter(spyre_mlir.parse(ADD_ROWS), BATCHED)
    for _ in range(2):
        out = interp.run("add_rows", {"a": a, "b": b, "c": np.zeros_like(a)})
        assert [r.instance for r in out.runtime.stats.stages][:4] == [0, 0, 0, 1]
        np.testing.assert_array_equal(out["c"], a + b)


# -- kernels written here ------------------------------------------------------------

VIEW = (
    "ktdp.construct_memory_view %{arg}, sizes: [{rows}, 64], strides: [64, 1] {{coordinate_set = "
    "affine_set<(d0, d1) : (d0 >= 0, -d0 + {last} >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = "
    "#ktdp.memory_space<global>}} : memref<{rows}x64xf16>"
)
SLOT_IN = '!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>'
SLOT_OUT = '!ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>'
SHORT_IN = '<"DDR" -> "SFU", 64xf16>'
SHORT_OUT = '<"SFU" -> "DDR", 64xf16>'


def kernel(stages: str, *, grid: int = 4, rows: int = 8, loop: str = "%c0 to %c2 step %c1", prelude: str = "") -> str:
    """A kernel over `rows`x64 f16 arrays %a, %b -> %c: tile t handles rows
    2t + i for i of `loop`; the pipeline has slots %p#0, %p#1 (DDR -> SFU, one
    FIFO), %p#2 (SFU -> DDR) and tokens %p#3 .. %p#5; %row is the row."""
    views = "\n  ".join(
        f"%{n.upper()} = " + VIEW.format(arg=n, rows=rows, last=rows - 1) for n in ("a", "b", "c")
    )
    return f"""
func.func @k(%a: index, %b: index, %c: index) attributes {{grid = [{grid}]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %id = ktdp.get_compute_tile_id : index
  %first = arith.muli %id, %c2 : index
  {views}
  {prelude}
  scf.for %i = {loop} {{
    %row = arith.addi %first, %i : index
    ktdf.pipeline {{
      %p:6 = ktdf.private -> ({SLOT_IN}, {SLOT_IN}, {SLOT_OUT}, !ktdf.token, !ktdf.token, !ktdf.token) {{
        %in:2 = ktdf.fifo.allocate() -> {SLOT_IN}, {SLOT_IN}
        %out = ktdf.fifo.allocate() -> {SLOT_OUT}
        %t0 = ktdf.create_token : !ktdf.token
        %t1 = ktdf.create_token : !ktdf.token
        %t2 = ktdf.create_token : !ktdf.token
        ktdf.private_yield %in#0, %in#1, %out, %t0, %t1, %t2 : {SLOT_IN}, {SLOT_IN}, {SLOT_OUT}, !ktdf.token, !ktdf.token, !ktdf.token
      }}
{stages}
    }}
  }}
  return
}}
"""


LOAD = f"""      ktdf.stage depends_in(none) depends_out(%p#3) {{
        ktdf.data_transfer from %A[%row, 0] size [1, 64] to %p#0 size [1, 64] : memref<8x64xf16>, {SLOT_IN}
        ktdf.data_transfer from %B[%row, 0] size [1, 64] to %p#1 size [1, 64] : memref<8x64xf16>, {SLOT_IN}
      }}
"""
ADD = f"""      ktdf.stage depends_in(%p#3) depends_out(%p#4) {{
        %x = ktdf.read_from_fifo %p#0 : {SHORT_IN} -> tensor<1x64xf16>
        %y = ktdf.read_from_fifo %p#1 : {SHORT_IN} -> tensor<1x64xf16>
        %s = arith.addf %x, %y : tensor<1x64xf16>
        ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, {SHORT_OUT}
      }} {{applicable_units = ["SFU"]}}
"""
STORE = f"""      ktdf.stage depends_in(%p#4) depends_out(%p#5) {{
        ktdf.data_transfer from %p#2 size [1, 64] to %C[%row, 0] size [1, 64] : {SLOT_OUT}, memref<8x64xf16>
      }}
"""


def run(text: str, *, verify: bool = True, execution: str = "batched", a=None, b=None, **kw):
    """Run kernel @k on 8x64 arrays; a module that would not verify is run with
    verification off (IR a pass built wrongly)."""
    if a is None:
        a, b = _ab(3, (8, 64))
    module = spyre_mlir.parse(text) if verify else ir.parse_module(text)
    options = InterpreterOptions(execution=execution, verify=verify, **kw)
    return Interpreter(module, options).run("k", {"a": a, "b": b, "c": np.zeros_like(a)}), a, b


def test_the_kernel_template_runs():
    for execution in ("batched", "per-core"):
        out, a, b = run(kernel(LOAD + ADD + STORE), execution=execution)
        np.testing.assert_array_equal(out["c"], a + b)


def test_divergent_loop_around_the_pipeline_batches_like_per_core():
    """Tile t runs (t mod 3) pipelines: the pipeline runs on lane subsets."""
    text = kernel(LOAD + ADD + STORE, prelude="%n = arith.remui %id, %c3 : index", loop="%c0 to %n step %c1")
    results = [run(text, execution=e)[0] for e in ("batched", "per-core")]
    a, b = _ab(3, (8, 64))
    want = np.zeros_like(a)
    for t in range(4):
        for i in range(t % 3):
            want[2 * t + i] = a[2 * t + i] + b[2 * t + i]
    for out in results:
        np.testing.assert_array_equal(out["c"], want)
    batched_lanes = [r.lanes.tolist() for r in results[0].runtime.stats.stages]
    assert batched_lanes == [[1, 2]] * 3 + [[2]] * 3  # (t mod 3) > 0, then > 1


def test_divergent_branches_in_a_stage_write_the_slot_per_core():
    """Both branches of an scf.if on the tile id write the slot uniform values:
    what the next stage reads differs between cores."""
    add = f"""      ktdf.stage depends_in(%p#3) depends_out(%p#4) {{
        %x = ktdf.read_from_fifo %p#0 : {SHORT_IN} -> tensor<1x64xf16>
        %y = ktdf.read_from_fifo %p#1 : {SHORT_IN} -> tensor<1x64xf16>
        %odd = arith.remui %id, %c2 : index
        %is_odd = arith.cmpi eq, %odd, %c1 : index
        scf.if %is_odd {{
          %one = arith.constant dense<1.0> : tensor<1x64xf16>
          ktdf.write_to_fifo %one, %p#2 : tensor<1x64xf16>, {SHORT_OUT}
        }} else {{
          %two = arith.constant dense<2.0> : tensor<1x64xf16>
          ktdf.write_to_fifo %two, %p#2 : tensor<1x64xf16>, {SHORT_OUT}
        }}
      }}
"""
    for execution in ("batched", "per-core"):
        out, _, _ = run(kernel(LOAD + add + STORE), execution=execution)
        want = np.repeat(np.where(np.arange(4) % 2 == 1, 1.0, 2.0), 2)[:, None] * np.ones((8, 64))
        np.testing.assert_array_equal(out["c"], want.astype(np.float16))


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_a_uniform_tile_read_stays_uniform(execution):
    """A constant written by a direct child of its stage reads back without a lane axis."""
    add = f"""      ktdf.stage depends_in(%p#3) depends_out(%p#4) {{
        %x = ktdf.read_from_fifo %p#0 : {SHORT_IN} -> tensor<1x64xf16>
        %y = ktdf.read_from_fifo %p#1 : {SHORT_IN} -> tensor<1x64xf16>
        %k = arith.constant dense<3.0> : tensor<1x64xf16>
        ktdf.write_to_fifo %k, %p#2 : tensor<1x64xf16>, {SHORT_OUT}
      }}
"""
    out, _, _ = run(kernel(LOAD + add + STORE), execution=execution)
    np.testing.assert_array_equal(out["c"], np.full((8, 64), 3.0, np.float16))


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_a_marked_view_is_read_through_its_layout(execution):
    """A transfer reads the box of a view marked with a stick layout at its physical addresses."""
    marker = (
        "spyre.tensor_layout %A {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, "
        "phys_arg = array<i64: 32, 0, 32>} : memref<8x64xf16>"
    )
    from spyre_mlir.analysis.layout import Layout, to_device

    layout = Layout.from_arrays([1, 0, 1], [1, 0, 2], [32, 0, 32], 2)
    a, b = _ab(4, (8, 64))
    out, _, _ = run(
        kernel(LOAD + ADD + STORE, prelude=marker), a=to_device(a, layout).reshape(8, 64), b=b, execution=execution
    )
    np.testing.assert_array_equal(out["c"], a + b)


# -- the constructors a pass uses ----------------------------------------------------


def build_add_rows() -> ModuleOp:
    """add_rows.mlir built in Python, as a pass would (one row per tile, grid 32)."""
    idx = IndexType()
    view_t = MemRefType(f16, [96, 64])
    tile_t = TensorType(f16, [1, 64])
    slot_in = ktdf.FifoSlotType("DDR", "SFU", 64, f16)
    slot_out = ktdf.FifoSlotType("SFU", "DDR", 64, f16)
    block = Block(arg_types=[idx, idx, idx])
    a, b, c = block.args
    for arg, name in zip(block.args, "abc"):
        arg.name_hint = name
    ops = []
    c0 = arith.ConstantOp.from_int_and_width(0, idx)
    tid = GetComputeTileIdOp()
    ops += [c0, tid]
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    ge = AffineConstraintKind.ge
    zero = AffineExpr.constant(0)
    box = AffineSetAttr(
        AffineSet(2, 0, tuple(AffineConstraintExpr(ge, e, zero) for e in (d0, -d0 + 95, d1, -d1 + 63)))
    )
    views = [ConstructMemoryViewOp(x, [96, 64], [64, 1], box, MemorySpaceAttr("global"), view_t) for x in (a, b, c)]
    ops += views
    A, B, C = (v.result for v in views)

    # The pipeline: a private region, then three stages.
    alloc_in = ktdf.FifoAllocateOp([slot_in, slot_in])
    alloc_out = ktdf.FifoAllocateOp([slot_out])
    tokens = [ktdf.CreateTokenOp() for _ in range(3)]
    private = ktdf.PrivateOp(
        [alloc_in, alloc_out, *tokens,
         ktdf.PrivateYieldOp(*alloc_in.slots, *alloc_out.slots, *(t.result for t in tokens))]
    )
    s_a, s_b, s_c, t0, t1, t2 = private.results
    row = tid.results[0]
    load = ktdf.StageOp([], [t0], [
        ktdf.DataTransferOp.to_fifo(A, [row, c0.result], [1, 64], s_a),
        ktdf.DataTransferOp.to_fifo(B, [row, c0.result], [1, 64], s_b),
    ])
    x, y = ktdf.ReadFromFifoOp(s_a, tile_t), ktdf.ReadFromFifoOp(s_b, tile_t)
    add = ir.upstream_op(arith.AddfOp)(x.result, y.result)
    compute = ktdf.StageOp([t0], [t1], [x, y, add, ktdf.WriteToFifoOp(add.result, s_c)], applicable_units=["SFU"])
    store = ktdf.StageOp([t1], [t2], [ktdf.DataTransferOp.from_fifo(s_c, C, [row, c0.result], [1, 64])])
    pipeline = ktdf.PipelineOp([private, load, compute, store])
    ops += [pipeline, func.ReturnOp()]
    block.add_ops(ops)
    f = func.FuncOp("add_rows", ((idx, idx, idx), ()), Region(block))
    f.attributes["grid"] = ArrayAttr([IntegerAttr(32, 64)])
    return ModuleOp([f])


def test_python_constructors_build_ir_that_verifies_prints_and_runs():
    module = build_add_rows()
    ir.verify(module)
    text = ir.print_ir(module)
    assert "ktdf.stage depends_in(none) depends_out(" in text
    assert 'ktdf.data_transfer from %' in text and 'size [1, 64] to %' in text
    assert '} {applicable_units = ["SFU"]}' in text
    reparsed = spyre_mlir.parse(text)
    assert ir.print_ir(reparsed) == text
    a, b = _ab(5, (32, 64))
    a = np.concatenate([a, a, a])
    b = np.concatenate([b, b, b])
    out = spyre_mlir.interpret(module, "add_rows", a=a, b=b, c=np.zeros_like(a))
    want = np.zeros_like(a)
    want[:32] = a[:32] + b[:32]  # tile t handles row t
    np.testing.assert_array_equal(out["c"], want)


def test_data_transfer_constructor_with_an_affine_map():
    """`source_map` spells `%A[%r + %i, %j]`; the slot side gets no map."""
    module = spyre_mlir.parse(ADD_ROWS)
    transfer = next(op for op in module.walk() if isinstance(op, ktdf.DataTransferOp))
    view, indices, amap, sizes = transfer.memref_side()
    again = ktdf.DataTransferOp(
        view, transfer.slot(), source_indices=indices, source_sizes=sizes, dest_sizes=sizes, source_map=amap
    )
    assert again.properties == transfer.properties
    assert isinstance(again.source_map, AffineMapAttr) and again.dest_map is None
    assert amap == AffineMap.from_callable(lambda r, i, j: (r + i, j))


# -- located run-time errors ------------------------------------------------------


def _error(text: str, **kw) -> spyre_mlir.DiagnosticError:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(text, **kw)
    return info.value


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    lines = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return lines[nth]


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_a_stage_that_can_never_run_is_a_located_error(execution):
    """IR the verifier would refuse (as a pass may build it): the error, never a hang."""
    store = STORE.replace("depends_in(%p#4)", "depends_in(%p#5)")
    text = kernel(LOAD + ADD + store)
    err = _error(text, verify=False, execution=execution)
    d = err.diagnostic
    assert d.message == "stage #2 waits for token %p#5 that no stage before it signals: it could never run"
    assert d.location.line == _line_of(text, "depends_in(%p#5)")


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_writing_a_slot_twice_queues_two_tiles_and_the_unread_one_is_an_error(execution):
    """FIFOs have unbounded depth (KTDF.td): the second write queues a second
    tile; the store stage reads one, so one is left when the pipeline ends."""
    add = ADD.replace(
        "ktdf.write_to_fifo %s, %p#2", f"ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, {SHORT_OUT}\n"
        "        ktdf.write_to_fifo %s, %p#2"
    )
    text = kernel(LOAD + add + STORE)
    d = _error(text, execution=execution).diagnostic
    assert d.message == (
        "FIFO slot %p#2 still holds the tile stage #1 wrote when the pipeline ends on core 0 (tile id (0)): "
        "no stage read it"
    )
    assert d.location.line == _line_of(text, "ktdf.pipeline {")


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_reading_an_empty_slot_is_an_underflow(execution):
    add = ADD.replace(
        "%y = ktdf.read_from_fifo %p#1", f"%y = ktdf.read_from_fifo %p#1 : {SHORT_IN} -> tensor<1x64xf16>\n"
        "        %z = ktdf.read_from_fifo %p#1"
    )
    text = kernel(LOAD + add + STORE)
    d = _error(text, execution=execution).diagnostic
    assert d.message == (
        "FIFO underflow: stage #1 reads FIFO slot %p#1, which is empty on core 0 (tile id (0)): no stage has "
        "written a tile into it since it was last read"
    )
    assert d.location.line == _line_of(text, "%z = ktdf.read_from_fifo")


def test_slots_of_a_fifo_go_round_in_order():
    """%p#0 and %p#1 are slots #0 and #1 of one FIFO: #1 cannot be written first."""
    load = f"""      ktdf.stage depends_in(none) depends_out(%p#3) {{
        ktdf.data_transfer from %B[%row, 0] size [1, 64] to %p#1 size [1, 64] : memref<8x64xf16>, {SLOT_IN}
        ktdf.data_transfer from %A[%row, 0] size [1, 64] to %p#0 size [1, 64] : memref<8x64xf16>, {SLOT_IN}
      }}
"""
    text = kernel(load + ADD + STORE)
    d = _error(text).diagnostic
    assert d.message == (
        "stage #0 writes slot #1 of the FIFO of %p#1 out of order on core 0 (tile id (0)): the next slot to write "
        "is #0 (a FIFO's slots are written and read in allocation order)"
    )
    assert d.location.line == _line_of(text, "ktdf.data_transfer from %B")


def test_a_tile_of_unknown_size_into_a_static_slot_is_upstreams_verifier_error():
    """A tensor whose shape is known only at run time (tensor<?x64xf16>) does not
    go into a slot of static size: upstream's verifier says so, at the write."""
    add = ADD.replace("%s = arith.addf %x, %y : tensor<1x64xf16>",
                      "%s0 = arith.addf %x, %y : tensor<1x64xf16>\n"
                      "        %two = tensor.concat dim(0) %s0, %s0 : (tensor<1x64xf16>, tensor<1x64xf16>) -> tensor<2x64xf16>\n"
                      "        %s = tensor.cast %two : tensor<2x64xf16> to tensor<?x64xf16>")
    add = add.replace("ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>", "ktdf.write_to_fifo %s, %p#2 : tensor<?x64xf16>")
    text = kernel(LOAD + add + STORE)
    d = _error(text).diagnostic
    assert d.message == "'ktdf.write_to_fifo' op FIFO slot and data must both be dynamic or both be static"
    assert d.location.line == _line_of(text, "ktdf.write_to_fifo")


def test_reading_into_a_tensor_of_another_size_is_a_shape_error():
    add = ADD.replace("%x = ktdf.read_from_fifo %p#0 : " + SHORT_IN + " -> tensor<1x64xf16>",
                      "%x0 = ktdf.read_from_fifo %p#0 : " + SHORT_IN + " -> tensor<1x32xf16>\n"
                      "        %x = tensor.concat dim(1) %x0, %x0 : (tensor<1x32xf16>, tensor<1x32xf16>) -> tensor<1x64xf16>")
    text = kernel(LOAD + add + STORE)
    d = _error(text, verify=False).diagnostic
    assert d.message == (
        "stage #1 reads FIFO slot %p#0 of 64 elements into a tensor<1x32xf16>: a slot holds one tile, of the "
        "tensor's element count"
    )
    assert d.location.line == _line_of(text, "%x0 = ktdf.read_from_fifo")


def test_a_tile_left_in_a_slot_at_the_end_of_the_pipeline_is_an_error():
    """The store stage drains the slot only on even tiles."""
    store = f"""      ktdf.stage depends_in(%p#4) depends_out(%p#5) {{
        %odd = arith.remui %id, %c2 : index
        %even = arith.cmpi eq, %odd, %c0 : index
        scf.if %even {{
          ktdf.data_transfer from %p#2 size [1, 64] to %C[%row, 0] size [1, 64] : {SLOT_OUT}, memref<8x64xf16>
        }}
      }}
"""
    text = kernel(LOAD + ADD + store)
    for execution in ("batched", "per-core"):
        d = _error(text, execution=execution).diagnostic
        assert d.message == (
            "FIFO slot %p#2 still holds the tile stage #1 wrote when the pipeline ends on core 1 (tile id (1)): "
            "no stage read it"
        )
        assert d.location.line == _line_of(text, "ktdf.pipeline {")


def test_a_transfer_outside_its_view_is_the_usual_located_error():
    load = LOAD.replace("%A[%row, 0]", "%A[%row + 1, 0]")
    text = kernel(load + ADD + STORE)
    d = _error(text, mask_out_of_bounds=False).diagnostic
    assert d.message.startswith("access outside the view: coordinate (8, 0) is outside the 8x64xf16 view")
    assert "core 3" in d.message
    assert d.location.line == _line_of(text, "ktdf.data_transfer from %A")


def test_a_transfer_of_unwritten_memory_is_the_usual_located_error():
    text = kernel(LOAD + ADD + STORE).replace("%A = ktdp.construct_memory_view %a,", "%A = ktdp.construct_memory_view %c0,")
    d = _error(text).diagnostic
    assert "uninitialized" in d.message
    assert d.location.line == _line_of(text, "ktdf.data_transfer from %A")


# -- real MLIR ----------------------------------------------------------------------


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")
def test_the_generic_form_parses_in_real_mlir():
    module = spyre_mlir.parse(ADD_ROWS)
    text = ir.print_ir(module, generic_dialects=("ktdp", "spyre", "ktdf"))
    assert '"ktdf.stage"' in text and '!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>' in text
    proc = subprocess.run(
        [IREE_OPT, "--allow-unregistered-dialect", "--mlir-print-op-generic", "-"],
        input=text, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    again = spyre_mlir.parse(proc.stdout)
    assert [op.name for op in again.walk()] == [op.name for op in module.walk()]
    a, b = _ab(6)
    out = spyre_mlir.interpret(again, "add_rows", arg0=a, arg1=b, arg2=np.zeros_like(a))  # MLIR renamed them
    out["c"] = out["arg2"]
    np.testing.assert_array_equal(out["c"], a + b)
