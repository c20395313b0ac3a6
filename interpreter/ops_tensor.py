"""tensor ops.

Tensors are NumPy arrays, never modified in place once produced (an op that
"updates" a tensor copies it), so results may share memory with operands
(reshapes, slices, splats are views). A varying tensor has a leading lane
axis; `lead` below is 1 for those and 0 otherwise.

`tensor.empty` is zero-filled, as in ktir-cpu: the corpus matmul uses an
empty tensor as the accumulator of `linalg.matmul`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, SSAValue

from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, not_executable
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable


def _lead(fc: FunctionCompiler, value: SSAValue) -> int:
    return 1 if fc.is_varying(value) else 0


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue], fc: FunctionCompiler) -> list:
    """Static entries as ints, dynamic ones as slot numbers (tagged by a tuple)."""
    slots = iter(dynamic)
    return [("slot", fc.slot(next(slots))) if s == DYNAMIC_INDEX else s for s in static]


def _resolve(entries: list, frame: list) -> list:
    return [frame[e[1]] if isinstance(e, tuple) else e for e in entries]


def _static_shape(ty: TensorType) -> tuple[int, ...] | None:
    shape = tuple(ty.get_shape())
    return None if DYNAMIC_INDEX in shape or any(d < 0 for d in shape) else shape


def _dims(values, what: str) -> tuple[int, ...]:
    """Run-time dynamic sizes as a shape; negative sizes are the kernel's error."""
    dims = tuple(int(d) for d in values)
    if any(d < 0 for d in dims):
        raise InterpreterError(f"negative size in the {what} {'x'.join(map(str, dims))}")
    return dims


def _check_size(fc: FunctionCompiler, shape: tuple[int, ...], dtype: np.dtype, what: str) -> None:
    runtime = fc.program.runtime
    nbytes = math.prod(shape) * dtype.itemsize
    if runtime is not None and nbytes > runtime.budget.limit:
        runtime.check_allocation(nbytes, what)


def _reshaped(x: np.ndarray, lead: int, shape: tuple[int, ...], op: Operation) -> np.ndarray:
    if math.prod(x.shape[lead:]) != math.prod(shape) or any(d < 0 for d in shape):
        raise InterpreterError(
            f"'{op.name}' cannot reshape a {'x'.join(map(str, x.shape[lead:])) or 'scalar'} tensor "
            f"to {'x'.join(map(str, shape)) or 'scalar'}"
        )
    return x.reshape(x.shape[:lead] + tuple(shape))


def _no_varying(fc: FunctionCompiler, op: Operation, values: Sequence[SSAValue], what: str) -> None:
    if any(fc.is_varying(v) for v in values):
        raise NotBatchable(op, f"{what} depends on the core id")


@handles(tensor.EmptyOp)
def _empty(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.EmptyOp)
    ty = op.tensor.type
    dtype = fc.format(op.tensor).compute
    r = fc.slot(op.tensor)
    shape = _static_shape(ty)
    if shape is not None:
        zeros = np.zeros(shape, dtype)
        zeros.flags.writeable = False

        def step(frame):
            frame[r] = zeros

        return step
    _no_varying(fc, op, op.dynamic_sizes, "the shape of a tensor")
    dims = _mixed(ty.get_shape(), op.dynamic_sizes, fc)

    def step(frame):
        shape = _dims(_resolve(dims, frame), "tensor.empty shape")
        _check_size(fc, shape, dtype, f"tensor.empty of shape {'x'.join(map(str, shape))}")
        frame[r] = np.zeros(shape, dtype)

    return step


