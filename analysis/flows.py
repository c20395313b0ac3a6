"""Who fills and drains each buffer of a spatial program: its producer, filler and consumer stages.

A FIFO buffer has one stage writing it and one reading it, both stepped by
some engine; a local buffer (one engine's variable) is touched by compute
stages of one engine only. Sizing a program's buffers
(spatial-size-buffers) and synthesizing its handshakes
(spatial-synthesize-handshakes) both ask `flows`; a program breaking these
rules is a located error at the buffer, naming the pass that asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.ir import Operation

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.spatial import STEPS, BufferOp, EngineOp, MulticastOp, ProgramOp, StageOp


def _sym(ref) -> str:
    return ref.root_reference.data


@dataclass
class Flow:
    """The stages and steps around one buffer.

    For a FIFO buffer: `producer` the stage writing it (for a receive buffer,
    the receive stage), `filler` the stage whose steps fill it (the producer,
    or for a receive buffer the multicast group's reader), `consumer` the
    stage reading it. For a local: `touching`, the compute stages reading or
    writing it."""

    buffer: BufferOp
    local: bool
    producer: StageOp | None = None
    filler: StageOp | None = None
    consumer: StageOp | None = None
    touching: list[StageOp] = field(default_factory=list)


def steps_by_stage(program: ProgramOp) -> dict[str, list[Operation]]:
    """Every step of every engine, by the name of its stage (in program order)."""
    found: dict[str, list[Operation]] = {}
    for engine in program.of_kind(EngineOp):
        for op in engine.walk():
            if isinstance(op, STEPS):
                found.setdefault(_sym(op.stage), []).append(op)
    return found


def _stages(stages: Iterable[StageOp]) -> str:
    return ", ".join("@" + s.sym_name.data for s in stages)


def flows(program: ProgramOp, pass_name: str) -> dict[str, Flow]:
    """The flow of every buffer of `program`, by name, checked: a FIFO buffer
    has one producer stage and one consumer stage, both stepped by some engine;
    a local is touched by compute stages of one engine only. Else a located
    error (at the buffer) prefixed with `pass_name`."""
    stages = [s for s in program.of_kind(StageOp) if isinstance(s, StageOp)]
    steps = steps_by_stage(program)
    writers: dict[str, list[StageOp]] = {}
    readers: dict[str, list[StageOp]] = {}
    for stage in stages:
        kind = stage.kind_name
        if kind in ("load", "compute", "receive"):
            for name in stage.output_names:
                writers.setdefault(name, []).append(stage)
        if kind in ("compute", "store"):
            for name in stage.input_names:
                readers.setdefault(name, []).append(stage)
    result: dict[str, Flow] = {}
    for buffer in program.of_kind(BufferOp):
        assert isinstance(buffer, BufferOp)
        name = buffer.sym_name.data
        me = f"{pass_name}: buffer @{name}"
        ws, rs = writers.get(name, []), readers.get(name, [])
        if buffer.is_local:
            touching = list(dict.fromkeys([*ws, *rs]))
            other = [s for s in touching if s.kind_name != "compute"]
            if other:
                raise error(
                    buffer,
                    f"{me} is local (one engine's variable), but {other[0].kind_name} stage "
                    f"@{other[0].sym_name.data} touches it: only compute stages read and write a local",
                )
            engines = {(_sym(s.site), s.engine.data) for s in touching}
            if len(engines) > 1:
                who = ", ".join(f'@{s.sym_name.data} on engine "{s.engine.data}"' for s in touching)
                raise error(
                    buffer,
                    f"{me} is local (one engine's variable), but stages of {len(engines)} engines touch it "
                    f"({who}): a buffer shared between engines needs a FIFO and its handshakes",
                )
            result[name] = Flow(buffer, True, touching=touching)
            continue
        if len(ws) != 1:
            what = "no producer stage" if not ws else f"{len(ws)} producer stages ({_stages(ws)})"
            raise error(buffer, f"{me} (a FIFO) has {what}: a FIFO buffer has exactly one stage writing it")
        if len(rs) != 1:
            what = "no consumer stage" if not rs else f"{len(rs)} consumer stages ({_stages(rs)})"
            raise error(buffer, f"{me} (a FIFO) has {what}: a FIFO buffer has exactly one stage reading it")
        producer, consumer = ws[0], rs[0]
        if producer is consumer:
            raise error(
                buffer,
                f"{me} (a FIFO) is read and written by the same stage @{producer.sym_name.data}: a value an engine "
                "keeps from one step to the next is a local buffer",
            )
        filler = producer
        if producer.kind_name == "receive":
            group = program.lookup(producer.input_names[0])
            reader = program.lookup(_sym(group.reader)) if isinstance(group, MulticastOp) else None
            if not isinstance(reader, StageOp):  # refused by the dialect's verifier
                raise error(buffer, f"{me}: receive stage @{producer.sym_name.data} has no multicast reader")
            filler = reader
        for role, stage in (("fills", filler), ("drains", consumer)):
            if not steps.get(stage.sym_name.data):
                how = "" if stage is producer or role == "drains" else (
                    f" (it delivers the tiles of receive stage @{producer.sym_name.data})"
                )
                raise error(
                    buffer,
                    f"{me}: stage @{stage.sym_name.data}, which {role} it{how}, has no step in any engine "
                    f"(no '{stage.kind_name}_step @{stage.sym_name.data}')",
                )
        result[name] = Flow(buffer, False, producer, filler, consumer)
    return result
