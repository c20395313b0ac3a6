"""Run one SuperDSC (spyre_mlir/superdsc.py) on byte memories, in NumPy.

Each core of the DSC reads every tensor it uses from HBM or its LX, as an array over the op's dims
(its work slice; a replicated dim has extent 1 and broadcasts), computes the compute op in float32
and writes the outputs in their format (every replicated lane gets the value):

    hbm = FlatMemory(1 << 24)
    for k, base in enumerate(bases):
        hbm.add_region(base, nbytes[k], f"argument {k}")
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)       # kept across the files of one run
    stats = run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, lx, source="add/sdsc_0.json")

Addresses: an HBM allocation's start on a core is a symbol (a negative id bound by `symbols`, from
the bundle's `sdsc_execute` or `default_symbols`) or a byte address; its elements are at
start + the layout's offset of (coordinate - the core's origin), the layout spanning the whole tensor.
An LX allocation holds the core's piece at a constant offset in the core's LX.

Reads and writes go through strided views of the memory's bytes (each fold an axis with its byte
stride), reshaped into coordinate axes when a dim's folds are a mixed radix (every example), so the
common path has no gathers; other fold patterns take an indexed path.
"""

from __future__ import annotations

import math
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
    """Each core's LX, addressed from 0: like `ByteMemory.buffer`, per core."""

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
    """Each core's LX: `lx_bytes` bytes from address 0, zero at first (allocated on first use)."""

    def __init__(self, cores: int, lx_bytes: int):
        self.cores = cores
        self.lx_bytes = lx_bytes
        self._bytes: dict[int, np.ndarray] = {}

    def core_bytes(self, core: int) -> np.ndarray:
        """Core `core`'s LX bytes."""
        if not 0 <= core < self.cores:
            raise MemoryRangeError(f"core {core} does not exist ({self.cores} cores)")
        if core not in self._bytes:
            self._bytes[core] = np.zeros(self.lx_bytes, dtype=np.uint8)
        return self._bytes[core]

    def buffer(self, core: int, lo: int, hi: int, write: bool) -> tuple[np.ndarray, int]:
        if not 0 <= lo <= hi <= self.lx_bytes:
            raise MemoryRangeError(f"[{lo:#x}, {hi:#x}) is outside core {core}'s LX of {self.lx_bytes} bytes")
        return self.core_bytes(core), 0


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


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": lambda x: x,
    "relufwd": lambda x: np.maximum(x, x.dtype.type(0)),
    "exp": np.exp,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "neg": np.negative,
    "abs": np.abs,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "reciprocal": lambda x: 1.0 / x,
    "gelufwd": lambda x: 0.5 * x * (1.0 + _erf(x * np.float32(1 / math.sqrt(2)))),
    "silufwd": lambda x: x * _sigmoid(x),
}
"""Elementwise ops of one input (identity is a copy: softmax moves HBM to LX with it)."""

BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "realdiv": np.divide,
    "max": np.maximum,
    "min": np.minimum,
}
"""Elementwise ops of two inputs, with broadcasting over replicated dims."""

