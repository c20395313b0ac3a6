"""spatial-verify: re-check a synthesized spatial program by simulating counts.

Each `spatial.program` in phase "synthesized" (or "verified", re-checked) is
simulated on counts only, no data, by the engine simulator
(analysis/engines.py, counts mode): every `spatial.engine` is an engine
running its choreography (`spatial.loop` bounds unrolled on the fly),
semaphores are counters (`wait @s >= N` blocks until the value reaches N,
then takes N; `signal @s += N` adds N) and FIFO buffers are counts of full
slots, bounded by their depth. A step of a load or compute stage fills one
slot of each of its FIFO output buffers (a full buffer is an overflow); a
step of a compute or store stage takes one full slot of each of its FIFO
input buffers (an empty buffer is an underflow). The load step of a
multicast group's reader also fills one slot of the buffer of every receive
stage of its group (a delivery, counted as a run of that receive stage); a
`spatial.recv_step` does not run (a marker) and is refused. A local buffer
(one engine's variable) needs no semaphore: a step writing it sets it, a
step reading it before any write is an underflow; it is never full, never
freed and never left over. A step's reads all come before its writes (a
compute stage may read and write the same local). The engines run round
robin in declaration order until all finish, under two schedules, each
checked: eager (each engine runs as far as it can before it blocks, so a
producer fills its buffers as far as its semaphores let it before the
consumer drains them: a buffer shallower than its handshake overflows) and
lock step (one choreography op per engine per round). The certificate is
the lock-step schedule's (checked first).

A loop run to a trip (`spatial.loop %k = 0 to trip(@t)`, a count the
program reads from its data at run time) is simulated at the trip's
greatest count, ceil((HI + B) / P) for `spatial.trip @t ... per P bias B
admit [LO, HI]`: the bound every static question takes (the step guard,
the certificate's step counts and peaks). A run whose value is below HI
takes fewer iterations of the same choreography; a value outside the
admitted range never runs (the interpreter refuses it before any engine
starts).

Refused, each with a located error:

- a program in another phase;
- more than 10 million choreography steps (too large to simulate);
- a deadlock (no engine can progress): at a blocked wait, naming the
  semaphore, its value, the wanted count and every blocked (site, engine);
- an overflow or underflow: at the step, naming the stage and the buffer;
- at the end, an edge whose producer ran a different number of times than
  its consumer (every produced tile consumed exactly as often as planned),
  or a buffer still holding tiles: naming the stages and the buffer.

On success the program moves to phase "verified" and carries a certificate:
the total step count, the steps of each (site, engine), the peak number of
full slots of each FIFO buffer (under the lock-step schedule), and the HBM bytes the run reads and writes
(`hbm_read_bytes`, `hbm_written_bytes`: a tile's bytes per load and store
step, a multicast load counted once; loops run to a trip at their greatest
count).

Before:

    spatial.program @vadd attributes {spatial.phase = "synthesized", grid = [1]} {
      ...
      spatial.engine @s0 "load" {
        spatial.loop %k = 0 to 4 {
          spatial.wait @empty_in >= 1
          spatial.load_step @ldx [%k]
          spatial.load_step @ldy [%k]
          spatial.signal @full_in += 1
        }
      }
      ...
    }

After:

    spatial.program @vadd attributes {spatial.phase = "verified", grid = [1 : i64],
        spatial.certificate = {steps = 48 : i64,
                               engines = {"s0.load" = 16 : i64, "s0.compute" = 20 : i64, "s0.store" = 12 : i64},
                               max_full = {bx = 2 : i64, by = 2 : i64, bz = 1 : i64},
                               hbm_read_bytes = 16384 : i64, hbm_written_bytes = 8192 : i64}} {
      ... (unchanged)
    }

A module without a `spatial.program` is left as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from spyre_mlir.analysis.engines import (
    Deadlock,
    Fifo,
    FifoOverflow,
    FifoUnderflow,
    Loop,
    Signal,
    Simulator,
    Step,
    Wait,
)
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.spatial import (
    PHASE_ATTR,
    BufferOp,
    ComputeStepOp,
    EdgeOp,
    EngineOp,
    LoadStepOp,
    LoopOp,
    MulticastOp,
    ProgramOp,
    RecvStepOp,
    SemaphoreOp,
    SignalOp,
    SiteOp,
    StageOp,
    StoreStepOp,
    WaitOp,
)
from spyre_mlir.interpreter.cost_model import HardwareConfig, OpCosts, tile_move_cycles

CERTIFICATE_ATTR = "spatial.certificate"
MAX_STEPS = 10_000_000
"""Choreography steps (waits, signals, stage steps, loops unrolled) a program may take to be simulated."""

_ACCEPTED = ("synthesized", "verified")


def _sym(attr) -> str:
    return attr.root_reference.data


def _who(engine: EngineOp) -> str:
    return f'(@{_sym(engine.site)}, "{engine.engine.data}")'


def _static_steps(ops) -> int:
    """Steps one run of `ops` takes (loops multiplied out, loops themselves not counted)."""
    total = 0
    for op in ops:
        if isinstance(op, LoopOp):
            lower, upper = op.bounds  # a loop run to a trip: at its greatest count
            total += max(upper - lower, 0) * _static_steps(op.body.block.ops)
        else:
            total += 1
    return total


def _compile(ops, instructions: dict[int, object]) -> list:
    """A choreography as the engine simulator's instructions (`instructions`: by op id) and `Loop`s;
    a loop run to a trip is taken at its greatest count."""
    code: list = []
    for op in ops:
        if isinstance(op, LoopOp):
            lower, upper = op.bounds
            code.append(Loop(upper - lower, _compile(op.body.block.ops, instructions)))
        elif isinstance(op, RecvStepOp):
            raise error(
                op,
                f"spatial-verify: recv_step @{_sym(op.stage)} does not run: the tiles of a multicast group are "
                "delivered into its receive stages' buffers at its reader's load_step (a recv_step is a marker)",
            )
        elif isinstance(op, WaitOp | SignalOp | LoadStepOp | ComputeStepOp | StoreStepOp):
            code.append(instructions[id(op)])
        else:  # refused by the dialect's verifier
            raise error(op, f"spatial-verify: '{op.name}' is not a choreography op")
    return code


def _dict(entries: list[tuple[str, int]]) -> DictionaryAttr:
    return DictionaryAttr({k: IntegerAttr(v, i64) for k, v in entries})


def verify_program(program: ProgramOp) -> DictionaryAttr:
    """Simulate `program`'s choreography on counts; its certificate, or a located error."""
    phase = program.phase
    if phase not in _ACCEPTED:
        raise error(
            program,
            f"spatial-verify needs a program in phase synthesized, got {phase} "
            f"(program @{program.sym_name.data}; a verified program is re-checked)",
        )
    sem_ops = [op for op in program.of_kind(SemaphoreOp) if isinstance(op, SemaphoreOp)]
    buf_ops = [op for op in program.of_kind(BufferOp) if isinstance(op, BufferOp)]
    stage_ops = [op for op in program.of_kind(StageOp) if isinstance(op, StageOp)]
    engine_ops = [op for op in program.of_kind(EngineOp) if isinstance(op, EngineOp)]

    buf_index = {op.sym_name.data: i for i, op in enumerate(buf_ops)}
    stage_index = {op.sym_name.data: i for i, op in enumerate(stage_ops)}
    local = [op.is_local for op in buf_ops]

    # The receive stages of each multicast group, by the index of its reader.
    of_group: dict[str, list[int]] = {}
    for i, st in enumerate(stage_ops):
        if st.kind_name == "receive":
            of_group.setdefault(st.input_names[0], []).append(i)
    receivers: dict[int, list[int]] = {}
    for group in program.of_kind(MulticastOp):
        assert isinstance(group, MulticastOp)
        reader = stage_index.get(_sym(group.reader))
        if reader is not None:
            receivers.setdefault(reader, []).extend(of_group.get(group.sym_name.data, []))

    # What a step of each stage takes (FIFO inputs), fills (FIFO outputs, and for a multicast
    # reader the buffer of each receive stage of its group), reads and writes (locals); the
    # receive stages it delivers to; and the HBM bytes it reads and writes.
    takes: list[list[int]] = []
    fills: list[list[tuple[int, int]]] = []  # (buffer, the stage filling it: itself or a receive stage)
    reads: list[list[int]] = []
    writes: list[list[int]] = []
    hbm: list[tuple[int, int]] = []
    for s, st in enumerate(stage_ops):
        kind = st.kind_name
        ins = [buf_index[n] for n in st.input_names] if kind in ("compute", "store") else []
        outs = [buf_index[n] for n in st.output_names] if kind in ("load", "compute") else []
        takes.append([b for b in ins if not local[b]])
        reads.append([b for b in ins if local[b]])
        filled = [(b, s) for b in outs if not local[b]]
        for r in receivers.get(s, []):
            filled += [(buf_index[n], r) for n in stage_ops[r].output_names]
        fills.append(filled)
        writes.append([b for b in outs if local[b]])
        tile = buf_ops[outs[0]].tile.bytes if kind == "load" else buf_ops[ins[0]].tile.bytes if kind == "store" else 0
        hbm.append((tile, 0) if kind == "load" else (0, tile) if kind == "store" else (0, 0))

    cost = _step_cycles(program, stage_ops, buf_ops)

    # The guard: count the steps before simulating any.
    per_engine = [(e, _static_steps(e.body.block.ops)) for e in engine_ops]
    total = sum(n for _, n in per_engine)
    if total > MAX_STEPS:
        biggest, n = max(per_engine, key=lambda p: p[1])
        raise error(
            biggest,
            f"spatial-verify: program @{program.sym_name.data} takes {total} choreography steps, more than "
            f"{MAX_STEPS} (too large to simulate); {_who(biggest)} alone takes {n}",
        )

    # Each op as an instruction of the engine simulator: a step takes its locals then its FIFO
    # inputs (a local: read, never freed), then fills its FIFO outputs then its locals (set).
    name = [op.sym_name.data for op in buf_ops]
    instructions: dict[int, object] = {}
    for e in engine_ops:
        for op in e.body.walk():
            if isinstance(op, WaitOp):
                instructions[id(op)] = Wait(_sym(op.semaphore), int(op.count.value.data), op)
            elif isinstance(op, SignalOp):
                instructions[id(op)] = Signal(_sym(op.semaphore), int(op.count.value.data), op)
            elif isinstance(op, LoadStepOp | ComputeStepOp | StoreStepOp) and _sym(op.stage) in stage_index:
                s = stage_index[_sym(op.stage)]
                instructions[id(op)] = Step(
                    s,
                    cost[s],
                    tuple(name[b] for b in reads[s] + takes[s]),
                    tuple(name[b] for b, _ in fills[s]) + tuple(name[b] for b in writes[s]),
                    tag=op,
                )
    codes = [_compile(e.body.block.ops, instructions) for e in engine_ops]

    def simulate(eager: bool) -> tuple[Simulator, list[int]]:
        """One schedule: each engine runs one op per round (lock step), or as many as
        it can before it blocks (eager: a producer fills as far as its semaphores let
        it before its consumer drains, the fullest its buffers get); with the runs of
        each stage (a delivery to a receive stage is a run of it)."""
        sim = Simulator(
            {op.sym_name.data: int(op.init.value.data) for op in sem_ops},
            {op.sym_name.data: Fifo(op.depth_value, op.is_local) for op in buf_ops},
        )
        for e, code in zip(engine_ops, codes):
            sim.add_engine(e, Loop(1, code))
        try:
            sim.run(eager)
        except Deadlock as exc:
            _deadlock(exc)
        except (FifoOverflow, FifoUnderflow) as exc:
            _fifo_error(exc, stage_ops, buf_ops, fills)
        runs = [sim.runs.get(s, 0) for s in range(len(stage_ops))]
        for s, filled in enumerate(fills):
            for _, by in filled:
                if by != s:
                    runs[by] += sim.runs.get(s, 0)
        full = [sim.fifos[n].count if not is_local else 0 for n, is_local in zip(name, local)]
        _check_counts(program, stage_ops, stage_index, buf_ops, buf_index, runs, full)
        return sim, runs

    sim, runs = simulate(eager=False)
    simulate(eager=True)

    hbm_read = sum(r * h[0] for r, h in zip(runs, hbm))
    hbm_written = sum(r * h[1] for r, h in zip(runs, hbm))
    engines = sim.engines
    peak = [sim.fifos[n].peak for n in name]
    steps = sum(eng.executed for eng in engines)
    cycles = sim.clock
    return DictionaryAttr(
        {
            "cycles": IntegerAttr(round(cycles), i64),
            "steps": IntegerAttr(steps, i64),
            "engines": _dict([(f"{_sym(eng.name.site)}.{eng.name.engine.data}", eng.executed) for eng in engines]),
            "max_full": _dict([(op.sym_name.data, p) for op, p, is_local in zip(buf_ops, peak, local) if not is_local]),
            "hbm_read_bytes": IntegerAttr(hbm_read, i64),
            "hbm_written_bytes": IntegerAttr(hbm_written, i64),
        }
    )


