"""spyre-physicalize-layouts: marked views become physical views, tiles and types.

A `spyre.tensor_layout` marker says where a memory view's elements sit on the
device (`spyre_mlir.analysis.layout`). This pass rewrites the kernel onto the physical
shapes: the marked view becomes a view of the physical tensor (contiguous,
`layout.physical_shape(sizes)`), its access tiles take physical anchors
(`divsi`/`remsi` of the logical ones), sets, orders and shapes, and loads
produce physical tensors. Physical types then propagate through named rules
only, each op's *operand set* resolved once before its result is recorded:

| rule | ops | what it does |
|---|---|---|
| elementwise | ops with the `Elementwise` or `SameOperandsAndResultType` trait, linalg elementwise ops and generics | operands reconciled to one layout, the result takes it |
| splat | `arith.constant` splats, `tensor.splat`, `tensor.empty`, `linalg.fill` | layout-invariant: built at whatever layout each user needs |
| broadcast | `linalg.broadcast` | built at the layout its user needs (a logical user of a broadcast of a physical value gets it rebuilt logically); its input at that layout's projection on the carried axes |
| reshape | `tensor.expand_shape` / `collapse_shape` adding or dropping unit dims | the unit axes are added or dropped among the physical ones |
| reduce | `linalg.reduce` | reduces every physical axis of the reduced dims (both parts of a split one) |
| transpose | `linalg.transpose` | the physical tensor is unchanged; only which logical dim each axis is changes |
| contraction | `linalg.matmul`, other structured ops, `linalg.generic` | loops split where an operand splits their dim; a whole dim of a split loop is expanded (free reshape) |
| extract | `tensor.extract` | physical indices from the logical ones |
| loops | `scf.for` iter_args and yields, `scf.if` results | carried values keep one layout |
| boundary | `ktdp.store`, `func.return`, `func.call` | the value is converted to the memory's (or the logical) layout |

When operands disagree (a pointwise op on two layouts, a store into a view of
another layout, a matmul whose sticks are on the wrong dims, a broadcast
whose carried axis is split in one operand only), a `spyre.relayout` is
inserted, on the operands that move the fewest bytes. What cannot be
converted is a located error before anything is rewritten: an op on a
physical chain with no rule (the strict catch-all; `report-unhandled=true`
instead counts such ops, warns, and feeds them logical values), a runtime-shaped
reshape, a non-splat dense constant, an unsupported tile. A tile covering
part of a stick is read as whole sticks and sliced (a logical value) and
written only where it covers (a box in one stick, or whole sticks masked
by the tile set); a view whose stick dim is not a multiple of the stick is
padded to whole sticks (docs/layouts.md, "Partial sticks").
`check-agreement` (on by default) checks that every type the rewrite derives
is the one the analysis recorded, in both directions, and that every op it
keeps receives the operand types the analysis implies (an op no rule
rewrites: unchanged operands). Markers are erased; a
pointer parameter whose marked view it was keeps `spyre.host_layout`.

Before:

    %v = ktdp.construct_memory_view %x, sizes: [128, 128], strides: [128, 1] {...} : memref<128x128xf32>
    spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>,
                            phys_arg = array<i64: 64, 0, 64>} : memref<128x128xf32>
    %t = ktdp.construct_access_tile %v[%c0, %c0] {...} : memref<128x128xf32> -> !ktdp.access_tile<128x128xindex>
    %d = ktdp.load %t : !ktdp.access_tile<128x128xindex> -> tensor<128x128xf32>
    %e = math.exp %d : tensor<128x128xf32>

After:

    %v = ktdp.construct_memory_view %x, sizes: [2, 128, 64], strides: [8192, 64, 1] {...} : memref<2x128x64xf32>
    %t = ktdp.construct_access_tile %v[%q, %c0, %r] {...} : memref<2x128x64xf32> -> !ktdp.access_tile<2x128x64xindex>
    %d = ktdp.load %t : !ktdp.access_tile<2x128x64xindex> -> tensor<2x128x64xf32>
    %e = math.exp %d : tensor<2x128x64xf32>
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import affine, arith, func, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AffineSetAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, FillOp, GenericOp, IndexOp, ReduceOp, TransposeOp
from xdsl.dialects.utils import split_dynamic_index_list
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSet,
    AffineSymExpr,
)
from xdsl.ir.affine.affine_set import AffineConstraintExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from spyre_mlir.analysis.affine import box_bounds, format_set, permutation_of, projected_dims
from spyre_mlir.analysis.boxes import box_set, nonnegative, shape_set
from spyre_mlir.analysis.dim_maps import dim_map
from spyre_mlir.analysis.layout import Axis, Layout, LayoutError
from spyre_mlir.diagnostics import Refusal, error, internal_error, warning
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
)
from spyre_mlir.dialects.spyre import HOST_LAYOUT_ATTR, RelayoutOp, TensorLayoutOp, host_layout_attr
from spyre_mlir.ir import fill_locations, upstream_op
from spyre_mlir.target import TargetError, target_of
from spyre_mlir.traits import is_elementwise


class _Flexible:
    """The layout of a layout-invariant value: it is built at whatever layout each user needs."""

    def __repr__(self) -> str:
        return "FLEX"


FLEX = _Flexible()
Lay = Layout | None | _Flexible  # None: logical


def _norm(layout: Layout | None) -> Layout | None:
    return None if layout is None or layout.is_identity else layout


def _show(layout: Lay) -> str:
    if layout is None:
        return "logical"
    return "layout-invariant" if layout is FLEX else str(layout)


def _physical_type(ty: TensorType, layout: Layout | None) -> TensorType:
    if layout is None:
        return ty
    return _tensor_type(ty.get_element_type(), layout.physical_shape(ty.get_shape()))


@lru_cache(maxsize=4096)
def _tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """Types are built (and verified) once per element type and shape."""
    return TensorType(element, shape)


def _index_const(rewriter_at: InsertPoint, value: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    Rewriter.insert_op(op, rewriter_at)
    return op.result


class Physicalizer:
    """Analysis (layouts of values, demands on operands) and rewrite of one module."""

    def __init__(self, module: ModuleOp, report_unhandled: bool, check_agreement: bool):
        self.module = module
        self.target = target_of(module)
        self.report_unhandled = report_unhandled
        self.check_agreement = check_agreement
        self.layout: dict[SSAValue, Lay] = {}
        self.demand: dict[tuple[Operation, int], Layout | None] = {}
        self.rule: dict[Operation, str] = {}
        self.plan: dict[Operation, object] = {}  # what a rule's rewrite needs of the logical IR
        self.view_layout: dict[SSAValue, Layout] = {}
        self.markers: list[TensorLayoutOp] = []
        self.unhandled: list[tuple[Operation, str]] = []
        self.counts: Counter[str] = Counter()
        self.relayouts = 0
        self.relayout_bytes = 0
        self._materialized: dict[tuple[SSAValue, object], SSAValue] = {}
        self._reads_physical_memo: dict[Operation, bool] = {}
        self._new_view: dict[SSAValue, SSAValue] = {}
        # A partial-stick tile: its load tile, its store tile, and each cut dim's offset in its stick.
        self._cut_tiles: dict[SSAValue, tuple[SSAValue | None, SSAValue | None, dict[int, int | SSAValue]]] = {}
        self._dead: list[Operation] = []
        self._rule_table = self._rules()

    def nbytes(self, ty: Attribute, at: Operation) -> int:
        """Bytes of a tensor of type `ty` in memory (0 for anything else); an element type without a
        byte width is a located error at `at`."""
        if not isinstance(ty, TensorType):
            return 0
        try:
            size = self.target.element_bytes(ty.get_element_type())
        except TargetError as exc:
            raise error(
                at, f"spyre-physicalize-layouts: cannot count the bytes a relayout of {ty} moves: {exc}"
            ) from None
        return math.prod(max(d, 0) for d in ty.get_shape()) * size

    # ================================================================ analysis

    def lay(self, value: SSAValue) -> Lay:
        return self.layout.get(value)

    def analyze(self) -> None:
        self._collect_markers()
        for op in self.module.ops:
            self._analyze_op(op)
        self._check_demands()

    def _check_demands(self) -> None:
        """Refuse conversions that would have to guess: a non-splat dense constant
        demanded at a physical layout (where its elements go is not known)."""
        for (op, i), target in self.demand.items():
            value = op.operands[i]
            if isinstance(target, Layout) and self.rule.get(value.owner) == "dense-constant":  # pyright: ignore[reportArgumentType]
                raise Refusal(
                    op,
                    f"'{op.name}' needs operand #{i}, a dense constant that is not a splat (logical), in layout "
                    f"{target}: the placement of its elements is not known; write it as a splat, or load it from "
                    "a marked view",
                )

    def _collect_markers(self) -> None:
        for op in self.module.walk():
            if not isinstance(op, TensorLayoutOp):
                continue
            view = op.view.owner
            if not isinstance(view, ConstructMemoryViewOp):
                raise Refusal(op, "spyre.tensor_layout must mark the result of a ktdp.construct_memory_view")
            ty = view.result.type
            assert isinstance(ty, MemRefType)
            sizes = [int(s) for s in ty.get_shape()]
            src, ops, args = (a.get_values() for a in (op.phys_src, op.phys_op, op.phys_arg))
            try:
                layout = Layout.from_arrays(src, ops, args, len(sizes))
                layout.check_shape(sizes, pad=True)
            except LayoutError as exc:
                raise Refusal(op, f"cannot lay out {ty}: {exc}") from None
            expected = tuple(math.prod(sizes[k + 1 :]) for k in range(len(sizes)))
            strides = tuple(int(s) for s in view.static_strides.get_values())  # pyright: ignore[reportAttributeAccessIssue]
            if strides != expected:
                raise Refusal(
                    op,
                    f"a marked view's elements are placed by its layout; its strides must be the contiguous "
                    f"row-major strides {list(expected)} of its sizes, got {list(strides)}",
                )
            previous = self.view_layout.get(view.result)
            if previous is not None and previous != layout:
                raise Refusal(op, f"the view is marked twice, with {previous} and {layout}")
            self.view_layout[view.result] = layout
            self.markers.append(op)

    def _analyze_block(self, block: Block) -> None:
        for op in block.ops:
            self._analyze_op(op)

    def _forget(self, region: Region) -> None:
        """Drop what an earlier analysis of `region` recorded (a loop is analyzed again)."""
        for op in region.walk():
            self.rule.pop(op, None)
            for i in range(len(op.operands)):
                self.demand.pop((op, i), None)
            for r in op.results:
                self.layout.pop(r, None)

    def _analyze_op(self, op: Operation) -> None:
        for kind, handler in self._rule_table:
            if (
                isinstance(kind, type)
                and isinstance(op, kind)
                or (callable(kind) and not isinstance(kind, type) and kind(op))
            ):
                handler(op)
                return
        self._catch_all(op)

    def _rules(self) -> list[tuple[object, Callable[[Operation], None]]]:
        return [
            (TensorLayoutOp, lambda op: None),
            (ConstructMemoryViewOp, self._a_view),
            (ConstructAccessTileOp, self._a_access_tile),
            (LoadOp, self._a_load),
            (StoreOp, self._a_store),
            (arith.ConstantOp, self._a_constant),
            (tensor.SplatOp, self._a_flexible),
            (tensor.EmptyOp, self._a_empty),
            (FillOp, self._a_fill),
            (BroadcastOp, self._a_broadcast),
            (TransposeOp, self._a_transpose),
            (GenericOp, self._a_contraction),
            (ReduceOp, self._a_reduce),
            (tensor.CollapseShapeOp, self._a_reshape),
            (tensor.ExpandShapeOp, self._a_reshape),
            (tensor.ExtractOp, self._a_extract),
            (tensor.ReshapeOp, self._a_runtime_reshape),
            (scf.ForOp, self._a_for),
            (scf.IfOp, self._a_if),
            (scf.YieldOp, lambda op: None),  # its parent decides
            (func.ReturnOp, self._a_logical_boundary),
            (func.CallOp, self._a_logical_boundary),
            (func.FuncOp, self._a_function),
            (ModuleOp, lambda op: [self._analyze_op(o) for o in op.ops]),
            (is_elementwise, self._a_elementwise),
            (LinalgStructuredOperation, self._a_contraction),
        ]

    def _a_function(self, op: func.FuncOp) -> None:
        """A function's body; one of several blocks (unstructured control flow) only when nothing in it is marked."""
        if len(op.body.blocks) == 1:
            self._analyze_block(op.body.block)
            return
        marker = next((o for o in op.walk() if isinstance(o, TensorLayoutOp)), None)
        if marker is not None:
            raise Refusal(
                marker,
                f"@{op.sym_name.data} has {len(op.body.blocks)} blocks: layouts are propagated through structured "
                "control flow (scf.for, scf.if) only",
            )

    def _physical_operands(self, op: Operation) -> list[tuple[SSAValue, Layout]]:
        return [(v, lay) for v in op.operands if isinstance(lay := self.lay(v), Layout)]

    def _catch_all(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                self._analyze_block(block)
        for v in op.operands:
            if v in self.view_layout:
                raise Refusal(op, f"'{op.name}' uses a marked view; only access tiles of it can be physicalized")
        physical = self._physical_operands(op)
        if not physical:
            return
        what = f"'{op.name}' has no physicalization rule and receives a value of layout {physical[0][1]}"
        if not self.report_unhandled:
            raise Refusal(op, what + " (run with report-unhandled=true to count such ops instead)")
        self.unhandled.append((op, what))
        for i, v in enumerate(op.operands):
            if isinstance(self.lay(v), Layout):
                self.demand[(op, i)] = None
        self.rule[op] = "unhandled"

    # -- memory ------------------------------------------------------------

    def _a_view(self, op: ConstructMemoryViewOp) -> None:
        if op.result in self.view_layout:
            self.rule[op] = "view"

    def _a_access_tile(self, op: ConstructAccessTileOp) -> None:
        layout = self.view_layout.get(op.base)
        if layout is None:
            return
        if op.symbol_operands or op.access_tile_set.data.num_symbols:
            raise Refusal(op, "an access tile of a marked view must have a set without symbols")
        perm = permutation_of(op.access_tile_order.data)
        if perm != list(range(layout.rank)):
            raise Refusal(op, "an access tile of a marked view must use the identity access_tile_order")
        box = box_bounds(op.access_tile_set.data)
        if box is None:
            raise Refusal(
                op,
                f"an access tile of a marked view must be a box, got affine_set<{format_set(op.access_tile_set.data)}>",
            )
        cuts = {}
        for d, a in layout.splits.items():
            cut = _cut_of(op, d, a, box[d])
            if cut is not None:
                cuts[d] = cut
        if cuts:
            self.plan[op] = cuts
        self.layout[op.result] = layout
        self.rule[op] = "access-tile"

    def _cuts(self, tile: SSAValue) -> dict[int, _Cut] | None:
        """The partial-stick cuts of an access tile of a marked view (None: it covers whole sticks)."""
        owner = tile.owner
        return self.plan.get(owner) if isinstance(owner, ConstructAccessTileOp) else None  # pyright: ignore[reportReturnType]

    def _a_load(self, op: LoadOp) -> None:
        layout = self.lay(op.operands[0])
        if not isinstance(layout, Layout):
            return
        if self._cuts(op.operands[0]):
            self.layout[op.result] = None  # whole sticks are read, then sliced: the covered part, logical
            self.rule[op] = "partial-load"
            return
        self.layout[op.result] = _norm(layout)
        self.rule[op] = "load"

    def _a_store(self, op: StoreOp) -> None:
        target = self.lay(op.operands[1])
        target = target if isinstance(target, Layout) else None
        value = self.lay(op.operands[0])
        if target is not None and self._cuts(op.operands[1]):
            self.demand[(op, 0)] = None  # the logical value is laid into whole sticks, stored masked
            self.rule[op] = "partial-store"
            return
        self.demand[(op, 0)] = _norm(target)
        if target is not None or isinstance(value, Layout):
            self.rule[op] = "store"

    # -- sources -----------------------------------------------------------

    def _a_constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if isinstance(op.result.type, TensorType):
            if isinstance(value, DenseIntOrFPElementsAttr) and value.is_splat():
                self.layout[op.result] = FLEX
            else:
                self.layout[op.result] = None
                self.rule[op] = "dense-constant"

    def _a_flexible(self, op: Operation) -> None:
        self.layout[op.results[0]] = FLEX

    def _a_empty(self, op: tensor.EmptyOp) -> None:
        if not op.dynamic_sizes:
            self.layout[op.tensor] = FLEX

    def _a_fill(self, op: FillOp) -> None:
        self._a_elementwise(op)

    def _a_broadcast(self, op: BroadcastOp) -> None:
        self.layout[op.results[0]] = FLEX

    # -- elementwise -------------------------------------------------------

    def _reconcile(self, op: Operation, values: Sequence[SSAValue]) -> Lay:
        """The one layout `values` (tensor operands) take: their common layout, or
        the candidate whose conversions move the fewest bytes; FLEX when all are."""
        fixed = [(v, self.lay(v)) for v in values if self.lay(v) is not FLEX and isinstance(v.type, TensorType)]
        if not fixed:
            return FLEX
        candidates: list[Layout | None] = []
        for _, lay in fixed:
            if lay not in candidates:
                candidates.append(lay)  # type: ignore[arg-type]
        if len(candidates) == 1:
            return candidates[0]

        def cost(target: Layout | None) -> tuple[int, int]:
            moved = sum(self.nbytes(v.type, op) for v, lay in fixed if lay != target)
            return (moved, 0 if target is not None else 1)  # ties: stay physical

        possible = [t for t in candidates if self._fits(t, [v for v, _ in fixed])]
        if not possible:
            raise Refusal(
                op, f"'{op.name}' receives layouts {', '.join(_show(c) for c in candidates)} with no common one"
            )
        return min(possible, key=cost)

    def _fits(self, target: Layout | None, values: Sequence[SSAValue]) -> bool:
        if target is None:
            return True
        try:
            for v in values:
                target.check_shape(v.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        except LayoutError:
            return False
        return True

    def _a_elementwise(self, op: Operation) -> None:
        for region in op.regions:  # scalar bodies: nothing physical inside
            for block in region.blocks:
                self._analyze_block(block)
        tensors = [i for i, v in enumerate(op.operands) if isinstance(v.type, TensorType)]
        target = self._reconcile(op, [op.operands[i] for i in tensors])
        for r in op.results:
            if isinstance(r.type, TensorType):
                self.layout[r] = target
        if target is FLEX:
            return
        for i in tensors:
            self.demand[(op, i)] = target  # type: ignore[assignment]
        if target is not None:
            self.rule[op] = "elementwise"

    # -- shape ops ---------------------------------------------------------

    def _a_transpose(self, op: TransposeOp) -> None:
        layout = self.lay(op.inputs[0])
        if not isinstance(layout, Layout):
            self.demand[(op, 0)] = None
            self.layout[op.results[0]] = None
            return
        dm = dim_map(op)  # the loops are the result's dims; input dim d runs along loop operand_loops(0)[d]
        assert dm is not None
        result = _norm(layout.renumber(dm.operand_loops(0), dm.loops))
        self.layout[op.results[0]] = result
        self.demand[(op, 1)] = result  # the init: the same physical tensor, relabeled
        self.rule[op] = "transpose"

    def _a_reduce(self, op: ReduceOp) -> None:
        inputs, inits = [op.input], [op.init]
        target = self._reconcile(op, inputs)
        if not isinstance(target, Layout):
            for i in range(len(inputs)):
                self.demand[(op, i)] = None
            for k in range(len(inits)):
                self.demand[(op, len(inputs) + k)] = None
            for r in op.results:
                self.layout[r] = None
            return
        dm = dim_map(op)  # the loops are the input's dims; the result runs along the kept ones
        assert dm is not None
        result = _norm(target.project(dm.result_loops(0)))
        for i in range(len(inputs)):
            self.demand[(op, i)] = target
        for k in range(len(inits)):
            self.demand[(op, len(inputs) + k)] = result
        for r in op.results:
            self.layout[r] = result
        self.rule[op] = "reduce"

    def _a_reshape(self, op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> None:
        layout = self.lay(op.src)
        if not isinstance(layout, Layout):
            self.layout[op.result] = None
            self.demand[(op, 0)] = None
            return
        units = self._unit_change(op)
        if units is None:  # regroups a real axis: convert to logical first
            self.demand[(op, 0)] = None
            self.layout[op.result] = None
            self.rule[op] = "reshape-logical"
            return
        collapsing = isinstance(op, tensor.CollapseShapeOp)
        src_rank = len(op.src.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        res_rank = len(op.result.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        if collapsing:
            if any(d in layout.splits for d in units):
                raise Refusal(op, f"'{op.name}' drops a unit dim that the layout {layout} splits")
            result = layout.without_dims(units)
        else:
            result = layout.with_unit_dims(units, res_rank)
            undone = op.src.owner
            if (
                isinstance(undone, tensor.CollapseShapeOp)
                and undone.reassociation == op.reassociation
                and undone.src.type == op.result.type
                and isinstance(self.lay(undone.src), Layout)
            ):
                # Expanding what a collapse dropped: the unit axes go back where
                # they were, so the pair is an exact round trip (spyre-fold-reshapes).
                result = self.lay(undone.src)  # type: ignore[assignment]
        assert result.rank == (res_rank if not collapsing else src_rank - len(units))
        self.layout[op.result] = _norm(result)
        self.demand[(op, 0)] = layout
        self.rule[op] = "reshape"
        self.plan[op] = (_small_dims(op), list(op.result.type.get_shape()))  # pyright: ignore[reportAttributeAccessIssue]

    @staticmethod
    def _unit_change(op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> list[int] | None:
        """The unit dims (of the larger side) that the reshape adds or drops, if that is all it does."""
        big = op.src.type if isinstance(op, tensor.CollapseShapeOp) else op.result.type
        shape = big.get_shape()  # pyright: ignore[reportAttributeAccessIssue]
        if any(d < 0 for d in shape):
            return None
        units: list[int] = []
        for group in op.reassociation.data:
            dims = [int(d.value.data) for d in group.data]  # pyright: ignore[reportAttributeAccessIssue]
            real = [d for d in dims if shape[d] != 1]
            if len(real) > 1:
                return None
            keep = real[0] if real else dims[0]
            units += [d for d in dims if d != keep]
        small_rank = len((op.result if isinstance(op, tensor.CollapseShapeOp) else op.src).type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        if small_rank == 0:
            units = list(range(len(shape)))
        return sorted(units)

    def _a_runtime_reshape(self, op: tensor.ReshapeOp) -> None:
        layout = self.lay(op.source)
        if isinstance(layout, Layout):
            raise Refusal(
                op,
                f"'tensor.reshape' takes its shape at run time and receives a value of layout {layout}: "
                "the physical shape cannot be derived (reshape it with tensor.expand_shape/collapse_shape)",
            )

    def _a_extract(self, op: tensor.ExtractOp) -> None:
        layout = self.lay(op.tensor)
        if isinstance(layout, Layout):
            self.demand[(op, 0)] = layout
            self.rule[op] = "extract"
        elif layout is FLEX:
            self.demand[(op, 0)] = None

    # -- contractions ------------------------------------------------------

    def _a_contraction(self, op: LinalgStructuredOperation) -> None:
        for region in op.regions:
            for block in region.blocks:
                self._analyze_block(block)
        n_in = len(op.inputs)  # pyright: ignore[reportAttributeAccessIssue]
        operands = [*op.inputs, *op.outputs]  # pyright: ignore[reportAttributeAccessIssue]
        if not any(isinstance(self.lay(v), Layout) for v in operands):
            for i in range(len(operands)):
                self.demand[(op, i)] = None
            for r in op.results:
                self.layout[r] = None
            return
        dm = dim_map(op)
        if dm is None or not dm.is_projected():
            raise Refusal(
                op, f"'{op.name}' has indexing maps that are not projected permutations: cannot split its loops"
            )
        dims = [dm.operand_loops(i) for i in range(len(operands))]
        n_loops = dm.loops
        split: dict[int, int] = {}
        demands: dict[int, Layout | None] = {}
        for i, v in enumerate(operands):
            layout = self.lay(v)
            if not isinstance(layout, Layout):
                continue
            for d, a in layout.splits.items():
                loop = dims[i][d]  # type: ignore[index]
                if split.setdefault(loop, a) != a:
                    # Sticks of another size on this loop: this operand moves to logical.
                    demands[i] = None
        for i, v in enumerate(operands):
            layout = self.lay(v)
            if layout is FLEX or i in demands:
                continue
            demands[i] = layout if isinstance(layout, Layout) else None
        for i, v in enumerate(operands):
            if self.lay(v) is FLEX or (i in demands and demands[i] is None and i >= n_in):
                # An output without a layout of its own takes the loops' splits.
                demands[i] = _derived_layout([split.get(l) for l in dims[i]])  # type: ignore[union-attr]
        for i in range(len(operands)):
            self.demand[(op, i)] = _norm(demands.get(i))
        for k, r in enumerate(op.results):
            self.layout[r] = _norm(demands.get(n_in + k))
        self.rule[op] = "contraction"
        del n_loops

    # -- control flow ------------------------------------------------------

    def _a_for(self, op: scf.ForOp) -> None:
        body = op.body.block
        inits = list(op.iter_args)
        chosen: list[Lay] = [self.lay(v) if self.lay(v) is not FLEX else None for v in inits]
        for attempt in range(2):
            for arg, lay in zip(body.args[1:], chosen):
                self.layout[arg] = lay
            self._forget(op.body)
            self._analyze_block(body)
            yielded = [self.lay(v) for v in body.last_op.operands]  # pyright: ignore[reportOptionalMemberAccess]
            again = False
            for k, (init, y) in enumerate(zip(inits, yielded)):
                if self.lay(init) is FLEX and chosen[k] is None and isinstance(y, Layout):
                    chosen[k] = y  # a layout-invariant init takes the loop's layout
                    again = True
            if not again or attempt:
                break
        n_bounds = 3
        for k, lay in enumerate(chosen):
            self.demand[(op, n_bounds + k)] = lay  # type: ignore[assignment]
            self.demand[(body.last_op, k)] = lay  # type: ignore[arg-type,assignment]
            self.layout[op.results[k]] = lay
        if any(isinstance(lay, Layout) for lay in chosen):
            self.rule[op] = "loop"

    def _a_if(self, op: scf.IfOp) -> None:
        yields = []
        for region in (op.true_region, op.false_region):
            if region.blocks:
                self._analyze_block(region.block)
                yields.append(region.block.last_op)
        for k, r in enumerate(op.results):
            values = [y.operands[k] for y in yields]  # pyright: ignore[reportOptionalMemberAccess]
            target = self._reconcile(op, values) if isinstance(r.type, TensorType) else None
            target = None if target is FLEX else target
            for y in yields:
                self.demand[(y, k)] = target  # type: ignore[arg-type,assignment]
            self.layout[r] = target
            if isinstance(target, Layout):
                self.rule[op] = "if"

    def _a_logical_boundary(self, op: Operation) -> None:
        for i, v in enumerate(op.operands):
            if isinstance(v.type, TensorType):
                self.demand[(op, i)] = None
                if isinstance(self.lay(v), Layout):
                    self.rule[op] = "boundary"

    # ================================================================ rewrite

    def rewrite(self) -> None:
        # What each op received before the rewrite, for the operand check (`_check_operands`).
        before = {op: [v.type for v in op.operands] for op in self.module.walk()} if self.check_agreement else {}
        for op in list(self.module.walk()):
            if op.parent is None and op is not self.module:
                continue  # erased with a replaced parent
            self._rewrite_op(op)
        for marker in self.markers:
            marker.detach()
            marker.erase()
        # Views replaced by physical ones, and layout-invariant values rebuilt at
        # every user's layout, are left without users.
        flexible = [op for op in self.module.walk() if any(self.layout.get(r) is FLEX for r in op.results)]
        for old in [*reversed(flexible), *reversed(self._dead)]:  # users (tiles) before their views
            if not any(r.uses for r in old.results) and old.parent is not None:
                old.detach()
                old.erase()
        if self.check_agreement:
            self._check_operands(before)

    def _check_operands(self, before: dict[Operation, list[Attribute]]) -> None:
        """Every op the rewrite kept receives the operand types the analysis
        implies: a demanded operand its demanded layout's physical type, and an
        op that no rule rewrote its operands unchanged. The result-type check
        (`_agree`) looks only at results a rule derives; this closes the other
        side: an op whose operand was retyped while its result was not (a
        broadcast of a physical vector left logical) is caught here, never
        emitted."""
        for op in self.module.walk():
            types = before.get(op)
            if types is None:
                continue  # built by the rewrite
            ruled = op in self.rule
            for i, (v, original) in enumerate(zip(op.operands, types)):
                if not isinstance(original, TensorType):
                    continue
                if (op, i) in self.demand:
                    target = self.demand[(op, i)]
                    expected = _physical_type(original, target) if isinstance(target, Layout) else original
                elif not ruled:
                    expected = original
                else:
                    continue  # the rule's own operand (e.g. the input of a transpose), checked by its result
                if v.type != expected:
                    raise internal_error(
                        op,
                        "checking that spyre-physicalize-layouts' analysis and rewrite agree",
                        AssertionError(
                            f"'{op.name}' receives {v.type} as operand #{i} where the analysis expects "
                            f"{expected} ({'no rule rewrites it' if not ruled else 'its demand'})"
                        ),
                    )

    def _rewrite_op(self, op: Operation) -> None:
        rule = self.rule.get(op)
        if rule == "dense-constant":
            return
        if rule is None and self._is_template(op):
            return  # a layout-invariant op is rebuilt at each user's layout (`materialize`), not rewritten
        handler = getattr(self, f"_r_{(rule or 'plain').replace('-', '_')}")
        handler(op)

    # -- operands ----------------------------------------------------------

    def _prepare(self, op: Operation) -> None:
        """Give each operand the layout demanded of it: materialize layout-invariant
        values, insert relayouts where a value has another layout."""
        new = list(op.operands)
        changed = False
        for i, v in enumerate(op.operands):
            key = (op, i)
            lay = self.lay(v)
            if lay is FLEX:
                built = self.flexible_at(v, self.demand.get(key), op)
                if built is not v:
                    new[i] = built
                    changed = True
                continue
            if key not in self.demand:
                continue
            target = self.demand[key]
            if target != lay:
                new[i] = self.relayout(v, lay, target, op)  # type: ignore[arg-type]
                changed = True
        if changed:
            op.operands = new

    def relayout(self, value: SSAValue, source: Layout | None, target: Layout | None, before: Operation) -> SSAValue:
        ty = value.type
        assert isinstance(ty, TensorType)
        rank = (source or target).rank  # type: ignore[union-attr]
        src = source or Layout.identity(rank)
        logical = _logical_shape(ty.get_shape(), src)
        dst = target or Layout.identity(rank)
        try:
            out_type = TensorType(ty.get_element_type(), dst.physical_shape(logical))
        except LayoutError as exc:
            raise error(before, f"cannot convert a {_show(source)} value to layout {_show(target)}: {exc}") from None
        runs = _runs(src, logical)
        if runs == _runs(dst, logical):
            # Only axes of extent 1 move (or a split with one stick merges): the
            # physical elements are in the same order, a reshape converts.
            result = _reshape_through(value, [extent for _, extent in runs], out_type, before)
            self.layout[result] = target
            self.counts["reshape-conversion"] += 1
            return result
        conv = RelayoutOp(value, src, dst, out_type)
        Rewriter.insert_op(conv, InsertPoint.before(before))
        self.layout[conv.result] = target
        self.relayouts += 1
        self.relayout_bytes += self.nbytes(ty, before) + self.nbytes(out_type, before)
        return conv.result

    def _is_template(self, op: Operation) -> bool:
        """A layout-invariant op: every tensor result FLEX."""
        tensors = [r for r in op.results if isinstance(r.type, TensorType)]
        return bool(tensors) and all(self.layout.get(r) is FLEX for r in tensors)

    def _reads_physical(self, value: SSAValue) -> bool:
        """Whether a layout-invariant value is built from a physical one (a
        broadcast of a loaded stick-laid vector, or an op over such a broadcast):
        then its original op is not valid as written once the rewrite retypes
        that value, and a logical user needs it rebuilt."""
        owner = value.owner
        if not isinstance(owner, Operation):
            return False
        found = self._reads_physical_memo.get(owner)
        if found is None:
            if isinstance(owner, BroadcastOp):
                lay = self.lay(owner.input)
                found = isinstance(lay, Layout) or (lay is FLEX and self._reads_physical(owner.input))
            else:
                found = any(self.lay(v) is FLEX and self._reads_physical(v) for v in owner.operands)
            self._reads_physical_memo[owner] = found
        return found

    def flexible_at(self, value: SSAValue, target: Layout | None, before: Operation) -> SSAValue:
        """`value` (layout-invariant) as a user demanding `target` receives it:
        built at a physical target; at logical, the original op unless it is
        built from a physical value (then rebuilt logically, its physical
        inputs converted)."""
        if target is None and not self._reads_physical(value):
            return value
        return self.materialize(value, target, before)

    def materialize(self, value: SSAValue, target: Layout | None, before: Operation) -> SSAValue:
        """`value` (layout-invariant) built at `target` (None: logical), right before `before`."""
        key = (value, target)
        found = self._materialized.get(key)
        if found is not None and _dominates(found, before):
            return found
        producer = value.owner
        assert isinstance(producer, Operation)
        ty = value.type
        assert isinstance(ty, TensorType)
        try:
            new_type = _physical_type(ty, target)
        except LayoutError as exc:
            raise error(before, f"cannot lay out {ty} by {target}: {exc}") from None
        at = InsertPoint.before(before)
        if target is None and not self._reads_physical(value):
            return value  # the original op is valid logically
        if isinstance(producer, arith.ConstantOp):
            dense = producer.value
            assert isinstance(dense, DenseIntOrFPElementsAttr)
            values = dense.get_values()
            new = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(new_type, [values[0]]))  # pyright: ignore[reportArgumentType]
        elif isinstance(producer, tensor.SplatOp):
            new = upstream_op(tensor.SplatOp)(producer.input, [], new_type)
        elif isinstance(producer, tensor.EmptyOp):
            new = upstream_op(tensor.EmptyOp)([], new_type)
        elif isinstance(producer, BroadcastOp):
            new = self._materialize_broadcast(producer, target, new_type, before)
        else:  # an elementwise op over layout-invariant operands
            operands = [self.flexible_at(v, target, before) if self.lay(v) is FLEX else v for v in producer.operands]
            new = type(producer).create(
                operands=operands,
                result_types=[
                    _physical_type(r.type, target) if isinstance(r.type, TensorType) else r.type
                    for r in producer.results
                ],  # pyright: ignore[reportArgumentType]
                properties=dict(producer.properties),
                attributes=dict(producer.attributes),
                regions=[r.clone() for r in producer.regions],
            )
        Rewriter.insert_op(new, at)
        result = new.results[value.index]  # pyright: ignore[reportAttributeAccessIssue]
        self.layout[result] = target
        self._materialized[key] = result
        self.counts["splat" if not isinstance(producer, BroadcastOp) else "broadcast"] += 1
        return result

    def _materialize_broadcast(
        self, op: BroadcastOp, target: Layout | None, new_type: TensorType, before: Operation
    ) -> Operation:
        """The broadcast built at `target` (None: logical): its input at the
        target's projection on the carried axes (converted if it has another
        layout, a free reshape for a stick-laid vector going logical), its added
        axes where the target puts them."""
        added = [int(d) for d in op.dimensions.get_values()]
        rank = len(new_type.get_shape()) if target is None else target.rank
        carried = [d for d in range(rank) if d not in added]
        want = None if target is None else _norm(target.project(carried))
        x = op.input
        lay = self.lay(x)
        if lay is FLEX:
            x = self.flexible_at(x, want, before)
        elif lay != want:
            x = self.relayout(x, lay, want, before)  # type: ignore[arg-type]
        init = self.flexible_at(op.init, target, before) if self.lay(op.init) is FLEX else op.init
        if target is None:
            new_dims = added
        else:
            new_dims = sorted(k for k, axis in enumerate(target.axes) if axis.dim in added)
        return BroadcastOp(x, init, DenseArrayBase.from_list(i64, new_dims), new_type)

    # -- per rule ----------------------------------------------------------

    def _retype(self, op: Operation, types: Sequence[Attribute], properties: dict | None = None) -> Operation:
        """`op` with result types `types` (and `properties` updated), in place."""
        if properties:
            op.properties.update(properties)
        for old, ty in zip(list(op.results), types):
            self._agree(old, ty)
            if old.type == ty:
                continue
            fresh = Rewriter.replace_value_with_new_type(old, ty)
            if old in self.layout:
                self.layout[fresh] = self.layout[old]
        return op

    def _agree(self, old: SSAValue, derived: Attribute) -> None:
        """The rewrite derived `derived` for `old`: it must be the type the analysis recorded."""
        if not self.check_agreement or not isinstance(old.type, TensorType):
            return
        lay = self.layout.get(old)
        expected = _physical_type(old.type, lay) if isinstance(lay, Layout) else old.type
        if derived != expected:
            raise internal_error(
                old.owner if isinstance(old.owner, Operation) else None,
                "checking that spyre-physicalize-layouts' analysis and rewrite agree",
                AssertionError(
                    f"the analysis recorded {expected} ({_show(lay)}) for a result the rewrite types {derived}"
                ),
            )

    def _r_plain(self, op: Operation) -> None:
        self._prepare(op)

    _r_unhandled = _r_plain
    _r_store = _r_plain
    _r_boundary = _r_plain
    _r_reshape_logical = _r_plain

    def _r_view(self, op: ConstructMemoryViewOp) -> None:
        layout = self.view_layout[op.result]
        ty = op.result.type
        assert isinstance(ty, MemRefType)
        sizes = [int(s) for s in ty.get_shape()]
        phys = layout.physical_shape(sizes, pad=True)
        strides = layout.physical_strides(sizes, pad=True)
        cset = _physical_set(op.coordinate_set.data, layout, sizes)
        new = ConstructMemoryViewOp(
            op.offset, list(phys), list(strides), cset, op.memory_space, MemRefType(ty.get_element_type(), phys)
        )
        new.attributes.update(op.attributes)
        new.result.name_hint = op.result.name_hint
        Rewriter.insert_op(new, InsertPoint.before(op))
        self._new_view[op.result] = new.result
        self._dead.append(op)
        self.counts["view"] += 1

    def _r_access_tile(self, op: ConstructAccessTileOp) -> None:
        if op in self.plan:
            self._r_partial_tile(op)
            return
        layout = self.view_layout[op.base]
        view = self._new_view[op.base]
        at = InsertPoint.before(op)
        anchor = _anchor(op, at)
        box = box_bounds(op.access_tile_set.data)
        assert box is not None
        extents = [hi - lo + 1 for lo, hi in box]
        indices: list[SSAValue] = []
        bounds: list[tuple[int, int]] = []
        for axis in layout.axes:
            a = anchor[axis.dim]
            lo, hi = box[axis.dim]
            if axis.part == "whole":
                indices.append(a)
                bounds.append((lo, hi))
            elif axis.part == "outer":
                indices.append(_divmod(a, axis.stick, arith.DivSIOp, at))
                bounds.append((lo // axis.stick, (hi + 1) // axis.stick - 1))
            else:
                indices.append(_divmod(a, axis.stick, arith.RemSIOp, at))
                bounds.append((0, axis.stick - 1))
        rank = len(layout.axes)
        shape = layout.physical_shape(extents)
        new = ConstructAccessTileOp(
            view,
            AffineMap.identity(rank),
            indices,
            box_set(bounds),
            AffineMap.identity(rank),
            AccessTileType(list(shape)),  # pyright: ignore[reportCallIssue]
        )
        Rewriter.insert_op(new, at)
        new.result.name_hint = op.result.name_hint
        self.layout[new.result] = layout
        op.result.replace_all_uses_with(new.result)
        op.detach()
        op.erase()
        self.counts["access-tile"] += 1

    def _r_load(self, op: LoadOp) -> None:
        tile = op.operands[0].type
        assert isinstance(tile, AccessTileType)
        elem = op.results[0].type.get_element_type()  # pyright: ignore[reportAttributeAccessIssue]
        self._retype(op, [TensorType(elem, tile.get_shape())])  # pyright: ignore[reportAttributeAccessIssue]
        self.counts["load"] += 1

    # -- partial sticks ----------------------------------------------------

    def _r_partial_tile(self, op: ConstructAccessTileOp) -> None:
        """A tile covering part of a stick: the physical tile its loads read (the
        whole sticks it touches) and the one its stores write (only the covered
        elements), built for the users it has; the loads and stores use them."""
        layout = self.view_layout[op.base]
        cuts: dict[int, _Cut] = self.plan[op]  # pyright: ignore[reportAssignmentType]
        at = InsertPoint.before(op)
        anchor = _anchor(op, at)
        box = box_bounds(op.access_tile_set.data)
        assert box is not None
        starts, residues = {}, {}
        for d, cut in cuts.items():
            starts[d] = anchor[d] if cut.lo == 0 else _add(anchor[d], cut.lo, at)
            residues[d] = cut.residue if cut.residue is not None else _divmod(starts[d], cut.stick, arith.RemSIOp, at)
        users = {type(use.operation) for use in op.result.uses}
        read = self._cut_tile(op, layout, anchor, box, cuts, starts, residues, False) if LoadOp in users else None
        write = self._cut_tile(op, layout, anchor, box, cuts, starts, residues, True) if StoreOp in users else None
        self._cut_tiles[op.result] = (read, write, residues)
        self._dead.append(op)
        self.counts["partial-tile"] += 1

    def _cut_tile(
        self,
        op: ConstructAccessTileOp,
        layout: Layout,
        anchor: Sequence[SSAValue],
        box: Sequence[tuple[int, int]],
        cuts: dict[int, _Cut],
        starts: dict[int, SSAValue],
        residues: dict[int, int | SSAValue],
        store: bool,
    ) -> SSAValue:
        """The physical tile of `op` for loads (whole sticks from the stick holding
        the first covered element) or for stores: a cut covering one stick is the
        box of its elements in that stick; one spanning several sticks (its offset
        is their whole sticks masked to the covered ones (its offset in the first stick
        a symbol of the mask when known at run time only)."""
        at = InsertPoint.before(op)
        indices: list[SSAValue] = []
        bounds: list[tuple[int, int]] = []
        masks: list[AffineConstraintExpr] = []
        symbols: list[SSAValue] = []  # run-time offsets in a stick, bound by the masks' symbols
        for k, axis in enumerate(layout.axes):
            lo, hi = box[axis.dim]
            cut = cuts.get(axis.dim)
            if axis.part == "whole":
                indices.append(anchor[axis.dim])
                bounds.append((lo, hi))
            elif cut is None and axis.part == "outer":
                indices.append(_divmod(anchor[axis.dim], axis.stick, arith.DivSIOp, at))
                bounds.append((lo // axis.stick, (hi + 1) // axis.stick - 1))
            elif cut is None:
                indices.append(_divmod(anchor[axis.dim], axis.stick, arith.RemSIOp, at))
                bounds.append((0, axis.stick - 1))
            elif axis.part == "outer":
                indices.append(_divmod(starts[axis.dim], axis.stick, arith.DivSIOp, at))
                bounds.append((0, cut.sticks - 1))
            elif store and cut.sticks == 1:
                residue = residues[axis.dim]
                indices.append(_index_const(at, residue) if isinstance(residue, int) else residue)
                bounds.append((0, cut.size - 1))
            else:
                indices.append(_index_const(at, 0))
                bounds.append((0, axis.stick - 1))
                if store:  # covered: residue <= stick * s + t <= residue + size - 1
                    outer = layout.axes_of(axis.dim)[0]
                    position = AffineDimExpr(outer) * axis.stick + AffineDimExpr(k)
                    residue = residues[axis.dim]
                    if isinstance(residue, int):
                        first: AffineExpr = AffineConstantExpr(residue)
                    else:
                        first = AffineSymExpr(len(symbols))
                        symbols.append(residue)
                    masks.append(nonnegative(position - first))
                    masks.append(nonnegative(first + (cut.size - 1) - position))
        rank = len(layout.axes)
        tile_set = box_set(bounds)
        if masks:
            tile_set = AffineSetAttr(AffineSet(rank, len(symbols), (*tile_set.data.constraints, *masks)))
        new = ConstructAccessTileOp(
            self._new_view[op.base],
            AffineMap.identity(rank),
            indices,
            tile_set,
            AffineMap.identity(rank),
            AccessTileType([hi - lo + 1 for lo, hi in bounds]),  # pyright: ignore[reportCallIssue]
            symbols,
        )
        Rewriter.insert_op(new, at)
        new.result.name_hint = op.result.name_hint
        return new.result

    def _r_partial_load(self, op: LoadOp) -> None:
        """Read the whole sticks, take them to logical order and slice out the covered part."""
        tile = op.operands[0]
        cuts = self._cuts(tile)
        assert cuts is not None
        read, _, residues = self._cut_tiles[tile]
        assert read is not None
        layout = self.view_layout[tile.owner.base]  # pyright: ignore[reportAttributeAccessIssue]
        ty = op.result.type
        assert isinstance(ty, TensorType)
        elem = ty.get_element_type()
        load = LoadOp(read, TensorType(elem, read.type.get_shape()))  # pyright: ignore[reportAttributeAccessIssue]
        Rewriter.insert_op(load, InsertPoint.before(op))
        self.layout[load.result] = layout
        whole = self.relayout(load.result, layout, None, op)
        offsets = [residues.get(d, 0) for d in range(layout.rank)]
        part = upstream_op(tensor.ExtractSliceOp)(whole, offsets, list(ty.get_shape()), [1] * layout.rank, ty)
        Rewriter.insert_op(part, InsertPoint.before(op))
        self._agree(op.result, part.results[0].type)
        op.result.replace_all_uses_with(part.results[0])
        op.detach()
        op.erase()
        self.counts["partial-load"] += 1

    def _r_partial_store(self, op: StoreOp) -> None:
        """Lay the logical value into the sticks the write tile covers and store
        through it: only the covered elements are written."""
        self._prepare(op)
        value, tile = op.operands
        cuts = self._cuts(tile)
        assert cuts is not None
        _, write, residues = self._cut_tiles[tile]
        assert write is not None
        layout = self.view_layout[tile.owner.base]  # pyright: ignore[reportAttributeAccessIssue]
        ty = value.type
        assert isinstance(ty, TensorType)
        at = InsertPoint.before(op)
        extents = list(ty.get_shape())
        spanned = {d: c for d, c in cuts.items() if c.sticks > 1}
        if spanned:
            # The covered elements at their offsets in whole sticks; the rest is masked off by the tile.
            wide_shape = [spanned[d].sticks * spanned[d].stick if d in spanned else e for d, e in enumerate(extents)]
            wide_type = _tensor_type(ty.get_element_type(), tuple(wide_shape))
            zero = 0.0 if isinstance(ty.get_element_type(), AnyFloat) else 0
            fill = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(wide_type, [zero]))  # pyright: ignore[reportArgumentType]
            static, dynamic = split_dynamic_index_list(
                [residues[d] if d in spanned else 0 for d in range(len(extents))], DYNAMIC_INDEX
            )
            place = upstream_op(tensor.InsertSliceOp).get(  # pyright: ignore[reportAttributeAccessIssue]
                value, fill.result, extents, static, offsets=dynamic, result_type=wide_type
            )
            Rewriter.insert_op([fill, place], at)
            value = place.results[0]
        # A cut within one stick is laid out as sticks of its own size: the physical box it stores.
        within = Layout(
            tuple(
                Axis(a.dim, a.part, cuts[a.dim].size)
                if a.part != "whole" and a.dim in cuts and a.dim not in spanned
                else a
                for a in layout.axes
            ),
            layout.rank,
        )
        self.layout[value] = None
        physical = self.relayout(value, None, within, op)
        assert physical.type.get_shape() == write.type.get_shape(), (physical.type, write.type)  # pyright: ignore[reportAttributeAccessIssue]
        Rewriter.insert_op(StoreOp(physical, write), at)
        op.detach()
        op.erase()
        self.counts["partial-store"] += 1

    def _r_elementwise(self, op: Operation) -> None:
        self._prepare(op)
        shaped = next(v.type for v in op.operands if isinstance(v.type, TensorType))
        types = [
            _tensor_type(r.type.get_element_type(), tuple(shaped.get_shape()))
            if isinstance(r.type, TensorType)
            else r.type  # pyright: ignore[reportAttributeAccessIssue]
            for r in op.results
        ]
        self._retype(op, types)
        self.counts["elementwise"] += 1

    def _r_transpose(self, op: TransposeOp) -> None:
        """The physical tensor does not move: an identity transpose of it, under new logical dims."""
        self._prepare(op)
        rank = len(op.inputs[0].type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        props = dict(op.properties)
        props["permutation"] = DenseArrayBase.from_list(i64, list(range(rank)))
        self._retype(op, [op.inputs[0].type], props)
        self.counts["transpose"] += 1

    def _r_reduce(self, op: ReduceOp) -> None:
        self._prepare(op)
        layout = self.demand[(op, 0)]
        assert isinstance(layout, Layout)
        dims = [int(d) for d in op.dimensions.get_values()]
        phys_dims = sorted(k for k, axis in enumerate(layout.axes) if axis.dim in dims)
        x = op.input.type
        assert isinstance(x, TensorType)
        kept = [e for k, e in enumerate(x.get_shape()) if k not in phys_dims]
        types = [TensorType(r.type.get_element_type(), kept) for r in op.results]  # pyright: ignore[reportAttributeAccessIssue]
        props = dict(op.properties)
        props["dimensions"] = DenseArrayBase.from_list(i64, phys_dims)
        self._retype(op, types, props)
        self.counts["reduce"] += 1

    def _r_reshape(self, op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> None:
        self._prepare(op)
        src_layout = self.demand[(op, 0)]
        res_layout = self.layout[op.result] or Layout.identity(len(op.result.type.get_shape()))  # pyright: ignore[reportAttributeAccessIssue]
        assert isinstance(src_layout, Layout) and isinstance(res_layout, Layout)
        big, small = (src_layout, res_layout) if isinstance(op, tensor.CollapseShapeOp) else (res_layout, src_layout)
        big_axes = list(big.axes)
        # Which axis of the small side each axis of the big side is (unit axes: none).
        small_dim_of, logical = self.plan[op]
        groups: list[list[int]] = [[] for _ in small.axes]
        pending: list[int] = []
        for k, axis in enumerate(big_axes):
            d = small_dim_of.get(axis.dim)
            if d is None:
                pending.append(k)
                continue
            target = small.axes.index(Axis(d, axis.part, axis.stick))
            groups[target] += pending + [k]
            pending = []
        if pending:
            if groups:
                groups[-1] += pending
            # rank 0: every big axis is a unit axis, the reassociation is empty
        reassociation = ArrayAttr([ArrayAttr([IntegerAttr(k, i64) for k in g]) for g in groups])
        elem = op.result.type.get_element_type()  # pyright: ignore[reportAttributeAccessIssue]
        src_phys = op.src.type.get_shape()  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(op, tensor.CollapseShapeOp):
            shape = [math.prod(src_phys[k] for k in g) for g in groups]
            new = upstream_op(tensor.CollapseShapeOp)(
                operands=[op.src], properties={"reassociation": reassociation}, result_types=[TensorType(elem, shape)]
            )
        else:
            shape = list(big.physical_shape(logical))
            new = upstream_op(tensor.ExpandShapeOp)(op.src, [], reassociation, shape, TensorType(elem, shape))
        Rewriter.insert_op(new, InsertPoint.before(op))
        self.layout[new.result] = self.layout[op.result]
        self._agree(op.result, new.result.type)
        op.result.replace_all_uses_with(new.result)
        op.detach()
        op.erase()
        self.counts["reshape"] += 1

    def _r_extract(self, op: tensor.ExtractOp) -> None:
        self._prepare(op)
        layout = self.demand[(op, 0)]
        assert isinstance(layout, Layout)
        at = InsertPoint.before(op)
        logical = list(op.indices)
        indices = []
        for axis in layout.axes:
            i = logical[axis.dim]
            if axis.part == "outer":
                i = _divmod(i, axis.stick, arith.DivSIOp, at)
            elif axis.part == "inner":
                i = _divmod(i, axis.stick, arith.RemSIOp, at)
            indices.append(i)
        new = upstream_op(tensor.ExtractOp)(op.tensor, indices, op.result.type)
        Rewriter.insert_op(new, at)
        op.result.replace_all_uses_with(new.result)
        op.detach()
        op.erase()
        self.counts["extract"] += 1

    def _r_loop(self, op: scf.ForOp) -> None:
        self._prepare(op)
        body = op.body.block
        for k, arg in enumerate(list(body.args[1:])):
            lay = self.layout.get(op.results[k])
            if isinstance(lay, Layout):
                fresh = Rewriter.replace_value_with_new_type(arg, _physical_type(arg.type, lay))  # pyright: ignore[reportArgumentType]
                self.layout[fresh] = lay
        self._retype(op, [v.type for v in op.operands[3:]])
        self.counts["loop"] += 1

    def _r_if(self, op: scf.IfOp) -> None:
        types = []
        for k, r in enumerate(op.results):
            lay = self.layout.get(r)
            types.append(_physical_type(r.type, lay) if isinstance(lay, Layout) else r.type)  # pyright: ignore[reportArgumentType]
        self._retype(op, types)
        self.counts["if"] += 1

    def _r_contraction(self, op: LinalgStructuredOperation) -> None:
        self._prepare(op)
        n_in = len(op.inputs)  # pyright: ignore[reportAttributeAccessIssue]
        operands = [*op.inputs, *op.outputs]  # pyright: ignore[reportAttributeAccessIssue]
        layouts = [self.demand.get((op, i)) for i in range(len(operands))]
        maps = [m.data if isinstance(m, AffineMapAttr) else m for m in op.get_indexing_maps()]  # pyright: ignore[reportAttributeAccessIssue]
        dims = [projected_dims(m) for m in maps]
        n_loops = maps[0].num_dims
        split: dict[int, int] = {}
        for lay, ds in zip(layouts, dims):
            for d, a in (lay.splits if isinstance(lay, Layout) else {}).items():
                split[ds[d]] = a  # type: ignore[index]
        # New loops: a split loop l becomes (outer, inner).
        new_loop: dict[tuple[int, str], int] = {}
        iterators: list[Attribute] = []
        old_iters = op.get_iterator_types()  # pyright: ignore[reportAttributeAccessIssue]
        old_iters = list(old_iters.data if isinstance(old_iters, ArrayAttr) else old_iters)
        for loop in range(n_loops):
            parts = ["outer", "inner"] if loop in split else ["whole"]
            for part in parts:
                new_loop[(loop, part)] = len(iterators)
                iterators.append(old_iters[loop])
        at = InsertPoint.before(op)
        new_operands: list[SSAValue] = []
        new_maps: list[AffineMap] = []
        expanded_out: dict[int, tuple[TensorType, ArrayAttr]] = {}
        for i, (v, lay, ds) in enumerate(zip(operands, layouts, dims)):
            rank = len(ds)  # type: ignore[arg-type]
            layout = lay or Layout.identity(rank)
            ty = v.type
            assert isinstance(ty, TensorType)
            shape = list(ty.get_shape())
            results: list[AffineExpr] = []
            groups: list[list[int]] = []
            expanded: list[int] = []
            for k, axis in enumerate(layout.axes):
                loop = ds[axis.dim]  # type: ignore[index]
                if axis.part == "whole" and loop in split:
                    a = split[loop]
                    groups.append([len(expanded), len(expanded) + 1])
                    expanded += [shape[k] // a, a]
                    results += [AffineDimExpr(new_loop[(loop, "outer")]), AffineDimExpr(new_loop[(loop, "inner")])]
                else:
                    groups.append([len(expanded)])
                    expanded.append(shape[k])
                    results.append(AffineDimExpr(new_loop[(loop, axis.part if loop in split else "whole")]))
            if len(expanded) != len(shape):
                reassociation = ArrayAttr([ArrayAttr([IntegerAttr(k, i64) for k in g]) for g in groups])
                new_ty = TensorType(ty.get_element_type(), expanded)
                expand = upstream_op(tensor.ExpandShapeOp)(v, [], reassociation, expanded, new_ty)
                Rewriter.insert_op(expand, at)
                v = expand.result
                if i >= n_in:
                    expanded_out[i - n_in] = (ty, reassociation)
            new_operands.append(v)
            new_maps.append(AffineMap(len(iterators), 0, tuple(results)))
        body = op.detach_region(op.regions[0])
        _renumber_indices(body, split, new_loop, n_loops)
        new = upstream_op(GenericOp)(
            new_operands[:n_in],
            new_operands[n_in:],
            body,
            [AffineMapAttr(m) for m in new_maps],
            iterators,
            [v.type for v in new_operands[n_in:]],
        )
        Rewriter.insert_op(new, at)
        after = InsertPoint.after(new)
        for k, (old, fresh) in enumerate(zip(op.results, new.results)):
            value: SSAValue = fresh
            if k in expanded_out:
                ty, reassociation = expanded_out[k]
                collapse = upstream_op(tensor.CollapseShapeOp)(
                    operands=[fresh], properties={"reassociation": reassociation}, result_types=[ty]
                )
                Rewriter.insert_op(collapse, after)
                after = InsertPoint.after(collapse)
                value = collapse.result
            self.layout[value] = self.layout.get(old)
            self._agree(old, value.type)
            old.replace_all_uses_with(value)
        op.detach()
        op.erase()
        self.counts["contraction"] += 1


@dataclass(frozen=True)
class _Cut:
    """How an access tile covers split dim `dim` (sticks of `stick`) when it
    covers part of a stick: `size` elements from `lo` past the anchor, starting
    at offset `residue` in a stick (None: known at run time only), touching
    `sticks` sticks (the same number from every offset it may start at)."""

    dim: int
    stick: int
    lo: int
    size: int
    residue: int | None
    sticks: int


def _cut_of(op: ConstructAccessTileOp, dim: int, stick: int, bounds: tuple[int, int]) -> _Cut | None:
    """The cut of tile `op` on split dim `dim`, or None when it covers whole
    sticks (it starts at a stick boundary and covers a multiple of the stick);
    a Refusal when where it starts in a stick is not known well enough to know
    how many sticks it touches."""
    lo, hi = bounds
    size = hi - lo + 1
    modulus, rest = _congruence_expr(op.base_map.data.results[dim], [_congruence(v) for v in op.indices])
    known = math.gcd(modulus, stick)  # the start's offset in its stick is known modulo `known`
    first = (rest + lo) % known
    if first == 0 and size % stick == 0:
        # Whole sticks. When the offset is known only modulo `known` < `stick` (an
        # anchor stepped by a run-time block size), a start at a stick boundary is
        # assumed, as for every whole-stick tile: docs/layouts.md, "Partial sticks".
        return None
    # The offsets it may start at, and how many sticks it touches from each.
    touched = {-(-(offset + size) // stick) for offset in range(first, stick, known)}
    if len(touched) == 1:
        return _Cut(dim, stick, lo, size, first if known == stick else None, touched.pop())
    raise Refusal(
        op,
        f"the tile covers {size} elements of d{dim} (sticks of {stick}) from an offset in a stick known only "
        f"modulo {known}: it touches {min(touched)} or {max(touched)} sticks depending on the run; anchor it "
        f"at a multiple of {stick}, or make {size} + its offset in a stick fit the same number of sticks "
        f"from every multiple of {known}",
    )


def _congruence(value: SSAValue) -> tuple[int, int]:
    """(m, c) such that `value` equals c modulo m on every run (m = 0: it equals c);
    (1, 0) when nothing is known. From constants, `addi`/`subi`/`muli`,
    `index_cast`, `affine.apply` and `scf.for` induction variables:
    `%i * 16 + 32` is (16, 0)."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return 0, owner.value.value.data
    if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        a, b = _congruence(owner.lhs), _congruence(owner.rhs)
        if isinstance(owner, arith.MuliOp):
            return _times(a, b)
        return _plus(a, b if isinstance(owner, arith.AddiOp) else _times((0, -1), b))
    if isinstance(owner, arith.IndexCastOp):
        return _congruence(owner.input)
    if isinstance(owner, affine.ApplyOp):
        return _congruence_expr(owner.map.data.results[0], [_congruence(v) for v in owner.mapOperands])
    if isinstance(owner, Block) and isinstance(loop := owner.parent_op(), scf.ForOp) and value.index == 0:  # pyright: ignore[reportAttributeAccessIssue]
        lb, step = _congruence(loop.lb), _congruence(loop.step)
        return _normal(math.gcd(lb[0], step[0], step[1]), lb[1])
    return 1, 0


def _congruence_expr(expr: AffineExpr, operands: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The congruence of an affine expression over operands of known congruences (dims, then symbols)."""
    if isinstance(expr, AffineConstantExpr):
        return 0, expr.value
    if isinstance(expr, AffineDimExpr):
        return operands[expr.position]
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind in (AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul):
        a, b = _congruence_expr(expr.lhs, operands), _congruence_expr(expr.rhs, operands)
        return _plus(a, b) if expr.kind == AffineBinaryOpKind.Add else _times(a, b)
    return 1, 0


def _normal(modulus: int, rest: int) -> tuple[int, int]:
    return (modulus, rest % modulus) if modulus else (0, rest)


def _plus(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return _normal(math.gcd(a[0], b[0]), a[1] + b[1])


def _times(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    # (c + m x)(d + n y) = cd + c n y + d m x + m n x y
    return _normal(math.gcd(a[0] * b[0], a[1] * b[0], b[1] * a[0]), a[1] * b[1])


def _add(value: SSAValue, constant: int, at: InsertPoint) -> SSAValue:
    op = arith.AddiOp(value, _index_const(at, constant))
    Rewriter.insert_op(op, at)
    return op.result


def _runs(layout: Layout, shape: Sequence[int]) -> list[tuple[int, int]]:
    """The physical axes as (logical dim, extent), axes of extent 1 dropped and a
    dim's outer part followed directly by its inner part merged: two layouts with
    equal runs hold the elements in the same order."""
    runs: list[tuple[int, int, str]] = []
    for axis in layout.axes:
        extent = axis.extent(shape)
        if extent == 1:
            continue
        if runs and axis.part == "inner" and runs[-1][0] == axis.dim and runs[-1][2] == "outer":
            runs[-1] = (axis.dim, runs[-1][1] * extent, "whole")
            continue
        runs.append((axis.dim, extent, axis.part))
    return [(d, e) for d, e, _ in runs]


def _reshape_through(value: SSAValue, middle: Sequence[int], target: TensorType, before: Operation) -> SSAValue:
    """`value` reshaped to `target`, both refining `middle` (the shape of `_runs`):
    one collapse or one expand when one shape refines the other, else a collapse
    to `middle` and an expand from it. No data moves."""
    at = InsertPoint.before(before)
    source = value.type
    assert isinstance(source, TensorType)
    src, dst = list(source.get_shape()), list(target.get_shape())
    if (down := _reassociation(src, dst)) is not None:
        op = upstream_op(tensor.CollapseShapeOp)(
            operands=[value], properties={"reassociation": down}, result_types=[target]
        )
    elif (up := _reassociation(dst, src)) is not None:
        op = upstream_op(tensor.ExpandShapeOp)(value, [], up, dst, target)
    else:
        mid = TensorType(source.get_element_type(), list(middle))
        down, up = _reassociation(src, middle), _reassociation(dst, middle)
        assert down is not None and up is not None, f"{src} and {dst} do not refine {list(middle)}"
        collapse = upstream_op(tensor.CollapseShapeOp)(
            operands=[value], properties={"reassociation": down}, result_types=[mid]
        )
        Rewriter.insert_op(collapse, at)
        op = upstream_op(tensor.ExpandShapeOp)(collapse.result, [], up, dst, target)
    Rewriter.insert_op(op, at)
    return op.results[0]


def _reassociation(fine: Sequence[int], coarse: Sequence[int]) -> ArrayAttr | None:
    """The reassociation collapsing `fine` into `coarse` (each coarse extent the
    product of a run of consecutive fine ones; trailing extent-1 axes join the
    last run), or None if `coarse` is no such collapse of `fine`."""
    groups: list[list[int]] = []
    k = 0
    for target in coarse:
        group, product = [], 1
        while k < len(fine) and (not group or product < target):
            group.append(k)
            product *= fine[k]
            k += 1
        if product != target:
            return None
        groups.append(group)
    if any(e != 1 for e in fine[k:]) or (not groups and k < len(fine) and any(e != 1 for e in fine)):
        return None
    if groups:
        groups[-1] += list(range(k, len(fine)))
    return ArrayAttr([ArrayAttr([IntegerAttr(x, i64) for x in g]) for g in groups])


def _derived_layout(splits: Sequence[int | None]) -> Layout | None:
    """The canonical layout splitting the dims that `splits` names (outer parts
    first, then each dim whole or its inner part): `[M, N]` split on N is `[N/64, M, 64]`."""
    rank = len(splits)
    if not any(splits):
        return None
    outer = [Axis(d, "outer", a) for d, a in enumerate(splits) if a]
    rest = [Axis(d, "inner", a) if a else Axis(d, "whole") for d, a in enumerate(splits)]
    return Layout(tuple(outer + rest), rank)


def _logical_shape(physical: Sequence[int], layout: Layout) -> list[int]:
    shape = [1] * layout.rank
    for axis, extent in zip(layout.axes, physical):
        shape[axis.dim] = extent if axis.part == "whole" else shape[axis.dim] * extent
    return shape


def _small_dims(op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> dict[int, int]:
    """Big-side dim -> small-side dim, for the dims a unit-only reshape keeps."""
    big = op.src.type if isinstance(op, tensor.CollapseShapeOp) else op.result.type
    shape = big.get_shape()  # pyright: ignore[reportAttributeAccessIssue]
    kept: dict[int, int] = {}
    for j, group in enumerate(op.reassociation.data):
        dims = [int(d.value.data) for d in group.data]  # pyright: ignore[reportAttributeAccessIssue]
        real = [d for d in dims if shape[d] != 1]
        kept[real[0] if real else dims[0]] = j
    return kept


def _dominates(value: SSAValue, user: Operation) -> bool:
    """Whether `value` (defined by an op inserted earlier in program order) is visible at `user`."""
    owner = value.owner
    block = owner.parent_block() if isinstance(owner, Operation) else None
    node: Operation | None = user
    while node is not None:
        if node.parent_block() is block:
            return True
        node = node.parent_op()
    return False


def _divmod(value: SSAValue, divisor: int, kind: type, at: InsertPoint) -> SSAValue:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        v = owner.value.value.data
        return _index_const(at, v // divisor if kind is arith.DivSIOp else v % divisor)
    c = _index_const(at, divisor)
    op = kind(value, c)
    Rewriter.insert_op(op, at)
    return op.result


def _anchor(op: ConstructAccessTileOp, at: InsertPoint) -> list[SSAValue]:
    """The logical anchor of an access tile, one index value per view dim."""
    amap = op.base_map.data
    values = []
    for e in amap.results:
        if isinstance(e, AffineDimExpr):
            values.append(op.indices[e.position])
        elif isinstance(e, AffineConstantExpr):
            values.append(_index_const(at, e.value))
        else:
            apply = affine.ApplyOp(list(op.indices), AffineMapAttr(AffineMap(amap.num_dims, 0, (e,))))
            Rewriter.insert_op(apply, at)
            values.append(apply.result)
    return values


def _physical_set(aset: AffineSet, layout: Layout, sizes: Sequence[int]) -> AffineSetAttr:
    """The coordinate set over physical axes holding exactly the images of `aset`'s points."""
    if box_bounds(aset) == [(0, s - 1) for s in sizes]:
        return shape_set(layout.physical_shape(sizes, pad=True))  # the padding is part of the tensor
    logical: list[AffineExpr | None] = [None] * layout.rank
    for k, axis in enumerate(layout.axes):
        p = AffineDimExpr(k)
        if axis.part == "whole":
            logical[axis.dim] = p
        elif axis.part == "outer":
            logical[axis.dim] = p * axis.stick if logical[axis.dim] is None else logical[axis.dim] + p * axis.stick  # pyright: ignore[reportOptionalOperand]
        else:
            logical[axis.dim] = p if logical[axis.dim] is None else logical[axis.dim] + p  # pyright: ignore[reportOptionalOperand]
    constraints = [
        AffineConstraintExpr(
            c.kind, c.lhs.replace_dims_and_symbols(logical, []), c.rhs.replace_dims_and_symbols(logical, [])
        )  # pyright: ignore[reportArgumentType]
        for c in aset.constraints
    ]
    for k, axis in enumerate(layout.axes):
        if axis.part == "inner":
            constraints.append(nonnegative(AffineDimExpr(k)))
            constraints.append(nonnegative(AffineConstantExpr(axis.stick - 1) - AffineDimExpr(k)))
    return AffineSetAttr(AffineSet(len(layout.axes), aset.num_symbols, tuple(constraints)))


def _renumber_indices(body: Region, split: dict[int, int], new_loop: dict[tuple[int, str], int], n_loops: int) -> None:
    """`linalg.index` of the old loops, in terms of the new ones (a split loop is outer * a + inner)."""
    for op in list(body.walk()):
        if not isinstance(op, IndexOp):
            continue
        loop = int(op.dim.value.data)
        at = InsertPoint.before(op)
        if loop not in split:
            new = upstream_op(IndexOp)(new_loop[(loop, "whole")])
            Rewriter.insert_op(new, at)
            op.result.replace_all_uses_with(new.result)
        else:
            outer, inner = (
                upstream_op(IndexOp)(new_loop[(loop, "outer")]),
                upstream_op(IndexOp)(new_loop[(loop, "inner")]),
            )
            stick = arith.ConstantOp(IntegerAttr(split[loop], IndexType()))
            mul = arith.MuliOp(outer.result, stick.result)
            add = arith.AddiOp(mul.result, inner.result)
            Rewriter.insert_op([outer, inner, stick, mul, add], at)
            op.result.replace_all_uses_with(add.result)
        op.detach()
        op.erase()
    del n_loops


LAST_RUN: list[Physicalizer] = []
"""The last run's physicalizer (rule counts, relayouts), for the benchmark and tests."""


@dataclass(frozen=True)
class SpyrePhysicalizeLayoutsPass(ModulePass):
    """Rewrite marked views and everything computed from them onto physical layouts (see module docstring)."""

    name = "spyre-physicalize-layouts"
    changes_ir: ClassVar[bool] = True

    report_unhandled: bool = False
    check_agreement: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        physicalizer = Physicalizer(op, self.report_unhandled, self.check_agreement)
        try:
            physicalizer.analyze()
        except Refusal as refusal:  # found by the analysis, before anything is rewritten
            raise refusal.error() from None
        if not physicalizer.view_layout:
            return
        for unhandled, message in physicalizer.unhandled:
            warning(unhandled, message)

        physicalizer.rewrite()
        _record_host_layouts(physicalizer)
        fill_locations(op)
        LAST_RUN.append(physicalizer)
        del LAST_RUN[:-1]


def _record_host_layouts(physicalizer: Physicalizer) -> None:
    """Each pointer parameter that was a marked view's base keeps the layout and
    logical shape as `spyre.host_layout` (for `spyre-run --host-layout`)."""
    for marker in physicalizer.markers:
        view = marker.view.owner
        assert isinstance(view, ConstructMemoryViewOp)
        base = view.offset
        block = base.owner
        if not isinstance(block, Block) or not isinstance(func_op := block.parent_op(), func.FuncOp):
            continue
        layout = physicalizer.view_layout[view.result]
        # A partial last stick is zero-padded: the parameter holds the padded tensor.
        shape = layout.padded_shape([int(s) for s in view.result.type.get_shape()])  # pyright: ignore[reportAttributeAccessIssue]
        n = len(func_op.body.block.args)
        attrs = list(func_op.arg_attrs.data) if func_op.arg_attrs else [DictionaryAttr({}) for _ in range(n)]
        index = base.index  # pyright: ignore[reportAttributeAccessIssue]
        entries = dict(attrs[index].data)  # pyright: ignore[reportAttributeAccessIssue]
        entries[HOST_LAYOUT_ATTR] = host_layout_attr(layout, shape)
        attrs[index] = DictionaryAttr(entries)
        func_op.arg_attrs = ArrayAttr(attrs)
