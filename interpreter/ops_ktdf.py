"""ktdf: schedule-IR pipelines, stages, FIFO slots and tokens (docs/ktdf.md).

One execution of a `ktdf.pipeline` (an *instance*, counted per pipeline op
and run) runs its `ktdf.private` region, which makes new FIFO slots and
tokens, then its stages in their order. A stage runs when every token of its
`depends_in` has been signaled by a stage before it, and signals its
`depends_out` tokens when its body is done; a token no stage before it has
signaled is a located error at the stage (it could never run), never a hang.
Every stage execution is bracketed by `Runtime.stage(...)`, which appends a
`StageRecord` to the run's statistics.

FIFO slots. The slots of one `ktdf.fifo.allocate` with the same source and
destination units form one FIFO, a ring of capacity = its number of slots;
a slot holds one tile (its element count). Writes (`write_to_fifo`, a
transfer into the slot) fill a slot, reads (`read_from_fifo`, a transfer out
of it) empty it; both go round the ring in slot order. Writing a full slot
(overflow), reading an empty one (underflow), going out of ring order, a
tile whose element count is not the slot's, and a slot still full when the
pipeline ends are located errors naming the stage and the core.

Batching: the state of a slot is per core (a row per core of the pipeline
instance), so a stage body whose control flow diverges (a sub-frame of
lanes) reads and writes the rows of its own cores; slot and token handles are
shared by every lane (`take_lanes` returns them unchanged). Stages run in
the same order on every lane. A value read from a slot varies between cores
unless every write into that slot is a direct child of its stage and writes
a uniform value.
"""

from __future__ import annotations

import math
import weakref

import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation, SSAValue

from spyre_mlir.dialects.ktdf import (
    CreateTokenOp,
    DataTransferOp,
    FifoAllocateOp,
    FifoSlotType,
    PipelineOp,
    PrivateOp,
    ReadFromFifoOp,
    StageOp,
    WriteToFifoOp,
    describe_value,
    stages_of,
)
from spyre_mlir.interpreter.affine_eval import compile_map
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, make_runner, not_executable, value_format
from spyre_mlir.interpreter.dtypes import element_format
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.plugins import Plugin, register
from spyre_mlir.interpreter.views import BoxTile, DistributedView, MemoryView, TileGeometry, load, store

# ===========================================================================
# Run-time objects
# ===========================================================================


class Token:
    """One `ktdf.create_token` execution: signaled by identity."""

    __slots__ = ("value",)

    def __init__(self, value: SSAValue):
        self.value = value

    def take_lanes(self, idx) -> Token:
        return self

    def lane(self, lane: int) -> Token:
        return self


class Fifo:
    """The slots of one allocation with the same source and destination: a ring.
    `write_next` / `read_next`: per row (core), the position of the next slot
    to write / read."""

    __slots__ = ("size", "write_next", "read_next")

    def __init__(self, size: int, rows: int):
        self.size = size
        self.write_next = np.zeros(rows, np.int64)
        self.read_next = np.zeros(rows, np.int64)


class FifoSlot:
    """One slot of one pipeline instance: per core of the instance (a row,
    `lanes[row]` its core id), whether it holds a tile, the tile's elements and
    the stage that wrote it."""

    __slots__ = ("value", "fifo", "position", "count", "dtype", "lanes", "data", "full", "writer")

    def __init__(self, value: SSAValue, fifo: Fifo, position: int, count: int, dtype: np.dtype, lanes: np.ndarray):
        self.value = value
        self.fifo = fifo
        self.position = position
        self.count = count
        self.dtype = dtype
        self.lanes = lanes  # sorted core ids of the instance
        self.data: np.ndarray | None = None  # (rows, count), made on the first write
        self.full = np.zeros(lanes.shape[0], bool)
        self.writer = np.full(lanes.shape[0], -1, np.int64)

    def take_lanes(self, idx) -> FifoSlot:
        return self  # the state is per core already

    def lane(self, lane: int) -> FifoSlot:
        return self

    def rows(self, linear) -> np.ndarray:
        """Rows of the cores `linear` (an int for one core, or an array)."""
        ids = np.atleast_1d(np.asarray(linear, np.int64))
        rows = np.searchsorted(self.lanes, ids)
        if (rows >= self.lanes.shape[0]).any() or (self.lanes[np.minimum(rows, self.lanes.shape[0] - 1)] != ids).any():
            missing = [int(c) for c in ids if c not in set(self.lanes.tolist())]
            raise InterpreterError(
                f"FIFO slot {describe_value(self.value)} was allocated by the pipeline instance of cores "
                f"{self.lanes.tolist()}, not of core {missing[0]}"
            )
        return rows


