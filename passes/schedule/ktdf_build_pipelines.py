"""ktdf-build-pipelines: each compute group becomes a load / compute / store pipeline.

Run after ktdp-extract-compute-groups. In each outlined group
(`func.func @local_schedule_N`), a block whose work is one load → compute →
store pass — its loads read tiles built without loaded data, every other op
that is not side-effect-free index or view arithmetic computes on what the
loads and other computes give, and only stores use the results — becomes a
`ktdf.pipeline` of three stages ordered by tokens:

1. load (`depends_in(none)`): each tile goes from memory to its FIFO slot,
   with `ktdf.data_transfer` when the tile is a box in order, else a
   `ktdp.load` and `ktdf.write_to_fifo`;
2. compute (`applicable_units = ["SFU"]`): the tiles are read from their
   slots, the computes run, each stored value is written to an out slot;
3. store: each out slot goes to memory (`ktdf.data_transfer`, or
   `ktdf.read_from_fifo` and `ktdp.store`).

A block that is not such a pass (a loop carrying a value, a load whose tile
depends on loaded data, a value that leaves the block) is left as it is and
its loops are tried in turn, so a group's innermost load → compute → store
bodies become pipelines inside the loops that hold them. Side-effect-free
index and view arithmetic stays before the pipeline; the stages use it.

Before (a group's body):

    %t = ktdp.construct_access_tile %v[%i, %c0] {...} : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
    %a = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %r = math.exp %a : tensor<1x64xf16>
    ktdp.store %r, %u : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>

After:

    ktdf.pipeline {
      %p:4 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, ...) {...}
      ktdf.stage depends_in(none) depends_out(%p#2) {
        ktdf.data_transfer from %v[%i, %c0] size [1, 64] to %p#0 size [1, 64] : memref<96x64xf16>, ...
      }
      ktdf.stage depends_in(%p#2) depends_out(%p#3) {
        %a = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
        %r = math.exp %a : tensor<1x64xf16>
        ktdf.write_to_fifo %r, %p#1 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
      } {applicable_units = ["SFU"]}
      ktdf.stage depends_in(%p#3) depends_out(%p#4) {
        ktdf.data_transfer from %p#1 size [1, 64] to %w[%i, %c0] size [1, 64] : ...
      }
    }
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free

from spyre_mlir.analysis.access import may_alias, view_of
from spyre_mlir.analysis.affine import box_bounds, permutation_of
from spyre_mlir.dialects.ktdf import (
    CreateTokenOp,
    DataTransferOp,
    FifoAllocateOp,
    FifoSlotType,
    PipelineOp,
    PrivateOp,
    PrivateYieldOp,
    ReadFromFifoOp,
    StageOp,
    WriteToFifoOp,
)
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.ir import fill_locations
from spyre_mlir.passes.contracts import require_groups

COMPUTE_UNIT = "SFU"


def _unit(tile: SSAValue) -> str:
    """The memory unit a tile's view lives in: "DDR" (HBM) or "L1" (LX), as the public mapping names them."""
    owner = tile.owner
    if isinstance(owner, ConstructAccessTileOp) and isinstance(owner.base.owner, ConstructMemoryViewOp):
        space = normalized_memory_space(owner.base.owner.memory_space)
        if space is not None and not space.is_global:
            return "L1"
    return "DDR"


def _box_transfer(tile: SSAValue):
    """(view, indices, sizes) when the tile is a box from its anchor, in order (a data_transfer), else None."""
    owner = tile.owner
    if not isinstance(owner, ConstructAccessTileOp) or owner.symbol_operands:
        return None
    view = owner.base
    if not isinstance(view.owner, ConstructMemoryViewOp):
        return None
    rank = len(owner.access_tile_order.data.results)
    if permutation_of(owner.access_tile_order.data) != list(range(rank)):
        return None
    box = box_bounds(owner.access_tile_set.data)
    if box is None or any(lo != 0 for lo, _ in box):
        return None
    amap = owner.base_map.data
    if amap.num_dims != len(owner.indices) or any(
        not isinstance(e, AffineDimExpr) or e.position != k for k, e in enumerate(amap.results)
    ):
        return None
    return view, list(owner.indices), [hi - lo + 1 for lo, hi in box]


