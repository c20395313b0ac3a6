"""linalg ops, evaluated on whole arrays rather than element by element.

Every structured op (`linalg.generic` and the named ops, whose bodies xDSL
materializes) is evaluated over its iteration domain as NumPy arrays: each
operand is viewed over the domain through its indexing map, and the body's
scalar ops run once on those arrays. Then, by what the body is:

- all loops parallel: the yielded arrays are the results;
- a contraction `out + a * b` (matmul and friends): one `np.matmul`/`np.einsum`
  accumulating in float32 (float64 for f64), rounded once to the result type;
- a reduction whose body is `combiner(x, out)` with an associative combiner
  (addf, mulf, maximumf, maxnumf, ..., addi, ...): `x` is evaluated over the
  whole domain and reduced with the matching NumPy reduction (floats sum in
  float32 at least, rounded once), then combined with the init;
- any other reduction: folded sequentially over the reduction loops, exactly
  as written (vectorized over the parallel loops).

`linalg.reduce`, `linalg.broadcast`, `linalg.transpose` and `linalg.fill`
have direct implementations; `linalg.index` reads the domain of its op.

Buffer form (memref operands, no results: the ops of dataflow-scheduler's
public-form schedules): every op computes exactly as on tensors. Before it
runs, each memref operand it reads is loaded whole (C order of the memref's
box, a lane axis per core when batched: buffers are per core) into a slot of
its own; after, each output is stored whole into its outs memref (`_Operands`).
An output the op never reads (its body ignores the out argument, a fill, a
broadcast) is not loaded, so a fresh `memref.alloc` is a valid destination;
one it reads must have been written (the located error of ops_memref).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from time import monotonic

import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, FillOp, GenericOp, IndexOp, ReduceOp, TransposeOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from spyre_mlir.analysis.affine import projected_dims
from spyre_mlir.interpreter.affine_eval import compile_map
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable
from spyre_mlir.interpreter.ops_memref import Memref, as_memref, memref_run, whole_box
from spyre_mlir.interpreter.views import load, store
from spyre_mlir.walk import walk_ops

COMBINERS: dict[str, np.ufunc] = {
    "arith.addf": np.add,
    "arith.mulf": np.multiply,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "arith.addi": np.add,
    "arith.muli": np.multiply,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
}
"""Associative, commutative combiners and their NumPy reductions."""

_ROUNDING_COMBINERS = {"arith.addf", "arith.mulf"}


def _in_value_order(x: np.ndarray, dtype=None) -> np.ndarray:
    """`x` C-contiguous (copied only when it is not, or to convert it to `dtype`).

    NumPy's float reductions (`np.add.reduce`: pairwise along a contiguous axis,
    sequential across the others) and BLAS/einsum contractions pick their
    summation order from the operand's memory order, so the same values summed
    from a transposed view (`linalg.transpose` yields a view) and from a
    contiguous copy round differently. Every rounding reduction and contraction
    reads its operand in row-major order: the result depends on the values only,
    never on how an earlier op (or a pass that made the operand contiguous) left
    them in memory."""
    return np.ascontiguousarray(x, dtype=dtype)


def accumulator_dtype(fmt: ElementFormat) -> np.dtype:
    """Where float sums and products accumulate: float32, or float64 for f64."""
    if fmt.is_float:
        return np.dtype(np.float64) if fmt.compute == np.float64 else np.dtype(np.float32)
    return fmt.compute


def _finish(fmt: ElementFormat, x: np.ndarray) -> np.ndarray:
    out = x.astype(fmt.compute, copy=False)
    return fmt.round(out) if fmt.round is not None else out


class Domain:
    """The iteration domain of a running structured op, for `linalg.index`."""

    __slots__ = ("sizes", "lead", "folded")

    def __init__(self, sizes: tuple[int, ...], lead: int, folded: dict[int, int]):
        self.sizes = sizes
        self.lead = lead  # 1 when arrays carry a lane axis
        self.folded = folded  # reduction dims fixed by the sequential fold

    def index(self, d: int):
        if d in self.folded:
            return self.folded[d]
        axes = [i for i in range(len(self.sizes)) if i not in self.folded]
        shape = [1] * (self.lead + len(axes))
        shape[self.lead + axes.index(d)] = self.sizes[d]
        return np.arange(self.sizes[d], dtype=np.int64).reshape(shape)


def _domain_view(
    x: np.ndarray, amap: AffineMap, dims: list[int] | None, lead_in: int, lead: int, sizes: tuple[int, ...]
) -> np.ndarray:
    """Operand `x` as an array over the domain ([lanes] + one axis per loop;
    axes of loops the operand does not depend on have size 1)."""
    n = len(sizes)
    if dims is not None:
        order = sorted(range(len(dims)), key=lambda k: dims[k])
        axes = list(range(lead_in)) + [lead_in + k for k in order]
        view = x.transpose(axes) if axes != list(range(len(axes))) else x
        if lead and not lead_in:
            view = view[None]
        missing = [lead + d for d in range(n) if d not in dims]
        return np.expand_dims(view, missing) if missing else view
    # General affine map: gather through explicit index arrays.
    grid = [g for g in np.indices(sizes, dtype=np.int64)]
    coords = compile_map(amap)(grid, ())
    for c, extent in zip(coords, x.shape[lead_in:]):
        if (np.asarray(c) < 0).any() or (np.asarray(c) >= extent).any():
            raise InterpreterError(f"indexing map {amap} reads outside an operand of shape {x.shape[lead_in:]}")
    view = x[(slice(None),) * lead_in + tuple(np.broadcast_to(c, sizes) for c in coords)]
    return view[None] if lead and not lead_in else view


def _loop_sizes(maps: Sequence[AffineMap], arrays: Sequence[np.ndarray], leads: Sequence[int]) -> tuple[int, ...]:
    n = maps[0].num_dims
    sizes: list[int | None] = [None] * n
    for amap, x, lead in zip(maps, arrays, leads):
        for k, e in enumerate(amap.results):
            if isinstance(e, AffineDimExpr):
                extent = x.shape[lead + k]
                if sizes[e.position] is None:
                    sizes[e.position] = extent
                elif sizes[e.position] != extent:
                    raise InterpreterError(
                        f"operand shapes disagree on loop d{e.position}: {sizes[e.position]} and {extent}"
                    )
    if any(s is None for s in sizes):
        raise InterpreterError("cannot infer the size of every loop from the operand shapes")
    return tuple(s for s in sizes if s is not None)


class _Body:
    """How a structured op's body is evaluated (decided while decoding)."""

    def __init__(self, block: Block, n_in: int):
        self.block = block
        self.n_in = n_in
        self.reduction: list[tuple[Operation, int]] | None = None  # per output: (combiner op, x operand index)
        self.contraction: tuple[int, int, str, str] | None = None  # (a input, b input, mul op, add op)

    def match_reduction(self, n_out: int) -> bool:
        """Each yielded value is `combiner(x, out_k)` with out_k used only there."""
        yielded = self.block.last_op.operands
        found = []
        for k in range(n_out):
            out_arg = self.block.args[self.n_in + k]
            owner = yielded[k].owner
            if not isinstance(owner, Operation) or owner.name not in COMBINERS or len(owner.operands) != 2:
                return False
            if not out_arg.has_one_use() or out_arg not in owner.operands:
                return False
            x_index = 1 if owner.operands[0] is out_arg else 0
            if owner.operands[x_index] is out_arg:
                return False
            found.append((owner, x_index))
        self.reduction = found
        return True

    def match_contraction(self) -> bool:
        """`yield add(mul(cast?(in0), cast?(in1)), out)` with two inputs and one output."""
        ops = [op for op in self.block.ops if op is not self.block.last_op]
        if self.n_in != 2 or len(self.block.args) != 3 or not self.reduction or len(self.reduction) != 1:
            return False
        add, x_index = self.reduction[0]
        if add.name not in ("arith.addf", "arith.addi"):
            return False
        mul = add.operands[x_index].owner
        if not isinstance(mul, Operation) or mul.name not in ("arith.mulf", "arith.muli"):
            return False
        sources = []
        allowed = {add, mul}
        for v in mul.operands:
            if isinstance(v.owner, Operation) and v.owner.name in ("arith.extf", "arith.sitofp", "arith.extsi"):
                allowed.add(v.owner)
                v = v.owner.operands[0]
            if v not in self.block.args[:2]:
                return False
            sources.append(self.block.args.index(v))
        if set(ops) != allowed or sorted(sources) != [0, 1]:
            return False
        self.contraction = (sources[0], sources[1], mul.name, add.name)
        return True


