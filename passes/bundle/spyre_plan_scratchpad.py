"""spyre-plan-scratchpad: place a group's intermediates in LX at fixed offsets.

Inside a compute group (`ktdp-extract-compute-groups`, tiled or not by
`spyre-coarse-tile`), a tensor one compute produces and another consumes
is an intermediate: on Spyre it lives in the core's LX scratchpad between
the two computes. This pass makes that placement explicit and executable:
the producer stores the tensor to a `ct_local` view at a fixed byte offset
and the consumers read it back from there. Offsets are chosen by lifetime
(first fit over the buffers live at once, 128-byte aligned), so buffers
whose lifetimes do not overlap share LX; inside a `spyre_loop.loop` the
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
from spyre_mlir.ir import ancestor_in
from spyre_mlir.passes import _stage
from spyre_mlir.passes.bundle.spyre_coarse_tile import DEFAULT_LX_BYTES, tensor_bytes
from spyre_mlir.passes.frontend.ktdp_extract_compute_groups import rematerializable

ALIGNMENT = 128  # bytes: one stick
LX_OFFSET_ATTR = "spyre.lx_offset"
PEAK_ATTR = "spyre.peak_lx_bytes"
SPILLED_ATTR = "spyre.lx_spilled"  # on a compute whose intermediate did not fit


CONTROL_FLOW = frozenset({
    "scf.for", "scf.forall", "scf.if", "scf.while", "scf.index_switch", "scf.execute_region",
    "scf.parallel", "spyre_loop.loop", "affine.for", "affine.if", "affine.parallel",
})
"""Ops whose regions hold compute ops of the group (loops and branches): the only nested
blocks planned. The regions of any other op (an inter_tile_reduce combiner, an
inter_tile_produce body, a linalg body) belong to that op: what is computed in them is
not an intermediate between the group's computes, and a combiner must stay pure."""


@dataclass
class Buffer:
    value: SSAValue
    start: int  # position of the producer in its block
    end: int  # position of the last consumer
    size: int
    offset: int = -1


def _is_compute(op: Operation) -> bool:
    return not isinstance(op, (LoadOp, StoreOp)) and not rematerializable(op) and any(
        isinstance(r.type, TensorType) for r in op.results
    )


class Planner:
    def __init__(self, lx_bytes: int):
        self.lx_bytes = lx_bytes
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
                buffers.append(Buffer(r, i, end, tensor_bytes(r.type)))
        live: list[Buffer] = []
        for buf in sorted(buffers, key=lambda b: b.start):
            live = [b for b in live if b.end >= buf.start]
            offset = base
            for other in sorted(live, key=lambda b: b.offset):
                if offset + buf.size <= other.offset:
                    break
                offset = max(offset, _align(other.offset + other.size))
            if offset + buf.size > self.lx_bytes:
                remark(
                    buf.value.owner if isinstance(buf.value.owner, Operation) else None,
                    f"intermediate of {buf.size} bytes does not fit in LX ({self.lx_bytes} bytes, "
                    f"{offset - base} in use by the buffers live with it): it falls back to HBM",
                )
                self.spilled.append(buf.value)
                if isinstance(buf.value.owner, Operation):
                    buf.value.owner.attributes[SPILLED_ATTR] = UnitAttr()
                continue
            buf.offset = offset
            live.append(buf)
            self.peak = max(self.peak, offset + buf.size)
        for buf in buffers:
            if buf.offset >= 0:
                _place(buf)
        # Nested blocks (loops of the group) start above what is live around them.
        ends = [(b.start, b.end, b.offset + b.size) for b in buffers if b.offset >= 0]
        for i, op in enumerate(list(block.ops)):
            inner_base = max([_align(e) for s, t, e in ends if s <= position.get(op, i) <= t] + [base])
            if op.name not in CONTROL_FLOW:
                continue  # a compute's own region (a combiner, a producer, a linalg body): no intermediates
            for region in op.regions:
                for inner in region.blocks:
                    self.plan_block(inner, inner_base)


def _align(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def _place(buf: Buffer) -> None:
    value = buf.value
    producer = value.owner
    assert isinstance(producer, Operation)
    ty = value.type
    assert isinstance(ty, TensorType)
    shape = list(ty.get_shape())
    uses = list(value.uses)  # before the store below becomes one
    width = tensor_bytes(TensorType(ty.get_element_type(), [1]))
    from spyre_mlir.passes.frontend.spyre_physicalize_layouts import _box_set

    box = _box_set([(0, n - 1) for n in shape])
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

    lx_bytes: int = DEFAULT_LX_BYTES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.lx_bytes <= 0:
            raise error(op, f"spyre-plan-scratchpad: lx-bytes must be positive, got {self.lx_bytes}")
        for group in _stage.require_groups(op, self.name):
            if PEAK_ATTR in group.attributes:
                continue  # planned already
            planner = Planner(self.lx_bytes)
            planner.plan_block(group.body.block, 0)
            group.attributes[PEAK_ATTR] = IntegerAttr(planner.peak, i64)
