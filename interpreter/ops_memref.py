"""memref: the addressing of dataflow-scheduler's public-form schedule IR (docs/ktdf.md, "Execution").

A memref value at run time is a `Memref`: a strided `MemoryView` (its
element address, sizes, strides, the valid box [0, sizes)) over some
storage, and the element address of its *origin* (MLIR's aligned pointer:
`memref.reinterpret_cast` sets the offset from it, not from the view's
first element). The storage is HBM (a `ktdp.construct_memory_view` in
global memory), a core's LX (a `ct_local` view), or an L1 buffer of
`memref.alloc`: a private address space of the allocation's bytes, one per
core, whose bytes nobody wrote read as an error (`check_uninitialized`).

- `memref.memory_space_cast`, `memref.cast`: the same memref (no data moves).
- `memref.reinterpret_cast`: origin + offset, with the op's sizes and strides.
- `memref.subview`: the box at the offsets, strides multiplied, unit dims the
  result type drops dropped.
- `memref.alloc` (any memory space): a fresh buffer per core, counted against
  the target's LX bytes per core while it lives; allocated in a
  `ktdf.private` region it lives until its pipeline instance ends, else
  until `memref.dealloc` or the end of the run.

Transfers through a `Memref` (interpreter/ops_ktdf.py) are strict: an
element outside the memref's sizes is a located error, never masked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, NoneAttr, StridedLayoutAttr, StringAttr
from xdsl.ir import Operation, SSAValue

from spyre_mlir.dialects.ktdf import describe_value
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable
from spyre_mlir.interpreter.memory import AddressSpace, format_bytes
from spyre_mlir.interpreter.plugins import Plugin, ReportSection, register
from spyre_mlir.interpreter.views import Access, BoxTile, MemoryView, TileGeometry, load, store

BUFFER_KEYS = 1 << 40
"""`MemoryView.lx_core` values from here on name an L1 buffer (`MemrefRun.buffers`), below it a core's LX."""


class Memref:
    """A memref value: `view` (what its indices address) and `origin` (the
    element address its layout offset counts from). Varying when either
    holds a lane array (batched cores)."""

    __slots__ = ("view", "origin")

    def __init__(self, view: MemoryView, origin):
        self.view = view
        self.origin = origin

    def take_lanes(self, idx: np.ndarray) -> Memref:
        origin = self.origin[idx] if isinstance(self.origin, np.ndarray) else self.origin
        return Memref(self.view.take_lanes(idx), origin)

    def lane(self, lane: int) -> Memref:
        origin = int(self.origin[lane]) if isinstance(self.origin, np.ndarray) else self.origin
        return Memref(self.view.lane(lane), origin)


def as_memref(value, what: str) -> Memref:
    """`value` as a `Memref`: a `ktdp.construct_memory_view` view is one at its own origin."""
    if isinstance(value, Memref):
        return value
    if isinstance(value, MemoryView):
        return Memref(value, value.base)
    raise InterpreterError(f"{what} is not a memref the interpreter can address (got {type(value).__name__})")


def box_view(fmt: ElementFormat, base, sizes: tuple[int, ...], strides: tuple[int, ...], lx_core, op) -> MemoryView:
    """A strided view whose valid coordinates are the box [0, sizes)."""
    return MemoryView(fmt, base, sizes, strides, None, (), lx_core, op, ((0,) * len(sizes), sizes, True))  # type: ignore[arg-type]


def identity_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    strides, running = [], 1
    for n in reversed(sizes):
        strides.append(running)
        running *= n
    return tuple(reversed(strides))


# ===========================================================================
# Per-run state: the L1 buffers
# ===========================================================================


