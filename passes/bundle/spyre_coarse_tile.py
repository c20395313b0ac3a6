"""spyre-coarse-tile: split an extracted compute group into a counted loop over tiles.

Seed 000's working-set transformation in MLIR terms: a dim shared by every
op of a compute group (`ktdp-extract-compute-groups`) is divided into
`count` tiles, and the group's body becomes the body of a
`spyre_loop.loop` that runs once per tile. Intermediates then hold one tile
(they live in LX, placed by `spyre-plan-scratchpad`); loads and stores move
through the full HBM tensors one tile at a time. Nested levels divide their
dims outermost first.

Before (the kernel hints `spyre.slices = [[2, [0]]]`):

    func.func @local_schedule_0(%x: index, %z: index) {
      %v = ktdp.construct_memory_view %x, sizes: [1024, 4096], strides: [4096, 1] ...
      %t = ktdp.construct_access_tile %v[%c0, %c0] {... box 1024 x 4096 ...}
      %a = ktdp.load %t : ... -> tensor<1024x4096xf16>
      ...
    }

After:

    func.func @local_schedule_0(%x: index, %z: index) {
      spyre_loop.loop count(2) tiled_dims [0] tile_sizes [512] {
      ^bb0(%k: index):
        %base = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 2097152)>(%k)[%x]
        %v = ktdp.construct_memory_view %base, sizes: [512, 4096], strides: [4096, 1] ...
        %t = ktdp.construct_access_tile %v[%c0, %c0] {... box 512 x 4096 ...}
        %a = ktdp.load %t : ... -> tensor<512x4096xf16>
        ...
      }
    }

Each access tile of the group gets a *tile view*: the same strides, its base
advanced by the tile's offset (an `affine.apply` of the loop numbers: what
the bundle's address arithmetic computes per iteration), its sizes shrunk
so that every tile stays inside the original view; anchors are unchanged.
An access tile that may run past its view's end (a tail tile: its anchor is
not a constant, or the tile is longer than the view's rest) is masked there
(KTDP-SEMANTICS §4), and each slice must keep that: the slice's view gets
the original view's extent from the slice's origin, `max(0, size -
origin)` (a dynamic size of the loop numbers, bound by a symbol of its
coordinate_set), so the slice's elements inside the original view load and
store and the others stay masked (all of them for a slice wholly past the
end). A static shrunk size would cut valid rows off every slice but the
last, and go negative for a slice wholly past the end.

Which dims, by priority: a `spyre.slices` hint on an op of the group, on
the group function, or on the kernel that calls it — `[[count, [dims]],
...]` outermost first, or a plain count for dim 0; dims are integers or
names listed in a `spyre.dims` array next to the hint; then the
`slices=N` option (dim 0 of every group); then, without either, dim 0 of a
group whose per-core working set exceeds `lx-bytes`, with the fewest
slices that fit. The group's iteration space is the shape of the tensor
its first store writes; a tiled dim is followed through every op
(elementwise, linalg, broadcasts, reductions over other dims, loads,
stores, splats, `tensor.empty`), each op's dims as
`spyre_mlir.analysis.dim_maps` maps them.

Refused with a located error before anything changes (for a hint; for
the option or the automatic choice the group is left untiled with a
remark): a tiled dim that an op reduces, a matmul inside the loop, a dim
that does not divide, an op the tiling cannot follow, a group with loops
or results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import affine, arith, func, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap, AffineSymExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from spyre_mlir.analysis.affine import box_bounds, permutation_of
from spyre_mlir.analysis.boxes import extent_set
from spyre_mlir.analysis.dim_maps import dim_map, loops_of
from spyre_mlir.analysis.liveness import live_ranges, peak_bytes, value_bytes
from spyre_mlir.diagnostics import Refusal, error, remark
from spyre_mlir.dialects.ktdp import (
    DYNAMIC_INDEX,
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
)
from spyre_mlir.dialects.spyre import CORE_SPLIT_ATTR, DIMS_ATTR, PEAK_LX_BYTES_ATTR, SLICES_ATTR
from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.ir import fill_locations, replace_module_body
from spyre_mlir.passes.contracts import require_before, require_groups
from spyre_mlir.target import Target, target_of


class NothingToTile(Exception):
    """The group writes no memory: there is no iteration space to divide (it stays as it is)."""


@dataclass
class Level:
    """One loop of the nest: `count` tiles of each of `dims` (group dims)."""

    count: int
    dims: list[int]


@dataclass
class Request:
    levels: list[Level]
    at: Operation  # where the request comes from (for diagnostics)
    explicit: bool  # a hint: refusals are errors


# --------------------------------------------------------------------------
# Which groups, which hints


def _callers(module: ModuleOp) -> dict[str, func.FuncOp]:
    """Group name -> the function that calls it (the kernel)."""
    found: dict[str, func.FuncOp] = {}
    for op in module.walk():
        if isinstance(op, func.CallOp):
            caller = op.parent_op()
            while caller is not None and not isinstance(caller, func.FuncOp):
                caller = caller.parent_op()
            if caller is not None:
                found.setdefault(op.callee.root_reference.data, caller)
    return found


def _parse_hint(op: Operation, attr: Attribute) -> list[Level]:
    """`spyre.slices` as levels: `N` (dim 0 by N) or `[[N, [dims]], ...]` outermost first."""
    names: list[str] = []
    dims_attr = op.attributes.get(DIMS_ATTR)
    if isinstance(dims_attr, ArrayAttr) and all(isinstance(n, StringAttr) for n in dims_attr.data):
        names = [n.data for n in dims_attr.data]  # pyright: ignore[reportAttributeAccessIssue]
    elif dims_attr is not None:
        raise error(op, f"'{DIMS_ATTR}' must be an array of dim names (strings), got {dims_attr}")

    def dim(a: Attribute) -> int:
        if isinstance(a, IntegerAttr):
            return int(a.value.data)
        if isinstance(a, StringAttr):
            if a.data not in names:
                if not names:
                    raise error(op, f"'{SLICES_ATTR}' names dim \"{a.data}\", but no '{DIMS_ATTR}' array names the dims")
                raise error(op, f"'{SLICES_ATTR}' names dim \"{a.data}\", which '{DIMS_ATTR}' does not list {names}")
            return names.index(a.data)
        raise error(op, f"a dim in '{SLICES_ATTR}' is an integer or a name, got {a}")

    usage = f"'{SLICES_ATTR}' is a count (dim 0) or [[count, [dims]], ...] outermost first"
    if isinstance(attr, IntegerAttr):
        return [Level(int(attr.value.data), [0])]
    if not isinstance(attr, ArrayAttr) or not attr.data:
        raise error(op, f"{usage}, got {attr}")
    levels = []
    for entry in attr.data:
        if (
            not isinstance(entry, ArrayAttr)
            or len(entry.data) != 2
            or not isinstance(entry.data[0], IntegerAttr)
            or not isinstance(entry.data[1], ArrayAttr)
            or not entry.data[1].data
        ):
            raise error(op, f"{usage}, got {entry}")
        levels.append(Level(int(entry.data[0].value.data), [dim(d) for d in entry.data[1].data]))
    for level in levels:
        if level.count <= 0:
            raise error(op, f"'{SLICES_ATTR}' asks for {level.count} slices: a count must be positive")
        repeated = sorted({d for d in level.dims if level.dims.count(d) > 1})
        if repeated:
            raise error(op, f"'{SLICES_ATTR}' lists dim {repeated[0]} twice in one level {level.dims}")
    return levels


def _request(group: func.FuncOp, kernel: func.FuncOp | None, slices: int | None) -> Request | None:
    hinted = [op for op in group.body.walk() if SLICES_ATTR in op.attributes]
    if len(hinted) > 1:
        raise error(hinted[1], f"a group takes one '{SLICES_ATTR}' hint; another op of the group has one", (hinted[0], "the other hint"))
    for holder in (*hinted, group, kernel):
        if holder is not None and SLICES_ATTR in holder.attributes:
            return Request(_parse_hint(holder, holder.attributes[SLICES_ATTR]), holder, True)
    if slices is not None:
        return Request([Level(slices, [0])], group, False)
    return None


# --------------------------------------------------------------------------
# The analysis: which (value, dim) pairs are one iteration dim


Node = tuple[object, int]  # (SSAValue or a linalg op's loop, dim)


class _Classes:
    """Union-find over (value, dim) pairs that must be tiled together."""

    def __init__(self):
        self.parent: dict[Node, Node] = {}

    def find(self, n: Node) -> Node:
        self.parent.setdefault(n, n)
        root = n
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[n] != root:
            self.parent[n], n = root, self.parent[n]
        return root

    def union(self, a: Node, b: Node) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _rank(value: SSAValue) -> int:
    return len(value.type.get_shape()) if isinstance(value.type, TensorType) else 0  # pyright: ignore[reportAttributeAccessIssue]


def _tensors(values: Sequence[SSAValue]) -> list[SSAValue]:
    return [v for v in values if isinstance(v.type, TensorType)]


@dataclass
class _Facts:
    classes: _Classes = field(default_factory=_Classes)
    reduced: dict[Node, Operation] = field(default_factory=dict)  # loop/value dims an op reduces
    opaque: dict[Node, Operation] = field(default_factory=dict)  # dims an op we cannot follow touches
    fixed: dict[Node, tuple[Operation, str]] = field(default_factory=dict)  # dims whose extent is pinned
    contractions: list[Operation] = field(default_factory=list)


def _follow(op: Operation, facts: _Facts) -> None:
    """Record how `op` relates the dims of its tensor operands and results."""
    uf = facts.classes
    tensors = _tensors([*op.operands, *op.results])
    if not tensors:
        return
    if isinstance(op, (LoadOp, StoreOp, tensor.EmptyOp, tensor.SplatOp)):
        return  # sources and sinks: rewritten by the tiling itself
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if not (isinstance(value, DenseIntOrFPElementsAttr) and value.is_splat()):
            for d in range(_rank(op.result)):
                facts.fixed[(op.result, d)] = (op, "a constant tensor that is not a splat cannot be cut into tiles")
        return
    dm = dim_map(op)
    if dm is None or dm.sizes_in_attributes or not dm.is_projected():
        for t in tensors:
            for d in range(_rank(t)):
                facts.opaque[(t, d)] = op
        return
    if dm.contraction:
        facts.contractions.append(op)
    loops = (op, "loop")  # what a linalg.index in its body reads
    for value, amap in zip((*op.operands, *op.results), (*dm.operands, *dm.results)):
        if amap is None or not isinstance(value.type, TensorType):
            continue
        for d, loop in enumerate(loops_of(amap)):
            uf.union((value, d), (loops, loop))
    for loop in sorted(dm.reductions):
        facts.reduced[(loops, loop)] = op


@dataclass
class Plan:
    """A checked tiling of one group."""

    group: func.FuncOp
    levels: list[Level]
    sizes: list[dict[int, int]]  # per level: group dim -> tile size at that level
    tiled: dict[SSAValue, dict[int, int]]  # value -> {value dim: group dim}
    accesses: list[Operation]  # loads and stores whose tensor is tiled
    extents: dict[int, int]  # group dim -> full extent
    indices: list[tuple[IndexOp, int]] = field(default_factory=list)  # linalg.index of a tiled loop -> group dim


def _group_ops(group: func.FuncOp) -> list[Operation]:
    return list(group.body.block.ops)


def analyze(group: func.FuncOp, levels: list[Level]) -> Plan:
    """The tiling of `group` by `levels`, or a Refusal before anything changes."""
    block = group.body.block
    body = _group_ops(group)
    ret = body[-1]
    if ret.operands:
        raise Refusal(ret, "the group returns values; a tiled group may only write memory")
    for op in body:
        if op.regions and not op.name.startswith("linalg."):
            raise Refusal(op, f"'{op.name}' has regions: a group with loops or branches is not tiled")
    stores = [op for op in body if isinstance(op, StoreOp)]
    if not stores:
        raise NothingToTile()
    ref = stores[0].data_tile
    if not isinstance(ref.type, TensorType):
        raise Refusal(stores[0], "the group's first store writes no tensor")
    shape = list(ref.type.get_shape())
    facts = _Facts()
    for op in block.ops:
        _follow(op, facts)
    uf = facts.classes

    dims = [d for level in levels for d in level.dims]
    for level in levels:
        if len(level.dims) > 1:
            nested = ", ".join(f"[{other.count}, [{d}]]" for other in levels for d in other.dims)
            raise Refusal(
                stores[0],
                f"one loop cannot tile dims {level.dims} together: its {level.count} iterations would cover only "
                f"the diagonal tiles; nest one loop per dim instead: [{nested}]",
            )
    for d in dims:
        if not 0 <= d < len(shape):
            raise Refusal(stores[0], f"cannot tile dim {d}: the group's iteration space {shape} has {len(shape)} dims")
    if facts.contractions:
        raise Refusal(facts.contractions[0], f"'{facts.contractions[0].name}' inside a tiling loop is not supported (as in seed 000, coarse tiling does not tile contractions)")

    members: dict[Node, list[Node]] = {}
    for node in list(uf.parent):
        members.setdefault(uf.find(node), []).append(node)
    roots = {d: uf.find((ref, d)) for d in set(dims)}
    for d, root in roots.items():
        for other, root2 in roots.items():
            if other < d and root2 == root:
                raise Refusal(stores[0], f"dims {other} and {d} of the iteration space are one dim of the computation")
    tiled: dict[SSAValue, dict[int, int]] = {}
    for d, root in roots.items():
        for node in members.get(root, [(ref, d)]):
            if node in facts.reduced:
                op = facts.reduced[node]
                raise Refusal(op, f"tiling dim {d} tiles a dim that '{op.name}' reduces; a tiled reduction is not supported")
            if node in facts.opaque:
                op = facts.opaque[node]
                raise Refusal(op, f"tiling dim {d} reaches '{op.name}', which the tiling cannot follow")
            if node in facts.fixed:
                op, why = facts.fixed[node]
                raise Refusal(op, f"tiling dim {d}: {why}")
            value, vdim = node
            if not isinstance(value, SSAValue):
                continue
            seen = tiled.setdefault(value, {})
            if vdim in seen and seen[vdim] != d:
                raise Refusal(stores[0], f"dims {seen[vdim]} and {d} of the iteration space are one dim of the computation")
            extent = value.type.get_shape()[vdim]  # pyright: ignore[reportAttributeAccessIssue]
            if extent != shape[d]:
                raise Refusal(value.owner if isinstance(value.owner, Operation) else stores[0], f"dim {d} has extent {shape[d]} in the iteration space but {extent} here")
            seen[vdim] = d

    indices = _positions(body, uf, roots, tiled)

    sizes: list[dict[int, int]] = []
    current = {d: shape[d] for d in set(dims)}
    for level in levels:
        this = {}
        for d in level.dims:
            if current[d] % level.count:
                raise Refusal(stores[0], f"{level.count} slices do not divide dim {d} of extent {current[d]}")
            current[d] //= level.count
            this[d] = current[d]
        sizes.append(this)

    accesses: list[Operation] = []
    for op in body:
        if isinstance(op, tensor.EmptyOp) and op.tensor in tiled and op.dynamic_sizes:
            raise Refusal(op, "a tensor.empty with dynamic sizes cannot be cut into tiles")
        value = op.result if isinstance(op, LoadOp) else op.data_tile if isinstance(op, StoreOp) else None  # pyright: ignore[reportAttributeAccessIssue]
        if value is None or value not in tiled:
            continue
        _check_access(op)
        accesses.append(op)
    return Plan(group, levels, sizes, tiled, accesses, {d: shape[d] for d in set(dims)}, indices)


def _positions(body: list[Operation], uf: _Classes, roots: dict[int, Node], tiled: dict[SSAValue, dict[int, int]]) -> list[tuple[IndexOp, int]]:
    """The `linalg.index` ops that read a tiled loop, each with its group dim; a Refusal for
    what depends on its position in a way the tiling cannot offset.

    Inside a tile a structured op iterates over the tile only, so `linalg.index` of a tiled
    loop counts from the tile's origin: the rewrite adds that origin. A tiled tensor read
    from inside a region (a `tensor.extract` by index in a `linalg.generic` body) would be
    indexed with whole-tensor positions in a tile-shaped tensor: refused."""
    by_root = {root: d for d, root in roots.items()}
    found: list[tuple[IndexOp, int]] = []
    for op in body:
        if not op.regions:
            continue
        inside = {o for o in op.walk()}
        for inner in op.walk():
            if inner is op:
                continue
            for v in inner.operands:
                if v in tiled and v.owner not in inside:
                    raise Refusal(inner, f"'{inner.name}' reads a tiled tensor from inside '{op.name}': its positions would not be the tile's")
            if not isinstance(inner, IndexOp):
                continue
            structured = inner.parent_op()
            dim = int(inner.dim.value.data)
            node = ((structured, "loop"), dim)
            if node in uf.parent:
                d = by_root.get(uf.find(node))
                if d is not None:
                    found.append((inner, d))
                continue
            if any(v in tiled for v in (*op.operands, *op.results)):
                raise Refusal(inner, f"'linalg.index' of a loop of '{structured.name if structured else '?'}' that the tiling cannot follow: its value would be tile-local")
    return found


def _check_access(op: Operation) -> None:
    tile = op.access_tile if isinstance(op, LoadOp) else op.access_tile  # pyright: ignore[reportAttributeAccessIssue]
    owner = tile.owner
    if not isinstance(owner, ConstructAccessTileOp) or not isinstance(owner.base.owner, ConstructMemoryViewOp):
        raise Refusal(op, "a tiled access must go through a ktdp.construct_access_tile of a ktdp.construct_memory_view")
    if owner.symbol_operands:
        raise Refusal(owner, "a tiled access tile must not take symbols")
    rank = len(owner.access_tile_order.data.results)
    if permutation_of(owner.access_tile_order.data) != list(range(rank)):
        raise Refusal(owner, "a tiled access tile must have the identity access_tile_order")
    box = box_bounds(owner.access_tile_set.data)
    if box is None or any(lo != 0 for lo, _ in box):
        raise Refusal(owner, "a tiled access tile's set must be a box from its anchor")
    view = owner.base.owner
    if view.sizes or view.strides:
        raise Refusal(view, "a tiled view must have static sizes and strides")
    vbox = box_bounds(view.coordinate_set.data)
    sizes = list(view.static_sizes.get_values())
    if vbox is None or vbox != [(0, s - 1) for s in sizes]:
        raise Refusal(view, "a tiled view's coordinate_set must be the box of its sizes")


# --------------------------------------------------------------------------
# The rewrite


def working_set(group: func.FuncOp, plan: Plan | None, target: Target | None = None) -> int:
    """Per-core peak bytes of live tensors of `group` once `plan` tiles it (None: untiled)."""
    if plan is None:
        return _working_set(group, target)
    scale: dict[SSAValue, int] = {}
    for value, dims in plan.tiled.items():
        scale[value] = 1
        for level in plan.levels:
            if any(d in dims.values() for d in level.dims):
                scale[value] *= level.count
    return _working_set(group, target, scale)


def _working_set(group: func.FuncOp, target: Target | None = None, scale: dict[SSAValue, int] | None = None) -> int:
    """Peak bytes of tensors live at once in the group's block (def to last use), a tiled value
    divided by its number of tiles."""
    target = target or target_of(group)
    scale = scale or {}
    ranges = live_ranges(group.body.block, lambda v: value_bytes(v, target) // scale.get(v, 1))
    return peak_bytes(ranges.values())


def apply_plan(plan: Plan) -> LoopOp:
    group = plan.group
    block = group.body.block
    ops = _group_ops(group)
    ret = ops[-1]
    # The nest, outermost first; the group's ops move into the innermost block.
    loops: list[LoopOp] = []
    parent_block: Block = block
    for level, sizes in zip(plan.levels, plan.sizes):
        loop = LoopOp(level.count, level.dims, [sizes[d] for d in level.dims])
        loop.location = ret.location  # pyright: ignore[reportAttributeAccessIssue]
        Rewriter.insert_op(loop, InsertPoint.at_end(parent_block) if parent_block is not block else InsertPoint.before(ret))
        loops.append(loop)
        parent_block = loop.body.block
    inner = parent_block
    for op in ops[:-1]:
        op.detach()
        inner.add_op(op)
    ivs = [loop.iteration for loop in loops]

    # Tile views and tiles for each tiled load and store.
    for op in plan.accesses:
        value = op.result if isinstance(op, LoadOp) else op.data_tile  # pyright: ignore[reportAttributeAccessIssue]
        _retile(op, plan, plan.tiled[value], ivs)

    # A linalg.index of a tiled loop counts from the tile's origin: add it.
    origins: dict[int, SSAValue] = {}
    for index, d in plan.indices:
        if d not in origins:
            expr: AffineExpr | None = None
            for level_no, level_sizes in enumerate(plan.sizes):
                if d in level_sizes:
                    term = AffineDimExpr(level_no) * level_sizes[d]
                    expr = term if expr is None else expr + term
            assert expr is not None
            origin = affine.ApplyOp(ivs, AffineMapAttr(AffineMap(len(ivs), 0, (expr,))))
            origin.result.name_hint = f"origin_d{d}"
            Rewriter.insert_op(origin, InsertPoint.at_start(inner))
            origins[d] = origin.result
        uses = list(index.result.uses)
        moved = arith.AddiOp(index.result, origins[d])
        moved.location = index.location
        Rewriter.insert_op(moved, InsertPoint.after(index))
        for use in uses:
            use.operation.operands[use.index] = moved.result

    # Every tiled value takes its tile's shape.
    final = {d: min(s[d] for s in plan.sizes if d in s) for d in plan.extents}
    for value, dims in list(plan.tiled.items()):
        ty = value.type
        assert isinstance(ty, TensorType)
        shape = list(ty.get_shape())
        for vdim, d in dims.items():
            shape[vdim] = final[d]
        new_type = TensorType(ty.get_element_type(), shape)
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            attr = owner.value
            assert isinstance(attr, DenseIntOrFPElementsAttr)
            splat = attr.get_values()[0]
            owner.properties["value"] = DenseIntOrFPElementsAttr.from_list(new_type, [splat])  # pyright: ignore[reportArgumentType]
        Rewriter.replace_value_with_new_type(value, new_type)
    for op in reversed(list(inner.ops)):
        if isinstance(op, (ConstructAccessTileOp, ConstructMemoryViewOp)) and not op.result.uses:
            op.detach()
            op.erase()
    fill_locations(group)
    return loops[0]


def _constant_anchor(tile_op: ConstructAccessTileOp) -> list[int] | None:
    """The access tile's anchor when its indices are constants, else None."""
    values = []
    for v in tile_op.indices:
        owner = v.owner
        if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
            return None
        values.append(int(owner.value.value.data))
    amap = tile_op.base_map.data
    return list(amap.eval(values[: amap.num_dims], values[amap.num_dims :]))