def _reads_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Whether what `op` computes may differ between cores: an operand, a value
    its body uses from outside, or a yielded value varies."""
    v = fc.varying
    yielded = op.regions[0].block.last_op.operands if op.regions and op.regions[0].blocks else ()
    return (
        any(x in v for x in op.operands)
        or any(x in v for x in fc.captured(*op.regions))
        or any(x in v for x in yielded)
    )


class _Operands:
    """Where a linalg op's operands and results are in the frame.

    Tensor form: their own slots. Buffer form (memref operands, and so no
    results): each memref operand is loaded into a slot of its own before the
    op runs, as the array the tensor computation takes (an output the op does
    not read: zeros of its shape, nothing is loaded), and each output, computed
    into a slot of its own, is stored into its outs memref after; `wrap` adds
    those steps around the computation. Per operand, the array carries a lane
    axis exactly when the value is marked varying, in both forms."""

    def __init__(
        self,
        fc: FunctionCompiler,
        op: Operation,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        results: Sequence[SSAValue],
        reads_output: Sequence[bool],
    ):
        self.fc = fc
        self.buffers = any(isinstance(v.type, MemRefType) for v in (*inputs, *outputs))
        self.slots: dict[SSAValue, int] = {}
        self.loads: list[tuple[int, int, bool, bool, ElementFormat, str]] = []
        self.stores: list[tuple[int, int, ElementFormat, str]] = []
        if not self.buffers:
            if len(results) != len(outputs):
                raise InterpreterError(f"'{op.name}' must have one result per output")
            self.result_slots = tuple(fc.slot(r) for r in results)
            self.result_formats = [fc.format(r) for r in results]
            self.lead = 1 if any(fc.is_varying(r) for r in results) else 0
            return
        if results:
            raise InterpreterError(f"'{op.name}' on memrefs has no results: it writes its outs in place")
        if any(isinstance(v.type, TensorType) for v in (*inputs, *outputs)) or not all(
            isinstance(v.type, MemRefType) for v in outputs
        ):
            raise InterpreterError(f"'{op.name}' mixes tensor and memref operands")
        self.lead = 1 if _reads_varying(fc, op) else 0
        reads = [True] * len(inputs) + list(reads_output)
        for k, (v, read) in enumerate(zip((*inputs, *outputs), reads)):
            if not isinstance(v.type, MemRefType) or v in self.slots:
                continue
            role = f"input #{k}" if k < len(inputs) else f"output #{k - len(inputs)}"
            what = f"{role} of '{op.name}'"
            self.slots[v] = fc.new_slot()
            fmt = element_format(v.type.get_element_type())
            self.loads.append((fc.slot(v), self.slots[v], fc.is_varying(v), read, fmt, what))
        self.result_slots = tuple(fc.new_slot() for _ in outputs)
        self.result_formats = [element_format(v.type.get_element_type()) for v in outputs]  # pyright: ignore
        for k, (v, r, fmt) in enumerate(zip(outputs, self.result_slots, self.result_formats)):
            self.stores.append((fc.slot(v), r, fmt, f"output #{k} of '{op.name}'"))

    def slot(self, value: SSAValue) -> int:
        found = self.slots.get(value)
        return self.fc.slot(value) if found is None else found

    def lead_of(self, value: SSAValue) -> int:
        return 1 if self.fc.is_varying(value) else 0

    def wrap(self, step: Step) -> Step:
        if not self.buffers:
            return step
        loads, stores = tuple(self.loads), tuple(self.stores)
        program = self.fc.program  # its runtime is the running one's (set per run)

        def access(ref):
            # strict through public-form memrefs; through a ktdp view, the run's options
            return memref_run(program.runtime).access if isinstance(ref, Memref) else program.runtime.access

        def view_of(frame, ref_slot: int, fmt: ElementFormat, what: str):
            ref = frame[ref_slot]
            view = as_memref(ref, f"the {what}").view
            if view.fmt.name != fmt.name:
                raise InterpreterError(f"the {what} is a memref of {fmt.name} over {view.fmt.name} elements")
            return ref, view

        def buffered(frame: list) -> None:
            ctx = frame[0]
            for ref_slot, slot, varying, read, fmt, what in loads:
                ref, view = view_of(frame, ref_slot, fmt, what)
                rank = len(view.sizes)
                if read:
                    data = load(whole_box(view), ctx, access(ref))
                else:  # only its shape matters
                    data = np.broadcast_to(np.zeros((), fmt.compute), tuple(view.sizes))
                lanes = ctx.count is not None and data.ndim == rank + 1
                if varying and not lanes:
                    data = np.broadcast_to(data, (ctx.count, *data.shape))
                elif lanes and not varying:
                    raise InterpreterError(
                        f"the {what} is a different memref on each core where the batched run took it to be one "
                        "(run with execution='per-core')"
                    )
                frame[slot] = data
            try:
                step(frame)
                for ref_slot, slot, fmt, what in stores:
                    ref, view = view_of(frame, ref_slot, fmt, what)
                    store(whole_box(view), np.asarray(frame[slot], fmt.compute), ctx, access(ref))
            finally:  # the loaded and computed arrays are not kept alive past the op
                for _, slot, *_ in loads:
                    frame[slot] = None
                for _, slot, *_ in stores:
                    frame[slot] = None

        return buffered


def _structured(
    fc: FunctionCompiler,
    op: Operation,
    maps: Sequence[AffineMap],
    iterators: Sequence[str],
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    results: Sequence[SSAValue],
    block: Block,
) -> Step:
    source = _source_of_variation(fc, block) if fc.batched else None
    if source is not None:  # its lane array would not broadcast against the domain arrays
        raise NotBatchable(op, f"its body reads a value that differs between cores ('{source.name}')")
    n_in = len(inputs)
    reads_output = (
        [bool(block.args[n_in + k].uses) for k in range(len(outputs))]
        if len(block.args) == n_in + len(outputs)
        else [True] * len(outputs)
    )
    io = _Operands(fc, op, inputs, outputs, results, reads_output)
    operands = (*inputs, *outputs)
    slots = tuple(io.slot(v) for v in operands)
    leads = tuple(io.lead_of(v) for v in operands)
    result_slots = io.result_slots
    out_formats = io.result_formats
    lead = io.lead
    n_loops = maps[0].num_dims
    dims = [projected_dims(m) for m in maps]
    parallel = [d for d in range(n_loops) if iterators[d] == "parallel"]
    reductions = [d for d in range(n_loops) if iterators[d] != "parallel"]
    arg_slots = tuple(fc.slot(a) for a in block.args)
    domain_slot = fc.new_slot()
    fc.domain_slots[op] = domain_slot
    body = _Body(block, n_in)
    lane_scalars = tuple(
        fc.slot(v) for v in fc.captured(op.regions[0]) if fc.is_varying(v) and not isinstance(v.type, TensorType)
    )

    for k in range(len(outputs)):
        out_dims = dims[n_in + k]
        if out_dims is None or sorted(out_dims) != parallel:
            raise InterpreterError(
                f"output #{k} of '{op.name}' must be indexed by exactly the parallel loops (map {maps[n_in + k]})"
            )

    fc.body_depth += 1
    try:
        run_body = fc.compile_block(block)
        run_x = None
        if reductions and body.match_reduction(len(outputs)):
            # Same body, but each combiner passes its `x` operand through.
            overrides = {}
            for combiner, x_index in body.reduction or ():
                x_slot, r_slot = fc.slot(combiner.operands[x_index]), fc.slot(combiner.results[0])

                def passthrough(frame, x_slot=x_slot, r_slot=r_slot):
                    frame[r_slot] = frame[x_slot]

                overrides[combiner] = passthrough
            run_x = fc.compile_block(block, overrides)
            if all(d is not None for d in dims):
                body.match_contraction()
    finally:
        fc.body_depth -= 1

    # Where the parallel loops end up in the domain (ascending) vs in each output.
    out_orders = [[parallel.index(d) for d in dims[n_in + k]] for k in range(len(outputs))]

    def bind(frame: list, sizes: tuple[int, ...], views: Sequence[np.ndarray], folded: dict[int, int]) -> list:
        frame[domain_slot] = Domain(sizes, lead, folded)
        for s, v in zip(arg_slots, views):
            frame[s] = v
        if not lane_scalars:
            return frame
        sub = frame.copy()
        for s in lane_scalars:
            x = frame[s]
            sub[s] = x.reshape(x.shape + (1,) * (len(sizes) - len(folded)))
        return sub

    def init_in_domain(x: np.ndarray, k: int) -> np.ndarray:
        """Output init with its axes in ascending loop order (and a lane axis when varying)."""
        x_lead = leads[n_in + k]
        order = out_orders[k]
        inverse = sorted(range(len(order)), key=lambda j: order[j])
        x = x.transpose(list(range(x_lead)) + [x_lead + j for j in inverse])
        return x[None] if lead and not x_lead else x

    def to_output(x: np.ndarray, k: int) -> np.ndarray:
        return x.transpose(list(range(lead)) + [lead + j for j in out_orders[k]])

    def full_shape(frame: list, shape: tuple[int, ...]) -> tuple[int, ...]:
        return ((frame[0].count,) if lead else ()) + shape

    def step(frame: list) -> None:
        arrays = [frame[s] for s in slots]
        sizes = _loop_sizes(maps, arrays, leads)
        if body.contraction is not None:
            _contract(frame, arrays, sizes)
            return
        views = [_domain_view(x, m, d, l, lead, sizes) for x, m, d, l in zip(arrays, maps, dims, leads)]
        if not reductions:
            yielded = run_body(bind(frame, sizes, views, {}))
            shape = full_shape(frame, sizes)
            for k, fmt in enumerate(out_formats):
                value = np.broadcast_to(np.asarray(yielded[k], fmt.compute), shape)
                frame[result_slots[k]] = to_output(value, k)
            return
        if run_x is not None and all(sizes[d] > 0 for d in reductions):
            lanes = frame[0].count if lead else 1
            fc.program.runtime.check_allocation(
                math.prod(sizes) * lanes * 8,
                f"evaluating the body of '{op.name}' over its {'x'.join(map(str, sizes))} iteration domain",
            )
            _reduce_whole(frame, arrays, views, sizes)
            return
        _fold(frame, arrays, views, sizes)

    def _reduce_whole(frame, arrays, views, sizes) -> None:
        assert run_x is not None and body.reduction is not None
        xs = run_x(bind(frame, sizes, views, {}))
        shape = full_shape(frame, sizes)
        axes = tuple(lead + d for d in reductions)
        for k, (combiner, _) in enumerate(body.reduction):
            fmt = out_formats[k]
            ufunc = COMBINERS[combiner.name]
            acc = accumulator_dtype(fmt) if combiner.name in _ROUNDING_COMBINERS else None
            x = np.broadcast_to(np.asarray(xs[k]), shape)
            if acc is not None:  # a rounding sum or product: its order is the values' (see _in_value_order)
                x = _in_value_order(x)
            reduced = ufunc.reduce(x, axis=axes, dtype=acc)
            init = init_in_domain(arrays[n_in + k], k)
            combined = ufunc(init.astype(acc) if acc is not None else init, reduced)
            frame[result_slots[k]] = to_output(_finish(fmt, combined), k)

    def _fold(frame, arrays, views, sizes) -> None:
        shape = full_shape(frame, sizes)
        full = [np.broadcast_to(v, shape) for v in views[:n_in]]
        par_shape = shape[:lead] + tuple(sizes[d] for d in parallel)
        acc = [np.broadcast_to(init_in_domain(arrays[n_in + k], k), par_shape) for k in range(len(outputs))]
        deadline = fc.program.runtime.deadline
        for point in np.ndindex(*(sizes[d] for d in reductions)):
            if deadline is not None and monotonic() > deadline:
                raise fc.program.runtime.timed_out("folding this op")
            fixed = dict(zip(reductions, point))
            where = (slice(None),) * lead + tuple(fixed.get(d, slice(None)) for d in range(len(sizes)))
            in_views = [v[where] for v in full]
            yielded = run_body(bind(frame, sizes, [*in_views, *acc], fixed))
            acc = [np.broadcast_to(np.asarray(y, fmt.compute), par_shape) for y, fmt in zip(yielded, out_formats)]
        for k, fmt in enumerate(out_formats):
            frame[result_slots[k]] = to_output(_finish(fmt, np.asarray(acc[k])), k)

    def _contract(frame, arrays, sizes) -> None:
        assert body.contraction is not None
        a_index, b_index, _, _ = body.contraction
        fmt = out_formats[0]
        acc = accumulator_dtype(fmt)
        # C-contiguous operands: BLAS's and einsum's summation order follows the operands'
        # memory order, which must not change the result (see _in_value_order)
        a, b = _in_value_order(arrays[a_index], acc), _in_value_order(arrays[b_index], acc)
        init = arrays[n_in]
        letters = "abcdefghijklmnopqrstuvwxy"
        lane = "z"

        def spec(k: int) -> str:
            return (lane if leads[k] else "") + "".join(letters[d] for d in dims[k])

        # The init alone may carry the lanes; it is added after the product.
        product_lanes = leads[a_index] or leads[b_index]
        out_spec = (lane if product_lanes else "") + "".join(letters[d] for d in dims[n_in])
        sa, sb = spec(a_index), spec(b_index)
        plain = [letters[d] for d in reductions]
        if (
            len(plain) == 1
            and sa.lstrip(lane)[-1:] == plain[0]
            and sb.lstrip(lane)[:1] == plain[0]
            and len(sa.lstrip(lane)) == 2
            and len(sb.lstrip(lane)) == 2
            and out_spec.lstrip(lane) == sa.lstrip(lane)[0] + sb.lstrip(lane)[1]
        ):
            product = np.matmul(a, b)  # [lanes,] M x K @ [lanes,] K x N: BLAS
        else:
            product = np.einsum(f"{sa},{sb}->{out_spec}", a, b, optimize=True)
        frame[result_slots[0]] = _finish(fmt, product + init.astype(acc))

    return io.wrap(step)


def _iterator_names(op: LinalgStructuredOperation) -> list[str]:
    return [str(it.data) for it in op.get_iterator_types().data]


def _structured_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Results vary with an operand, a value the body uses from outside, or a
    yielded value. The body's block arguments are never marked: they hold
    arrays over the iteration domain, to which `_structured` adds the lane axis."""
    return fc.mark(op.results, _reads_varying(fc, op))


