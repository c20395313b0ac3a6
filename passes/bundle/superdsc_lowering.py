"""A compute group as torch-spyre SuperDSCs: which ops, which slices, which addresses.

The analysis behind `spyre-emit-bundle{format=superdsc}` (docs/bundle.md). A KTIR kernel is a
per-core program; a SuperDSC describes one op over all cores at once: its iteration space
(`N_`, dims named as torch-spyre names them), the regular split of that space across the cores
(`numWkSlicesPerDim_`, `coreIdToWkSlice_`), and per tensor where it lives (an HBM tensor at a
per-core start address, bound at run time to an operand of the bundle's `sdsc_execute`, or a
core's LX at a fixed offset) and how its elements are laid out there. The lowering:

- evaluates every access tile's anchor and every view's base per core (the kernel's grid gives
  the cores; `ktdp.get_compute_tile_id` their coordinates) and per iteration of the tile loops
  and of the kernel's per-core loops around the call (`scf.for %row = %core_id to 4096 step 32`:
  iteration i on every core at once, the same trip on each);
- replaces a group loop that sums a matmul over tiles of its contraction dim by one matmul
  over the whole dim (`_whole_contraction`);
- follows each physical axis of every tensor of the group through its ops (a union-find over
  (value, axis), by `analysis.dim_maps`) to a *logical* dim of the kernel's host tensors: a
  stick-laid view's axes `[N/64, M, 64]` are parts of the host dims M and N (its parameter's
  `spyre.host_layout`), a row-major view's axes are host dims;
- makes one SuperDSC per compute op (elementwise sfp ops, `sum`/`max` row reductions whose
  reduced tensor is replicated across a stick, `batchmatmul`): an HBM input loaded once is read
  directly; one loaded for several ops is first copied to LX by an `identity`; the stored value's
  producer writes HBM; the other intermediates live in LX at offsets planned here (their sizes are
  SuperDSC's: a reduced tensor takes a stick per row);
- refuses, with a located error at the op, what a SuperDSC cannot say: addresses known only at
  run time, per-core work that is not a regular split, masked tiles, layouts without whole
  sticks, scalar constants (they would need `constantInfo_`), ops without a SuperDSC counterpart.

    lowering = GroupLowering(kernel, call, group, target, symbols, first_index=0, outer=[row_loop])
    dispatch = lowering.run()        # Dispatch: tile loops + SdscOps (SuperDsc + operands)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, arith, func, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    TensorType,
)
from xdsl.dialects.linalg.ops import BroadcastOp, FillOp, GenericOp, MatmulOp, ReduceOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from spyre_mlir.analysis.affine import box_bounds
from spyre_mlir.analysis.boxes import box_set
from spyre_mlir.analysis.dim_maps import dim_map, loops_of
from spyre_mlir.analysis.grid import linear_order
from spyre_mlir.diagnostics import error, location_of
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    GetComputeTileIdOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.spyre import HOST_LAYOUT_ATTR
from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.superdsc import (
    Allocation,
    ComputeOp,
    DimCoordinates,
    Dsc,
    DsInfo,
    Fold,
    LabeledDs,
    SuperDsc,
)
from spyre_mlir.target import Target

DIM_NAMES = {1: ["out"], 2: ["mb", "out"], 3: ["mb", "x", "out"]}
"""torch-spyre's names of an op's dims by rank, host order (the stick dim last); a contracted dim is "in"."""

SFP_ELEMENTWISE = {
    "arith.addf": "add",
    "arith.subf": "sub",
    "arith.mulf": "mul",
    "arith.divf": "realdiv",
    "arith.maximumf": "max",
    "arith.maxnumf": "max",
    "arith.minimumf": "min",
    "arith.minnumf": "min",
    "arith.negf": "neg",
    "math.exp": "exp",
    "math.log": "log",
    "math.sqrt": "sqrt",
    "math.rsqrt": "rsqrt",
    "math.tanh": "tanh",
    "math.absf": "abs",
    "linalg.add": "add",
    "linalg.sub": "sub",
    "linalg.mul": "mul",
    "linalg.div": "realdiv",
    "linalg.max": "max",
    "linalg.min": "min",
    "linalg.exp": "exp",
    "linalg.log": "log",
    "linalg.sqrt": "sqrt",
    "linalg.rsqrt": "rsqrt",
    "linalg.tanh": "tanh",
    "linalg.abs": "abs",
    "linalg.negf": "neg",
}
"""KTIR elementwise ops and the sfp `opFuncName` each becomes."""

REDUCTIONS = {"arith.addf": "sum", "arith.maximumf": "max", "arith.maxnumf": "max"}
"""The combiner of a `linalg.reduce` and the sfp reduction it becomes."""

DATA_FORMATS = {Float16Type: "SEN169_FP16", Float32Type: "IEEE_FP32", BFloat16Type: "SEN169_BF16"}


class _UnionFind:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra
        return ra


@dataclass(frozen=True)
class Role:
    """What a physical axis is of a logical dim: its coordinate contributes `mult` * index."""

    ldim: object
    mult: int


@dataclass
class Operand:
    """One operand of the bundle's `sdsc_execute`: the byte address kernel parameter `param`
    + `offset` + the loop numbers times `loop_strides` (bytes; the enclosing kernel loops'
    numbers first, then the group's tile loops')."""

    symbol: int
    param: int
    offset: int
    loop_strides: tuple[int, ...]


@dataclass
class SdscOp:
    """One SuperDSC file and the operands its symbols are bound to (in symbol order)."""

    superdsc: SuperDsc
    operands: list[Operand]
    op: Operation


@dataclass
class Dispatch:
    """A group as the bundle runs it: its tile loops (counts, outermost first) around its SuperDSCs
    (inside the kernel loops the call is in, `GroupLowering.outer`)."""

    loops: list[int]
    ops: list[SdscOp]
    outer: list[int]
    """The trip counts of the kernel loops around the call, outermost first."""


@dataclass
class _Access:
    """A load or store of global memory: per core, the byte offset of its first element from its
    parameter (tile loops at 0) and its anchor; the loop strides in bytes."""

    op: Operation
    view: ConstructMemoryViewOp
    param: int
    offsets: list[int]
    anchors: list[tuple[int, ...]]
    loop_strides: tuple[int, ...]


@dataclass(eq=False)
class _Buffer:
    """Where a tensor lives: HBM (an access) or LX (offset planned later); its logical dims.
    Buffers are compared by identity: two LX tensors of the same shape are two allocations."""

    component: str
    dims: list  # logical dims (roots), present
    replicated: list  # logical dims held replicated (one stick)
    extents: dict  # per-core extent per present dim (elements)
    element_type: object
    access: _Access | None = None
    lx_offset: int | None = None
    first: int = 0
    last: int = 0


@dataclass
class _OpSpec:
    op: Operation
    name: str
    unit: str
    inputs: list[_Buffer]
    output: _Buffer
    ldims: list  # parallel dims then contracted, op order
    contracted: list
    extents: dict  # per-core extent per ldim
    reduction: bool = False
    order: int = 0


class SymbolCounter:
    """The bundle's symbol ids: -1, -2, ... over all its SuperDSCs, in order of use."""

    def __init__(self):
        self.next = -1

    def take(self) -> int:
        s = self.next
        self.next -= 1
        return s


def _strides(op: ConstructMemoryViewOp) -> list[int]:
    if op.strides:
        raise error(op, "a view with runtime strides cannot go into a SuperDSC: its layout is fixed at compile time")
    return list(op.static_strides.get_values())