class PipelineRun:
    """The state of one pipeline instance: its number and the tokens signaled."""

    __slots__ = ("instance", "signaled")

    def __init__(self, instance: int):
        self.instance = instance
        self.signaled: set[Token] = set()


_INSTANCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Per run (its `Runtime`): pipeline op -> executions so far (the next instance number)."""


def _next_instance(runtime, op: Operation) -> int:
    counts = _INSTANCES.get(runtime)
    if counts is None:
        counts = _INSTANCES[runtime] = {}
    n = counts.get(op, 0)
    counts[op] = n + 1
    return n


def _core(ctx, row_in_ctx: int) -> str:
    """`core 3 (tile id (3,))` for lane `row_in_ctx` of the executing frame."""
    return ctx.describe(row_in_ctx if ctx.count is not None else None)


def _stage_position(op: Operation) -> tuple[StageOp, int]:
    """The stage holding `op` and its index in its pipeline (decode-time check)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, StageOp):
        parent = parent.parent_op()
    if parent is None or not isinstance(parent.parent_op(), PipelineOp):
        raise InterpreterError(f"'{op.name}' runs only inside a 'ktdf.stage' of a 'ktdf.pipeline'")
    pipeline = parent.parent_op()
    assert isinstance(pipeline, PipelineOp)
    return parent, next(k for k, s in enumerate(stages_of(pipeline)) if s is parent)


# ===========================================================================
# Slot access
# ===========================================================================


def _shape_text(shape) -> str:
    return "x".join(str(int(d)) for d in shape)


def _write(slot: FifoSlot, ctx, values: np.ndarray, lanes_in_values: bool, stage: int, name: str) -> None:
    """Fill `slot` (called `name` by the op) on the cores of `ctx` with `values`
    (one tile, or one per lane)."""
    if not isinstance(slot, FifoSlot):
        raise InterpreterError(f"{name} is not a FIFO slot of this pipeline instance")
    rows = slot.rows(ctx.linear)
    tile_shape = values.shape[1:] if lanes_in_values else values.shape
    n = math.prod(tile_shape)
    if n != slot.count:
        raise InterpreterError(
            f"stage #{stage} writes a {_shape_text(tile_shape)} tile ({n} elements) into FIFO slot {name} of "
            f"{slot.count} elements: a slot holds one tile"
        )
    full = slot.full[rows]
    if full.any():
        k = int(np.argmax(full))
        raise InterpreterError(
            f"FIFO overflow: stage #{stage} writes FIFO slot {name}, which is full on {_core(ctx, k)}: it holds "
            f"the tile stage #{int(slot.writer[rows[k]])} wrote, not read yet (a slot holds one tile)"
        )
    fifo = slot.fifo
    order = fifo.write_next[rows] != slot.position
    if order.any():
        k = int(np.argmax(order))
        raise InterpreterError(
            f"stage #{stage} writes slot #{slot.position} of the FIFO of {name} out of order on {_core(ctx, k)}: "
            f"the next slot to write is #{int(fifo.write_next[rows[k]])} (a FIFO's slots are written and read in "
            "allocation order)"
        )
    if slot.data is None:
        slot.data = np.zeros((slot.lanes.shape[0], slot.count), slot.dtype)
    flat = values.reshape(values.shape[0], n) if lanes_in_values else values.reshape(n)
    slot.data[rows] = flat
    slot.full[rows] = True
    slot.writer[rows] = stage
    fifo.write_next[rows] = (slot.position + 1) % fifo.size