def _source_of_variation(fc: FunctionCompiler, block: Block) -> Operation | None:
    """An op of `block` (at any depth) whose results vary though nothing it reads does (the tile id)."""
    for inner in walk_ops(block):
        if not any(fc.is_varying(r) for r in inner.results):
            continue
        if any(fc.is_varying(x) for x in inner.operands):
            continue
        if inner.regions and any(fc.is_varying(x) for x in fc.captured(*inner.regions)):
            continue
        return inner
    return None


# linalg.generic and every named structured op (add, sub, mul, max, min, exp,
# log, sqrt, select, copy, matmul, and any other xDSL adds, e.g. div) that has
# no handler of its own: evaluated through their body.
@handles(GenericOp, LinalgStructuredOperation, varying=_structured_varying)
def _structured_op(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, LinalgStructuredOperation)
    maps = [m.data for m in op.get_indexing_maps().data]
    if any(m.num_symbols for m in maps):
        raise InterpreterError(f"'{op.name}' with symbols in its indexing maps is not supported")
    return _structured(fc, op, maps, _iterator_names(op), op.inputs, op.outputs, op.res, op.body.block)


def _single_combiner(block: Block) -> Operation | None:
    """The combiner of a body that is exactly `yield combiner(in, acc)` (either order)."""
    ops = list(block.ops)
    if len(ops) != 2 or len(block.args) != 2:
        return None
    combiner, yield_ = ops
    if combiner.name not in COMBINERS or tuple(yield_.operands) != tuple(combiner.results):
        return None
    if set(combiner.operands) != set(block.args) or combiner.operands[0] is combiner.operands[1]:
        return None
    return combiner


