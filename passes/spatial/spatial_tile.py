"""spatial-tile: lower a KTIR kernel to the per-site block plan of a spatial program.

A KTIR kernel is a per-core program. This pass writes, for every point of
the kernel's `grid`, a site (a logical core coordinate) with three engines,
"load", "compute" and "store", and splits the kernel's body for that site
into the work of each engine:

- every `ktdp.load` of a box tile from a global memory view becomes a load
  stage filling a FIFO buffer, its tile origin an affine map of the step's
  loop numbers (`origin`);
- every `ktdp.store` becomes a store stage draining a FIFO buffer;
- a load or store whose tile may reach outside its view on this site (a
  tail tile, rows or columns past the view's end) gets a `masked` stage
  (`MASKED_ATTR`): its elements outside the tensor load 0 and are not
  stored, as the source's access under the interpreter's default;
- the compute ops between two loops of one block (a "run") become one
  compute stage, whose body is those ops on tiles (KTIR ops, run by the
  interpreter's own handlers);
- every `scf.for` becomes a `spatial.loop` in each of the three engines
  (its count fixed per site), so the engines walk the same loop nest;
- a tensor passed from one run to another (a loop-carried value, a value
  computed before a loop and used in it) lives in a local buffer of the
  compute engine; a loop's iteration arguments, its results and the values
  its body yields share one local. A scalar crossing runs lives in a
  one-element local.

Index arithmetic (`ktdp.get_compute_tile_id`, the kernel's scalar
arguments, loop numbers, `arith` on indices, `affine.apply`) is evaluated
per site into affine expressions of the loop numbers; it is never copied to
an engine except as the `origin` of a step or, where a compute op uses an
index, materialized in the compute body from its loop-number arguments.

Scalar arguments are runtime inputs: each becomes a `spatial.scalar` without
a value, a parameter of the program. A compute op reading one (a float
`%alpha`, an integer, an index cast of one) reads it in its compute stage,
which names it (`scalars(@alpha)`, one body argument after the tiles). A loop
whose upper bound is an index scalar (or a `!ktdp.runtime_arg`'s value) runs
to a `spatial.trip` from it, `per` its step, `bias` minus its lower bound,
whose admitted range comes from the argument's `!ktdp.runtime_arg` upperbound
and granularity, else its `spyre.admit = {upperbound = U[, granularity = G]}`
argument attribute, else the views the loop's tiles overlap (the greatest
count for which every tile moved along the loop overlaps its view, the
least over sites and loops of one scalar); a loop no tile moves along, with no
stated range, is refused naming what to add. A scalar that an address, a tile
origin, a condition or a loop's lower bound or step is computed from must be
specialized: its value comes from the pass option
`scalars="K=2048,BLOCK_SIZE=128"` or the kernel's
`spyre.specialize = {K = 2048 : index}` attribute (one located error names
every such scalar without a value), and becomes a `spatial.scalar` with that
value, which the program checks when it is run (a different value is refused
before anything runs). Any scalar may be specialized so, to fold it. Pointer
arguments (the bases of global memory views) become `spatial.tensor`s named
after them.

Refused with a located error, before anything changes: a scalar argument an
address, origin, condition, loop step or lower bound is computed from whose
value is not given, a loop to a runtime scalar with no admitted range, a loop
whose bounds are otherwise not constant per site, a
non-affine index, a memory view that is not one address per element
(overlapping or negative strides; a strided or transposed view is a strided
`spatial.tensor`, `memref<32x256xf32, strided<[1, 32]>>`, whose tiles move
the elements at its strides) or that disagrees with another view of the same
pointer, a tile that is not a
box in order, a dynamic or rank-0 tensor crossing runs, control flow other
than `scf.for` and `scf.if` on conditions fixed per site, calls, and loads
of tiles nothing uses.

A load of what a store of the same kernel wrote is ordered through HBM by a
semaphore (`hbm_order`): the load engine runs ahead of the store engine.

Before (`grid = [2]`):

    func.func @add(%x: index, %z: index) attributes {grid = [2]} {
      %c = ktdp.get_compute_tile_id : index
      %o = arith.muli %c, %c64 : index
      %xv = ktdp.construct_memory_view %x, sizes: [128], strides: [1] ...
      %t = ktdp.construct_access_tile %xv[%o] ... -> !ktdp.access_tile<64xindex>
      %a = ktdp.load %t ...
      %s = arith.addf %a, %a : tensor<64xf16>
      ktdp.store %s, %u ...

After:

    spatial.program @add attributes {spatial.phase = "tiled", grid = [2]} {
      spatial.tensor @x : memref<128xf16>
      spatial.site @b1 at [1] engines ["load", "compute", "store"]
      spatial.buffer @b1_in0 on @b1 : !spatial.tile<64xf16> depth 1
      spatial.stage @b1_ld0 load @x -> @b1_in0 on @b1 engine "load" origin affine_map<() -> (64)>
      spatial.stage @b1_cp0 compute(@b1_in0) -> @b1_out0 on @b1 engine "compute" { ... }
      spatial.edge @b1_e0 from @b1_ld0 to @b1_cp0 via @b1_in0 : !spatial.tile<64xf16>
      spatial.engine @b1 "load" { spatial.load_step @b1_ld0 }
      ...
    }
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import affine, arith, func, scf, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.analysis.affine import box_bounds, permutation_of
from spyre_mlir.analysis.grid import DEFAULT_GRID_ORDER, GRID_ORDERS, grid_attr, linear_id
from spyre_mlir.analysis.loops import trip_count
from spyre_mlir.diagnostics import error, warning
from spyre_mlir.dialects import spatial
from spyre_mlir.dialects.ktdp import (
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    GetComputeTileIdOp,
    LoadOp,
    RuntimeArgExtractOp,
    RuntimeArgType,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.spyre import ADMIT_ATTR, SPECIALIZE_ATTR
from spyre_mlir.passes.options import parse_scalars

UNUSED_ARGS_ATTR = "spatial.unused_args"
"""Program attribute: the kernel's arguments the program does not use (it takes and ignores them)."""
UNUSED_ARG_TYPES_ATTR = "spatial.unused_arg_types"
"""Program attribute: their types, in the same order (the program takes each of its type)."""
HBM_ORDER_ATTR = spatial.HBM_ORDER_ATTR
MASKED_ATTR = spatial.MASKED_ATTR

ENGINES = ("load", "compute", "store")

PROVEN = "the views its tiles overlap"
"""Where the admitted range of a trip proven from its loop's tiles comes from."""

PROBE_COUNT = 2**61 - 1
"""The count a loop running to a runtime scalar gets while spatial-tile proves its admitted
range from its body's tiles (`SiteLowering._proven_admission`): more than any real count."""

MAX_BLOCKS = 4096
"""The most grid blocks spatial-tile lowers (one site each, before spatial-place folds
them onto the cores): 128 per core of a 32-core Spyre."""

_INDEX_OPS = (
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.DivUIOp,
    arith.DivSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.RemUIOp,
    arith.RemSIOp,
    arith.IndexCastOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.MinUIOp,
    arith.MaxUIOp,
    affine.ApplyOp,
    arith.CmpiOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
)
"""Integer ops evaluated per site (into affine expressions of the loop numbers)
when all their operands are."""


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IndexType | IntegerType)


# ---------------------------------------------------------------------------
# Partition: runs of compute ops between loops, the same for every site
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Run:
    """Ops of one block between two loops (or the block's ends): loads, compute
    ops and stores, in order. `writes` are (value, local) copies at its end: a
    loop's initial values (the run before it) or yielded values (a loop body's
    last run)."""

    ops: list[Operation] = field(default_factory=list)
    writes: list[tuple[SSAValue, SSAValue]] = field(default_factory=list)  # (value, loop variable)


@dataclass(eq=False)
class Loop:
    op: scf.ForOp
    body: list  # of Run | Loop | If


@dataclass(eq=False)
class If:
    """An `scf.if` whose condition each site evaluates: only the branch taken is lowered."""

    op: scf.IfOp
    then: list
    other: list