class MemrefRun:
    """The L1 buffers of one run, the LX bytes they take per core, and the
    strict `Access` that transfers through memrefs use."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.buffers: dict[int, AddressSpace] = {}
        self.sizes: dict[int, tuple[list[int], int]] = {}  # key -> (cores, bytes of each)
        self.next_key = BUFFER_KEYS
        self.live: dict[int, int] = {}  # core -> live L1 bytes
        self.scopes: list[list[int]] = []  # per running pipeline instance: its unrealized buffers
        self.peak = 0
        options = runtime.options
        self.access = Access(runtime.hbm, self.space, False, options.check_uninitialized, options.memory_limit)

    def space(self, key: int) -> AddressSpace:
        if key >= BUFFER_KEYS:
            found = self.buffers.get(key)
            if found is None:
                raise InterpreterError("the L1 buffer was freed when its pipeline instance ended (a use after free)")
            return found
        return self.runtime.lx_space(key)

    def allocate(self, cores: list[int], nbytes: int, name: str) -> int:
        """A fresh buffer of `nbytes` for each of `cores`, one after another in one
        address space (so that a batch of cores reads its buffers as one strided
        box): its key. Each core's LX holds it while it lives."""
        limit = self.runtime.lx_limit
        for core in cores:
            live = self.live.get(core, 0) + nbytes
            if live > limit:
                raise InterpreterError(
                    f"allocating L1 buffer {name} ({format_bytes(nbytes)}) on core {core} would hold {live} bytes "
                    f"of L1 buffers, over the target's {limit}-byte LX scratchpad"
                )
        key = self.next_key
        self.next_key += 1
        whose = f"core {cores[0]}" if len(cores) == 1 else f"cores {cores[0]}..{cores[-1]} ({nbytes} bytes each)"
        self.buffers[key] = AddressSpace(
            f"L1 buffer {name} of {whose}", nbytes * len(cores), self.runtime.options.check_uninitialized,
            self.runtime.budget,
        )
        self.sizes[key] = (cores, nbytes)
        for core in cores:
            self.live[core] = self.live.get(core, 0) + nbytes
            self.peak = max(self.peak, self.live[core])
        return key

    def unrealized(self, cores: list[int], nbytes: int, name: str) -> int:
        """A buffer per core for `read_from_fifo` into a memref (upstream: an
        unrealized, FIFO-backed buffer): not L1, so not counted against LX."""
        key = self.next_key
        self.next_key += 1
        whose = f"core {cores[0]}" if len(cores) == 1 else f"cores {cores[0]}..{cores[-1]} ({nbytes} bytes each)"
        self.buffers[key] = AddressSpace(
            f"the buffer {name} read from a FIFO, of {whose}", nbytes * len(cores),
            self.runtime.options.check_uninitialized, self.runtime.budget,
        )
        self.sizes[key] = ([], nbytes)
        if self.scopes:
            self.scopes[-1].append(key)  # freed when the pipeline instance reading it ends
        return key

    def free(self, key: int) -> None:
        space = self.buffers.pop(key, None)
        if space is None:
            return
        cores, nbytes = self.sizes.pop(key)
        for core in cores:
            self.live[core] -= nbytes
        released = sum(seg.cost for seg in space.segments)
        self.runtime.budget.reserve(0, "", released=released)

    def free_memref(self, value) -> None:
        """Free the buffers of `value` if it is a memref of `memref.alloc` (else nothing)."""
        if not isinstance(value, Memref):
            return
        key = value.view.lx_core
        if isinstance(key, int) and key >= BUFFER_KEYS:
            self.free(key)


def memref_run(runtime) -> MemrefRun:
    return runtime.state("memref", lambda: MemrefRun(runtime))


# ===========================================================================
# Handlers
# ===========================================================================


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue], fc: FunctionCompiler) -> list:
    """Static entries as ints, dynamic ones as ("slot", n)."""
    values = iter(dynamic)
    return [("slot", fc.slot(next(values))) if s == DYNAMIC_INDEX else int(s) for s in static]


def _resolve(entries: list, frame: list) -> list:
    return [frame[e[1]] if isinstance(e, tuple) else e for e in entries]