@handles(tensor.SplatOp)
def _splat(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.SplatOp)
    dtype = fc.format(op.result).compute
    a, r = fc.slot(op.input), fc.slot(op.result)
    _no_varying(fc, op, op.dynamicSizes, "the shape of a tensor")
    dims = _mixed(op.result.type.get_shape(), op.dynamicSizes, fc)
    if fc.is_varying(op.input):

        def step(frame):
            x = frame[a]
            shape = _dims(_resolve(dims, frame), "tensor.splat shape")
            frame[r] = np.broadcast_to(x.reshape(x.shape + (1,) * len(shape)), x.shape + shape)

        return step

    def step(frame):
        frame[r] = np.broadcast_to(np.asarray(frame[a], dtype), _dims(_resolve(dims, frame), "tensor.splat shape"))

    return step


def _check_index(indices: Sequence, shape: Sequence[int]) -> None:
    for i, n in zip(indices, shape):
        if isinstance(i, np.ndarray):
            if (i < 0).any() or (i >= n).any():
                raise InterpreterError(f"index {list(np.unique(i[(i < 0) | (i >= n)]))} out of bounds for dim of size {n}")
        elif not 0 <= i < n:
            raise InterpreterError(f"index {i} out of bounds for dim of size {n}")


@handles(tensor.ExtractOp)
def _extract(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.ExtractOp)
    t, r = fc.slot(op.tensor), fc.slot(op.result)
    idx = tuple(fc.slot(i) for i in op.indices)
    fmt = fc.format(op.result)
    lead = _lead(fc, op.tensor)
    varying_index = any(fc.is_varying(i) for i in op.indices)
    if not lead and not varying_index:
        convert = fmt.to_python

        def step(frame):
            x = frame[t]
            where = tuple(frame[i] for i in idx)
            _check_index(where, x.shape)
            frame[r] = convert(x[where])

        return step

    def step(frame):
        x = frame[t]
        where = tuple(frame[i] for i in idx)
        _check_index(where, x.shape[lead:])
        if lead and varying_index:
            where = (np.arange(x.shape[0]), *where)
        elif lead:
            where = (slice(None), *where)
        frame[r] = np.asarray(x[where], fmt.compute)

    return step


@handles(tensor.InsertOp)
def _insert(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.InsertOp)
    s, d, r = fc.slot(op.scalar), fc.slot(op.dest), fc.slot(op.result)
    idx = tuple(fc.slot(i) for i in op.indices)
    varying = fc.is_varying(op.result)
    dest_lead = _lead(fc, op.dest)

    def step(frame):
        dest = frame[d]
        where = tuple(frame[i] for i in idx)
        if varying:
            count = frame[0].count
            out = np.array(np.broadcast_to(dest, (count, *dest.shape[dest_lead:])))
            _check_index(where, out.shape[1:])
            out[(np.arange(count), *where)] = frame[s]
        else:
            _check_index(where, dest.shape)
            out = dest.copy()
            out[where] = frame[s]
        frame[r] = out

    return step


def _reduced_shape(sizes: Sequence[int], result_type: TensorType) -> tuple[int, ...]:
    """The slice shape `sizes` with the unit dims MLIR drops to reach the result rank."""
    target = list(result_type.get_shape())
    if len(target) == len(sizes):
        if any(t != DYNAMIC_INDEX and t >= 0 and t != n for t, n in zip(target, sizes)):
            raise InterpreterError(f"slice sizes {list(sizes)} disagree with the result type {result_type}")
        return tuple(sizes)
    out, j = [], 0
    for s in sizes:
        if j < len(target) and (target[j] == s or target[j] == DYNAMIC_INDEX):
            out.append(s)
            j += 1
        elif s != 1:
            raise InterpreterError(f"cannot drop dim of size {s} to reach {result_type}")
    if len(out) != len(target):
        raise InterpreterError(f"slice sizes {list(sizes)} disagree with the result type {result_type}")
    return tuple(out)


