"""SSA dominance, checked as MLIR's verifier checks it.

xDSL 0.75 never checks that an operand is defined before it is used: it
accepts `%0 = arith.addi %1, %1` above `%1 = ...`, a value from a block that
does not dominate the use, or (in IR built by a pass) a value from a region
that does not enclose the use. The interpreter then crashes on such IR.
`verify_dominance(op)` rejects it with MLIR's diagnostic
(`operand #N does not dominate this use`, and a note where the operand is
defined), following MLIR's rules (mlir/lib/IR/Verifier.cpp, Dominance.cpp):

- In an SSACFG region, a value is visible in the rest of its block after its
  definition, in the blocks its block dominates, and in every region nested
  there. An op's own results are not visible in its own regions.
- In a graph region (the body of `builtin.module`, and every region of an
  unregistered op, as in MLIR), the values of a block are visible everywhere
  in the block, in any order.
- Ops directly in a block unreachable from the region's entry are not
  checked, and, seen from inside their nested regions, every other block of
  that region dominates them (LLVM's dominator-tree convention).

It is linear in the size of the IR: one walk with a scoped set of visible
values (each value added and removed once, each operand looked up once), and
per multi-block region a dominator tree (Cooper, Harvey and Kennedy's
iterative algorithm over reverse post-order). The walk is iterative, so
deeply nested IR needs no deep Python stack.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue

from spyre_mlir.diagnostics import error

GRAPH_REGION_OPS: frozenset[str] = frozenset({"builtin.module"})
"""Registered ops whose regions are graph regions (MLIR's RegionKindInterface
returning `Graph`); every other registered op has SSACFG regions."""


def verify_dominance(root: Operation) -> None:
    """Raise a located `DiagnosticError` at the first op (in walk order) with
    an operand that does not dominate it, noting where that operand is defined."""
    found = first_violation(root)
    if found is None:
        return
    op, index = found
    raise error(op, f"operand #{index} does not dominate this use", _defined_here_note(op, op.operands[index]))


def has_ssa_dominance(region: Region) -> bool:
    """False for graph regions (see module docstring)."""
    op = region.parent
    return op is None or not (isinstance(op, UnregisteredOp) or op.name in GRAPH_REGION_OPS)


def first_violation(root: Operation) -> tuple[Operation, int] | None:
    """(op, operand index) of the first use not dominated by its definition."""
    visible: set[SSAValue] = set()
    # Region -> its unreachable block being walked: seen from inside that
    # block's nested regions, every other block of the region dominates.
    unreachable_in: dict[Region, Block] = {}

    def is_visible(value: SSAValue) -> bool:
        if value in visible:
            return True
        if not unreachable_in:
            return False
        block = value.owner if isinstance(value, BlockArgument) else value.owner.parent
        if block is None or block.parent is None:
            return False
        walking = unreachable_in.get(block.parent)
        return walking is not None and walking is not block

    # A stack of tasks (last pushed runs first), so that an op's regions are
    # walked after the check of its operands and before its results are defined.
    tasks: list[tuple[int, object]] = [(_REGIONS, root)]
    while tasks:
        kind, item = tasks.pop()
        if kind == _CHECK:
            for index, operand in enumerate(item.operands):  # type: ignore[attr-defined]
                if not is_visible(operand):
                    return item, index  # type: ignore[return-value]
        elif kind == _DEFINE:
            visible.update(item)  # type: ignore[arg-type]
        elif kind == _UNDEFINE:
            visible.difference_update(item)  # type: ignore[arg-type]
        elif kind == _REGIONS:
            for region in reversed(item.regions):  # type: ignore[attr-defined]
                _schedule_region(region, tasks)
        elif kind == _SUBTREE:
            block, children, ssa = item  # type: ignore[misc]
            subtrees = [(_SUBTREE, (child, children, ssa)) for child in children.get(block, ())]
            _schedule_block(block, ssa, True, tasks, then=subtrees)
        elif kind == _ENTER_UNREACHABLE:
            region, block = item  # type: ignore[misc]
            unreachable_in[region] = block
        else:  # _LEAVE_UNREACHABLE
            del unreachable_in[item]  # type: ignore[arg-type]
    return None


_CHECK, _DEFINE, _UNDEFINE, _REGIONS, _SUBTREE, _ENTER_UNREACHABLE, _LEAVE_UNREACHABLE = range(7)


def _schedule_region(region: Region, tasks: list) -> None:
    """Push the tasks that walk `region`."""
    blocks = list(region.blocks)
    if not blocks:
        return
    ssa = has_ssa_dominance(region)
    if len(blocks) == 1:
        _schedule_block(blocks[0], ssa, True, tasks)
        return
    children, reachable = _dominator_tree(blocks)
    # Unreachable blocks run last, each on its own.
    for block in reversed(blocks):
        if block not in reachable:
            tasks.append((_LEAVE_UNREACHABLE, region))
            _schedule_block(block, ssa, False, tasks)
            tasks.append((_ENTER_UNREACHABLE, (region, block)))
    # Reachable blocks in dominator-tree pre-order: a block's values stay
    # visible while the blocks it dominates are walked.
    tasks.append((_SUBTREE, (blocks[0], children, ssa)))


def _schedule_block(block: Block, ssa: bool, reachable: bool, tasks: list, then: list | tuple = ()) -> None:
    """Push the tasks of one block: define its arguments; per op, check the
    operands (if the block is reachable), walk the regions, define the
    results; then run `then`; finally forget the block's values."""
    ops = list(block.ops)
    defined: list[SSAValue] = list(block.args)
    for op in ops:
        defined.extend(op.results)
    tasks.append((_UNDEFINE, defined))
    tasks.extend(reversed(then))
    if not ssa:  # graph region: every value of the block visible throughout
        for op in reversed(ops):
            if op.regions:
                tasks.append((_REGIONS, op))
            if reachable and op.operands:
                tasks.append((_CHECK, op))
        tasks.append((_DEFINE, defined))
        return
    for op in reversed(ops):
        if op.results:
            tasks.append((_DEFINE, op.results))
        if op.regions:
            tasks.append((_REGIONS, op))
        if reachable and op.operands:
            tasks.append((_CHECK, op))
    if block.args:
        tasks.append((_DEFINE, block.args))