@handles(ReduceOp, varying=_structured_varying)
def _reduce(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ReduceOp)
    rank = len(op.input.type.get_shape())
    reduced = set(op.dimensions.get_values())
    combiner = _single_combiner(op.region.block)
    if combiner is not None:
        return _reduce_direct(fc, op, combiner, sorted(reduced))
    kept = [d for d in range(rank) if d not in reduced]
    identity = AffineMap(rank, 0, tuple(AffineExpr.dimension(d) for d in range(rank)))
    projection = AffineMap(rank, 0, tuple(AffineExpr.dimension(d) for d in kept))
    iterators = ["reduction" if d in reduced else "parallel" for d in range(rank)]
    return _structured(
        fc, op, [identity, projection], iterators, [op.input], [op.init], list(op.result), op.region.block
    )


def _reduce_direct(fc: FunctionCompiler, op: ReduceOp, combiner: Operation, dims: list[int]) -> Step:
    """`linalg.reduce` with a single associative combiner: one NumPy reduction."""
    io = _Operands(fc, op, [op.input], [op.init], list(op.result), [True])
    fmt = io.result_formats[0]
    ufunc = COMBINERS[combiner.name]
    acc = accumulator_dtype(fmt) if combiner.name in _ROUNDING_COMBINERS else None
    x_slot, init_slot, r = io.slot(op.input), io.slot(op.init), io.result_slots[0]
    lead = io.lead_of(op.input)
    axes = tuple(lead + d for d in dims)
    kept_rank = len(op.init.type.get_shape())
    # The kept dims of the input are the init's dims, in order, so the reduced
    # array and the init broadcast against each other (lane axis included).

    def step(frame):
        x, init = frame[x_slot], frame[init_slot]
        if any(x.shape[a] == 0 for a in axes):  # nothing to fold: the init
            combined = np.broadcast_to(init, x.shape[:lead] + init.shape[init.ndim - kept_rank :])
        else:
            if acc is not None:  # a rounding sum or product: its order is the values' (see _in_value_order)
                x = _in_value_order(x)
            reduced = ufunc.reduce(x, axis=axes, dtype=acc)
            combined = ufunc(init if acc is None else init.astype(acc), reduced)
        frame[r] = _finish(fmt, combined)

    return io.wrap(step)


