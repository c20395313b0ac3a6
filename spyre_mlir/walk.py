"""Walks over IR without recursion, for every stage.

xDSL's recursive `walk` costs O(depth) per op on deep nests and overflows the
stack on very deep ones; these iterate with an explicit stack. The passes,
the analyses and the interpreter all walk with them.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Block, Operation, Region, SSAValue


def walk_ops(root: Operation | Region | Block) -> Iterator[Operation]:
    """Every op under `root` (and `root` itself if an op), in pre-order, without
    recursion (xDSL's recursive `walk` costs O(depth) per op on deep nests)."""
    if isinstance(root, Operation):
        stack: list = [iter((root,))]
    elif isinstance(root, Region):
        stack = [iter(root.blocks)]
    else:
        stack = [iter((root,))]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        if isinstance(item, Block):
            stack.append(iter(item.ops))
            continue
        yield item
        if item.regions:
            stack.append(iter([b for r in item.regions for b in r.blocks]))


def walk_ops_post(root: Region) -> Iterator[Operation]:
    """Every op of `root` in post-order (nested ops before the op holding them), without recursion."""
    stack: list[tuple[Operation | None, Iterator]] = [(None, iter(root.blocks))]
    while stack:
        owner, it = stack[-1]
        item = next(it, None)
        if item is None:
            stack.pop()
            if owner is not None:
                yield owner
            continue
        if isinstance(item, Block):
            stack.append((None, iter(item.ops)))
        elif item.regions:
            stack.append((item, iter([b for r in item.regions for b in r.blocks])))
        else:
            yield item


def nesting_depth(root: Operation) -> int:
    """Deepest nesting of regions under `root`, without recursion."""
    deepest = 0
    stack = [(root, 0)]
    while stack:
        op, depth = stack.pop()
        deepest = max(deepest, depth)
        for region in op.regions:
            for block in region.blocks:
                stack.extend((inner, depth + 1) for inner in block.ops)
    return deepest


def capture_summaries(root: Region, memo: dict[int, dict[SSAValue, None]] | None = None) -> dict[int, dict]:
    """For `root` and every region under it (by `id`): the values used in it and
    defined outside it, in first-use order. Bottom-up, linear in the IR's size."""
    memo = {} if memo is None else memo

    def summarize(region: Region) -> None:
        used: dict[SSAValue, None] = {}
        defined: set[SSAValue] = set()
        for block in region.blocks:
            defined.update(block.args)
            for inner in block.ops:
                defined.update(inner.results)
                used.update(dict.fromkeys(inner.operands))
                for nested in inner.regions:
                    used.update(memo[id(nested)])
        memo[id(region)] = {v: None for v in used if v not in defined}

    for op in walk_ops_post(root):
        for region in op.regions:
            summarize(region)
    summarize(root)
    return memo