class _SliceSpec:
    def __init__(self, fc: FunctionCompiler, op: Operation, source_shape_op: SSAValue):
        self.offsets = _mixed(op.static_offsets.get_values(), op.offsets, fc)
        self.sizes = _mixed(op.static_sizes.get_values(), op.sizes, fc)
        self.strides = _mixed(op.static_strides.get_values(), op.strides, fc)
        _no_varying(fc, op, [*op.sizes, *op.strides], "the shape of a slice")
        self.varying_offsets = any(fc.is_varying(o) for o in op.offsets)

    def slices(self, frame: list, shape: Sequence[int], lane: int | None = None) -> tuple[tuple[slice, ...], list[int]]:
        offsets = _resolve(self.offsets, frame)
        if lane is not None:
            offsets = [int(o[lane]) if isinstance(o, np.ndarray) else o for o in offsets]
        sizes = [int(s) for s in _resolve(self.sizes, frame)]
        strides = [int(s) for s in _resolve(self.strides, frame)]
        out = []
        for o, n, st, dim in zip(offsets, sizes, strides, shape):
            o = int(o)
            if n and (o < 0 or o + (n - 1) * st >= dim or st <= 0):
                raise InterpreterError(f"slice [{o}, size {n}, stride {st}] is out of bounds for a dim of size {dim}")
            out.append(slice(o, o + n * st, st) if n else slice(0, 0))
        return tuple(out), sizes


@handles(tensor.ExtractSliceOp)
def _extract_slice(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.ExtractSliceOp)
    spec = _SliceSpec(fc, op, op.source)
    src, r = fc.slot(op.source), fc.slot(op.result)
    lead = _lead(fc, op.source)
    result_type = op.result.type

    if spec.varying_offsets:

        def step(frame):
            x = frame[src]
            count = frame[0].count
            parts = []
            for lane in range(count):
                slices, sizes = spec.slices(frame, x.shape[lead:], lane)
                parts.append((x[lane] if lead else x)[slices].reshape(_reduced_shape(sizes, result_type)))
            frame[r] = np.stack(parts)

        return step

    def step(frame):
        x = frame[src]
        slices, sizes = spec.slices(frame, x.shape[lead:])
        part = x[(slice(None),) * lead + slices]
        frame[r] = part.reshape(x.shape[:lead] + _reduced_shape(sizes, result_type))

    return step


@handles(tensor.InsertSliceOp)
def _insert_slice(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.InsertSliceOp)
    spec = _SliceSpec(fc, op, op.dest)
    s, d, r = fc.slot(op.source), fc.slot(op.dest), fc.slot(op.result)
    varying = fc.is_varying(op.result)
    source_lead = _lead(fc, op.source)
    dest_lead = _lead(fc, op.dest)

    def step(frame):
        dest, source = frame[d], frame[s]
        if not varying:
            slices, sizes = spec.slices(frame, dest.shape)
            out = dest.copy()
            out[slices] = _reshaped(source, 0, tuple(sizes), op)
            frame[r] = out
            return
        count = frame[0].count
        shape = dest.shape[dest_lead:]
        out = np.array(np.broadcast_to(dest, (count, *shape)))
        if spec.varying_offsets:
            for lane in range(count):
                slices, sizes = spec.slices(frame, shape, lane)
                out[lane][slices] = _reshaped(source[lane] if source_lead else source, 0, tuple(sizes), op)
        else:
            slices, sizes = spec.slices(frame, shape)
            out[(slice(None), *slices)] = _reshaped(source, source_lead, tuple(sizes), op)
        frame[r] = out

    return step


def _reshape_step(fc: FunctionCompiler, op: Operation, src: SSAValue, result: SSAValue, shape_of) -> Step:
    a, r = fc.slot(src), fc.slot(result)
    lead = _lead(fc, src)

    def step(frame):
        x = frame[a]
        frame[r] = _reshaped(x, lead, tuple(shape_of(frame, x.shape[lead:])), op)

    return step


@handles(tensor.ExpandShapeOp)
def _expand_shape(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.ExpandShapeOp)
    _no_varying(fc, op, op.dynamic_output_shape, "the shape of a tensor")
    dims = _mixed(op.static_output_shape.get_values(), op.dynamic_output_shape, fc)
    static = None if any(isinstance(d, tuple) for d in dims) else tuple(dims)
    return _reshape_step(
        fc, op, op.src, op.result, (lambda frame, _: static) if static else (lambda frame, _: tuple(_resolve(dims, frame)))
    )