def _retile(op: Operation, plan: Plan, dims: dict[int, int], ivs: list[SSAValue]) -> None:
    tile_op = op.access_tile.owner  # pyright: ignore[reportAttributeAccessIssue]
    assert isinstance(tile_op, ConstructAccessTileOp)
    view = tile_op.base.owner
    assert isinstance(view, ConstructMemoryViewOp)
    strides = list(view.static_strides.get_values())
    sizes = list(view.static_sizes.get_values())
    box = [hi + 1 for _, hi in box_bounds(tile_op.access_tile_set.data) or []]
    by_group = {d: vdim for vdim, d in dims.items()}
    expr: AffineExpr = AffineSymExpr(0)
    for level_no, level_sizes in enumerate(plan.sizes):
        coefficient = sum(t * strides[by_group[d]] for d, t in level_sizes.items() if d in by_group)
        if coefficient:
            expr = expr + AffineDimExpr(level_no) * coefficient
    new_sizes: list[int | SSAValue] = list(sizes)
    new_box = list(box)
    final = {d: min(s[d] for s in plan.sizes if d in s) for d in plan.extents}
    anchor = _constant_anchor(tile_op)
    at = InsertPoint.before(op)
    zero: SSAValue | None = None
    for vdim, d in sorted(dims.items()):
        new_box[vdim] = final[d]
        a = anchor[vdim] if anchor is not None else None
        if a is not None and a >= 0 and a + plan.extents[d] <= sizes[vdim]:
            # The whole access tile lies inside the view: every slice does, one static size serves them all.
            new_sizes[vdim] = sizes[vdim] - (plan.extents[d] - final[d])
            continue
        # A tile that may run past the view's end (a tail tile) is masked there (KTDP-SEMANTICS §4): the
        # slice's view keeps the original view's rows from the slice's origin, max(0, size - origin), so
        # its rows inside the original view load and store, the others stay masked (none for a slice
        # wholly past the end).
        origin: AffineExpr = AffineConstantExpr(sizes[vdim])
        for level_no, level_sizes in enumerate(plan.sizes):
            if d in level_sizes:
                origin = origin - AffineDimExpr(level_no) * level_sizes[d]
        remaining = affine.ApplyOp(ivs, AffineMapAttr(AffineMap(len(ivs), 0, (origin,))))
        remaining.result.name_hint = "rows_left" if vdim == 0 else f"left_d{vdim}"
        if zero is None:
            c0 = arith.ConstantOp(IntegerAttr(0, IndexType()))
            Rewriter.insert_op(c0, at)
            zero = c0.result
        clipped = arith.MaxSIOp(remaining.result, zero)
        clipped.result.name_hint = remaining.result.name_hint
        Rewriter.insert_op([remaining, clipped], at)
        new_sizes[vdim] = clipped.result
    base = affine.ApplyOp([*ivs, view.offset], AffineMapAttr(AffineMap(len(ivs), 1, (expr,))))
    Rewriter.insert_op(base, at)

    memref = view.result.type
    assert isinstance(memref, MemRefType)
    new_view = ConstructMemoryViewOp(
        base.result,
        new_sizes,
        strides,
        extent_set(new_sizes),
        view.memory_space,
        MemRefType(memref.get_element_type(), [s if isinstance(s, int) else DYNAMIC_INDEX for s in new_sizes]),
    )
    Rewriter.insert_op(new_view, at)
    old_type = tile_op.result.type
    assert isinstance(old_type, AccessTileType)
    new_tile = ConstructAccessTileOp(
        new_view.result,
        tile_op.base_map.data,
        list(tile_op.indices),
        extent_set(new_box),
        tile_op.access_tile_order.data,
        AccessTileType(new_box, old_type.element_type if hasattr(old_type, "element_type") else None),  # pyright: ignore[reportAttributeAccessIssue]
    )
    Rewriter.insert_op(new_tile, at)
    op.operands[1 if isinstance(op, StoreOp) else 0] = new_tile.result


