"""ktdf: schedule-IR pipelines, stages, FIFO slots and tokens (docs/ktdf.md, "Execution").

One execution of a `ktdf.pipeline` (an *instance*, counted per pipeline op
and run) runs its `ktdf.private` region, which makes new FIFO slots, tokens
and L1 buffers, then its stages in their order. A stage runs when every token
of its `depends_in` has been signaled by a stage before it, and signals its
`depends_out` tokens when its body is done; a token no stage before it has
signaled is a located error at the stage (it could never run: a deadlock),
never a hang. Every stage execution is bracketed by `Runtime.stage(...)`,
which appends a `StageRecord` to the run's statistics. The L1 buffers the
private region allocated are freed when the instance ends.

FIFOs (KTDF.td, `ktdf.fifo.allocate`). The slots of one allocation with the
same source and destination units form one FIFO. As upstream models it, a
FIFO has unbounded depth: its slots are used in allocation order, rolling
over, and each *use* of a slot is filled with exactly the slot's element
count before the next slot is written (and drained the same way by reads).
So running the stages one after another in token order is exact: a stage
may write a slot many times (in a loop) before the stage reading it runs,
the tiles queue up. Errors, each located at the op and naming the stage and
the core: writing more elements into a use of a slot than it has room for
(*overflow*), reading a slot no stage has written (*underflow*: read before
written), reading or writing slots out of allocation order, reading past the
end of a use, and data still queued when the pipeline ends.

Batching: the state of a FIFO is per core (a row per core of the pipeline
instance), so a stage body whose control flow diverges (a sub-frame of
lanes) reads and writes the rows of its own cores; slot and token handles are
shared by every lane (`take_lanes` returns them unchanged). Stages run in
the same order on every lane. A value read from a slot varies between cores
unless every write into that slot is a direct child of its stage and writes
a uniform value.

Transfers (`ktdf.data_transfer`) move boxes between memrefs (the views of
interpreter/ops_memref.py, or `ktdp.construct_memory_view` views directly)
and FIFO slots, memref to memref included; the elements go in C order of
each side's box, and both sides move the same number of elements.
"""

from __future__ import annotations

import math
import time
import weakref
from collections import deque

import numpy as np
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, StringAttr, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue

from spyre_mlir.dialects.ktdf import (
    BufferPhaseOp,
    CreateTokenOp,
    DataTransferOp,
    FifoAllocateOp,
    FifoSlotType,
    OpaqueOp,
    ParallelOp,
    PipelineOp,
    PrivateOp,
    ReadFromFifoOp,
    SelectMemrefOp,
    StageOp,
    TilingDeriveSizeOp,
    TilingLinearizeIndexOp,
    TilingReserveSizeOp,
    WriteToFifoOp,
    describe_value,
    stages_of,
    unit_name,
)
from spyre_mlir.interpreter.affine_eval import compile_map
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, make_runner, not_executable, value_format
from spyre_mlir.interpreter.dtypes import element_format
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable
from spyre_mlir.interpreter.ops_memref import Memref, box_view, identity_strides, memref_run
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
    """The slots of one allocation with the same source and destination: an
    unbounded queue of elements whose uses go round the slots in order.
    Per row (core): the slot being written and how full its use is, the slot
    being read and how much of its use was read, and the elements queued.

    The queue is one deque of (rows x n) chunks while every access is by all
    the rows together (one core, or batched cores that never diverge here);
    the first access by some rows only splits it into a deque per row."""

    __slots__ = ("sizes", "write_slot", "write_fill", "read_slot", "read_fill", "queued", "batches", "chunks", "nrows")

    def __init__(self, sizes: list[int], rows: int):
        self.sizes = sizes  # element count of each slot, by position
        self.nrows = rows
        self.write_slot = np.zeros(rows, np.int64)
        self.write_fill = np.zeros(rows, np.int64)
        self.read_slot = np.zeros(rows, np.int64)
        self.read_fill = np.zeros(rows, np.int64)
        self.queued = np.zeros(rows, np.int64)  # elements written, not read yet
        self.batches: deque | None = deque()  # (data (rows, n), writer stage), while all rows go together
        self.chunks: list[deque] | None = None  # per row: (data (n,), writer stage), once they do not

    def per_row(self) -> list[deque]:
        """The queue as one deque per row (made from the batches on first need)."""
        if self.chunks is None:
            self.chunks = [deque() for _ in range(self.nrows)]
            for data, writer in self.batches or ():
                for row in range(self.nrows):
                    self.chunks[row].append((data[row], writer))
            self.batches = None
        return self.chunks

    def head_writer(self, row: int) -> int:
        """The stage that wrote the next element `row` would read."""
        if self.batches is not None:
            return self.batches[0][1]
        return self.per_row()[row][0][1]