@handles(FillOp)
def _fill(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, FillOp)
    value, out = op.inputs[0], op.outputs[0]
    io = _Operands(fc, op, [value], [out], op.res, [False])
    v, o, r = io.slot(value), io.slot(out), io.result_slots[0]
    fmt = io.result_formats[0]
    dtype = fmt.compute
    lane_value = fc.is_varying(value)
    out_lead = io.lead_of(out)

    def step(frame):
        shape = frame[o].shape[out_lead:]
        x = np.asarray(frame[v])
        if fmt.round is not None:
            x = fmt.round(x.astype(np.float32))
        x = x.astype(dtype, copy=False)
        if lane_value:
            frame[r] = np.broadcast_to(x.reshape(x.shape + (1,) * len(shape)), x.shape + shape)
        elif out_lead:
            frame[r] = np.broadcast_to(x, (frame[0].count, *shape))
        else:
            frame[r] = np.broadcast_to(x, shape)

    return io.wrap(step)


@handles(BroadcastOp)
def _broadcast(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, BroadcastOp)
    added = sorted(op.dimensions.get_values())
    io = _Operands(fc, op, [op.input], [op.init], list(op.result), [False])
    x_slot, init_slot, r = io.slot(op.input), io.slot(op.init), io.result_slots[0]
    x_lead = io.lead_of(op.input)
    init_lead = io.lead_of(op.init)
    lead = io.lead

    def step(frame):
        x = frame[x_slot]
        target = frame[init_slot].shape[init_lead:]
        expanded = np.expand_dims(x, [x_lead + d for d in added]) if added else x
        if lead and not x_lead:
            expanded = expanded[None]
        prefix = (frame[0].count,) if lead else ()
        frame[r] = np.broadcast_to(expanded, prefix + tuple(target))

    return io.wrap(step)


@handles(TransposeOp)
def _transpose(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, TransposeOp)
    perm = list(op.permutation.get_values())
    io = _Operands(fc, op, op.inputs, op.outputs, op.res, [False])
    x_slot, r = io.slot(op.inputs[0]), io.result_slots[0]
    x_lead = io.lead_of(op.inputs[0])
    axes = list(range(x_lead)) + [x_lead + p for p in perm]

    def step(frame):
        frame[r] = frame[x_slot].transpose(axes)

    return io.wrap(step)


@handles(IndexOp)
def _index(fc: FunctionCompiler, op: Operation) -> Step:
    parent = op.parent_op()
    while parent is not None and parent not in fc.domain_slots:
        parent = parent.parent_op()
    if parent is None:
        raise InterpreterError("'linalg.index' outside a structured op")
    domain_slot = fc.domain_slots[parent]
    d = int(op.properties["dim"].value.data)
    r = fc.slot(op.results[0])

    def step(frame):
        frame[r] = frame[domain_slot].index(d)

    return step
