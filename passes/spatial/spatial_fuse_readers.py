"""spatial-fuse-readers: one load for a tile several sites read, delivered by multicast.

In a placed program each site loads its own tiles from HBM. Where several
sites load the same tile at the same point of their choreography (the same
tensor, the same tile type, the same origin map, and load steps at the same
place of loop nests with the same counts), the tile is read from HBM once:
the first of those sites (in site order) keeps its load stage as the
reader of a `spatial.multicast` group whose targets are the other sites,
whose load stages become `receive` stages of the group (same buffer, so
their consumers are unchanged) and whose load steps are removed: the
reader's step delivers the tile into every target's buffer. HBM traffic
for that tile drops by the number of targets; the plan summary reports the
groups.

Before (a matmul: sites @b0_0 and @b0_1 both read the A tile of row block 0):

    spatial.stage @b0_0_ld0 load @a -> @b0_0_in0 on @b0_0 engine "load" origin affine_map<(d0) -> (0, d0 * 128)>
    spatial.stage @b0_1_ld0 load @a -> @b0_1_in0 on @b0_1 engine "load" origin affine_map<(d0) -> (0, d0 * 128)>
    spatial.engine @b0_1 "load" { spatial.loop %k = 0 to 16 { spatial.load_step @b0_1_ld0 [%k] ... } }

After:

    spatial.stage @b0_0_ld0 load @a -> @b0_0_in0 on @b0_0 engine "load" origin affine_map<(d0) -> (0, d0 * 128)>
    spatial.stage @b0_1_ld0 receive @g0 -> @b0_1_in0 on @b0_1 engine "load"
    spatial.multicast @g0 reader @b0_0_ld0 to [@b0_1]
    spatial.engine @b0_1 "load" { spatial.loop %k = 0 to 16 { ... } }      // its A load step is gone

Option `multicast=false` leaves the program as it is (only the phase moves
on), the baseline for measuring what fusing saves.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from spyre_mlir.dialects import spatial
from spyre_mlir.passes.spatial.phases import advance, programs_in


def _path(step: Operation) -> tuple:
    """Where `step` sits in its engine: the (position, bounds) of each enclosing loop and its own position."""
    path: list = []
    op: Operation | None = step
    while op is not None and not isinstance(op, spatial.EngineOp):
        block = op.parent_block()
        assert block is not None
        position = list(block.ops).index(op)
        bounds = op.bounds if isinstance(op, spatial.LoopOp) else None
        path.append((position, bounds))
        op = block.parent_op()
    return tuple(reversed(path))


def fuse(program: spatial.ProgramOp) -> int:
    """Fuse the readers of `program`; the number of multicast groups made."""
    buffers = {b.sym_name.data: b for b in program.of_kind(spatial.BufferOp) if isinstance(b, spatial.BufferOp)}
    steps: dict[str, list[Operation]] = {}
    for op in program.walk():
        if isinstance(op, spatial.LoadStepOp):
            steps.setdefault(op.stage.root_reference.data, []).append(op)
    taken = {g.sym_name.data for g in program.of_kind(spatial.MulticastOp) if isinstance(g, spatial.MulticastOp)}
    groups: dict[tuple, list[tuple[spatial.StageOp, Operation]]] = {}
    for stage in program.of_kind(spatial.StageOp):
        assert isinstance(stage, spatial.StageOp)
        if stage.kind_name != "load" or len(steps.get(stage.sym_name.data, [])) != 1:
            continue  # a stage stepped from several places keeps its own loads
        step = steps[stage.sym_name.data][0]
        tile = buffers[stage.output_names[0]].tile
        key = (stage.input_names[0], str(stage.properties.get("origin")), tile, _path(step))
        groups.setdefault(key, []).append((stage, step))
    made = 0
    for members in groups.values():
        by_site: dict[str, tuple[spatial.StageOp, Operation]] = {}
        for stage, step in members:
            by_site.setdefault(stage.site.root_reference.data, (stage, step))
        if len(by_site) < 2:
            continue
        (reader, _), *rest = by_site.values()
        name = f"g{made}"
        while name in taken:
            made += 1
            name = f"g{made}"
        taken.add(name)
        made += 1
        group = spatial.MulticastOp(name, reader.sym_name.data, [s.site.root_reference.data for s, _ in rest])
        for stage, step in rest:
            stage.kind = StringAttr("receive")
            stage.inputs = ArrayAttr([SymbolRefAttr(name)])
            stage.properties.pop("origin", None)
            stage.attributes.pop(spatial.MASKED_ATTR, None)  # it receives the reader's tile, already padded
            step.detach()
            step.erase()
        program.body.block.insert_op_after(group, reader)
    return made


@dataclass(frozen=True)
class SpatialFuseReadersPass(ModulePass):
    """Make one load and a multicast group of the loads of one tile by several sites (see module docstring)."""

    name = "spatial-fuse-readers"

    multicast: bool = True
    """Fuse (true) or only move the phase on (false: the baseline without multicast)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for program in programs_in(op, self.name, "placed"):
            if self.multicast:
                fuse(program)
            advance(program, "fused")