def _ints(values: list, what: str) -> tuple[int, ...]:
    out = []
    for v in values:
        if isinstance(v, np.ndarray):
            raise InterpreterError(f"internal: a varying {what}")
        out.append(int(v))
    return tuple(out)


def _fmt(ty) -> ElementFormat:
    assert isinstance(ty, MemRefType)
    return element_format(ty.get_element_type())


def _same_memref(fc: FunctionCompiler, op: Operation) -> Step:
    src, dst = fc.slot(op.operands[0]), fc.slot(op.results[0])

    def step(frame):
        frame[dst] = frame[src]

    return step


handles(memref.MemorySpaceCastOp)(_same_memref)
handles(memref.CastOp)(_same_memref)


@handles(memref.ReinterpretCastOp)
def _reinterpret_cast(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.ReinterpretCastOp)
    if any(fc.is_varying(v) for v in (*op.sizes, *op.strides)):
        raise NotBatchable(op, "the sizes or strides of a memref depend on the core id")
    offset = _mixed(op.static_offsets.get_values(), op.offsets, fc)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes, fc)
    strides = _mixed(op.static_strides.get_values(), op.strides, fc)
    fmt = _fmt(op.result.type)
    src, dst = fc.slot(op.source), fc.slot(op.result)

    def step(frame):
        source = as_memref(frame[src], "the source of 'memref.reinterpret_cast'")
        shape = _ints(_resolve(sizes, frame), "size")
        if any(n < 0 for n in shape):
            raise InterpreterError(f"'memref.reinterpret_cast' to negative sizes {list(shape)}")
        (off,) = _resolve(offset, frame)
        base = source.origin + off
        view = box_view(fmt, base, shape, _ints(_resolve(strides, frame), "stride"), source.view.lx_core, op)
        frame[dst] = Memref(view, source.origin)

    return step


def _kept_dims(sizes: tuple[int, ...], result_shape: tuple[int, ...]) -> list[int]:
    """The source dims a rank-reducing subview keeps: unit dims are dropped, first
    the ones the result's shape cannot match."""
    if len(sizes) == len(result_shape):
        return list(range(len(sizes)))
    kept, r = [], 0
    for i, n in enumerate(sizes):
        if r < len(result_shape) and (result_shape[r] == n or result_shape[r] == DYNAMIC_INDEX) and (
            n != 1 or len(sizes) - i <= len(result_shape) - r
        ):
            kept.append(i)
            r += 1
        elif n != 1:
            raise InterpreterError(
                f"'memref.subview' of sizes {list(sizes)} cannot drop dim {i} of size {n} to give {list(result_shape)}"
            )
    if r != len(result_shape):
        raise InterpreterError(f"'memref.subview' of sizes {list(sizes)} cannot give the shape {list(result_shape)}")
    return kept


@handles(memref.SubviewOp)
def _subview(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.SubviewOp)
    if any(fc.is_varying(v) for v in (*op.sizes, *op.strides)):
        raise NotBatchable(op, "the sizes or strides of a memref depend on the core id")
    offsets = _mixed(op.static_offsets.get_values(), op.offsets, fc)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes, fc)
    steps = _mixed(op.static_strides.get_values(), op.strides, fc)
    result_type = op.result.type
    assert isinstance(result_type, MemRefType)
    result_shape = tuple(result_type.get_shape())
    fmt = _fmt(result_type)
    src, dst = fc.slot(op.source), fc.slot(op.result)

    def step(frame):
        source = as_memref(frame[src], "the source of 'memref.subview'")
        view = source.view
        shape = _ints(_resolve(sizes, frame), "size")
        offs = _resolve(offsets, frame)
        mults = _ints(_resolve(steps, frame), "stride")
        for i, (o, n, s, hi) in enumerate(zip(offs, shape, mults, view.sizes)):
            lo = np.min(o) if isinstance(o, np.ndarray) else o
            top = np.max(o) if isinstance(o, np.ndarray) else o
            if n and (lo < 0 or top + (n - 1) * s >= hi):
                raise InterpreterError(
                    f"'memref.subview' dim {i}: offset {o}, size {n}, stride {s} reach outside the source's "
                    f"size {hi}"
                )
        base = view.base
        for o, stride in zip(offs, view.strides):
            base = base + o * stride
        kept = _kept_dims(shape, result_shape)
        new_strides = tuple(view.strides[i] * mults[i] for i in kept)
        new_sizes = tuple(shape[i] for i in kept)
        frame[dst] = Memref(box_view(fmt, base, new_sizes, new_strides, view.lx_core, op), source.origin)

    return step