class FifoSlot:
    """One slot of one pipeline instance: its FIFO, its position in it, its
    element count, and the sorted core ids of the instance (a row each)."""

    __slots__ = ("value", "fifo", "position", "count", "dtype", "lanes", "_asked", "_rows")

    def __init__(self, value: SSAValue, fifo: Fifo, position: int, count: int, dtype: np.dtype, lanes: np.ndarray):
        self.value = value
        self.fifo = fifo
        self.position = position
        self.count = count
        self.dtype = dtype
        self.lanes = lanes
        self._asked = None  # the cores of the last `rows` call (the frame's array, asked again and again)
        self._rows = None

    def take_lanes(self, idx) -> FifoSlot:
        return self  # the state is per core already

    def lane(self, lane: int) -> FifoSlot:
        return self

    def know_rows(self, linear: np.ndarray, rows: np.ndarray) -> None:
        """Remember that the cores `linear` (a frame's array) are `rows`."""
        self._asked, self._rows = linear, rows

    def rows(self, linear) -> np.ndarray:
        """Rows of the cores `linear` (an int for one core, or an array)."""
        if linear is self._asked:
            return self._rows
        ids = np.atleast_1d(np.asarray(linear, np.int64))
        rows = np.searchsorted(self.lanes, ids)
        if (rows >= self.lanes.shape[0]).any() or (self.lanes[np.minimum(rows, self.lanes.shape[0] - 1)] != ids).any():
            missing = [int(c) for c in ids if c not in set(self.lanes.tolist())]
            raise InterpreterError(
                f"FIFO slot {describe_value(self.value)} was allocated by the pipeline instance of cores "
                f"{self.lanes.tolist()}, not of core {missing[0]}"
            )
        if isinstance(linear, np.ndarray):
            self._asked, self._rows = linear, rows
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
    """Queue `values` (one tile, or one per lane) into `slot` (called `name` by
    the op) on the cores of `ctx`."""
    if not isinstance(slot, FifoSlot):
        raise InterpreterError(f"{name} is not a FIFO slot of this pipeline instance")
    rows = slot.rows(ctx.linear)
    tile_shape = values.shape[1:] if lanes_in_values else values.shape
    n = math.prod(tile_shape)
    fifo = slot.fifo
    order = fifo.write_slot[rows] != slot.position
    if order.any():
        k = int(np.argmax(order))
        raise InterpreterError(
            f"stage #{stage} writes slot #{slot.position} of the FIFO of {name} out of order on {_core(ctx, k)}: "
            f"the next slot to write is #{int(fifo.write_slot[rows[k]])} (a FIFO's slots are written and read in "
            "allocation order)"
        )
    room = slot.count - fifo.write_fill[rows]
    over = room < n
    if over.any():
        k = int(np.argmax(over))
        if room[k] == slot.count:
            raise InterpreterError(
                f"FIFO overflow: stage #{stage} writes a {_shape_text(tile_shape)} tile ({n} elements) into FIFO "
                f"slot {name} of {slot.count} elements: a slot holds one tile"
            )
        raise InterpreterError(
            f"FIFO overflow: stage #{stage} writes {n} elements into FIFO slot {name} on {_core(ctx, k)}, which has "
            f"room for {int(room[k])} of its {slot.count} (the data of one use of a slot fills it exactly)"
        )
    flat = values.reshape(values.shape[0], n) if lanes_in_values else values.reshape(n)
    flat = flat.astype(slot.dtype, copy=True)
    if fifo.batches is not None and rows.shape[0] == fifo.nrows:  # every row: one chunk
        fifo.batches.append((flat if lanes_in_values else np.broadcast_to(flat, (fifo.nrows, n)), stage))
    else:
        chunks = fifo.per_row()
        for j, row in enumerate(rows.tolist()):
            chunks[row].append((flat[j] if lanes_in_values else flat, stage))
    fill = fifo.write_fill[rows] + n
    done = fill == slot.count
    fifo.write_fill[rows] = np.where(done, 0, fill)
    fifo.write_slot[rows] = np.where(done, (slot.position + 1) % len(fifo.sizes), slot.position)
    fifo.queued[rows] += n


