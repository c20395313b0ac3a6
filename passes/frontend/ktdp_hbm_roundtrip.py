"""ktdp-hbm-roundtrip: route compute→compute tensor edges through HBM scratch.

On Spyre each compute template owns the whole register file, so a tensor one
compute produces cannot stay in registers for the next: it goes to HBM and
comes back. This pass makes that explicit: for every tensor that a compute op
produces and another compute op in the same block consumes, the producer's
result is stored to a scratch slot and the consumer loads it back. The
stores and loads then separate the computes into their own compute groups
(ktdp-extract-compute-groups orders them by the round trip).

Scratch placement is explicit and cannot overlap the kernel's own buffers:
the kernel gets one more pointer parameter, `%hbm_scratch`, marked
`{spyre.scratch_bytes = N}`; the runtime allocates it like any buffer (the
interpreter does so when the caller passes nothing). Every edge has its own
slot, starting on the target's `alignment_bytes` (spyre_mlir.analysis.allocation),
and every core its own copy of all slots (at `linear core id * bytes per
core`, the linear id of `spyre_mlir.analysis.grid`: grid dim 0 fastest), so
cores never share scratch. With `chain-in-lx=true` (targets that chain
computes in LX) the pass changes nothing.

A tile loaded once and used by several computes is loaded again for each,
unless a store in between may write it.

A compute is an op with a tensor result that is neither a load, nor a
shape-only op (`tensor.expand_shape`, `collapse_shape`, `reshape`, `cast`:
they move no data), nor re-materializable (side-effect-free and built only
from constants and block arguments). Shape-only ops are part of the edge
they sit on: a compute that reads another's result through a chain of them
is a consumer like any other. The producer's result goes to scratch; before
the consumer it is loaded back and the chain is replayed on the loaded
tensor (the original chain is erased when nothing else uses it). So every
compute → compute edge goes through HBM, whether direct or through a
reshape: a compute fed both ways (`sub(flat, broadcast(sum(flat)))` with
`flat = collapse(mul(x, x))`, or the free `expand_shape` physicalization
adds for a logical operand) reads both from round trips, and no group has
to wait in its middle for another group's round trip. A load read through
such a chain counts as shared the same way (loaded again, chain replayed).
A consumer may sit in a loop or branch nested in the producer's block (the
value is loaded back before it); edges through loop-carried values and
region results are left alone.

Before:

    %d = ktdp.load %t : ... -> tensor<4x32xf32>
    %e = math.exp %d : tensor<4x32xf32>
    %s = math.sqrt %e : tensor<4x32xf32>

After:

    %e = math.exp %d : tensor<4x32xf32>
    %v0 = ktdp.construct_memory_view %a0, sizes: [4, 32], strides: [32, 1] {...} : memref<4x32xf32>
    %t0 = ktdp.construct_access_tile %v0[%c0, %c0] {...} : ... -> !ktdp.access_tile<4x32xindex>
    ktdp.store %e, %t0 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
    %e_hbm = ktdp.load %t0 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
    %s = math.sqrt %e_hbm : tensor<4x32xf32>

Through a reshape (`%f = tensor.collapse_shape %e [[0, 1]]`, `%s = math.sqrt %f`):
the store is the same; before the consumer

    %e_hbm = ktdp.load %t0 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
    %f' = tensor.collapse_shape %e_hbm [[0, 1]] : tensor<4x32xf32> into tensor<128xf32>
    %s = math.sqrt %f' : tensor<128xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from spyre_mlir.analysis.access import may_alias, view_of
from spyre_mlir.analysis.allocation import Slot, allocate
from spyre_mlir.analysis.boxes import shape_set
from spyre_mlir.analysis.grid import linear_id
from spyre_mlir.analysis.liveness import value_bytes
from spyre_mlir.analysis.remat import rematerializable
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    GetComputeTileIdOp,
    LoadOp,
    MemorySpaceAttr,
    StoreOp,
)
from spyre_mlir.dialects.spyre import SCRATCH_BYTES_ATTR
from spyre_mlir.ir import ancestor_in, fill_locations
from spyre_mlir.target import Target, target_of

SHAPE_ONLY = (tensor.CollapseShapeOp, tensor.ExpandShapeOp, tensor.ReshapeOp, tensor.CastOp)
"""Ops that relabel a tensor's shape and move no data: part of the edge they sit on
(followed through their source, operand #0)."""

Use = tuple[Operation, SSAValue, tuple[Operation, ...]]
"""A compute reached from a value: (the compute, the operand it reads, the
shape-only ops from the value to that operand)."""


class RoundTrips:
    """The compute→compute edges of one kernel and their scratch slots."""

    def __init__(self, kernel: func.FuncOp, target: Target):
        self.kernel = kernel
        self.target = target
        self.remat: set[Operation] = set()
        self.edges: list[tuple[SSAValue, list[Use]]] = []  # (value, computes reading it)
        self.slot: dict[SSAValue, int] = {}  # value -> byte offset in a core's scratch
        self.per_core = 0

    def _is_compute(self, op: Operation) -> bool:
        if op in self.remat or isinstance(op, LoadOp) or op.has_trait(IsTerminator) or _in_collective(op):
            return False
        if isinstance(op, SHAPE_ONLY) or op.regions and op.name.startswith("scf."):
            return False
        return any(isinstance(r.type, TensorType) for r in op.results)

    def _reads_scalar(self, op: Operation) -> bool:
        """An op that reads a tensor into non-tensor results (`tensor.extract`,
        `tensor.dim`): it belongs with whoever uses what it reads."""
        if isinstance(op, StoreOp) or op.has_trait(IsTerminator) or _in_collective(op) or op.regions:
            return False
        return bool(op.results) and not any(isinstance(r.type, TensorType) for r in op.results)

    def _reached(self, value: SSAValue, block, scalar_readers: bool = False) -> list[Use]:
        """The computes in `block` (or nested in it) that read `value`, directly
        or through a chain of shape-only ops, in use order, each read once;
        with `scalar_readers`, also the ops that read scalars out of it."""
        found: list[Use] = []
        seen: set[tuple[Operation, SSAValue]] = set()

        def follow(v: SSAValue, path: tuple[Operation, ...]) -> None:
            for use in list(v.uses):
                op = use.operation
                if ancestor_in(op, block) is None:
                    continue
                if isinstance(op, SHAPE_ONLY):
                    if use.index == 0 and op not in path:
                        follow(op.results[0], path + (op,))
                elif (self._is_compute(op) or scalar_readers and self._reads_scalar(op)) and (op, v) not in seen:
                    seen.add((op, v))
                    found.append((op, v, path))

        follow(value, ())
        return found

    def find(self) -> None:
        for op in self.kernel.walk():
            if op is self.kernel or op.regions and op.name.startswith("scf."):
                continue
            if rematerializable(op) and all(
                not isinstance(v.owner, Operation) or v.owner in self.remat for v in op.operands
            ):
                self.remat.add(op)
        for op in self.kernel.walk():
            if not self._is_compute(op):
                continue
            for r in op.results:
                if not isinstance(r.type, TensorType):
                    continue
                consumers = self._reached(r, op.parent_block())
                if consumers:
                    shape = r.type.get_shape()
                    if any(d < 0 for d in shape):
                        raise error(op, "cannot route a dynamically shaped tensor through HBM scratch")
                    self.edges.append((r, consumers))
        # Every slot its own bytes: all are live at once.
        slots = [Slot(value_bytes(value, self.target)) for value, _ in self.edges]
        peak = allocate(slots, self.target.alignment_bytes, conflicts=lambda a, b: True).peak
        for (value, _), slot in zip(self.edges, slots):
            assert slot.offset is not None
            self.slot[value] = slot.offset
        self.per_core = self.target.align(peak)

    def split_shared_loads(self) -> None:
        """A loaded tile that several computes use is loaded again for each (a
        compute template reads its own inputs), unless a store in between may
        write what it reads: then the computes share the load. Reads through
        shape-only ops count (the chain is replayed on the new load), and so
        do scalar reads (`tensor.extract`), which otherwise would tie an early
        group to a late one."""
        for load in [op for op in self.kernel.walk() if isinstance(op, LoadOp)]:
            block = load.parent_block()
            holders: dict[Operation, list[Use]] = {}
            for use in self._reached(load.results[0], block, scalar_readers=True):
                holder = ancestor_in(use[0], block)
                assert holder is not None  # _reached finds uses under `block` only
                holders.setdefault(holder, []).append(use)
            if len(holders) < 2:
                continue
            ops = list(block.ops)
            start = ops.index(load)
            reads = view_of(load.operands[0])
            replayed: list[Operation] = []
            for holder in sorted(holders, key=ops.index)[1:]:
                between = ops[start + 1 : ops.index(holder)]
                written = [
                    inner for op in between for inner in op.walk() if isinstance(inner, StoreOp)
                ]
                if any(may_alias(reads, view_of(store.operands[1])) for store in written):
                    continue
                again = LoadOp(load.operands[0], load.results[0].type)
                again.location = load.location
                again.results[0].name_hint = load.results[0].name_hint
                Rewriter.insert_op(again, InsertPoint.before(holder))
                for consumer, read, path in holders[holder]:
                    _feed(consumer, read, _replay(path, again.results[0], consumer))
                    replayed += path
            _erase_unused(replayed)

    def rewrite(self) -> None:
        if not self.edges:
            return
        block = self.kernel.body.block
        scratch = block.insert_arg(IndexType(), len(block.args))
        scratch.name_hint = "hbm_scratch"
        grid = self.kernel.attributes.get("grid")
        dims = [int(d.value.data) for d in grid.data] if isinstance(grid, ArrayAttr) else [1]  # pyright: ignore[reportAttributeAccessIssue]
        cores = math.prod(dims)
        total = self.per_core * cores
        attrs = list(self.kernel.arg_attrs.data) if self.kernel.arg_attrs else [DictionaryAttr({})] * (len(block.args) - 1)
        attrs.append(DictionaryAttr({SCRATCH_BYTES_ATTR: IntegerAttr(total, i64)}))
        self.kernel.arg_attrs = ArrayAttr(attrs)
        inputs = list(self.kernel.function_type.inputs.data) + [IndexType()]
        self.kernel.function_type = func.FunctionType.from_lists(inputs, list(self.kernel.function_type.outputs.data))
        # One base for all slots (`scratch + core * bytes per core`), so that the
        # slots visibly share it (alias analysis compares offsets from one root).
        entry = InsertPoint.at_start(block)
        core = self._core_offset(entry, dims)
        base = arith.AddiOp(scratch, core)
        base.result.name_hint = "hbm_scratch_core"
        Rewriter.insert_op(base, InsertPoint.after(core.owner) if isinstance(core.owner, Operation) else entry)  # pyright: ignore[reportArgumentType]
        for value, consumers in self.edges:
            self._route(value, consumers, base.result)

    def _core_offset(self, at: InsertPoint, dims: list[int]) -> SSAValue:
        """`linear core id * bytes per core`, built before `at`; the linear id is
        `spyre_mlir.analysis.grid`'s in the default order (grid dim 0 fastest)."""
        ops: list[Operation] = []
        if len(dims) == 1 and dims[0] == 1:
            c = arith.ConstantOp(IntegerAttr(0, IndexType()))
            Rewriter.insert_op(c, at)
            return c.result
        tile = GetComputeTileIdOp(len(dims))
        ops.append(tile)
        # Horner's rule over the dims, slowest first (largest stride first).
        grid = tuple(dims)
        strides = [linear_id(tuple(int(k == d) for k in range(len(dims))), grid) for d in range(len(dims))]
        slowest_first = sorted(range(len(dims)), key=lambda d: -strides[d])
        linear: SSAValue = tile.results[slowest_first[0]]
        for k in slowest_first[1:]:
            size = arith.ConstantOp(IntegerAttr(dims[k], IndexType()))
            mul = arith.MuliOp(linear, size.result)
            add = arith.AddiOp(mul.result, tile.results[k])
            ops += [size, mul, add]
            linear = add.result
        per_core = arith.ConstantOp(IntegerAttr(self.per_core, IndexType()))
        offset = arith.MuliOp(linear, per_core.result)
        ops += [per_core, offset]
        Rewriter.insert_op(ops, at)
        return offset.result

    def _route(self, value: SSAValue, consumers: list[Use], scratch_core: SSAValue) -> None:
        producer = value.owner
        assert isinstance(producer, Operation)
        ty = value.type
        assert isinstance(ty, TensorType)
        shape = list(ty.get_shape())
        width = self.target.element_bytes(ty.get_element_type())
        slot = arith.ConstantOp(IntegerAttr(self.slot[value], IndexType()))
        byte = arith.AddiOp(scratch_core, slot.result)
        size = arith.ConstantOp(IntegerAttr(width, IndexType()))
        base = arith.DivUIOp(byte.result, size.result)  # the view's unit: its own elements
        strides = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
        view = ConstructMemoryViewOp(
            base.result, shape, strides, shape_set(shape), MemorySpaceAttr("global"), MemRefType(ty.get_element_type(), shape)
        )
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        rank = len(shape)
        tile = ConstructAccessTileOp(
            view.result,
            AffineMap.identity(rank),
            [zero.result] * rank,
            shape_set(shape),
            AffineMap.identity(rank),
            AccessTileType(shape),
        )
        store = StoreOp(value, tile.result)
        new = [slot, byte, size, base, view, zero, tile, store]
        for op in new:  # diagnostics about the round trip point at the value's producer
            op.location = producer.location
        Rewriter.insert_op(new, InsertPoint.after(producer))
        # One load per consumer (an op of the producer's block, or the loop or
        # branch of it holding the consumer), right before it: consumers that
        # share nothing else stay in separate groups. A consumer reading the
        # value through shape-only ops gets them replayed on the loaded tensor.
        loads: dict[Operation, SSAValue] = {}
        replayed: list[Operation] = []
        for consumer, read, path in consumers:
            holder = ancestor_in(consumer, producer.parent_block())
            assert holder is not None  # consumers are under the producer's block
            if holder not in loads:
                load = LoadOp(tile.result, ty)
                load.location = producer.location
                load.results[0].name_hint = (value.name_hint or "v") + "_hbm"
                Rewriter.insert_op(load, InsertPoint.before(holder))
                loads[holder] = load.results[0]
            _feed(consumer, read, _replay(path, loads[holder], consumer))
            replayed += path
        _erase_unused(replayed)


def _replay(path: tuple[Operation, ...], source: SSAValue, before: Operation) -> SSAValue:
    """`path` (shape-only ops, each reading the previous one's result) applied to
    `source`, right before `before`; `source` itself when the path is empty.
    The copies' other operands are the originals', which dominate `before`."""
    for op in path:
        copy = op.clone()
        copy.operands = [source if k == 0 else v for k, v in enumerate(op.operands)]
        copy.location = op.location
        for old, new in zip(op.results, copy.results):
            new.name_hint = old.name_hint
        Rewriter.insert_op(copy, InsertPoint.before(before))
        source = copy.results[0]
    return source


def _feed(consumer: Operation, read: SSAValue, value: SSAValue) -> None:
    consumer.operands = [value if v is read else v for v in consumer.operands]


def _erase_unused(ops: list[Operation]) -> None:
    """Erase the shape-only ops of `ops` nothing uses any more (latest first, so
    that a chain goes from its end)."""
    pending = list(dict.fromkeys(ops))
    changed = True
    while changed:
        changed = False
        for op in list(pending):
            if op.parent is not None and not any(r.uses for r in op.results):
                op.detach()
                op.erase()
                pending.remove(op)
                changed = True


def _in_collective(op: Operation) -> bool:
    """Inside the region of an inter-tile op (a partial's producer, a combiner):
    those run as part of the collective, not as compute templates of their own."""
    node = op.parent_op()
    while node is not None:
        if node.name.startswith("ktdp.inter_tile_"):
            return True
        node = node.parent_op()
    return False


@dataclass(frozen=True)
class KtdpHbmRoundtripPass(ModulePass):
    """Route compute→compute tensor edges through HBM scratch (see module docstring)."""

    name = "ktdp-hbm-roundtrip"
    changes_ir: ClassVar[bool] = True

    chain_in_lx: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.chain_in_lx:
            return
        target = target_of(op)
        for kernel in [k for k in op.walk() if isinstance(k, func.FuncOp) and k.body.blocks]:
            trips = RoundTrips(kernel, target)
            trips.find()
            trips.split_shared_loads()
            trips.rewrite()
        fill_locations(op)