def _read(slot: FifoSlot, ctx, stage: int, name: str) -> np.ndarray:
    """Empty `slot` (called `name` by the op) on the cores of `ctx`: its tiles, (rows of ctx, count)."""
    if not isinstance(slot, FifoSlot):
        raise InterpreterError(f"{name} is not a FIFO slot of this pipeline instance")
    rows = slot.rows(ctx.linear)
    empty = ~slot.full[rows]
    if empty.any():
        k = int(np.argmax(empty))
        raise InterpreterError(
            f"FIFO underflow: stage #{stage} reads FIFO slot {name}, which is empty on {_core(ctx, k)}: no stage "
            "has written a tile into it since it was last read"
        )
    fifo = slot.fifo
    order = fifo.read_next[rows] != slot.position
    if order.any():
        k = int(np.argmax(order))
        raise InterpreterError(
            f"stage #{stage} reads slot #{slot.position} of the FIFO of {name} out of order on {_core(ctx, k)}: "
            f"the next slot to read is #{int(fifo.read_next[rows[k]])} (a FIFO's slots are written and read in "
            "allocation order)"
        )
    assert slot.data is not None
    tiles = slot.data[rows].copy()
    slot.full[rows] = False
    fifo.read_next[rows] = (slot.position + 1) % fifo.size
    return tiles


def _tile_shape(result_type: TensorType, count: int, stage: int, name: str) -> tuple[int, ...]:
    """The shape of a tensor of `result_type` holding `count` elements (one dynamic dim inferred)."""
    shape = list(result_type.get_shape())
    dynamic = [i for i, d in enumerate(shape) if d < 0]
    known = math.prod(d for d in shape if d >= 0)
    if len(dynamic) == 1 and known and count % known == 0:
        shape[dynamic[0]] = count // known
    if any(d < 0 for d in shape) or math.prod(shape) != count:
        raise InterpreterError(
            f"stage #{stage} reads FIFO slot {name} of {count} elements into a {result_type}: a slot holds one "
            "tile, of the tensor's element count"
        )
    return tuple(shape)


# ===========================================================================
# Handlers
# ===========================================================================