def _float_value(v: SSAValue) -> float | None:
    """The float a splat-like init holds (`tensor.splat` of a constant, a dense splat, `linalg.fill`)."""
    owner = v.owner
    if isinstance(owner, tensor.SplatOp):
        return _float_value(owner.input)
    if isinstance(owner, FillOp):
        return _float_value(owner.inputs[0])
    if isinstance(owner, arith.ConstantOp):
        value = owner.value
        if isinstance(value, FloatAttr):
            return float(value.value.data)
        if isinstance(value, DenseIntOrFPElementsAttr) and value.is_splat():
            values = value.get_values()
            return float(values[0]) if values else None
    return None


def _splat_of_one(value: SSAValue) -> SSAValue | None:
    """The one-element tensor `value` broadcasts, when it is `tensor.splat` of a `tensor.extract` of
    one (`%m = tensor.extract %max[%c0] : tensor<1xf16>; tensor.splat %m : tensor<1x64xf16>`, the
    form Triton gives a row's reduced value spread over the row): a broadcast of that tensor."""
    splat = value.owner
    if not isinstance(splat, tensor.SplatOp) or not isinstance(splat.input.owner, tensor.ExtractOp):
        return None
    source = splat.input.owner.tensor
    if not isinstance(source.type, TensorType) or math.prod(source.type.get_shape()) != 1:
        return None
    return source


