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
tile of a [16, 512, 64] iteration. `cores` (default 32) is the machine's
core count: a kernel whose grid asks for more cores than that is refused
with a located error; a grid of fewer leaves cores idle, which the record
shows.
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
from spyre_mlir.passes.spyre_coarse_tile import group_functions
from spyre_mlir.passes.spyre_emit_bundle import CORE_SPLIT_ATTR

DEFAULT_CORES = 32


def _grid(group: func.FuncOp) -> list[int]:
    attr = group.attributes.get("grid")
    if isinstance(attr, ArrayAttr):
        return [int(a.value.data) for a in attr.data if isinstance(a, IntegerAttr)]
    return [1]


def _depends_on_core(value: SSAValue, memo: dict[SSAValue, bool]) -> bool:
    """Whether `value` is computed from the core id (through any chain of ops)."""
    stack = [value]
    seen: set[SSAValue] = set()
    found = False
    while stack and not found:
        v = stack.pop()
        if v in memo:
            found = memo[v]
            continue
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if isinstance(owner, GetComputeTileIdOp):
            found = True
        elif isinstance(owner, Operation):
            stack.extend(owner.operands)
    if not found:  # nothing reached from `value` depends on the core id
        memo.update(dict.fromkeys(seen, False))
    return found


def core_split(group: func.FuncOp, cores: int) -> dict:
    grid = _grid(group)
    used = math.prod(grid) if grid else 1
    if used > cores:
        raise error(group, f"the kernel's grid {grid} asks for {used} cores; the machine has {cores}")
    memo: dict[SSAValue, bool] = {}
    dims: list[int] = []
    per_core: list[int] | None = None
    for op in group.body.walk():
        if not isinstance(op, StoreOp) or not isinstance(op.data_tile.type, TensorType):
            continue
        tile = op.access_tile.owner
        if per_core is None:
            per_core = list(op.data_tile.type.get_shape())
        if isinstance(tile, ConstructAccessTileOp):
            amap = tile.base_map.data
            for k, expr in enumerate(amap.results):
                positions = sorted(expr.used_dims())
                if any(_depends_on_core(tile.indices[p], memo) for p in positions) and k not in dims:
                    dims.append(k)
    per_iteration = list(per_core) if per_core is not None else []
    if per_core is not None and used > 1 and dims:
        per_iteration[dims[0]] *= used
    return {
        "cores": used,
        "machine_cores": cores,
        "dims": sorted(dims),
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

    cores: int = DEFAULT_CORES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.cores <= 0:
            raise error(op, f"spyre-distribute-work: cores must be positive, got {self.cores}")
        for group in group_functions(op):
            split = core_split(group, self.cores)
            group.attributes[CORE_SPLIT_ATTR] = DictionaryAttr({k: _attr(v) for k, v in split.items()})