def _dominator_tree(blocks: list[Block]) -> tuple[dict[Block, list[Block]], set[Block]]:
    """Children in the dominator tree, and the blocks reachable from the entry."""
    entry = blocks[0]
    # Reverse post-order by an iterative depth-first search.
    post: list[Block] = []
    seen = {entry}
    stack: list[tuple[Block, list[Block]]] = [(entry, _successors(entry))]
    while stack:
        block, succs = stack[-1]
        if succs:
            nxt = succs.pop()
            if nxt not in seen and nxt.parent is entry.parent:
                seen.add(nxt)
                stack.append((nxt, _successors(nxt)))
        else:
            post.append(block)
            stack.pop()
    rpo = post[::-1]
    number = {b: i for i, b in enumerate(rpo)}
    preds: dict[Block, list[Block]] = {b: [] for b in rpo}
    for b in rpo:
        for s in _successors(b):
            if s in preds:
                preds[s].append(b)
    idom: dict[Block, Block] = {entry: entry}

    def intersect(a: Block, b: Block) -> Block:
        while a is not b:
            while number[a] > number[b]:
                a = idom[a]
            while number[b] > number[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new = None
            for p in preds[b]:
                if p in idom:
                    new = p if new is None else intersect(p, new)
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    children: dict[Block, list[Block]] = {}
    for b in rpo[1:]:
        children.setdefault(idom[b], []).append(b)
    return children, seen


def _successors(block: Block) -> list[Block]:
    last = block.last_op
    return list(last.successors) if last is not None else []


# ---------------------------------------------------------------------------
# The note: where the operand is defined, in MLIR's words
# ---------------------------------------------------------------------------


def _is_proper_ancestor(outer: Region, inner: Region) -> bool:
    """Whether `inner` is nested (strictly) inside `outer`."""
    op = inner.parent
    while op is not None:
        region = op.parent_region()
        if region is outer:
            return True
        op = region.parent if region is not None else None
    return False


def _defined_here_note(user: Operation, value: SSAValue) -> tuple[Operation | None, str]:
    use_block = user.parent
    use_region = use_block.parent if use_block is not None else None
    if isinstance(value, BlockArgument):
        def_block = value.owner
        def_region = def_block.parent
        where = def_region.parent if def_region is not None else None
        if def_region is None:
            return where, " (block without parent)"
        index = list(def_region.blocks).index(def_block)
        if use_region is def_region:
            rel = "in the same region"
        elif use_region is not None and _is_proper_ancestor(def_region, use_region):
            rel = "in a parent region"
        elif use_region is not None and _is_proper_ancestor(use_region, def_region):
            rel = "in a child region"
        else:
            rel = "neither in a parent nor in a child region"
        return where, f"operand defined as a block argument (block #{index} {rel})"
    definer = value.owner
    assert isinstance(definer, Operation)
    def_block = definer.parent
    def_region = def_block.parent if def_block is not None else None
    if def_block is use_block:
        rel = "op in the same block"
    elif def_region is use_region:
        rel = "op in the same region"
    elif def_region is not None and use_region is not None and _is_proper_ancestor(def_region, use_region):
        rel = "op in a parent region"
    elif def_region is not None and use_region is not None and _is_proper_ancestor(use_region, def_region):
        rel = "op in a child region"
    else:
        rel = "op is neither in a parent nor in a child region"
    return definer, f"operand defined here ({rel})"