def _read(slot: FifoSlot, ctx, stage: int, name: str, n: int | None = None) -> np.ndarray:
    """Take `n` elements (default: the slot's count) out of `slot` (called
    `name` by the op) on the cores of `ctx`: (rows of ctx, n)."""
    if not isinstance(slot, FifoSlot):
        raise InterpreterError(f"{name} is not a FIFO slot of this pipeline instance")
    if n is None:
        n = slot.count
    rows = slot.rows(ctx.linear)
    fifo = slot.fifo
    empty = fifo.queued[rows] == 0
    if empty.any():
        k = int(np.argmax(empty))
        raise InterpreterError(
            f"FIFO underflow: stage #{stage} reads FIFO slot {name}, which is empty on {_core(ctx, k)}: no stage has "
            "written a tile into it since it was last read"
        )
    order = fifo.read_slot[rows] != slot.position
    if order.any():
        k = int(np.argmax(order))
        raise InterpreterError(
            f"stage #{stage} reads slot #{slot.position} of the FIFO of {name} out of order on {_core(ctx, k)}: "
            f"the next slot to read is #{int(fifo.read_slot[rows[k]])} (a FIFO's slots are written and read in "
            "allocation order)"
        )
    past = fifo.read_fill[rows] + n > slot.count
    if past.any():
        k = int(np.argmax(past))
        raise InterpreterError(
            f"stage #{stage} reads {n} elements from FIFO slot {name} of {slot.count} elements on {_core(ctx, k)}, "
            f"{int(fifo.read_fill[rows[k]])} of which it read already: a read takes the rest of one use of a slot "
            "at most"
        )
    short = fifo.queued[rows] < n
    if short.any():
        k = int(np.argmax(short))
        raise InterpreterError(
            f"FIFO underflow: stage #{stage} reads {n} elements from FIFO slot {name} on {_core(ctx, k)}, but only "
            f"{int(fifo.queued[rows[k]])} were written to it and not read yet"
        )
    if fifo.batches is not None and rows.shape[0] == fifo.nrows:  # every row: from the batches
        out = _take(fifo.batches, n, 1)
    else:
        out = np.empty((rows.shape[0], n), slot.dtype)
        chunks = fifo.per_row()
        for j, row in enumerate(rows.tolist()):
            out[j] = _take(chunks[row], n, 0)
    fill = fifo.read_fill[rows] + n
    done = fill == slot.count
    fifo.read_fill[rows] = np.where(done, 0, fill)
    fifo.read_slot[rows] = np.where(done, (slot.position + 1) % len(fifo.sizes), slot.position)
    fifo.queued[rows] -= n
    return out


