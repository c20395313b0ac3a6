"""Analysis views of a kernel's loops and memory accesses (issue 12, part 3).

Three derived views, recomputed from the IR on demand (nothing is stored in
it; see docs/loop-analysis.md):

- `iteration_domains(func)`: every loop (`scf.for`, `spyre_loop.loop`) in
  walk order, with its bounds, step and trip count when they are constants.
- `accesses(root)`: every memory access under `root`: `ktdp.load` /
  `ktdp.store` through a KTDP view and access tile, as the byte address of
  each accessed element, an affine function of the enclosing loops'
  induction variables and of values fixed for the run (parameters, tile
  ids), plus a box of tile offsets; and every other op with a memory effect,
  as an access of unknown address.
- `dependence(a, b, loop)`: may the two accesses touch a common byte (in
  different iterations of `loop`, when given)? A three-valued verdict:
  PROVEN_INDEPENDENT, PROVEN_DEPENDENT or PROOF_NOT_ESTABLISHED, with the
  reason. Unknown facts are never proofs: an unknown pointer base, a
  runtime-shaped view, a layout whose strides are not provably injective,
  two pointer parameters not known to be distinct buffers, an address
  term whose value is not known statically all give PROOF_NOT_ESTABLISHED.

    from spyre_mlir.analysis.loop_analysis import iteration_domains, accesses, dependence
    loops = iteration_domains(kernel)
    acc = accesses(kernel)
    verdict, why = dependence(acc[0], acc[1], loops[0], assume_distinct_params=True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import product

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)
from xdsl.traits import IsTerminator, MemoryEffectKind, RecursiveMemoryEffect, get_effects

from spyre_mlir.analysis.affine import bounding_box, box_bounds
from spyre_mlir.dialects.ktdp import (
    DYNAMIC_INDEX,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.spyre_loop import LoopOp as SpyreLoopOp
from spyre_mlir.passes.frontend.ktdp_extract_compute_groups import _element_bytes, _is_scratch
from spyre_mlir.walk import walk_ops

__all__ = [
    "ABSOLUTE",
    "UNKNOWN",
    "Access",
    "Linear",
    "LoopDomain",
    "Verdict",
    "access_of",
    "accesses",
    "dependence",
    "enclosing_function",
    "injective",
    "interchange_dependence",
    "iteration_domains",
    "linearize",
]


class Verdict(Enum):
    """The answer to a dependence question; unknown is never a proof."""

    PROVEN_INDEPENDENT = "ProvenIndependent"
    PROVEN_DEPENDENT = "ProvenDependent"
    PROOF_NOT_ESTABLISHED = "ProofNotEstablished"


class _Root:
    """A pointer base that is not a parameter (see `Access.root`)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


ABSOLUTE = _Root("ABSOLUTE")
"""Root of an access whose base is a constant (an absolute address), plus an affine offset."""
UNKNOWN = _Root("UNKNOWN")
"""Root of an access whose pointer base is not `parameter + affine offset` nor `constant + offset`."""


# ===========================================================================
# Iteration domains
# ===========================================================================


@dataclass(eq=False)
class LoopDomain:
    """One loop: `iv` runs over `lower, lower + step, ... < upper`.

    `lower`/`upper`/`step`/`trip_count` are ints when the bounds are
    constants, else None. A `spyre_loop.loop` is `0 to count step 1`.
    `index` is the loop's position in `iteration_domains(func)` (walk
    order, all loop kinds): `path` = (function name, index) names it in any
    clone or re-parse of the module."""

    op: Operation
    iv: SSAValue
    lower: int | None
    upper: int | None
    step: int | None
    trip_count: int | None
    depth: int
    parent: LoopDomain | None
    index: int
    function: str
    iter_args: int = 0

    @property
    def kind(self) -> str:
        return self.op.name

    @property
    def path(self) -> tuple[str, int]:
        return (self.function, self.index)

    @property
    def static(self) -> bool:
        """Constant lower bound, step and trip count."""
        return self.lower is not None and self.step is not None and self.trip_count is not None

    def encloses(self, op: Operation) -> bool:
        return _inside(op, self.op)

    def __repr__(self) -> str:
        bounds = f"{_show(self.lower)} to {_show(self.upper)} step {_show(self.step)}"
        return f"LoopDomain({self.kind} #{self.index} {_value_name(self.iv)} = {bounds}, trips={_show(self.trip_count)})"


def _show(x: int | None) -> str:
    return "?" if x is None else str(x)