def _handle_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Slots and tokens are per-instance handles shared by every lane: never varying."""
    return False


@handles(CreateTokenOp, varying=_handle_varying)
def _create_token(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, CreateTokenOp)
    r = fc.slot(op.result)
    value = op.result

    def step(frame):
        frame[r] = Token(value)

    return step


@handles(FifoAllocateOp, varying=_handle_varying)
def _fifo_allocate(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, FifoAllocateOp)
    if op.dynamic_sizes:
        raise InterpreterError("FIFO slots of dynamic size ('?') are not supported by the interpreter")
    groups: dict[tuple[str, str], list[int]] = {}
    plans = []
    for i, result in enumerate(op.slots):
        ty = result.type
        assert isinstance(ty, FifoSlotType) and ty.count is not None
        group = groups.setdefault((ty.source.data, ty.destination.data), [])
        plans.append((fc.slot(result), result, (ty.source.data, ty.destination.data), len(group), ty.count,
                      element_format(ty.element_type).compute))
        group.append(i)
    sizes = {key: len(members) for key, members in groups.items()}
    program = fc.program

    def step(frame):
        lanes = np.atleast_1d(np.asarray(frame[0].linear, np.int64))
        rows = lanes.shape[0]
        program.runtime.check_allocation(
            sum(count * np.dtype(dtype).itemsize for *_, count, dtype in plans) * rows, "allocating FIFO slots"
        )
        fifos = {key: Fifo(size, rows) for key, size in sizes.items()}
        for slot, value, key, position, count, dtype in plans:
            frame[slot] = FifoSlot(value, fifos[key], position, count, dtype, lanes)

    return step


def _compile_private(fc: FunctionCompiler, op: PrivateOp) -> Step:
    """Run the region, bind its results. (Its batching rule is the conservative
    one: a yielded value that is uniform where its result varies is broadcast;
    slots and tokens are shared by every lane as they are.)"""
    body = fc.compile_block(op.body.block)
    result_slots = tuple(fc.slot(r) for r in op.results)
    yielded = op.yield_op.values if op.yield_op is not None else ()
    fixes = [
        fc.lanes_of(v)
        if fc.is_varying(r) and not fc.is_varying(v) and value_format(v) is not None
        else None
        for r, v in zip(op.results, yielded)
    ]

    def step(frame):
        for slot, value, fix in zip(result_slots, body(frame), fixes):
            frame[slot] = value if fix is None else fix(value, frame[0].count)

    return step


@handles(PipelineOp)
def _pipeline(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, PipelineOp)
    block = op.body.block
    private = None
    stages: list[StageOp] = []
    for inner in block.ops:
        if isinstance(inner, PrivateOp) and private is None:
            private = inner
        elif isinstance(inner, StageOp):
            stages.append(inner)
        else:
            raise InterpreterError(
                f"a 'ktdf.pipeline' holds one 'ktdf.private' and 'ktdf.stage's, not '{inner.name}'"
            )
    steps: list[Step] = []
    ops: list[Operation] = []
    if private is not None:
        steps.append(_compile_private(fc, private))
        ops.append(private)
    state = fc.new_slot()
    program = fc.program
    for k, stage in enumerate(stages):
        steps.append(_compile_stage(fc, op, stage, k, state))
        ops.append(stage)
    runner = make_runner(steps, ops, ())
    slots = []  # every FIFO slot the instance allocates, checked empty at its end, and its name
    if private is not None:
        yielded = private.yield_op.values if private.yield_op is not None else ()
        public = {v: r for v, r in zip(yielded, private.results)}  # the names the stages use
        for inner in private.body.walk():
            if isinstance(inner, FifoAllocateOp):
                slots += [(fc.slot(r), describe_value(public.get(r, r))) for r in inner.slots]

    def step(frame):
        frame[state] = PipelineRun(_next_instance(program.runtime, op))
        try:
            runner(frame)
        finally:
            frame[state] = None
        for s, name in slots:
            slot = frame[s]
            if not isinstance(slot, FifoSlot):
                continue
            rows = slot.rows(frame[0].linear)
            left = slot.full[rows]
            if left.any():
                k = int(np.argmax(left))
                raise InterpreterError(
                    f"FIFO slot {name} still holds the tile stage #{int(slot.writer[rows[k]])} wrote when the "
                    f"pipeline ends on {_core(frame[0], k)}: no stage read it"
                )

    return step


def _compile_stage(fc: FunctionCompiler, pipeline: PipelineOp, stage: StageOp, k: int, state: int) -> Step:
    body = fc.compile_block(stage.body.block)
    waits = tuple((fc.slot(t), describe_value(t)) for t in stage.depends_in)
    signals = tuple(fc.slot(t) for t in stage.depends_out)
    program = fc.program

    def step(frame):
        run: PipelineRun = frame[state]
        for slot, name in waits:
            if frame[slot] not in run.signaled:
                raise InterpreterError(
                    f"stage #{k} waits for token {name} that no stage before it signals: it could never run"
                )
        with program.runtime.stage(pipeline, run.instance, k, stage, frame[0].linear):
            body(frame)
        for slot in signals:
            run.signaled.add(frame[slot])

    return step


def _read_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The tile read varies unless every write into the slot is a direct child of
    its stage (so it runs on every lane of the instance) writing a uniform value."""
    assert isinstance(op, ReadFromFifoOp)
    if fc.is_varying(op.result):
        return False
    return fc.mark([op.result], _slot_varies(fc, op.fifo_slot))


def _slot_varies(fc: FunctionCompiler, slot: SSAValue) -> bool:
    for use in slot.uses:
        writer = use.operation
        if isinstance(writer, WriteToFifoOp) and writer.fifo_slot is slot:
            data = [writer.data]
        elif isinstance(writer, DataTransferOp) and writer.destination is slot and use.index != 0:
            data = [writer.source, *writer.source_indices]
        else:
            continue
        if not isinstance(writer.parent_op(), StageOp) or any(fc.is_varying(v) for v in data):
            return True
    return False