def _take(queue: deque, n: int, axis: int) -> np.ndarray:
    """The first `n` elements (along `axis`) of the chunks of `queue`, removed from it."""
    pieces = []
    got = 0
    while got < n:
        chunk, writer = queue[0]
        size = chunk.shape[axis]
        take = min(n - got, size)
        if take == size:
            pieces.append(chunk)
            queue.popleft()
        else:
            pieces.append(chunk[..., :take] if axis else chunk[:take])
            queue[0] = (chunk[..., take:] if axis else chunk[take:], writer)
        got += take
    return pieces[0].copy() if len(pieces) == 1 else np.concatenate(pieces, axis=axis)


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
# Pipelines, stages, private resources
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
    if any(fc.is_varying(v) for v in op.dynamic_sizes):
        raise NotBatchable(op, "the size of a FIFO slot depends on the core id")
    groups: dict[tuple[str, str], list[int]] = {}
    plans = []
    dynamic = iter(op.dynamic_sizes)
    for i, result in enumerate(op.slots):
        ty = result.type
        assert isinstance(ty, FifoSlotType)
        key = (unit_name(ty.source), unit_name(ty.destination))
        group = groups.setdefault(key, [])
        count = ty.count if ty.count is not None else ("slot", fc.slot(next(dynamic)))
        plans.append((fc.slot(result), result, key, len(group), count, element_format(ty.element_type).compute))
        group.append(i)
    program = fc.program

    def step(frame):
        lanes = np.atleast_1d(np.asarray(frame[0].linear, np.int64))
        rows = lanes.shape[0]
        counts = []
        for *_, count, _ in plans:
            n = int(frame[count[1]]) if isinstance(count, tuple) else count
            if n <= 0:
                raise InterpreterError(f"a FIFO slot holds a positive number of elements, got {n}")
            counts.append(n)
        program.runtime.check_allocation(
            sum(n * np.dtype(plan[5]).itemsize for n, plan in zip(counts, plans)) * rows, "allocating FIFO slots"
        )
        sizes: dict[tuple[str, str], list[int]] = {}
        for (_, _, key, _, _, _), n in zip(plans, counts):
            sizes.setdefault(key, []).append(n)
        fifos = {key: Fifo(s, rows) for key, s in sizes.items()}
        linear = frame[0].linear
        every_row = np.arange(rows) if isinstance(linear, np.ndarray) else None
        for (slot, value, key, position, _, dtype), n in zip(plans, counts):
            made = frame[slot] = FifoSlot(value, fifos[key], position, n, dtype, lanes)
            if every_row is not None:  # the allocating cores are the rows, in order
                made.know_rows(linear, every_row)

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
    for k in _token_order(stages):
        steps.append(_compile_stage(fc, op, stages[k], k, state))
        ops.append(stages[k])
    runner = make_runner(steps, ops, ())
    slots = []  # every FIFO slot the instance allocates, checked drained at its end, and its name
    buffers = []  # the slots of what the private region allocated with memref.alloc: freed at the end
    if private is not None:
        yielded = private.yield_op.values if private.yield_op is not None else ()
        public = {v: r for v, r in zip(yielded, private.results)}  # the names the stages use
        for inner in private.body.walk():
            if isinstance(inner, FifoAllocateOp):
                slots += [(fc.slot(r), describe_value(public.get(r, r))) for r in inner.slots]
            elif isinstance(inner, memref.AllocOp | memref.AllocaOp):
                buffers.append(fc.slot(inner.memref))

    def step(frame):
        frame[state] = PipelineRun(_next_instance(program.runtime, op))
        run = memref_run(program.runtime)
        run.scopes.append([])
        try:
            runner(frame)
        finally:
            frame[state] = None
            for b in buffers:
                run.free_memref(frame[b])
            for key in run.scopes.pop():
                run.free(key)
        for s, name in slots:
            slot = frame[s]
            if not isinstance(slot, FifoSlot):
                continue
            rows = slot.rows(frame[0].linear)
            fifo = slot.fifo
            left = (fifo.queued[rows] > 0) & (fifo.read_slot[rows] == slot.position)
            if left.any():  # reported at the slot the next read would take
                k = int(np.argmax(left))
                n = int(fifo.queued[rows[k]])
                writer = fifo.head_writer(int(rows[k]))
                what = "the tile" if n == slot.count and not fifo.read_fill[rows[k]] else f"{n} elements"
                raise InterpreterError(
                    f"FIFO slot {name} still holds {what} stage #{writer} wrote when the pipeline ends on "
                    f"{_core(frame[0], k)}: no stage read it"
                )

    return step


def _token_order(stages: list[StageOp]) -> list[int]:
    """The stages' indices in the order they run: each after the stages signaling
    its `depends_in` tokens, textual order among those ready (upstream lets a
    stage come before the ones it waits for). Stages that could never run (a
    token no stage signals, a cycle) come last, to fail when they wait."""
    signalers: dict[SSAValue, list[int]] = {}
    for k, stage in enumerate(stages):
        for token in stage.depends_out:
            signalers.setdefault(token, []).append(k)
    done: set[int] = set()
    order: list[int] = []
    progress = True
    while progress:
        progress = False
        for k, stage in enumerate(stages):
            if k in done:
                continue
            needs = [signalers.get(t) for t in stage.depends_in]
            if all(n is not None and all(j in done for j in n) for n in needs):
                done.add(k)
                order.append(k)
                progress = True
                break  # the first ready stage in textual order, then look again from the top
    return order + [k for k in range(len(stages)) if k not in done]


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


# ===========================================================================
# Reads, writes and transfers
# ===========================================================================


