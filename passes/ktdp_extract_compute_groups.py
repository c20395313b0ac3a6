"""ktdp-extract-compute-groups: outline each compute group into its own function.

A compute group is found by dataflow, never by the identity of access-tile
values: in each block, the ops that load, compute or store (the *members*)
are joined whenever one uses what another produces; each connected set is a
group (a store, the computes that feed it, their loads; stores that share a
compute share a group). Everything side-effect-free a group uses — views,
access tiles, index arithmetic, constants, `tensor.empty`, splats — is
re-materialized inside it, so no value is shared between groups and CSE may
have merged any of them beforehand; block arguments (loop induction
variables, iter_args, kernel parameters) become parameters, and a value the
block's terminator needs is returned. A loop whose body holds groups but
that exchanges no values with other members stays in the kernel, and its
body is extracted in turn (groups inside `scf.for` nests).

Each group becomes `func.func @local_schedule_N` inside `module
@local_schedule_N`; the kernel's module keeps a private declaration and
calls the groups in order, each at the place of its last member. Moving a
group's earlier members down to that place must not reorder memory accesses
that may alias (an author-written HBM round trip: a store to a view and a
later load of it); aliasing is decided conservatively from the views'
address ranges (same base or constant bases and disjoint element ranges, or
different memory spaces, prove independence; anything else may alias). A
reordering that could change what is read is a located error naming the
access, as is an op that cannot be outlined.

Before:

    func.func @k(%x: index, %y: index) {
      %v = ktdp.construct_memory_view %x, ... ; %t = ktdp.construct_access_tile %v[...]
      %d = ktdp.load %t ...
      %e = math.exp %d ...
      %w = ktdp.construct_memory_view %y, ... ; %u = ktdp.construct_access_tile %w[...]
      ktdp.store %e, %u ...
    }

After:

    module {
      func.func @k(%x: index, %y: index) {
        func.call @local_schedule_0(%x, %y) : (index, index) -> ()
      }
      func.func private @local_schedule_0(index, index)
    }
    module @local_schedule_0 {
      func.func @local_schedule_0(%x: index, %y: index) { <views, tiles, load, exp, store> }
    }
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import (
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)


def _walk(op: Operation) -> Iterator[Operation]:
    """`op` and every op nested in it, pre-order, without recursion."""
    stack = [op]
    while stack:
        current = stack.pop()
        yield current
        for region in reversed(current.regions):
            for block in reversed(region.blocks):
                stack.extend(reversed(list(block.ops)))


class Extractor:
    """Finds and outlines the compute groups of one module's kernels."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.remat: set[Operation] = set()
        self.groups: list[tuple[str, func.FuncOp, func.FuncOp]] = []  # (name, definition, declaration)
        taken = {op.sym_name.data for op in module.walk() if isinstance(op, func.FuncOp | ModuleOp) and op.sym_name}  # pyright: ignore[reportAttributeAccessIssue]
        self.taken = taken

    # -- classification --------------------------------------------------------

    def _find_remat(self, root: Operation) -> None:
        """Ops that can be cloned into any group: side-effect-free, without
        control flow, and computed only from block arguments and such ops."""
        for op in _walk(root):
            if op is root or op.has_trait(IsTerminator) or isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp):
                continue
            if not is_side_effect_free(op):
                continue
            if any(self._defined_by_non_remat(v) for v in self._reads(op)):
                continue
            self.remat.add(op)

    def _defined_by_non_remat(self, value: SSAValue) -> bool:
        owner = value.owner
        return isinstance(owner, Operation) and owner not in self.remat

    @staticmethod
    def _reads(op: Operation) -> list[SSAValue]:
        """Values `op` uses that are defined outside it (its operands and captures)."""
        inside: set[SSAValue] = set()
        reads: list[SSAValue] = []
        for inner in _walk(op):
            for region in inner.regions:
                for block in region.blocks:
                    inside.update(block.args)
            inside.update(inner.results)
        for inner in _walk(op):
            reads += [v for v in inner.operands if v not in inside]
        return reads

    # -- per block ---------------------------------------------------------------

    def process(self, block: Block, kernel: func.FuncOp) -> None:
        ops = [op for op in block.ops if not op.has_trait(IsTerminator) and op not in self.remat]
        position = {op: k for k, op in enumerate(block.ops)}
        defining: dict[SSAValue, Operation] = {r: op for op in ops for r in op.results}
        parent = {op: op for op in ops}

        def find(op: Operation) -> Operation:
            while parent[op] is not op:
                parent[op] = parent[parent[op]]
                op = parent[op]
            return op

        linked: set[Operation] = set()
        for op in ops:
            for v in self._reads(op):
                source = defining.get(v)
                if source is not None:
                    parent[find(source)] = find(op)
                    linked.update((source, op))
        structural = [
            op for op in ops if op.regions and op not in linked and not any(r.uses for r in op.results)
        ]
        for op in structural:
            for region in op.regions:
                for inner in region.blocks:
                    self.process(inner, kernel)
        members = [op for op in ops if op not in structural]
        components: dict[Operation, list[Operation]] = {}
        for op in members:
            components.setdefault(find(op), []).append(op)
        groups = sorted(components.values(), key=lambda g: position[g[-1]])
        if not groups:
            return
        self._check_order(groups, structural, position)
        for group in groups:
            self._outline(group, block, kernel)
        # Re-materializable ops left without users (their clones live in the groups).
        for op in reversed(list(block.ops)):
            if op in self.remat and not any(r.uses for r in op.results):
                op.detach()
                op.erase()

    # -- memory order ----------------------------------------------------------

    def _check_order(self, groups: list[list[Operation]], structural: list[Operation], position) -> None:
        """Each group runs at the place of its last member: its earlier members
        move down past other groups and structural ops. Refuse when that moves a
        memory access across another that may alias it (one of them a store)."""
        units = [(position[g[-1]], g) for g in groups] + [(position[s], [s]) for s in structural]
        units.sort(key=lambda u: u[0])
        accesses = []  # (unit index, original position, op, kind, view)
        for u, (_, members) in enumerate(units):
            for member in members:
                for inner in _walk(member):
                    if isinstance(inner, LoadOp | StoreOp):
                        tile = inner.operands[0] if isinstance(inner, LoadOp) else inner.operands[1]
                        kind = "load" if isinstance(inner, LoadOp) else "store"
                        accesses.append((u, position[member], inner, kind, _view_of(tile)))
        for a in accesses:
            for b in accesses:
                # a now runs before b (earlier unit) but b was written before a.
                if a[0] < b[0] and b[1] < a[1] and "store" in (a[3], b[3]) and _may_alias(a[4], b[4]):
                    raise error(
                        b[2],
                        f"cannot extract compute groups: this {b[3]} would move after a {a[3]} of another group "
                        "that may touch the same memory (their views' address ranges are not provably disjoint)",
                        (a[2], f"the {a[3]} it would move past"),
                    )

    # -- outlining ---------------------------------------------------------------

    def _name(self) -> str:
        k = 0
        while f"local_schedule_{k}" in self.taken:
            k += 1
        name = f"local_schedule_{k}"
        self.taken.add(name)
        return name

    def _outline(self, group: list[Operation], block: Block, kernel: func.FuncOp) -> None:
        members = set(group)
        inside: set[SSAValue] = set()
        for op in group:
            for inner in _walk(op):
                inside.update(inner.results)
                for region in inner.regions:
                    for b in region.blocks:
                        inside.update(b.args)
        # What the group reads from outside: parameters, or clones of re-materializable producers.
        params: list[SSAValue] = []
        clones: list[Operation] = []
        cloned: dict[SSAValue, SSAValue] = {}

        def need(value: SSAValue) -> None:
            if value in inside or value in cloned or value in params:
                return
            owner = value.owner
            if isinstance(owner, Operation) and owner in self.remat:
                for v in self._reads(owner):
                    need(v)
                if value not in cloned:
                    copy = owner.clone()
                    clones.append(copy)
                    for old, new in zip(owner.results, copy.results):
                        cloned[old] = new
                        new.name_hint = old.name_hint
                    clones_map[copy] = owner
                return
            params.append(value)

        clones_map: dict[Operation, Operation] = {}
        for op in group:
            for v in self._reads(op):
                need(v)
        escaping = [
            r for op in group for r in op.results if any(use.operation not in members and not _inside(use.operation, members) for use in r.uses)
        ]
        name = self._name()
        body = Block(arg_types=[p.type for p in params])
        mapping: dict[SSAValue, SSAValue] = dict(zip(params, body.args))
        for p, arg in zip(params, body.args):
            arg.name_hint = p.name_hint
        for copy in clones:
            body.add_op(copy)
        mapping.update(cloned)
        # Operands of the clones refer to originals: remap them too.
        for copy in clones:
            copy.operands = [mapping.get(v, v) for v in copy.operands]
        last = group[-1]
        call = func.CallOp(name, [p for p in params], [r.type for r in escaping])
        Rewriter.insert_op(call, InsertPoint.after(last))
        for op in group:
            op.detach()
            body.add_op(op)
        for op in group:
            for inner in _walk(op):
                if any(v in mapping for v in inner.operands):
                    inner.operands = [mapping.get(v, v) for v in inner.operands]
        for old, new in zip(escaping, call.results):
            for use in list(old.uses):
                if not _inside(use.operation, members):
                    use.operation.operands = [new if v is old else v for v in use.operation.operands]
            new.name_hint = old.name_hint
        body.add_op(func.ReturnOp(*escaping))
        ftype = func.FunctionType.from_lists([p.type for p in params], [r.type for r in escaping])
        definition = func.FuncOp(name, ftype, Region(body))
        if "grid" in kernel.attributes:
            definition.attributes["grid"] = kernel.attributes["grid"]
        declaration = func.FuncOp.external(name, [p.type for p in params], [r.type for r in escaping])
        self.groups.append((name, definition, declaration))

    # -- module --------------------------------------------------------------------

    def run(self) -> None:
        kernels = [op for op in self.module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
        for kernel in kernels:
            if len(kernel.body.blocks) != 1:
                raise error(kernel, "cannot extract compute groups from a function with more than one block")
            self._find_remat(kernel)
        for kernel in kernels:
            self.process(kernel.body.block, kernel)
        if not self.groups:
            return
        top = self.module.body.block
        original = list(top.ops)
        inner = ModuleOp([])
        for op in original:
            op.detach()
            inner.body.block.add_op(op)
        for _, _, declaration in self.groups:
            inner.body.block.add_op(declaration)
        top.add_op(inner)
        for name, definition, _ in self.groups:
            top.add_op(ModuleOp([definition], sym_name=StringAttr(name)))


def _inside(op: Operation, members: set[Operation]) -> bool:
    node: Operation | None = op
    while node is not None:
        if node in members:
            return True
        node = node.parent_op()
    return False


@dataclass(frozen=True)
class View:
    """What alias analysis knows of a view: its memory space, base and element range in bytes."""

    space: str | None
    base: object  # an SSAValue, an int (constant base), or None (unknown)
    low: int | None
    high: int | None


def _view_of(tile: SSAValue) -> View:
    """The view a load/store's tile reads, as an address range (conservative)."""
    from spyre_mlir.dialects.ktdp import ConstructAccessTileOp

    owner = tile.owner
    if isinstance(owner, ConstructAccessTileOp):
        view = owner.base.owner
        if isinstance(view, ConstructMemoryViewOp):
            space = normalized_memory_space(view.memory_space)
            kind = None if space is None else "global" if space.is_global else f"ct_local:{space.tile}"
            ty = view.result.type
            assert isinstance(ty, MemRefType)
            sizes = [int(s) for s in view.static_sizes.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
            strides = [int(s) for s in view.static_strides.get_values()]  # pyright: ignore[reportAttributeAccessIssue]
            width = max(1, _element_bytes(ty.get_element_type()))
            if any(s < 0 for s in sizes) or any(s < 0 for s in strides) or len(strides) != len(sizes):
                return View(kind, None, None, None)
            high = sum((n - 1) * s for n, s in zip(sizes, strides) if n > 0)
            base_value = view.offset
            base: object = base_value
            const = base_value.owner
            if isinstance(const, Operation) and const.name == "arith.constant":
                value = const.properties.get("value") or const.attributes.get("value")
                if isinstance(value, IntegerAttr):
                    base = int(value.value.data) * width
            return View(kind, base, 0, (high + 1) * width - 1) if not isinstance(base, int) else View(
                kind, 0, base, base + (high + 1) * width - 1
            )
    return View(None, None, None, None)


def _element_bytes(elem) -> int:
    width = getattr(getattr(elem, "width", None), "data", None) or getattr(elem, "bitwidth", None) or 64
    return max(1, int(width) // 8)


def _may_alias(a: View, b: View) -> bool:
    if a.space is not None and b.space is not None and a.space != b.space:
        return False
    if a.base is None or b.base is None or a.low is None or b.low is None:
        return True
    if a.base is not b.base and not (a.base == 0 and b.base == 0):
        return True  # different (unknown) bases: anything may overlap
    assert a.high is not None and b.high is not None
    return not (a.high < b.low or b.high < a.low)


@dataclass(frozen=True)
class KtdpExtractComputeGroupsPass(ModulePass):
    """Outline every compute group of every kernel (see module docstring)."""

    name = "ktdp-extract-compute-groups"
    changes_ir: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        Extractor(op).run()