@handles(tensor.CollapseShapeOp)
def _collapse_shape(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.CollapseShapeOp)
    groups = [[int(i.value.data) for i in group.data] for group in op.reassociation.data]
    static = _static_shape(op.result.type)

    def shape_of(frame, source_shape):
        if static is not None:
            return static
        return tuple(int(np.prod([source_shape[i] for i in g], dtype=np.int64)) for g in groups)

    return _reshape_step(fc, op, op.src, op.result, shape_of)


@handles(tensor.ReshapeOp)
def _reshape(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.ReshapeOp)
    _no_varying(fc, op, [op.shape], "the shape of a tensor")
    shape_slot = fc.slot(op.shape)
    return _reshape_step(fc, op, op.source, op.result, lambda frame, _: tuple(int(v) for v in frame[shape_slot]))


@handles(tensor.CastOp)
def _cast(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.CastOp)
    a, r = fc.slot(op.source), fc.slot(op.dest)
    expected = op.dest.type.get_shape() if isinstance(op.dest.type, TensorType) else None
    lead = _lead(fc, op.source)

    def step(frame):
        x = frame[a]
        if expected is not None and any(e not in (DYNAMIC_INDEX, n) for e, n in zip(expected, x.shape[lead:])):
            raise InterpreterError(f"tensor.cast of a {x.shape[lead:]} tensor to {op.dest.type}")
        frame[r] = x

    return step


@handles(tensor.FromElementsOp)
def _from_elements(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.FromElementsOp)
    elements = tuple(fc.slot(e) for e in op.elements)
    r = fc.slot(op.result)
    shape = tuple(op.result.type.get_shape())
    dtype = fc.format(op.result).compute
    if fc.is_varying(op.result):

        def step(frame):
            count = frame[0].count
            columns = [np.broadcast_to(np.asarray(frame[e], dtype), (count,)) for e in elements]
            frame[r] = np.stack(columns, axis=-1).reshape((count, *shape))

        return step

    def step(frame):
        frame[r] = np.array([frame[e] for e in elements], dtype).reshape(shape)

    return step


@handles(tensor.DimOp)
def _dim(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.DimOp)
    _no_varying(fc, op, [op.index], "the dim index")
    a, i, r = fc.slot(op.source), fc.slot(op.index), fc.slot(op.result)
    lead = _lead(fc, op.source)

    def step(frame):
        x = frame[a]
        k = frame[i]
        if not 0 <= k < x.ndim - lead:
            raise InterpreterError(f"dim index {k} out of range for a rank-{x.ndim - lead} tensor")
        frame[r] = int(x.shape[lead + k])

    return step


@handles(tensor.ConcatOp)
def _concat(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, tensor.ConcatOp)
    inputs = tuple(fc.slot(x) for x in op.inputs)
    leads = tuple(_lead(fc, x) for x in op.inputs)
    r = fc.slot(op.result)
    axis = int(op.dim.value.data)
    varying = fc.is_varying(op.result)

    def step(frame):
        arrays = [frame[s] for s in inputs]
        shapes = {x.shape[lead:][:axis] + x.shape[lead:][axis + 1 :] for x, lead in zip(arrays, leads)}
        if len(shapes) > 1:
            raise InterpreterError(f"tensor.concat inputs differ in dims other than dim {axis} at run time")
        if varying:
            count = frame[0].count
            arrays = [x if lead else np.broadcast_to(x, (count, *x.shape)) for x, lead in zip(arrays, leads)]
        frame[r] = np.concatenate(arrays, axis=axis + (1 if varying else 0))

    return step


not_executable({tensor.PadOp: "not implemented (docs/interpreter.md, Known gaps)"})