def _read_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The tile read varies unless every write into the slot is a direct child of
    its stage (so it runs on every lane of the instance) writing a uniform value."""
    assert isinstance(op, ReadFromFifoOp)
    if fc.is_varying(op.result):
        return False
    if isinstance(op.result.type, MemRefType):  # a buffer per core
        return fc.mark([op.result])
    return fc.mark([op.result], _slot_varies(fc, op.fifo_slot))


def _slot_varies(fc: FunctionCompiler, slot: SSAValue) -> bool:
    for use in slot.uses:
        writer = use.operation
        if isinstance(writer, WriteToFifoOp) and writer.fifo_slot is slot:
            data = [writer.data]
        elif isinstance(writer, DataTransferOp) and writer.destination is slot and use.index != 0:
            data = [writer.source, *writer.source_indices, *writer.source_sizes]
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
    if isinstance(ty, MemRefType):
        return _read_into_memref(fc, op, k)
    if not isinstance(ty, TensorType):
        raise InterpreterError(f"reading a FIFO slot into a {ty} is not supported (tensors and memrefs are)")
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


def _read_into_memref(fc: FunctionCompiler, op: ReadFromFifoOp, k: int) -> Step:
    """Upstream's "unrealized memory buffer": a fresh buffer per core holding the
    tile (identity layout), private to the reader, never counted against LX."""
    ty = op.result.type
    assert isinstance(ty, MemRefType)
    fmt = element_format(ty.get_element_type())
    s, r = fc.slot(op.fifo_slot), fc.slot(op.result)
    name = describe_value(op.fifo_slot)
    result_name = describe_value(op.result)
    program = fc.program
    batched = fc.batched

    def step(frame):
        slot = frame[s]
        tiles = _read(slot, frame[0], k, name)
        shape = _tile_shape(TensorType(ty.get_element_type(), ty.get_shape()), slot.count, k, name)
        cores = np.atleast_1d(np.asarray(frame[0].linear, np.int64)).tolist()
        run = memref_run(program.runtime)
        key = run.unrealized(cores, slot.count * fmt.storage.itemsize, result_name)
        base = np.arange(len(cores), dtype=np.int64) * slot.count if batched else 0
        view = box_view(fmt, base, shape, identity_strides(shape), key, op)
        data = tiles.reshape(len(cores), *shape) if batched else tiles[0].reshape(shape)
        store(BoxTile(view, (0,) * len(shape), _geometry(shape), None), data.astype(fmt.compute, copy=False),
              frame[0], run.access)
        frame[r] = Memref(view, base)

    return step


@handles(WriteToFifoOp)
def _write_to_fifo(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, WriteToFifoOp)
    _, k = _stage_position(op)
    d, s = fc.slot(op.data), fc.slot(op.fifo_slot)
    name = describe_value(op.fifo_slot)
    varying = fc.is_varying(op.data)
    program = fc.program
    from_memref = isinstance(op.data.type, MemRefType)

    def step(frame):
        if from_memref:  # the whole memref, in C order
            ref = frame[d]
            view = ref.view if isinstance(ref, Memref) else ref
            box = BoxTile(view, (0,) * len(view.sizes), _geometry(tuple(view.sizes)), None)
            data = load(box, frame[0], _access(program, ref))
            lanes = frame[0].count is not None and data.ndim == len(view.sizes) + 1
        else:
            data = np.asarray(frame[d])
            lanes = varying and frame[0].count is not None
        _write(frame[s], frame[0], data, lanes, k, name)

    return step


_GEOMETRIES: dict[tuple[int, ...], TileGeometry] = {}


def _geometry(sizes: tuple[int, ...]) -> TileGeometry:
    geom = _GEOMETRIES.get(sizes)
    if geom is None:
        geom = _GEOMETRIES[sizes] = TileGeometry((0,) * len(sizes), sizes, tuple(range(len(sizes))))
    return geom


def _access(program, ref):
    """Transfers through public-form memrefs are strict (an element outside the
    memref is an error); through a `ktdp.construct_memory_view` view they
    follow the run's options (KTDP-SEMANTICS §4)."""
    if isinstance(ref, Memref):
        return memref_run(program.runtime).access
    return program.runtime.access