class Partition:
    """The kernel body as a tree of runs and loops, with what each run uses."""

    def __init__(self, kernel: func.FuncOp, static: set[SSAValue], runtime: dict[SSAValue, SSAValue]):
        self.static = static
        self.runtime = runtime
        self.runs: list[Run] = []
        self.loop_var: dict[SSAValue, SSAValue] = {}  # iter arg / loop result -> its loop variable (the iter arg)
        self.tree = self._block(kernel.body.block, top=True)

    def _new_run(self) -> Run:
        run = Run()
        self.runs.append(run)
        return run

    def _block(self, block: Block, top: bool = False, loop: scf.ForOp | None = None,
               branch: scf.IfOp | None = None) -> list:
        items: list = []
        run = self._new_run()
        items.append(run)
        for op in block.ops:
            if isinstance(op, scf.ForOp):
                for init, arg in zip(op.iter_args, op.body.block.args[1:]):
                    run.writes.append((init, arg))
                for arg, res in zip(op.body.block.args[1:], op.results):
                    self.loop_var[arg] = arg
                    self.loop_var[res] = arg
                items.append(Loop(op, self._block(op.body.block, loop=op)))
                run = self._new_run()
                items.append(run)
            elif isinstance(op, scf.IfOp):
                if op.cond not in self.static:
                    raise error(op, "spatial-tile: this scf.if's condition is computed from data; only conditions "
                                "fixed per site (tile coordinates, scalars, loop numbers) are lowered, since "
                                "data-dependent control flow has no static choreography")
                for res in op.results:
                    self.loop_var[res] = res
                then = self._block(op.true_region.block, branch=op)
                other = self._block(op.false_region.block, branch=op) if op.false_region.blocks else [self._new_run()]
                items.append(If(op, then, other))
                run = self._new_run()
                items.append(run)
            elif isinstance(op, scf.YieldOp) and branch is not None:
                for value, res in zip(op.operands, branch.results):
                    run.writes.append((value, res))
            elif isinstance(op, scf.YieldOp) and loop is not None:
                for value, arg in zip(op.operands, loop.body.block.args[1:]):
                    run.writes.append((value, arg))
            elif isinstance(op, func.ReturnOp) and top:
                if op.operands:
                    raise error(op, "spatial-tile: a kernel returns nothing (its results go to memory through ktdp.store)")
            elif op.results and all(r in self.static for r in op.results):
                continue  # evaluated per site
            elif op.results and all(r in self.runtime for r in op.results):
                continue  # a runtime scalar: read by a trip, or rebuilt in each compute body that uses it
            elif isinstance(op, RuntimeArgExtractOp):
                continue  # a runtime_arg's granularity or upperbound: a constant, evaluated per site
            elif isinstance(op, arith.ConstantOp):
                continue  # rebuilt in each compute body that uses it
            elif isinstance(op, ConstructMemoryViewOp | ConstructAccessTileOp | GetComputeTileIdOp):
                continue  # evaluated per site (a view or tile not statically known is refused where used)
            elif isinstance(op, scf.WhileOp | scf.ParallelOp | scf.IndexSwitchOp):
                raise error(
                    op,
                    f"spatial-tile: '{op.name}' is not lowered to a spatial program (only scf.for loops with "
                    "bounds fixed per site; data-dependent control flow has no static choreography)",
                )
            elif isinstance(op, func.CallOp):
                raise error(op, "spatial-tile: calls are not lowered to a spatial program (inline the callee first)")
            elif isinstance(op, LoadOp | StoreOp):
                if isinstance(op, LoadOp) and any(isinstance(o, StoreOp) and _base_of(o) == _base_of(op)
                                                  for o in run.ops):
                    # a load of what this run stores: a new compute stage, after the store (ordered through HBM)
                    run = self._new_run()
                    items.append(run)
                run.ops.append(op)
            else:
                _check_compute_op(op)
                run.ops.append(op)
        return items


# ---------------------------------------------------------------------------
# Per-site evaluation of index values
# ---------------------------------------------------------------------------


class Site:
    """Affine values of one site: index SSA values -> AffineExpr over the loop numbers."""

    def __init__(self, coords: tuple[int, ...], scalars: dict[SSAValue, object], grid: Sequence[int] = (),
                 grid_order: str = DEFAULT_GRID_ORDER, runtime: dict[SSAValue, SSAValue] | None = None):
        self.coords = coords
        self.runtime = runtime or {}
        self.grid = tuple(grid) or tuple(1 for _ in coords)
        self.grid_order = grid_order
        self.values: dict[SSAValue, AffineExpr] = {}
        for value, v in scalars.items():
            if _is_int(value.type):
                self.values[value] = AffineExpr.constant(int(v))

    def expr(self, value: SSAValue, where: Operation) -> AffineExpr:
        if value in self.values:
            return self.values[value]
        owner = value.owner
        if isinstance(owner, GetComputeTileIdOp):
            i = list(owner.results).index(value)
            if len(owner.results) == 1 and len(self.coords) > 1:
                # one result on a multi-dimensional grid: the linear tile id (analysis/grid.py)
                result = AffineExpr.constant(linear_id(self.coords, self.grid, self.grid_order))
            elif i >= len(self.coords):
                raise error(owner, f"spatial-tile: asks for tile coordinate {i} of a grid of rank {len(self.coords)}")
            else:
                result = AffineExpr.constant(self.coords[i])
        elif isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            result = AffineExpr.constant(int(owner.value.value.data))
        elif isinstance(owner, RuntimeArgExtractOp) and owner.kind.data != "value":
            result = AffineExpr.constant(getattr(owner.input.type, owner.kind.data).data)
        elif value in self.runtime:
            name = self.runtime[value].name_hint
            raise error(
                where,
                f"spatial-tile: this index is computed from %{name}, a runtime scalar: a spatial program fixes its "
                "addresses, tile origins, conditions and loop bounds per site when it is built, and only a loop's "
                f"upper bound may be read when it runs (a trip); specialize it (scalars=\"{name}=...\" or the "
                f"kernel's {SPECIALIZE_ATTR})",
            )
        elif isinstance(owner, _INDEX_OPS):
            result = self._op(owner, where)
        else:
            if not isinstance(owner, Operation):
                what = "a block argument (not a loop number of an scf.for)"
            elif any(isinstance(v.type, TensorType) for v in owner.operands):
                what = f"'{owner.name}' from a tensor: it is read from data"
            else:
                what = f"'{owner.name}', which spatial-tile does not evaluate"
            raise error(
                where,
                f"spatial-tile: this index is computed by {what}; a spatial program fixes its addresses and loop "
                "bounds when it is built, as affine expressions of the loop numbers, the tile coordinates and the "
                "scalar arguments",
                *([(owner, "computed here")] if isinstance(owner, Operation) else []),
            )
        self.values[value] = result
        return result

    def const(self, value: SSAValue, where: Operation, what: str) -> int:
        e = self.expr(value, where)
        if e.used_dims():
            raise error(where, f"spatial-tile: {what} is {e} here, which depends on an enclosing loop; a spatial "
                        "loop's count is fixed per site")
        return int(AffineMap(0, 0, (e,)).eval([], [])[0])

    def _boolean(self, op: Operation, a: list[AffineExpr]) -> int:
        """A comparison or boolean op of values fixed per site: 0 or 1."""
        consts = [_const(e) for e in a]
        if None in consts:
            raise error(op, f"spatial-tile: this '{op.name}' varies with an enclosing loop; only conditions fixed "
                        "per site are evaluated")
        x, y = consts
        if isinstance(op, arith.CmpiOp):
            return int(_CMPI[int(op.predicate.value.data)](x, y))
        if isinstance(op, arith.AndIOp):
            return int(x) & int(y)
        if isinstance(op, arith.OrIOp):
            return int(x) | int(y)
        return int(x) ^ int(y)

    def _op(self, op: Operation, where: Operation) -> AffineExpr:
        if isinstance(op, affine.ApplyOp):
            amap = op.map.data
            ops = [self.expr(v, where) for v in op.mapOperands]
            dims, syms = ops[: amap.num_dims], ops[amap.num_dims :]
            try:
                return amap.results[0].replace_dims_and_symbols(dims, syms) if len(amap.results) == 1 else None  # type: ignore[return-value]
            except (ValueError, NotImplementedError) as exc:
                raise error(where, f"spatial-tile: the index of this op is not affine per site ({exc})") from None
        a = [self.expr(v, where) for v in op.operands]
        if isinstance(op, arith.CmpiOp | arith.AndIOp | arith.OrIOp | arith.XOrIOp):
            return AffineExpr.constant(self._boolean(op, a))
        try:
            if isinstance(op, arith.IndexCastOp):
                return a[0]
            if isinstance(op, arith.AddiOp):
                return a[0] + a[1]
            if isinstance(op, arith.SubiOp):
                return a[0] - a[1]
            if isinstance(op, arith.MuliOp):
                return a[0] * a[1]
            consts = [_const(e) for e in a]
            if isinstance(op, arith.MinSIOp | arith.MinUIOp | arith.MaxSIOp | arith.MaxUIOp):
                if None in consts:
                    raise ValueError("min/max of values that vary with a loop")
                pick = min if isinstance(op, arith.MinSIOp | arith.MinUIOp) else max
                return AffineExpr.constant(pick(consts))  # type: ignore[type-var]
            if consts[1] is None or consts[1] <= 0:
                raise ValueError("division by a value that is not a positive constant")
            if isinstance(op, arith.CeilDivSIOp | arith.CeilDivUIOp):
                return a[0].ceil_div(a[1])
            if isinstance(op, arith.RemUIOp | arith.RemSIOp):
                return a[0] % a[1]
            return a[0] // a[1]
        except (ValueError, NotImplementedError) as exc:
            raise error(op, f"spatial-tile: this index is not affine per site ({str(exc).splitlines()[0]})") from None