class GroupLowering:
    """One call of a compute group as SuperDSCs (see the module docstring)."""

    def __init__(
        self,
        kernel: func.FuncOp,
        call: func.CallOp,
        group: func.FuncOp,
        target: Target,
        symbols: SymbolCounter,
        first_index: int,
        outer: Sequence[scf.ForOp] = (),
    ):
        self.kernel = kernel
        self.call = call
        self.group = group
        self.target = target
        self.symbols = symbols
        self.first_index = first_index
        grid_attr = group.attributes.get("grid")
        grid = (1,)
        if isinstance(grid_attr, ArrayAttr):
            grid = tuple(int(a.value.data) for a in grid_attr.data if isinstance(a, IntegerAttr))
        self.grid = grid
        self.cores = linear_order(grid)
        if len(self.cores) > target.cores:
            raise error(
                group,
                f"the kernel's grid {list(grid)} asks for {len(self.cores)} cores; the machine has {target.cores}",
            )
        self.params: dict[BlockArgument, int] = {}
        for arg, value in zip(group.body.block.args, call.arguments):
            if isinstance(value, BlockArgument) and value.block is kernel.body.block:
                self.params[arg] = value.index
        self.uf = _UnionFind()
        self.ldims = _UnionFind()
        self.roles: dict = {}  # axis class root -> Role
        self.extent: dict = {}  # axis class root -> per-core extent
        self.host_ldims: list[list] = []  # per global view: its host dims' logical dims (nodes)
        self.stick_ldims: set = set()
        self.pending_reshapes: list = []  # (op, fine axes, their sizes, coarse axis): roles given once known
        self.outer = list(outer)
        """The kernel's `scf.for` loops around the call, outermost first: the bundle runs them as loops
        around the group's SuperDSCs, iteration i of each on every core at once."""
        self.outer_counts, self.outer_starts, self.outer_steps = self._outer_loops()

    # -- the tile loops and the per-core evaluation ----------------------------------------

    def _outer_loops(self) -> tuple[list[int], list[list[int]], list[int]]:
        """(trip counts, per core the lower bounds, steps) of the kernel loops around the call.

        A per-core loop `scf.for %row = %core_id to 64 step 32` runs iteration i on every core at
        once (core c at row 32 * i + c); its trip must be the same on every core, its step and
        upper bound fixed at compile time (`scalars=` specializes a scalar argument)."""
        counts: list[int] = []
        steps: list[int] = []
        starts: list[list[int]] = [[] for _ in self.cores]
        for loop in self.outer:
            if loop.results or loop.body.block.args[1:]:
                raise error(
                    loop,
                    "a kernel loop carrying values is per-core control flow: a SuperDSC bundle's loops carry nothing between iterations",
                )
            trips = set()
            step = None
            for k, coords in enumerate(self.cores):
                env = self._core_env(coords)
                lb, ub, st = (self._evaluate(v, dict(env), {}, loop) for v in (loop.lb, loop.ub, loop.step))
                if st <= 0:
                    raise error(loop, f"this loop's step is {st}: a bundle loop counts up")
                if step is not None and st != step:
                    raise error(loop, "this loop's step differs between cores: per-core control flow")
                step = st
                trips.add(max(0, -(-(ub - lb) // st)))
                starts[k].append(lb)
            if len(trips) != 1:
                raise error(
                    loop,
                    f"this per-core loop runs {min(trips)} to {max(trips)} iterations depending on the core: a SuperDSC bundle runs each op on all cores at once, so every core must run the same trip",
                )
            (trip,) = trips
            if trip == 0:
                raise error(loop, "this loop runs no iteration on any core: nothing to dispatch")
            counts.append(trip)
            steps.append(step)  # pyright: ignore[reportArgumentType]
        return counts, starts, steps

    def _outer_env(self, core: int, point: Sequence[int]) -> dict[SSAValue, int]:
        """The kernel loops' numbers on core `core` at iteration `point` of each."""
        return {
            loop.body.block.args[0]: self.outer_starts[core][k] + p * self.outer_steps[k]
            for k, (loop, p) in enumerate(zip(self.outer, point))
        }

    def _nest(self) -> tuple[list[LoopOp], Block]:
        loops: list[LoopOp] = []
        block = self.group.body.block
        while True:
            ops = [op for op in block.ops if not isinstance(op, func.ReturnOp)]
            if len(ops) == 1 and isinstance(ops[0], LoopOp):
                loop = ops[0]
                if loop.static_count is None:
                    raise error(
                        loop,
                        "a tile loop with a runtime trip count cannot go into a SuperDSC bundle: its loops are counted at compile time",
                    )
                loops.append(loop)
                block = loop.body.block
                continue
            return loops, block

    def _evaluate(
        self,
        value: SSAValue,
        env: dict[SSAValue, int],
        memo: dict[SSAValue, int],
        at: Operation,
        pointers: bool = False,
    ) -> int:
        """`value` (an index) on one core at one tile-loop point; with `pointers`, the kernel's pointer
        parameters are 0 (a view's base); a group parameter the kernel computes is followed there."""
        stack = [value]
        while stack:
            v = stack[-1]
            if v in memo:
                stack.pop()
                continue
            if v in env:
                memo[v] = env[v]
                stack.pop()
                continue
            owner = v.owner
            if isinstance(owner, Block):
                if v in self.params and pointers:
                    memo[v] = 0
                    stack.pop()
                    continue
                outer = self.call.arguments[v.index] if owner is self.group.body.block else None  # pyright: ignore[reportAttributeAccessIssue]
                if outer is not None and v not in self.params:
                    env[v] = self._evaluate(outer, env, {}, at)
                    continue
                name = (outer or v).name_hint or f"#{v.index}"  # pyright: ignore[reportAttributeAccessIssue]
                raise error(
                    at,
                    f"this address depends on %{name}, known only at run time: a SuperDSC's addresses are fixed per core at compile time",
                )
            assert isinstance(owner, Operation)
            pending = [x for x in owner.operands if x not in memo and x not in env]
            if pending:
                stack.extend(pending)
                continue
            memo[v] = self._apply(owner, [memo[x] if x in memo else env[x] for x in owner.operands])
            stack.pop()
        return memo[value]

    def _apply(self, op: Operation, args: list[int]) -> int:
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return int(op.value.value.data)
        binary = {
            "arith.addi": lambda a, b: a + b,
            "arith.subi": lambda a, b: a - b,
            "arith.muli": lambda a, b: a * b,
            "arith.floordivsi": lambda a, b: a // b,
            "arith.maxsi": max,
            "arith.minsi": min,
            "arith.maxui": max,
            "arith.minui": min,
        }
        if op.name in binary:
            return binary[op.name](*args)
        if op.name in ("arith.divsi", "arith.divui", "arith.ceildivsi", "arith.remsi", "arith.remui"):
            a, b = args
            if b == 0:
                raise error(op, "division by zero in an address")
            if op.name == "arith.ceildivsi":
                return -(-a // b)
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if op.name.startswith("arith.div") else a - q * b
        if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"):
            return args[0]
        if isinstance(op, affine.ApplyOp):
            amap = op.map.data
            return int(amap.eval(args[: amap.num_dims], args[amap.num_dims :])[0])
        raise error(
            op,
            f"'{op.name}' computes an address a SuperDSC cannot take: addresses must be index arithmetic of the core's tile id and the tile loops",
        )

    # -- accesses --------------------------------------------------------------------------

    def _param_of(self, value: SSAValue, op: Operation) -> int:
        """The kernel parameter (index) an HBM view's base is computed from."""
        seen, stack, found = set(), [value], set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in self.params:
                found.add(v)
            elif isinstance(v.owner, Operation):
                stack.extend(v.owner.operands)
        if len(found) != 1:
            raise error(
                op,
                "an HBM view must address one pointer argument of the kernel (its base plus constants and tile-loop offsets)",
            )
        (arg,) = found
        return self.params[arg]

    def _access(self, op: Operation, tile_value: SSAValue, shape: Sequence[int], loops: list[LoopOp]) -> _Access | None:
        tile = tile_value.owner
        if not isinstance(tile, ConstructAccessTileOp) or not isinstance(tile.base.owner, ConstructMemoryViewOp):
            raise error(op, "a SuperDSC tensor must be accessed through an access tile of a memory view")
        view = tile.base.owner
        space = normalized_memory_space(view.memory_space)
        if space is not None and not space.is_global:
            return None
        strides = _strides(view)
        box = box_bounds(tile.access_tile_set.data)
        if box is None or any(lo != 0 for lo, _ in box) or [hi + 1 for _, hi in box] != list(shape):
            raise error(
                tile,
                "a SuperDSC tensor is a whole box from its anchor: this access tile's set is not the box of its tensor's shape",
            )
        if tile.access_tile_order.data != tile.access_tile_order.data.identity(len(shape)):
            raise error(tile, "a SuperDSC tensor is read in its view's order: this access tile permutes it")
        width = self.target.element_bytes(view.result.type.get_element_type())  # pyright: ignore[reportAttributeAccessIssue]
        param = self._param_of(view.offset, view)
        nouter = len(self.outer)
        ivs = [loop.iteration for loop in loops]
        counts = [*self.outer_counts, *(loop.static_count for loop in loops)]
        offsets, anchors = [], []
        strides_seen: set[tuple[int, ...]] = set()
        for core, coords in enumerate(self.cores):
            env = self._core_env(coords)

            def address(point: Sequence[int]) -> tuple[int, tuple[int, ...]]:
                memo: dict[SSAValue, int] = {}
                local = dict(env) | self._outer_env(core, point[:nouter]) | dict(zip(ivs, point[nouter:]))
                base = self._evaluate(view.offset, local, {}, view, pointers=True)
                dims = [self._evaluate(x, local, memo, tile) for x in tile.indices]
                syms = [self._evaluate(x, local, memo, tile) for x in tile.symbol_operands]
                anchor = tuple(int(a) for a in tile.base_map.data.eval(dims, syms))
                sizes = self._view_sizes(view, local, memo)
                for a, n, m in zip(anchor, shape, sizes):
                    if a < 0 or a + n > m:
                        raise error(
                            tile,
                            f"core {self.cores.index(coords)}'s tile at {list(anchor)} runs outside its view {sizes}: a SuperDSC cannot mask",
                        )
                return (base + sum(a * s for a, s in zip(anchor, strides))) * width, anchor

            origin, anchor = address([0] * len(counts))
            steps = []
            for k in range(len(counts)):
                unit = [0] * len(counts)
                unit[k] = 1
                steps.append(address(unit)[0] - origin)
            far = [n - 1 for n in counts]  # pyright: ignore[reportOperatorIssue]
            if counts and address(far)[0] != origin + sum(s * f for s, f in zip(steps, far)):
                raise error(tile, "a tile address is not affine in the loop numbers")
            offsets.append(origin)
            anchors.append(anchor)
            strides_seen.add(tuple(steps))
        if len(strides_seen) > 1:
            raise error(tile, "the tile loops move this tile by different strides on different cores")
        return _Access(op, view, param, offsets, anchors, strides_seen.pop() if strides_seen else ())

    def _view_sizes(
        self, view: ConstructMemoryViewOp, env: dict[SSAValue, int], memo: dict[SSAValue, int]
    ) -> list[int]:
        """A view's sizes at one core and tile-loop point (coarse tiling gives tail views runtime sizes)."""
        dynamic = [self._evaluate(x, env, memo, view) for x in view.sizes]
        values = iter(dynamic)
        sizes = [next(values) if n == DYNAMIC_INDEX else n for n in view.static_sizes.get_values()]
        aset = view.coordinate_set.data
        box = box_bounds(aset, dynamic[: aset.num_symbols])  # its symbols are the dynamic sizes
        if box is None or any(lo != 0 for lo, _ in box) or any(hi + 1 < n for (_, hi), n in zip(box, sizes)):
            raise error(view, "a SuperDSC cannot mask: this view's coordinate set is not the box of its sizes")
        return [min(n, hi + 1) for (_, hi), n in zip(box, sizes)]

    def _core_env(self, coords: tuple[int, ...]) -> dict[SSAValue, int]:
        env: dict[SSAValue, int] = {}
        for op in (*self.group.walk(), *self.kernel.walk()):
            if isinstance(op, GetComputeTileIdOp):
                for r, c in zip(op.results, coords):
                    env[r] = c
                for r in op.results[len(coords) :]:
                    env[r] = 0
        return env

    # -- logical dims ------------------------------------------------------------------------

    def _role_for(self, key, role: Role, at: Operation) -> None:
        root = self.uf.find(key)
        old = self.roles.get(root)
        if old is None:
            self.roles[root] = role
            return
        if old.mult != role.mult:
            raise error(at, "this op joins parts of dims split at different stick sizes: no SuperDSC layout has them")
        self.ldims.union(old.ldim, role.ldim)

    def _join(self, a, b, at: Operation) -> None:
        ra, rb = self.uf.find(a), self.uf.find(b)
        if ra == rb:
            return
        ea, eb = self.extent.get(ra), self.extent.get(rb)
        role_a, role_b = self.roles.pop(ra, None), self.roles.pop(rb, None)
        root = self.uf.union(ra, rb)
        if ea is not None and eb is not None and ea != eb:
            raise error(at, f"this op pairs extents {ea} and {eb} of one dim")
        self.extent[root] = ea if ea is not None else eb
        for role in (role_a, role_b):
            if role is not None:
                self._role_for(root, role, at)

    def _axes(self, value: SSAValue, at: Operation) -> None:
        if not isinstance(value.type, TensorType):
            return
        for k, n in enumerate(value.type.get_shape()):
            root = self.uf.find((value, k))
            if self.extent.get(root) not in (None, n):
                raise error(at, f"this op pairs extents {self.extent[root]} and {n} of one dim")
            self.extent[root] = n

    def _view_roles(self, value: SSAValue, access: _Access, at: Operation) -> None:
        """The axes of a tensor loaded from (or stored to) a global view: parts of its parameter's host dims."""
        rank = len(value.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        layout = self.kernel.arg_attrs.data[access.param].data.get(HOST_LAYOUT_ATTR) if self.kernel.arg_attrs else None
        if isinstance(layout, DictionaryAttr):
            src = list(layout.data["phys_src"].get_values())  # pyright: ignore[reportAttributeAccessIssue]
            kinds = list(layout.data["phys_op"].get_values())  # pyright: ignore[reportAttributeAccessIssue]
            args = list(layout.data["phys_arg"].get_values())  # pyright: ignore[reportAttributeAccessIssue]
            host_rank = len(layout.data["shape"].get_values())  # pyright: ignore[reportAttributeAccessIssue]
            if len(src) != rank:
                raise error(
                    access.view, f"this view has rank {rank} but its parameter's host layout has {len(src)} axes"
                )
        else:
            src, kinds, args, host_rank = list(range(rank)), [0] * rank, [0] * rank, rank
        nodes = [("param", access.param, d) for d in range(host_rank)]
        self.host_ldims.append(nodes)
        for k in range(rank):
            mult = args[k] if kinds[k] == 1 else 1
            self._role_for((value, k), Role(nodes[src[k]], mult), at)

    # -- the group ------------------------------------------------------------------------------

    def run(self) -> Dispatch:
        loops, body = self._nest()
        for op in list(body.ops):
            if isinstance(op, scf.ForOp):
                self._whole_contraction(op, loops)
            elif (
                op.regions
                and not isinstance(op, (GenericOp, ReduceOp, MatmulOp, BroadcastOp))
                and not op.name.startswith("linalg.")
            ):
                raise error(
                    op, f"'{op.name}' is control flow inside a compute group: a SuperDSC runs straight-line ops"
                )
        # Aliases: an LX store then load of a tile (spyre-plan-scratchpad's intermediates) is the value itself.
        alias: dict[SSAValue, SSAValue] = {}
        lx_content: dict[SSAValue, SSAValue] = {}
        accesses: dict[Operation, _Access] = {}
        for op in body.ops:
            if isinstance(op, StoreOp):
                acc = self._access(op, op.access_tile, op.data_tile.type.get_shape(), loops)  # pyright: ignore[reportAttributeAccessIssue]
                if acc is None:
                    lx_content[op.access_tile] = op.data_tile
                else:
                    accesses[op] = acc
            elif isinstance(op, LoadOp):
                acc = self._access(op, op.access_tile, op.result.type.get_shape(), loops)  # pyright: ignore[reportAttributeAccessIssue]
                if acc is None:
                    stored = lx_content.get(op.access_tile)
                    if stored is None:
                        raise error(
                            op,
                            "this LX load reads nothing the group stored: a SuperDSC's LX holds only what earlier ops of the bundle wrote",
                        )
                    alias[op.result] = stored
                else:
                    accesses[op] = acc
        self.alias = alias
        # Axes and their logical dims.
        for op in body.walk():
            for v in (*op.operands, *op.results):
                self._axes(v, op)
        for op in body.ops:
            if isinstance(op, LoadOp) and op.result in alias:
                for k in range(len(op.result.type.get_shape())):
                    self._join((op.result, k), (alias[op.result], k), op)
            elif isinstance(op, LoadOp) and op in accesses:
                self._view_roles(op.result, accesses[op], op)
            elif isinstance(op, StoreOp) and op in accesses:
                self._view_roles(op.data_tile, accesses[op], op)
            elif not isinstance(op, (LoadOp, StoreOp)):
                self._link(op)
        self._stick_dims(accesses)
        origins = self._origins(accesses)
        specs = self._specs(body, accesses)
        return self._superdscs(specs, origins, loops)

    def _whole_contraction(self, loop: scf.ForOp, loops: list[LoopOp]) -> None:
        """Replace a loop that sums a matmul over tiles of its contraction dim by one matmul over
        the whole dim (one `batchmatmul`):

            %c = scf.for %k = 0 to 2048 step 128 iter_args(%acc = zeros) {
              %a = load A[%m, %k] : 32x128;  %b = load B[%k, %n] : 128x512
              yield %acc + matmul(%a, %b)
            }

        becomes `%c = matmul(load A[%m, 0] : 32x2048, load B[0, %n] : 2048x512) into zeros`. The sum
        is the same; the source rounds each tile's product and the running sum to the element
        type, batchmatmul rounds once. Anything else in a group's loop is refused."""

        def refuse(why: str, at: Operation = loop):
            raise error(
                at,
                f"'scf.for' is control flow inside a compute group, and not a matmul summed over tiles of its contraction dim ({why}): a SuperDSC runs straight-line ops",
            )

        body = loop.body.block
        if len(loop.results) != 1 or len(body.args) != 2:
            refuse("it carries no single tensor")
        iterand = body.args[1]
        local: dict[SSAValue, SSAValue] = {}  # an LX load: what its tile's store wrote
        content: dict[SSAValue, SSAValue] = {}
        for op in body.ops:
            if isinstance(op, (StoreOp, LoadOp)):
                tile = op.access_tile
                view = tile.owner.base.owner if isinstance(tile.owner, ConstructAccessTileOp) else None
                space = normalized_memory_space(view.memory_space) if isinstance(view, ConstructMemoryViewOp) else None
                if space is None or space.is_global:
                    if isinstance(op, StoreOp):
                        refuse("it stores to HBM", op)
                    continue
                if isinstance(op, StoreOp):
                    content[tile] = op.data_tile
                elif tile in content:
                    local[op.result] = content[tile]
            elif not isinstance(
                op,
                (
                    ConstructAccessTileOp,
                    ConstructMemoryViewOp,
                    MatmulOp,
                    tensor.EmptyOp,
                    arith.ConstantOp,
                    arith.AddfOp,
                    scf.YieldOp,
                ),
            ) and not (op.name == "linalg.add"):
                refuse(f"it holds '{op.name}'", op)

        def seen(v: SSAValue) -> SSAValue:
            while v in local:
                v = local[v]
            return v

        total = seen(body.last_op.operands[0])  # pyright: ignore[reportOptionalMemberAccess]
        adder = total.owner
        addends: list[SSAValue] = []
        if isinstance(adder, arith.AddfOp):
            addends = [seen(v) for v in adder.operands]
        elif isinstance(adder, Operation) and adder.name == "linalg.add":
            addends = [seen(v) for v in adder.inputs]  # pyright: ignore[reportAttributeAccessIssue]
        if len(addends) != 2 or iterand not in addends:
            refuse("it does not yield the carried tensor plus a product")
        product = addends[1 - addends.index(iterand)]
        matmul = product.owner
        if not isinstance(matmul, MatmulOp) or matmul.parent_block() is not body:
            refuse("what it adds is not a linalg.matmul")
        init = _float_value(loop.iter_args[0])
        if init != 0.0:
            refuse("it does not start from zeros")
        fresh = matmul.outputs[0].owner  # pyright: ignore[reportPossiblyUnbound]
        if not isinstance(fresh, tensor.EmptyOp) and _float_value(matmul.outputs[0]) != 0.0:  # pyright: ignore[reportPossiblyUnbound]
            refuse("its matmul accumulates into a tensor")
        bounds = set()
        for coords in self.cores:
            env = self._core_env(coords)
            bounds.add(tuple(self._evaluate(v, dict(env), {}, loop) for v in (loop.lb, loop.ub, loop.step)))
        if len(bounds) != 1:
            refuse("its bounds differ between cores")
        ((lb, ub, step),) = bounds
        trip = max(0, -(-(ub - lb) // step)) if step > 0 else 0
        if trip < 1:
            refuse("it runs no iteration")
        whole: list[SSAValue] = []
        for operand, axis in zip(matmul.inputs, (1, 0)):  # pyright: ignore[reportPossiblyUnbound]
            load = operand.owner
            tile = load.access_tile.owner if isinstance(load, LoadOp) else None
            if not isinstance(tile, ConstructAccessTileOp) or load.parent_block() is not body:  # pyright: ignore[reportOptionalMemberAccess]
                refuse("a matmul operand is not a tile the loop loads")
            shape = list(load.result.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue,reportOptionalMemberAccess]
            if shape[axis] != step:
                refuse(f"a tile spans {shape[axis]} of the contraction dim, the loop steps {step}")
            for coords in self.cores:
                env = self._core_env(coords)
                first = self._anchor(tile, env | {body.args[0]: lb})  # pyright: ignore[reportArgumentType]
                for j in (1, trip - 1):
                    moved = self._anchor(tile, env | {body.args[0]: lb + j * step})  # pyright: ignore[reportArgumentType]
                    want = list(first)
                    want[axis] += j * step
                    if list(moved) != want:
                        refuse("a tile does not move along the contraction dim by the step", tile)  # pyright: ignore[reportArgumentType]
            whole.append(self._whole_tile(tile, load, loop, lb, axis, trip * step))  # pyright: ignore[reportArgumentType]
        at = InsertPoint.before(loop)
        result = matmul.clone(  # pyright: ignore[reportOptionalMemberAccess]
            value_mapper={matmul.inputs[0]: whole[0], matmul.inputs[1]: whole[1], matmul.outputs[0]: loop.iter_args[0]}  # pyright: ignore[reportOptionalMemberAccess]
        )
        Rewriter.insert_op(result, at)
        loop.results[0].replace_all_uses_with(result.results[0])
        loop.detach()
        loop.erase()

    def _anchor(self, tile: ConstructAccessTileOp, env: dict[SSAValue, int]) -> tuple[int, ...]:
        memo: dict[SSAValue, int] = {}
        dims = [self._evaluate(x, dict(env), memo, tile) for x in tile.indices]
        syms = [self._evaluate(x, dict(env), memo, tile) for x in tile.symbol_operands]
        return tuple(int(a) for a in tile.base_map.data.eval(dims, syms))

    def _whole_tile(
        self, tile: ConstructAccessTileOp, load: LoadOp, loop: scf.ForOp, lb: int, axis: int, extent: int
    ) -> SSAValue:
        """A load of `tile` at the loop's first iteration, `extent` long along `axis`, before the loop."""
        at = InsertPoint.before(loop)
        start = arith.ConstantOp(IntegerAttr(lb, IndexType()))
        Rewriter.insert_op(start, at)
        mapping: dict[SSAValue, SSAValue] = {loop.body.block.args[0]: start.result}
        needed: list[Operation] = []
        stack = [*tile.indices, *tile.symbol_operands]
        while stack:  # index arithmetic of the tile's anchor computed inside the loop: before it
            v = stack.pop()
            if isinstance(v.owner, Operation) and v.owner.parent_block() is loop.body.block and v.owner not in needed:
                needed.append(v.owner)
                stack.extend(v.owner.operands)
        for op in sorted(needed, key=lambda o: loop.body.block.get_operation_index(o)):
            copy = op.clone(value_mapper=mapping)
            Rewriter.insert_op(copy, at)
        shape = list(load.result.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        shape[axis] = extent
        box = box_bounds(tile.access_tile_set.data)
        if box is None or any(lo != 0 for lo, _ in box):
            raise error(tile, "a SuperDSC tensor is a whole box from its anchor: this access tile's set is not one")
        whole = ConstructAccessTileOp(
            tile.base,
            tile.base_map.data,
            [mapping.get(v, v) for v in tile.indices],
            box_set([(0, n - 1) for n in shape]),
            tile.access_tile_order.data,
            AccessTileType(shape),
            [mapping.get(v, v) for v in tile.symbol_operands],
        )
        data = LoadOp(whole, TensorType(load.result.type.get_element_type(), shape))  # pyright: ignore[reportAttributeAccessIssue]
        Rewriter.insert_op([whole, data], at)
        return data.result

    def _link(self, op: Operation) -> None:
        if isinstance(op, (tensor.ExpandShapeOp, tensor.CollapseShapeOp)):
            self._reshape(op)
            return
        if not any(isinstance(v.type, TensorType) for v in op.results):
            return
        dm = dim_map(op)
        if dm is None:
            return  # refused where a SuperDSC needs it (_specs)
        tensors = [(v, m) for v, m in zip(op.operands, dm.operands)] + [(v, m) for v, m in zip(op.results, dm.results)]
        for v, amap in tensors:
            if amap is None or not isinstance(v.type, TensorType):
                continue
            for k, loop in enumerate(loops_of(amap)):
                if loop is not None:
                    self._join((v, k), ("loop", op, loop), op)

    def _reshape(self, op: tensor.ExpandShapeOp | tensor.CollapseShapeOp) -> None:
        """An axis split into several (or several merged): the parts keep its logical dim."""
        collapsing = isinstance(op, tensor.CollapseShapeOp)
        fine = op.src if collapsing else op.result
        coarse = op.result if collapsing else op.src
        shape = list(fine.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        groups = [[int(d.value.data) for d in g.data] for g in op.reassociation.data]  # pyright: ignore[reportAttributeAccessIssue]
        for j, g in enumerate(groups):
            kept = [d for d in g if shape[d] != 1]
            if len(g) == 1:
                self._join((fine, g[0]), (coarse, j), op)
            elif len(kept) <= 1 and kept:
                self._join((fine, kept[0]), (coarse, j), op)
            else:
                self.pending_reshapes.append((op, [(fine, d) for d in g], [shape[d] for d in g], (coarse, j)))

    def _resolve_reshapes(self) -> None:
        for op, parts, sizes, whole in self.pending_reshapes:
            role = self.roles.get(self.uf.find(whole))
            if role is None:
                raise error(op, "this reshape splits a dim the SuperDSC cannot follow to a kernel argument")
            for k, key in enumerate(parts):
                if sizes[k] != 1:
                    self._role_for(key, Role(role.ldim, role.mult * math.prod(sizes[k + 1 :])), op)

    def _ldim(self, key, at: Operation):
        role = self.roles.get(self.uf.find(key))
        if role is None:
            raise error(at, "a dim of this op reaches no kernel argument: the SuperDSC cannot name it")
        return self.ldims.find(role.ldim), role.mult

    def _stick_dims(self, accesses: dict[Operation, _Access]) -> None:
        self._resolve_reshapes()
        for op, acc in accesses.items():
            value = op.result if isinstance(op, LoadOp) else op.data_tile  # pyright: ignore[reportAttributeAccessIssue]
            strides = _strides(acc.view)
            for k, s in enumerate(strides):
                if s == 1:
                    self.stick_ldims.add(self._ldim((value, k), op)[0])

    # -- per-core origins and the op list ------------------------------------------------------

    def _dims_of(self, value: SSAValue, at: Operation) -> dict:
        """Per logical dim of a tensor: [(axis, mult, extent)] of its axes."""
        parts: dict = {}
        for k, n in enumerate(value.type.get_shape()):  # pyright: ignore[reportAttributeAccessIssue]
            ldim, mult = self._ldim((value, k), at)
            parts.setdefault(ldim, []).append((k, mult, n))
        return parts

    def _extent(self, parts: list[tuple[int, int, int]], at: Operation) -> int:
        """The per-core extent along one logical dim of axes that are its parts (a whole dim, or
        sticks and lanes)."""
        parts = sorted(parts, key=lambda p: p[1])
        covered = 1
        for _, mult, n in parts:
            if n == 1:
                continue
            if mult != covered:
                raise error(at, "this tensor holds part of a stick along a dim: a SuperDSC moves whole sticks")
            covered = mult * n
        return covered

    def _origins(self, accesses: dict[Operation, _Access]) -> dict:
        """Per logical dim, per core: the coordinate where the core's slice starts."""
        origins: dict = {}
        for op, acc in accesses.items():
            value = op.result if isinstance(op, LoadOp) else op.data_tile  # pyright: ignore[reportAttributeAccessIssue]
            for ldim, parts in self._dims_of(value, op).items():
                per_core = [sum(anchor[k] * mult for k, mult, _ in parts) for anchor in acc.anchors]
                old = origins.setdefault(ldim, per_core)
                if old != per_core:
                    raise error(
                        op,
                        "this access starts its cores' slices elsewhere along a dim than another access of the group: a SuperDSC's tensors share the op's slices",
                    )
        return origins

    def _root(self, value: SSAValue) -> SSAValue:
        """The value a compute op's operand is, seen through LX round trips, broadcasts and reshapes."""
        while True:
            if value in self.alias:
                value = self.alias[value]
            elif isinstance(value.owner, BroadcastOp):
                value = value.owner.input
            elif isinstance(value.owner, (tensor.ExpandShapeOp, tensor.CollapseShapeOp)):
                value = value.owner.src
            elif (one := _splat_of_one(value)) is not None:
                value = one
            else:
                return value

    def _kind(self, op: Operation) -> tuple[str, str, list[SSAValue]] | None:
        """(opFuncName, exUnit, tensor inputs) of a compute op; None for an op that computes nothing
        (inits, views, reshapes, broadcasts); a located error for one without a SuperDSC counterpart."""
        if isinstance(
            op,
            (
                LoadOp,
                StoreOp,
                tensor.EmptyOp,
                tensor.SplatOp,
                FillOp,
                BroadcastOp,
                tensor.ExpandShapeOp,
                tensor.CollapseShapeOp,
            ),
        ):
            return None
        if isinstance(op, arith.ConstantOp) or not any(isinstance(r.type, TensorType) for r in op.results):
            return None
        if isinstance(op, ReduceOp):
            body = [o for o in op.region.block.ops if o.name != "linalg.yield"]
            name = REDUCTIONS.get(body[0].name) if len(body) == 1 else None
            if name is None:
                raise error(
                    op,
                    f"a reduction by {', '.join(o.name for o in body) or 'nothing'} has no SuperDSC counterpart (supported: {', '.join(sorted(set(REDUCTIONS.values())))})",
                )
            init = _float_value(self._root(op.init))
            neutral = 0.0 if name == "sum" else -math.inf
            if init != neutral:
                raise error(
                    op,
                    f"a {name} starting from {init if init is not None else 'a tensor'} would need constantInfo_ (its encoding is not known): a SuperDSC {name} starts from {neutral}",
                )
            return name, "sfp", [op.input]
        if isinstance(op, (MatmulOp, GenericOp)):
            dm = dim_map(op)
            body = [o.name for o in op.body.block.ops if o.name != "linalg.yield"]
            if dm is not None and dm.contraction and body == ["arith.mulf", "arith.addf"] and len(op.inputs) == 2:
                if _float_value(self._root(op.outputs[0])) != 0.0:
                    raise error(
                        op, "a matmul accumulating into a nonzero tensor has no SuperDSC form: batchmatmul writes A @ B"
                    )
                return "batchmatmul", "pt", list(op.inputs)
            if isinstance(op, GenericOp):
                raise error(op, "a linalg.generic has no SuperDSC counterpart unless it is a matmul")
        if op.name in ("arith.extf", "arith.truncf"):
            raise error(
                op, "a format conversion has no SuperDSC form: an sfp op's tensors are all OUTPUT, of one stick size"
            )
        name = SFP_ELEMENTWISE.get(op.name)
        if name is None:
            raise error(
                op,
                f"'{op.name}' has no SuperDSC counterpart (sfp ops: {', '.join(sorted(set(SFP_ELEMENTWISE.values())))}, reductions sum and max, batchmatmul)",
            )
        inputs = list(op.inputs) if op.name.startswith("linalg.") else list(op.operands)  # pyright: ignore[reportAttributeAccessIssue]
        constants = [v for v in inputs if _float_value(self._root(v)) is not None]
        if name == "max" and len(constants) == 1 and _float_value(self._root(constants[0])) == 0.0:
            return "relufwd", "sfp", [v for v in inputs if v not in constants]
        if constants:
            raise error(
                op,
                "a scalar constant operand would need constantInfo_, whose encoding is not known: no SuperDSC for it",
            )
        return name, "sfp", inputs

    def _buffer(
        self, value: SSAValue, component: str, at: Operation, replicated: Sequence = (), access: _Access | None = None
    ) -> _Buffer:
        dims = self._dims_of(value, at)
        extents = {d: self._extent(parts, at) for d, parts in dims.items()}
        for d in replicated:
            if d not in self.stick_ldims:
                raise error(
                    at,
                    "this reduction is over a dim that is not the stick dim: a SuperDSC reduction keeps its result replicated across a stick",
                )
        element = value.type.get_element_type()  # pyright: ignore[reportAttributeAccessIssue]
        return _Buffer(component, list(dims), list(replicated), extents, element, access)

    def _specs(self, body: Block, accesses: dict[Operation, _Access]) -> list[_OpSpec]:
        kinds: dict[Operation, tuple[str, str, list[SSAValue]]] = {}
        users: dict[SSAValue, list[Operation]] = {}
        for op in body.ops:
            kind = self._kind(op)
            if kind is not None:
                kinds[op] = kind
                for v in kind[2]:
                    users.setdefault(self._root(v), []).append(op)
        stores: dict[SSAValue, tuple[StoreOp, _Access]] = {}
        for op, acc in accesses.items():
            if isinstance(op, StoreOp):
                root = op.data_tile
                while root in self.alias:
                    root = self.alias[root]
                if (
                    isinstance(root.owner, (BroadcastOp, tensor.ExpandShapeOp, tensor.CollapseShapeOp))
                    or _splat_of_one(root) is not None
                ):
                    raise error(
                        op,
                        "a SuperDSC writes a tensor as its op computes it: this store writes a broadcast or reshape of one",
                    )
                if root in stores:
                    raise error(op, "this value is stored twice: a SuperDSC op writes one HBM tensor")
                stores[root] = (op, acc)
        loads = {op.result: acc for op, acc in accesses.items() if isinstance(op, LoadOp)}
        buffers: dict[SSAValue, _Buffer] = {}
        specs: list[_OpSpec] = []

        def identity(src: _Buffer, dst: _Buffer, op: Operation) -> None:
            specs.append(self._spec(op, "identity", "sfp", [src], dst, []))

        for op in body.ops:
            if isinstance(op, LoadOp) and op.result in loads:
                hbm = self._buffer(op.result, "hbm", op, access=loads[op.result])
                if len(users.get(op.result, [])) > 1:
                    lx = self._buffer(op.result, "lx", op)
                    identity(hbm, lx, op)
                    buffers[op.result] = lx
                else:
                    buffers[op.result] = hbm
            elif isinstance(op, StoreOp) and op in accesses:
                root = self._root(op.data_tile)
                if root in loads or root not in {r for o in kinds for r in o.results}:
                    src = buffers.get(root)
                    if src is None:
                        maker = f"'{root.owner.name}'" if isinstance(root.owner, Operation) else "an argument"
                        raise error(op, f"this store writes a value made by {maker}, which no SuperDSC op computes")
                    identity(src, self._buffer(op.data_tile, "hbm", op, access=accesses[op]), op)
            elif op in kinds:
                name, unit, inputs = kinds[op]
                result = op.results[0]
                ins = []
                for v in inputs:
                    buf = buffers.get(self._root(v))
                    if buf is None:
                        raise error(op, "this operand is computed by no op a SuperDSC runs")
                    ins.append(buf)
                replicated = []
                if isinstance(op, ReduceOp):
                    reduced = {int(d) for d in op.dimensions.get_values()}
                    in_dims = self._dims_of(op.input, op)
                    for ldim, parts in in_dims.items():
                        hit = {k in reduced for k, _, _ in parts}
                        if hit == {True, False}:
                            raise error(
                                op,
                                "this reduction covers part of a dim (sticks or lanes only): a SuperDSC reduces whole dims",
                            )
                        if hit == {True}:
                            replicated.append(ldim)
                if result in stores:
                    store, acc = stores[result]
                    out = self._buffer(result, "hbm", store, access=acc)
                    if replicated:
                        raise error(
                            store,
                            "a reduced tensor is replicated across a stick; storing it to HBM is not the kernel's layout",
                        )
                else:
                    out = self._buffer(result, "lx", op, replicated)
                buffers[result] = out
                contracted = []
                if unit == "pt":
                    present = set(out.dims)
                    contracted = [d for b in ins for d in b.dims if d not in present]
                    contracted = list(dict.fromkeys(contracted))
                specs.append(self._spec(op, name, unit, ins, out, contracted, reduction=bool(replicated)))
        for k, spec in enumerate(specs):
            spec.order = k
        return specs

    def _spec(
        self,
        op: Operation,
        name: str,
        unit: str,
        ins: list[_Buffer],
        out: _Buffer,
        contracted: list,
        reduction: bool = False,
    ) -> _OpSpec:
        """One SuperDSC op: its dims (the output's, replicated ones included, then the contracted) and extents."""
        parallel = [*out.dims, *out.replicated]
        extents = dict(out.extents)
        for b in ins:
            for d, n in b.extents.items():
                if extents.setdefault(d, n) != n:
                    raise error(
                        op, "the tensors of this op have different extents along one dim: no SuperDSC op pairs them"
                    )
            if unit == "sfp":
                held = set(b.dims) | set(b.replicated)
                if held != set(parallel):
                    raise error(
                        op,
                        "an operand of this op is broadcast along a dim it does not hold replicated: a SuperDSC sfp op reads tensors over all its dims",
                    )
        for d in out.replicated:
            if d not in extents:
                raise error(op, "a replicated dim with no extent")
        return _OpSpec(op, name, unit, ins, out, [*parallel, *contracted], contracted, extents, reduction)

    # -- LX ------------------------------------------------------------------------------------

    def _plan_lx(self, specs: list[_OpSpec]) -> None:
        """Offsets of the LX tensors: smallest first, each at the lowest 128-byte aligned offset
        free of the tensors live at the same time (a tensor lives from the op writing it to the
        last op reading it); torch-spyre's softmax places its five LX tensors so."""
        lx: list[_Buffer] = []
        for spec in specs:
            if spec.output.component == "lx" and spec.output not in lx:
                spec.output.first = spec.order
                spec.output.last = spec.order
                lx.append(spec.output)
            for b in spec.inputs:
                if b.component == "lx":
                    b.last = max(b.last, spec.order)
        align = self.target.stick_bytes
        placed: list[tuple[_Buffer, int, int]] = []
        for b in sorted(lx, key=lambda b: (self._lx_bytes(b), b.first)):
            size = -(-self._lx_bytes(b) // align) * align
            busy = sorted((start, end) for o, start, end in placed if o.first <= b.last and b.first <= o.last)
            offset = 0
            for start, end in busy:
                if offset + size <= start:
                    break
                offset = max(offset, end)
            if offset + size > self.target.lx_bytes:
                op = next(s.op for s in specs if s.output is b)
                raise error(
                    op,
                    f"the SuperDSC's LX tensors live at once need {offset + size} bytes per core; LX holds {self.target.lx_bytes}",
                )
            b.lx_offset = offset
            placed.append((b, offset, offset + size))

    def _stick_of(self, b: _Buffer, at: Operation):
        """The dim a tensor's sticks run along: for HBM, the dim of its view's unit-stride axis; for LX,
        the one of its dims that is some HBM tensor's stick dim (the host-last of several)."""
        if b.component == "hbm":
            assert b.access is not None
            acc = b.access
            value = acc.op.result if isinstance(acc.op, LoadOp) else acc.op.data_tile  # pyright: ignore[reportAttributeAccessIssue]
            for k, s in enumerate(_strides(acc.view)):
                if s == 1:
                    return self._ldim((value, k), at)[0]
            raise error(at, "this HBM tensor has no unit-stride axis: a SuperDSC tensor's sticks are contiguous")
        held = [*b.dims, *b.replicated]
        sticks = [d for d in held if d in self.stick_ldims]
        if not sticks:
            raise error(at, "no dim of this tensor is laid in sticks in HBM: the SuperDSC has no stick dim for it")
        if len(sticks) > 1:
            host = self._host_order(held, at)
            return max(sticks, key=host.index)
        return sticks[0]

    def _lanes(self, b: _Buffer) -> int:
        return self.target.stick_bytes // self.target.element_bytes(b.element_type)

    def _lx_bytes(self, b: _Buffer) -> int:
        lanes = self._lanes(b)
        count = 1
        stick = self._stick_of(b, self.group)
        for d in b.dims:
            n = b.extents[d]
            count *= -(-n // lanes) * lanes if d == stick else n
        for _ in b.replicated:
            count *= lanes
        return count * self.target.element_bytes(b.element_type)

    # -- the SuperDSCs ---------------------------------------------------------------------------

    def _host_order(self, dims: Sequence, at: Operation) -> list:
        wanted = set(dims)
        for nodes in self.host_ldims:
            order = [self.ldims.find(n) for n in nodes]
            if set(order) == wanted and len(order) == len(wanted):
                return order
        raise error(
            at, "the dims of this op are not the dims of any tensor of the kernel: the SuperDSC cannot name them"
        )

    def _layout(self, b: _Buffer, sizes: dict, at: Operation) -> tuple[list, object]:
        """(layoutDimOrder_ as logical dims, innermost first; the stick dim) of a buffer."""
        held = [*b.dims, *b.replicated]
        stick = self._stick_of(b, at)
        if b.component == "lx":
            host = self._host_order(held, at) if len(held) > 1 else held
            order = host[:1] + host[:0:-1]
            return order, stick
        assert b.access is not None
        acc = b.access
        value = acc.op.result if isinstance(acc.op, LoadOp) else acc.op.data_tile  # pyright: ignore[reportAttributeAccessIssue]
        strides = _strides(acc.view)
        sticks = [stick]
        lanes = self._lanes(b)
        component_stride: dict = {}
        for ldim, parts in self._dims_of(value, at).items():
            if ldim == sticks[0]:
                lo = [(k, m, n) for k, m, n in parts if strides[k] == 1]
                hi = [(k, m, n) for k, m, n in parts if strides[k] != 1]
                if not lo or (hi and (len(hi) != 1 or hi[0][1] != lanes or lo[0][2] != lanes)):
                    raise error(
                        at,
                        f"this HBM tensor's sticks are not {lanes} contiguous elements of its stick dim: no SuperDSC layout has it",
                    )
                component_stride[ldim] = strides[hi[0][0]] if hi else lanes
            else:
                if len(parts) != 1:
                    raise error(at, "this HBM tensor splits a dim that is not its stick dim: no SuperDSC layout has it")
                component_stride[ldim] = strides[parts[0][0]]
        # A dim of one component (one stick, one row) in the whole tensor has no stride that matters:
        # it goes first among equal strides (a row-major [M, 1, 64] is ["out", "mb"]), unchecked.
        single = {d for d in component_stride if (sizes[d] // lanes if d == sticks[0] else sizes[d]) == 1}
        order = sorted(component_stride, key=lambda d: (component_stride[d], d not in single))
        expected = lanes
        for d in order:
            if d in single:
                continue
            if component_stride[d] != expected:
                raise error(
                    at,
                    f"this HBM tensor's layout (strides {strides}) is not a whole tensor's stick layout over the op's extents: a SuperDSC cannot address it",
                )
            whole = sizes[d]
            expected *= whole // lanes if d == sticks[0] else whole
        return order, sticks[0]

    def _superdscs(self, specs: list[_OpSpec], origins: dict, loops: list[LoopOp]) -> Dispatch:
        self._plan_lx(specs)
        out: list[SdscOp] = []
        cores = len(self.cores)
        for spec in specs:
            parallel = [d for d in spec.ldims if d not in spec.contracted]
            order = self._host_order(parallel, spec.op) if len(parallel) > 1 else parallel
            if len(order) not in DIM_NAMES or len(spec.contracted) > 1:
                raise error(
                    spec.op,
                    f"an op over {len(order)} dims (and {len(spec.contracted)} contracted) has no SuperDSC dim names: torch-spyre names 1 to 3",
                )
            names = dict(zip(order, DIM_NAMES[len(order)]))
            if spec.contracted:
                names[spec.contracted[0]] = "in"
            ldims = [*order, *spec.contracted]
            slices: dict = {}
            counts: dict = {}
            for d in ldims:
                size = spec.extents[d]
                per_core = origins.get(d, [0] * cores)
                if any(o % size for o in per_core) or sorted(set(per_core)) != [
                    k * size for k in range(len(set(per_core)))
                ]:
                    raise error(
                        spec.op,
                        f"the cores' slices along {names[d]} start at {sorted(set(per_core))}: not a regular split into slices of {size}",
                    )
                slices[d] = [o // size for o in per_core]
                counts[d] = len(set(per_core))
            tuples = {tuple(slices[d][c] for d in ldims) for c in range(cores)}
            if len(tuples) != cores:
                raise error(
                    spec.op,
                    f"the kernel's {cores} cores compute {len(tuples)} distinct slices of this op: a SuperDSC splits an op's work across its cores",
                )
            if spec.reduction or spec.unit == "pt":
                for d in spec.output.replicated + spec.contracted:
                    if counts[d] > 1:
                        raise error(
                            spec.op,
                            f"this op reduces along {names[d]}, which the cores split: a SuperDSC reduces within a core",
                        )
            out.append(self._superdsc(spec, ldims, names, slices, counts))
        return Dispatch([loop.static_count for loop in loops], out, self.outer_counts)  # pyright: ignore[reportArgumentType]

    def _superdsc(self, spec: _OpSpec, ldims: list, names: dict, slices: dict, counts: dict) -> SdscOp:
        cores = len(self.cores)
        tensors = [*spec.inputs, spec.output]
        labeled: list[LabeledDs] = []
        schedule: list[Allocation] = []
        operands: list[Operand] = []
        layouts = []
        for i, b in enumerate(tensors):
            order, stick = self._layout(b, {d: counts[d] * spec.extents[d] for d in ldims}, spec.op)
            layouts.append((order, stick))
            lanes = self._lanes(b)
            coordinates = {}
            for d in order:
                size, count = spec.extents[d], counts[d]
                if d in b.replicated:
                    folds = [
                        Fold("core_fold", count, lanes),
                        Fold("corelet_fold", 1, 0),
                        Fold("row_fold", 1, 0),
                        Fold("elem_arr_1", 1, lanes),
                        Fold("elem_arr_0", lanes, 0),
                    ]
                    coordinates[names[d]] = DimCoordinates(folds, elem_arr=2)
                elif d == stick:
                    if size % lanes:
                        raise error(
                            spec.op,
                            f"each core's slice along {names[d]} is {size} elements: not whole sticks of {lanes}",
                        )
                    folds = [
                        Fold("core_fold", count, size),
                        Fold("corelet_fold", 1, 0),
                        Fold("row_fold", 1, 0),
                        Fold("elem_arr_1", size // lanes, lanes),
                        Fold("elem_arr_0", lanes, 1),
                    ]
                    coordinates[names[d]] = DimCoordinates(folds, elem_arr=2)
                else:
                    folds = [
                        Fold("core_fold", count, size),
                        Fold("corelet_fold", 1, 0),
                        Fold("row_fold", 1, 0),
                        Fold("elem_arr_0", size, 1),
                    ]
                    coordinates[names[d]] = DimCoordinates(folds, elem_arr=1)
            if b.component == "hbm":
                assert b.access is not None
                symbols: dict[int, int] = {}
                start = {}
                for c in range(cores):
                    offset = b.access.offsets[c]
                    if offset not in symbols:
                        symbols[offset] = self.symbols.take()
                        operands.append(Operand(symbols[offset], b.access.param, offset, b.access.loop_strides))
                    start[c] = symbols[offset]
                symbolic: bool | None = True
            else:
                start = {c: b.lx_offset for c in range(cores)}
                symbolic = None
            schedule.append(
                Allocation(
                    f"allocate-Tensor{i}_{b.component}",
                    i,
                    b.component,
                    [names[d] for d in order],
                    start,  # pyright: ignore[reportArgumentType]
                    coordinates,
                    start_addr_symbolic=symbolic,
                )
            )
            fmt = self._format(b, spec.op)
            ds_type = ("INPUT", "KERNEL", "OUTPUT")[i] if spec.unit == "pt" else "OUTPUT"
            mem = {"hbm": 1, "lx": 1} if b.component == "hbm" else {"lx": 1}
            scale = [-2 if d in b.replicated else 1 for d in order]
            labeled.append(
                LabeledDs(i, f"Tensor{i}", ds_type, scale, fmt, self.target.element_bytes(b.element_type), mem)
            )
        info_of = {"OUTPUT": len(tensors) - 1} if spec.unit == "sfp" else {"INPUT": 0, "KERNEL": 1, "OUTPUT": 2}
        primary = {}
        for kind, i in info_of.items():
            order, stick = layouts[i]
            primary[kind] = DsInfo([names[d] for d in order], [names[stick]], [self._lanes(tensors[i])])
        if spec.unit == "sfp" and len({s for _, s in layouts}) != 1:
            raise error(spec.op, "the tensors of this op have different stick dims: an sfp op's tensors share one")
        label = [ds.label for ds in labeled]
        inputs = label[:-1] + ([label[-1]] if spec.reduction else [])
        compute = ComputeOp(spec.unit, spec.name, inputs, [label[-1]], labeled[-1].data_format)
        dsc = Dsc(
            spec.name,
            {names[d]: counts[d] * spec.extents[d] for d in ldims},
            {names[d]: spec.extents[d] for d in ldims},
            primary,
            schedule,
            labeled,
            [compute],
            list(range(cores)),
        )
        index = self.first_index + spec.order
        loc = location_of(spec.op)
        debug = {
            "id": f"{self.group.sym_name.data}:{spec.order}",
            "source": {
                "file": loc.file,
                "start_line": loc.line,
                "start_col": loc.col,
                "end_line": None,
                "end_col": None,
            }
            if loc
            else None,
            "aten_op": None,
            "ir_chain": [spec.op.name, self.group.sym_name.data],
            "fused_from": [],
            "transform_history": [],
        }
        sdsc = SuperDsc(
            f"{index}_{spec.name}",
            cores,
            {names[d]: counts[d] for d in ldims},
            {c: {names[d]: slices[d][c] for d in ldims} for c in range(cores)},
            [dsc],
            debug_handle=debug,
        )
        return SdscOp(sdsc, operands, spec.op)

    def _format(self, b: _Buffer, at: Operation) -> str:
        for kind, name in DATA_FORMATS.items():
            if isinstance(b.element_type, kind):
                return name
        raise error(at, f"a tensor of {b.element_type} has no SuperDSC data format (f16, f32, bf16)")