class _Side:
    """One side of a transfer, decoded: a FIFO slot or a memref box."""

    def __init__(self, fc: FunctionCompiler, op: DataTransferOp, value: SSAValue, indices, amap, dynamic, static):
        self.value = value
        self.is_slot = isinstance(value.type, FifoSlotType)
        self.slot = fc.slot(value)
        self.name = describe_value(value)
        dyn = iter(dynamic)
        self.sizes = None
        if static is not None:
            self.sizes = [("slot", fc.slot(next(dyn))) if s == DYNAMIC_INDEX else int(s) for s in static.get_values()]
        elif dynamic:
            self.sizes = [("slot", fc.slot(v)) for v in dynamic]
        self.index_slots = tuple(fc.slot(i) for i in indices)
        if self.is_slot:
            return
        ty = value.type
        assert isinstance(ty, MemRefType)
        self.fmt = element_format(ty.get_element_type())
        self.rank = ty.get_num_dims()
        self.anchor_of = compile_map(amap.data) if amap is not None else None
        self.n_dims = amap.data.num_dims if amap is not None else 0
        if self.sizes is None:
            self.sizes = list(ty.get_shape())
            if any(s < 0 for s in self.sizes):
                raise InterpreterError(f"the transfer names no size for the dynamically shaped {ty}")

    def shape(self, frame) -> tuple[int, ...] | None:
        if self.sizes is None:
            return None
        out = []
        for s in self.sizes:
            v = frame[s[1]] if isinstance(s, tuple) else s
            if isinstance(v, np.ndarray):
                raise InterpreterError("the size of a transfer differs between cores")
            if int(v) < 0:
                raise InterpreterError(f"a transfer of negative size {int(v)}")
            out.append(int(v))
        return tuple(out)

    def box(self, frame, sizes: tuple[int, ...], what: str) -> tuple[BoxTile, object]:
        ref = frame[self.slot]
        view = ref.view if isinstance(ref, Memref) else ref
        if not isinstance(view, MemoryView | DistributedView):
            raise InterpreterError(f"the {what} of the transfer, {self.name}, is not a memory view or memref")
        if view.fmt.name != self.fmt.name:
            raise InterpreterError(f"transferring {self.fmt.name} elements through a {view.fmt.name} view")
        if self.anchor_of is None:
            anchor = (0,) * self.rank
        else:
            values = [frame[i] for i in self.index_slots]
            anchor = tuple(self.anchor_of(values[: self.n_dims], values[self.n_dims :]))
        if len(sizes) != len(anchor):
            raise InterpreterError(f"a transfer of {len(sizes)} sizes through the rank-{len(anchor)} {self.name}")
        return BoxTile(view, anchor, _geometry(sizes), None), ref


def _transfer_varying(fc: FunctionCompiler, op: Operation) -> bool:
    return False  # no results


@handles(DataTransferOp, varying=_transfer_varying)
def _data_transfer(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, DataTransferOp)
    _, k = _stage_position(op)
    if any(fc.is_varying(v) for v in (*op.source_sizes, *op.dest_sizes)):
        raise NotBatchable(op, "the size of a transfer depends on the core id")
    src = _Side(fc, op, op.source, op.source_indices, op.source_map, op.source_sizes, op.static_source_sizes)
    dst = _Side(fc, op, op.destination, op.dest_indices, op.dest_map, op.dest_sizes, op.static_dest_sizes)
    program = fc.program
    mode = op.attributes.get("transfer_mode")
    splat = isinstance(mode, StringAttr) and mode.data == "splat"  # one element, broadcast to the destination

    def count(frame) -> tuple[int, tuple | None, tuple | None]:
        src_shape, dst_shape = src.shape(frame), dst.shape(frame)
        shapes = [s for s in (src_shape, dst_shape) if s is not None]
        if not shapes:  # slot to slot is refused by the verifier; both slot sides without sizes
            n = frame[src.slot].count
        else:
            n = math.prod(shapes[0])
        if splat:
            if n != 1:
                raise InterpreterError(f"a splat transfer reads one element, not {n} ({_shape_text(shapes[0])})")
            return 1, src_shape, dst_shape
        if len(shapes) == 2 and math.prod(shapes[1]) != n:
            hint = ' (one element broadcasts with {transfer_mode = "splat"})' if n == 1 else ""
            raise InterpreterError(
                f"the transfer moves {n} elements ({_shape_text(shapes[0])}) out of {src.name} but "
                f"{math.prod(shapes[1])} ({_shape_text(shapes[1])}) into {dst.name}: both sides move the same "
                f"elements{hint}"
            )
        return n, src_shape, dst_shape

    def step(frame):
        ctx = frame[0]
        n, src_shape, dst_shape = count(frame)
        if src.is_slot:
            tiles = _read(frame[src.slot], ctx, k, src.name, n)
            data = tiles[0] if ctx.count is None else tiles
            lanes = ctx.count is not None
        else:
            assert src_shape is not None
            tile, ref = src.box(frame, src_shape, "source")
            data = load(tile, ctx, _access(program, ref))
            lanes = ctx.count is not None and data.ndim == len(src_shape) + 1
        if splat:
            total = math.prod(dst_shape) if dst_shape is not None else frame[dst.slot].count
            flat = data.reshape(data.shape[0], 1) if lanes else data.reshape(1)
            data = np.repeat(flat, total, axis=-1)
        if dst.is_slot:
            _write(frame[dst.slot], ctx, data, lanes, k, dst.name)
            return
        assert dst_shape is not None
        tile, ref = dst.box(frame, dst_shape, "destination")
        shaped = data.reshape((data.shape[0], *dst_shape) if lanes else dst_shape)
        store(tile, shaped.astype(dst.fmt.compute, copy=False), ctx, _access(program, ref))

    return step