@handles(ReadFromFifoOp, varying=_read_varying)
def _read_from_fifo(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ReadFromFifoOp)
    _, k = _stage_position(op)
    ty = op.result.type
    if not isinstance(ty, TensorType):
        raise InterpreterError(f"reading a FIFO slot into a {ty} is not supported (tensors are)")
    s, r = fc.slot(op.fifo_slot), fc.slot(op.result)
    name = describe_value(op.fifo_slot)
    varying = fc.is_varying(op.result)
    dtype = fc.format(op.result).compute

    def step(frame):
        slot = frame[s]
        tiles = _read(slot, frame[0], k, name)
        shape = _tile_shape(ty, slot.count, k, name)
        if varying:
            out = tiles.reshape(tiles.shape[0], *shape)
            if frame[0].count is not None and out.shape[0] != frame[0].count:
                raise InterpreterError(f"internal: {out.shape[0]} tiles for {frame[0].count} lanes")
        else:
            out = tiles[0].reshape(shape)
        frame[r] = out.astype(dtype, copy=False)

    return step


@handles(WriteToFifoOp)
def _write_to_fifo(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, WriteToFifoOp)
    _, k = _stage_position(op)
    d, s = fc.slot(op.data), fc.slot(op.fifo_slot)
    name = describe_value(op.fifo_slot)
    varying = fc.is_varying(op.data)

    def step(frame):
        data = np.asarray(frame[d])
        lanes = varying and frame[0].count is not None
        _write(frame[s], frame[0], data, lanes, k, name)

    return step


@handles(DataTransferOp)
def _data_transfer(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, DataTransferOp)
    _, k = _stage_position(op)
    view_value, indices, amap, sizes = op.memref_side()
    view_type = view_value.type
    assert isinstance(view_type, MemRefType)
    fmt = element_format(view_type.get_element_type())
    anchor_of = compile_map(amap)
    n_dims = amap.num_dims
    geom = TileGeometry((0,) * len(sizes), tuple(sizes), tuple(range(len(sizes))))
    v = fc.slot(view_value)
    index_slots = tuple(fc.slot(i) for i in indices)
    s = fc.slot(op.slot())
    name = describe_value(op.slot())
    program = fc.program
    to_slot = op.to_slot
    what = "into" if to_slot else "out of"

    def tile(frame) -> BoxTile:
        view = frame[v]
        if not isinstance(view, MemoryView | DistributedView):
            raise InterpreterError(
                f"a transfer {what} a FIFO slot needs a view made by 'ktdp.construct_memory_view' (or a distributed "
                "view) on its memref side"
            )
        if view.fmt.name != fmt.name:
            raise InterpreterError(f"transferring {fmt.name} elements through a {view.fmt.name} view")
        values = [frame[i] for i in index_slots]
        anchor = anchor_of(values[:n_dims], values[n_dims:])
        return BoxTile(view, tuple(anchor), geom, None)

    if to_slot:

        def step(frame):
            box = tile(frame)
            data = load(box, frame[0], program.runtime.access)
            lanes = frame[0].count is not None and data.ndim == len(sizes) + 1
            _write(frame[s], frame[0], data, lanes, k, name)

        return step

    def step(frame):
        slot = frame[s]
        tiles = _read(slot, frame[0], k, name)
        box = tile(frame)
        if frame[0].count is None:
            data = tiles[0].reshape(sizes)
        else:
            data = tiles.reshape(tiles.shape[0], *sizes)
        store(box, data.astype(fmt.compute, copy=False), frame[0], program.runtime.access)

    return step


not_executable(
    {
        PrivateOp: "run by the handler of its 'ktdf.pipeline', first, once per pipeline instance",
        StageOp: "run by the handler of its 'ktdf.pipeline', in token order",
    }
)


register(Plugin("ktdf", hbm_transfers=(DataTransferOp,)))  # data transfers move HBM data (the report's HBM traffic)
