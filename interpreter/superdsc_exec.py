"""Run one SuperDSC (spyre_mlir/superdsc.py) on byte memories, in NumPy.

Each core of the DSC reads every tensor it uses from HBM or its LX, as an array over the op's dims
(its work slice; a replicated dim has extent 1 and broadcasts), computes the compute op in float32
and writes the outputs in their format (every replicated lane gets the value):

    hbm = FlatMemory(1 << 24)
    for k, base in enumerate(bases):
        hbm.add_region(base, nbytes[k], f"argument {k}")
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)       # kept across the files of one run
    prepare_superdsc(sdsc, source="add/sdsc_0.json")          # optional: plan now (else on first run)
    stats = run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, lx, source="add/sdsc_0.json")
    lx.release()                                             # the run is over: its LX serves the next

Addresses: an HBM allocation's start on a core is a symbol (a negative id bound by `symbols`, from
the bundle's `sdsc_execute` or `default_symbols`) or a byte address; its elements are at
start + the layout's offset of (coordinate - the core's origin), the layout spanning the whole tensor.
An LX allocation holds the core's piece at a constant offset in the core's LX.

Reads and writes go through strided views of the memory's bytes (each fold an axis with its byte
stride), reshaped into coordinate axes when a dim's folds are a mixed radix (every example), so the
common path has no gathers; other fold patterns take an indexed path.

Speed (docs/superdsc.md, "Running one"): a SuperDsc model is planned once (`prepare_superdsc`:
views, ops, core grid, what a run moves); when each core's starts are the first core's plus a
stride per work-slice index (every example), an op runs on all cores in one NumPy call, its views
having the core grid as leading axes (LX too: `CoreLocalMemory` is one (cores, lx_bytes) array);
float16 is decoded through a table into reused scratch arrays, and kept for the next file of the
run when it reads the same bits.
"""

from __future__ import annotations

import math
import mmap
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from spyre_mlir.superdsc import (
    Allocation,
    AllocationLayout,
    DataFormat,
    Dsc,
    SuperDsc,
    allocation_layout,
    core_origin,
    data_format,
    decode,
    default_device_shape,
    encode,
    host_shape,
    stick_dim,
)


class SuperDscRunError(ValueError):
    """A SuperDSC that cannot run on the memories and arguments given; the message names the file,
    the tensor (or op) and the core."""


class MemoryRangeError(ValueError):
    """[lo, hi) is not inside one allocated region of a memory."""


class ByteMemory(Protocol):
    """Byte-addressed memory (HBM): `buffer(lo, hi, write)` is (the uint8 1-D array holding [lo, hi),
    the address of its element 0); `MemoryRangeError` when [lo, hi) is not inside one region. The
    array must be C-contiguous (views of other dtypes are made on it) and writeable when `write`."""

    def buffer(self, lo: int, hi: int, write: bool) -> tuple[np.ndarray, int]: ...


class LxMemory(Protocol):
    """Each core's LX, addressed from 0: like `ByteMemory.buffer`, per core. One that also has
    `rows(cores, lo, hi, write)` (a C-contiguous (cores, lx_bytes) uint8 array, row c core c's LX,
    for an access to [lo, hi) of the LX of each of `cores`; as `CoreLocalMemory`) lets an op run on
    every core's LX in one NumPy call."""

    def buffer(self, core: int, lo: int, hi: int, write: bool) -> tuple[np.ndarray, int]: ...


class FlatMemory:
    """One uint8 array covering [base, base + size), in which named regions are allocated;
    an access must lie inside one region.

    >>> hbm = FlatMemory(1 << 20)
    >>> hbm.add_region(4096, 256, "argument 0")[:4]    # the region's bytes, a view
    array([0, 0, 0, 0], dtype=uint8)
    """

    def __init__(self, size: int, base: int = 0):
        self.base = base
        self.data = np.zeros(size, dtype=np.uint8)
        self.regions: list[tuple[int, int, str]] = []

    def add_region(self, base: int, size: int, name: str) -> np.ndarray:
        """Allocate [base, base + size) as `name`; returns its bytes (a view into `data`)."""
        if base < self.base or base + size > self.base + len(self.data):
            raise MemoryRangeError(
                f"region '{name}' [{base:#x}, {base + size:#x}) is outside the memory "
                f"[{self.base:#x}, {self.base + len(self.data):#x})"
            )
        for lo, n, other in self.regions:
            if base < lo + n and lo < base + size:
                raise MemoryRangeError(f"region '{name}' [{base:#x}, {base + size:#x}) overlaps '{other}'")
        self.regions.append((base, size, name))
        return self.data[base - self.base : base - self.base + size]

    def buffer(self, lo: int, hi: int, write: bool) -> tuple[np.ndarray, int]:
        for base, size, _ in self.regions:
            if base <= lo and hi <= base + size:
                return self.data, self.base
        near = ", ".join(f"'{name}' [{b:#x}, {b + n:#x})" for b, n, name in self.regions) or "none"
        raise MemoryRangeError(f"[{lo:#x}, {hi:#x}) is not inside one allocated region (regions: {near})")


class CoreLocalMemory:
    """Each core's LX: `lx_bytes` bytes from address 0, zero at first. All cores' LX is one
    (cores, lx_bytes) array, so that an op can address the same LX range of every core through one
    view (`rows`).

    The array is an anonymous mapping (pages materialize, zeroed, at first touch), taken over from a
    CoreLocalMemory of the same size that is done with it (its written bytes zeroed again) when there
    is one: a run of a few files touches hundreds of fresh pages, and faulting them in costs more
    than the run's arithmetic. One is done when `release`d, or when garbage collected (a finished
    run's memory often sits in a reference cycle until the collector's next full pass). Memory
    handed out untracked (`core_bytes`, `all_cores_bytes`) is not reused.

    >>> lx = CoreLocalMemory(2, 4096)
    >>> lx.rows([0, 1], 0, 64, write=True).shape, lx.core_bytes(1).shape
    ((2, 4096), (4096,))
    """

    def __init__(self, cores: int, lx_bytes: int):
        self.cores = cores
        self.lx_bytes = lx_bytes
        self._bytes: np.ndarray | None = None
        self._ends = np.zeros(cores, dtype=np.int64)
        """Per core, the end of the bytes written so far through `buffer` and `rows`."""
        self._tracked = [True]
        """Whether every write went through them (no bytes handed out at will)."""
        self._done: weakref.finalize | None = None
        self._released = False

    def _rows(self) -> np.ndarray:
        if self._bytes is None:
            if self._released:
                raise MemoryRangeError("this LX was released: its run is over")
            self._bytes = _lx_mapping(self.cores, self.lx_bytes)
            self._done = weakref.finalize(self, _recycle_lx, self._bytes, self._ends, self._tracked)
        return self._bytes

    def release(self) -> None:
        """The run using this LX is over: its memory goes to the next CoreLocalMemory of the same
        size. Any later access is a `MemoryRangeError`."""
        self._released = True
        self._bytes = None
        if self._done is not None:
            self._done()

    def rows(self, cores: Sequence[int], lo: int, hi: int, write: bool) -> np.ndarray:
        """Every core's LX (row c is core c's), to access [lo, hi) of those of `cores`."""
        if not 0 <= lo <= hi <= self.lx_bytes:
            raise MemoryRangeError(f"[{lo:#x}, {hi:#x}) is outside the LX of {self.lx_bytes} bytes")
        if write:
            self._ends[cores] = np.maximum(self._ends[cores], hi)
        return self._rows()

    def all_cores_bytes(self) -> np.ndarray:
        """Every core's LX: row c is core c's bytes (to read or write at will)."""
        self._tracked[0] = False
        return self._rows()

    def core_bytes(self, core: int) -> np.ndarray:
        """Core `core`'s LX bytes (to read or write at will)."""
        if not 0 <= core < self.cores:
            raise MemoryRangeError(f"core {core} does not exist ({self.cores} cores)")
        return self.all_cores_bytes()[core]

    def buffer(self, core: int, lo: int, hi: int, write: bool) -> tuple[np.ndarray, int]:
        if not 0 <= lo <= hi <= self.lx_bytes:
            raise MemoryRangeError(f"[{lo:#x}, {hi:#x}) is outside core {core}'s LX of {self.lx_bytes} bytes")
        if not 0 <= core < self.cores:
            raise MemoryRangeError(f"core {core} does not exist ({self.cores} cores)")
        return self.rows([core], lo, hi, write)[core], 0