# ===========================================================================
# Tiling, double buffering, parallel, opaque
# ===========================================================================


def _scalar_varying(fc: FunctionCompiler, op: Operation) -> bool:
    return fc.mark(op.results, any(fc.is_varying(v) for v in op.operands))


@handles(TilingReserveSizeOp, varying=_scalar_varying)
def _reserve_size(fc: FunctionCompiler, op: Operation) -> Step:
    """The scheduler's placeholder, resolved as the smallest size its constraints
    allow: the least multiple of `divisibility` that is at least `min_value`."""
    assert isinstance(op, TilingReserveSizeOp)
    least, multiple = op.min_value.value.data, op.divisibility.value.data
    if multiple <= 0:
        raise InterpreterError(f"'ktdf.tiling.reserve_size' with divisibility {multiple}: no tile size satisfies it")
    size = max(1, -(-least // multiple)) * multiple
    r = fc.slot(op.result)

    def step(frame):
        frame[r] = size

    return step


@handles(TilingDeriveSizeOp, varying=_scalar_varying)
def _derive_size(fc: FunctionCompiler, op: Operation) -> Step:
    """The trip count of the inner loop: per pair, outermost first, what is left
    of the enclosing extent after the tiles before this one, at most a tile."""
    assert isinstance(op, TilingDeriveSizeOp)
    pairs = tuple((fc.slot(i), fc.slot(t)) for i, t in zip(op.ivs, op.tile_sizes))
    total, r = fc.slot(op.total_size), fc.slot(op.result)

    def step(frame):
        extent = frame[total]
        for iv, size in pairs:
            extent = np.clip(np.minimum(frame[size], extent - frame[iv] * frame[size]), 0, None)
        frame[r] = extent if isinstance(extent, np.ndarray) else int(extent)

    return step


@handles(TilingLinearizeIndexOp, varying=_scalar_varying)
def _linearize_index(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, TilingLinearizeIndexOp)
    pairs = tuple((fc.slot(i), fc.slot(s)) for i, s in zip(op.ivs, op.strides))
    r = fc.slot(op.result)

    def step(frame):
        index = 0
        for iv, stride in pairs:
            index = index + frame[iv] * frame[stride]
        frame[r] = index

    return step


@handles(BufferPhaseOp, varying=_scalar_varying)
def _buffer_phase(fc: FunctionCompiler, op: Operation) -> Step:
    """The linearized iteration count of the loops of its IVs (outermost first),
    modulo `num_phases`."""
    assert isinstance(op, BufferPhaseOp)
    loops = []
    for iv in op.ivs:
        owner = iv.owner.parent_op() if isinstance(iv, BlockArgument) else None
        if not isinstance(owner, scf.ForOp) or iv is not owner.body.block.args[0]:
            raise InterpreterError(f"'ktdf.buffer_phase' operand {describe_value(iv)} is not the IV of an 'scf.for'")
        loops.append((fc.slot(iv), fc.slot(owner.lb), fc.slot(owner.ub), fc.slot(owner.step)))
    phases = op.num_phases.value.data
    r = fc.slot(op.result)

    def step(frame):
        count = 0
        for iv, lb, ub, st in loops:
            trips = np.maximum(0, -(-(frame[ub] - frame[lb]) // frame[st]))
            count = count * trips + (frame[iv] - frame[lb]) // frame[st]
        frame[r] = count % phases

    return step


def _select_varying(fc: FunctionCompiler, op: Operation) -> bool:
    return fc.mark(op.results, any(fc.is_varying(v) for v in op.operands))


@handles(SelectMemrefOp, varying=_select_varying)
def _select_memref(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, SelectMemrefOp)
    if fc.is_varying(op.phase):
        raise NotBatchable(op, "the phase selecting a buffer depends on the core id")
    phase = fc.slot(op.phase)
    candidates = tuple(fc.slot(c) for c in op.candidates)
    r = fc.slot(op.result)

    def step(frame):
        p = int(frame[phase])
        if not 0 <= p < len(candidates):
            raise InterpreterError(f"phase {p} selects none of the {len(candidates)} candidate memrefs")
        frame[r] = frame[candidates[p]]  # a handle: one shared by all cores serves each of them

    return step


def _parallel_varying(fc: FunctionCompiler, op: Operation) -> bool:
    assert isinstance(op, ParallelOp)
    bounds = (*op.lower_bounds, *op.upper_bounds, *op.steps)
    return fc.mark(op.body.block.args, any(fc.is_varying(v) for v in bounds))


@handles(ParallelOp, varying=_parallel_varying)
def _parallel(fc: FunctionCompiler, op: Operation) -> Step:
    """The iterations in lex order, instance by instance: instance i runs the
    i-th contiguous chunk of ceil(T / num_instances) iterations."""
    assert isinstance(op, ParallelOp)
    if any(fc.is_varying(v) for v in (*op.lower_bounds, *op.upper_bounds, *op.steps)):
        raise NotBatchable(op, "the iteration space of a 'ktdf.parallel' depends on the core id")
    lbs = tuple(fc.slot(v) for v in op.lower_bounds)
    ubs = tuple(fc.slot(v) for v in op.upper_bounds)
    steps = tuple(fc.slot(v) for v in op.steps)
    ivs = tuple(fc.slot(a) for a in op.induction_vars)
    inst = fc.slot(op.instance_id)
    instances = op.num_instances.value.data
    body = fc.compile_block(op.body.block)
    program = fc.program

    def step(frame):
        lows = [int(frame[s]) for s in lbs]
        highs = [int(frame[s]) for s in ubs]
        strides = [int(frame[s]) for s in steps]
        if any(s <= 0 for s in strides):
            raise InterpreterError(f"'ktdf.parallel' steps must be positive, got {strides}")
        trips = [max(0, -(-(h - lo) // s)) for lo, h, s in zip(lows, highs, strides)]
        total = math.prod(trips)
        chunk = -(-total // instances) if total else 1
        runtime = program.runtime
        for flat in range(total):
            if runtime.deadline is not None and runtime.deadline < time.monotonic():
                raise runtime.timed_out("in this 'ktdf.parallel'")
            rest = flat
            for d in range(len(trips) - 1, -1, -1):
                rest, i = divmod(rest, trips[d])
                frame[ivs[d]] = lows[d] + i * strides[d]
            frame[inst] = flat // chunk
            body(frame)

    return step


_OPAQUE = {
    "ADD": lambda a, b: a + b,
    "SUB": lambda a, b: a - b,
    "MUL": lambda a, b: a * b,
    "DIV": lambda a, b: a / b,
    "MAX": np.maximum,
    "MIN": np.minimum,
    "EXP": np.exp,
    "NEG": np.negative,
    "ABS": np.abs,
    "COPY": lambda a: a,
}
"""The intrinsics the interpreter knows, by template name: elementwise on tensors."""


@handles(OpaqueOp)
def _opaque(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, OpaqueOp)
    name = op.template_name.data
    fn = _OPAQUE.get(name)
    if fn is None:
        known = ", ".join(f'"{n}"' for n in _OPAQUE)
        raise InterpreterError(f"the interpreter does not know the intrinsic \"{name}\" (it knows {known})")
    if any(isinstance(v.type, MemRefType) for v in (*op.inputs, *op.outputs)) or len(op.results) != 1:
        raise InterpreterError(f"the intrinsic \"{name}\" runs on tensors, one result, in the interpreter")
    ins = tuple(fc.slot(v) for v in op.inputs)
    r = fc.slot(op.results[0])
    dtype = fc.format(op.results[0]).compute
    fmt = fc.format(op.results[0])

    def step(frame):
        out = np.asarray(fn(*(frame[i] for i in ins))).astype(dtype, copy=False)
        frame[r] = fmt.round(out) if fmt.round is not None else out

    return step


not_executable(
    {
        PrivateOp: "run by the handler of its 'ktdf.pipeline', first, once per pipeline instance",
        StageOp: "run by the handler of its 'ktdf.pipeline', in token order",
    }
)


register(Plugin("ktdf", hbm_transfers=(DataTransferOp,)))  # data transfers move HBM data (the report's HBM traffic)
