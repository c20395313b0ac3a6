"""spyre-plan-scratchpad: place a group's intermediates in LX at fixed offsets.

Inside a compute group (`ktdp-extract-compute-groups`, tiled or not by
`spyre-coarse-tile`), a tensor one compute produces and another consumes
is an intermediate: on Spyre it lives in the core's LX scratchpad between
the two computes. This pass makes that placement explicit and executable:
the producer stores the tensor to a `ct_local` view at a fixed byte offset
and the consumers read it back from there. Offsets are chosen by lifetime
(first fit over the buffers live at once, `spyre_mlir.analysis.allocation`,
aligned to the target's `alignment_bytes`: one stick), so buffers whose
lifetimes do not overlap share LX; inside a `spyre_loop.loop` the
offset does not depend on the tile number (a loop-internal buffer does not
advance per iteration). Only the blocks of the group's loops and branches
are planned (`CONTROL_FLOW`): what an op computes inside its own region (an
`inter_tile_reduce` combiner, which must stay pure, an `inter_tile_produce`
body, a linalg body) is not an intermediate between the group's computes.
The result of an `inter_tile_consume`/`inter_tile_reduce` stays a value too:
it exists on the consumer tiles only, and a store where it is made would
read it on every tile.

Before:

    %y = arith.addf %a, %b : tensor<16x16x64xf16>
    %z = arith.mulf %y, %c : tensor<16x16x64xf16>

After:

    %y = arith.addf %a, %b : tensor<16x16x64xf16>
    %off = arith.constant 0 : index
    %lx = ktdp.construct_memory_view %off, sizes: [16, 16, 64], strides: [1024, 64, 1]
          {..., memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 0 : i64} : memref<16x16x64xf16>
    %t = ktdp.construct_access_tile %lx[%c0, %c0, %c0] {...}
    ktdp.store %y, %t : ...
    %y_lx = ktdp.load %t : ... -> tensor<16x16x64xf16>
    %z = arith.mulf %y_lx, %c : tensor<16x16x64xf16>

A tensor consumed only by stores is an output, written straight to its
HBM buffer; one consumed by computes and stores gets an LX buffer, and the
store copies it out. Each group function records its plan's peak as
`spyre.peak_lx_bytes` (bytes per core). An intermediate that does not fit
in `lx-bytes` beside the buffers live with it stays a value passed between
the computes, with a remark: it falls back to HBM (its producer is marked
`spyre.lx_spilled`, and the bundle's SDSC file gives it an `hbm_spill`
allocation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from spyre_mlir.analysis.allocation import Slot, allocate
from spyre_mlir.analysis.boxes import shape_set
from spyre_mlir.analysis.liveness import value_bytes
from spyre_mlir.analysis.remat import rematerializable
from spyre_mlir.diagnostics import error, remark
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    InterTileConsumeOp,
    InterTileReduceOp,
    LoadOp,
    MemorySpaceAttr,
    StoreOp,
)
from spyre_mlir.dialects.spyre import LX_OFFSET_ATTR, LX_SPILLED_ATTR, PEAK_LX_BYTES_ATTR
from spyre_mlir.ir import ancestor_in
from spyre_mlir.passes.contracts import require_groups
from spyre_mlir.target import Target, target_of

CONTROL_FLOW = frozenset({
    "scf.for", "scf.forall", "scf.if", "scf.while", "scf.index_switch", "scf.execute_region",
    "scf.parallel", "spyre_loop.loop", "affine.for", "affine.if", "affine.parallel",
})
"""Ops whose regions hold compute ops of the group (loops and branches): the only nested
blocks planned. The regions of any other op (an inter_tile_reduce combiner, an
inter_tile_produce body, a linalg body) belong to that op: what is computed in them is
not an intermediate between the group's computes, and a combiner must stay pure."""


@dataclass
class Buffer(Slot):
    """An intermediate to place: live from its producer (`start`) to its last consumer (`end`),
    positions in its block."""

    value: SSAValue | None = None


def _is_compute(op: Operation) -> bool:
    return not isinstance(op, (LoadOp, StoreOp)) and not rematerializable(op) and any(
        isinstance(r.type, TensorType) for r in op.results
    )