_LX_SPARE: dict[tuple[int, int], np.ndarray] = {}
"""One LX mapping per (cores, lx_bytes) left by a CoreLocalMemory that is gone, all zero."""
_LX_SPARE_LOCK = threading.Lock()


def _lx_mapping(cores: int, lx_bytes: int) -> np.ndarray:
    with _LX_SPARE_LOCK:
        spare = _LX_SPARE.pop((cores, lx_bytes), None)
    if spare is not None:
        return spare
    # small pages: NumPy asks for huge pages for large arrays, and one first touch per core would zero 2 MiB
    pages = mmap.mmap(-1, max(1, cores * lx_bytes))
    return np.frombuffer(pages, dtype=np.uint8)[: cores * lx_bytes].reshape(cores, lx_bytes)


def _recycle_lx(rows: np.ndarray, ends: np.ndarray, tracked: list[bool]) -> None:
    if not tracked[0]:
        return
    for core in np.flatnonzero(ends):
        rows[core, : ends[core]] = 0  # only the written rows: the others' pages were never touched
    with _LX_SPARE_LOCK:
        _LX_SPARE.setdefault(rows.shape, rows)


@dataclass
class ExecStats:
    """What a run moved and computed: bytes per component ("hbm", "lx"), elements per opFuncName."""

    bytes_read: dict[str, int] = field(default_factory=dict)
    bytes_written: dict[str, int] = field(default_factory=dict)
    elements: dict[str, int] = field(default_factory=dict)

    def merge(self, other: ExecStats) -> None:
        """Add `other`'s counts to this one's (the files of one run)."""
        for mine, theirs in (
            (self.bytes_read, other.bytes_read),
            (self.bytes_written, other.bytes_written),
            (self.elements, other.elements),
        ):
            for k, n in theirs.items():
                mine[k] = mine.get(k, 0) + n


