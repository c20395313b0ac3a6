"""spatial: running a `spatial.program` (docs/spatial.md, "Executing it").

    out = spyre_mlir.interpret(module, "vadd", x=x, y=y, z=np.zeros_like(x))
    out["z"]                       # every tensor argument's contents after the run

How a program is called. `Interpreter` finds a program by symbol name as it
finds a `func.func` (a function of that name wins): `spatial_kernels` gives
each program a wrapper function `@name(%x: index, %y: index, ...)`, one
pointer parameter per `spatial.tensor`, named after it, whose body is one
`RunProgramOp` (an interpreter-internal op, in no dialect). So a program's
arguments are marshalled as a kernel's: each `spatial.tensor @x :
memref<SHAPE x T>` is the keyword argument `x`, an array of that shape and
element type placed in HBM (row-major) and read back into the result. The
program runs once (not per core): its sites are simulated together.

Semantics (a deterministic discrete-event simulation, no threads):

- Tiles. A tensor is a grid of tiles of the buffer tile shape of the stage
  touching it (`!spatial.tile<R x C x T>`, the tile type of its buffer):
  tile index [i, j] covers rows i*R .. i*R+R-1 and columns j*C .. j*C+C-1
  (rank 1 likewise; any rank). A step's indices are the leading tile
  coordinates: an omitted trailing index is 0, allowed only along a dim the
  tile spans whole (`load_step @ld [%k]` of 16x64 tiles of a 64x64 tensor is
  tile [k, 0]). A tile reaching outside the tensor is a located error at
  the step.
- Buffers. A buffer of depth D is a ring of D slots in its site's LX, at
  its `offset` (slot s at offset + s * tile bytes), each slot full or free.
  A writer fills the next slot of the ring, a reader takes the oldest full
  one and frees it. Writing a buffer whose D slots are all full (overflow),
  or reading one with no full slot (underflow), is a located error at the
  step naming the stage and the buffer. Each site's LX is its own byte
  array of the program's `lx_bytes` (default 2 MiB), not the per-core LX of
  `runtime.lx` (the wrapper runs on one core whatever the sites).
- Engines. Each `spatial.engine` (one per (site, engine)) is a coroutine (a
  Python generator) over its choreography, in order:
  `spatial.loop %k = lo to hi` runs its body for k = lo .. hi-1;
  `spatial.loop %k = lo to trip(@t)` runs it for k = lo .. lo+n-1, n the
  trip's count (below);
  `spatial.wait @sem >= N` blocks until the semaphore's value is >= N, then
  DECREMENTS it by N (a counting-semaphore acquire, as the dialect's
  `WaitOp` says: "block until the semaphore reaches N, then take N");
  `spatial.signal @sem += N` increments it;
  `spatial.load_step @stage [idx]` copies tensor tile idx of the stage's
  tensor into the next slot of its output buffer;
  `spatial.store_step @stage [idx]` copies the oldest full slot of its input
  buffer into tensor tile idx and frees the slot;
  `spatial.compute_step @stage` takes the oldest full slot of each input
  buffer, frees them, runs the stage body (its block arguments are the tiles
  as tensors) and writes each yielded tile into the next slot of the
  matching output buffer. The body runs through the interpreter's own
  handlers: it is decoded as a function (`@<program>::<stage>`, the
  `spatial.yield` becoming a `func.return`), so any op a kernel may use runs.
  Element types convert as the interpreter's formats do (bf16 is stored as
  its bits, computed in f32).
  `spatial.recv_step` (multicast) is not executable yet: a located error.
- Trips. Before ANY engine runs, each `spatial.trip @t from @x[E] per P
  bias B admit [LO, HI]` reads v, flat element E of its (integer) tensor
  argument @x. A v outside LO ..= HI is a located error at the
  `spatial.trip` ("trip @t reads v from @x[E], outside the admitted range
  [LO, HI]"): nothing runs, the value is never clamped or wrapped. Else
  every loop run to @t runs n = ceil((v + B) / P) times; v + B <= 0 gives
  n = 0 (the loop body never runs).
- Scheduler. Round-robin over the engines in program order, each running
  until it blocks on a wait or finishes. The program ends when every engine
  has finished. When a whole round makes no progress while some engine is
  unfinished, that is a deadlock: a located error at the first blocked
  `spatial.wait`, naming its semaphore, the semaphore's value and the
  wanted count, and listing every blocked engine (with notes at their waits).

A program must be in phase "synthesized" or later (it needs its
choreographies and its buffers' offsets). The dialect's ops themselves are
listed as not executable: they are never run as ops of a function body, only
as part of their program, through `RunProgramOp`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IndexType, MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, var_operand_def

from spyre_mlir.diagnostics import DiagnosticError, error, location_of
from spyre_mlir.dialects.spatial import (
    PHASES,
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
    TensorOp,
    TripOp,
    WaitOp,
    YieldOp,
)
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, not_executable
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError

RUNNABLE_FROM = "synthesized"
"""The first phase whose programs run (choreographies and buffer offsets exist)."""

_PART_OF_A_PROGRAM = (
    "runs only as part of its spatial.program: interpret(module, \"<program name>\", **tensors) "
    "runs the program (interpreter/ops_spatial.py)"
)

not_executable(
    dict.fromkeys(
        (
            ProgramOp,
            TensorOp,
            SiteOp,
            BufferOp,
            StageOp,
            EdgeOp,
            MulticastOp,
            SemaphoreOp,
            TripOp,
            EngineOp,
            LoopOp,
            WaitOp,
            SignalOp,
            LoadStepOp,
            StoreStepOp,
            ComputeStepOp,
            RecvStepOp,
        ),
        _PART_OF_A_PROGRAM,
    )
)


@irdl_op_definition
class RunProgramOp(IRDLOperation):
    """Interpreter-internal (in no dialect, never printed): the body of a
    program's wrapper function; runs the program, its operands being the HBM
    element addresses of the program's tensors, in declaration order."""

    name = "spyre_interpreter.run_spatial_program"

    tensors = var_operand_def(IndexType)

    def __init__(self, program: ProgramOp, tensors: list[SSAValue]):
        super().__init__(operands=[tensors])
        self.program = program