def _alloc_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Each core gets its own buffer: the handle differs between cores."""
    return fc.mark(op.results)


@handles(memref.AllocOp, memref.AllocaOp, varying=_alloc_varying)
def _alloc(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.AllocOp | memref.AllocaOp)
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    if any(fc.is_varying(v) for v in op.dynamic_sizes):
        raise NotBatchable(op, "the sizes of a buffer depend on the core id")
    fmt = element_format(ty.get_element_type())
    sizes = _mixed(ty.get_shape(), op.dynamic_sizes, fc)
    layout_strides = ty.layout.get_strides() if isinstance(ty.layout, StridedLayoutAttr) else None
    space = ty.memory_space.data if isinstance(ty.memory_space, StringAttr) else str(ty.memory_space)
    name = describe_value(op.memref)
    r = fc.slot(op.memref)
    program = fc.program
    batched = fc.batched

    def step(frame):
        shape = _ints(_resolve(sizes, frame), "size")
        strides = identity_strides(shape)
        if layout_strides is not None and all(s is not None for s in layout_strides) and len(layout_strides) == len(shape):
            strides = tuple(int(s) for s in layout_strides)  # pyright: ignore[reportArgumentType]
        span = 1 + sum((n - 1) * s for n, s in zip(shape, strides) if n) if all(shape) else 0
        nbytes = span * fmt.storage.itemsize
        run = memref_run(program.runtime)
        where = f" in {space}" if space else ""
        cores = np.atleast_1d(np.asarray(frame[0].linear, np.int64)).tolist()
        key = run.allocate(cores, nbytes, f"{name}{where}")
        base = np.arange(len(cores), dtype=np.int64) * span if batched else 0  # each core's buffer, in turn
        frame[r] = Memref(box_view(fmt, base, shape, strides, key, op), base)

    return step


@handles(memref.DeallocOp)
def _dealloc(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.DeallocOp)
    m = fc.slot(op.memref)
    program = fc.program

    def step(frame):
        memref_run(program.runtime).free_memref(frame[m])

    return step


def memref_argument(ty: MemRefType, value, byte_address: int) -> tuple[np.ndarray, Memref]:
    """A kernel's memref parameter of type `ty` given `value` (an array): the
    array in the element's storage format, to place at `byte_address` of HBM,
    and the memref over it (identity layout)."""
    if not isinstance(ty.layout, NoneAttr):
        raise InterpreterError(f"memref parameters with a layout ({ty}) are not supported; pass an identity-layout memref")
    fmt = element_format(ty.get_element_type())
    if not isinstance(value, np.ndarray):
        raise InterpreterError(f"expected an array for {ty}, got {type(value).__name__}")
    stored = value if value.dtype == fmt.storage else fmt.to_storage(np.asarray(value, fmt.compute))
    shape = tuple(ty.get_shape())
    if len(shape) != stored.ndim or any(d >= 0 and d != n for d, n in zip(shape, stored.shape)):
        raise InterpreterError(f"expected an array of shape {list(shape)} for {ty}, got shape {list(stored.shape)}")
    size = fmt.storage.itemsize
    if byte_address % size:
        raise InterpreterError(f"internal: byte address {byte_address} is not aligned to {size}")
    address = byte_address // size
    view = box_view(fmt, address, tuple(stored.shape), identity_strides(stored.shape), None, None)
    return np.ascontiguousarray(stored), Memref(view, address)


def _element_varying(fc: FunctionCompiler, op: Operation) -> bool:
    return fc.mark(op.results, any(fc.is_varying(v) for v in op.operands))


def _element_tile(frame, ref, index_slots: tuple[int, ...], what: str) -> BoxTile:
    """The one-element box at the indices."""
    view = as_memref(ref, what).view
    anchor = tuple(frame[i] for i in index_slots)
    return BoxTile(view, anchor, _ONE.get(len(anchor)) or _one(len(anchor)), None)


_ONE: dict[int, TileGeometry] = {}


def _one(rank: int) -> TileGeometry:
    _ONE[rank] = TileGeometry((0,) * rank, (1,) * rank, tuple(range(rank)))
    return _ONE[rank]


@handles(memref.LoadOp, varying=_element_varying)
def _load(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.LoadOp)
    m, r = fc.slot(op.memref), fc.slot(op.res)
    indices = tuple(fc.slot(i) for i in op.indices)
    fmt = _fmt(op.memref.type)
    varying = fc.is_varying(op.res)
    program = fc.program

    def step(frame):
        tile = _element_tile(frame, frame[m], indices, "the memref of 'memref.load'")
        data = load(tile, frame[0], memref_run(program.runtime).access)
        if varying:
            frame[r] = data.reshape(data.shape[0], -1)[:, 0] if data.ndim > len(indices) else np.full(
                frame[0].count, data.reshape(-1)[0], fmt.compute
            )
        else:
            frame[r] = fmt.scalar(data.reshape(-1)[0])

    return step


@handles(memref.StoreOp)
def _store(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.StoreOp)
    v, m = fc.slot(op.value), fc.slot(op.memref)
    indices = tuple(fc.slot(i) for i in op.indices)
    fmt = _fmt(op.memref.type)
    rank = len(op.indices)
    varying = fc.is_varying(op.value)
    program = fc.program

    def step(frame):
        tile = _element_tile(frame, frame[m], indices, "the memref of 'memref.store'")
        value = np.asarray(frame[v], fmt.compute)
        data = value.reshape(value.shape[0], *(1,) * rank) if varying else value.reshape((1,) * rank)
        store(tile, data, frame[0], memref_run(program.runtime).access)

    return step


def whole_box(view) -> BoxTile:
    """The whole box of a memref's view, in C order."""
    sizes = tuple(view.sizes)
    return BoxTile(view, (0,) * len(sizes), TileGeometry((0,) * len(sizes), sizes, tuple(range(len(sizes)))), None)


@handles(memref.CopyOp)
def _copy(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, memref.CopyOp)
    s, d = fc.slot(op.source), fc.slot(op.destination)
    program = fc.program

    def access(ref):  # strict through public-form memrefs; through a ktdp view, the run's options
        return memref_run(program.runtime).access if isinstance(ref, Memref) else program.runtime.access

    def step(frame):
        source, dest = frame[s], frame[d]
        data = load(whole_box(as_memref(source, "the source of 'memref.copy'").view), frame[0], access(source))
        store(whole_box(as_memref(dest, "the target of 'memref.copy'").view), data, frame[0], access(dest))

    return step


def _report_fields(runtime) -> dict:
    run = runtime.find_state("memref")
    return {"l1_buffer_peak_bytes": run.peak if isinstance(run, MemrefRun) else 0}


def _report_lines(report) -> list[str]:
    peak = report.l1_buffer_peak_bytes
    return [f"l1 buffers peak per core: {peak} bytes (memref.alloc)"] if peak else []


register(Plugin("memref", report=ReportSection(_report_fields, _report_lines, place="memory")))