# --------------------------------------------------------------------------


def _apply_transformations(module: ModuleOp, transforms: list) -> None:
    """Apply the chosen loop transformations (each returns a new module) and take the result in place."""
    current = module
    for t in transforms:
        done = t.apply(current)
        if isinstance(done, Refusal):
            raise error(module, f"spyre-coarse-tile: the search chose {t!r}, which now refuses: {done.message}")
        current = done
    replace_module_body(module, current)


def _auto_levels(group: func.FuncOp, lx_bytes: int, target: Target) -> list[Level] | None:
    """The fewest slices of dim 0 whose tiles fit LX, or None when the group fits untiled."""
    if _working_set(group, target) <= lx_bytes:
        return None
    try:
        plan = analyze(group, [Level(1, [0])])
    except NothingToTile:
        return None
    except Refusal as refusal:
        remark(refusal.op, f"the group's working set exceeds LX ({_working_set(group, target)} > {lx_bytes} bytes) but dim 0 cannot be tiled: {refusal.message}")
        return None
    extent = plan.extents[0]
    scaled = {v: 1 for v in plan.tiled}
    for k in range(2, extent + 1):
        if extent % k:
            continue
        if _working_set(group, target, {v: k for v in scaled}) <= lx_bytes:
            return [Level(k, [0])]
    remark(group, f"the group's working set ({_working_set(group, target)} bytes) does not fit LX ({lx_bytes} bytes) even in tiles of one row")
    return None