_CMPI = {
    0: lambda x, y: x == y, 1: lambda x, y: x != y,
    2: lambda x, y: x < y, 3: lambda x, y: x <= y, 4: lambda x, y: x > y, 5: lambda x, y: x >= y,
    6: lambda x, y: x % 2**64 < y % 2**64, 7: lambda x, y: x % 2**64 <= y % 2**64,
    8: lambda x, y: x % 2**64 > y % 2**64, 9: lambda x, y: x % 2**64 >= y % 2**64,
}
"""arith.cmpi predicates (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge) on Python integers."""


def _const(e: AffineExpr) -> int | None:
    if e.used_dims():
        return None
    return int(AffineMap(0, 0, (e,)).eval([], [])[0])


def _static_values(kernel: func.FuncOp, scalars: dict[SSAValue, object]) -> set[SSAValue]:
    """Values evaluated per site: integer scalars, tile coordinates, integer
    constants and integer ops of static values, loop numbers."""
    static: set[SSAValue] = {v for v in scalars if _is_int(v.type)}
    for op in kernel.walk():
        if isinstance(op, scf.ForOp):
            static.add(op.body.block.args[0])
        elif isinstance(op, GetComputeTileIdOp):
            static.update(op.results)
        elif isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr) and _is_int(op.result.type):
            static.add(op.result)
        elif isinstance(op, _INDEX_OPS) and all(v in static for v in op.operands) and all(_is_int(r.type) for r in op.results):
            static.update(op.results)
        elif isinstance(op, RuntimeArgExtractOp) and op.kind.data != "value":
            static.add(op.result)
    return static


def _runtime_values(kernel: func.FuncOp, runtime_args: dict[SSAValue, str]) -> dict[SSAValue, SSAValue]:
    """Values that are a runtime scalar argument, read when the program runs: the
    argument itself, a `ktdp.runtime_arg_extract value` of it and an `arith.index_cast`
    of either -> the argument."""
    out: dict[SSAValue, SSAValue] = {a: a for a in runtime_args}
    for op in kernel.walk():
        if isinstance(op, RuntimeArgExtractOp) and op.kind.data == "value" and op.input in out:
            out[op.result] = out[op.input]
        elif isinstance(op, arith.IndexCastOp) and op.input in out:
            out[op.result] = out[op.input]
    return out


# ---------------------------------------------------------------------------
# The lowering of one kernel
# ---------------------------------------------------------------------------


def _tile_type(t: Attribute, where: Operation, what: str) -> spatial.TileType:
    if not isinstance(t, TensorType) or any(d <= 0 for d in t.get_shape()) or not t.get_shape():
        raise error(where, f"spatial-tile: {what} of type {t} cannot be a tile (a tile has a static shape of "
                    "positive dims)")
    return _tile(t.get_shape(), t.get_element_type(), where, what)


def _tile(shape: Sequence[int], element: Attribute, where: Operation, what: str) -> spatial.TileType:
    """A tile type, its element type checked first (a located error rather than the type's own)."""
    if not (isinstance(element, IntegerType) or _is_float_type(element)):
        raise error(where, f"spatial-tile: {what} has elements of type {element}; a tile holds integers of a "
                    "fixed width or floats")
    return spatial.TileType(shape, element)


