"""ktdf-build-pipelines: each compute group becomes a load / compute / store pipeline.

dataflow-scheduler calls this pass `construct-three-stage-pipeline`; the
output is their form (`../shared/corpus/dataflow-scheduler/test/Conversion/
frontend/KTIRToScheduleIR/ConstructThreeStagePipeline/*.mlir`).

Run after ktdp-extract-compute-groups, or on a kernel whose functions are
each one compute group already (no load reads what a store of the same
function wrote before it: dataflow-scheduler's inputs). In each group, a
block whose work is one load → compute → store pass — its loads read tiles
built without loaded data, every other op that is not side-effect-free index
or view arithmetic computes on what the loads and other computes give, and
only stores use the results — becomes:

- each view a tile of the block reads or writes, addressed in the unit that
  holds it: `memref.memory_space_cast` to "DDR" (HBM) or "L1" (LX), then
  `memref.reinterpret_cast` to the tile (offset: the tile's anchor times the
  view's strides);
- a nest of `scf.for` loops `{loop_type = #ktdf.loop_type<parallel_loop>}`
  over the tile in chunks of one SIMD vector of the compute unit (64 f16:
  the innermost dims first), around
- a `ktdf.pipeline` of three stages ordered by tokens: load
  (`depends_in(none)`, a `ktdf.data_transfer` of each chunk into its FIFO
  slot), compute (`applicable_units = ["SFU"]`: the chunks read from their
  slots, the elementwise computes fused into one `linalg.generic`, each
  stored value written to an out slot), store (each out slot to memory).
  The slots are allocated in one `ktdf.fifo.allocate` per run of slots on
  the same route.

A block whose computes are not all elementwise on tiles of one shape (a
reduction, a matmul, a transpose) keeps its computes as they are and moves
whole tiles (the loops have one trip); a tile that is not a box in order
(a permuted or gathered access) is loaded with `ktdp.load` and
`ktdf.write_to_fifo` (stored with `ktdf.read_from_fifo` and `ktdp.store`).

A block that is not such a pass (a loop carrying a value, a load whose tile
depends on loaded data, a value that leaves the block) is left as it is and
its loops are tried in turn, so a group's innermost load → compute → store
bodies become pipelines inside the loops that hold them. Loops carrying a
value are first rewritten by `ktdf-expose-reduction-loops` (run before this
pass in `ktir-to-schedule`): the carried value lives in an L1 buffer.

Before (a group's body, C = A + B on a row of 64 f16):

    %a_t = ktdp.construct_access_tile %A[%row, %c0] {...} : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
    %a = ktdp.load %a_t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    ...
    %r = linalg.add ins(%a, %b : ...) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
    ktdp.store %r, %c_t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>

After:

    %off = arith.muli %row, %c64 : index
    %A_ddr = memref.memory_space_cast %A : memref<96x64xf16> to memref<96x64xf16, "DDR">
    %A_tile = memref.reinterpret_cast %A_ddr to offset: [%off], sizes: [1, 64], strides: [64, 1] : ...
    ...
    scf.for %i = %c0 to %c1 step %c1 {
      scf.for %j = %c0_1 to %c64 step %c64_1 {
        ktdf.pipeline {
          %p:6 = ktdf.private -> (...) {
            %in:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
            %out = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
            ... three ktdf.create_token, ktdf.private_yield
          }
          ktdf.stage depends_in(none) depends_out(%p#3) {
            ktdf.data_transfer from %A_tile[%i, %j] size [1, 64] to %p#0 size [1, 64] : ...
            ktdf.data_transfer from %B_tile[%i, %j] size [1, 64] to %p#1 size [1, 64] : ...
          }
          ktdf.stage depends_in(%p#3) depends_out(%p#4) {
            %x = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
            ...
            %s = linalg.generic {...} ins(%x, %y : ...) outs(%e : tensor<1x64xf16>) {...} -> tensor<1x64xf16>
            ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
          } {applicable_units = ["SFU"]}
          ktdf.stage depends_in(%p#4) depends_out(%p#5) {
            ktdf.data_transfer from %p#2 size [1, 64] to %C_tile[%i, %j] size [1, 64] : ...
          }
        }
      } {loop_type = #ktdf.loop_type<parallel_loop>}
    } {loop_type = #ktdf.loop_type<parallel_loop>}

Op order and what is left follow dataflow-scheduler's output (their CHECK
lines run unchanged on our output printed in MLIR's style): the chunk sizes
as index constants at the function's entry (their constant folder), the
loop bounds, the views (moved after what stays of the block), each tile's
offset, cast and reinterpret_cast, then the loops; a `tensor.empty` that
does not sit right before the compute it feeds stays behind, as theirs does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free

from spyre_mlir.analysis.access import may_alias, view_of
from spyre_mlir.analysis.affine import box_bounds, permutation_of
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdf import (
    CreateTokenOp,
    DataTransferOp,
    FifoAllocateOp,
    FifoSlotType,
    LoopTypeAttr,
    PipelineOp,
    PrivateOp,
    PrivateYieldOp,
    ReadFromFifoOp,
    StageOp,
    WriteToFifoOp,
)
from spyre_mlir.dialects.ktdf_arch import MEM_SPACE_MAPPING, MapAttr
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.memref import MemorySpaceCastOp
from spyre_mlir.ir import fill_locations
from spyre_mlir.passes.contracts import require_groups, stages_of
from spyre_mlir.target import Target, device_of, target_of

# The units of the device, by the names dataflow-scheduler's sample device gives them: the memory units
# are read from the module's `ktdf_arch.device` (its `mem_space_mapping`) when it has one; the compute unit
# and the defaults are kept here, in one place, until the target model (spyre_mlir/target.py) names them.
HBM_UNIT = "DDR"
LX_UNIT = "L1"
COMPUTE_UNIT = "SFU"

PARALLEL_LOOP = "parallel_loop"
LOOP_TYPE_ATTR = "loop_type"


def simd_lanes(target: Target) -> Callable[[Attribute], int]:
    """Elements of a type one SIMD vector of the compute unit holds: the target's f16 lanes (the
    device's `simd` feature), as many bytes for other types."""
    vector_bytes = target.simd_elements_per_cycle * 2
    return lambda elem: max(1, vector_bytes // target.element_bytes(elem))


def memory_units(module: ModuleOp) -> Callable[[SSAValue], str]:
    """The memory unit a tile's view lives in, by the device's `mem_space_mapping` (else "DDR" for HBM,
    "L1" for LX)."""
    device = device_of(module)
    mapping = device.attributes.get(MEM_SPACE_MAPPING) if device is not None else None

    def unit(tile: SSAValue) -> str:
        owner = tile.owner
        space = None
        if isinstance(owner, ConstructAccessTileOp) and isinstance(owner.base.owner, ConstructMemoryViewOp):
            space = normalized_memory_space(owner.base.owner.memory_space)
        if isinstance(mapping, MapAttr) and space is not None:
            named = mapping.get(space)
            if isinstance(named, StringAttr):
                return named.data
        return LX_UNIT if space is not None and not space.is_global else HBM_UNIT

    return unit


@dataclass
class Box:
    """A tile that is a box of its view from its anchor, in order: moved by `ktdf.data_transfer`."""

    tile: ConstructAccessTileOp
    view: ConstructMemoryViewOp
    indices: list[SSAValue | int]
    """The anchor, dim by dim: an index value or a constant."""
    sizes: list[int]
    strides: list[int]


def _box(tile: SSAValue) -> Box | None:
    """The tile as a `Box` (static view strides, identity anchor map and order), else None."""
    owner = tile.owner
    if not isinstance(owner, ConstructAccessTileOp) or owner.symbol_operands:
        return None
    view = owner.base.owner
    if not isinstance(view, ConstructMemoryViewOp) or view.strides:
        return None
    rank = len(owner.access_tile_order.data.results)
    if rank == 0 or permutation_of(owner.access_tile_order.data) != list(range(rank)):
        return None
    box = box_bounds(owner.access_tile_set.data)
    if box is None or any(lo != 0 for lo, _ in box):
        return None
    amap = owner.base_map.data
    if amap.num_symbols or len(amap.results) != rank:
        return None
    anchor: list[SSAValue | int] = []
    for e in amap.results:  # each dim's anchor: an index operand or a constant
        if isinstance(e, AffineDimExpr):
            anchor.append(owner.indices[e.position])
        elif isinstance(e, AffineConstantExpr):
            anchor.append(e.value)
        else:
            return None
    strides = list(view.static_strides.get_values())
    if len(strides) != rank:
        return None
    return Box(owner, view, anchor, [hi - lo + 1 for lo, hi in box], strides)


def _chunk(shape: Sequence[int], lanes: int) -> list[int]:
    """The chunk of a tile of `shape` one SIMD vector of `lanes` elements takes: the innermost dims first,
    each the largest divisor of its size that still fits, an outer dim only once the inner ones are whole."""
    chunk = [1] * len(shape)
    room = lanes
    for d in reversed(range(len(shape))):
        size = next(c for c in range(min(shape[d], room), 0, -1) if shape[d] % c == 0)
        chunk[d] = size
        room //= size
        if size != shape[d]:
            break
    return chunk


# -- elementwise fusion --------------------------------------------------------------


@dataclass
class Fused:
    """An elementwise computation as one `linalg.generic` will hold it: its tensor inputs (in
    dataflow-scheduler's fusion order) and how to emit its body on their scalars."""

    inputs: list[SSAValue]
    emit: Callable[[Block, list[SSAValue]], SSAValue]


def _elementwise(op: Operation, shape: tuple[int, ...]) -> Fused | None:
    """`op` (a compute of the block) as an elementwise computation on tensors of `shape`, else None."""
    if len(op.results) != 1 or not _is_tensor_of(op.results[0], shape):
        return None
    if isinstance(op, GenericOp | NamedOperation):
        return _structured(op, shape)
    if not op.name.startswith(("arith.", "math.")) or op.regions or op.successors:
        return None
    if not op.operands or not all(_is_tensor_of(v, shape) for v in op.operands):
        return None
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)

    def emit(block: Block, args: list[SSAValue]) -> SSAValue:
        scalar = type(op).create(
            operands=args, result_types=[result_type.get_element_type()],
            properties=dict(op.properties), attributes=dict(op.attributes),
        )
        block.add_op(scalar)
        return scalar.results[0]

    return Fused(list(op.operands), emit)