# The cost model (interpreter/cost.py) prices every op the interpreter executes: this one moves
# nothing itself; the ops of the compute bodies it runs are charged, its tile moves are not priced yet.


def programs_of(module: ModuleOp) -> dict[str, ProgramOp]:
    """The `spatial.program`s of a module (and of modules nested in it), by name (the first wins)."""
    found: dict[str, ProgramOp] = {}
    stack: list[Operation] = [module]
    while stack:
        op = stack.pop()
        if isinstance(op, ProgramOp):
            found.setdefault(op.sym_name.data, op)
            continue
        if isinstance(op, func.FuncOp):
            continue
        for region in op.regions:
            for block in region.blocks:
                stack.extend(reversed(list(block.ops)))
    return found


def spatial_kernels(module: ModuleOp, taken) -> dict[str, func.FuncOp]:
    """A wrapper function for every program of `module` whose name no function
    in `taken` has: `func.func @name(%t0: index, ...)` with one parameter per
    `spatial.tensor` (named after it) and a `RunProgramOp` body. The wrappers
    are detached (the module is not changed) and located at their program."""
    wrappers: dict[str, func.FuncOp] = {}
    for name, program in programs_of(module).items():
        if name in taken:
            continue
        tensors = [op for op in program.declarations() if isinstance(op, TensorOp)]
        block = Block(arg_types=[IndexType()] * len(tensors))
        for arg, tensor in zip(block.args, tensors):
            try:
                arg.name_hint = tensor.sym_name.data
            except (ValueError, TypeError):  # a name no SSA value can carry: positional arg#i
                pass
        run = RunProgramOp(program, list(block.args))
        ret = func.ReturnOp()
        run.location = ret.location = program.location
        block.add_ops([run, ret])
        wrapper = func.FuncOp(name, FunctionType.from_lists([IndexType()] * len(tensors), []), Region(block))
        wrapper.location = program.location
        wrappers[name] = wrapper
    return wrappers


# -- the plan of a program (decoded once) -------------------------------------------------


@dataclass
class _Tensor:
    op: TensorOp
    shape: tuple[int, ...]
    fmt: ElementFormat
    address_slot: int


@dataclass
class _Buffer:
    op: BufferOp
    name: str
    site: str
    shape: tuple[int, ...]
    fmt: ElementFormat
    depth: int
    offset: int
    tile_bytes: int