def _trips(lower: int | None, upper: int | None, step: int | None) -> int | None:
    if lower is None or upper is None or step is None or step <= 0:
        return None
    return max(0, -((lower - upper) // step))


def iteration_domains(func_op: Operation) -> list[LoopDomain]:
    """Every `scf.for` and `spyre_loop.loop` under `func_op`, in walk order (pre-order)."""
    name = _function_name(func_op)
    found: list[LoopDomain] = []
    by_op: dict[Operation, LoopDomain] = {}
    for op in walk_ops(func_op):
        if not isinstance(op, scf.ForOp | SpyreLoopOp) or op is func_op:
            continue
        parent = None
        node = op.parent_op()
        while node is not None and node is not func_op:
            if node in by_op:
                parent = by_op[node]
                break
            node = node.parent_op()
        if isinstance(op, scf.ForOp):
            lower, upper, step = (_const_value(v) for v in (op.lb, op.ub, op.step))
            iv, nargs = op.body.block.args[0], len(op.iter_args)
        else:
            count = op.static_count if op.count is not None else _const_value(op.count_value)  # pyright: ignore[reportArgumentType]
            lower, upper, step = 0, count, 1
            iv, nargs = op.iteration, 0
        domain = LoopDomain(
            op, iv, lower, upper, step, _trips(lower, upper, step), 0 if parent is None else parent.depth + 1,
            parent, len(found), name, nargs,
        )
        found.append(domain)
        by_op[op] = domain
    return found


def _function_name(op: Operation) -> str:
    sym = getattr(op, "sym_name", None)
    return sym.data if sym is not None else op.name


def enclosing_function(op: Operation) -> Operation:
    """The `func.func` holding `op` (or the outermost op, if none)."""
    node = op
    while not isinstance(node, func.FuncOp):
        parent = node.parent_op()
        if parent is None:
            return node
        node = parent
    return node


# ===========================================================================
# Affine forms over SSA values
# ===========================================================================


class Linear:
    """`const + sum(coeff * value)`: exact integer arithmetic over SSA values
    (loop induction variables and values fixed for the run)."""

    __slots__ = ("const", "terms")

    def __init__(self, const: int = 0, terms: dict[SSAValue, int] | None = None):
        self.const = const
        self.terms = {v: c for v, c in (terms or {}).items() if c != 0}

    def plus(self, other: Linear, scale: int = 1) -> Linear:
        terms = dict(self.terms)
        for v, c in other.terms.items():
            terms[v] = terms.get(v, 0) + scale * c
        return Linear(self.const + scale * other.const, terms)

    def times(self, k: int) -> Linear:
        return Linear(self.const * k, {v: c * k for v, c in self.terms.items()})

    @property
    def is_constant(self) -> bool:
        return not self.terms

    def __repr__(self) -> str:
        parts = [f"{c}*{_value_name(v)}" for v, c in self.terms.items()]
        return " + ".join([str(self.const), *parts]) if parts else str(self.const)


def _const_value(value: SSAValue | None) -> int | None:
    if value is None:
        return None
    form = linearize(value)
    return form.const if form is not None and form.is_constant else None


def _int_attr(op: Operation) -> int | None:
    if op.name != "arith.constant":
        return None
    attr = op.properties.get("value", op.attributes.get("value"))
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else None


def _is_param(value: SSAValue) -> bool:
    """A parameter of a function (an argument of its entry block)."""
    if not isinstance(value, BlockArgument):
        return False
    parent = value.block.parent_op()
    return isinstance(parent, func.FuncOp) and value.block is parent.body.blocks.first


def _loop_of_iv(value: SSAValue) -> Operation | None:
    """The loop whose induction variable `value` is, or None."""
    if not isinstance(value, BlockArgument) or value.index != 0:
        return None
    parent = value.block.parent_op()
    return parent if isinstance(parent, scf.ForOp | SpyreLoopOp) else None


_FIXED_LEAVES = ("ktdp.get_compute_tile_id", "ktdp.runtime_arg_extract")


def _fixed(value: SSAValue, memo: dict[SSAValue, bool]) -> bool:
    """Whether `value` is the same throughout one run of the function: a
    parameter, a tile id, a runtime argument, a constant, or a pure op of
    such values (no memory read, no loop variable, no iteration value)."""
    if value in memo:
        return memo[value]
    memo[value] = False  # cycles (graph regions) are not fixed
    if isinstance(value, BlockArgument):
        result = _is_param(value)
    else:
        op = value.owner
        assert isinstance(op, Operation)
        if op.name in _FIXED_LEAVES or _int_attr(op) is not None:
            result = True
        else:
            effects = get_effects(op)
            result = effects is not None and not effects and not op.regions and all(_fixed(v, memo) for v in op.operands)
    memo[value] = result
    return result


_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui")


def linearize(value: SSAValue, memo: dict | None = None) -> Linear | None:
    """`value` as a `Linear` form over loop induction variables and fixed
    values (a non-linear function of fixed values is one opaque fixed term),
    or None when it is not one (it depends on memory, on an iteration value,
    or non-linearly on a loop variable)."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    memo[value] = None  # cycles are not affine
    result = _linearize(value, memo)
    memo[value] = result
    return result


def _linearize(value: SSAValue, memo: dict) -> Linear | None:
    if isinstance(value, BlockArgument):
        if _is_param(value) or _loop_of_iv(value) is not None:
            return Linear(0, {value: 1})
        return None
    op = value.owner
    assert isinstance(op, Operation)
    c = _int_attr(op)
    if c is not None:
        return Linear(c)
    name = op.name
    if name in _FIXED_LEAVES:
        return Linear(0, {value: 1})
    if name in ("arith.addi", "arith.subi"):
        lhs, rhs = (linearize(v, memo) for v in op.operands[:2])
        if lhs is not None and rhs is not None:
            return lhs.plus(rhs, 1 if name == "arith.addi" else -1)
    elif name == "arith.muli":
        lhs, rhs = (linearize(v, memo) for v in op.operands[:2])
        if lhs is not None and rhs is not None:
            if rhs.is_constant:
                return lhs.times(rhs.const)
            if lhs.is_constant:
                return rhs.times(lhs.const)
    elif name == "arith.shli":
        lhs, rhs = (linearize(v, memo) for v in op.operands[:2])
        if lhs is not None and rhs is not None and rhs.is_constant and 0 <= rhs.const < 64:
            return lhs.times(1 << rhs.const)
    elif name in _CASTS:
        return linearize(op.operands[0], memo)
    elif name == "affine.apply":
        amap = op.properties.get("map") or op.attributes.get("map")
        amap = getattr(amap, "data", None)
        if amap is not None and len(amap.results) == 1:
            forms = [linearize(v, memo) for v in op.operands]
            form = _affine_expr(amap.results[0], forms, amap.num_dims)
            if form is not None:
                return form
    # Anything else: an opaque term when fixed for the run, else not affine.
    if _fixed(value, memo.setdefault("__fixed__", {})):  # pyright: ignore[reportArgumentType]
        return Linear(0, {value: 1})
    return None


_KIND = AffineBinaryOpKind


def _affine_expr(e: AffineExpr, forms: Sequence[Linear | None], num_dims: int) -> Linear | None:
    if isinstance(e, AffineConstantExpr):
        return Linear(e.value)
    if isinstance(e, AffineDimExpr):
        return forms[e.position] if e.position < len(forms) else None
    if isinstance(e, AffineSymExpr):
        k = num_dims + e.position
        return forms[k] if k < len(forms) else None
    assert isinstance(e, AffineBinaryOpExpr)
    lhs = _affine_expr(e.lhs, forms, num_dims)
    rhs = _affine_expr(e.rhs, forms, num_dims)
    if lhs is None or rhs is None:
        return None
    if e.kind is _KIND.Add:
        return lhs.plus(rhs)
    if e.kind is _KIND.Mul:
        if rhs.is_constant:
            return lhs.times(rhs.const)
        if lhs.is_constant:
            return rhs.times(lhs.const)
        return None
    if lhs.is_constant and rhs.is_constant and rhs.const != 0:
        a, b = lhs.const, rhs.const
        if e.kind is _KIND.FloorDiv:
            return Linear(a // b)
        if e.kind is _KIND.CeilDiv:
            return Linear(-(-a // b))
        if e.kind is _KIND.Mod:
            return Linear(a % b)
    return None


# ===========================================================================
# Accesses
# ===========================================================================


@dataclass(eq=False)
class Access:
    """One memory access: the bytes it touches, as far as derivable.

    - `root`: the pointer base: a function parameter (its buffer), ABSOLUTE
      (a constant base), or UNKNOWN.
    - `offset`: the byte address of the tile's first point (lowest
      offsets), a `Linear` over loop induction variables and fixed values
      (the root parameter is one of its terms, `element_bytes * param`:
      parameters are element offsets in their view's element type).
      `box`: one (byte stride, lo, hi) per view dim: the element at tile
      offsets s (lo <= s <= hi) is at `offset + sum(stride * s)`; it spans
      `element_bytes` bytes. When the tile's anchor or set is not affine or
      not a box, `box` is the whole view (accesses stay inside their view)
      and `exact` is False.
    - `space`: "global", "ct_local" or "ct_local:N"; None when not known.
    - flags: `runtime_shaped` (dynamic sizes/strides or symbols), `injective`
      (the view's strides provably map distinct coordinates to distinct
      addresses), `views_marked` (a `spyre.tensor_layout` places the
      elements), `in_bounds` (the tile stays inside the view over the whole
      domain), `exact` (the byte set is exactly offset + box).
    - `loops`: the enclosing loops, outermost first; `guards`: region ops
      between the access and its function other than loops (an `scf.if`
      makes the access conditional)."""

    op: Operation
    kind: str
    root: object
    element_bytes: int
    offset: Linear | None
    box: tuple[tuple[int, int, int], ...]
    space: str | None = None
    runtime_shaped: bool = False
    injective: bool = False
    views_marked: bool = False
    in_bounds: bool = False
    exact: bool = False
    loops: tuple[LoopDomain, ...] = ()
    guards: tuple[Operation, ...] = ()
    note: str = ""
    view: Operation | None = field(default=None, repr=False)

    @property
    def is_write(self) -> bool:
        return self.kind == "write"

    @property
    def address_known(self) -> bool:
        return self.root is not UNKNOWN and self.offset is not None

    def byte_range(self, fixed: dict | None = None) -> tuple[int, int] | None:
        """The conservative byte interval [lo, hi) of the access over its
        whole domain, relative to its root (the root parameter's term left
        out), with the induction variables in `fixed` (value or LoopDomain ->
        int) held at those values; None when a term is not bounded (a
        dynamic loop bound, a fixed value such as a tile id)."""
        if not self.address_known:
            return None
        assert self.offset is not None
        pinned: dict[SSAValue, int] = {}
        for k, v in (fixed or {}).items():
            pinned[k.iv if isinstance(k, LoopDomain) else k] = v
        domains = {d.iv: d for d in self.loops}
        lo = hi = self.offset.const
        for value, c in self.offset.terms.items():
            if value is self.root:
                continue
            if value in pinned:
                lo += c * pinned[value]
                hi += c * pinned[value]
                continue
            d = domains.get(value)
            if d is None or not d.static or not d.trip_count:
                return None
            assert d.lower is not None and d.step is not None and d.trip_count is not None
            a, b = c * d.lower, c * (d.lower + d.step * (d.trip_count - 1))
            lo, hi = lo + min(a, b), hi + max(a, b)
        for stride, blo, bhi in self.box:
            if blo > bhi:
                return (0, 0)
            a, b = stride * blo, stride * bhi
            lo, hi = lo + min(a, b), hi + max(a, b)
        return (lo, hi + self.element_bytes)

    def describe(self) -> str:
        where = _op_ref(self.op)
        if not self.address_known:
            return f"{self.kind} {where} (address unknown{': ' + self.note if self.note else ''})"
        root = _value_name(self.root) if isinstance(self.root, SSAValue) else repr(self.root)  # pyright: ignore[reportArgumentType]
        return f"{self.kind} {where} of {root}"


def _value_name(value: object) -> str:
    if isinstance(value, SSAValue):
        if value.name_hint:
            return f"%{value.name_hint}"
        if isinstance(value, BlockArgument):
            return f"block argument #{value.index}"
        owner = value.owner
        return f"a result of '{owner.name}'" if isinstance(owner, Operation) else "a value"
    return repr(value)


def _op_ref(op: Operation) -> str:
    names = [r.name_hint for r in op.results if r.name_hint]
    if op.name == "ktdp.store":
        names = [v.name_hint for v in op.operands[1:2] if v.name_hint]
        return f"'{op.name}' to %{names[0]}" if names else f"'{op.name}'"
    if op.name == "ktdp.load":
        tiles = [v.name_hint for v in op.operands[:1] if v.name_hint]
        return f"'{op.name}' from %{tiles[0]}" if tiles else f"'{op.name}'"
    return f"'{op.name}'" + (f" (%{names[0]})" if names else "")


def _inside(op: Operation, ancestor: Operation) -> bool:
    node: Operation | None = op.parent_op()
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent_op()
    return False


class _Context:
    """Per function: its loops, by op and by induction variable."""

    def __init__(self, func_op: Operation):
        self.func = func_op
        self.domains = iteration_domains(func_op)
        self.by_op = {d.op: d for d in self.domains}
        self.memo: dict = {}

    def enclosing(self, op: Operation) -> tuple[tuple[LoopDomain, ...], tuple[Operation, ...]]:
        loops: list[LoopDomain] = []
        guards: list[Operation] = []
        node = op.parent_op()
        while node is not None and node is not self.func:
            if node in self.by_op:
                loops.append(self.by_op[node])
            elif node.name != "scf.execute_region":
                guards.append(node)
            node = node.parent_op()
        return tuple(reversed(loops)), tuple(guards)


def accesses(root: Operation) -> list[Access]:
    """Every memory access under `root` (an op, e.g. a function or a loop;
    `root` itself included), in walk order: `ktdp.load` / `ktdp.store`, and
    every other op with a memory effect (or an unknown one) as an access of
    unknown address ("read" if it only reads, else "write")."""
    ctx = _Context(enclosing_function(root))
    found = []
    for op in walk_ops(root):
        access = _access(op, ctx)
        if access is not None:
            found.append(access)
    return found


def access_of(op: Operation) -> Access:
    """The access `op` makes (a `ktdp.load`/`ktdp.store`, or any op with a memory effect)."""
    access = _access(op, _Context(enclosing_function(op)))
    if access is None:
        raise ValueError(f"'{op.name}' accesses no memory")
    return access


def _access(op: Operation, ctx: _Context) -> Access | None:
    if isinstance(op, LoadOp | StoreOp):
        tile = op.access_tile
        return _tile_access(op, "read" if isinstance(op, LoadOp) else "write", tile, ctx)
    if (
        op.has_trait(RecursiveMemoryEffect)
        or op.has_trait(IsTerminator)
        or isinstance(op, func.FuncOp | ModuleOp)
        or op.name in _NOT_ACCESSES
    ):
        return None
    effects = get_effects(op)
    if effects is None and _value_semantics(op):
        return None
    if effects is not None:
        kinds = {e.kind for e in effects}
        if not kinds & {MemoryEffectKind.READ, MemoryEffectKind.WRITE}:
            return None
        kind = "read" if kinds & {MemoryEffectKind.READ, MemoryEffectKind.WRITE} == {MemoryEffectKind.READ} else "write"
        note = f"'{op.name}' {'reads' if kind == 'read' else 'writes'} memory this analysis does not model"
    else:
        kind, note = "write", f"'{op.name}' has unknown memory effects"
    loops, guards = ctx.enclosing(op)
    return Access(op, kind, UNKNOWN, 1, None, (), loops=loops, guards=guards, note=note)


_NOT_ACCESSES = {"spyre.tensor_layout", "scf.execute_region"}
"""Ops that access no memory themselves: a statement about memory, a region
whose ops are walked on their own."""

_VALUE_DIALECTS = {"arith", "math", "linalg", "tensor", "affine", "index", "complex"}
"""Dialects whose ops without a memref operand or result compute on values only
(xDSL declares no effects for e.g. linalg on tensors)."""


def _value_semantics(op: Operation) -> bool:
    if op.name.split(".", 1)[0] not in _VALUE_DIALECTS:
        return False
    values = [*op.operands, *op.results]
    return not any(isinstance(v.type, MemRefType) for v in values)


def _space_key(view: ConstructMemoryViewOp) -> str | None:
    space = normalized_memory_space(view.memory_space)
    if space is None:
        return None
    if space.is_global:
        return "global"
    return "ct_local" if space.tile is None else f"ct_local:{space.tile}"


def injective(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether distinct coordinates of a [sizes] view with these element
    strides always have distinct offsets: with the dims of more than one
    element ordered by |stride|, each |stride| exceeds the whole span of
    the dims before it (a mixed-radix layout, padding allowed)."""
    dims = sorted((abs(st), n) for n, st in zip(sizes, strides) if n > 1)
    span = 0
    for stride, n in dims:
        if stride <= span:
            return False
        span += (n - 1) * stride
    return True


def _tile_access(op: Operation, kind: str, tile: SSAValue, ctx: _Context) -> Access:
    loops, guards = ctx.enclosing(op)
    base = dict(loops=loops, guards=guards)
    owner = tile.owner
    view_value = owner.operands[0] if isinstance(owner, Operation) and owner.name.startswith("ktdp.construct_") else None
    view = view_value.owner if view_value is not None else None
    if not isinstance(view, ConstructMemoryViewOp):
        what = f"'{view.name}'" if isinstance(view, Operation) else "a value that is not a memory view"
        return Access(op, kind, UNKNOWN, 1, None, (), note=f"the tile is not on a plain memory view ({what})", **base)
    ty = view.result.type
    assert isinstance(ty, MemRefType)
    width = _element_bytes(ty.get_element_type())
    sizes = [int(s) for s in view.static_sizes.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
    strides = [int(s) for s in view.static_strides.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
    marked = any(use.operation.name == "spyre.tensor_layout" for use in view.result.uses)
    runtime = (
        DYNAMIC_INDEX in sizes
        or DYNAMIC_INDEX in strides
        or view.coordinate_set.data.num_symbols > 0
        or any(d < 0 for d in ty.get_shape())
    )
    common = dict(space=_space_key(view), views_marked=marked, view=view, **base)
    base_form = linearize(view.offset, ctx.memo)
    if base_form is None:
        return Access(op, kind, UNKNOWN, width, None, (), runtime_shaped=runtime,
                      note="the view's base is not parameter + affine offset", **common)
    params = [v for v, c in base_form.terms.items() if c == 1 and _is_param(v)]
    if len(params) > 1:
        names = ", ".join(_value_name(p) for p in params)
        return Access(op, kind, UNKNOWN, width, None, (), runtime_shaped=runtime,
                      note=f"the view's base adds several parameters ({names})", **common)
    root: object = params[0] if params else ABSOLUTE
    if runtime:
        return Access(op, kind, root, width, None, (), runtime_shaped=True,
                      note="the view has runtime sizes or strides", **common)
    offset = base_form.times(width)
    rank = len(sizes)
    whole = tuple((width * strides[d], 0, sizes[d] - 1) for d in range(rank))
    inj = injective(sizes, strides)
    if not isinstance(owner, ConstructAccessTileOp) or owner.symbol_operands:
        why = "the tile set has symbols" if isinstance(owner, ConstructAccessTileOp) else f"'{owner.name}' (data-dependent coordinates)"  # pyright: ignore[reportOptionalMemberAccess]
        return Access(op, kind, root, width, offset, whole, injective=inj, note=f"whole view: {why}", **common)
    amap = owner.base_map.data
    forms = [linearize(v, ctx.memo) for v in owner.indices]
    anchor = [_affine_expr(r, forms, amap.num_dims) for r in amap.results]
    aset = owner.access_tile_set.data
    box = box_bounds(aset)
    exact = box is not None
    if box is None:
        box = bounding_box(aset)
    if any(a is None for a in anchor) or box is None or len(box) != rank:
        return Access(op, kind, root, width, offset, whole, injective=inj,
                      note="whole view: the tile's anchor or set is not affine", **common)
    for d in range(rank):
        offset = offset.plus(anchor[d].times(width * strides[d]))  # pyright: ignore[reportOptionalMemberAccess]
        offset = Linear(offset.const + width * strides[d] * box[d][0], offset.terms)
    tile_box = tuple((width * strides[d], 0, box[d][1] - box[d][0]) for d in range(rank))
    inside = exact and _tile_in_view(anchor, box, sizes, view, loops)  # pyright: ignore[reportArgumentType]
    return Access(op, kind, root, width, offset, tile_box, injective=inj, in_bounds=inside,
                  exact=exact and not marked, **common)


def _interval(form: Linear, loops: Sequence[LoopDomain]) -> tuple[int, int] | None:
    """The range of `form` over the loops' domains; None if a term is not a static loop variable."""
    domains = {d.iv: d for d in loops}
    lo = hi = form.const
    for value, c in form.terms.items():
        d = domains.get(value)
        if d is None or not d.static or not d.trip_count:
            return None
        assert d.lower is not None and d.step is not None and d.trip_count is not None
        a, b = c * d.lower, c * (d.lower + d.step * (d.trip_count - 1))
        lo, hi = lo + min(a, b), hi + max(a, b)
    return lo, hi


def _tile_in_view(anchor: Sequence[Linear], box, sizes, view: ConstructMemoryViewOp, loops) -> bool:
    valid = box_bounds(view.coordinate_set.data)
    if valid is None or len(valid) != len(sizes):
        return False
    for d, form in enumerate(anchor):
        span = _interval(form, loops)
        if span is None or box[d][0] > box[d][1]:
            return False
        lo, hi = span[0] + box[d][0], span[1] + box[d][1]
        if lo < max(0, valid[d][0]) or hi > min(sizes[d] - 1, valid[d][1]):
            return False
    return True


# ===========================================================================
# Dependence
# ===========================================================================

_FREE = "free"
_SAME = "same"
_EXACT_BITS = 1 << 24
"""Exact sumsets over at most this many byte offsets (a Python int as a bitset)."""
_ENUMERATE = 64
"""Distance values enumerated for a loop whose variable has different coefficients in the two accesses."""
_SCENARIOS = 4096


@dataclass(frozen=True)
class _Delta:
    """The second access runs `delta` iterations after the first: lo <= delta <= hi (None: unbounded)."""

    lo: int | None
    hi: int | None


def _distinct(roots: tuple[object, object], assume: bool) -> tuple[Verdict, str] | None:
    """A verdict from buffer identity alone, or None when both are one buffer."""
    a, b = roots
    if a is UNKNOWN or b is UNKNOWN:
        return Verdict.PROOF_NOT_ESTABLISHED, "unknown pointer base"
    if a is b:
        return None
    if _is_scratch(a) or _is_scratch(b):
        return Verdict.PROVEN_INDEPENDENT, "compiler scratch is a buffer of its own"
    if a is ABSOLUTE or b is ABSOLUTE:
        return Verdict.PROOF_NOT_ESTABLISHED, "a constant address may lie in a parameter's buffer"
    if assume:
        return (
            Verdict.PROVEN_INDEPENDENT,
            f"distinct pointer parameters {_value_name(a)} and {_value_name(b)} are distinct buffers "
            "(assume_distinct_params: the runtime's calling convention)",
        )
    return (
        Verdict.PROOF_NOT_ESTABLISHED,
        f"distinct pointer parameters are not proven distinct buffers ({_value_name(a)}, {_value_name(b)})",
    )


def _spaces_differ(a: str | None, b: str | None) -> bool:
    if a is None or b is None or a == b:
        return False
    if "global" in (a, b):
        return True
    # two ct_local spaces: different only when both name their tile
    return a != "ct_local" and b != "ct_local"


def _screen(a: Access, b: Access, assume: bool) -> tuple[Verdict, str] | None:
    """The verdict that needs no address arithmetic, if any."""
    if not a.is_write and not b.is_write:
        return Verdict.PROVEN_INDEPENDENT, "both read"
    if _spaces_differ(a.space, b.space):  # a view's space is known even when its base is not
        return Verdict.PROVEN_INDEPENDENT, f"different memory spaces ({a.space}, {b.space})"
    for x in (a, b):
        if x.root is UNKNOWN:
            return Verdict.PROOF_NOT_ESTABLISHED, f"unknown pointer base: {x.describe()}"
    by_root = _distinct((a.root, b.root), assume)
    if by_root is not None:
        return by_root
    for x in (a, b):
        if x.runtime_shaped:
            return Verdict.PROOF_NOT_ESTABLISHED, f"runtime-shaped view: {x.describe()}"
        if x.views_marked:
            return Verdict.PROOF_NOT_ESTABLISHED, f"a spyre.tensor_layout marker places the elements: {x.describe()}"
        if not x.injective:
            return Verdict.PROOF_NOT_ESTABLISHED, f"the view's strides are not provably injective: {x.describe()}"
        if x.offset is None:
            return Verdict.PROOF_NOT_ESTABLISHED, f"address not derivable: {x.describe()}"
    return None


def dependence(
    a: Access, b: Access, loop: LoopDomain | Operation | None = None, *, assume_distinct_params: bool = False
) -> tuple[Verdict, str]:
    """May `a` and `b` (one of them a write) touch a common byte?

    With `loop` (a LoopDomain or its op, enclosing both): in two different
    iterations of it (loop-carried), the loops around it at the same
    iteration, the loops inside it free within their domains. Without: in
    any executions of the two. Returns the verdict and its reason."""
    screened = _screen(a, b, assume_distinct_params)
    if screened is not None:
        return screened
    modes: dict[Operation, object] = {}
    scope: Operation | None = None
    if loop is not None:
        lop = loop.op if isinstance(loop, LoopDomain) else loop
        if not (_inside(a.op, lop) and _inside(b.op, lop)):
            raise ValueError(f"the loop '{lop.name}' does not enclose both accesses")
        domain = _domain_of(lop, a, b)
        scope = lop
        for d in (*a.loops, *b.loops):
            if d.op is not lop and d.encloses(lop):
                modes[d.op] = _SAME
        verdicts = [_decide(a, b, {**modes, lop: delta}, scope) for delta in _signs(domain)]
    else:
        verdicts = [_decide(a, b, modes, None)]
    return _combine(verdicts, "in different iterations of the loop" if loop is not None else "")


def interchange_dependence(
    a: Access, b: Access, outer: LoopDomain, inner: LoopDomain, *, assume_distinct_params: bool = False
) -> tuple[Verdict, str]:
    """Is there a dependence between `a` and `b` that interchanging the
    perfectly nested `outer` and `inner` would reverse: instances whose
    distances along the two loops have opposite signs (direction (<, >))?
    PROVEN_INDEPENDENT means the interchange keeps every dependence."""
    for x in (a, b):
        if not (_inside(x.op, outer.op) and _inside(x.op, inner.op)):
            raise ValueError("both accesses must be inside both loops")
    screened = _screen(a, b, assume_distinct_params)
    if screened is not None:
        return screened
    modes: dict[Operation, object] = {}
    for d in (*a.loops, *b.loops):
        if d.op is not outer.op and d.encloses(outer.op):
            modes[d.op] = _SAME
    verdicts = []
    for s_out, s_in in (((1, None), (None, -1)), ((None, -1), (1, None))):
        d_out = _Delta(*_clip(s_out, outer.trip_count))
        d_in = _Delta(*_clip(s_in, inner.trip_count))
        verdicts.append(_decide(a, b, {**modes, outer.op: d_out, inner.op: d_in}, outer.op))
    return _combine(verdicts, "with opposite distances along the two loops")


def _clip(bounds: tuple[int | None, int | None], trips: int | None) -> tuple[int | None, int | None]:
    lo, hi = bounds
    if trips is None:
        return lo, hi
    return (lo if lo is not None else -(trips - 1)), (hi if hi is not None else trips - 1)


def _signs(domain: LoopDomain) -> list[_Delta]:
    t = domain.trip_count
    if t is None:
        return [_Delta(1, None), _Delta(None, -1)]
    return [_Delta(1, t - 1), _Delta(-(t - 1), -1)]


def _domain_of(op: Operation, a: Access, b: Access) -> LoopDomain:
    for d in (*a.loops, *b.loops):
        if d.op is op:
            return d
    raise ValueError(f"'{op.name}' is not a loop around the accesses")


def _combine(results: list[tuple[str, str]], context: str) -> tuple[Verdict, str]:
    suffix = f" {context}" if context else ""
    for state, why in results:
        if state == "dependent":
            return Verdict.PROVEN_DEPENDENT, f"a common byte is touched{suffix}: {why}"
    for state, why in results:
        if state == "maybe":
            return Verdict.PROOF_NOT_ESTABLISHED, why
    return Verdict.PROVEN_INDEPENDENT, f"no common byte{suffix}: {results[0][1] if results else ''}".rstrip(": ")


def _certain(x: Access, scope: Operation | None) -> str | None:
    """Why `x` may not run whenever `scope` (a loop, or its function) runs, or None."""
    if not x.exact:
        return "its byte set is an over-approximation"
    if not x.in_bounds:
        return "the tile is not provably inside its view"
    for g in x.guards:
        if scope is None or _inside(g, scope):
            return f"it is under '{g.name}'"
    for d in x.loops:
        if (scope is None or _inside(d.op, scope)) and not d.trip_count:
            return "an enclosing loop may run no iteration"
    return None


def _decide(a: Access, b: Access, modes: dict[Operation, object], scope: Operation | None) -> tuple[str, str]:
    """("independent" | "dependent" | "maybe", reason) for one direction of the question."""
    assert a.offset is not None and b.offset is not None
    loops = {d.iv: d for d in (*a.loops, *b.loops)}
    by_op = {d.op: d for d in loops.values()}
    const = a.offset.const - b.offset.const
    ranges: list[tuple[int, int, int | None]] = []  # coefficient * [lo, hi]
    deltas: list[tuple[LoopDomain, int, int, _Delta]] = []
    relaxed = False
    keys = list(dict.fromkeys([*a.offset.terms, *b.offset.terms]))
    for v in keys:
        ca, cb = a.offset.terms.get(v, 0), b.offset.terms.get(v, 0)
        d = loops.get(v)
        if d is None:
            if ca != cb:
                return "maybe", (
                    f"the addresses differ by {ca - cb} x {_value_name(v)}, a value not known statically"
                )
            continue
        mode = modes.get(d.op, _FREE)
        if isinstance(mode, _Delta):
            continue
        if mode == _SAME:
            if ca == cb:
                continue
            if not d.static:
                return "maybe", f"the bounds of the loop over {_value_name(v)} are not static"
            assert d.lower is not None and d.step is not None and d.trip_count is not None
            const += (ca - cb) * d.lower
            ranges.append(((ca - cb) * d.step, 0, d.trip_count - 1))
        else:
            for c, sign in ((ca, 1), (cb, -1)):
                if c == 0:
                    continue
                if not d.static:
                    return "maybe", f"the bounds of the loop over {_value_name(v)} are not static"
                assert d.lower is not None and d.step is not None and d.trip_count is not None
                const += sign * c * d.lower
                ranges.append((sign * c * d.step, 0, d.trip_count - 1))
    for op, mode in modes.items():
        if isinstance(mode, _Delta):
            d = by_op[op]
            deltas.append((d, a.offset.terms.get(d.iv, 0), b.offset.terms.get(d.iv, 0), mode))
    for stride, lo, hi in a.box:
        ranges.append((stride, lo, hi))
    for stride, lo, hi in b.box:
        ranges.append((-stride, lo, hi))
    # Per delta loop: one choice (a range term) or an enumeration of distances.
    choices: list[list[tuple[int, list[tuple[int, int, int | None]]]]] = []
    for d, ca, cb, delta in deltas:
        if ca == cb:
            if ca != 0 and d.step is None:
                return "maybe", f"the step of the loop over {_value_name(d.iv)} is not static"
            choices.append([(0, [(-cb * (d.step or 0), delta.lo, delta.hi)])])  # pyright: ignore[reportArgumentType]
            continue
        if not d.static:
            return "maybe", f"the bounds of the loop over {_value_name(d.iv)} are not static"
        assert d.lower is not None and d.step is not None and d.trip_count is not None
        t, s, lb = d.trip_count, d.step, d.lower
        lo = delta.lo if delta.lo is not None else -(t - 1)
        hi = delta.hi if delta.hi is not None else t - 1
        if hi - lo + 1 <= _ENUMERATE:
            options = []
            for dist in range(lo, hi + 1):
                k_lo, k_hi = max(0, -dist), min(t - 1, t - 1 - dist)
                options.append(((ca - cb) * lb - cb * s * dist, [((ca - cb) * s, k_lo, k_hi)]))
            choices.append(options)
        else:  # the two iterations free (their difference's sign not kept): proves independence only
            relaxed = True
            choices.append([((ca - cb) * lb, [(ca * s, 0, t - 1), (-cb * s, 0, t - 1)])])
    if math.prod(len(c) for c in choices) > _SCENARIOS:
        return "maybe", "too many distances to enumerate"
    target = (-(a.element_bytes - 1), b.element_bytes - 1)
    doubt: str | None = None
    for combo in product(*choices):
        c0 = const + sum(extra for extra, _ in combo)
        terms = ranges + [t for _, ts in combo for t in ts]
        state = _hits(c0, terms, target)
        if state == "some" and not relaxed:
            why = _certain(a, scope) or _certain(b, scope)
            if why is None:
                return "dependent", f"{a.describe()} and {b.describe()}"
            doubt = doubt or f"the byte sets meet, but a common byte is not certain ({why})"
        elif state != "none":
            doubt = doubt or "the byte sets may meet (not decided exactly)"
    if doubt is not None:
        return "maybe", f"{doubt}: {a.describe()}, {b.describe()}"
    return "independent", "the byte ranges are disjoint"


def _hits(const: int, terms: Iterable[tuple[int, int | None, int | None]], target: tuple[int, int]) -> str:
    """Whether `const + sum(c * x)`, each x an integer in [lo, hi] (None:
    unbounded), can take a value in the inclusive `target`: "none", "some"
    (exactly decided), or "maybe"."""
    tlo, thi = target
    bounded: list[tuple[int, int]] = []  # (coefficient > 0, count)
    unbounded: list[tuple[int, int | None, int | None]] = []
    for c, lo, hi in terms:
        if lo is not None and hi is not None and lo > hi:
            return "none"  # an empty range: the access never happens
        if c == 0:
            if lo is None or hi is None:
                unbounded.append((0, lo, hi))
            continue
        if lo is None or hi is None:
            unbounded.append((c, lo, hi))
            continue
        if c < 0:
            c, lo, hi = -c, -hi, -lo
        const += c * lo
        if hi > lo:
            bounded.append((c, hi - lo + 1))
    low, high = const, const + sum(c * (n - 1) for c, n in bounded)
    if unbounded:
        return _hits_unbounded(low, high, unbounded, target)
    if high < tlo or low > thi:
        return "none"
    g = 0
    for c, _ in bounded:
        g = math.gcd(g, c)
    lo_t, hi_t = max(tlo, low), min(thi, high)
    if g and not _has_residue(lo_t, hi_t, const % g, g):
        return "none"
    # Exact: the sum as one arithmetic progression while the terms allow it.
    start, step, count = const, 0, 1
    for i, (c, n) in enumerate(sorted(bounded)):
        if count == 1:
            step, count = c, n
        elif c % step == 0 and c // step <= count:
            count += (n - 1) * (c // step)
        else:
            return _hits_bitset(start, step, count, sorted(bounded)[i:], target, low, high)
    return "some" if _ap_meets(start, step, count, tlo, thi) else "none"


def _has_residue(lo: int, hi: int, r: int, g: int) -> bool:
    first = lo + ((r - lo) % g)
    return first <= hi


def _ap_meets(start: int, step: int, count: int, tlo: int, thi: int) -> bool:
    if count == 1 or step == 0:
        return tlo <= start <= thi
    k = max(0, -((start - tlo) // step))  # the first k with start + k*step >= tlo
    return k < count and start + k * step <= thi


def _hits_bitset(start, step, count, rest, target, low, high) -> str:
    width = high - low + 1
    if width > _EXACT_BITS:
        return "maybe"
    bits = 1 << (start - low)
    for c, n in ([(step, count)] if count > 1 else []) + list(rest):
        acc, power, m, done = 0, bits, 1, 0  # acc = OR of bits << (k*c), k < done
        remaining = n
        while remaining:
            if remaining & 1:
                acc |= power << (done * c)
                done += m
            remaining >>= 1
            if remaining:
                power |= power << (m * c)
                m *= 2
        bits = acc
    tlo, thi = max(target[0], low), min(target[1], high)
    window = (bits >> (tlo - low)) & ((1 << (thi - tlo + 1)) - 1)
    return "some" if window else "none"


def _hits_unbounded(low: int, high: int, unbounded, target) -> str:
    """One unbounded distance term: whether some multiple lands the bounded
    hull [low, high] in the target (a hull: "some" is only "maybe")."""
    if len(unbounded) != 1:
        return "maybe"
    c, lo, hi = unbounded[0]
    tlo, thi = target
    u, w = tlo - high, thi - low  # c * x must lie in [u, w]
    if c == 0:
        return "maybe" if u <= 0 <= w else "none"
    if c < 0:  # c*x = (-c)*(-x)
        c, lo, hi = -c, (None if hi is None else -hi), (None if lo is None else -lo)
    x_lo, x_hi = -((-u) // c), w // c  # c*x in [u, w]
    if lo is not None:
        x_lo = max(x_lo, lo)
    if hi is not None:
        x_hi = min(x_hi, hi)
    return "maybe" if x_lo <= x_hi else "none"

