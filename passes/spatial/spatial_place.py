"""spatial-place: pin the logical blocks of a tiled spatial program to the machine's cores.

After `spatial-tile` every grid point of the kernel is a site of its own.
The machine has `cores` cores (the target's, `spyre_mlir.target`: 32 on
Spyre), each with a load, a compute and a store engine. This pass gives every block a core by its linear tile id (the one
definition, `spyre_mlir.analysis.grid`: grid dim 0 varies fastest by default, so on a
grid [2, 3] block (1, 0) is block 1 and (0, 1) block 2; `grid-order=row-major`
numbers the last dim fastest): block i runs on core i mod `cores`. Where the grid has more blocks than
cores, the blocks sharing a core become one site: their buffers and stages
(and semaphores) move to it, and each of its engines runs the blocks' choreographies one
after the other (in block order), so the site's engine programs are the
concatenation of theirs. Every stage is then pinned: it runs on an engine
its site has (checked; a stage on an engine the core lacks is a located
error). Each site records its core (`core`) and the logical blocks it runs
(`blocks`).

Before (`grid = [64]`, cores=32):

    spatial.site @b0 at [0] engines ["load", "compute", "store"]
    spatial.site @b32 at [32] engines ["load", "compute", "store"]
    spatial.stage @b32_ld0 load @x -> @b32_in0 on @b32 engine "load" ...
    spatial.engine @b32 "load" { spatial.load_step @b32_ld0 }

After:

    spatial.site @b0 at [0] engines ["load", "compute", "store"] {blocks = [[0], [32]], core = 0}
    spatial.stage @b32_ld0 load @x -> @b32_in0 on @b0 engine "load" ...
    spatial.engine @b0 "load" { spatial.load_step @b0_ld0  spatial.load_step @b32_ld0 }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.passes import ModulePass

from spyre_mlir.analysis.grid import DEFAULT_GRID_ORDER, GRID_ORDERS, grid_attr, linear_id
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects import spatial
from spyre_mlir.passes.spatial.phases import advance, programs_in
from spyre_mlir.target import target_of

ENGINES_OF_A_CORE = ("load", "compute", "store")


def _name(ref) -> str:
    return ref.root_reference.data


def _sym(op) -> str:
    return op.get_attr_or_prop("sym_name").data


def _grid(program: spatial.ProgramOp, sites: list[spatial.SiteOp]) -> tuple[int, ...]:
    """The program's `grid` attribute, else the extent of its sites' coordinates."""
    grid = grid_attr(program)
    if grid is not None:
        if all(len(s.coordinates) == len(grid) and all(0 <= c < g for c, g in zip(s.coordinates, grid))
               for s in sites):
            return grid
    rank = max(len(s.coordinates) for s in sites)
    return tuple(max((s.coordinates[d] for s in sites if len(s.coordinates) > d), default=0) + 1
                 for d in range(rank))


def place(program: spatial.ProgramOp, cores: int, grid_order: str = DEFAULT_GRID_ORDER) -> None:
    sites = [s for s in program.of_kind(spatial.SiteOp) if isinstance(s, spatial.SiteOp)]
    if not sites:
        raise error(program, f"spatial-place: program @{program.sym_name.data} has no site")
    for site in sites:
        extra = sorted(set(site.engine_names) - set(ENGINES_OF_A_CORE))
        if extra:
            raise error(site, f"spatial-place: site @{site.sym_name.data} asks for engine \"{extra[0]}\", which a "
                        f"Spyre core does not have (its engines: {', '.join(ENGINES_OF_A_CORE)})")
    grid = _grid(program, sites)
    order = sorted(sites, key=lambda s: linear_id(tuple(s.coordinates), grid, grid_order))
    host: dict[str, spatial.SiteOp] = {}
    blocks: dict[str, list[tuple[int, ...]]] = {}
    for i, site in enumerate(order):
        first = order[i % cores]
        host[site.sym_name.data] = first
        blocks.setdefault(first.sym_name.data, []).append(site.coordinates)
    engines = {(e.site.root_reference.data, e.engine.data): e for e in program.of_kind(spatial.EngineOp)
               if isinstance(e, spatial.EngineOp)}
    for site in order:
        target = host[site.sym_name.data]
        if target is site:
            continue
        ref = SymbolRefAttr(target.sym_name.data)
        host_engine = engines.get((target.sym_name.data, ENGINES_OF_A_CORE[0]))
        moved = {op.sym_name.data for op in program.declarations()
                 if isinstance(op, spatial.BufferOp | spatial.StageOp | spatial.SemaphoreOp)
                 and op.site.root_reference.data == site.sym_name.data}
        for op in list(program.declarations()):
            edge_of_block = isinstance(op, spatial.EdgeOp) and _name(op.producer) in moved
            if not (op.get_attr_or_prop("sym_name") and (_sym(op) in moved or edge_of_block)):
                continue
            if isinstance(op, spatial.BufferOp | spatial.StageOp | spatial.SemaphoreOp):
                op.site = ref
            if host_engine is not None:  # keep a core's declarations together, before its engines
                op.detach()
                program.body.block.insert_op_before(op, host_engine)
        for name in site.engine_names:
            mine = engines.pop((site.sym_name.data, name), None)
            if mine is None:
                continue
            into = engines.get((target.sym_name.data, name))
            if into is None:
                mine.site = ref
                engines[(target.sym_name.data, name)] = mine
                continue
            for op in list(mine.body.block.ops):
                op.detach()
                into.body.block.add_op(op)
            mine.detach()
            mine.erase()
        site.detach()
        site.erase()
    for i, site in enumerate(order[:cores]):
        site.attributes["core"] = IntegerAttr(i, 64)
        site.attributes["blocks"] = ArrayAttr(
            [ArrayAttr([IntegerAttr(c, 64) for c in coords]) for coords in blocks[site.sym_name.data]]
        )
    for stage in program.of_kind(spatial.StageOp):
        assert isinstance(stage, spatial.StageOp)
        site = program.lookup(stage.site.root_reference.data)
        if not isinstance(site, spatial.SiteOp) or stage.engine.data not in site.engine_names:
            raise error(stage, f"spatial-place: stage @{stage.sym_name.data} cannot be pinned: its engine "
                        f"\"{stage.engine.data}\" is not an engine of its site")


@dataclass(frozen=True)
class SpatialPlacePass(ModulePass):
    """Pin the logical blocks of a tiled spatial program to cores and engines (see module docstring)."""

    name = "spatial-place"

    cores: int | None = None
    """Cores of the machine (unset: the target's `cores`)."""

    grid_order: str = DEFAULT_GRID_ORDER
    """Linear block ids (`spyre_mlir.analysis.grid`): col-major (grid dim 0 fastest, default) or row-major."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cores = target_of(op).cores if self.cores is None else self.cores
        if cores < 1:
            raise error(None, f"spatial-place: cores must be at least 1, got {cores}")
        if self.grid_order not in GRID_ORDERS:
            raise error(None, f"spatial-place: grid-order must be {' or '.join(GRID_ORDERS)}, got '{self.grid_order}'")
        for program in programs_in(op, self.name, "tiled"):
            place(program, cores, self.grid_order)
            advance(program, "placed")