@dataclass
class _Ring:
    """Run-time fill state of one buffer: slot s full or free; `head` is the oldest full slot."""

    depth: int
    full: list[bool] = field(default_factory=list)
    head: int = 0
    count: int = 0

    def __post_init__(self) -> None:
        self.full = [False] * self.depth

    @property
    def tail(self) -> int:
        return (self.head + self.count) % self.depth


def _name(ref) -> str:
    return ref.root_reference.data


def _format(op: Operation, ty, what: str) -> ElementFormat:
    try:
        return element_format(ty)
    except InterpreterError as exc:
        raise error(op, f"{what}: {exc.message}") from None


class _Plan:
    """A program's declarations, checked for execution, and its compute bodies decoded."""

    def __init__(self, fc: FunctionCompiler, run: RunProgramOp):
        program: ProgramOp = run.program  # pyright: ignore[reportAttributeAccessIssue]
        self.program = program
        me = f"program @{program.sym_name.data}"
        phase = program.phase
        if phase not in PHASES or PHASES.index(phase) < PHASES.index(RUNNABLE_FROM):
            raise error(
                program,
                f"{me} is in phase \"{phase}\": only programs in phase \"{RUNNABLE_FROM}\" or later run "
                "(they need their choreographies and their buffers' offsets)",
            )
        self.tensors: dict[str, _Tensor] = {}
        tensor_ops = [op for op in program.declarations() if isinstance(op, TensorOp)]
        for op, value in zip(tensor_ops, run.tensors):
            ty = op.tensor_type
            assert isinstance(ty, MemRefType)
            shape = tuple(ty.get_shape())
            if any(d < 0 for d in shape):
                raise error(op, f"tensor @{op.sym_name.data}: only static shapes run, got {ty}")
            fmt = _format(op, ty.get_element_type(), f"tensor @{op.sym_name.data}")
            self.tensors[op.sym_name.data] = _Tensor(op, shape, fmt, fc.slot(value))
        self.buffers: dict[str, _Buffer] = {}
        for op in program.of_kind(BufferOp):
            assert isinstance(op, BufferOp)
            name = op.sym_name.data
            if op.offset_value is None:
                raise error(op, f"buffer @{name} has no offset: it cannot be placed in LX")
            fmt = _format(op, op.tile.get_element_type(), f"buffer @{name}")
            shape = op.tile.get_shape()
            self.buffers[name] = _Buffer(
                op, name, _name(op.site), shape, fmt, op.depth_value, op.offset_value, math.prod(shape) * fmt.itemsize
            )
        self.stages: dict[str, StageOp] = {op.sym_name.data: op for op in program.of_kind(StageOp)}  # pyright: ignore
        self.semaphores: dict[str, int] = {
            op.sym_name.data: int(op.init.value.data) for op in program.of_kind(SemaphoreOp)  # pyright: ignore
        }
        self.trips: list[TripOp] = program.of_kind(TripOp)  # pyright: ignore[reportAttributeAccessIssue]
        self.engines: list[EngineOp] = program.of_kind(EngineOp)  # pyright: ignore[reportAttributeAccessIssue]
        self.lx_bytes = {site: 0 for site in (b.site for b in self.buffers.values())}
        for b in self.buffers.values():
            self.lx_bytes[b.site] = max(self.lx_bytes[b.site], b.offset + b.depth * b.tile_bytes)
        # Compute bodies, decoded as functions of the program's function table.
        self.bodies: dict[str, object] = {}
        for name, stage in self.stages.items():
            if stage.kind_name == "compute":
                self.bodies[name] = self._decode_body(fc, stage)

    def _decode_body(self, fc: FunctionCompiler, stage: StageOp):
        name = stage.sym_name.data
        if not stage.body.blocks:
            raise error(stage, f"compute stage @{name} has no body yet: there is nothing to run")
        region = stage.body.clone()
        block = region.block
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise error(stage, f"compute stage @{name}: its body must end with 'spatial.yield'")
        ret = func.ReturnOp(*last.values)
        ret.location = last.location
        block.insert_op_before(ret, last)
        block.erase_op(last)
        function_name = f"{self.program.sym_name.data}::{name}"
        table = fc.program.functions
        k = 1
        while function_name in table:
            k += 1
            function_name = f"{self.program.sym_name.data}::{name}#{k}"
        fn = func.FuncOp(
            function_name,
            FunctionType.from_lists([a.type for a in block.args], [v.type for v in ret.arguments]),
            region,
        )
        fn.location = stage.location
        table[function_name] = fn
        formats = [
            _format(stage, a.type.get_element_type() if isinstance(a.type, TensorType) else a.type, f"stage @{name}")
            for a in block.args
        ]
        return fc.program.function(function_name, (False,) * len(block.args)), formats


