"""spatial-size-buffers: the depth and the LX offset of every buffer of a fused spatial program.

Each `spatial.program` in phase "fused" (the output of spatial-fuse-readers:
every buffer of depth 1, without an offset, no semaphore or handshake yet)
moves to phase "sized":

- Depth. A FIFO buffer (every buffer not `local`) gets `depth` slots
  (option `depth=N`, default 2: double buffering, the producer fills one
  slot while the consumer drains the other) when a step that produces into
  it lies inside a `spatial.loop` of more than one iteration (a loop run to
  a trip counts at its greatest count), else 1 (a single tile flows through
  it). The step that produces into a buffer is a step of its producer
  stage; for the buffer of a `receive` stage, a step of the multicast
  group's reader, which delivers every tile into the buffer of each receive
  stage of the group. A local buffer (one engine's variable) keeps depth 1.
- Offset. Per site, first fit from byte 0 over the buffers placed before
  (spyre_mlir.analysis.allocation, aligned to the target's
  `alignment_bytes`, as spyre-plan-scratchpad): FIFO buffers first, in
  declaration order, then the locals by engine and first use. Bytes are
  shared only where that is provably safe: two locals of the same engine
  whose live ranges do not overlap. A local's live range runs from the
  first to the last step of a stage touching it, in its engine's program
  order, a step inside a loop standing for the whole outermost loop around
  it (so a value carried across iterations stays live across them). A FIFO
  buffer, filled and drained by two engines running concurrently, gets its
  own bytes; so does a local no stage touches.

The LX budget of a site is the program's `lx_bytes` (default 2 MiB); option
`lx-bytes=N` replaces it (and is recorded as the program's `lx_bytes`, so the
verifier and the interpreter use the same budget). The peak LX bytes each
site uses (the end of its highest buffer) is recorded as
`spatial.lx_bytes_used = {site = bytes, ...}` on the program.

Refused, each with a located error, before anything changes:

- a program in another phase (phases.programs_in);
- a site whose buffers do not fit its LX, at the program: "site @b3 needs
  2359296 bytes of LX for its buffers (@b3_x: 2 x 1048576, ...), more than
  its 2097152" (the buffers biggest first, as depth x tile bytes);
- a FIFO buffer without exactly one producer stage and one consumer stage,
  or one whose producer or consumer stage is never stepped by any engine;
  a local buffer touched by a stage other than a compute stage, or by
  stages of two engines (at the buffer).

Before:

    spatial.program @vadd attributes {spatial.phase = "fused"} {
      ...
      spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 1
      spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1
      spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 1 local
      ...
      spatial.engine @s0 "load" {
        spatial.loop %k = 0 to 4 {
          spatial.load_step @ldx [%k]
        }
      }
      ...
    }

After (@bx filled 4 times in a loop: double buffered; @bz filled once):

    spatial.program @vadd attributes {spatial.phase = "sized",
        spatial.lx_bytes_used = {s0 = 10240 : i64}} {
      ...
      spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
      spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 4096
      spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 6144
      ...
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from spyre_mlir.analysis.allocation import Slot, allocate
from spyre_mlir.analysis.flows import Flow, flows, steps_by_stage
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.spatial import (
    LX_ATTR,
    BufferOp,
    EngineOp,
    LoopOp,
    ProgramOp,
    SiteOp,
)
from spyre_mlir.passes.spatial.phases import advance, programs_in
from spyre_mlir.target import target_of

LX_USED_ATTR = "spatial.lx_bytes_used"
"""Program attribute: the peak LX bytes of each site's buffers, {site = bytes}."""

__all__ = ["LX_USED_ATTR", "SizePlan", "SpatialSizeBuffersPass", "plan_sizes", "size_program"]


def _sym(ref) -> str:
    return ref.root_reference.data


# ---------------------------------------------------------------------------
# Depths
# ---------------------------------------------------------------------------


def _in_a_repeating_loop(op: Operation) -> bool:
    current = op.parent_op()
    while current is not None and not isinstance(current, EngineOp):
        if isinstance(current, LoopOp):
            lower, upper = current.bounds  # a loop run to a trip: at its greatest count
            if upper - lower > 1:
                return True
        current = current.parent_op()
    return False