def _step_cycles(program: ProgramOp, stage_ops: list[StageOp], buf_ops: list[BufferOp]) -> list[float]:
    """The cost model's cycles of one step of each stage (interpreter/cost_model.py, default
    hardware), as the interpreter charges them: a load or store step its tile's HBM
    bytes (whole sticks) over one core's share of the HBM bandwidth, a compute step
    the ops of its body (static tile shapes; an op the model cannot price statically
    costs nothing here), a receive step nothing (its tile arrives with the reader's)."""
    hw = HardwareConfig()
    sites = max(1, len(program.of_kind(SiteOp)))
    rules = OpCosts(hw, sites)
    buffers = {b.sym_name.data: b for b in buf_ops}
    out: list[float] = []
    for st in stage_ops:
        kind = st.kind_name
        if kind in ("load", "store"):
            buf = buffers.get(st.output_names[0] if kind == "load" else st.input_names[0])
            if buf is None:
                out.append(0.0)
                continue
            itemsize = buf.tile.bytes // max(1, math.prod(buf.tile.get_shape()))
            out.append(tile_move_cycles(buf.tile.get_shape(), itemsize, hw, sites))
        elif kind == "compute" and st.body is not None and st.body.blocks:
            out.append(rules.static_cycles(st.body.block.ops))
        else:
            out.append(0.0)
    return out