# -- compute ops -----------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (error < 1.5e-7, far below fp16's resolution); NumPy has no erf
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def _sigmoid(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    # 0.5 * (tanh(0.5 * x) + 1), in place in `out`
    np.multiply(x, 0.5, out=out)
    np.tanh(out, out=out)
    out += 1.0
    out *= 0.5
    return out


def _silu(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    return np.multiply(x, _sigmoid(x, out), out=out)


def _rsqrt(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    return np.divide(1.0, np.sqrt(x, out=out), out=out)


def _relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """`np.maximum(x, 0)`; for float16 on its bits (NumPy's float16 maximum with a scalar is a scalar
    loop, 30x slower): a negative number (bits 0x8001..0xFC00, -inf included) becomes +0; -0 and
    NaNs stay."""
    if x.dtype != np.float16:
        return np.maximum(x, x.dtype.type(0), out=out)
    bits = x.view(np.uint16)
    out = np.empty(x.shape, np.float16) if out is None else out
    # bits - 0x8001 wraps around: below 0x7C00 exactly for the negative numbers
    shifted = np.subtract(bits, np.uint16(0x8001), out=_SCRATCH.array(TEMP_SLOT, x.shape, np.dtype(np.uint16)))
    np.multiply(bits, shifted >= np.uint16(0x7C00), out=out.view(np.uint16))
    return out


UNARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "identity": lambda x, out: x,
    "relufwd": _relu,
    "exp": np.exp,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "neg": np.negative,
    "abs": np.abs,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": _rsqrt,
    "reciprocal": lambda x, out: np.divide(1.0, x, out=out),
    "gelufwd": lambda x, out: 0.5 * x * (1.0 + _erf(x * np.float32(1 / math.sqrt(2)))),
    "silufwd": _silu,
}
"""Elementwise ops of one input, `fn(x, out)`: the result, in `out` (an array of x's shape and dtype)
unless the op allocates (identity is a copy: softmax moves HBM to LX with it)."""

BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "realdiv": np.divide,
    "max": np.maximum,
    "min": np.minimum,
}
"""Elementwise ops of two inputs, with broadcasting over replicated dims: `fn(x, y, out=...)`."""


def _copy(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    np.copyto(out, x)
    return out


IN_FORMAT: dict[str, Callable[..., np.ndarray]] = {
    "identity": _copy,
    "relufwd": _relu,
    "exp": np.exp,
    "tanh": np.tanh,
    "neg": np.negative,
    "abs": np.abs,
    "log": np.log,
    "sqrt": np.sqrt,
    **BINARY,
}
"""Ops that are one NumPy ufunc: when every tensor of the op has the same IEEE format they run on the
stored dtype, which is float32 arithmetic rounded once (NumPy's float16 loops compute in float32),
without the conversions to and from float32; when the tensors' views also match element for element,
straight from the input views into the output view. NumPy's vectorized float16 exp and log differ
from float32 exp/log rounded to float16 by one ulp on a handful of the 65536 inputs."""

SLOW_IN_FLOAT16 = frozenset({"add", "sub", "mul", "realdiv", "sqrt"})
"""`IN_FORMAT` ops whose NumPy float16 loop is scalar (about 4 ns an element, against 0.2 for exp).
Straight from views into a view they still win (one pass, nothing else touched: 2.0 ms for a
512x1024 add, against 1.6 ms warm and 2.5 ms cold for decode, float32, round); otherwise (broadcast
operands, softmax's sub and div) float16 tensors take the float32 path for them: the same values."""

REDUCTIONS: dict[str, Callable[..., np.ndarray]] = {"max": np.max, "min": np.min, "sum": np.sum, "mean": np.mean}
"""Reductions: the output is also an input (its old content unused: softmax's LX 0 is never written
before it is reduced into) and is replicated along the reduced dims."""

MATMULS = ("batchmatmul",)

SUPPORTED_OPS = tuple(sorted({*UNARY, *BINARY, *REDUCTIONS, *MATMULS}))


# -- access plans ------------------------------------------------------------------


@dataclass(eq=False)
class _Access:
    """How one allocation is read and written on any core: strided views over its non-core folds.

    The read view has the non-replicated folds (alpha > 0, factor > 1) of each dim, in radix order
    (largest alpha first); the write view has the replicated folds too, first per dim, to broadcast into."""

    alloc: Allocation
    name: str
    fmt: DataFormat
    layout: AllocationLayout
    extents: tuple[int, ...]
    """The op-dim array's shape (1 where the tensor does not vary)."""
    read_shape: tuple[int, ...]
    read_strides: tuple[int, ...]
    write_shape: tuple[int, ...]
    write_strides: tuple[int, ...]
    source_shape: tuple[int, ...]
    """The op-dim array's shape split into the write view's axes (1 on replicated ones), to broadcast onto it."""
    span: int
    """Bytes from the start to past the last element."""
    read_axes: tuple[tuple[int, int, int], ...] = ()
    """Per read-view axis: (op dim index, alpha, factor)."""
    read_coords: tuple[np.ndarray, ...] | None = None
    write_coords: tuple[np.ndarray, ...] | None = None
    """Indexed path: per op dim, the coordinate of each view element (broadcastable to the view)."""
    label: str = ""
    """The name compute ops use (`Tensor0-idx0`)."""
    starts: tuple[int, ...] = ()
    """Per core of the DSC (`_DscPlan.cores` order): the start, a symbol id when the start is symbolic."""
    origins: np.ndarray | None = None
    """HBM: per core, the byte offset of the core's first element from the tensor's base."""
    placed_strides: tuple[int, ...] | None = None
    """HBM: the start's stride per core-grid axis when each core starts at its first element
    (`origins`), None when those starts are no grid."""

    @property
    def nbytes(self) -> int:
        return math.prod(self.write_shape) * self.fmt.word_length


def _plan(dsc: Dsc, alloc: Allocation, source: str) -> _Access:
    lds = dsc.lds(alloc.lds_idx)
    fmt = data_format(lds.data_format)
    layout = allocation_layout(dsc, alloc)
    strides = layout.strides
    stick = stick_dim(dsc, alloc)
    word = fmt.word_length
    extents = []
    read_shape, read_strides, write_shape, write_strides, source_shape = [], [], [], [], []
    read_axes: list[tuple[int, int, int]] = []  # per view axis: (op dim index, alpha, factor)
    write_axes: list[tuple[int, int, int]] = []
    radix = True
    for d, dim in enumerate(dsc.sizes):
        coords = alloc.coordinates.get(dim)
        if coords is None:
            extents.append(1)
            continue
        folds = coords.folds[1:]  # the core fold is the start address
        steps = []
        for k, f in enumerate(folds):
            is_lane = dim == stick and k == len(folds) - 1
            if is_lane:
                stride = word
            elif dim == stick:
                stride = f.alpha // layout.lanes * strides[dim] * word
            else:
                stride = f.alpha * strides[dim] * word
            steps.append((f, stride))
        moving = sorted(((f, s) for f, s in steps if f.factor > 1 and f.alpha > 0), key=lambda fs: -fs[0].alpha)
        replicated = [(f, s) for f, s in steps if f.factor > 1 and f.alpha == 0]
        extent = sum(f.alpha * (f.factor - 1) for f, _ in moving) + 1
        extents.append(extent)
        expected = 1
        for f, _ in reversed(moving):
            radix &= f.alpha == expected
            expected *= f.factor
        for f, s in replicated:
            write_shape.append(f.factor)
            write_strides.append(s)
            write_axes.append((d, 0, f.factor))
            source_shape.append(1)
        for f, s in moving:
            read_shape.append(f.factor)
            read_strides.append(s)
            read_axes.append((d, f.alpha, f.factor))
            write_shape.append(f.factor)
            write_strides.append(s)
            write_axes.append((d, f.alpha, f.factor))
            source_shape.append(f.factor)
    for d, (dim, size) in enumerate(dsc.work_slice.items()):
        if extents[d] not in (1, size):
            raise SuperDscRunError(
                f"{lds.ds_name} of {source} ({alloc.name}) spans {extents[d]} coordinates of {dim} on a core, "
                f"but a core's work slice has {size}: not an array over the slice"
            )
    span = sum((n - 1) * s for n, s in zip(write_shape, write_strides)) + word
    access = _Access(
        alloc,
        lds.ds_name,
        fmt,
        layout,
        tuple(extents),
        tuple(read_shape),
        tuple(read_strides),
        tuple(write_shape),
        tuple(write_strides),
        tuple(source_shape),
        span,
    )
    access.read_axes = tuple(read_axes)
    access.label = lds.label
    if not radix:
        access.read_coords = _coordinates(read_axes, len(extents))
        access.write_coords = _coordinates(write_axes, len(extents))
    return access


def _coordinates(axes: Sequence[tuple[int, int, int]], n_dims: int) -> tuple[np.ndarray, ...]:
    """Per op dim, the coordinate of each element of a view whose axes are `axes` (op dim, alpha, factor)."""
    rank = len(axes)
    coords = [np.zeros((1,) * rank, dtype=np.intp) for _ in range(n_dims)]
    for axis, (d, alpha, factor) in enumerate(axes):
        shape = [1] * rank
        shape[axis] = factor
        coords[d] = coords[d] + alpha * np.arange(factor, dtype=np.intp).reshape(shape)
    return tuple(coords)


# -- planning ----------------------------------------------------------------------


def _where(access: _Access, source: str) -> str:
    return f"{access.name} of {source} ({access.alloc.name})"


def _origin_offsets(access: _Access, slices: Mapping[str, np.ndarray]) -> np.ndarray:
    """Per core, `layout.offset(core_origin(...))` of an HBM allocation: the byte offset of the core's
    first element from the tensor's base; `slices[dim]` is each core's work-slice index along dim."""
    layout = access.layout
    strides = layout.strides
    elements = 0
    for dim in layout.dims:
        folds = access.alloc.coordinates[dim].folds
        coordinate = folds[0].alpha * slices[dim] + sum(f.beta for f in folds)
        if dim == layout.stick_dim:
            elements = elements + coordinate // layout.lanes * strides[dim] + coordinate % layout.lanes
        else:
            elements = elements + coordinate * strides[dim]
    return elements * layout.word_length


@dataclass(frozen=True)
class _CoreGrid:
    """The cores of a DSC as a grid of work slices: `index[k]` is core `cores[k]`'s slice index along
    each of the `split` dims (the dims cut into several slices); core `cores[first]` has all zeros and
    core `cores[steps[d]]` is 1 along d only."""

    split: tuple[str, ...]
    shape: tuple[int, ...]
    index: np.ndarray
    first: int
    steps: tuple[int, ...]

    def strides(self, starts: np.ndarray) -> tuple[int, tuple[int, ...]] | None:
        """(the first core's start, the start's stride per grid axis) when every core's start is
        `starts[first] + index @ strides`, else None."""
        origin = int(starts[self.first])
        strides = tuple(int(starts[k]) - origin for k in self.steps)
        if not bool((starts == origin + self.index @ np.array(strides, dtype=np.int64)).all()):
            return None
        return origin, strides


def _core_grid(sdsc: SuperDsc, slices: Mapping[str, np.ndarray]) -> _CoreGrid | None:
    """The grid of the cores whose work-slice indices are `slices` (per dim, per core), or None
    when they are not one core per slice."""
    split = tuple(d for d, n in sdsc.num_wk_slices.items() if n > 1)
    shape = tuple(sdsc.num_wk_slices[d] for d in split)
    n_cores = len(next(iter(slices.values()))) if slices else 0
    if n_cores != math.prod(shape) or not split:
        return None
    index = np.stack([slices[d] for d in split], axis=1)
    if np.unique(np.ravel_multi_index(tuple(index.T), shape)).size != n_cores:
        return None  # two cores on one slice: each would write it
    totals = index.sum(axis=1)
    first = np.flatnonzero(totals == 0)
    steps = [np.flatnonzero((totals == 1) & (index[:, k] == 1)) for k in range(len(split))]
    if not first.size or not all(along.size for along in steps):
        return None
    return _CoreGrid(split, shape, index, int(first[0]), tuple(int(along[0]) for along in steps))


@dataclass(eq=False)
class _DscPlan:
    """One DSC, planned: its tensors' accesses, its ops bound to them, its cores, and what one run
    moves and computes (the same every run)."""

    accesses: dict[str, _Access]
    ops: list[_Op]
    cores: list[int]
    grid: _CoreGrid | None
    bytes_read: dict[str, int]
    bytes_written: dict[str, int]
    elements: dict[str, int]


_PLANS: dict[int, tuple[weakref.ref, dict[str, list[_DscPlan]]]] = {}
"""Plans by `id` of the SuperDsc (checked against a weak reference, dropped with the model), then by source."""


def prepare_superdsc(sdsc: SuperDsc, *, source: str) -> None:
    """Plan `sdsc` for `run_superdsc` (its tensors' views, its ops, its core grid) now: every run of
    the same model object reuses the plan, so a caller that loads a file once and runs it often
    calls this when loading (errors in the ops surface then, as `SuperDscRunError`). A model is
    planned once: changes made to it after its first plan are not seen."""
    _plans_of(sdsc, source)


def _plans_of(sdsc: SuperDsc, source: str) -> list[_DscPlan]:
    key = id(sdsc)
    entry = _PLANS.get(key)
    if entry is None or entry[0]() is not sdsc:
        entry = _PLANS[key] = (weakref.ref(sdsc), {})
        weakref.finalize(sdsc, _PLANS.pop, key, None)
    plans = entry[1].get(source)
    if plans is None:
        plans = entry[1][source] = [_plan_dsc(sdsc, k, dsc, source) for k, dsc in enumerate(sdsc.dscs)]
    return plans


def _plan_dsc(sdsc: SuperDsc, k: int, dsc: Dsc, source: str) -> _DscPlan:
    dsc_path = f"/{sdsc.name}/dscs_/{k}/{dsc.op_name}"
    accesses: dict[str, _Access] = {}
    for i, alloc in enumerate(dsc.schedule):
        label = dsc.lds(alloc.lds_idx).label
        if label in accesses:
            raise SuperDscRunError(
                f"{source}: at {dsc_path}/scheduleTree_/{i}: {label} has a second allocation "
                f"({accesses[label].alloc.name}, {alloc.name}): which one an op uses is not known; not supported"
            )
        accesses[label] = _plan(dsc, alloc, source)
    ops = [_bind(i, sdsc, dsc, dsc_path, accesses, source) for i in range(len(dsc.compute_ops))]
    cores = [c for c in dsc.core_ids_used if (sdsc.core_to_dsc or {}).get(c, 0) == k]
    wk = sdsc.core_to_wk_slice
    slices = {d: np.array([wk[c][d] for c in cores], dtype=np.int64) for d in sdsc.num_wk_slices}
    for a in accesses.values():
        a.starts = tuple(a.alloc.start_address[c] for c in cores)
        if a.alloc.component == "hbm":
            a.origins = _origin_offsets(a, slices)
    grid = _core_grid(sdsc, slices)
    for a in accesses.values():
        if grid is not None and a.origins is not None:
            found = grid.strides(a.origins)
            a.placed_strides = found[1] if found is not None else None
    bytes_read: dict[str, int] = {}
    bytes_written: dict[str, int] = {}
    elements: dict[str, int] = {}
    for op in ops:
        for counts, accesses_of_op in ((bytes_read, op.reads), (bytes_written, op.writes)):
            for a in accesses_of_op:
                counts[a.alloc.component] = counts.get(a.alloc.component, 0) + a.nbytes * len(cores)
        elements[op.name] = elements.get(op.name, 0) + op.elements * len(cores)
    return _DscPlan(accesses, ops, cores, grid, bytes_read, bytes_written, elements)


# -- running ---------------------------------------------------------------------


def _starts(access: _Access, cores: Sequence[int], symbols: Mapping[int, int], source: str) -> np.ndarray:
    """Per core, the start of `access` (symbols bound)."""
    if not access.alloc.start_addr_symbolic:
        return np.array(access.starts, dtype=np.int64)
    try:
        return np.array([symbols[s] for s in access.starts], dtype=np.int64)
    except KeyError:
        core, value = next((c, s) for c, s in zip(cores, access.starts) if s not in symbols)
        bound = f"{min(symbols)}..{max(symbols)}" if symbols else "none"
        raise SuperDscRunError(
            f"{_where(access, source)} starts on core {core} at symbol {value}, which is not bound (bound: {bound})"
        ) from None


def _view(
    access: _Access, core: int, start: int, hbm: ByteMemory, lx: LxMemory, source: str, write: bool
) -> np.ndarray:
    shape, strides = (access.write_shape, access.write_strides) if write else (access.read_shape, access.read_strides)
    lo, hi = start, start + access.span
    component = access.alloc.component
    action = "writes" if write else "reads"
    try:
        if component == "hbm":
            buf, base = hbm.buffer(lo, hi, write)
        else:
            buf, base = lx.buffer(core, lo, hi, write)
        if start % access.fmt.word_length:
            raise MemoryRangeError(f"the start {start:#x} is not a multiple of the {access.fmt.word_length}-byte word")
        return np.ndarray(shape, dtype=access.fmt.storage, buffer=buf, offset=start - base, strides=strides)
    except (MemoryRangeError, TypeError, ValueError) as e:
        raise SuperDscRunError(
            f"{_where(access, source)} on core {core} {action} {component.upper()} [{lo:#x}, {hi:#x}): {e}"
        ) from None


_FLOAT16_TO_FLOAT32 = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
"""Every float16 bit pattern's float32 value: a table lookup converts 2x faster than `astype`."""

SCRATCH_LIMIT = 64 << 20
"""Largest array (bytes) taken from the scratch pool; larger ones are allocated per use."""


class _Scratch(threading.local):
    """Work arrays reused from one op (and run) to the next, per thread: a fresh array of a few MiB
    costs more in page faults (zeroing its pages at first touch) than the op's arithmetic."""

    def __init__(self):
        self.slots: dict[int, np.ndarray] = {}

    def array(self, slot: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """An uninitialized array of `shape` and `dtype` in slot `slot` (valid until the slot is reused)."""
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > SCRATCH_LIMIT:
            return np.empty(shape, dtype)
        buf = self.slots.get(slot)
        if buf is None or buf.size < nbytes:
            buf = self.slots[slot] = np.empty(max(nbytes, 1 << 16), np.uint8)
        return buf[:nbytes].view(dtype).reshape(shape)


_SCRATCH = _Scratch()
RESULT_SLOT = -1
"""The scratch slot of an op's result; its inputs' decoded arrays take slots 0, 1, ..."""
TEMP_SLOT = -2
"""The scratch slot of a temporary inside an op's computation."""
SECOND_TEMP_SLOT = -3
"""The scratch slot of a second such temporary."""
ROUNDED_SLOT = -4
"""The scratch slot of a result rounded to float16 before it is stored."""


class _Decoded(threading.local):
    """The last float16 arrays decoded in one run (the files run on one LX), per thread, by
    content: (bit patterns, float32 values), most recent last. Files of one kernel often read what
    the previous one read (softmax's max and sub read the same LX tensor, its sum and div another):
    comparing the bits costs a third of decoding them again. A match is by content, so it is right
    whoever wrote the memory since; a new run starts afresh (its arrays' buffers reused)."""

    def __init__(self):
        self.entries: list[tuple[np.ndarray, np.ndarray]] = []
        self.spare: list[tuple[np.ndarray, np.ndarray]] = []
        self.run: Callable[[], object] | None = None
        """A weak reference to the run's LX memory."""

    def begin(self, lx: LxMemory) -> None:
        """Start (or go on with) the run on `lx`."""
        if self.run is None or self.run() is not lx:
            self.spare = self.entries + self.spare
            self.entries = []
            try:
                self.run = weakref.ref(lx)
            except TypeError:  # no weak references: every file is a run of its own
                self.run = None


_DECODED = _Decoded()
DECODED_KEPT = 8
"""How many decoded float16 arrays (parts of tensors: `_chunks`) `_DECODED` keeps."""
DECODED_MIN_ELEMENTS = 1 << 16
"""Smaller arrays decode faster than they compare: they are not kept (nor are HBM tensors: a
kernel's files pass their intermediates through LX)."""


def _decode(view: np.ndarray, fmt: DataFormat, slot: int, keep: bool) -> np.ndarray:
    """The elements of `view` as float32, in scratch slot `slot`, or (float16, `keep`) kept in
    `_DECODED` (read only)."""
    if fmt.is_bf16:
        return decode(view, fmt)
    if fmt.storage != np.float16:
        out = _SCRATCH.array(slot, view.shape, np.dtype(np.float32))
        np.copyto(out, view)
        return out
    bits = view.view(np.uint16)
    if not keep or bits.size < DECODED_MIN_ELEMENTS:
        out = _SCRATCH.array(slot, view.shape, np.dtype(np.float32))
        # mode "clip": no bounds checks to buffer `out` for (every uint16 is an index of the table)
        return np.take(_FLOAT16_TO_FLOAT32, bits, out=out, mode="clip")
    entries = _DECODED.entries
    first_row = (0,) * (bits.ndim - 1)
    for k, (kept, values) in enumerate(entries):
        if kept.shape == bits.shape and np.array_equal(kept[first_row], bits[first_row]) and np.array_equal(kept, bits):
            entries.append(entries.pop(k))
            return values
    spare = _DECODED.spare
    if len(entries) >= DECODED_KEPT:
        spare.insert(0, entries.pop(0))
    reuse = next((k for k, (kept, _) in enumerate(spare) if kept.shape == bits.shape), None)
    if reuse is None:
        kept, values = np.empty(bits.shape, np.uint16), np.empty(bits.shape, np.float32)
    else:
        kept, values = spare.pop(reuse)
    del spare[DECODED_KEPT:]
    np.copyto(kept, bits)
    np.take(_FLOAT16_TO_FLOAT32, kept, out=values, mode="clip")
    entries.append((kept, values))
    return values


def _read(access: _Access, view: np.ndarray, in_format: bool, batch: int, slot: int) -> np.ndarray:
    """The op-dim array of a view whose first `batch` axes are cores (decoded in scratch `slot`)."""
    # what one file leaves in LX for the next is what the next files read again
    values = view if in_format else _decode(view, access.fmt, slot, keep=access.alloc.component == "lx")
    lead = values.shape[:batch]
    if access.read_coords is None:
        return values.reshape(lead + access.extents)
    out = np.zeros(lead + access.extents, dtype=values.dtype)
    out[(slice(None),) * batch + access.read_coords] = values
    return out


def _round_to_float16(values: np.ndarray) -> np.ndarray:
    """float32 `values` rounded to float16 (to nearest even; overflow to inf; NaN keeps its sign and
    top payload bits), bit for bit NumPy's cast, in scratch: a dozen vectorized passes on the bits,
    1.4 ns an element where NumPy's cast takes 1.7, and 60 for each result that is a float16
    subnormal (softmax's outputs: a few percent of them)."""
    bits = values.view(np.uint32)
    magnitude = np.bitwise_and(bits, np.uint32(0x7FFFFFFF), out=_SCRATCH.array(TEMP_SLOT, bits.shape, bits.dtype))
    half = np.right_shift(magnitude, np.uint32(13), out=_SCRATCH.array(SECOND_TEMP_SLOT, bits.shape, bits.dtype))
    half &= np.uint32(1)  # round half to even: add 0xFFF plus the kept mantissa's last bit
    half += magnitude
    half += np.uint32(0xFFF)
    half >>= np.uint32(13)
    half -= np.uint32((127 - 15) << 10)  # rebias the exponent (wraps for the subnormals, set below)
    np.minimum(half, np.uint32(0x7C00), out=half)  # overflow and inf
    flat_half, flat_magnitude = half.reshape(-1), magnitude.reshape(-1)
    subnormal = np.flatnonzero(flat_magnitude < np.uint32(0x38800000))  # below float16's least normal, 2**-14
    if subnormal.size:  # multiples of 2**-24, rounded to nearest even by rint
        tiny = flat_magnitude[subnormal].view(np.float32)
        flat_half[subnormal] = np.rint(tiny * np.float32(2.0**24)).astype(np.uint32)
    nan = np.flatnonzero(flat_magnitude > np.uint32(0x7F800000))
    if nan.size:  # NumPy keeps the top 10 payload bits, and makes a payload of 0 a 1
        payload = (flat_magnitude[nan] >> np.uint32(13)) & np.uint32(0x3FF)
        flat_half[nan] = np.uint32(0x7C00) | np.maximum(payload, np.uint32(1))
    np.right_shift(bits, np.uint32(16), out=magnitude)
    magnitude &= np.uint32(0x8000)
    half |= magnitude
    rounded = _SCRATCH.array(ROUNDED_SLOT, bits.shape, np.dtype(np.uint16))
    np.copyto(rounded, half, casting="unsafe")
    return rounded.view(np.float16)


def _write(access: _Access, view: np.ndarray, result: np.ndarray, batch: int) -> None:
    lead = view.shape[:batch]
    if (
        access.fmt.storage == np.float16
        and result.dtype == np.float32
        and result.flags.c_contiguous
        and result.size >= DECODED_MIN_ELEMENTS
    ):
        result = _round_to_float16(result)
    result = np.broadcast_to(result, lead + access.extents)
    # IEEE formats convert in the assignment (one pass); bf16 needs its rounding
    stored = encode(result, access.fmt) if access.fmt.is_bf16 else result
    if access.write_coords is None:
        view[...] = stored.reshape(lead + access.source_shape)
    else:
        view[...] = stored[(slice(None),) * batch + access.write_coords]


@dataclass
class _Op:
    """A compute op bound to its tensors: `compute(arrays, batch)` maps the input arrays to the output
    array; arrays are over the op dims, after `batch` leading axes of cores (0 when run per core)."""

    name: str
    reads: list[_Access]
    writes: list[_Access]
    compute: Callable[[list[np.ndarray], int], np.ndarray]
    elements: int
    in_format: bool = False
    """Compute on the stored dtype (`IN_FORMAT`), not float32."""
    direct: Callable[..., np.ndarray] | None = None
    """The ufunc to apply from the input views into the output view (`IN_FORMAT`, matching views)."""


def _bind(op_index: int, sdsc: SuperDsc, dsc: Dsc, dsc_path: str, accesses: Mapping[str, _Access], source: str) -> _Op:
    op = dsc.compute_ops[op_index]
    where = f"{source}: at {dsc_path}/computeOp_/{op_index}"
    name = op.op_func_name
    for label in (*op.inputs, *op.outputs):
        if label not in accesses:
            raise SuperDscRunError(f"{where}: {label} has no allocation in scheduleTree_")
    inputs = [accesses[label] for label in op.inputs]
    outputs = [accesses[label] for label in op.outputs]
    if not outputs:
        raise SuperDscRunError(f"{where}: {name} has no output")
    out = outputs[0]
    if any(o.extents != out.extents for o in outputs):
        raise SuperDscRunError(f"{where}: the outputs of {name} have different shapes")
    dims = list(dsc.sizes)
    formats = {a.fmt for a in (*inputs, *outputs)}
    stored = len(formats) == 1 and not out.fmt.is_bf16  # one IEEE format: NumPy computes in it

    def arity(n: int) -> None:
        if len(inputs) != n:
            raise SuperDscRunError(f"{where}: {name} takes {n} input(s), found {len(inputs)}")

    data = [a for a in inputs if all(a is not o for o in outputs)]
    reduced = [d for d in range(len(dims)) if len(data) == 1 and out.extents[d] == 1 and data[0].extents[d] > 1]
    if name in REDUCTIONS and len(data) == 1 and (reduced or name not in BINARY):
        # max/min of two tensors, one of them the output, with nothing replicated, is elementwise
        (x,) = data
        axes = tuple(reduced)
        split = [dims[d] for d in axes if sdsc.num_wk_slices[dims[d]] > 1]
        if split:
            raise SuperDscRunError(
                f"{where}: {name} reduces over {', '.join(split)}, which is split across cores: not supported"
            )
        reduce = REDUCTIONS[name]

        def reduction(v: list[np.ndarray], batch: int) -> np.ndarray:
            return reduce(v[0], axis=tuple(batch + d for d in axes), keepdims=True)

        # float16 reductions in NumPy are scalar loops: float32 (exact for max/min, as before for sums)
        in_format = stored and out.fmt.storage != np.float16
        return _Op(name, [x], outputs, reduction, math.prod(x.extents), in_format)
    if name in MATMULS:
        arity(2)
        a, b = inputs
        varying = [[d for d in range(len(dims)) if t.extents[d] > 1] for t in (a, b, out)]
        a_dims, b_dims, c_dims = varying
        missing = [dims[d] for d in c_dims if d not in a_dims and d not in b_dims]
        alone = [dims[d] for d in (*a_dims, *b_dims) if d not in c_dims and not (d in a_dims and d in b_dims)]
        if missing or alone:
            raise SuperDscRunError(
                f"{where}: {name} needs each output dim in an input and each input dim in the output or both "
                f"inputs; {', '.join(missing + alone)} is not"
            )
        batch_dims = [d for d in c_dims if d in a_dims and d in b_dims]
        rows = [d for d in c_dims if d in a_dims and d not in b_dims]
        cols = [d for d in c_dims if d in b_dims and d not in a_dims]
        inner = [d for d in a_dims if d in b_dims and d not in c_dims]

        def grouped(
            t: _Access, t_dims: list[int], groups: list[list[int]]
        ) -> tuple[tuple[int, ...], list[int], tuple[int, ...]]:
            order = [t_dims.index(d) for g in groups for d in g]
            return tuple(t.extents[d] for d in t_dims), order, tuple(math.prod(t.extents[d] for d in g) for g in groups)

        a_shape, a_order, a_flat = grouped(a, a_dims, [batch_dims, rows, inner])
        b_shape, b_order, b_flat = grouped(b, b_dims, [batch_dims, inner, cols])
        c_order = batch_dims + rows + cols
        c_shape = tuple(out.extents[d] for d in c_order)
        c_perm = [c_order.index(d) for d in c_dims]

        def operand(x: np.ndarray, batch: int, shape: tuple[int, ...], order: list[int], flat: tuple[int, ...]):
            lead = x.shape[:batch]
            axes = [*range(batch), *(batch + i for i in order)]
            return x.reshape(lead + shape).transpose(axes).reshape(lead + flat)

        def matmul(v: list[np.ndarray], batch: int) -> np.ndarray:
            c = np.matmul(
                operand(v[0], batch, a_shape, a_order, a_flat), operand(v[1], batch, b_shape, b_order, b_flat)
            )
            lead = c.shape[:batch]
            axes = [*range(batch), *(batch + i for i in c_perm)]
            return c.reshape(lead + c_shape).transpose(axes).reshape(lead + out.extents)

        macs = math.prod(max(a.extents[d], b.extents[d]) for d in range(len(dims)))
        return _Op(name, [a, b], outputs, matmul, macs)
    if name in UNARY:
        arity(1)
        fn1 = UNARY[name]

        def compute(v: list[np.ndarray], batch: int) -> np.ndarray:
            return fn1(v[0], _SCRATCH.array(RESULT_SLOT, v[0].shape, v[0].dtype))

    elif name in BINARY:
        arity(2)
        fn2 = BINARY[name]

        def compute(v: list[np.ndarray], batch: int) -> np.ndarray:
            shape = np.broadcast_shapes(v[0].shape, v[1].shape)
            return fn2(v[0], v[1], out=_SCRATCH.array(RESULT_SLOT, shape, np.result_type(v[0], v[1])))

    else:
        raise SuperDscRunError(f"{where}: opFuncName '{name}' is not supported (supported: {', '.join(SUPPORTED_OPS)})")
    for a in inputs:
        wider = [dims[d] for d in range(len(dims)) if a.extents[d] > out.extents[d]]
        if wider:
            raise SuperDscRunError(
                f"{where}: {name} is elementwise but its output {out.name} is replicated along {', '.join(wider)}, "
                f"where input {a.name} varies"
            )
    in_format = name in IN_FORMAT and stored
    same_views = (
        len(outputs) == 1
        and out.write_shape == out.read_shape
        and all(a.read_coords is None and a.read_axes == out.read_axes for a in (*inputs, out))
    )
    direct = IN_FORMAT[name] if in_format and same_views else None
    if direct is None and out.fmt.storage == np.float16 and name in SLOW_IN_FLOAT16:
        in_format = False
    return _Op(name, inputs, outputs, compute, math.prod(out.extents), in_format, direct)


def _format_matches(fmt: DataFormat, dtype: np.dtype) -> bool:
    if dtype.itemsize != fmt.word_length:
        return False
    if fmt.is_bf16:
        return dtype.name in ("bfloat16", "uint16")
    return dtype == fmt.storage


def _check_tensors(
    sdsc: SuperDsc,
    plan: _DscPlan,
    starts: Mapping[str, np.ndarray],
    tensors: Sequence[tuple[str, int, Sequence[int], object]],
    source: str,
) -> set[str]:
    """Each HBM allocation starting inside a tensor argument is laid out as its default layout, and
    each core starts at the tensor's base plus the offset of its first element. Returns the labels
    of the allocations whose every core starts so in one argument."""
    placed = set()
    args = []
    for name, base, shape, dtype in tensors:
        dtype = np.dtype(dtype)
        shape = tuple(int(n) for n in shape)
        device = default_device_shape(shape, dtype.itemsize)
        args.append((name, int(base), shape, dtype, device, math.prod(device) * dtype.itemsize))
    for access in plan.accesses.values():
        if access.origins is None:
            continue
        at = starts[access.label]
        lo, hi = int(at.min()), int(at.max())
        # the common case: every core's start in one argument (the first one holding any), at its place
        k = next((k for k, arg in enumerate(args) if arg[1] <= hi and lo < arg[1] + arg[5]), None)
        if k is None:
            continue
        name, base, _, _, _, nbytes = args[k]
        if base <= lo and hi < base + nbytes and bool((at - access.origins == base).all()):
            _check_layout(access, args[k], source)
            placed.add(access.label)
            continue
        _check_each_core(sdsc, plan, access, at, args, source)
    return placed


def _check_layout(access: _Access, arg: tuple, source: str) -> None:
    name, _, shape, dtype, device, _ = arg
    layout = access.layout
    if not _format_matches(access.fmt, dtype):
        raise SuperDscRunError(
            f"{access.name} of {source} holds {access.fmt.name} ({access.fmt.word_length}-byte) elements "
            f"but {name} is a {shape} {dtype.name} tensor"
        )
    if host_shape(layout) != shape or layout.device_shape != device:
        raise SuperDscRunError(
            f"{access.name} of {source} is laid out as device size {layout.device_shape} "
            f"(dims {', '.join(layout.dims)}) but {name} is a {shape} {dtype.name} tensor whose default "
            f"layout is {device}: spyre launch places every tensor in its default layout"
        )


def _check_each_core(
    sdsc: SuperDsc, plan: _DscPlan, access: _Access, at: np.ndarray, args: list[tuple], source: str
) -> None:
    """`_check_tensors` of one allocation core by core, the first problem (in core order) reported."""
    owner = np.full(len(at), -1)  # per core: the first argument holding its start
    for k in reversed(range(len(args))):
        base, nbytes = args[k][1], args[k][5]
        owner[(base <= at) & (at < base + nbytes)] = k
    held = owner >= 0
    if not held.any():
        return
    bases = np.array([a[1] for a in args], dtype=np.int64)[owner]
    wrong = held & (at != bases + access.origins)
    firsts = {int(np.argmax(owner == k)) for k in np.unique(owner[held])}
    for position in sorted(firsts | ({int(np.argmax(wrong))} if wrong.any() else set())):
        arg = args[owner[position]]
        if position in firsts:
            _check_layout(access, arg, source)
        if wrong[position]:
            name, base = arg[0], arg[1]
            core = plan.cores[position]
            origin = core_origin(access.alloc, sdsc.core_to_wk_slice[core])
            where = ", ".join(f"{d} {c}" for d, c in origin.items())
            expected = base + int(access.origins[position])
            raise SuperDscRunError(
                f"{_where(access, source)} starts on core {core} at {int(at[position]):#x}, but the core's first "
                f"element ({where}) of {name} is at {base:#x} + {expected - base} = {expected:#x}"
            )


def _grid_views(
    op: _Op,
    plan: _DscPlan,
    starts: Mapping[str, np.ndarray],
    placed: set[str],
    hbm: ByteMemory,
    lx: LxMemory,
) -> tuple[list[np.ndarray], list[np.ndarray]] | None:
    """The read and write views of `op` over every core at once (leading axes: the core grid; a
    tensor that is the same on every core along a grid axis has extent 1 there), when each core's
    start is the first core's plus a stride per work-slice index (planned for the tensors in
    `placed`, whose cores start at their first elements); None when not (the per-core path then
    runs, and reports bad addresses)."""
    grid = plan.grid
    assert grid is not None
    lx_rows = getattr(lx, "rows", None)
    views: list[list[np.ndarray]] = [[], []]
    for a, write in [(a, False) for a in op.reads] + [(a, True) for a in op.writes]:
        at = starts[a.label]
        if a.alloc.component == "lx":
            if lx_rows is None:
                return None
            try:
                rows = lx_rows(plan.cores, int(at.min()), int(at.max()) + a.span, write)
            except MemoryRangeError:
                return None
            at = at + np.array(plan.cores, dtype=np.int64) * rows.shape[1]
        if a.label in placed and a.placed_strides is not None:
            found: tuple[int, tuple[int, ...]] | None = (int(at[grid.first]), a.placed_strides)
        else:
            found = grid.strides(at)
        if found is None:
            return None
        origin, strides = found
        if any(s < 0 for s in strides) or (write and not all(strides)):
            return None
        span = sum((n - 1) * s for n, s in zip(grid.shape, strides)) + a.span
        shape, view_strides = (a.write_shape, a.write_strides) if write else (a.read_shape, a.read_strides)
        lead = tuple(n if s else 1 for n, s in zip(grid.shape, strides))
        try:
            if a.alloc.component == "hbm":
                buf, base = hbm.buffer(origin, origin + span, write)
            else:
                buf, base = rows.reshape(-1), 0
            view = np.ndarray(
                lead + shape, dtype=a.fmt.storage, buffer=buf, offset=origin - base, strides=strides + view_strides
            )
        except (MemoryRangeError, TypeError, ValueError):
            return None
        views[write].append(view)
    return views[0], views[1]


def run_superdsc(
    sdsc: SuperDsc,
    symbols: Mapping[int, int],
    hbm: ByteMemory,
    lx: LxMemory,
    *,
    source: str,
    tensors: Sequence[tuple[str, int, Sequence[int], object]] | None = None,
) -> ExecStats:
    """Run every core of `sdsc` (symbols: negative symbol id -> byte address); `tensors`, when given,
    are the kernel's arguments (name, base address, host shape, NumPy dtype), and every HBM allocation
    starting inside one must be laid out as that tensor's default layout. `SuperDscRunError` on
    anything that cannot run as written. The plan (`prepare_superdsc`) is made on the first run of
    `sdsc` and kept for the next."""
    stats = ExecStats()
    _DECODED.begin(lx)
    for plan in _plans_of(sdsc, source):
        cores = plan.cores
        starts = {label: _starts(a, cores, symbols, source) for label, a in plan.accesses.items()}
        placed = _check_tensors(sdsc, plan, starts, tensors, source) if tensors is not None else set()
        with np.errstate(all="ignore"):
            for op in plan.ops:
                _run_op(op, plan, starts, placed, hbm, lx, source)
        stats.merge(ExecStats(plan.bytes_read, plan.bytes_written, plan.elements))
    return stats


CHUNK_ELEMENTS = 1 << 17
"""About how many elements of its largest tensor an op computes at a time on the float32 path: the
decoded inputs, the result and the rounding's temporaries then stay in the core's 1 MiB L2 (25%
faster than whole tensors at once; a part per core would cost more in NumPy calls)."""


def _chunks(
    grid: tuple[int, ...], reads: Sequence[np.ndarray], writes: Sequence[np.ndarray]
) -> list[Callable[[np.ndarray], np.ndarray]]:
    """Parts of views whose leading axes are the core `grid`: slices of the longest grid axis (a
    view of extent 1 there, the same for every core along it, is whole in every part). One part
    when a large input is such a view: each part would decode it again."""
    axis = max(range(len(grid)), key=lambda k: grid[k])
    n = grid[axis]
    if any(v.shape[axis] == 1 and v.size > CHUNK_ELEMENTS // 8 for v in reads):
        return [lambda v: v]
    elements = max(v.size for v in (*reads, *writes) if v.shape[axis] == n)
    step = -(-n // min(n, max(1, round(elements / CHUNK_ELEMENTS))))
    parts = []
    for lo in range(0, n, step):
        index = (slice(None),) * axis + (slice(lo, lo + step),)
        parts.append(lambda v, index=index: v[index] if v.shape[axis] > 1 else v)
    return parts


def _run_op(
    op: _Op,
    plan: _DscPlan,
    starts: Mapping[str, np.ndarray],
    placed: set[str],
    hbm: ByteMemory,
    lx: LxMemory,
    source: str,
) -> None:
    batched = _grid_views(op, plan, starts, placed, hbm, lx) if plan.grid is not None else None
    if batched is not None:
        reads, writes = batched
        if op.direct is not None:
            op.direct(*reads, out=writes[0])
            return
        batch = len(plan.grid.shape)
        parts = _chunks(plan.grid.shape, reads, writes) if op.name not in MATMULS else [lambda v: v]
        for part in parts:
            result = op.compute(
                [_read(a, part(v), op.in_format, batch, i) for i, (a, v) in enumerate(zip(op.reads, reads))], batch
            )
            for a, view in zip(op.writes, writes):
                _write(a, part(view), result, batch)
        return
    for k, core in enumerate(plan.cores):
        reads = [_view(a, core, int(starts[a.label][k]), hbm, lx, source, write=False) for a in op.reads]
        writes = [_view(a, core, int(starts[a.label][k]), hbm, lx, source, write=True) for a in op.writes]
        if op.direct is not None:
            op.direct(*reads, out=writes[0])
            continue
        result = op.compute([_read(a, v, op.in_format, 0, i) for i, (a, v) in enumerate(zip(op.reads, reads))], 0)
        for a, view in zip(op.writes, writes):
            _write(a, view, result, 0)


def symbol_offsets(sdsc: SuperDsc) -> list[dict[int, int]]:
    """For each HBM allocation with a symbolic start (scheduleTree_ order: the k-th is tensor
    argument k, as torch-spyre's runtime binds a lone SuperDSC), its symbols and their byte offsets
    from the tensor's base: each core's symbol is where its slice starts in the whole-tensor layout.
    A symbol two cores of one tensor would place apart is an error."""
    tensors: list[dict[int, int]] = []
    for dsc in sdsc.dscs:
        for alloc in dsc.schedule:
            if alloc.component != "hbm" or not alloc.start_addr_symbolic:
                continue
            layout = allocation_layout(dsc, alloc)
            offsets: dict[int, int] = {}
            for core in dsc.core_ids_used:
                offset = layout.offset(core_origin(alloc, sdsc.core_to_wk_slice[core]))
                symbol = alloc.start_address[core]
                if offsets.setdefault(symbol, offset) != offset:
                    raise SuperDscRunError(
                        f"{sdsc.source}: symbol {symbol} ({alloc.name}, core {core}) would be both "
                        f"base + {offsets[symbol]:#x} and base + {offset:#x}"
                    )
            tensors.append(offsets)
    return tensors


def default_symbols(sdsc: SuperDsc, bases: Sequence[int]) -> dict[int, int]:
    """Symbol values for a SuperDSC run alone (a directory without bundle.mlir, as torch-spyre's runtime
    runs it): tensor argument k (`symbol_offsets`) at `bases[k]`, each core's symbol that base plus
    the offset of the core's first element."""
    tensors = symbol_offsets(sdsc)
    if len(tensors) != len(bases):
        raise SuperDscRunError(
            f"{sdsc.source}: {len(tensors)} tensors have symbolic HBM starts, but {len(bases)} bases are given"
        )
    symbols: dict[int, int] = {}
    for base, offsets in zip(bases, tensors):
        for symbol, offset in offsets.items():
            if symbols.setdefault(symbol, base + offset) != base + offset:
                raise SuperDscRunError(
                    f"{sdsc.source}: symbol {symbol} would be both {symbols[symbol]:#x} and {base + offset:#x}"
                )
    return symbols
