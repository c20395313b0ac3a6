"""spyre-distribute-work: record how each compute group's work is split across the cores.

A KTIR kernel is a per-core program: each core finds its share of the work
from `ktdp.get_compute_tile_id`, and the kernel's `grid` says how many
cores run it. This pass reads that split for every compute group (after
`spyre-coarse-tile`, so per iteration of its loops) and records it on the
group, for the bundle's SDSC files (seed 000's `op_it_space_splits`).

Before:

    func.func @local_schedule_0(...) attributes {grid = [32, 1]} {
      %core = ktdp.get_compute_tile_id : index
      %row = arith.muli %core, %c32 : index
      %t = ktdp.construct_access_tile %v[%c0, %row, %c0] ...   // per core: [16, 16, 64]
      ktdp.store %z, %t ...

After: the group gets `spyre.core_split = {cores = 32, dims = [1], per_core = [16, 16, 64],
per_iteration = [16, 512, 64]}`: 32 cores, the core id moves the stores
along dim 1 of the iteration space, each core computes a [16, 16, 64]
tile of a [16, 512, 64] iteration. `cores` (default: the target's) is the
machine's core count: a kernel whose grid asks for more cores than that is
refused with a located error; a grid of fewer leaves cores idle, which the
record shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import ConstructAccessTileOp, GetComputeTileIdOp, StoreOp
from spyre_mlir.dialects.spyre import CORE_SPLIT_ATTR
from spyre_mlir.passes.contracts import require_groups
from spyre_mlir.target import target_of


def _grid(group: func.FuncOp) -> list[int]:
    attr = group.attributes.get("grid")
    if isinstance(attr, ArrayAttr):
        return [int(a.value.data) for a in attr.data if isinstance(a, IntegerAttr)]
    return [1]


def _grid_coordinates(value: SSAValue, memo: dict[SSAValue, frozenset[int]]) -> frozenset[int]:
    """The grid coordinates (results of `ktdp.get_compute_tile_id`) `value` is computed from."""
    if value in memo:
        return memo[value]
    order: list[SSAValue] = []
    stack, seen = [value], set()
    while stack:  # post-order without recursion
        v = stack.pop()
        if v in seen or v in memo:
            continue
        seen.add(v)
        order.append(v)
        if isinstance(v.owner, Operation) and not isinstance(v.owner, GetComputeTileIdOp):
            stack.extend(v.owner.operands)
    for v in reversed(order):
        owner = v.owner
        if isinstance(owner, GetComputeTileIdOp):
            memo[v] = frozenset([v.index])  # pyright: ignore[reportAttributeAccessIssue]
        elif isinstance(owner, Operation):
            memo[v] = frozenset().union(*(memo.get(x, frozenset()) for x in owner.operands))
        else:
            memo[v] = frozenset()
    return memo[value]


def core_split(group: func.FuncOp, cores: int) -> dict:
    grid = _grid(group)
    used = math.prod(grid) if grid else 1
    if used > cores:
        raise error(group, f"the kernel's grid {grid} asks for {used} cores; the machine has {cores}")
    memo: dict[SSAValue, frozenset[int]] = {}
    moved_by: dict[int, set[int]] = {}  # grid coordinate -> dims of the iteration space it moves
    per_core: list[int] | None = None
    for op in group.body.walk():
        if not isinstance(op, StoreOp) or not isinstance(op.data_tile.type, TensorType):
            continue
        tile = op.access_tile.owner
        if per_core is None:
            per_core = list(op.data_tile.type.get_shape())
        if isinstance(tile, ConstructAccessTileOp):
            for k, expr in enumerate(tile.base_map.data.results):
                for p in sorted(expr.used_dims()):
                    for g in _grid_coordinates(tile.indices[p], memo):
                        moved_by.setdefault(g, set()).add(k)
    per_iteration = list(per_core or [])
    for g, dims in moved_by.items():
        if g < len(grid) and per_iteration and len(dims) == 1:
            (d,) = dims
            if d < len(per_iteration):
                per_iteration[d] *= grid[g]
    return {
        "cores": used,
        "machine_cores": cores,
        "dims": sorted(set().union(*moved_by.values())) if moved_by else [],
        "per_core": per_core or [],
        "per_iteration": per_iteration,
    }


def _attr(value) -> object:
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    return ArrayAttr([IntegerAttr(v, i64) for v in value])


@dataclass(frozen=True)
class SpyreDistributeWorkPass(ModulePass):
    """Record each compute group's split across the cores (see the module docstring)."""

    name = "spyre-distribute-work"

    cores: int | None = None
    """Cores of the machine (unset: the target's `cores`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cores = target_of(op).cores if self.cores is None else self.cores
        if cores <= 0:
            raise error(op, f"spyre-distribute-work: cores must be positive, got {cores}")
        for group in require_groups(op, self.name):
            split = core_split(group, cores)
            group.attributes[CORE_SPLIT_ATTR] = DictionaryAttr({k: _attr(v) for k, v in split.items()})