class Planner:
    def __init__(self, lx_bytes: int, target: Target):
        self.lx_bytes = lx_bytes
        self.target = target
        self.peak = 0
        self.spilled: list[SSAValue] = []

    def plan_block(self, block: Block, base: int) -> None:
        ops = list(block.ops)
        position = {op: i for i, op in enumerate(ops)}
        buffers: list[Buffer] = []
        for i, op in enumerate(ops):
            if not _is_compute(op) or isinstance(op, InterTileConsumeOp | InterTileReduceOp):
                # A delivery has a value on its consumer tiles only: storing it to LX
                # where it is made would read it on every tile. It stays a value.
                continue
            for r in op.results:
                if not isinstance(r.type, TensorType) or not r.type.has_static_shape():
                    continue
                users = [u.operation for u in r.uses]
                holders = [ancestor_in(u, block) for u in users]
                if not any(h is not None and not isinstance(h, StoreOp) for h in holders):
                    continue  # an output only: written straight to HBM
                if any(h is None for h in holders):
                    continue
                if any(isinstance(u, func.ReturnOp) for u in users):
                    continue
                end = max(position[h] for h in holders if h is not None)
                buffers.append(Buffer(value_bytes(r, self.target), i, end, value=r))
        # By lifetime: a buffer shares bytes with those not live with it.
        buffers.sort(key=lambda b: b.start)
        done = allocate(buffers, self.target.alignment_bytes, capacity=self.lx_bytes, base=base)
        for slot, offset in done.overflow:
            assert isinstance(slot, Buffer) and slot.value is not None
            owner = slot.value.owner
            remark(
                owner if isinstance(owner, Operation) else None,
                f"intermediate of {slot.size} bytes does not fit in LX ({self.lx_bytes} bytes, "
                f"{offset - base} in use by the buffers live with it): it falls back to HBM",
            )
            self.spilled.append(slot.value)
            if isinstance(owner, Operation):
                owner.attributes[LX_SPILLED_ATTR] = UnitAttr()
        self.peak = max(self.peak, done.peak)
        ends = [(b.start, b.end, b.offset + b.size) for b in buffers if b.offset is not None]
        for buf in buffers:
            if buf.offset is not None:
                _place(buf, self.target)
        # Nested blocks (loops of the group) start above what is live around them.
        for i, op in enumerate(list(block.ops)):
            inner_base = max([self.target.align(e) for s, t, e in ends if s <= position.get(op, i) <= t] + [base])
            if op.name not in CONTROL_FLOW:
                continue  # a compute's own region (a combiner, a producer, a linalg body): no intermediates
            for region in op.regions:
                for inner in region.blocks:
                    self.plan_block(inner, inner_base)


def _place(buf: Buffer, target: Target) -> None:
    value = buf.value
    assert value is not None and buf.offset is not None
    producer = value.owner
    assert isinstance(producer, Operation)
    ty = value.type
    assert isinstance(ty, TensorType)
    shape = list(ty.get_shape())
    uses = list(value.uses)  # before the store below becomes one
    width = target.element_bytes(ty.get_element_type())
    box = shape_set(shape)
    offset = arith.ConstantOp(IntegerAttr(buf.offset // width, IndexType()))  # in the view's elements
    strides = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
    view = ConstructMemoryViewOp(
        offset.result, shape, strides, box, MemorySpaceAttr("ct_local"), MemRefType(ty.get_element_type(), shape)
    )
    view.attributes[LX_OFFSET_ATTR] = IntegerAttr(buf.offset, i64)
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    rank = len(shape)
    tile = ConstructAccessTileOp(
        view.result, AffineMap.identity(rank), [zero.result] * rank, box, AffineMap.identity(rank), AccessTileType(shape)
    )
    store = StoreOp(value, tile.result)
    load = LoadOp(tile.result, ty)
    new = [offset, view, zero, tile, store, load]
    for op in new:
        op.location = producer.location
    Rewriter.insert_op(new, InsertPoint.after(producer))
    for use in uses:
        use.operation.operands[use.index] = load.result


@dataclass(frozen=True)
class SpyrePlanScratchpadPass(ModulePass):
    """Place compute groups' intermediates in LX at fixed offsets (see the module docstring)."""

    name = "spyre-plan-scratchpad"

    lx_bytes: int | None = None
    """LX bytes of a core (unset: the target's `lx_bytes`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_of(op)
        lx_bytes = target.lx_bytes if self.lx_bytes is None else self.lx_bytes
        if lx_bytes <= 0:
            raise error(op, f"spyre-plan-scratchpad: lx-bytes must be positive, got {lx_bytes}")
        for group in require_groups(op, self.name):
            if PEAK_LX_BYTES_ATTR in group.attributes:
                continue  # planned already
            planner = Planner(lx_bytes, target)
            planner.plan_block(group.body.block, 0)
            group.attributes[PEAK_LX_BYTES_ATTR] = IntegerAttr(planner.peak, i64)