def _step_name(op: Operation) -> str:
    return op.name.split(".", 1)[1]


def _deadlock(exc: Deadlock) -> None:
    """The simulator's deadlock as a located error at the first blocked wait."""
    first, wait, value = exc.blocked[0]
    others = "; ".join(f"{_who(e.name)} waits on @{w.semaphore} >= {w.count} (value {v})" for e, w, v in exc.blocked)
    raise error(
        wait.tag,  # pyright: ignore[reportArgumentType]
        f"spatial-verify: deadlock: no engine can progress; semaphore @{wait.semaphore} is "
        f"{value}, this wait wants {wait.count}; blocked: {others}",
    )


def _fifo_error(
    exc: FifoOverflow | FifoUnderflow, stage_ops: list[StageOp], buf_ops: list[BufferOp], fills: list[list[tuple[int, int]]]
) -> None:
    """The simulator's overflow or underflow as a located error at the step."""
    step_op = exc.step.tag
    s = exc.step.key
    st = stage_ops[s]  # pyright: ignore[reportArgumentType]
    buf = next(b for b in buf_ops if b.sym_name.data == exc.fifo)
    where = f"(run {exc.run + 1} of the stage, on {_who(exc.engine.name)})"  # pyright: ignore[reportArgumentType]
    what = f"{_step_name(step_op)} of stage @{st.sym_name.data}"  # pyright: ignore[reportArgumentType]
    if isinstance(exc, FifoUnderflow):
        state = "which was never written" if buf.is_local else "which holds no full slot"
        local = "local " if buf.is_local else ""
        raise error(
            step_op,  # pyright: ignore[reportArgumentType]
            f"spatial-verify: underflow: {what} reads {local}buffer @{exc.fifo}, {state} {where}",
        )
    by = fills[s][exc.position][1]  # pyright: ignore[reportCallIssue, reportArgumentType]
    via = "" if by == s else f" of receive stage @{stage_ops[by].sym_name.data}"
    raise error(
        step_op,  # pyright: ignore[reportArgumentType]
        f"spatial-verify: overflow: {what} writes buffer @{exc.fifo}{via}, whose {buf.depth_value} slot(s) are all "
        f"full {where}",
    )