@dataclass(frozen=True)
class SpyreCoarseTilePass(ModulePass):
    """Divide compute groups into counted loops over tiles (see the module docstring)."""

    name = "spyre-coarse-tile"

    slices: int | None = None
    lx_bytes: int | None = None
    """LX bytes of a core: a group's working set must fit it (unset: the target's `lx_bytes`)."""
    auto_tile: bool = False
    cores: int | None = None
    """Cores the tiling search evaluates candidates on (unset: the target's `cores`)."""
    engine: str = "inprocess"
    jobs: int = 0
    max_evaluations: int = 16
    search_report: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_of(op)
        lx_bytes = target.lx_bytes if self.lx_bytes is None else self.lx_bytes
        cores = target.cores if self.cores is None else self.cores
        if self.slices is not None and self.slices <= 0:
            raise error(op, f"spyre-coarse-tile: slices must be positive, got {self.slices}")
        if lx_bytes <= 0:
            raise error(op, f"spyre-coarse-tile: lx-bytes must be positive, got {lx_bytes}")
        groups = require_groups(op, self.name)
        require_before(
            groups, self.name, "spyre-plan-scratchpad", PEAK_LX_BYTES_ATTR,
            "its intermediates are LX buffers at fixed offsets, which one tile's loop would not cover",
        )
        require_before(
            groups, self.name, "spyre-distribute-work", CORE_SPLIT_ATTR, "its core split is recorded for the untiled group"
        )
        if not groups:
            hinted = next((o for o in op.walk() if SLICES_ATTR in o.attributes), None)
            if hinted is not None:
                raise error(hinted, f"pass '{self.name}' needs extracted compute groups: run 'ktdp-extract-compute-groups' first")
            return
        callers = _callers(op)
        searched = self._search(op, lx_bytes, cores) if self.auto_tile else None
        transforms: list = []  # loop transformations the search chose
        plans: list[Plan] = []
        for group in groups:
            request = _request(group, callers.get(group.sym_name.data), self.slices)
            if request is None and searched is not None:
                found = searched.best.get(group.sym_name.data)
                if found is None:
                    remark(group, f"auto-tile: no candidate of group @{group.sym_name.data} fits LX ({lx_bytes} bytes); left untiled")
                elif found.transform is not None:
                    transforms.append(found.transform)
                levels = [Level(count, list(dims)) for count, dims in (found.levels if found else [])]
            else:
                levels = request.levels if request is not None else _auto_levels(group, lx_bytes, target)
            if not levels:
                continue
            try:
                plans.append(analyze(group, levels))
            except NothingToTile:
                continue
            except Refusal as refusal:
                if request is not None and request.explicit:
                    raise refusal.error((request.at, "the tiling was asked for here")) from None
                remark(refusal.op, f"group @{group.sym_name.data} left untiled: {refusal.message}")
        for plan in plans:
            apply_plan(plan)
        if transforms:
            _apply_transformations(op, transforms)
        # A hint is consumed once its groups are tiled (a second run must not tile again).
        for holder in op.walk():
            holder.attributes.pop(SLICES_ATTR, None)
            holder.attributes.pop(DIMS_ATTR, None)

    def _search(self, module: ModuleOp, lx_bytes: int, cores: int):
        """The tiling search over the groups (spyre_mlir.passes.bundle.tiling_search); its table on stderr, JSON at search-report."""
        import sys

        from spyre_mlir.passes.bundle.tiling_search import ENGINES, search_tilings

        if self.engine not in ENGINES:
            raise error(module, f"spyre-coarse-tile: engine must be one of {', '.join(ENGINES)}, got '{self.engine}'")
        try:
            report = search_tilings(module, lx_bytes, cores, self.engine, self.jobs, max_evaluations=self.max_evaluations)
        except Refusal as refusal:  # the search cannot run
            raise error(module, f"spyre-coarse-tile: {refusal}") from None
        print(report.table(), file=sys.stderr)
        if self.search_report:
            try:
                with open(self.search_report, "w") as f:
                    f.write(report.to_json() + "\n")
            except OSError as exc:
                raise error(module, f"spyre-coarse-tile: cannot write '{self.search_report}': {exc.strerror}") from None
        return report
