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

Each group becomes `func.func @local_schedule_N`, marked with the unit
attribute `spyre.compute_group` (`COMPUTE_GROUP_ATTR`: what the later stages
recognise a group by), inside `module @local_schedule_N`; the kernel's
module keeps a private declaration and
calls the groups in order, each at the place of its last member. This is
dataflow-scheduler's output (`--compute-group-extraction`, the public form):
a group's body is written in their order (the ops the group spans, each after
what it reads), and the side-effect-free ops the kernels no longer use are
removed; `mark=false` leaves the groups unmarked, as theirs are. The calls keep
every pair of memory accesses that may alias (one of them a store) in their
original order — an author-written HBM round trip (a store to a view and a
later load of it) orders its two groups; loops that stay in the block keep
their order; otherwise groups run in the order of their last members.
Aliasing is decided conservatively from the views' address ranges: two
different memory spaces, two different kernel pointer parameters (separate
buffers, by the runtime's calling convention; compiler scratch is separate
from everything, also from a view whose address analysis cannot follow, e.g.
a distributed view, as long as it is not computed from the scratch
parameter), or disjoint byte ranges from one base prove independence;
anything else may alias. Groups stay whole and exchange no values: when no
order of whole groups keeps the program's meaning (two groups each reading
what the other writes later), it is a located error at the loads and stores
involved, as is an op that cannot be outlined. (`ktdp-hbm-roundtrip` routes
every compute → compute edge through scratch, also one through a reshape, so
a group never has to wait in its middle for another's round trip.)

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
      func.func @local_schedule_0(%x: index, %y: index) attributes {spyre.compute_group} {
        <views, tiles, load, exp, store>
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from spyre_mlir.analysis.access import View, is_scratch, may_alias, view_of
from spyre_mlir.analysis.remat import rematerializable
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import LoadOp, StoreOp
from spyre_mlir.dialects.spyre import COMPUTE_GROUP_ATTR
from spyre_mlir.ir import fill_locations
from spyre_mlir.walk import capture_summaries, walk_ops, walk_ops_post

SUPPORTED_DIALECTS = {"affine", "arith", "func", "ktdf", "ktdp", "linalg", "math", "scf", "spyre", "tensor"}
"""Dialects whose ops a group may hold (what the interpreter and the later stages know)."""


class Extractor:
    """Finds and outlines the compute groups of one module's kernels."""

    def __init__(self, module: ModuleOp, mark: bool = True):
        self.module = module
        self.mark = mark
        self.remat: set[Operation] = set()
        self.groups: list[tuple[str, func.FuncOp, func.FuncOp]] = []  # (name, definition, declaration)
        taken = {op.sym_name.data for op in module.walk() if isinstance(op, func.FuncOp | ModuleOp) and op.sym_name}  # pyright: ignore[reportAttributeAccessIssue]
        self.taken = taken
        self.captures: dict[int, dict[SSAValue, None]] = {}  # region id -> values it captures
        self.accesses: dict[Operation, list[Operation]] = {}  # op -> the loads and stores in it
        self.views: dict[Operation, View] = {}  # load/store -> what it touches, in the kernel's terms

    # -- classification --------------------------------------------------------

    def _find_remat(self, root: Operation) -> None:
        """Ops that can be cloned into any group: side-effect-free, without
        control flow, and computed only from block arguments and such ops."""
        for op in walk_ops(root):
            if op is root or _terminates(op) or isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp):
                continue
            if not rematerializable(op):
                continue
            if any(self._defined_by_non_remat(v) for v in self._reads(op)):
                continue
            self.remat.add(op)

    def _defined_by_non_remat(self, value: SSAValue) -> bool:
        owner = value.owner
        return isinstance(owner, Operation) and owner not in self.remat

    def _reads(self, op: Operation) -> list[SSAValue]:
        """Values `op` uses that are defined outside it: its operands and what its
        regions capture (summarized once per kernel, bottom-up: linear in its size)."""
        reads = list(op.operands)
        for region in op.regions:
            reads += self.captures.get(id(region), ())
        return reads

    def _summarize(self, kernel: func.FuncOp) -> None:
        """Per region, the values it captures; per op, the loads and stores in it
        (itself included). Computed before anything moves."""
        capture_summaries(kernel.body, self.captures)
        for op in walk_ops_post(kernel.body):
            found = [op] if isinstance(op, LoadOp | StoreOp) else []
            if found:
                self.views[op] = view_of(op.operands[0] if isinstance(op, LoadOp) else op.operands[1])
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.ops:
                        found += self.accesses.get(inner, ())
            if found:
                self.accesses[op] = found

    # -- per block ---------------------------------------------------------------

    def process(self, block: Block, kernel: func.FuncOp) -> None:
        ops = [op for op in block.ops if not _terminates(op) and op not in self.remat]
        for op in ops:
            name = _op_name(op)
            if name.split(".", 1)[0] not in SUPPORTED_DIALECTS:
                raise error(
                    op,
                    f"cannot extract compute groups: '{name}' is outside the supported set "
                    f"(ops of {', '.join(sorted(SUPPORTED_DIALECTS))})",
                )
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
        order, cycle = self._schedule(groups, structural, position)
        if cycle is not None:
            self._refuse(cycle)
        calls: dict[int, Operation] = {}
        for k, group in enumerate(groups):
            calls[k] = self._outline(group, block, kernel)
        # Emit the units in their order, after everything else of the block
        # (the re-materializable ops they use stay where they are, before them).
        terminator = block.last_op if block.last_op is not None and _terminates(block.last_op) else None
        for kind, k in order:
            unit = calls[k] if kind == "group" else structural[k]
            unit.detach()
            if terminator is not None:
                Rewriter.insert_op(unit, InsertPoint.before(terminator))
            else:
                block.add_op(unit)
        # Re-materializable ops left without users (their clones live in the groups).
        for op in reversed(list(block.ops)):
            if op in self.remat and not any(r.uses for r in op.results):
                op.detach()
                op.erase()

    # -- memory order ----------------------------------------------------------

    def _schedule(
        self, groups: list[list[Operation]], structural: list[Operation], position
    ) -> tuple[list[tuple[str, int]], tuple | None]:
        """An order of the groups and the loops that stay in the block: whenever
        two of their memory accesses may alias (one of them a store), the one
        written first runs first; loops keep their order; otherwise groups run
        in the order of their last members. When the constraints form a cycle
        (no order of whole groups keeps the program's meaning), returns what
        `_refuse` reports instead of an order."""
        units: list[tuple[str, int, list[Operation]]] = [("group", k, g) for k, g in enumerate(groups)]
        units += [("loop", k, [s]) for k, s in enumerate(structural)]
        key = {i: position[units[i][2][-1]] for i in range(len(units))}
        accesses = []  # (unit, original position of its member, op, kind, view)
        for i, (_, _, members) in enumerate(units):
            for member in members:
                for inner in self.accesses.get(member, ()):  # as before any group moved
                    kind = "load" if isinstance(inner, LoadOp) else "store"
                    accesses.append((i, position[member], inner, kind, self.views[inner]))
        before: dict[int, set[int]] = {i: set() for i in range(len(units))}  # i -> units that must run before i
        why: dict[tuple[int, int], tuple] = {}
        for a in accesses:
            for b in accesses:
                if a[0] != b[0] and a[1] < b[1] and "store" in (a[3], b[3]) and may_alias(a[4], b[4]):
                    before[b[0]].add(a[0])
                    why.setdefault((a[0], b[0]), (a, b))
        loops = sorted((i for i in range(len(units)) if units[i][0] == "loop"), key=lambda i: key[i])
        for x, y in zip(loops, loops[1:]):
            before[y].add(x)
        order: list[int] = []
        done: set[int] = set()
        while len(order) < len(units):
            ready = [i for i in range(len(units)) if i not in done and before[i] <= done]
            if not ready:
                stuck = [i for i in range(len(units)) if i not in done]
                return [], (stuck, why, units)
            pick = min(ready, key=lambda i: key[i])
            order.append(pick)
            done.add(pick)
        return [(units[i][0], units[i][1]) for i in order], None

    @staticmethod
    def _refuse(cycle: tuple) -> None:
        """The located refusal: at a load or store of the cycle, never at a compute."""
        stuck, why, units = cycle
        pairs = [why[(x, y)] for x in stuck for y in stuck if (x, y) in why]
        if not pairs:
            raise error(units[stuck[0]][2][-1], "cannot extract compute groups: their units form a cycle")
        a, b = next(((a, b) for a, b in pairs if (b[0], a[0]) in why), pairs[0])
        raise error(
            b[2],
            f"cannot extract compute groups: this {_describe(b)} must follow a {_describe(a)} of another group, "
            "which must itself follow an access of this one (their views' address ranges are not provably "
            "disjoint): no order of whole groups keeps the program's meaning",
            (a[2], f"the {_describe(a)} it must follow"),
        )

    # -- outlining ---------------------------------------------------------------

    def _name(self) -> str:
        k = 0
        while f"local_schedule_{k}" in self.taken:
            k += 1
        name = f"local_schedule_{k}"
        self.taken.add(name)
        return name

    def _outline(self, group: list[Operation], block: Block, kernel: func.FuncOp) -> Operation:
        members = set(group)
        position = {op: k for k, op in enumerate(block.ops)}  # members and clones' originals keep their order
        inside: set[SSAValue] = set()
        for op in group:
            for inner in walk_ops(op):
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
        Rewriter.insert_op(call, InsertPoint.after(last))  # moved to its place in the order by the caller
        for op in group:
            op.detach()
            body.add_op(op)
        for op in group:
            for inner in walk_ops(op):
                if any(v in mapping for v in inner.operands):
                    inner.operands = [mapping.get(v, v) for v in inner.operands]
        _order_as_written(body, group, clones_map, position)
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
        if self.mark:
            definition.attributes[COMPUTE_GROUP_ATTR] = UnitAttr()
        declaration = func.FuncOp.external(name, [p.type for p in params], [r.type for r in escaping])
        call.location = last.location
        definition.location = declaration.location = kernel.location
        self.groups.append((name, definition, declaration))
        return call

    # -- module --------------------------------------------------------------------

    def run(self) -> None:
        # A function another function calls is a helper, not a kernel: it stays whole and
        # is copied into the groups that call it (`_callees`).
        called = {op.callee.root_reference.data for op in walk_ops(self.module) if isinstance(op, func.CallOp)}
        kernels = [
            op for op in self.module.ops
            if isinstance(op, func.FuncOp) and op.body.blocks and op.sym_name.data not in called
        ]
        for kernel in kernels:
            if len(kernel.body.blocks) != 1:
                raise error(kernel, "cannot extract compute groups from a function with more than one block")
            self._summarize(kernel)
            self._find_remat(kernel)
        for kernel in kernels:
            self.process(kernel.body.block, kernel)
        if not self.groups:
            return
        # Re-materializable ops the groups left without users anywhere in the kernels (an
        # outer loop's index math whose clones live in the groups of its body), users first.
        for kernel in kernels:
            for op in reversed(list(walk_ops(kernel.body))):
                if op in self.remat and not any(r.uses for r in op.results):
                    op.detach()
                    op.erase()
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
            holder = ModuleOp([definition, *_callees(definition, inner)], sym_name=StringAttr(name))
            holder.location = definition.location
            top.add_op(holder)


def _order_as_written(
    body: Block, group: list[Operation], originals: dict[Operation, Operation], position: dict[Operation, int]
) -> None:
    """Order the ops of a group's `body` as dataflow-scheduler's extraction writes them: the
    ops the group spans in its block (from its first member to its last, members and the
    clones of what stood between), in their order, each after the ops it reads, recursively
    (what it reads from before the span comes in first use order). Any topological order
    runs the same; this one is theirs, so their CHECK lines read our output."""
    ops = list(body.ops)
    producer = {r: op for op in ops for r in op.results}
    first, last = position[group[0]], position[group[-1]]

    def written_at(op: Operation) -> int | None:
        at = position.get(originals.get(op, op))
        return at if at is not None and first <= at <= last else None

    span = sorted((op for op in ops if written_at(op) is not None), key=lambda op: written_at(op))
    placed: dict[Operation, None] = {}

    def place(op: Operation) -> None:
        # Iterative post-order over what `op` reads (operands and values its regions capture).
        stack = [(op, iter([v for inner in walk_ops(op) for v in inner.operands]))]
        while stack:
            top, reads = stack[-1]
            value = next(reads, None)
            if value is None:
                stack.pop()
                placed.setdefault(top)
                continue
            source = producer.get(value)
            if source is not None and source is not top and source not in placed:
                stack.append((source, iter([v for inner in walk_ops(source) for v in inner.operands])))

    for op in span:
        for value in [v for inner in walk_ops(op) for v in inner.operands]:
            if (source := producer.get(value)) is not None and source is not op:
                place(source)
    for op in span:
        place(op)
    for op in ops:  # nothing should be left; kept in place if it is
        placed.setdefault(op)
    for op in placed:
        op.detach()
        body.add_op(op)


def _callees(definition: func.FuncOp, module: ModuleOp) -> list[func.FuncOp]:
    """Copies of the functions of `module` that `definition` calls, directly or
    through them: a group's module is a symbol table of its own, so a call in
    the group (`func.call @row_of`) needs its callee beside it."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    copies: list[func.FuncOp] = []
    seen = {definition.sym_name.data}
    pending = [definition]
    while pending:
        for op in walk_ops(pending.pop()):
            if isinstance(op, func.CallOp):
                callee = op.callee.root_reference.data
                if callee not in seen and callee in functions:
                    seen.add(callee)
                    copies.append(functions[callee].clone())
                    pending.append(functions[callee])
    return copies


def _describe(access: tuple) -> str:
    """'load' / 'store', saying when it is a round trip through HBM scratch
    (those are located at the op whose value they carry)."""
    kind, view = access[3], access[4]
    if is_scratch(view.root):
        return f"{kind} of HBM scratch (a round trip of the value computed here, by ktdp-hbm-roundtrip)"
    return kind


def _terminates(op: Operation) -> bool:
    """The terminator of its block (an unregistered op claims every trait)."""
    return op.has_trait(IsTerminator) and op.parent_block() is not None and op is op.parent_block().last_op


def _op_name(op: Operation) -> str:
    """The op's name, also for an unregistered op."""
    name = getattr(op, "op_name", None)
    return name.data if name is not None and hasattr(name, "data") else op.name


def _inside(op: Operation, members: set[Operation]) -> bool:
    node: Operation | None = op
    while node is not None:
        if node in members:
            return True
        node = node.parent_op()
    return False


@dataclass(frozen=True)
class KtdpExtractComputeGroupsPass(ModulePass):
    """Outline every compute group of every kernel (see module docstring)."""

    name = "ktdp-extract-compute-groups"
    changes_ir: ClassVar[bool] = True

    mark: bool = True
    """Mark each group `spyre.compute_group` (what our later stages find groups by); false gives
    dataflow-scheduler's unmarked form (`--compute-group-extraction`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        Extractor(op, mark=self.mark).run()
        fill_locations(op)