def _structured(op: GenericOp | NamedOperation, shape: tuple[int, ...]) -> Fused | None:
    """A linalg op whose maps are all the identity, whose loops are all parallel, with one output its body
    does not read: its inputs and body."""
    rank = len(shape)
    if len(op.outputs) != 1 or not all(_is_tensor_of(v, shape) for v in op.inputs):
        return None
    maps = [m.data for m in op.get_indexing_maps()]
    if any(m != AffineMap.identity(rank) for m in maps):
        return None
    if any(str(t.data) != "parallel" for t in op.get_iterator_types()):
        return None
    body = op.body.block
    if body.args[-1].uses or len(body.args) != len(op.inputs) + 1:
        return None
    if any(isinstance(inner, IndexOp) for inner in body.walk()):
        return None

    def emit(block: Block, args: list[SSAValue]) -> SSAValue:
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, args))
        result: SSAValue | None = None
        for inner in body.ops:
            if isinstance(inner, YieldOp):
                result = mapping.get(inner.operands[0], inner.operands[0])
                continue
            new = inner.clone(value_mapper=mapping)
            block.add_op(new)
        assert result is not None
        return result

    return Fused(list(op.inputs), emit)


def _is_tensor_of(value: SSAValue, shape: tuple[int, ...]) -> bool:
    return isinstance(value.type, TensorType) and tuple(value.type.get_shape()) == shape