class KernelLowering:
    """Builds the `spatial.program` of one kernel (phase "tiled")."""

    def __init__(self, kernel: func.FuncOp, given: dict[str, str], grid: list[int] | None = None,
                 grid_order: str = DEFAULT_GRID_ORDER):
        self.kernel = kernel
        self.grid_order = grid_order
        self.name = kernel.sym_name.data
        self.grid = grid or list(grid_attr(kernel) or (1,))
        self.decls: list[Operation] = []
        self.tensors: dict[SSAValue, str] = {}  # pointer argument -> tensor symbol
        self.runtime_args: dict[SSAValue, str] = {}  # runtime scalar argument -> its spatial.scalar
        self.trips: dict[tuple, str] = {}  # (scalar, per, bias, admitted, granularity) -> trip symbol
        self.trip_decls: list[Operation] = []
        self.proven: set[str] = set()  # trips whose admitted range is proven from views
        self.scalars = self._scalars(given)
        self.static = _static_values(kernel, self.scalars)
        self.runtime = _runtime_values(kernel, self.runtime_args)
        self._refuse_unspecialized()
        self.partition = Partition(kernel, self.static, self.runtime)
        self._tensors()
        self.hbm_orders = self._hbm_orders()
        self.used_outside = self._crossing()

    # -- arguments ----------------------------------------------------------

    def _scalars(self, given: dict[str, str]) -> dict[SSAValue, object]:
        """The specialized scalar arguments and their values (`scalars=`, `spyre.specialize`);
        every other scalar argument a kernel uses is a runtime input of the program (a
        `spatial.scalar` without a value, recorded in `runtime_args`)."""
        attr = self.kernel.attributes.get(SPECIALIZE_ATTR)
        from_attr: dict[str, Attribute] = dict(attr.data) if isinstance(attr, DictionaryAttr) else {}
        out: dict[SSAValue, object] = {}
        for i, arg in enumerate(self.kernel.body.block.args):
            name = arg.name_hint or f"arg{i}"
            if isinstance(arg.type, IndexType) and any(isinstance(u.operation, ConstructMemoryViewOp) and
                                                       u.operation.offset is arg for u in arg.uses):
                continue  # a pointer: a tensor
            if not arg.uses:
                continue
            ty = arg.type.underlying if isinstance(arg.type, RuntimeArgType) else arg.type
            if not (_is_int(ty) or _is_float_type(ty)):
                raise error(self.kernel, f"spatial-tile: argument %{name} of type {arg.type} cannot be lowered "
                            "(a spatial program takes tensors and integer or float scalars)")
            if name in given:
                text = given[name]
                try:
                    value = int(text, 0) if _is_int(ty) else float(text)
                except ValueError:
                    raise error(self.kernel, f"spatial-tile: scalars: '{name}={text}' is not a number of type "
                                f"{ty}") from None
            elif name in from_attr and isinstance(from_attr[name], IntegerAttr | FloatAttr):
                value = from_attr[name].value.data  # type: ignore[union-attr]
                value = int(value) if _is_int(ty) else float(value)
            else:
                self.runtime_args[arg] = name
                self.decls.append(_at(spatial.ScalarOp(name, ty), self.kernel))
                continue
            if isinstance(arg.type, RuntimeArgType):
                raise error(self.kernel, f"spatial-tile: scalars: %{name} is a !ktdp.runtime_arg, a launch-time "
                            "value: it is read when the program runs, never specialized")
            if _is_int(ty) and not -(2**63) <= int(value) < 2**63:
                raise error(self.kernel, f"spatial-tile: scalars: {name} = {value} does not fit in 64 bits")
            out[arg] = value
        for arg, value in out.items():
            try:
                self.decls.append(_at(spatial.ScalarOp(arg.name_hint or "arg", arg.type, value), self.kernel))
            except VerifyException as exc:  # a value the type cannot hold
                raise error(self.kernel, f"spatial-tile: scalars: %{arg.name_hint} = {value}: {exc}") from None
        return out

    def _refuse_unspecialized(self) -> None:
        """Every runtime scalar that an address, a tile origin, a condition or a loop's lower
        bound or step is computed from, named in one located error: the program fixes those
        per site when it is built. A loop's upper bound that is the scalar itself is a trip."""
        needs: list[SSAValue] = []
        for arg in self.runtime_args:
            slice_ = {arg}
            for op in self.kernel.walk():  # forward slice through index arithmetic, in program order
                reads_value = isinstance(op, RuntimeArgExtractOp) and op.kind.data == "value"
                if (reads_value or isinstance(op, _INDEX_OPS)) and any(v in slice_ for v in op.operands):
                    slice_.update(op.results)
            user = next((u.operation for v in slice_ for u in v.uses
                         if self._fixes_structure(u.operation, u.index, v)), None)
            if user is not None and isinstance(arg.type, RuntimeArgType):
                raise error(user, f"spatial-tile: this op is computed from %{self.runtime_args[arg]}, a "
                            "!ktdp.runtime_arg (a launch-time value): a spatial program fixes its addresses, tile "
                            "origins, conditions and loop lower bounds and steps when it is built, so it reads a "
                            "runtime_arg only as a loop's upper bound (a trip) or in compute ops")
            if user is not None:
                needs.append(arg)
        if not needs:
            return
        names = [self.runtime_args[a] for a in needs]
        listed = ", ".join(f"%{n} ({a.type})" for n, a in zip(names, needs))
        one = len(needs) == 1
        raise error(
            self.kernel,
            f"spatial-tile: the spatial program of @{self.name} is specialized for the scalar arguments its "
            f"addresses, tile origins, conditions and loop steps are computed from, and {len(needs)} of them "
            f"{'has' if one else 'have'} no value: {listed}; pass scalars=\"{','.join(n + '=...' for n in names)}\" "
            f"or put {'it' if one else 'them'} in the kernel's {SPECIALIZE_ATTR} = "
            f"{{{', '.join(n + ' = ...' for n in names)}}} (other scalars are runtime inputs: a compute op may read "
            "one, and a loop may run to one, a trip)",
        )

    def _fixes_structure(self, user: Operation, index: int, value: SSAValue) -> bool:
        """Whether operand `index` of `user`, `value`, is fixed per site when the program is built."""
        if isinstance(user, ConstructAccessTileOp | ConstructMemoryViewOp | scf.IfOp | scf.WhileOp):
            return True
        if isinstance(user, scf.ForOp):
            return index in (0, 2) or (index == 1 and value not in self.runtime)
        return False

    def admitted(self, arg: SSAValue) -> tuple[int, int, int, str] | None:
        """(lo, hi, granularity, where it is stated) of a runtime index scalar: from its
        `!ktdp.runtime_arg` type's upperbound and granularity or its `spyre.admit`
        argument attribute; None when neither states an upper bound."""
        if isinstance(arg.type, RuntimeArgType) and isinstance(arg.type.upperbound, IntAttr):
            g = arg.type.granularity
            return 0, arg.type.upperbound.data, g.data if isinstance(g, IntAttr) else 1, "its !ktdp.runtime_arg type"
        assert isinstance(arg, BlockArgument)
        attrs = self.kernel.arg_attrs.data[arg.index].data if self.kernel.arg_attrs is not None else {}
        admit = attrs.get(ADMIT_ATTR)
        if admit is None:
            return None
        fields = dict(admit.data) if isinstance(admit, DictionaryAttr) else None
        if (fields is None or set(fields) - {"upperbound", "granularity"} or "upperbound" not in fields
                or not all(isinstance(v, IntegerAttr) and v.value.data > 0 for v in fields.values())):
            raise error(self.kernel, f"spatial-tile: %{self.runtime_args[arg]}'s {ADMIT_ATTR} must be "
                        "{upperbound = U[, granularity = G]} of positive integers, got " + str(admit))
        g = fields.get("granularity")
        return (0, int(fields["upperbound"].value.data), int(g.value.data) if g is not None else 1,  # type: ignore
                f"its {ADMIT_ATTR} attribute")

    def _tensors(self) -> None:
        shapes: dict[SSAValue, tuple[MemRefType, ConstructMemoryViewOp]] = {}
        for op in self.kernel.walk():
            if not isinstance(op, ConstructMemoryViewOp):
                continue
            space = normalized_memory_space(op.memory_space)
            if space is None or not space.is_global:
                raise error(op, "spatial-tile: only global (HBM) memory views are lowered; a spatial program places "
                            "its own buffers in LX")
            base = op.offset
            is_argument = isinstance(base.owner, Block) and base.owner is self.kernel.body.block
            if not is_argument and _constant_address(base) is None:
                raise error(op, "spatial-tile: the base of this memory view is neither a pointer argument of the "
                            "kernel nor a constant HBM address (a spatial.tensor is one or the other)")
            if op.sizes or op.strides:
                raise error(op, "spatial-tile: this memory view has dynamic sizes or strides")
            sizes = list(op.static_sizes.get_values())
            strides = list(op.static_strides.get_values())
            # A strided or transposed view is a strided tensor: its tiles move the elements at its strides.
            why = spatial.overlap(sizes, strides)
            if why is not None:
                raise error(op, f"spatial-tile: this memory view is not one address per element: {why}")
            box = box_bounds(op.coordinate_set.data)
            if box != [(0, s - 1) for s in sizes]:
                raise error(op, "spatial-tile: this memory view's coordinate set is not its whole box")
            t = op.result.type
            assert isinstance(t, MemRefType)
            layout = NoneAttr() if tuple(strides) == spatial.row_major(sizes) else StridedLayoutAttr(strides, 0)
            mtype = MemRefType(t.get_element_type(), sizes, layout)
            if base in shapes and shapes[base][0] != mtype:
                raise error(op, f"spatial-tile: this view of %{base.name_hint} is {mtype}, another is "
                            f"{shapes[base][0]}; a spatial.tensor has one shape",
                            (shapes[base][1], "the other view"))
            shapes[base] = (mtype, op)
        taken = {a.name_hint for a in self.scalars} | set(self.runtime_args.values())
        spans: list[tuple[int, int, ConstructMemoryViewOp]] = []
        for base, (mtype, view) in shapes.items():
            address = _constant_address(base)
            if address is None:
                name = base.name_hint or f"arg{list(self.kernel.body.block.args).index(base)}"
                assert name not in taken
                tensor = spatial.TensorOp(name, mtype)
            else:
                # data the kernel finds at a fixed HBM element address (run with interpret's hbm= preloads)
                name = f"hbm{address}"
                tensor = spatial.TensorOp(name, mtype)
                size = tensor.span
                if not 0 <= address < ADDRESS_LIMIT - size:
                    raise error(view, f"spatial-tile: this memory view's constant HBM address {address} is outside "
                                f"[0, 2^62)")
                for lo, hi, other in spans:
                    if address < hi and lo < address + size:
                        raise error(view, f"spatial-tile: this memory view at HBM element {address} overlaps another "
                                    f"at {lo}; spatial.tensors do not alias", (other, "the other view"))
                spans.append((address, address + size, view))
                tensor.attributes["address"] = IntegerAttr(address, 64)
            self.tensors[base] = name
            self.decls.append(tensor)

    def _hbm_orders(self) -> list[tuple[StoreOp, LoadOp]]:
        """(store, load) pairs of one tensor where the load may read what the store
        wrote on the same site: the store comes first in program order, or both are
        in one loop (a later iteration's load after an earlier one's store). The
        load engine runs ahead of the store engine, so each pair gets an ordering
        handshake (SiteLowering._order_hbm)."""
        self.order = {op: i for i, op in enumerate(self.kernel.walk())}
        accesses: dict[SSAValue, list[LoadOp | StoreOp]] = {}
        for op in self.kernel.walk():
            if isinstance(op, LoadOp | StoreOp) and (base := _base_of(op)) is not None:
                accesses.setdefault(base, []).append(op)
        pairs = []
        for ops in accesses.values():
            for store in (o for o in ops if isinstance(o, StoreOp)):
                for load in (o for o in ops if isinstance(o, LoadOp)):
                    if self.order[store] < self.order[load] or _loops_of(load) & _loops_of(store):
                        pairs.append((store, load))
        return pairs

    def trip(self, runtime: SSAValue, per: int, bias: int, admitted: tuple[int, int, int, str],
             where: Operation) -> str:
        """The `spatial.trip` counting ceil((v + bias) / per) of runtime scalar `runtime`,
        admitting `admitted` (one declaration per distinct trip)."""
        name = self.runtime_args[runtime]
        lo, hi, granularity, _ = admitted
        key = (name, per, bias, lo, hi, granularity)
        if key not in self.trips:
            self.trips[key] = f"trip_{name}" + (f"_{len(self.trips)}" if self.trips else "")
            self.trip_decls.append(_at(spatial.TripOp(self.trips[key], name, None, per, bias, (lo, hi),
                                                      granularity if granularity != 1 else None), where))
            if admitted[3] == PROVEN:
                self.proven.add(self.trips[key])
        return self.trips[key]

    def _narrow_proven_trips(self) -> None:
        """A scalar is one value for every site and loop: the trips proven from views
        admit, each, the values every one of them admits (the least upper bound)."""
        proven = [t for t in self.trip_decls if isinstance(t, spatial.TripOp) and t.sym_name.data in self.proven]
        least: dict[str, int] = {}
        for trip in proven:
            least[trip.source_name] = min(least.get(trip.source_name, trip.admitted[1]), trip.admitted[1])
        for trip in proven:
            hi = least[trip.source_name]
            trip.admit = DenseArrayBase.from_list(i64, [min(0, hi), hi])

    # -- which values cross runs --------------------------------------------

    def _run_of(self) -> dict[Operation, Run]:
        return {op: run for run in self.partition.runs for op in run.ops}

    def _crossing(self) -> set[SSAValue]:
        """Non-static values a run uses but another run (or a loop) defines."""
        owner = self._run_of()
        crossing: set[SSAValue] = set()
        for run in self.partition.runs:
            used = [v for op in run.ops for v in _used_values(op)] + [v for v, _ in run.writes]
            for v in used:
                if v in self.static or v in self.scalars or v in self.runtime or _is_constant(v):
                    continue
                d = v.owner
                if isinstance(d, Operation) and owner.get(d) is run:
                    continue
                crossing.add(v)
        return crossing

    # -- per site -----------------------------------------------------------

    def build(self) -> spatial.ProgramOp:
        if any(g < 1 for g in self.grid):
            raise error(self.kernel, f"spatial-tile: the grid {self.grid} has an empty dimension: no block to lower")
        blocks = math.prod(self.grid)
        if blocks > MAX_BLOCKS:
            raise error(self.kernel, f"spatial-tile: the grid {self.grid} has {blocks} blocks, more than the "
                        f"{MAX_BLOCKS} a spatial program is built for (one site per block before spatial-place "
                        "folds them onto the cores)")
        sites: list[Operation] = []
        for coords in itertools.product(*(range(g) for g in self.grid)):
            sites.extend(SiteLowering(self, coords).build())
        self._narrow_proven_trips()
        body = [*self.decls, *self.trip_decls, *sites]
        attrs: dict[str, Attribute] = {"grid": ArrayAttr([IntegerAttr(g, 64) for g in self.grid])}
        lowered = set(self.tensors) | set(self.scalars) | set(self.runtime_args)
        unused = [(a.name_hint or f"arg{i}", a.type) for i, a in enumerate(self.kernel.body.block.args)
                  if a not in lowered]
        if unused:  # the program takes them too, of their types (and ignores them): it runs with the kernel's arguments
            attrs[UNUSED_ARGS_ATTR] = ArrayAttr([StringAttr(n) for n, _ in unused])
            attrs[UNUSED_ARG_TYPES_ATTR] = ArrayAttr([t for _, t in unused])
        program = _at(spatial.ProgramOp(self.name, "tiled", body, attrs), self.kernel)
        return program