def _depths(flow_of: dict[str, Flow], steps: dict[str, list[Operation]], depth: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, flow in flow_of.items():
        if flow.local:
            out[name] = 1
            continue
        assert flow.filler is not None
        looped = any(_in_a_repeating_loop(s) for s in steps.get(flow.filler.sym_name.data, []))
        out[name] = depth if looped else 1
    return out


# ---------------------------------------------------------------------------
# Offsets: first fit per site, locals of one engine sharing where their live ranges allow
# ---------------------------------------------------------------------------


@dataclass
class _Slot(Slot):
    """A buffer's bytes on its site. `engine`: a local's engine, whose live range is `start` to `end`
    in that engine's program order; None: a FIFO (or an untouched local), live throughout."""

    buffer: BufferOp | None = None
    engine: tuple[str, str] | None = None


def _conflicts(a: _Slot, b: _Slot) -> bool:
    """Whether `a` and `b` may be live at once: only two locals of one engine can be shown not to be."""
    if a.engine is None or b.engine is None or a.engine != b.engine:
        return True
    return a.start <= b.end and b.start <= a.end


def _top_position(op: Operation, engine: EngineOp) -> int:
    """The position in `engine`'s body of the top-level op holding `op` (its outermost loop)."""
    current = op
    while current.parent_op() is not engine:
        parent = current.parent_op()
        assert parent is not None
        current = parent
    return list(engine.body.block.ops).index(current)


def _place_site(slots: list[_Slot], alignment: int) -> int:
    """Offsets for the slots of one site (first fit, in the order given); the site's peak bytes."""
    return allocate(slots, alignment, conflicts=_conflicts).peak


@dataclass
class SizePlan:
    """The depth and offset of every buffer of a program, not applied yet."""

    program: ProgramOp
    slots: list[_Slot]
    depths: dict[str, int]
    peaks: dict[str, int]
    lx_bytes: int | None

    def apply(self) -> None:
        for slot in self.slots:
            assert slot.buffer is not None and slot.offset is not None
            slot.buffer.depth = IntegerAttr(self.depths[slot.buffer.sym_name.data], i64)
            slot.buffer.offset = IntegerAttr(slot.offset, i64)
        if self.lx_bytes is not None:
            self.program.attributes[LX_ATTR] = IntegerAttr(self.lx_bytes, i64)
        self.program.attributes[LX_USED_ATTR] = DictionaryAttr(
            {s: IntegerAttr(p, i64) for s, p in self.peaks.items()}
        )


def size_program(program: ProgramOp, depth: int = 2, lx_bytes: int | None = None) -> dict[str, int]:
    """Set the depth and offset of every buffer of `program` (see the module
    docstring); the peak LX bytes of each site."""
    plan = plan_sizes(program, depth, lx_bytes)
    plan.apply()
    return plan.peaks


def plan_sizes(program: ProgramOp, depth: int = 2, lx_bytes: int | None = None) -> SizePlan:
    """The depth and offset of every buffer of `program`, changing nothing;
    a located error when a site's buffers do not fit."""
    name = "spatial-size-buffers"
    flow_of = flows(program, name)
    steps = steps_by_stage(program)
    depths = _depths(flow_of, steps, depth)
    engines = {(_sym(e.site), e.engine.data): e for e in program.of_kind(EngineOp) if isinstance(e, EngineOp)}
    budget = program.lx_bytes if lx_bytes is None else lx_bytes

    per_site: dict[str, list[_Slot]] = {}
    for site in program.of_kind(SiteOp):
        assert isinstance(site, SiteOp)
        per_site[site.sym_name.data] = []
    fifo: dict[str, list[_Slot]] = {}
    local: dict[str, list[_Slot]] = {}
    for buf_name, flow in flow_of.items():
        buf = flow.buffer
        size = depths[buf_name] * buf.tile.bytes
        slot = _Slot(size, buffer=buf)
        if flow.local and flow.touching:
            key = (_sym(flow.touching[0].site), flow.touching[0].engine.data)
            engine = engines.get(key)
            positions = [
                _top_position(s, engine)
                for st in flow.touching
                for s in steps.get(st.sym_name.data, [])
                if engine is not None
            ]
            if positions:
                slot = _Slot(size, min(positions), max(positions), buffer=buf, engine=key)
        site = _sym(buf.site)
        (local if slot.engine is not None else fifo).setdefault(site, []).append(slot)
    for site in per_site:
        ordered_locals = sorted(local.get(site, []), key=lambda s: (s.engine, s.start))  # stable: declaration order
        per_site[site] = [*fifo.get(site, []), *ordered_locals]

    alignment = target_of(program).alignment_bytes
    peaks: dict[str, int] = {}
    for site, slots in per_site.items():
        peak = _place_site(slots, alignment)
        if peak > budget:
            biggest = sorted(slots, key=lambda s: -s.size)
            parts = ", ".join(
                f"@{s.buffer.sym_name.data}: {depths[s.buffer.sym_name.data]} x {s.buffer.tile.bytes}"
                for s in biggest[:3]
            )
            more = f", and {len(biggest) - 3} more" if len(biggest) > 3 else ""
            raise error(
                program,
                f"{name}: site @{site} needs {peak} bytes of LX for its buffers ({parts}{more}), "
                f"more than its {budget}",
            )
        peaks[site] = peak
    return SizePlan(program, [s for slots in per_site.values() for s in slots], depths, peaks, lx_bytes)


@dataclass(frozen=True)
class SpatialSizeBuffersPass(ModulePass):
    """Set the depth and LX offset of every buffer of a fused spatial program (see module docstring)."""

    name = "spatial-size-buffers"

    depth: int = 2
    """Slots of a FIFO buffer filled inside a loop of more than one iteration (2: double buffering)."""

    lx_bytes: int = 0
    """LX bytes of each site, replacing the program's `lx_bytes` (0: keep the program's own)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.depth < 1:
            raise error(None, f"{self.name}: depth must be at least 1, got {self.depth}")
        if self.lx_bytes < 0:
            raise error(None, f"{self.name}: lx-bytes must be positive (or 0: the program's own), got {self.lx_bytes}")
        plans = [plan_sizes(p, self.depth, self.lx_bytes or None) for p in programs_in(op, self.name, "fused")]
        for plan in plans:  # all planned before any changes: a refused program leaves the module as it was
            plan.apply()
            advance(plan.program, "sized")