IN_FORMAT: dict[str, Callable[..., np.ndarray]] = {
    "identity": np.positive,
    "relufwd": lambda x, out=None: np.maximum(x, x.dtype.type(0), out=out),
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
without the conversions to and from float32 that cost 10x the op; when the tensors' views also match
element for element, straight from the input views into the output view. NumPy's vectorized float16
exp and log differ from float32 exp/log rounded to float16 by one ulp on a handful of the 65536 inputs."""

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

    @property
    def nbytes(self) -> int:
        return math.prod(self.write_shape) * self.fmt.word_length

    @property
    def label(self) -> str:
        return f"{self.name}-idx{self.alloc.lds_idx}"


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


# -- running ---------------------------------------------------------------------


def _where(access: _Access, source: str) -> str:
    return f"{access.name} of {source} ({access.alloc.name})"


def _start(access: _Access, core: int, symbols: Mapping[int, int], source: str) -> int:
    value = access.alloc.start_address[core]
    if not access.alloc.start_addr_symbolic:
        return value
    if value not in symbols:
        bound = f"{min(symbols)}..{max(symbols)}" if symbols else "none"
        raise SuperDscRunError(
            f"{_where(access, source)} starts on core {core} at symbol {value}, which is not bound (bound: {bound})"
        )
    return symbols[value]


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


def _read(access: _Access, view: np.ndarray, in_format: bool) -> np.ndarray:
    values = view if in_format else decode(view, access.fmt)
    if access.read_coords is None:
        return values.reshape(access.extents)
    out = np.zeros(access.extents, dtype=values.dtype)
    out[access.read_coords] = values
    return out


def _write(access: _Access, view: np.ndarray, result: np.ndarray) -> None:
    result = np.broadcast_to(result, access.extents)
    # IEEE formats convert in the assignment (one pass); bf16 needs its rounding
    stored = encode(result, access.fmt) if access.fmt.is_bf16 else result
    if access.write_coords is None:
        view[...] = stored.reshape(access.source_shape)
    else:
        view[...] = stored[access.write_coords]


@dataclass
class _Op:
    """A compute op bound to its tensors: `compute` maps the input arrays to the output array."""

    name: str
    reads: list[_Access]
    writes: list[_Access]
    compute: Callable[[list[np.ndarray]], np.ndarray]
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
        return _Op(name, [x], outputs, lambda v: reduce(v[0], axis=axes, keepdims=True), math.prod(x.extents))
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
        batch = [d for d in c_dims if d in a_dims and d in b_dims]
        rows = [d for d in c_dims if d in a_dims and d not in b_dims]
        cols = [d for d in c_dims if d in b_dims and d not in a_dims]
        inner = [d for d in a_dims if d in b_dims and d not in c_dims]

        def grouped(
            t: _Access, t_dims: list[int], groups: list[list[int]]
        ) -> tuple[tuple[int, ...], list[int], list[int]]:
            order = [t_dims.index(d) for g in groups for d in g]
            return tuple(t.extents[d] for d in t_dims), order, [math.prod(t.extents[d] for d in g) for g in groups]

        a_shape, a_order, a_flat = grouped(a, a_dims, [batch, rows, inner])
        b_shape, b_order, b_flat = grouped(b, b_dims, [batch, inner, cols])
        c_order = batch + rows + cols
        c_shape = [out.extents[d] for d in c_order]
        c_perm = [c_order.index(d) for d in c_dims]

        def matmul(v: list[np.ndarray]) -> np.ndarray:
            lhs = v[0].reshape(a_shape).transpose(a_order).reshape(a_flat)
            rhs = v[1].reshape(b_shape).transpose(b_order).reshape(b_flat)
            return np.matmul(lhs, rhs).reshape(c_shape).transpose(c_perm).reshape(out.extents)

        macs = math.prod(max(a.extents[d], b.extents[d]) for d in range(len(dims)))
        return _Op(name, [a, b], outputs, matmul, macs)
    if name in UNARY:
        arity(1)
        fn1 = UNARY[name]
        compute = lambda v: fn1(v[0])  # noqa: E731 - one expression per kind
    elif name in BINARY:
        arity(2)
        fn2 = BINARY[name]
        compute = lambda v: fn2(v[0], v[1])  # noqa: E731
    else:
        raise SuperDscRunError(f"{where}: opFuncName '{name}' is not supported (supported: {', '.join(SUPPORTED_OPS)})")
    for a in inputs:
        wider = [dims[d] for d in range(len(dims)) if a.extents[d] > out.extents[d]]
        if wider:
            raise SuperDscRunError(
                f"{where}: {name} is elementwise but its output {out.name} is replicated along {', '.join(wider)}, "
                f"where input {a.name} varies"
            )
    formats = {a.fmt for a in (*inputs, *outputs)}
    in_format = name in IN_FORMAT and len(formats) == 1 and not out.fmt.is_bf16
    same_views = (
        len(outputs) == 1
        and out.write_shape == out.read_shape
        and all(a.read_coords is None and a.read_axes == out.read_axes for a in (*inputs, out))
    )
    direct = IN_FORMAT[name] if in_format and same_views else None
    return _Op(name, inputs, outputs, compute, math.prod(out.extents), in_format, direct)


def _format_matches(fmt: DataFormat, dtype: np.dtype) -> bool:
    if dtype.itemsize != fmt.word_length:
        return False
    if fmt.is_bf16:
        return dtype.name in ("bfloat16", "uint16")
    return dtype == fmt.storage


def _check_tensors(
    sdsc: SuperDsc,
    accesses: Sequence[_Access],
    cores: Sequence[int],
    symbols: Mapping[int, int],
    tensors: Sequence[tuple[str, int, Sequence[int], object]],
    source: str,
) -> None:
    args = []
    for name, base, shape, dtype in tensors:
        dtype = np.dtype(dtype)
        shape = tuple(int(n) for n in shape)
        device = default_device_shape(shape, dtype.itemsize)
        args.append((name, int(base), shape, dtype, device, math.prod(device) * dtype.itemsize))
    for access in accesses:
        if access.alloc.component != "hbm":
            continue
        checked = set()
        for core in cores:
            start = _start(access, core, symbols, source)
            arg = next((a for a in args if a[1] <= start < a[1] + a[5]), None)
            if arg is None:
                continue
            name, base, shape, dtype, device, _ = arg
            layout = access.layout
            if name not in checked:
                checked.add(name)
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
            origin = core_origin(access.alloc, sdsc.core_to_wk_slice[core])
            expected = base + layout.offset(origin)
            if start != expected:
                at = ", ".join(f"{d} {c}" for d, c in origin.items())
                raise SuperDscRunError(
                    f"{_where(access, source)} starts on core {core} at {start:#x}, but the core's first element "
                    f"({at}) of {name} is at {base:#x} + {expected - base} = {expected:#x}"
                )


@dataclass(frozen=True)
class _CoreGrid:
    """The cores of a DSC as a grid of work slices: `index[k]` is core `cores[k]`'s slice index along
    each of the `split` dims (the dims cut into several slices); `first` has all zeros and `steps[d]`
    is 1 along d only."""

    split: tuple[str, ...]
    shape: tuple[int, ...]
    index: np.ndarray
    first: int
    steps: tuple[int, ...]


def _core_grid(sdsc: SuperDsc, cores: Sequence[int]) -> _CoreGrid | None:
    split = tuple(d for d, n in sdsc.num_wk_slices.items() if n > 1)
    if len(cores) != math.prod(sdsc.num_wk_slices.values()):
        return None
    index = np.array([[sdsc.core_to_wk_slice[c][d] for d in split] for c in cores], dtype=np.int64).reshape(
        len(cores), len(split)
    )
    totals = index.sum(axis=1)
    first = [c for c, t in zip(cores, totals) if t == 0]
    steps = []
    for k in range(len(split)):
        along = [c for c, row, t in zip(cores, index, totals) if t == 1 and row[k] == 1]
        if not along:
            return None
        steps.append(along[0])
    if not first:
        return None
    shape = tuple(sdsc.num_wk_slices[d] for d in split)
    return _CoreGrid(split, shape, index, first[0], tuple(steps))


def _all_cores_view(
    op: _Op,
    grid: _CoreGrid,
    cores: Sequence[int],
    starts: Mapping[tuple[str, int], int],
    hbm: ByteMemory,
) -> list[np.ndarray] | None:
    """One view per tensor of a direct op spanning every core, when all its tensors are in HBM and
    each core's start is the first core's plus a stride per work-slice index (one ufunc call instead
    of one per core); None when not (the per-core path then runs, and reports bad addresses)."""
    views = []
    for a, write in [(a, False) for a in op.reads] + [(op.writes[0], True)]:
        if a.alloc.component != "hbm":
            return None
        label = a.label
        origin = starts[label, grid.first]
        strides = tuple(starts[label, c] - origin for c in grid.steps)
        if any(stride < 0 for stride in strides):
            return None
        actual = np.array([starts[label, c] for c in cores], dtype=np.int64)
        if not np.array_equal(actual, origin + grid.index @ np.array(strides, dtype=np.int64)):
            return None
        span = sum((n - 1) * stride for n, stride in zip(grid.shape, strides)) + a.span
        try:
            buf, base = hbm.buffer(origin, origin + span, write)
            view = np.ndarray(
                grid.shape + a.read_shape,
                dtype=a.fmt.storage,
                buffer=buf,
                offset=origin - base,
                strides=strides + a.read_strides,
            )
        except (MemoryRangeError, TypeError, ValueError):
            return None
        views.append(view)
    return views


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
    anything that cannot run as written."""
    stats = ExecStats()
    for k, dsc in enumerate(sdsc.dscs):
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
        if tensors is not None:
            _check_tensors(sdsc, list(accesses.values()), cores, symbols, tensors, source)
        starts = {(label, core): _start(a, core, symbols, source) for label, a in accesses.items() for core in cores}
        grid = _core_grid(sdsc, cores) if any(op.direct for op in ops) else None
        with np.errstate(all="ignore"):
            for op in ops:
                batched = _all_cores_view(op, grid, cores, starts, hbm) if op.direct and grid else None
                if batched is not None:
                    op.direct(*batched[:-1], out=batched[-1])
                    continue
                for core in cores:
                    reads = [_view(a, core, starts[a.label, core], hbm, lx, source, write=False) for a in op.reads]
                    writes = [_view(a, core, starts[a.label, core], hbm, lx, source, write=True) for a in op.writes]
                    if op.direct is not None:
                        op.direct(*reads, out=writes[0])
                        continue
                    result = op.compute([_read(a, v, op.in_format) for a, v in zip(op.reads, reads)])
                    for a, view in zip(op.writes, writes):
                        _write(a, view, result)
        for op in ops:
            for counts, accesses_of_op in ((stats.bytes_read, op.reads), (stats.bytes_written, op.writes)):
                for a in accesses_of_op:
                    counts[a.alloc.component] = counts.get(a.alloc.component, 0) + a.nbytes * len(cores)
            stats.elements[op.name] = stats.elements.get(op.name, 0) + op.elements * len(cores)
    return stats


def default_symbols(sdsc: SuperDsc, bases: Sequence[int]) -> dict[int, int]:
    """Symbol values for a SuperDSC run alone (a directory without bundle.mlir, as torch-spyre's runtime
    runs it): the k-th HBM allocation with a symbolic start (scheduleTree_ order) is tensor argument k
    at `bases[k]`, and each core's symbol is that base plus the offset of the core's first element."""
    symbols: dict[int, int] = {}
    k = 0
    for dsc in sdsc.dscs:
        for alloc in dsc.schedule:
            if alloc.component != "hbm" or not alloc.start_addr_symbolic:
                continue
            if k >= len(bases):
                raise SuperDscRunError(
                    f"{sdsc.source}: {alloc.name} is symbolic HBM allocation {k}, but only {len(bases)} tensors are given"
                )
            layout = allocation_layout(dsc, alloc)
            for core in dsc.core_ids_used:
                value = bases[k] + layout.offset(core_origin(alloc, sdsc.core_to_wk_slice[core]))
                symbol = alloc.start_address[core]
                if symbols.setdefault(symbol, value) != value:
                    raise SuperDscRunError(
                        f"{sdsc.source}: symbol {symbol} ({alloc.name}, core {core}) would be both "
                        f"{symbols[symbol]:#x} and {value:#x}"
                    )
            k += 1
    if k != len(bases):
        raise SuperDscRunError(f"{sdsc.source}: {k} tensors have symbolic HBM starts, but {len(bases)} bases are given")
    return symbols
