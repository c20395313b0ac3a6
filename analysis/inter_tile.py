"""Inter-tile legality: the cross-op rules of `ktdp.inter_tile_produce` and its delivery op.

The rules of a produce and its delivery op (`ktdp.inter_tile_reduce` /
`ktdp.inter_tile_consume`) that no op verifier can see alone
(docs/inter-tile.md §3; upstream `--ktir-check-legality`). Each check raises
a located error at the first violation, naming the offending set or tiles;
it changes no IR. The `ktdp-check-inter-tile` pass runs them over a module;
the interpreter runs them on each op it decodes, bounded by the grid it runs.

Sets are grounded at concrete groups and tiles (`spyre_mlir.analysis.affine`);
a set with no constant bound is skipped, unless the function's `grid`
attribute (or the caller's `ncores`) bounds the tile ids.

Checked: the future is used exactly once (U1), by a delivery op in the
produce's block (U2); consumer sets of distinct groups disjoint (R1b); for a
reduce, consumers are producers (R13) and either all of them or one (R14); for
a consume with several producers, a `producer_dependency_per_consumer` set is
required (R8a) and gives every consumer exactly one source (R8b); declared
dependencies are producers (R3) and, for a reduce, every producer is claimed
(R4: a consume may leave producers unclaimed, e.g. one producer's tile
broadcast to every consumer); with a grid, no set names a tile outside it
(B1). Tile ids are linear tile ids (`spyre_mlir.analysis.grid`).

`ground_groups` and `ground_delivery` ground the sets on a grid of `ncores`
tiles, as tables indexed by linear tile id (each producer's and consumer's
group, the producers each consumer waits for): what the interpreter runs and
the cost model prices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import AffineSetAttr, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from spyre_mlir.analysis.affine import format_set
from spyre_mlir.analysis.grid import grid_attr
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import (
    InterTileConsumeOp,
    InterTileProduceOp,
    InterTileReduceOp,
    TileFutureType,
    enumerate_groups,
    enumerate_tiles,
)


def _tiles(ts: list[int]) -> str:
    return ", ".join(map(str, ts))


def _grid_size(op: Operation) -> int | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    if parent is None:
        return None
    grid = grid_attr(parent)
    return None if grid is None else math.prod(grid)


def _check_in_grid(op: Operation, tiles: AffineSetAttr, name: str, groups: list[int], ncores: int | None) -> None:
    if ncores is None:
        return
    for g in groups:
        ts = enumerate_tiles(tiles, (g,))
        outside = [t for t in ts or () if t >= ncores]
        if outside:
            raise error(op, f"{name} for group {g} names tiles {_tiles(outside)}, outside the grid of {ncores} tiles")


def check_produce(op: InterTileProduceOp, ncores: int | None = None) -> None:
    """The rules of one produce (U1, B1); tile ids are bounded by `ncores`
    (default: the enclosing function's `grid` attribute)."""
    uses = len(list(op.future.uses))
    if uses != 1:
        raise error(op, f"future result must have exactly one use, has {uses}")
    future = op.future.type
    assert isinstance(future, TileFutureType) and isinstance(future.groups, AffineSetAttr)
    groups = enumerate_groups(future.groups)
    if groups is not None:
        ncores = _grid_size(op) if ncores is None else ncores
        _check_in_grid(op, op.producer_tiles_per_group, "producer_tiles_per_group", groups, ncores)


def check_delivery(op: InterTileReduceOp | InterTileConsumeOp, ncores: int | None = None) -> None:
    """The rules of one delivery op (U2, R1b, R13, R14, R8a, R8b, R3, R4, B1);
    tile ids are bounded by `ncores` (default: the function's `grid` attribute)."""
    what = op.name
    produce = op.future.owner
    if not isinstance(produce, InterTileProduceOp) or produce.parent_block() is not op.parent_block():
        raise error(op, f"the future of {what} must be the result of a ktdp.inter_tile_produce in the same block")
    future = op.future.type
    assert isinstance(future, TileFutureType) and isinstance(future.groups, AffineSetAttr)
    groups = enumerate_groups(future.groups)
    if groups is None:
        return
    ncores = _grid_size(op) if ncores is None else ncores
    consumers_set = op.consumer_tiles_per_group
    dep = op.producer_dependency_per_consumer
    _check_in_grid(op, consumers_set, "consumer_tiles_per_group", groups, ncores)
    owner: dict[int, int] = {}
    for g in groups:
        for t in enumerate_tiles(consumers_set, (g,), ncores) or ():
            if t in owner:
                raise error(
                    op, f"consumer_tiles_per_group for groups {owner[t]} and {g} are not disjoint: tile {t} is in both"
                )
            owner[t] = g
    for g in groups:
        producers = enumerate_tiles(produce.producer_tiles_per_group, (g,), ncores)
        consumers = enumerate_tiles(consumers_set, (g,), ncores)
        if producers is None or consumers is None:
            continue
        if isinstance(op, InterTileReduceOp):
            outsiders = [c for c in consumers if c not in producers]
            if outsiders:
                raise error(
                    op,
                    f"consumer_tiles_per_group for group {g} is not a subset of producer_tiles_per_group: "
                    f"tiles {_tiles(outsiders)} consume but do not produce",
                )
            if consumers != producers and len(consumers) > 1:
                raise error(
                    op,
                    f"consumer_tiles_per_group for group {g} is a strict subset of producer_tiles_per_group "
                    "with more than one tile (reduce-to-subset is unsupported; only all-reduce and reduce-to-one "
                    "are supported)",
                )
        if dep is None:
            if isinstance(op, InterTileConsumeOp) and consumers:
                if len(producers) > 1:
                    raise error(
                        op,
                        f"producer_tiles_per_group for group {g} has {len(producers)} producers, so "
                        "producer_dependency_per_consumer is required to name each consumer tile's single source",
                    )
                if not producers:
                    raise error(
                        op,
                        f"consumer tile {consumers[0]} in group {g} depends on 0 producers; inter_tile_consume "
                        "delivers one contribution per consumer tile, so exactly one is required",
                    )
            continue
        sources: dict[int, list[int] | None] = {}
        for c in consumers:
            syms = (c,) if dep.data.num_symbols == 1 else (c, g)
            sources[c] = enumerate_tiles(dep, syms, ncores)
        if isinstance(op, InterTileConsumeOp):
            for c, d in sources.items():
                if d is not None and len(d) != 1:
                    listed = f": tiles {_tiles(d)}" if d else ""
                    raise error(
                        op,
                        f"consumer tile {c} in group {g} depends on {len(d)} producers; inter_tile_consume "
                        f"delivers one contribution per consumer tile, so exactly one is required{listed}",
                    )
        for c, d in sources.items():
            for p in d or ():
                if p not in producers:
                    raise error(
                        op,
                        f"producer_dependency_per_consumer for consumer {c} group {g} references producer tile {p} "
                        "which is not in producer_tiles_per_group",
                    )
        # R4 is a rule of reduce only (KTDP-SEMANTICS §8, upstream's legality
        # pass): a consume may leave producers unclaimed, e.g. one producer's
        # tile broadcast to every consumer.
        if isinstance(op, InterTileReduceOp) and all(d is not None for d in sources.values()):
            claimed = {p for d in sources.values() for p in d or ()}
            for p in producers:
                if p not in claimed:
                    raise error(
                        op,
                        f"producer_dependency_per_consumer for group {g} does not cover producer tile {p} "
                        "(no consumer has it as a dependency)",
                    )


def check_inter_tile(module: ModuleOp) -> None:
    """Every inter-tile op of `module`, tile ids bounded by each function's `grid`."""
    for inner in module.walk():
        if isinstance(inner, InterTileProduceOp):
            check_produce(inner)
        elif isinstance(inner, InterTileReduceOp | InterTileConsumeOp):
            check_delivery(inner)


# ---------------------------------------------------------------------------
# The sets grounded on a grid (what the interpreter and the cost model run)
# ---------------------------------------------------------------------------


@dataclass
class Groups:
    """The groups of a future, grounded on a grid of `ncores` tiles."""

    ids: list[int]
    group_of_producer: np.ndarray  # int64 per core id: its group, -1 if it produces for none
    producers: dict[int, list[int]]  # group -> producer tiles, ascending


def ground_groups(produce: InterTileProduceOp, ncores: int) -> Groups:
    """The groups of `produce` and their producer tiles on a grid of `ncores` tiles (tiles past it dropped);
    a groups set without constant bounds, or two groups sharing a producer, is a located error."""
    future = produce.future.type
    assert isinstance(future, TileFutureType) and isinstance(future.groups, AffineSetAttr)
    ids = enumerate_groups(future.groups)
    if ids is None:
        raise error(produce, f"the groups set affine_set<{format_set(future.groups.data)}> has no constant bounds or spans more than 2^20 groups: "
            "the interpreter cannot enumerate its groups")
    group_of = np.full(ncores, -1, np.int64)
    producers: dict[int, list[int]] = {}
    for g in ids:
        tiles = enumerate_tiles(produce.producer_tiles_per_group, (g,), ncores) or []
        tiles = [t for t in tiles if t < ncores]
        for t in tiles:
            if group_of[t] >= 0:
                raise error(
                    produce,
                    f"producer_tiles_per_group for groups {int(group_of[t])} and {g} are not disjoint: "
                    f"tile {t} is in both",
                )
            group_of[t] = g
        producers[g] = tiles
    return Groups(ids, group_of, producers)


@dataclass
class Delivery:
    """A delivery op grounded on the grid: who consumes, and whom each consumer needs."""

    group_of_consumer: np.ndarray  # int64 per core id, -1 for non-consumers
    needs: np.ndarray  # (cores, width) int64: the producers each consumer waits for, -1 padded
    groups: Groups


def ground_delivery(op: InterTileReduceOp | InterTileConsumeOp, ncores: int) -> Delivery:
    """`op` checked (`check_delivery`) and grounded on a grid of `ncores` tiles: each consumer's group and
    the producers it waits for (its group's, or those its dependency set names)."""
    check_delivery(op, ncores)
    produce = op.future.owner
    assert isinstance(produce, InterTileProduceOp)  # U2, checked above
    groups = ground_groups(produce, ncores)
    group_of_consumer = np.full(ncores, -1, np.int64)
    needs: dict[int, list[int]] = {}
    dep = op.producer_dependency_per_consumer
    for g in groups.ids:
        for c in enumerate_tiles(op.consumer_tiles_per_group, (g,), ncores) or []:
            if c >= ncores:
                continue
            if group_of_consumer[c] >= 0:
                raise error(
                    op,
                    f"consumer_tiles_per_group for groups {int(group_of_consumer[c])} and {g} are not disjoint: "
                    f"tile {c} is in both",
                )
            group_of_consumer[c] = g
            if dep is None:
                needs[c] = groups.producers[g]
            else:
                syms = (c,) if dep.data.num_symbols == 1 else (c, g)
                needs[c] = [p for p in enumerate_tiles(dep, syms, ncores) or [] if p in groups.producers[g]]
    width = max((len(v) for v in needs.values()), default=0)
    table = np.full((ncores, max(width, 1)), -1, np.int64)
    for c, ps in needs.items():
        table[c, : len(ps)] = ps
    return Delivery(group_of_consumer, table, groups)


__all__ = ["Delivery", "Groups", "check_delivery", "check_inter_tile", "check_produce", "ground_delivery", "ground_groups"]