def _masked(stage: spatial.StageOp, masked: bool) -> spatial.StageOp:
    if masked:
        stage.attributes[MASKED_ATTR] = UnitAttr()
    return stage


def _interval(e: AffineExpr, counts: Sequence[int]) -> tuple[int, int] | None:
    """Bounds [lo, hi] of `e` over the loop numbers, dim i in [0, counts[i]); None
    when they are not derived (a symbol, a division by a non-constant)."""
    if isinstance(e, AffineConstantExpr):
        return e.value, e.value
    if isinstance(e, AffineDimExpr):
        return (0, counts[e.position] - 1) if e.position < len(counts) else None
    if not isinstance(e, AffineBinaryOpExpr):
        return None
    a = _interval(e.lhs, counts)
    b = _interval(e.rhs, counts)
    if a is None or b is None:
        return None
    kind = e.kind
    if kind == AffineBinaryOpKind.Add:
        return a[0] + b[0], a[1] + b[1]
    if kind == AffineBinaryOpKind.Mul:
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    if b[0] != b[1] or b[0] <= 0:
        return None
    c = b[0]
    if kind == AffineBinaryOpKind.FloorDiv:
        return a[0] // c, a[1] // c
    if kind == AffineBinaryOpKind.CeilDiv:
        return -(-a[0] // c), -(-a[1] // c)
    if kind == AffineBinaryOpKind.Mod:
        return (a[0] % c, a[1] % c) if a[0] // c == a[1] // c else (0, c - 1)
    return None


def _may_run_outside(origin: Sequence[AffineExpr], tile: Sequence[int], shape: Sequence[int],
                     counts: Sequence[int]) -> bool:
    """Whether a tile of `tile` at `origin` (affine in the loop numbers, dim i of the
    enclosing loops running 0 .. counts[i]-1) may reach outside [0, shape) at some step:
    from the bounds of each origin coordinate (conservatively yes when they are not
    derived). A step inside a loop that never runs never moves anything."""
    if any(c <= 0 for c in counts):
        return False
    for e, size, dim in zip(origin, tile, shape):
        bounds = _interval(e, counts)
        if bounds is None or bounds[0] < 0 or bounds[1] + size > dim:
            return True
    return False


def _overlaps(origin: Sequence[AffineExpr], tile: Sequence[int], shape: Sequence[int],
              counts: Sequence[int]) -> bool:
    """Whether every step's tile of `tile` at `origin` (affine in the loop numbers, dim i
    running 0 .. counts[i]-1) overlaps [0, shape) in every dim: it starts before the end
    and ends after the start (from the bounds of each origin coordinate; no when they are
    not derived). A step inside a loop that never runs moves nothing."""
    if any(c <= 0 for c in counts):
        return True
    for e, size, dim in zip(origin, tile, shape):
        bounds = _interval(e, counts)
        if bounds is None or bounds[0] + size <= 0 or bounds[1] >= dim:
            return False
    return True


def _is_float_type(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type)


def _constant_address(base: SSAValue) -> int | None:
    owner = base.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return int(owner.value.value.data)
    return None


ADDRESS_LIMIT = 1 << 62
"""Constant HBM element addresses spatial-tile accepts (an i64 attribute with room for the extent)."""


_NOT_COMPUTE = ("ktdp.", "ktdf.", "spyre_loop.", "spatial.", "sdscbundle.", "func.", "memref.")


def _check_compute_op(op: Operation) -> None:
    """A compute stage holds ops on tensors and scalars only."""
    values = [*_used_values(op), *op.results]
    odd = next((v.type for v in values if not (isinstance(v.type, TensorType) or _is_int(v.type)
                                               or _is_float_type(v.type))), None)
    if op.name.startswith(_NOT_COMPUTE) or odd is not None:
        why = f"it uses a value of type {odd}" if odd is not None else "it is not a compute op on tensors"
        raise error(op, f"spatial-tile: '{op.name}' cannot be part of a compute stage ({why}); a compute stage "
                    "holds ops on tensors and scalars, between the loads and stores of box tiles")


def _loops_of(op: Operation) -> set[Operation]:
    out: set[Operation] = set()
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            out.add(parent)
        parent = parent.parent_op()
    return out


def _base_of(op: LoadOp | StoreOp) -> SSAValue | None:
    tile = op.access_tile.owner
    view = tile.base.owner if isinstance(tile, ConstructAccessTileOp) else None
    return view.offset if isinstance(view, ConstructMemoryViewOp) else None


def _is_constant(v: SSAValue) -> bool:
    return isinstance(v.owner, arith.ConstantOp)


def _used_values(op: Operation) -> list[SSAValue]:
    """Operands of `op` and of the ops nested in it that are defined outside `op`."""
    inner = {r for o in op.walk() for r in o.results} | {a for o in op.walk() for reg in o.regions
                                                         for b in reg.blocks for a in b.args}
    return [v for o in op.walk() for v in o.operands if v not in inner]


class SiteLowering:
    """The declarations and engine programs of one site."""

    def __init__(self, k: KernelLowering, coords: tuple[int, ...]):
        self.k = k
        self.coords = coords
        self.site = "b" + "_".join(str(c) for c in coords)
        self.values = Site(coords, k.scalars, k.grid, k.grid_order, k.runtime)
        self.decls: list[Operation] = []
        self.buffers: list[Operation] = []
        self.stages: list[Operation] = []
        self.edges: list[Operation] = []
        self.locals: dict[SSAValue, tuple[str, bool]] = {}  # crossing value -> (buffer, is a wrapped scalar)
        self.counter: dict[str, int] = {}
        self.step_of: dict[Operation, Operation] = {}  # ktdp.load / ktdp.store -> its step
        self.loop_of: dict[Operation, scf.ForOp] = {}  # spatial.loop -> the scf.for it comes from
        self.semaphores: list[Operation] = []
        self.outer: dict[Block, Block] = {}  # an engine loop's body -> the block the loop goes into
        self.counts: list[int] = []  # the trip counts of the enclosing loops, outermost first (dim i runs 0 .. counts[i]-1)
        # The load and store stages built inside each enclosing loop whose admitted count is
        # being proven (`_proven_admission`), with their origins, tiles, views and counts.
        self.probes: list[list] = []
        self.probe: tuple = ()  # what the last `_origin` saw: (origin, tile, view shape, enclosing loops)
        self.loops: list[scf.ForOp] = []  # the enclosing loops, outermost first (dim i is loops[i])
        self.count_of: dict[scf.ForOp, int] = {}  # each loop's count here (PROBE_COUNT while being proven)

    def _dim_args(self, block: Block, nd: int) -> list[SSAValue]:
        """The loop numbers of the `nd` spatial loops enclosing `block` (innermost last),
        through `outer`: a loop is attached to its block only once its body is built."""
        args: list[SSAValue] = []
        b: Block | None = block
        while b is not None and len(args) < nd and b.args:
            args.append(b.args[0])
            b = self.outer.get(b)
        return args[::-1]

    def _fresh(self, kind: str) -> str:
        n = self.counter.get(kind, 0)
        self.counter[kind] = n + 1
        return f"{self.site}_{kind}{n}"

    def build(self) -> list[Operation]:
        engines = {e: Block() for e in ENGINES}
        self._items(self.k.partition.tree, engines, [])
        for store, load in self.k.hbm_orders:
            self._order_hbm(store, load)
        for block in engines.values():
            _prune_empty_loops(block)
        site = _at(spatial.SiteOp(self.site, self.coords, ENGINES), self.k.kernel)
        progs = [_at(spatial.EngineOp(self.site, e, engines[e]), self.k.kernel) for e in ENGINES]
        return [site, *self.buffers, *self.stages, *self.edges, *self.semaphores, *progs]

    # -- HBM ordering -------------------------------------------------------

    def _order_hbm(self, store: StoreOp, load: LoadOp) -> None:
        """Make the load step wait for the store step through a semaphore: at the
        innermost loop enclosing both (or the engines' top level), the store engine
        signals after the construct holding the store and the load engine waits
        before the one holding the load; init 1 when the load comes first in that
        loop's body (it waits for the previous iteration's store), else 0."""
        st, ld = self.step_of.get(store), self.step_of.get(load)
        if st is None or ld is None:
            return  # a branch this site does not take
        st_chain, ld_chain = _engine_loops(st), _engine_loops(ld)
        common = 0
        while (common < min(len(st_chain), len(ld_chain))
               and self.loop_of[st_chain[common]] is self.loop_of[ld_chain[common]]):
            common += 1
        store_first = self.k.order[store] < self.k.order[load]
        if not store_first and common == 0:
            return  # the load reads before the store writes, once: nothing to order
        st_at = st_chain[common] if common < len(st_chain) else st
        ld_at = ld_chain[common] if common < len(ld_chain) else ld
        name = self._fresh("hbm")
        sem = _at(spatial.SemaphoreOp(name, self.site, 0 if store_first else 1), load)
        sem.attributes[HBM_ORDER_ATTR] = UnitAttr()
        self.semaphores.append(sem)
        st_block, ld_block = st_at.parent_block(), ld_at.parent_block()
        assert st_block is not None and ld_block is not None
        st_block.insert_op_after(_at(spatial.SignalOp(name, 1), store), st_at)
        ld_block.insert_op_before(_at(spatial.WaitOp(name, 1), load), ld_at)

    # -- locals -------------------------------------------------------------

    def _local(self, value: SSAValue, where: Operation) -> tuple[str, bool]:
        key = self.k.partition.loop_var.get(value, value)
        if key in self.locals:
            return self.locals[key]
        t = key.type
        wrapped = not isinstance(t, TensorType)
        what = "a value passed between compute stages"
        tile = _tile([1], t, where, what) if wrapped else _tile_type(t, where, what)
        name = self._fresh("v")
        self.buffers.append(_at(spatial.BufferOp(name, self.site, tile, 1, local=True), where))
        self.locals[key] = (name, wrapped)
        return self.locals[key]

    def _no_outputs(self, run: Run):
        """The refusal of a run whose results no store and no later compute stage takes:
        the cause when they feed a loop count, a condition or an index (read from data)."""
        in_run = set(run.ops)
        for op in run.ops:
            for r in op.results:
                for use in r.uses:
                    user = use.operation
                    if user in in_run:
                        continue
                    what = "an index"
                    if isinstance(user, scf.ForOp) and use.index < 3:
                        what = f"this loop's {('lower bound', 'upper bound', 'step')[use.index]}"
                    elif isinstance(user, scf.IfOp):
                        what = "this condition"
                    elif isinstance(user, scf.WhileOp | scf.ConditionOp):
                        what = "this loop's condition"
                    elif isinstance(user, ConstructAccessTileOp | ConstructMemoryViewOp):
                        what = "this access's index"
                    raise error(user, f"spatial-tile: {what} is read from data ('{op.name}' computes it from loaded "
                                "tiles); a spatial program fixes its loop counts, conditions and tile origins per "
                                "site when it is built (from tile coordinates, scalars and constants), so a value "
                                "read from data cannot be one", (op, "computed from data here"))
        return error(run.ops[0], "spatial-tile: these ops compute values that no store and no later compute stage "
                     "takes (a compute stage's results must be stored or passed on); nothing to lower them to")

    # -- the tree -----------------------------------------------------------

    def _items(self, items: list, engines: dict[str, Block], dims: list[int]) -> None:
        for item in items:
            if isinstance(item, Run):
                self._run(item, engines, dims)
            elif isinstance(item, If):
                taken = self.values.const(item.op.cond, item.op, "the condition")
                self._items(item.then if taken else item.other, engines, dims)
            else:
                self._loop(item, engines, dims)

    def _loop(self, loop: Loop, engines: dict[str, Block], dims: list[int]) -> None:
        op = loop.op
        lb = self.values.const(op.lb, op, "the lower bound")
        runtime = self.k.runtime.get(op.ub)
        step = self.values.const(op.step, op, "the step")
        if step <= 0:
            raise error(op, f"spatial-tile: this loop's step is {step} here; a spatial loop needs a positive step")
        admitted = self.k.admitted(runtime) if runtime is not None else None
        if runtime is None:
            ub = self.values.const(op.ub, op, "the upper bound")
            count = trip_count(lb, ub, step)
            assert count is not None  # the bounds are constants here and the step is positive
        elif admitted is not None:  # a trip whose admitted range the kernel states
            count = trip_count(lb, admitted[1], step)
            assert count is not None
        else:  # a trip admitted as far as the loop's tiles overlap their views (below)
            count = PROBE_COUNT
        if count >= 2**62:
            raise error(op, f"spatial-tile: this loop runs {count} times here, too many to simulate or run")
        depth = len(dims)
        self.values.values[op.body.block.args[0]] = AffineExpr.constant(lb) + AffineExpr.dimension(depth) * step
        inner: dict[str, Block] = {}
        built: dict[str, Operation] = {}
        for e in ENGINES:
            block = Block(arg_types=[IndexType()])
            built[e] = _at(spatial.LoopOp(0, count, block), op)
            self.loop_of[built[e]] = op
            self.outer[block] = engines[e]
            inner[e] = block
        self.counts.append(count)
        self.loops.append(op)
        self.count_of[op] = count
        if runtime is not None and admitted is None:
            self.probes.append([])
        self._items(loop.body, inner, [*dims, depth])
        if runtime is not None:
            if admitted is None:
                admitted = self._proven_admission(op, runtime, lb, step, depth, self.probes.pop())
            trip = self.k.trip(runtime, step, -lb, admitted, op)
            for e in ENGINES:
                built[e].properties.pop("upper", None)
                built[e].properties["trip"] = SymbolRefAttr(trip)
        self.counts.pop()
        self.loops.pop()
        # Attached after their bodies: xDSL's add_op walks from the target block to
        # the root (a cycle check), so attaching on the way down costs the depth at
        # every level; on the way up each block is still detached from its parent.
        for e in ENGINES:
            engines[e].add_op(built[e])

    def _probed(self, stage: Operation) -> None:
        for probes in self.probes:
            probes.append((stage, *self.probe))

    def _proven_admission(self, op: scf.ForOp, runtime: SSAValue, lb: int, step: int, depth: int,
                          probes: list[tuple[spatial.StageOp, list[AffineExpr], list[int], list[int], list]]
                          ) -> tuple[int, int, int, str]:
        """The admitted range of a loop running to a runtime scalar that states none: the
        values for which every tile its body moves along the loop overlaps its view (the
        greatest count K with each tile's origin bounds inside, so v <= lb + K * step; a
        tail tile reaching past the view's end is masked, as the source's access is). The
        moves are re-marked `masked` for that count. A loop whose body moves no tile along
        it has no such bound: refused, naming what to add. Only the coordinates that move
        along the loop bound it (the others bound the loops they move along); a coordinate
        that also moves along an enclosing loop still being proven, or a tile in a loop
        that runs no time here, bounds nothing."""
        name = self.k.runtime_args[runtime]
        greatest: int | None = None
        for stage, origin, tile, shape, loops in probes:
            counts = [self.count_of[lp] for lp in loops]
            along = [(e, t, d) for e, t, d in zip(origin, tile, shape) if depth in e.used_dims()]
            if (not along or any(c <= 0 for i, c in enumerate(counts) if i != depth)
                    or any(counts[i] == PROBE_COUNT for e, _, _ in along for i in e.used_dims() if i != depth)):
                continue
            es, ts, ds = zip(*along)

            def inside(k: int) -> bool:
                return _overlaps(es, ts, ds, [*counts[:depth], k, *counts[depth + 1:]])

            lo, hi = 0, PROBE_COUNT - 1  # inside(lo) holds (no step runs); find the greatest such count
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if inside(mid) else (lo, mid - 1)
            greatest = lo if greatest is None else min(greatest, lo)
        if greatest is None:
            raise error(
                op,
                f"spatial-tile: this loop runs to %{name}, a runtime scalar, and nothing bounds it: a spatial "
                "program admits a stated range of each loop count it reads at run time (a trip), and no tile this "
                f"loop moves bounds it within a view; state the range: give %{name} the type "
                f"!ktdp.runtime_arg<{runtime.type}, upperbound = U[, granularity = G]> or the argument attribute "
                f"{{{ADMIT_ATTR} = {{upperbound = U[, granularity = G]}}}}, or specialize it "
                f"(scalars=\"{name}=...\")",
            )
        self.count_of[op] = greatest
        for stage, origin, tile, shape, loops in probes:
            bounded = [self.count_of[lp] for lp in loops]
            if PROBE_COUNT in bounded:
                continue  # re-marked when the enclosing loop being proven is
            stage.attributes.pop(MASKED_ATTR, None)
            _masked(stage, _may_run_outside(origin, tile, shape, bounded))
        hi = lb + greatest * step
        return min(0, hi), hi, 1, PROVEN

    def _origin(self, tile_value: SSAValue, where: Operation,
                ndims: int) -> tuple[str, AffineMapAttr, spatial.TileType, bool]:
        """(tensor, origin map over the loop numbers, tile type, masked) of a box access
        tile; masked: at some step of this site the tile may reach outside its view (a
        tail tile), whose elements there load 0 and are not stored (`MASKED_ATTR`)."""
        owner = tile_value.owner
        view = owner.base.owner if isinstance(owner, ConstructAccessTileOp) else None
        box = box_bounds(owner.access_tile_set.data) if isinstance(owner, ConstructAccessTileOp) else None
        rank = len(owner.access_tile_order.data.results) if isinstance(owner, ConstructAccessTileOp) else 0
        if (
            not isinstance(owner, ConstructAccessTileOp)
            or not isinstance(view, ConstructMemoryViewOp)
            or owner.symbol_operands
            or box is None
            or any(lo != 0 for lo, _ in box)
            or permutation_of(owner.access_tile_order.data) != list(range(rank))
        ):
            raise error(where, "spatial-tile: this access is not a box tile in order from its anchor in a memory "
                        "view (a spatial step moves one box tile)")
        indices = [self.values.expr(i, where) for i in owner.indices]
        try:
            anchor = [e.replace_dims_and_symbols(indices, []) for e in owner.base_map.data.results]
        except (ValueError, NotImplementedError) as exc:
            raise error(where, f"spatial-tile: the anchor of this access is not affine per site ({exc})") from None
        t = view.result.type
        assert isinstance(t, MemRefType)
        sizes = [hi + 1 for _, hi in box]
        if len(anchor) != len(sizes):
            raise error(where, "spatial-tile: this access tile's rank differs from its memory view's")
        masked = _may_run_outside(anchor, sizes, list(t.get_shape()), self.counts[:ndims])
        self.probe = (anchor, sizes, list(t.get_shape()), list(self.loops[:ndims]))
        return (self.k.tensors[view.offset], AffineMapAttr(AffineMap(ndims, 0, tuple(anchor))),
                _tile(sizes, t.get_element_type(), where, "this access"), masked)

    def _run(self, run: Run, engines: dict[str, Block], dims: list[int]) -> None:
        k = self.k
        loads = [op for op in run.ops if isinstance(op, LoadOp)]
        stores = [op for op in run.ops if isinstance(op, StoreOp)]
        computes = [op for op in run.ops if not isinstance(op, LoadOp | StoreOp)]
        load_of = {op.result: op for op in loads}
        # what the run defines that others need, and what it needs from others
        defined = {r for op in run.ops for r in op.results}
        outs_local: list[tuple[SSAValue, str, bool]] = []  # (value, local, wrapped)
        for op in run.ops:
            for r in op.results:
                if r in k.used_outside:
                    name, wrapped = self._local(r, op)
                    outs_local.append((r, name, wrapped))
        for value, var in run.writes:
            name, wrapped = self._local(var, var.owner if isinstance(var.owner, Operation) else k.kernel)
            outs_local.append((value, name, wrapped))
        needed: list[SSAValue] = []
        for op in [*computes, *stores]:
            operands = _used_values(op) if not isinstance(op, StoreOp) else [op.data_tile]
            for v in operands:
                if v not in defined and v in k.used_outside and v not in needed:
                    needed.append(v)
        for v, _, _ in outs_local:
            if v not in defined and v in k.used_outside and v not in needed:
                needed.append(v)
        for v in load_of:
            if not v.uses:
                raise error(load_of[v], "spatial-tile: the tile this load reads is never used; a load step fills a "
                            "buffer that a compute or store stage must drain (drop the load)")
        if not run.ops and not outs_local:
            return
        nd = len(dims)
        # load stages
        in_buffers: list[str] = []
        load_stages: list[str] = []
        for op in loads:
            tname, origin, tile, masked = self._origin(op.access_tile, op, nd)
            ttype = _tile_type(op.result.type, op, "a loaded tile")
            if ttype.get_shape() != tile.get_shape():
                raise error(op, f"spatial-tile: this load's result {op.result.type} is not its tile's shape "
                            f"{list(tile.get_shape())}")
            buf, stage = self._fresh("in"), self._fresh("ld")
            self.buffers.append(_at(spatial.BufferOp(buf, self.site, ttype, 1), op))
            self.stages.append(_masked(_at(spatial.StageOp(stage, "load", [tname], [buf], self.site, "load",
                                                           origin=origin), op), masked))
            self._probed(self.stages[-1])
            self.step_of[op] = _at(spatial.LoadStepOp(stage, self._dim_args(engines["load"], nd)), op)
            engines["load"].add_op(self.step_of[op])
            in_buffers.append(buf)
            load_stages.append(stage)
        # store buffers
        out_buffers: list[tuple[str, StoreOp]] = []
        for op in stores:
            ttype = _tile_type(op.data_tile.type, op, "a stored tile")
            out_buffers.append((self._fresh("out"), op))
            self.buffers.append(_at(spatial.BufferOp(out_buffers[-1][0], self.site, ttype, 1), op))
        # the compute stage
        local_in = [self._local(v, run.ops[0] if run.ops else k.kernel) for v in needed]
        inputs = in_buffers + [n for n, _ in local_in]
        outputs = [n for n, _ in out_buffers] + [n for _, n, _ in outs_local]
        if not outputs:
            raise self._no_outputs(run)
        cp = self._fresh("cp")
        used = [v for op in computes for v in _used_values(op)] + [op.data_tile for op in stores]
        used += [v for v, _, _ in outs_local]
        scalars = list(dict.fromkeys(k.runtime[v] for v in used if v in k.runtime))
        body = self._body(run, loads, needed, local_in, out_buffers, outs_local, nd, scalars)
        first = run.ops[0] if run.ops else self.k.kernel
        self.stages.append(_at(spatial.StageOp(cp, "compute", inputs, outputs, self.site, "compute", body=body,
                                               scalars=[k.runtime_args[a] for a in scalars]), first))
        engines["compute"].add_op(_at(spatial.ComputeStepOp(cp, self._dim_args(engines["compute"], nd)), first))
        for (buf, op) in out_buffers:
            tname, origin, tile, masked = self._origin(op.access_tile, op, nd)
            if tuple(op.data_tile.type.get_shape()) != tile.get_shape():  # type: ignore[union-attr]
                raise error(op, f"spatial-tile: this store writes {op.data_tile.type} to a tile of shape "
                            f"{list(tile.get_shape())}")
            stage = self._fresh("st")
            self.stages.append(_masked(_at(spatial.StageOp(stage, "store", [buf], [tname], self.site, "store",
                                                           origin=origin), op), masked))
            self._probed(self.stages[-1])
            self.step_of[op] = _at(spatial.StoreStepOp(stage, self._dim_args(engines["store"], nd)), op)
            engines["store"].add_op(self.step_of[op])
            self.edges.append(_at(spatial.EdgeOp(self._fresh("e"), cp, stage, buf, _buffer_tile(self.buffers, buf)), op))
        for buf, ld in zip(in_buffers, load_stages):
            self.edges.append(spatial.EdgeOp(self._fresh("e"), ld, cp, buf, _buffer_tile(self.buffers, buf)))

    def _body(self, run, loads, needed, local_in, out_buffers, outs_local, nd, scalars) -> Region:
        """The compute stage's body: the run's ops on tiles, reading the loaded
        tiles, the locals and the runtime scalars `scalars`, yielding the stored
        tiles and the locals."""
        arg_types: list[Attribute] = [op.result.type for op in loads]
        for v, (_, wrapped) in zip(needed, local_in):
            arg_types.append(TensorType(v.type, [1]) if wrapped else v.type)
        arg_types += [a.type.underlying if isinstance(a.type, RuntimeArgType) else a.type for a in scalars]
        arg_types += [IndexType()] * nd
        block = Block(arg_types=arg_types)
        mapping: dict[SSAValue, SSAValue] = {}
        for op, arg in zip(loads, block.args):
            mapping[op.result] = arg
        first_scalar = len(loads) + len(needed)
        for a, arg in zip(scalars, block.args[first_scalar:]):
            mapping[a] = arg
        idx = [a for a in block.args[len(arg_types) - nd :]] if nd else []
        c0: list[SSAValue] = []

        def zero() -> SSAValue:
            if not c0:
                z = arith.ConstantOp.from_int_and_width(0, IndexType())
                block.add_op(z)
                c0.append(z.result)
            return c0[0]

        for v, (_, wrapped), arg in zip(needed, local_in, block.args[len(loads) :]):
            if wrapped:
                ex = tensor.ExtractOp(arg, [zero()], v.type)
                block.add_op(ex)
                mapping[v] = ex.result
            else:
                mapping[v] = arg

        def value(v: SSAValue, where: Operation) -> SSAValue:
            if v in mapping:
                return mapping[v]
            owner = v.owner
            if v in self.k.runtime and isinstance(owner, RuntimeArgExtractOp | arith.IndexCastOp):
                # of a runtime scalar (a body argument): its value, or a cast of it
                source = value(owner.operands[0], where)
                if isinstance(owner, arith.IndexCastOp):
                    cast = arith.IndexCastOp(source, v.type)
                    block.add_op(cast)
                    source = cast.result
                mapping[v] = source
                return source
            mapping[v] = self._materialize(v, where, block, idx)
            return mapping[v]

        for op in run.ops:
            if isinstance(op, LoadOp | StoreOp):
                continue
            for v in _used_values(op):
                value(v, op)
            clone = op.clone(value_mapper=mapping)
            block.add_op(clone)
            for r, c in zip(op.results, clone.results):
                mapping[r] = c
        yielded: list[SSAValue] = []
        for _, op in out_buffers:
            yielded.append(value(op.data_tile, op))
        for v, _, wrapped in outs_local:
            x = value(v, run.ops[0] if run.ops else self.k.kernel)
            if wrapped:
                fe = tensor.FromElementsOp.create(operands=[x], result_types=[TensorType(v.type, [1])])
                block.add_op(fe)
                x = fe.results[0]
            yielded.append(x)
        block.add_op(spatial.YieldOp.create(operands=yielded))
        return Region(block)

    def _materialize(self, v: SSAValue, where: Operation, block: Block, idx: list[SSAValue]) -> SSAValue:
        """A value defined outside the run, rebuilt in the body: a constant, a
        scalar argument, or an index of the loop numbers."""
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            c = owner.clone()
            block.add_op(c)
            return c.result
        if v in self.k.scalars and not _is_int(v.type):
            c = arith.ConstantOp(FloatAttr(float(self.k.scalars[v]), v.type))  # type: ignore[arg-type]
            block.add_op(c)
            return c.result
        if v in self.k.static:
            e = self.values.expr(v, where)
            const = _const(e)
            if const is not None and not -(2**63) <= const < 2**63:
                raise error(where, f"spatial-tile: this index is {const} here, which does not fit in 64 bits")
            if const is not None:
                c = arith.ConstantOp.from_int_and_width(const, IndexType())
                block.add_op(c)
                result = c.result
            else:
                ap = affine.ApplyOp(idx, AffineMapAttr(AffineMap(len(idx), 0, (e,))))
                block.add_op(ap)
                result = ap.result
            if not isinstance(v.type, IndexType):
                cast = arith.IndexCastOp(result, v.type)
                block.add_op(cast)
                result = cast.result
            return result
        made = f"'{owner.name}'" if isinstance(owner, Operation) else "a block argument"
        raise error(where, f"spatial-tile: this op uses %{v.name_hint or '?'} (made by {made}) from outside its compute "
                    "stage; a compute stage's body rebuilds only constants, scalar arguments and indices of the loop "
                    "numbers, and receives tensors and scalars passed between stages, and this value is none of them")


def _engine_loops(step: Operation) -> list[Operation]:
    """The spatial.loops enclosing `step` in its engine, outermost first."""
    loops: list[Operation] = []
    parent = step.parent_op()
    while isinstance(parent, spatial.LoopOp):
        loops.append(parent)
        parent = parent.parent_op()
    return loops[::-1]


def _at(op: Operation, source: Operation):
    """`op`, located where `source` is (so later passes' errors point into the kernel)."""
    op.location = source.location
    return op


def _prune_empty_loops(block: Block) -> None:
    """Drop the loops of an engine that hold no step (another engine's work)."""
    for op in list(block.ops):
        if isinstance(op, spatial.LoopOp):
            _prune_empty_loops(op.body.block)
            if op.body.block.first_op is None:
                op.detach()
                op.erase()


def _buffer_tile(buffers: list[Operation], name: str) -> spatial.TileType:
    for b in buffers:
        if isinstance(b, spatial.BufferOp) and b.sym_name.data == name:
            return b.tile
    raise KeyError(name)


def _ref(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


def _warn_no_grid(kernel: func.FuncOp) -> None:
    """A kernel that reads the tile id but has no `grid`: built for one block, as the
    interpreter runs it (a located warning, as the interpreter's)."""
    if "grid" in kernel.attributes:
        return
    tile_id = next((o for o in kernel.walk() if isinstance(o, GetComputeTileIdOp)), None)
    if tile_id is not None:
        warning(tile_id, f"spatial-tile: @{kernel.sym_name.data} reads the tile id but has no 'grid' attribute "
                "(and no grid=... was given): its spatial program is built for one block, tile id 0")


@dataclass(frozen=True)
class SpatialTilePass(ModulePass):
    """Lower each KTIR kernel to the per-site block plan of a spatial program (see module docstring)."""

    name = "spatial-tile"

    scalars: str = ""
    """Values of the kernel's scalar arguments the program is specialized for: "K=2048,BLOCK_SIZE=128"."""

    grid: tuple[int, ...] = ()
    """The grid to lower for instead of the kernel's `grid` attribute: `grid=32`, `grid=2,16`."""

    grid_order: str = DEFAULT_GRID_ORDER
    """How a single-result `ktdp.get_compute_tile_id` linearizes a multi-dimensional grid
    (`analysis/grid.py`): "col-major" (grid dim 0 fastest) or "row-major"."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.grid_order not in GRID_ORDERS:
            raise error(None, f"spatial-tile: grid-order must be {' or '.join(GRID_ORDERS)}, got '{self.grid_order}'")
        try:
            given = parse_scalars(self.scalars)
        except ValueError as exc:
            raise error(None, f"spatial-tile: scalars: {exc}") from None
        kernels = [f for f in op.walk() if isinstance(f, func.FuncOp) and f.body.blocks
                   and (f.sym_visibility is None or f.sym_visibility.data != "private")]
        if not kernels:
            raise error(op, "spatial-tile: the module has no kernel (a func.func with a body) to lower")
        names = {a.name_hint for f in kernels for a in f.body.block.args if a.name_hint}
        unknown = sorted(set(given) - names)
        if unknown:
            where = kernels[0] if len(kernels) == 1 else None
            kernel_names = ", ".join("@" + f.sym_name.data for f in kernels)
            raise error(where, f"spatial-tile: scalars: {kernel_names} has no argument named '{unknown[0]}'")
        grid = list(self.grid) or None
        if grid is not None and any(g < 1 for g in grid):
            raise error(None, f"spatial-tile: grid: every size must be at least 1, got {grid}")
        if grid is None:
            for f in kernels:
                _warn_no_grid(f)
        programs = [(f, KernelLowering(f, given, grid, self.grid_order).build()) for f in kernels]
        for f, program in programs:
            parent = f.parent_block()
            assert parent is not None
            parent.insert_op_before(program, f)
            f.detach()
            f.erase()