class Builder:
    """Finds the load → compute → store blocks of the group functions and rewrites them."""

    def __init__(self):
        self.pipelines = 0

    def run(self, group: func.FuncOp) -> None:
        self._visit(group.body.block)

    def _visit(self, block: Block) -> None:
        plan = self._plan(block)
        if plan is not None:
            self._build(block, *plan)
            return
        for op in list(block.ops):
            for region in op.regions:
                for inner in region.blocks:
                    self._visit(inner)

    def _plan(self, block: Block):
        """(loads, computes, stores) if the block is one load → compute → store pass, else None."""
        loads: list[LoadOp] = []
        stores: list[StoreOp] = []
        computes: list[Operation] = []
        produced: set[SSAValue] = set()  # values of loads and computes
        for op in block.ops:
            if op.has_trait(IsTerminator):
                if any(v in produced for v in op.operands):
                    return None  # a value leaves the block
                continue
            if isinstance(op, LoadOp):
                if self._depends_on(op.operands[0], produced):
                    return None  # an indirect tile: the load needs loaded data
                loads.append(op)
                produced.update(op.results)
            elif isinstance(op, StoreOp):
                if self._depends_on(op.operands[1], produced):
                    return None
                stores.append(op)
            elif op.regions or any(isinstance(r.type, TensorType) for r in op.results) or any(
                v in produced for v in op.operands
            ):
                if op.regions and not _pure_regions(op):
                    return None  # a loop or branch with effects: not one pass
                if not is_side_effect_free(op) and not _value_semantics(op):
                    return None
                computes.append(op)
                produced.update(op.results)
            elif not is_side_effect_free(op):
                return None
        if not stores:
            return None
        # All loads run before all stores: a load must not read what a store of
        # the same block writes before it.
        order = list(block.ops)
        for load in loads:
            for store in stores:
                if order.index(store) < order.index(load) and may_alias(
                    view_of(load.operands[0]), view_of(store.operands[1])
                ):
                    return None
        return loads, computes, stores

    @staticmethod
    def _depends_on(value: SSAValue, produced: set[SSAValue]) -> bool:
        stack = [value]
        seen: set[SSAValue] = set()
        while stack:
            v = stack.pop()
            if v in produced:
                return True
            if v in seen:
                continue
            seen.add(v)
            owner = v.owner
            if isinstance(owner, Operation):
                stack.extend(owner.operands)
        return False

    def _build(self, block: Block, loads: list[LoadOp], computes: list[Operation], stores: list[StoreOp]) -> None:
        in_slots = [
            FifoSlotType(_unit(load.operands[0]), COMPUTE_UNIT, _elements(load.results[0]), _element(load.results[0]))
            for load in loads
        ]
        out_slots = [
            FifoSlotType(COMPUTE_UNIT, _unit(store.operands[1]), _elements(store.operands[0]), _element(store.operands[0]))
            for store in stores
        ]
        allocate = [FifoAllocateOp([t]) for t in (*in_slots, *out_slots)]
        tokens = [CreateTokenOp() for _ in range(3)]
        values = [a.results[0] for a in allocate] + [t.results[0] for t in tokens]
        private = PrivateOp([*allocate, *tokens, PrivateYieldOp(*values)])
        slots = list(private.results[: len(allocate)])
        t_load, t_compute, t_store = private.results[len(allocate) :]

        load_stage: list[Operation] = []
        for load, slot in zip(loads, slots):
            box = _box_transfer(load.operands[0])
            if box is not None:
                view, indices, sizes = box
                load_stage.append(DataTransferOp.to_fifo(view, indices, sizes, slot))
            else:
                moved = LoadOp(load.operands[0], load.results[0].type)
                load_stage += [moved, WriteToFifoOp(moved.results[0], slot)]

        compute_stage: list[Operation] = []
        for load, slot in zip(loads, slots):
            read = ReadFromFifoOp(slot, load.results[0].type)
            read.results[0].name_hint = load.results[0].name_hint
            load.results[0].replace_all_uses_with(read.results[0])
            compute_stage.append(read)
        for op in computes:
            op.detach()
            compute_stage.append(op)
        out_base = len(loads)
        for store, slot in zip(stores, slots[out_base:]):
            compute_stage.append(WriteToFifoOp(store.operands[0], slot))

        store_stage: list[Operation] = []
        for store, slot in zip(stores, slots[out_base:]):
            box = _box_transfer(store.operands[1])
            if box is not None:
                view, indices, sizes = box
                store_stage.append(DataTransferOp.from_fifo(slot, view, indices, sizes))
            else:
                data = ReadFromFifoOp(slot, store.operands[0].type)
                store_stage += [data, StoreOp(data.results[0], store.operands[1])]

        pipeline = PipelineOp(
            [
                private,
                StageOp([], [t_load], load_stage),
                StageOp([t_load], [t_compute], compute_stage, applicable_units=[COMPUTE_UNIT]),
                StageOp([t_compute], [t_store], store_stage),
            ]
        )
        anchor = stores[-1]
        Rewriter.insert_op(pipeline, InsertPoint.after(anchor))
        for op in (*loads, *stores):
            op.detach()
            op.erase()
        self.pipelines += 1


def _elements(value: SSAValue) -> int:
    ty = value.type
    assert isinstance(ty, TensorType)
    return math.prod(ty.get_shape())


def _element(value: SSAValue):
    ty = value.type
    assert isinstance(ty, TensorType)
    return ty.get_element_type()


def _pure_regions(op: Operation) -> bool:
    return all(is_side_effect_free(inner) or _value_semantics(inner) for inner in op.walk() if inner is not op)


def _value_semantics(op: Operation) -> bool:
    """An op on values only (linalg on tensors, arith, math): nothing it touches is memory."""
    if isinstance(op, LoadOp | StoreOp) or op.name.startswith(("ktdp.", "func.", "ktdf.", "spyre.")):
        return op.name == "ktdp.get_compute_tile_id"
    return all(
        not isinstance(t, MemRefType | AccessTileType) for t in (*op.operand_types, *op.result_types)
    )


@dataclass(frozen=True)
class KtdfBuildPipelinesPass(ModulePass):
    """Turn each group's load → compute → store bodies into ktdf pipelines (see module docstring)."""

    name = "ktdf-build-pipelines"
    changes_ir: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        builder = Builder()
        for group in require_groups(op, self.name):
            builder.run(group)
        fill_locations(op)
