"""spatial-synthesize-handshakes: full/empty semaphores around every step that fills or drains a FIFO buffer.

Each `spatial.program` in phase "sized" (every buffer with its depth and
offset, engines holding their steps in order, no wait, signal or semaphore
yet) moves to phase "synthesized":

- Per FIFO buffer B (every buffer not `local`) of depth D on site S, two
  semaphores on S: `@B_full init 0` (full slots) and `@B_empty init D`
  (free slots), declared before the first `spatial.engine` (a name already
  taken gets a suffix `_1`, `_2`, ...).
- The step filling B (a step of its producer stage; for the buffer of a
  `receive` stage, a step of the multicast group's reader, which delivers
  each tile into its own buffer and into the buffer of every receive stage
  of the group) is wrapped in `spatial.wait @B_empty >= 1` before and
  `spatial.signal @B_full += 1` after; the step draining B (of its consumer
  stage) in `spatial.wait @B_full >= 1` before and `spatial.signal @B_empty
  += 1` after.
- A step touching several FIFO buffers (a compute stage of several inputs
  or outputs, a multicast reader) takes all its waits before it (the full
  slots of its inputs, then the free slots of its outputs) and gives all its
  signals after it (its inputs' free slots, then its outputs' full ones).
- A local buffer (one engine's variable, read and written by that engine's
  compute stages in program order) needs no handshake and gets nothing.

Refused, each with a located error, before anything changes: a program in
another phase (phases.programs_in); a choreography that already
has a wait or a signal (at it), except on the semaphores spatial-tile makes
to order a store before a later load of the same tensor (`hbm_order`); a `spatial.recv_step` (a multicast tile is
delivered by the reader's load step, not received by a step of its own);
a FIFO buffer without exactly one producer stage and one consumer stage,
both stepped by some engine (at the buffer; `spyre_mlir.analysis.flows`).

Before:

    spatial.program @vadd attributes {spatial.phase = "sized"} {
      ...
      spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
      spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 4096
      ...
      spatial.engine @s0 "load" {
        spatial.loop %k = 0 to 4 {
          spatial.load_step @ldx [%k]
        }
      }
      spatial.engine @s0 "compute" {
        spatial.loop %k = 0 to 4 {
          spatial.compute_step @add
        }
      }
      ...
    }

After:

    spatial.program @vadd attributes {spatial.phase = "synthesized"} {
      ...
      spatial.semaphore @bx_full on @s0 init 0
      spatial.semaphore @bx_empty on @s0 init 2
      spatial.semaphore @bz_full on @s0 init 0
      spatial.semaphore @bz_empty on @s0 init 1
      spatial.engine @s0 "load" {
        spatial.loop %k = 0 to 4 {
          spatial.wait @bx_empty >= 1
          spatial.load_step @ldx [%k]
          spatial.signal @bx_full += 1
        }
      }
      spatial.engine @s0 "compute" {
        spatial.loop %k = 0 to 4 {
          spatial.wait @bx_full >= 1
          spatial.wait @bz_empty >= 1
          spatial.compute_step @add
          spatial.signal @bx_empty += 1
          spatial.signal @bz_full += 1
        }
      }
      ...
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from spyre_mlir.analysis.flows import Flow, flows
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.spatial import (
    HBM_ORDER_ATTR,
    STEPS,
    EngineOp,
    MulticastOp,
    ProgramOp,
    RecvStepOp,
    SemaphoreOp,
    SignalOp,
    StageOp,
    WaitOp,
)
from spyre_mlir.passes.spatial.phases import advance, programs_in

NAME = "spatial-synthesize-handshakes"


def _sym(ref) -> str:
    return ref.root_reference.data


@dataclass
class HandshakePlan:
    """The semaphores of a program and the waits and signals around each step, not applied yet."""

    program: ProgramOp
    semaphores: list[SemaphoreOp]
    around: list[tuple[Operation, list[str], list[str]]]  # (step, empty/full semaphores waited, signalled)

    def apply(self) -> None:
        block = self.program.body.block
        first_engine = next((op for op in block.ops if isinstance(op, EngineOp)), None)
        for sem in self.semaphores:
            if first_engine is None:
                block.add_op(sem)
            else:
                block.insert_op_before(sem, first_engine)
        for step, waits, signals in self.around:
            before: list[Operation] = [WaitOp(s, 1) for s in waits]
            after: list[Operation] = [SignalOp(s, 1) for s in signals]
            for op in (*before, *after):
                op.location = step.location
            if before:
                Rewriter.insert_op(before, InsertPoint.before(step))
            if after:
                Rewriter.insert_op(after, InsertPoint.after(step))


def plan_handshakes(program: ProgramOp) -> HandshakePlan:
    """The handshakes of `program` (see the module docstring), changing nothing."""
    ordering = {sem.sym_name.data for sem in program.of_kind(SemaphoreOp)
                if isinstance(sem, SemaphoreOp) and HBM_ORDER_ATTR in sem.attributes}
    for op in program.walk():
        if isinstance(op, WaitOp | SignalOp) and _sym(op.semaphore) not in ordering:
            raise error(
                op,
                f"{NAME}: the choreography of program @{program.sym_name.data} already has its handshakes "
                f"('{op.name} @{_sym(op.semaphore)}'): a sized program has steps only",
            )
        if isinstance(op, RecvStepOp):
            raise error(
                op,
                f"{NAME}: recv_step @{_sym(op.stage)}: the tiles of a multicast group are delivered by its "
                "reader's load step into every receive stage's buffer; a receive stage has no step of its own",
            )
    flow_of = flows(program, NAME)
    taken = {
        sym.data
        for op in program.declarations()
        if isinstance(sym := op.get_attr_or_prop("sym_name"), StringAttr)
    }

    def fresh(base: str) -> str:
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        taken.add(name)
        return name

    full: dict[str, str] = {}
    empty: dict[str, str] = {}
    semaphores: list[SemaphoreOp] = []
    for name, flow in flow_of.items():
        if flow.local:
            continue
        buf = flow.buffer
        full[name] = fresh(f"{name}_full")
        empty[name] = fresh(f"{name}_empty")
        for sem_name, init in ((full[name], 0), (empty[name], buf.depth_value)):
            sem = SemaphoreOp(sem_name, _sym(buf.site), init)
            sem.location = buf.location
            semaphores.append(sem)

    # What each stage's step drains (FIFO inputs) and fills (FIFO outputs, and a reader's receive buffers).
    fills: dict[str, list[str]] = {}
    drains: dict[str, list[str]] = {}
    fifo = [f for f in flow_of.values() if not f.local]
    for stage in program.of_kind(StageOp):
        assert isinstance(stage, StageOp)
        me = stage.sym_name.data
        drains[me] = [f.buffer.sym_name.data for f in _ordered(fifo, stage.input_names) if f.consumer is stage]
        fills[me] = [f.buffer.sym_name.data for f in _ordered(fifo, stage.output_names) if f.filler is stage]
        if stage.kind_name == "load":
            fills[me] += _delivered(program, stage, fifo)

    around: list[tuple[Operation, list[str], list[str]]] = []
    for engine in program.of_kind(EngineOp):
        for step in engine.walk():
            if not isinstance(step, STEPS):
                continue
            stage = _sym(step.stage)
            ins, outs = drains.get(stage, []), fills.get(stage, [])
            if ins or outs:
                around.append(
                    (step, [full[b] for b in ins] + [empty[b] for b in outs],
                     [empty[b] for b in ins] + [full[b] for b in outs])
                )
    return HandshakePlan(program, semaphores, around)


def _ordered(fifo: list[Flow], names: tuple[str, ...]) -> list[Flow]:
    by_name = {f.buffer.sym_name.data: f for f in fifo}
    return [by_name[n] for n in names if n in by_name]


def _delivered(program: ProgramOp, reader: StageOp, fifo: list[Flow]) -> list[str]:
    """The buffers of the receive stages of every group `reader` reads for, in
    the order of the groups and their target sites."""
    out: list[str] = []
    for group in program.of_kind(MulticastOp):
        assert isinstance(group, MulticastOp)
        if _sym(group.reader) != reader.sym_name.data:
            continue
        group_name = group.sym_name.data
        targets = [_sym(t) for t in group.targets.data]
        mine = [f for f in fifo if f.filler is reader and f.producer is not reader and f.producer is not None
                and f.producer.input_names[0] == group_name]
        mine.sort(key=lambda f: targets.index(_sym(f.buffer.site)) if _sym(f.buffer.site) in targets else len(targets))
        out += [f.buffer.sym_name.data for f in mine]
    return out


def synthesize(program: ProgramOp) -> None:
    """Add the semaphores and handshakes of `program` (see the module docstring)."""
    plan_handshakes(program).apply()


@dataclass(frozen=True)
class SpatialSynthesizeHandshakesPass(ModulePass):
    """Wrap every step filling or draining a FIFO buffer in full/empty semaphore handshakes (see module docstring)."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        plans = [plan_handshakes(p) for p in programs_in(op, self.name, "sized")]
        for plan in plans:  # all planned before any changes: a refused program leaves the module as it was
            plan.apply()
            advance(plan.program, "synthesized")


__all__ = ["HandshakePlan", "SpatialSynthesizeHandshakesPass", "plan_handshakes", "synthesize"]