# -- running -----------------------------------------------------------------------------


def _convert(tile: np.ndarray, src: ElementFormat, dst: ElementFormat) -> np.ndarray:
    """Stored elements of `src` as stored elements of `dst`."""
    if src == dst:
        return tile.copy()
    value = np.asarray(src.from_storage(tile)).astype(dst.compute)
    if dst.round is not None:
        value = dst.round(value)
    return np.ascontiguousarray(dst.to_storage(value)).astype(dst.storage)


class _Run:
    """The state of one run of a program: semaphores, rings, LX of each site."""

    def __init__(self, plan: _Plan, frame: list, runtime):
        self.plan = plan
        self.frame = frame
        self.runtime = runtime
        self.semaphores = dict(plan.semaphores)
        self.rings = {name: _Ring(b.depth) for name, b in plan.buffers.items()}
        self.lx: dict[str, np.ndarray] = {}
        for site, nbytes in plan.lx_bytes.items():
            runtime.budget.reserve(nbytes, f"the LX buffers of site @{site}")
            self.lx[site] = np.zeros(nbytes, np.uint8)
        self.progress = 0  # ops executed: a round without any is a deadlock
        self.tensor_views: dict[str, np.ndarray] = {}
        self.trip_counts: dict[str, int] = {}

    # -- trips --

    def read_trips(self) -> None:
        """Every trip's count, from its tensor argument, before any engine runs: a value
        outside the admitted range is a located error at the `spatial.trip` (nothing runs;
        never clamped or wrapped)."""
        for trip in self.plan.trips:
            name, tensor, elem = trip.sym_name.data, _name(trip.tensor), trip.element
            value = int(self.tensor(tensor, trip, write=False).reshape(-1)[elem])
            lo, hi = trip.admitted
            if not lo <= value <= hi:
                raise error(
                    trip,
                    f"trip @{name} reads {value} from @{tensor}[{elem}], outside the admitted range [{lo}, {hi}] "
                    "(refused before anything runs, never clamped or wrapped)",
                )
            self.trip_counts[name] = trip.count(value)

    # -- memory --

    def tensor(self, name: str, op: Operation, write: bool) -> np.ndarray:
        t = self.plan.tensors[name]
        cached = self.tensor_views.get(name)
        if cached is not None and (not write or cached.flags.writeable):
            return cached
        value = self.frame[t.address_slot]
        args = self.runtime.array_args
        if name not in args or not isinstance(value, int | np.integer):
            raise error(t.op, f"tensor @{name} needs an array argument '{name}' (a {_describe(t)} array)")
        itemsize = t.fmt.itemsize
        nbytes = math.prod(t.shape) * itemsize
        byte = int(value) * np.dtype(args[name][1]).itemsize
        seg = self.runtime.hbm.find(byte, byte + 1)
        if seg is None or seg.start != byte or seg.data.size != nbytes or np.dtype(args[name][1]).itemsize != itemsize:
            got = f"{seg.data.size} bytes of {np.dtype(args[name][1])}" if seg is not None else "nothing"
            raise error(t.op, f"argument '{name}' must be a {_describe(t)} array (spatial.tensor @{name}), got {got}")
        seg = self.runtime.hbm.locate(byte, byte + nbytes, write)
        view = seg.view(t.fmt.storage, byte // itemsize, t.shape, _row_major(t.shape))
        self.tensor_views[name] = view
        return view

    def tile_window(self, tensor: str, tile_shape: tuple[int, ...], indices: list[int], op: Operation, stage: str):
        t = self.plan.tensors[tensor]
        if len(tile_shape) != len(t.shape) or len(indices) > len(t.shape):
            raise error(
                op,
                f"stage @{stage}: tensor @{tensor} has rank {len(t.shape)}, but its tiles have rank {len(tile_shape)} "
                f"and the step gives {len(indices)} tile indices",
            )
        for d in range(len(indices), len(t.shape)):  # an omitted trailing index: the only tile of that dim
            if tile_shape[d] != t.shape[d]:
                raise error(
                    op,
                    f"stage @{stage}: the step gives {len(indices)} tile indices, but tensor @{tensor} "
                    f"({'x'.join(map(str, t.shape))}) has {t.shape[d] // tile_shape[d] or 1} or more tiles of "
                    f"{'x'.join(map(str, tile_shape))} along dim {d}: give its index too",
                )
        indices = [*indices, *([0] * (len(t.shape) - len(indices)))]
        window = []
        for i, size, dim in zip(indices, tile_shape, t.shape):
            if i < 0 or (i + 1) * size > dim:
                raise error(
                    op,
                    f"stage @{stage}: tile {indices} of tensor @{tensor} ({'x'.join(map(str, t.shape))}, tiles "
                    f"{'x'.join(map(str, tile_shape))}) is outside the tensor",
                )
            window.append(slice(i * size, (i + 1) * size))
        return tuple(window)

    def slot(self, buf: _Buffer, index: int) -> np.ndarray:
        lo = buf.offset + index * buf.tile_bytes
        return self.lx[buf.site][lo : lo + buf.tile_bytes].view(buf.fmt.storage).reshape(buf.shape)

    def take(self, buf: _Buffer, op: Operation, stage: StageOp) -> np.ndarray:
        """The oldest full slot's tile (a copy); the slot is freed."""
        ring = self.rings[buf.name]
        if ring.count == 0:
            raise error(
                op,
                f"buffer underflow: {stage.kind_name} stage @{stage.sym_name.data} reads buffer @{buf.name}, "
                f"none of whose {buf.depth} slot(s) is full",
                (buf.op, f"buffer @{buf.name} is declared here"),
            )
        tile = self.slot(buf, ring.head).copy()
        ring.full[ring.head] = False
        ring.head = (ring.head + 1) % ring.depth
        ring.count -= 1
        return tile

    def put(self, buf: _Buffer, tile: np.ndarray, op: Operation, stage: StageOp) -> None:
        """`tile` (stored elements of the buffer) into the next slot, which becomes full."""
        ring = self.rings[buf.name]
        if ring.count == ring.depth:
            raise error(
                op,
                f"buffer overflow: {stage.kind_name} stage @{stage.sym_name.data} writes buffer @{buf.name}, "
                f"all {buf.depth} slot(s) of which are full",
                (buf.op, f"buffer @{buf.name} is declared here"),
            )
        self.slot(buf, ring.tail)[...] = tile
        ring.full[ring.tail] = True
        ring.count += 1

    # -- engines --

    def engine(self, engine: EngineOp):
        yield from self.block(engine.body.block, {})

    def block(self, block: Block, env: dict):
        for op in block.ops:
            if isinstance(op, LoopOp):
                trip = op.trip_name
                if trip is None:
                    lower, upper = op.bounds
                else:  # run to a trip: its count, read before the run
                    lower = int(op.lower.value.data)
                    upper = lower + self.trip_counts[trip]
                for k in range(lower, upper):
                    self.progress += 1
                    env[op.iteration] = k
                    yield from self.block(op.body.block, env)
            elif isinstance(op, WaitOp):
                sem, count = _name(op.semaphore), int(op.count.value.data)
                while self.semaphores[sem] < count:
                    yield op
                self.semaphores[sem] -= count
                self.progress += 1
            elif isinstance(op, SignalOp):
                self.semaphores[_name(op.semaphore)] += int(op.count.value.data)
                self.progress += 1
            else:
                self.step(op, env)
                self.progress += 1

    def step(self, op: Operation, env: dict) -> None:
        plan = self.plan
        if isinstance(op, RecvStepOp):
            raise error(op, "spatial.recv_step (a multicast receive) is not executable yet (docs/spatial.md)")
        assert isinstance(op, LoadStepOp | StoreStepOp | ComputeStepOp)
        stage = plan.stages[_name(op.stage)]
        name = stage.sym_name.data
        indices = []
        for value in op.indices:
            if value not in env:
                raise error(op, "a step's tile indices must be iteration numbers of enclosing spatial.loop ops")
            indices.append(env[value])
        if isinstance(op, LoadStepOp):
            tensor, buf = plan.tensors[stage.input_names[0]], plan.buffers[stage.output_names[0]]
            window = self.tile_window(tensor.op.sym_name.data, buf.shape, indices, op, name)
            tile = self.tensor(tensor.op.sym_name.data, op, write=False)[window]
            self.put(buf, _convert(tile, tensor.fmt, buf.fmt), op, stage)
        elif isinstance(op, StoreStepOp):
            buf, tensor = plan.buffers[stage.input_names[0]], plan.tensors[stage.output_names[0]]
            window = self.tile_window(tensor.op.sym_name.data, buf.shape, indices, op, name)
            tile = self.take(buf, op, stage)
            self.tensor(tensor.op.sym_name.data, op, write=True)[window] = _convert(tile, buf.fmt, tensor.fmt)
        else:
            self.compute(op, stage)

    def compute(self, op: ComputeStepOp, stage: StageOp) -> None:
        plan = self.plan
        name = stage.sym_name.data
        compiled, formats = plan.bodies[name]  # pyright: ignore[reportGeneralTypeIssues]
        ins = [plan.buffers[b] for b in stage.input_names]
        args = []
        for buf, fmt in zip(ins, formats):
            tile = self.take(buf, op, stage)
            value = np.asarray(buf.fmt.from_storage(tile)).astype(fmt.compute)
            if fmt.round is not None:
                value = fmt.round(value)
            value.flags.writeable = False
            args.append(value)
        try:
            results = compiled.call(self.frame[0], args)  # pyright: ignore[reportAttributeAccessIssue]
        except DiagnosticError as exc:
            note = f"in the body of compute stage @{name}, run here"
            exc.diagnostic.notes.append(type(exc.diagnostic)("note", note, location_of(op)))
            raise
        outs = [plan.buffers[b] for b in stage.output_names]
        if len(results) != len(outs):
            raise error(op, f"compute stage @{name} yields {len(results)} tiles for {len(outs)} output buffers")
        for buf, value in zip(outs, results):
            value = np.asarray(value)
            if value.shape != buf.shape:
                raise error(
                    op, f"compute stage @{name} yields a {value.shape} tile for buffer @{buf.name} of tiles {buf.shape}"
                )
            value = value.astype(buf.fmt.compute)
            if buf.fmt.round is not None:
                value = buf.fmt.round(value)
            self.put(buf, np.asarray(buf.fmt.to_storage(value)).astype(buf.fmt.storage), op, stage)

    # -- the scheduler --

    def run(self) -> None:
        self.read_trips()
        active = [(engine, self.engine(engine)) for engine in self.plan.engines]
        blocked: dict[int, WaitOp] = {}
        deadline = self.runtime.deadline
        while active:
            before = self.progress
            finished = False
            still = []
            for engine, coroutine in active:
                wait = next(coroutine, None)
                if wait is None:
                    finished = True
                    blocked.pop(id(engine), None)
                    continue
                blocked[id(engine)] = wait
                still.append((engine, coroutine))
            active = still
            if active and not finished and self.progress == before:
                self.deadlock([(engine, blocked[id(engine)]) for engine, _ in active])
            if deadline is not None and time.monotonic() > deadline:
                raise error(self.plan.program, self.runtime.timed_out("running this program").message)

    def deadlock(self, waiting: list[tuple[EngineOp, WaitOp]]) -> None:
        def what(engine: EngineOp, wait: WaitOp) -> str:
            sem = _name(wait.semaphore)
            return f"{engine.describe()} (wait @{sem} >= {int(wait.count.value.data)}, value {self.semaphores[sem]})"

        engine, wait = waiting[0]
        sem = _name(wait.semaphore)
        raise error(
            wait,
            f"deadlock: {engine.describe()} waits for semaphore @{sem} >= {int(wait.count.value.data)}, "
            f"but its value is {self.semaphores[sem]} and no engine can progress; blocked engines: "
            + "; ".join(what(e, w) for e, w in waiting),
            *((w, f"{e.describe()} is blocked here") for e, w in waiting[1:]),
        )


def _describe(t: _Tensor) -> str:
    return f"{'x'.join(map(str, t.shape))} {t.fmt.name}"


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _no_results(fc: FunctionCompiler, op: Operation) -> bool:
    return False


@handles(RunProgramOp, varying=_no_results)
def _run_program(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, RunProgramOp)
    plan = _Plan(fc, op)

    def step(frame):
        _Run(plan, frame, fc.program.runtime).run()

    return step
