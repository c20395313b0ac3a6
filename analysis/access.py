"""Memory accesses, may-alias and dependence: the one memory analysis.

Every question about which bytes a `ktdp.load` / `ktdp.store` touches, and
whether two of them may touch a common one, is answered here, from the IR
on demand (nothing is stored in it; see docs/loop-analysis.md):

- `view_of(tile)` and `may_alias(a, b)`: the coarse question the
  compute-group extraction, `ktdp-hbm-roundtrip` and `ktdf-build-pipelines`
  ask of two accesses in one execution of the block that holds both: the
  whole view each may touch, as `anchor + [low, high]` bytes in an
  allocation (`View`). Two memory spaces, two pointer parameters (separate
  buffers: the runtime's calling convention, under which an address computed
  by adding to a parameter stays in its buffer), compiler scratch against
  an address not computed from the scratch parameter, or disjoint byte
  ranges from one base prove them apart; anything else may alias.
- `accesses(root)` / `access_of(op)`: every memory access under `root`
  (`Access`): a `ktdp.load` / `ktdp.store` through a KTDP view and access
  tile, as the byte address of each accessed element, an affine function of
  the enclosing loops' induction variables and of values fixed for the run
  (`spyre_mlir.analysis.loops.linearize`), plus a box of tile offsets; and
  every other op with a memory effect, as an access of unknown address.
- `dependence(a, b, loop)`: may the two accesses touch a common byte (in
  different iterations of `loop`, when given)? A three-valued verdict:
  PROVEN_INDEPENDENT, PROVEN_DEPENDENT or PROOF_NOT_ESTABLISHED, with the
  reason. Unknown facts are never proofs: an unknown pointer base, a
  runtime-shaped view, a layout whose strides are not provably injective,
  two pointer parameters not known to be distinct buffers
  (`assume_distinct_params` assumes the calling convention), an address
  term whose value is not known statically all give PROOF_NOT_ESTABLISHED.
  `interchange_dependence` asks the same for a loop interchange.

Both readings share the roots (`ABSOLUTE`, `UNKNOWN`, a parameter), the
scratch rule (`is_scratch`: compiler scratch is reached only from its own
parameter) and the element widths (the target model's `element_bytes`; a
type without one makes the address unknown).

    from spyre_mlir.analysis.access import accesses, dependence, may_alias, view_of
    from spyre_mlir.analysis.loops import iteration_domains
    acc = accesses(kernel)
    verdict, why = dependence(acc[0], acc[1], iteration_domains(kernel)[0], assume_distinct_params=True)
    may_alias(view_of(load.access_tile), view_of(store.access_tile))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import product

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator, MemoryEffectKind, RecursiveMemoryEffect, get_effects

from spyre_mlir.analysis.affine import Linear, bounding_box, box_bounds, linear_form
from spyre_mlir.analysis.loops import (
    LoopDomain,
    constant_int,
    enclosing_function,
    inside,
    is_param,
    iteration_domains,
    linearize,
    value_name,
)
from spyre_mlir.dialects.ktdp import (
    DYNAMIC_INDEX,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.spyre import SCRATCH_BYTES_ATTR, TensorLayoutOp
from spyre_mlir.target import TargetError, element_bytes, target_of
from spyre_mlir.walk import walk_ops

__all__ = [
    "ABSOLUTE",
    "UNKNOWN",
    "Access",
    "Verdict",
    "View",
    "access_of",
    "accesses",
    "computed_from_scratch",
    "dependence",
    "injective",
    "interchange_dependence",
    "is_scratch",
    "may_alias",
    "view_of",
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



def is_scratch(root: object) -> bool:
    """A kernel parameter the compiler added for HBM scratch (ktdp-hbm-roundtrip marks it `spyre.scratch_bytes`)."""
    if not isinstance(root, BlockArgument):
        return False
    parent = root.block.parent_op()
    if not isinstance(parent, func.FuncOp) or not parent.arg_attrs:
        return False
    return SCRATCH_BYTES_ATTR in parent.arg_attrs.data[root.index].data  # pyright: ignore[reportAttributeAccessIssue]


def computed_from_scratch(value: SSAValue) -> bool:
    """Whether `value` is computed (through operands, transitively, not through
    loaded data) from a scratch parameter: an address the analysis cannot
    follow (a distributed view, an indirect tile) touches scratch only then."""
    seen: set[SSAValue] = set()
    todo = [value]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, BlockArgument):
            if is_scratch(v):
                return True
            holder = v.block.parent_op()
            if holder is None:
                return True
            if not isinstance(holder, func.FuncOp):  # a loop's: from its operands or what its body yields
                todo += holder.operands
                todo += [w for region in holder.regions for b in region.blocks if b.last_op for w in b.last_op.operands]
            continue
        if not isinstance(v.owner, LoadOp):  # loaded data is no address of scratch (only its round trips write it)
            todo += v.owner.operands
    return False


def _width(view: ConstructMemoryViewOp) -> int | None:
    """Bytes of one element of the view (the target model's), None for a type without a width."""
    ty = view.result.type
    assert isinstance(ty, MemRefType)
    elem: Attribute = ty.get_element_type()
    try:
        return element_bytes(elem, target_of(view))
    except TargetError:
        return None


def _space_key(view: ConstructMemoryViewOp) -> str | None:
    """"global", "ct_local" or "ct_local:N"; None when not known."""
    space = normalized_memory_space(view.memory_space)
    if space is None:
        return None
    if space.is_global:
        return "global"
    return "ct_local" if space.tile is None else f"ct_local:{space.tile}"


# ===========================================================================
# May-alias: whole views in one execution of a block
# ===========================================================================


@dataclass(frozen=True)
class View:
    """What may-alias knows of a view: its memory space and the bytes it
    may touch, as `anchor + [low, high]` in allocation `root`: a kernel
    parameter (each pointer parameter is its own buffer: the runtime's
    calling convention), `ABSOLUTE` (no parameter in the address), or
    `UNKNOWN`. `anchor` is the variable part of the address: its affine
    terms (the root parameter's among them, scaled to bytes: one parameter
    read in two element sizes names different bytes), or an SSA value when
    the address is not affine. `may_be_scratch` says whether the address
    may be computed from the compiler's scratch parameter (else it cannot
    touch scratch)."""

    space: str | None
    root: object
    anchor: object
    low: int
    high: int
    may_be_scratch: bool = True


_DIVISIONS = ("arith.divui", "arith.divsi")


def _base(offset: SSAValue, width: int, memo: dict | None = None) -> tuple[object, Linear | None, int, str]:
    """The byte address of a view's first element, from its base `offset`
    (in the view's `width`-byte elements; `(byte address) / width` is
    read as that byte address, rounded down to an element): (root, form,
    slack, note). `form` is the byte address as a `Linear` over loop
    variables and fixed values (the root parameter's term included),
    `slack` how many bytes below it the address may lie (the rounding;
    none for aligned compiler scratch), `note` why `form` is None. The
    root is the one parameter whose value is the address, ABSOLUTE when
    none is, UNKNOWN when several are; an address that is not affine lies
    in the buffer it is computed from by addition (`_buffer`)."""
    owner = offset.owner
    divided = isinstance(owner, Operation) and owner.name in _DIVISIONS and constant_int(owner.operands[1]) == width
    value = owner.operands[0] if divided else offset  # pyright: ignore[reportOptionalMemberAccess]
    unit = 1 if divided else width
    element = linearize(value, memo)
    if element is None:
        return _buffer(value), None, 0, "the view's base is not parameter + affine offset"
    form = element.times(unit)
    params = [v for v, c in form.terms.items() if c == unit and is_param(v)]
    if len(params) > 1:
        return UNKNOWN, None, 0, f"the view's base adds several parameters ({', '.join(map(value_name, params))})"
    root: object = params[0] if params else ABSOLUTE
    aligned = is_scratch(root) and all(c % width == 0 for v, c in form.terms.items() if v is not root)
    slack = 0 if not divided or (aligned and form.const % width == 0) else width - 1
    return root, form, slack, ""


def _buffer(value: SSAValue) -> object:
    """The allocation an address that is not affine lies in, by the calling
    convention: a parameter's buffer holds every address computed from it
    by addition (`%p + %loaded`), a constant is ABSOLUTE; else UNKNOWN."""
    if constant_int(value) is not None:
        return ABSOLUTE
    if is_param(value):
        return value
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.addi":
        found = {_buffer(v) for v in owner.operands}
        buffers = found - {UNKNOWN, ABSOLUTE}
        if len(buffers) == 1:
            return buffers.pop()
        if found == {ABSOLUTE}:
            return ABSOLUTE
    return UNKNOWN


def view_of(tile: SSAValue) -> View:
    """The bytes a load/store's tile may touch: its whole view (conservative)."""
    owner = tile.owner
    if isinstance(owner, ConstructAccessTileOp):
        view = owner.base.owner
        if isinstance(view, ConstructMemoryViewOp):
            kind = _space_key(view)
            scratchy = computed_from_scratch(view.offset)
            width = _width(view)
            if width is None:
                return View(kind, UNKNOWN, None, 0, 0, scratchy)
            sizes = [int(s) for s in view.static_sizes.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
            strides = [int(s) for s in view.static_strides.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
            root, form, slack, _ = _base(view.offset, width)
            if form is None:
                anchor, low = view.offset, 0  # not affine: one SSA value, the same only to itself
            else:
                anchor, low = frozenset(form.terms.items()), form.const
            if any(s < 0 for s in sizes) or any(s < 0 for s in strides) or len(strides) != len(sizes):
                return View(kind, root, object(), 0, 0, scratchy)  # runtime-shaped: anywhere in its allocation
            span = (sum((n - 1) * s for n, s in zip(sizes, strides) if n > 0) + 1) * width - 1
            return View(kind, root, anchor, low - slack, low + span, scratchy)
    return View(None, UNKNOWN, None, 0, 0, computed_from_scratch(tile))


def may_alias(a: View, b: View) -> bool:
    """May the two views touch a common byte in one execution of the block
    that holds both (an SSA value has one value there)? See `View`."""
    if _spaces_differ(a.space, b.space):
        return False
    for x, y in ((a, b), (b, a)):
        if is_scratch(x.root) and y.root is not x.root:
            return y.may_be_scratch  # scratch is reached only from its own parameter
    if a.root is UNKNOWN or b.root is UNKNOWN:
        return True
    if a.root is not b.root:
        # Two parameters are two buffers; an address with no parameter in it may lie in either.
        return a.root is ABSOLUTE or b.root is ABSOLUTE
    return _ranges_meet(a, b)


def _ranges_meet(a: View, b: View) -> bool:
    """Whether two views from one base may meet: the same variable part and overlapping byte ranges."""
    if a.anchor != b.anchor:
        return True
    return not (a.high < b.low or b.high < a.low)


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
      domain), `exact` (the byte set is exactly offset + box),
      `may_be_scratch` (the address may be computed from the compiler's
      scratch parameter: else the access cannot touch scratch).
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
    may_be_scratch: bool = True

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
        root = value_name(self.root) if isinstance(self.root, SSAValue) else repr(self.root)  # pyright: ignore[reportArgumentType]
        return f"{self.kind} {where} of {root}"


def _op_ref(op: Operation) -> str:
    names = [r.name_hint for r in op.results if r.name_hint]
    if op.name == "ktdp.store":
        names = [v.name_hint for v in op.operands[1:2] if v.name_hint]
        return f"'{op.name}' to %{names[0]}" if names else f"'{op.name}'"
    if op.name == "ktdp.load":
        tiles = [v.name_hint for v in op.operands[:1] if v.name_hint]
        return f"'{op.name}' from %{tiles[0]}" if tiles else f"'{op.name}'"
    return f"'{op.name}'" + (f" (%{names[0]})" if names else "")


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


_NOT_ACCESSES = {TensorLayoutOp.name, "scf.execute_region"}
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
        return Access(op, kind, UNKNOWN, 1, None, (), note=f"the tile is not on a plain memory view ({what})",
                      may_be_scratch=computed_from_scratch(tile), **base)
    ty = view.result.type
    assert isinstance(ty, MemRefType)
    width = _width(view)
    if width is None:
        return Access(op, kind, UNKNOWN, 1, None, (), space=_space_key(view), view=view,
                      note=f"no byte width for the element type {ty.get_element_type()}", **base)
    sizes = [int(s) for s in view.static_sizes.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
    strides = [int(s) for s in view.static_strides.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
    marked = any(use.operation.name == TensorLayoutOp.name for use in view.result.uses)
    runtime = (
        DYNAMIC_INDEX in sizes
        or DYNAMIC_INDEX in strides
        or view.coordinate_set.data.num_symbols > 0
        or any(d < 0 for d in ty.get_shape())
    )
    common = dict(space=_space_key(view), views_marked=marked, view=view,
                  may_be_scratch=computed_from_scratch(view.offset), **base)
    root, form, slack, note = _base(view.offset, width, ctx.memo)
    if form is None:
        return Access(op, kind, UNKNOWN, width, None, (), runtime_shaped=runtime, note=note, **common)
    if runtime:
        return Access(op, kind, root, width, None, (), runtime_shaped=True,
                      note="the view has runtime sizes or strides", **common)
    offset = form
    rounding = ((1, -slack, 0),) if slack else ()  # the address rounded down to an element: a byte range
    rank = len(sizes)
    whole = tuple((width * strides[d], 0, sizes[d] - 1) for d in range(rank)) + rounding
    inj = injective(sizes, strides)
    if not isinstance(owner, ConstructAccessTileOp) or owner.symbol_operands:
        why = "the tile set has symbols" if isinstance(owner, ConstructAccessTileOp) else f"'{owner.name}' (data-dependent coordinates)"  # pyright: ignore[reportOptionalMemberAccess]
        return Access(op, kind, root, width, offset, whole, injective=inj, note=f"whole view: {why}", **common)
    amap = owner.base_map.data
    forms = [linearize(v, ctx.memo) for v in owner.indices]
    anchor = [linear_form(r, forms[: amap.num_dims], forms[amap.num_dims :]) for r in amap.results]
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
    tile_box = tuple((width * strides[d], 0, box[d][1] - box[d][0]) for d in range(rank)) + rounding
    inside = exact and _tile_in_view(anchor, box, sizes, view, loops)  # pyright: ignore[reportArgumentType]
    return Access(op, kind, root, width, offset, tile_box, injective=inj, in_bounds=inside,
                  exact=exact and not marked and not slack, **common)


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


def _distinct(a: Access, b: Access, assume: bool) -> tuple[Verdict, str] | None:
    """A verdict from buffer identity alone, or None when both are one buffer."""
    for x, y in ((a, b), (b, a)):
        if is_scratch(x.root) and y.root is not x.root and not y.may_be_scratch:
            return Verdict.PROVEN_INDEPENDENT, "compiler scratch is a buffer of its own"
    ra, rb = a.root, b.root
    if ra is UNKNOWN or rb is UNKNOWN:
        return Verdict.PROOF_NOT_ESTABLISHED, "unknown pointer base"
    if ra is rb:
        return None
    if is_scratch(ra) or is_scratch(rb):
        return Verdict.PROOF_NOT_ESTABLISHED, "an address computed from the scratch parameter may lie in scratch"
    if ra is ABSOLUTE or rb is ABSOLUTE:
        return Verdict.PROOF_NOT_ESTABLISHED, "a constant address may lie in a parameter's buffer"
    if assume:
        return (
            Verdict.PROVEN_INDEPENDENT,
            f"distinct pointer parameters {value_name(ra)} and {value_name(rb)} are distinct buffers "
            "(assume_distinct_params: the runtime's calling convention)",
        )
    return (
        Verdict.PROOF_NOT_ESTABLISHED,
        f"distinct pointer parameters are not proven distinct buffers ({value_name(ra)}, {value_name(rb)})",
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
    for x, y in ((a, b), (b, a)):
        if x.root is UNKNOWN and not (is_scratch(y.root) and not x.may_be_scratch):
            return Verdict.PROOF_NOT_ESTABLISHED, f"unknown pointer base: {x.describe()}"
    by_root = _distinct(a, b, assume)
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
        if not (inside(a.op, lop) and inside(b.op, lop)):
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
        if not (inside(x.op, outer.op) and inside(x.op, inner.op)):
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
        if scope is None or inside(g, scope):
            return f"it is under '{g.name}'"
    for d in x.loops:
        if (scope is None or inside(d.op, scope)) and not d.trip_count:
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
                    f"the addresses differ by {ca - cb} x {value_name(v)}, a value not known statically"
                )
            continue
        mode = modes.get(d.op, _FREE)
        if isinstance(mode, _Delta):
            continue
        if mode == _SAME:
            if ca == cb:
                continue
            if not d.static:
                return "maybe", f"the bounds of the loop over {value_name(v)} are not static"
            assert d.lower is not None and d.step is not None and d.trip_count is not None
            const += (ca - cb) * d.lower
            ranges.append(((ca - cb) * d.step, 0, d.trip_count - 1))
        else:
            for c, sign in ((ca, 1), (cb, -1)):
                if c == 0:
                    continue
                if not d.static:
                    return "maybe", f"the bounds of the loop over {value_name(v)} are not static"
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
                return "maybe", f"the step of the loop over {value_name(d.iv)} is not static"
            choices.append([(0, [(-cb * (d.step or 0), delta.lo, delta.hi)])])  # pyright: ignore[reportArgumentType]
            continue
        if not d.static:
            return "maybe", f"the bounds of the loop over {value_name(d.iv)} are not static"
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