def _check_counts(
    program: ProgramOp,
    stage_ops: list[StageOp],
    stage_index: dict[str, int],
    buf_ops: list[BufferOp],
    buf_index: dict[str, int],
    runs: list[int],
    full: list[int],
) -> None:
    for edge in program.of_kind(EdgeOp):
        assert isinstance(edge, EdgeOp)
        src, dst, via = _sym(edge.producer), _sym(edge.consumer), _sym(edge.buffer)
        produced, consumed = runs[stage_index[src]], runs[stage_index[dst]]
        if produced != consumed:
            raise error(
                edge,
                f"spatial-verify: edge @{edge.sym_name.data}: stage @{src} produced {produced} tile(s) into buffer "
                f"@{via}, stage @{dst} consumed {consumed}: every produced tile must be consumed exactly as often "
                "as planned",
            )
    for b, buf in enumerate(buf_ops):
        if full[b] and not buf.is_local:
            name = buf.sym_name.data
            producers = [st.sym_name.data for st in stage_ops if name in st.output_names]
            consumers = [st.sym_name.data for st in stage_ops if name in st.input_names]
            raise error(
                buf,
                f"spatial-verify: buffer @{name} still holds {full[b]} full slot(s) at the end: produced by "
                f"{_stages(producers)}, never consumed by {_stages(consumers)}",
            )


def _stages(names: list[str]) -> str:
    return ", ".join("@" + n for n in names) if names else "no stage"


@dataclass(frozen=True)
class SpatialVerifyPass(ModulePass):
    """Simulate a synthesized spatial program's choreography on counts, certify it (see module docstring)."""

    name = "spatial-verify"
    changes_ir: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        programs = [p for p in op.walk() if isinstance(p, ProgramOp)]
        certificates: list[tuple[ProgramOp, Attribute]] = [(p, verify_program(p)) for p in programs]
        for program, certificate in certificates:
            program.attributes[PHASE_ATTR] = StringAttr("verified")
            program.attributes[CERTIFICATE_ATTR] = certificate