def _splat(value: SSAValue) -> Attribute | None:
    """The scalar of a splat `arith.constant` tensor (folded into the body, as MLIR's fusion does), else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
        values = owner.value.get_values()
        if values and all(v == values[0] for v in values):
            elem = owner.value.get_element_type()
            return IntegerAttr(int(values[0]), elem) if isinstance(values[0], int) else _float_attr(values[0], elem)
    return None


def _float_attr(value: float, elem: Attribute) -> Attribute:
    from xdsl.dialects.builtin import FloatAttr

    return FloatAttr(value, elem)  # pyright: ignore[reportArgumentType]


def _fuse(root: SSAValue, computes: set[Operation], shape: tuple[int, ...]) -> Fused | None:
    """The computation of `root` with every elementwise producer among `computes` fused into it, the
    way MLIR's elementwise fusion does (each producer's inputs in place of the operand it fed, its body
    first), splat constants folded into the body; None when something on the way is not elementwise."""
    owner = root.owner
    if not isinstance(owner, Operation) or owner not in computes:
        return None
    fused = _elementwise(owner, shape)
    if fused is None:
        return None
    changed = True
    while changed:
        changed = False
        for p, value in enumerate(fused.inputs):
            producer = value.owner
            if (scalar := _splat(value)) is not None:
                fused = _fold_constant(fused, p, scalar)
            elif (
                isinstance(producer, tensor.SplatOp) and not producer.dynamicSizes
                and producer.input.owner not in computes  # a scalar from outside: one the stage can read
            ):
                fused = _fold_scalar(fused, p, producer.input)  # the scalar itself, read by the body
            elif isinstance(producer, Operation) and producer in computes:
                inner = _elementwise(producer, shape)
                if inner is None:
                    return None
                fused = _fuse_at(fused, inner, p)
            else:
                continue
            changed = True
            break
    return fused


def _fuse_at(consumer: Fused, producer: Fused, p: int) -> Fused:
    n = len(producer.inputs)

    def emit(block: Block, args: list[SSAValue]) -> SSAValue:
        made = producer.emit(block, args[p : p + n])
        return consumer.emit(block, [*args[:p], made, *args[p + n :]])

    return Fused([*consumer.inputs[:p], *producer.inputs, *consumer.inputs[p + 1 :]], emit)


def _fold_constant(consumer: Fused, p: int, scalar: Attribute) -> Fused:
    def emit(block: Block, args: list[SSAValue]) -> SSAValue:
        constant = arith.ConstantOp(scalar)  # pyright: ignore[reportArgumentType]
        if block.first_op is None:
            block.add_op(constant)
        else:
            block.insert_op_before(constant, block.first_op)
        return consumer.emit(block, [*args[:p], constant.results[0], *args[p:]])

    return Fused([*consumer.inputs[:p], *consumer.inputs[p + 1 :]], emit)


def _fold_scalar(consumer: Fused, p: int, scalar: SSAValue) -> Fused:
    def emit(block: Block, args: list[SSAValue]) -> SSAValue:
        return consumer.emit(block, [*args[:p], scalar, *args[p:]])

    return Fused([*consumer.inputs[:p], *consumer.inputs[p + 1 :]], emit)


def _generic(fused: Fused, values: list[SSAValue], shape: tuple[int, ...], elem: Attribute) -> list[Operation]:
    """`tensor.empty` and the `linalg.generic` of `fused` on `values` (its inputs' chunks)."""
    result_type = TensorType(elem, shape)
    empty = tensor.EmptyOp([], result_type)
    block = Block(arg_types=[*(v.type.get_element_type() for v in values), elem])  # pyright: ignore
    result = fused.emit(block, list(block.args[: len(values)]))
    block.add_op(YieldOp(result))
    identity = AffineMapAttr(AffineMap.identity(len(shape)))
    generic = GenericOp(
        values, [empty.results[0]], Region(block), [identity] * (len(values) + 1),
        [IteratorTypeAttr.parallel()] * len(shape), [result_type],
    )
    return [empty, generic]


# -- the rewrite ---------------------------------------------------------------------


@dataclass
class Builder:
    """Finds the load → compute → store blocks of the group functions and rewrites them."""

    lanes: Callable[[Attribute], int]
    """Elements of a type in one SIMD vector of the compute unit."""
    unit: Callable[[SSAValue], str]
    """The memory unit of a tile's view (`memory_units`)."""
    pipelines: int = 0
    _folded: dict[Operation, dict[int, Operation]] = field(default_factory=dict)
    """Per function, the index constants made at its entry (the chunk sizes), by value."""

    def run(self, group: func.FuncOp) -> None:
        self._visit(group.body.block)

    def _visit(self, block: Block) -> None:
        ops = [op for op in block.ops if not op.has_trait(IsTerminator)]
        plan = self._plan(ops)
        if plan is not None:
            self._build(block, *plan, _end_of(block))
            return
        # The runs of ops between loops and branches that access memory (an init before a reduction loop,
        # what follows it) are tried on their own; then the loops' bodies.
        nests = [op for op in ops if op.regions and not _pure_regions(op)]
        runs: list[tuple[list[Operation], InsertPoint]] = []
        run: list[Operation] = []
        for op in ops:
            if op in nests:
                runs.append((run, InsertPoint.before(op)))
                run = []
            else:
                run.append(op)
        runs.append((run, _end_of(block)))
        for run, at in runs:
            if nests and (plan := self._plan(run)) is not None:
                self._build(block, *plan, at)
        for op in nests:
            for region in op.regions:
                for inner in region.blocks:
                    self._visit(inner)

    def _plan(self, ops: list[Operation]):
        """(loads, computes, stores) if `ops` (of one block, in order) are one load → compute → store
        pass, else None."""
        loads: list[LoadOp] = []
        stores: list[StoreOp] = []
        computes: list[Operation] = []
        produced: set[SSAValue] = set()  # values of loads and computes
        members = set(ops)
        for op in ops:
            if isinstance(op, LoadOp):
                if _depends_on(op.operands[0], produced):
                    return None  # an indirect tile: the load needs loaded data
                loads.append(op)
                produced.update(op.results)
            elif isinstance(op, StoreOp):
                if _depends_on(op.operands[1], produced):
                    return None
                stores.append(op)
            elif isinstance(op, arith.ConstantOp) or (
                not op.regions and is_side_effect_free(op) and not any(v in produced for v in op.operands)
                and any(not _within(use.operation, members) for r in op.results for use in r.uses)
            ):
                continue  # made of no loaded data, used past the ops too (a constant, a splat): it stays, stages read it
            elif op.name.startswith("ktdp.inter_tile"):
                return None  # an exchange between cores (a produce and its consume stay in one block): no stage
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
        if any(not _within(use.operation, members) for v in produced for use in v.uses):
            return None  # a value leaves the ops
        if not stores:
            return None
        # All loads run before all stores: a load must not read what a store of
        # the same block writes before it.
        order = list(ops)
        for load in loads:
            for store in stores:
                if order.index(store) < order.index(load) and may_alias(
                    view_of(load.operands[0]), view_of(store.operands[1])
                ):
                    return None
        return loads, computes, stores

    # -- building ----------------------------------------------------------------------

    def _build(
        self, block: Block, loads: list[LoadOp], computes: list[Operation], stores: list[StoreOp], ahead: InsertPoint
    ) -> None:
        tiles = [load.operands[0] for load in loads] + [store.operands[1] for store in stores]
        boxes = [_box(t) for t in tiles]
        shapes = {tuple(load.results[0].type.get_shape()) for load in loads}  # pyright: ignore
        shapes |= {tuple(store.operands[0].type.get_shape()) for store in stores}  # pyright: ignore
        shape = next(iter(shapes)) if len(shapes) == 1 and all(boxes) else None

        # Elementwise on tiles of one shape: one fused linalg.generic per stored value, on chunks.
        fused: list[Fused | None] = []
        if shape is not None:
            compute_set = set(computes)
            loaded = {load.results[0] for load in loads}
            for store in stores:
                value = store.operands[0]
                f = None if value in loaded else _fuse(value, compute_set, shape)
                if value not in loaded and (f is None or not all(v in loaded for v in f.inputs)):
                    fused = []
                    break
                fused.append(f)
            else:
                fused = fused or []
        elementwise = shape is not None and len(fused) == len(stores)
        elems = [load.results[0].type.get_element_type() for load in loads]  # pyright: ignore
        elems += [store.operands[0].type.get_element_type() for store in stores]  # pyright: ignore
        chunk = _chunk(shape, min(self.lanes(e) for e in elems)) if elementwise and shape else (
            list(shape) if shape else None
        )

        # The chunk sizes at the function's entry, as their constant folder makes them.
        if chunk is not None:
            for size in chunk:
                self._entry_constant(block, size)

        # The loop bounds, the views (after what stays), each box's offset, cast and reinterpret_cast.
        bounds: list[tuple[Operation, Operation, Operation]] = []
        if chunk is not None and shape is not None:
            for size, step in zip(shape, chunk):
                trio = (_index(0), _index(size), _index(step))
                Rewriter.insert_op(list(trio), ahead)
                bounds.append(trio)
        accesses = {*loads, *stores}
        erased_tiles = {  # the tiles only this pass's accesses use: the transfers replace them
            b.tile for b in boxes if b is not None and all(use.operation in accesses for use in b.tile.results[0].uses)
        }
        for view in _views_to_move(block, boxes, erased_tiles):
            view.detach()
            Rewriter.insert_op(view, ahead)
        addressed: list[SSAValue | None] = []
        for box in boxes:
            if box is None:
                addressed.append(None)
                continue
            if _may_leave_view(box):
                # Part of the tile may fall outside the view (the last core's rows): the transfer stays on the
                # view, whose coordinate set masks it, at the tile's anchor plus the chunk's offset.
                addressed.append(box.view.result)
                continue
            unit = self.unit(box.tile.results[0])
            ops, value = _address(box, unit)
            Rewriter.insert_op(ops, ahead)
            addressed.append(value)

        # The slots: loads in, stores out, one allocate per run of one route.
        in_slots = [
            FifoSlotType(self.unit(load.operands[0]), COMPUTE_UNIT, _count(load.results[0], chunk), _element(load.results[0]))
            for load in loads
        ]
        out_slots = [
            FifoSlotType(COMPUTE_UNIT, self.unit(store.operands[1]), _count(store.operands[0], chunk),
                         _element(store.operands[0]))
            for store in stores
        ]
        allocate = _allocate_runs([*in_slots, *out_slots])
        tokens = [CreateTokenOp() for _ in range(3)]
        values = [r for a in allocate for r in a.results] + [t.results[0] for t in tokens]
        private = PrivateOp([*allocate, *tokens, PrivateYieldOp(*values)])
        slots = list(private.results[: len(values) - 3])
        t_load, t_compute, t_store = private.results[len(values) - 3 :]

        # The loops: one per dim, parallel, around the pipeline.
        ivs: list[SSAValue] = []
        body_block: Block | None = None
        outer: Operation | None = None
        for lb, ub, step in bounds:
            loop_body = Block(arg_types=[IndexType()])
            loop = scf.ForOp(lb.results[0], ub.results[0], step.results[0], [], Region(loop_body))
            loop.attributes[LOOP_TYPE_ATTR] = LoopTypeAttr(PARALLEL_LOOP)
            ivs.append(loop_body.args[0])
            if body_block is None:
                outer = loop
            else:
                body_block.add_op(loop)
                body_block.add_op(scf.YieldOp())
            body_block = loop_body

        sizes = chunk or []
        origin: list[SSAValue] = []
        if not ivs and any(addressed):  # tiles of several shapes: each moved whole, from its origin
            zero = _index(0)
            Rewriter.insert_op(zero, ahead)
            origin = [zero.results[0]]

        def where(box: Box | None) -> tuple[list[SSAValue], list[int]]:
            assert box is not None
            return (ivs, sizes) if ivs else (origin * len(box.sizes), box.sizes)

        def transfer(box: Box | None, at: SSAValue, slot: SSAValue, to_slot: bool) -> DataTransferOp:
            offsets, moved = where(box)
            assert box is not None
            if at is box.view.result:  # on the view itself: at the anchor plus the chunk's offset
                indices, amap = _anchored(box, offsets)
                if to_slot:
                    return DataTransferOp(at, slot, source_indices=indices, source_sizes=moved, dest_sizes=moved,
                                          source_map=amap)
                return DataTransferOp(slot, at, source_sizes=moved, dest_indices=indices, dest_sizes=moved,
                                      dest_map=amap)
            if to_slot:
                return DataTransferOp.to_fifo(at, offsets, moved, slot)
            return DataTransferOp.from_fifo(slot, at, offsets, moved)

        load_stage: list[Operation] = []
        for load, slot, at, box in zip(loads, slots, addressed, boxes):
            if at is not None:
                load_stage.append(transfer(box, at, slot, True))
            else:
                moved = LoadOp(load.operands[0], load.results[0].type)
                load_stage += [moved, WriteToFifoOp(moved.results[0], slot)]

        out_base = len(loads)
        compute_stage: list[Operation] = []
        reads: dict[SSAValue, SSAValue] = {}
        for load, slot in zip(loads, slots):
            read_type = TensorType(_element(load.results[0]), sizes) if elementwise else load.results[0].type
            read = ReadFromFifoOp(slot, read_type)
            if not elementwise:
                read.results[0].name_hint = load.results[0].name_hint
                load.results[0].replace_all_uses_with(read.results[0])
            reads[load.results[0]] = read.results[0]
            compute_stage.append(read)
        if elementwise:
            results: list[SSAValue] = []
            for store, f in zip(stores, fused):
                if f is None:
                    results.append(reads[store.operands[0]])
                    continue
                made = _generic(f, [reads[v] for v in f.inputs], tuple(sizes), _element(store.operands[0]))
                compute_stage += made
                results.append(made[-1].results[0])
        else:
            for op in computes:
                op.detach()
                compute_stage.append(op)
            results = [store.operands[0] for store in stores]
        for value, slot in zip(results, slots[out_base:]):
            compute_stage.append(WriteToFifoOp(value, slot))

        store_stage: list[Operation] = []
        for store, slot, at, box in zip(stores, slots[out_base:], addressed[out_base:], boxes[out_base:]):
            if at is not None:
                store_stage.append(transfer(box, at, slot, False))
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
        if body_block is None:
            Rewriter.insert_op(pipeline, ahead)
        else:
            body_block.add_op(pipeline)
            body_block.add_op(scf.YieldOp())
            assert outer is not None
            Rewriter.insert_op(outer, ahead)

        # What the pipeline replaces.
        for op in stores:
            op.detach()
            op.erase()
        if elementwise:
            _erase_computes(block, computes)
        for op in loads:
            op.detach()
            op.erase()
        for tile in erased_tiles:
            if not tile.results[0].uses:
                operands = list(tile.operands)
                tile.detach()
                tile.erase()
                _erase_dead(operands)
        self.pipelines += 1

    def _entry_constant(self, block: Block, value: int) -> None:
        """An index constant at the entry of the function holding `block`, made once per value (as
        MLIR's OperationFolder hoists the constants it makes)."""
        function = block.parent_op()
        while function is not None and not isinstance(function, func.FuncOp):
            function = function.parent_op()
        if function is None:
            return
        made = self._folded.setdefault(function, {})
        if value in made:
            return
        entry = function.body.block
        constant = _index(value)
        if made:
            Rewriter.insert_op(constant, InsertPoint.after(list(made.values())[-1]))
        elif entry.first_op is not None:
            Rewriter.insert_op(constant, InsertPoint.before(entry.first_op))
        else:
            entry.add_op(constant)
        made[value] = constant


def _end_of(block: Block) -> InsertPoint:
    """Before the block's terminator (at its end when it has none)."""
    last = block.last_op
    if last is not None and last.has_trait(IsTerminator):
        return InsertPoint.before(last)
    return InsertPoint.at_end(block)


def _within(op: Operation, members: set[Operation]) -> bool:
    """`op` is one of `members` or nested in one."""
    current: Operation | None = op
    while current is not None:
        if current in members:
            return True
        current = current.parent_op()
    return False


def _index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _address(box: Box, unit: str) -> tuple[list[Operation], SSAValue]:
    """The ops addressing the tile `box` in `unit`: its offset in elements (the anchor times the view's
    strides, a 0 anchor and a stride of 1 folded away), the view cast to the unit, the tile reinterpreted."""
    ops: list[Operation] = []
    offset: SSAValue | None = None
    for index, stride in zip(box.indices, box.strides):
        if isinstance(index, int):
            if index == 0:
                continue
            constant = _index(index * stride)
            ops.append(constant)
            index, stride = constant.results[0], 1
        if _constant_value(index) == 0:
            continue
        term = index
        if stride != 1:
            factor = _index(stride)
            product = arith.MuliOp(index, factor)
            ops += [factor, product]
            term = product.results[0]
        if offset is None:
            offset = term
        else:
            total = arith.AddiOp(offset, term)
            ops.append(total)
            offset = total.results[0]
    if offset is None:
        zero = _index(0)
        ops.append(zero)
        offset = zero.results[0]
    view_type = box.view.result.type
    assert isinstance(view_type, MemRefType)
    elem = view_type.get_element_type()
    space = StringAttr(unit)
    cast = MemorySpaceCastOp(box.view.result, MemRefType(elem, view_type.get_shape(), memory_space=space))
    tile_type = MemRefType(elem, box.sizes, StridedLayoutAttr(box.strides, None), space)
    reinterpret = memref.ReinterpretCastOp.from_dynamic(cast.results[0], [offset], box.sizes, box.strides, tile_type)
    ops += [cast, reinterpret]
    return ops, reinterpret.results[0]


def _anchored(box: Box, offsets: Sequence[SSAValue]) -> tuple[list[SSAValue], AffineMap]:
    """The indices and map of `view[anchor + offsets]`: the anchor's values, then the offsets, as dims."""
    values = [v for v in box.indices if not isinstance(v, int)]
    n = len(values)
    results: list[AffineExpr] = []
    k = 0
    for d, anchor in enumerate(box.indices):
        if isinstance(anchor, int):
            base = AffineExpr.constant(anchor)
        else:
            base = AffineExpr.dimension(k)
            k += 1
        results.append(base + AffineExpr.dimension(n + d))
    return [*values, *offsets], AffineMap(n + len(offsets), 0, tuple(results))


def _may_leave_view(box: Box) -> bool:
    """Whether part of the tile may fall outside its view's coordinate set, as far as the anchor's range is
    known: constants, the core's tile id over the grid, counted loops, the arguments a group's callers pass,
    and +, -, * of them; an anchor of unknown range may leave it. A function nothing calls and that has no
    grid (a compute group as dataflow-scheduler's tests give one) is taken as their form takes it: its
    tiles are addressed in memory whatever the view's coordinate set says (their basic_2.mlir reads a
    tile one element past its view's last dim)."""
    if _on_its_own(box.tile):
        return False
    valid = box_bounds(box.view.coordinate_set.data)
    if valid is None or len(valid) != len(box.sizes):
        return True
    shape = list(box.view.static_sizes.get_values())
    for d, (anchor, size) in enumerate(zip(box.indices, box.sizes)):
        span = (anchor, anchor) if isinstance(anchor, int) else _range(anchor, 0)
        if span is None:
            return True
        lo, hi = span[0], span[1] + size - 1
        if lo < max(0, valid[d][0]) or hi > min(shape[d] - 1 if shape[d] >= 0 else hi, valid[d][1]):
            return True
    return False


def _function_of(op: Operation) -> func.FuncOp | None:
    function = op.parent_op()
    while function is not None and not isinstance(function, func.FuncOp):
        function = function.parent_op()
    return function


def _calls_of(function: func.FuncOp) -> list[func.CallOp]:
    """The calls of `function` anywhere in the outermost module (a group is called from its kernel's module)."""
    top: Operation = function
    while (parent := top.parent_op()) is not None:
        top = parent
    name = function.sym_name.data
    return [op for op in top.walk() if isinstance(op, func.CallOp) and op.callee.root_reference.data == name]


def _on_its_own(op: Operation) -> bool:
    function = _function_of(op)
    return function is not None and "grid" not in function.attributes and not _calls_of(function)


def _range(value: SSAValue, depth: int) -> tuple[int, int] | None:
    """[lo, hi] of an index value, or None when not known."""
    if depth > 32:
        return None
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        c = owner.value.value.data
        return c, c
    if isinstance(owner, Operation) and owner.name == "ktdp.get_compute_tile_id":
        function = _function_of(owner)
        grid = function.attributes.get("grid") if function is not None else None
        if not isinstance(grid, ArrayAttr) or not all(isinstance(g, IntegerAttr) for g in grid.data):
            return None
        sizes = [g.value.data for g in grid.data]  # pyright: ignore[reportAttributeAccessIssue]
        if len(owner.results) == 1 and len(sizes) > 1:
            return 0, math.prod(sizes) - 1  # a linear tile id (analysis/grid)
        k = list(owner.results).index(value)
        return (0, sizes[k] - 1) if k < len(sizes) else None
    if isinstance(owner, Block):
        parent = owner.parent_op()
        if isinstance(parent, scf.ForOp) and value is owner.args[0]:
            lb, ub, step = _range(parent.lb, depth + 1), _range(parent.ub, depth + 1), _constant_value(parent.step)
            if lb is None or ub is None or step is None or step <= 0:
                return None
            return lb[0], max(lb[0], ub[1] - 1)
        if isinstance(parent, func.FuncOp) and owner is parent.body.blocks[0]:
            k = list(owner.args).index(value)
            spans = [_range(call.arguments[k], depth + 1) for call in _calls_of(parent)]
            if not spans or any(span is None for span in spans):
                return None
            return min(sp[0] for sp in spans if sp), max(sp[1] for sp in spans if sp)
        return None
    if isinstance(owner, arith.IndexCastOp):
        return _range(owner.input, depth + 1)
    if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        a, b = _range(owner.lhs, depth + 1), _range(owner.rhs, depth + 1)
        if a is None or b is None:
            return None
        if isinstance(owner, arith.AddiOp):
            return a[0] + b[0], a[1] + b[1]
        if isinstance(owner, arith.SubiOp):
            return a[0] - b[1], a[1] - b[0]
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    return None


def _constant_value(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _views_to_move(block: Block, boxes: Sequence[Box | None], erased: set[ConstructAccessTileOp]):
    """The views of the block whose every use is a tile the pipeline replaces, in block order."""
    views = {b.view for b in boxes if b is not None and b.view.parent_block() is block}
    return [
        op for op in block.ops
        if op in views and all(use.operation in erased for use in op.results[0].uses)
    ]


def _allocate_runs(slot_types: Sequence[FifoSlotType]) -> list[FifoAllocateOp]:
    runs: list[list[FifoSlotType]] = []
    for t in slot_types:
        if runs and runs[-1][-1] == t:
            runs[-1].append(t)
        else:
            runs.append([t])
    return [FifoAllocateOp(run) for run in runs]


def _erase_computes(block: Block, computes: list[Operation]) -> None:
    """Erase the computes the fused generics replace, users first. A `tensor.empty` that does not sit
    right before the compute it feeds stays (dead), as in dataflow-scheduler's output."""
    order = list(block.ops)
    keep = set()
    for op in computes:
        if isinstance(op, tensor.EmptyOp):
            i = order.index(op)
            following = order[i + 1] if i + 1 < len(order) else None
            if all(use.operation is not following for use in op.results[0].uses):
                keep.add(op)
    for op in reversed(computes):
        if op in keep or any(r.uses for r in op.results):
            continue
        op.detach()
        op.erase()


def _erase_dead(values: list[SSAValue]) -> None:
    """Erase the side-effect-free defining ops of `values` that nothing uses any more, and theirs."""
    stack = list(values)
    while stack:
        value = stack.pop()
        owner = value.owner
        if not isinstance(owner, Operation) or owner.parent is None or owner.regions:
            continue
        if any(r.uses for r in owner.results) or not is_side_effect_free(owner):
            continue
        operands = list(owner.operands)
        owner.detach()
        owner.erase()
        stack += operands


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


def _count(value: SSAValue, chunk: list[int] | None) -> int:
    ty = value.type
    assert isinstance(ty, TensorType)
    return math.prod(chunk) if chunk is not None else math.prod(ty.get_shape())


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


# -- which functions -------------------------------------------------------------------


def _one_group(function: func.FuncOp) -> LoadOp | None:
    """None when `function` is one compute group as dataflow-scheduler writes them (no load reads what a
    store to HBM before it may have written: LX is the group's own), else the first load that does."""
    stores: list[StoreOp] = []
    for op in function.walk():
        if isinstance(op, StoreOp) and _in_hbm(op.operands[1]):
            stores.append(op)
        elif isinstance(op, LoadOp) and any(
            may_alias(view_of(op.operands[0]), view_of(s.operands[1])) for s in stores
        ):
            return op
    return None


def _in_hbm(tile: SSAValue) -> bool:
    owner = tile.owner
    if isinstance(owner, ConstructAccessTileOp) and isinstance(owner.base.owner, ConstructMemoryViewOp):
        space = normalized_memory_space(owner.base.owner.memory_space)
        return space is None or space.is_global
    return True


def functions_to_build(module: ModuleOp, pass_name: str) -> list[func.FuncOp]:
    """The groups of a grouped module; of a kernel, its functions with loads or stores, each of which must
    be one compute group already (a located error names the load that splits one)."""
    found = stages_of(module)
    if not found or found[0][0] != "kernel":
        return require_groups(module, pass_name)
    functions = [
        f for f in module.walk()
        if isinstance(f, func.FuncOp) and f.body.blocks and any(isinstance(o, LoadOp | StoreOp) for o in f.walk())
    ]
    for function in functions:
        splitting = _one_group(function)
        if splitting is not None:
            raise error(
                splitting,
                f"pass '{pass_name}' needs extracted compute groups: this load reads what a store before it "
                f"wrote, so @{function.sym_name.data} is more than one group: run 'ktdp-extract-compute-groups' "
                "first",
            )
    return functions


@dataclass(frozen=True)
class KtdfBuildPipelinesPass(ModulePass):
    """Turn each group's load → compute → store bodies into ktdf pipelines (see module docstring)."""

    name = "ktdf-build-pipelines"
    changes_ir: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        builder = Builder(simd_lanes(target_of(op)), memory_units(op))
        for group in functions_to_build(op, self.name):
            builder.run(group)
        fill_locations(op)
