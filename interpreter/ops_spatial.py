"""spatial: running a `spatial.program` (docs/spatial.md, "Executing it").

    out = spyre_mlir.interpret(module, "vadd", x=x, y=y, z=np.zeros_like(x))
    out["z"]                       # every tensor argument's contents after the run

    out, stats = simulate(module, "vadd", x=x, y=y, z=np.zeros_like(x))
    stats.hbm_read_bytes, stats.hbm_written_bytes, stats.cycles, stats.events

How a program is called. `Interpreter` finds a program by symbol name as it
finds a `func.func` (a function of that name wins): `spatial_kernels` gives
each program a wrapper function `@name(%x: index, %K: index, ...)`, one
parameter per `spatial.tensor` (a pointer, `index`) and per `spatial.scalar`
(of the scalar's type), named after it, in declaration order, whose body is
one `RunProgramOp` (an interpreter-internal op, in no dialect). So a
program's arguments are marshalled as a kernel's: each `spatial.tensor @x :
memref<SHAPE x T>` is the keyword argument `x`, an array of that shape and
element type placed in HBM (row-major) and read back into the result (a
strided tensor, `memref<32x256xf32, strided<[1, 32]>>`, is the argument's
elements at those strides, as the kernel's view reads them: its argument is an
array of at least `span` elements, element (i, j) at flat i + 32 * j); each
`spatial.scalar @K : T = V` is the keyword argument `K`, a number. The
program runs once (not per core): its sites are simulated together.

A tensor at a fixed HBM address (`spatial.tensor @hbm1024 : memref<96x64xf16>
attributes {address = 1024}`, what spatial-tile makes of a kernel's view at a
constant address) takes no argument: it is the HBM at that element address,
as the kernel sees it (preload it with `interpret(..., hbm={1024: array})`,
read it back with `result.read_hbm(1024, shape, dtype)`; a read of bytes
nothing wrote is a located error).

Semantics (a deterministic discrete-event simulation, no threads):

- Scalars. A runtime scalar (`spatial.scalar @alpha : f32`, no value) is
  an input: each compute stage naming it (`scalars(@alpha)`) gets its value
  as the body argument after its tiles, and a trip may count from it. Before
  ANY engine runs (and before trips are read), each specialized
  `spatial.scalar @K : T = V` compares its argument with V, both converted
  to T (`np.float32(given) == np.float32(V)` for f32): another value is a
  located error at the `spatial.scalar` ("program @P is specialized for
  K = 2048, called with K = 1024") and nothing runs.
- Tiles. A load or store step moves one tile, of the shape of the stage's
  buffer, between HBM and LX. Its origin (the element where the tile starts
  in the tensor, one coordinate per dim) is the stage's `origin` map applied
  to the step's indices (`load_step @ld [%k, %j]`: d0 = k, d1 = j; the step
  gives exactly as many indices as the map has dims); without `origin`, the
  tile grid, `default_origin(tile shape)`: `(d_i) -> (d_i * tile_i)`, where
  the step's indices are the leading tile coordinates and an omitted
  trailing index is 0, allowed only along a dim the tile spans whole
  (`load_step @ld [%k]` of 16x64 tiles of a 64x64 tensor is tile [k, 0]).
  The tile covers [origin, origin + tile shape) per dim; reaching outside
  the tensor is a located error at the step, unless the stage is `masked`
  (a unit attribute spatial-tile gives a tail tile's stage) and the run
  masks (`InterpreterOptions.mask_out_of_bounds`, the default): then the
  window is clipped to the tensor, a load fills the tile's elements outside
  it with 0 and a store does not write them (KTDP-SEMANTICS §4, as the
  interpreter runs the source's access). A strict run refuses the step, as
  it refuses the source's access.
- Buffers. A FIFO buffer of depth D is a ring of D slots in its site's LX,
  at its `offset` (slot s at offset + s * tile bytes), each slot full or
  free. A writer fills the next slot of the ring, a reader takes the oldest
  full one and frees it. Writing a buffer whose D slots are all full
  (overflow), or reading one with no full slot (underflow), is a located
  error at the step naming the stage and the buffer. A local buffer (one
  engine's variable) is one slot: writing overwrites it, reading does not
  free it, reading it before anything wrote it is an underflow. Each site's
  LX is its own byte array of the program's `lx_bytes` (default 2 MiB), not
  the per-core LX of `runtime.lx` (the wrapper runs on one core whatever
  the sites).
- Engines. Each `spatial.engine` (one per (site, engine)) is an engine of
  the engine simulator (analysis/engines.py, in data mode: each step's work
  is done here, on NumPy tiles in the sites' LX), running its choreography in
  order:
  `spatial.loop %k = lo to hi` runs its body for k = lo .. hi-1;
  `spatial.loop %k = lo to trip(@t)` runs it for k = lo .. lo+n-1, n the
  trip's count (below);
  `spatial.wait @sem >= N` blocks until the semaphore's value is >= N, then
  DECREMENTS it by N (a counting-semaphore acquire, as the dialect's
  `WaitOp` says: "block until the semaphore reaches N, then take N");
  `spatial.signal @sem += N` increments it;
  `spatial.load_step @stage [idx]` copies the tile at idx of the stage's
  tensor into its output buffer; when the stage is the reader of a
  `spatial.multicast` group, the same tile (read from HBM once) is also
  written into the output buffer of every receive stage of the group (an
  overflow there names the receive stage and its buffer);
  `spatial.store_step @stage [idx]` copies the oldest full slot of its input
  buffer into the tile at idx and frees the slot;
  `spatial.compute_step @stage [idx]` reads a tile of each input buffer
  (all of them before writing any output: a stage may read and write the
  same local), runs the stage body (its block arguments are the tiles as
  tensors, then the values of the scalars the stage names, then the step's
  indices as `index` values) and writes each
  yielded tile into the matching output buffer. The body runs through the
  interpreter's own handlers: it is decoded as a function
  (`@<program>::<stage>`, the `spatial.yield` becoming a `func.return`), so
  any op a kernel may use runs. Element types convert as the interpreter's
  formats do (bf16 is stored as its bits, computed in f32).
  `spatial.recv_step` is a marker, not executable: a multicast group's
  tiles are delivered at its reader's load step; running one is a located
  error.
- Trips. Before ANY engine runs, each `spatial.trip @t from @x[E] per P
  bias B admit [LO, HI]` reads v, flat element E of its (integer) tensor
  argument @x (`from @n ...`: the runtime scalar argument n). A v outside
  LO ..= HI, or not a multiple of the trip's `granularity G`, is a located
  error at the `spatial.trip` ("trip @t reads v from @x[E], outside the
  admitted range [LO, HI]"; "trip @t reads n_rows = 48, not a multiple of
  the admitted granularity 32"): nothing runs, the value is never clamped
  or wrapped. Else every loop run to @t runs n = ceil((v + B) / P) times;
  v + B <= 0 gives n = 0 (the loop body never runs).
- Scheduler. Round-robin over the engines in program order, each running
  until it blocks on a wait or finishes. The program ends when every engine
  has finished. When a whole round makes no progress while some engine is
  unfinished, that is a deadlock: a located error at the first blocked
  `spatial.wait`, naming its semaphore, the semaphore's value and the
  wanted count, and listing every blocked engine (with notes at their waits).

Measurements (`SpatialRunStats`, `simulate`; `spyre-run --estimate-json`
and `--trace`). Every run counts the HBM bytes its load steps read and its
store steps write (a tile's bytes per step, of a masked step only its
elements inside the tensor; a multicast load once). With
the cost model on (`InterpreterOptions.cost_model`, which `simulate` turns
on), it also simulates cycles: each engine has its own clock; a step takes
the cost model's cycles (interpreter/cost_model.py) from the engine's clock on:
a load or store step its tile's HBM bytes (whole sticks per row) over the
HBM bandwidth of one core when the program's sites share the chip's
(`HardwareConfig.hbm_bytes_per_cycle_per_core(sites)`), a compute step what
the cost model charges the ops of its body for that run (measured as the
schedule IR's stages are); a signal stamps its units with the signalling
engine's clock; a wait takes the oldest units of its semaphore and moves
the waiting engine's clock to the latest stamp among the units it takes
(when that is later). The program's cycles are the largest engine clock. Load
and store steps are also charged to the run's cost estimate (rows
`spatial.load_step` and `spatial.store_step`), so its sequential figure is
every step of every engine one after another.

A program must be in phase "synthesized" or later (it needs its
choreographies and its buffers' offsets). The dialect's ops themselves are
listed as not executable: they are never run as ops of a function body, only
as part of their program, through `RunProgramOp`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, var_operand_def

from spyre_mlir.analysis import trace as chrome
from spyre_mlir.analysis.affine import compile_map, format_map
from spyre_mlir.analysis.engines import (
    Access,
    Deadlock,
    Engine,
    Fifo,
    FifoOverflow,
    FifoUnderflow,
    Signal,
    Simulator,
    Wait,
)
from spyre_mlir.analysis.engines import Step as EngineStep
from spyre_mlir.diagnostics import DiagnosticError, error, location_of
from spyre_mlir.dialects.spatial import (
    CHOREOGRAPHY,
    DECLARATIONS,
    MASKED_ATTR,
    PHASES,
    BufferOp,
    ComputeStepOp,
    EngineOp,
    LoadStepOp,
    LoopOp,
    MulticastOp,
    ProgramOp,
    RecvStepOp,
    ScalarOp,
    SemaphoreOp,
    SignalOp,
    SiteOp,
    StageOp,
    StoreStepOp,
    TensorOp,
    TripOp,
    WaitOp,
    YieldOp,
    default_origin,
    row_major,
)
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, not_executable
from spyre_mlir.interpreter.cost_model import HardwareConfig, tile_move_cycles
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.plugins import Plugin, register

RUNNABLE_FROM = "synthesized"
"""The first phase whose programs run (choreographies and buffer offsets exist)."""

_PART_OF_A_PROGRAM = (
    "runs only as part of its spatial.program: interpret(module, \"<program name>\", **arguments) "
    "runs the program (interpreter/ops_spatial.py)"
)

not_executable(dict.fromkeys((ProgramOp, *DECLARATIONS, *CHOREOGRAPHY), _PART_OF_A_PROGRAM))


@irdl_op_definition
class RunProgramOp(IRDLOperation):
    """Interpreter-internal (in no dialect, never printed): the body of a
    program's wrapper function; runs the program, its operands being its
    arguments in declaration order: the HBM element address of each
    `spatial.tensor`, the value of each `spatial.scalar`."""

    name = "spyre_interpreter.run_spatial_program"

    arguments = var_operand_def()

    def __init__(self, program: ProgramOp, arguments: list[SSAValue]):
        super().__init__(operands=[arguments])
        self.program = program


# The cost model (interpreter/cost_model.py) prices every op the interpreter executes: this one is
# priced by its steps (a load or store step charges its tile's HBM cycles, a compute step the
# ops of its body), not as an op of its own.


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


def _parameters(program: ProgramOp) -> list[TensorOp | ScalarOp]:
    """The declarations a program takes an argument for, in declaration order (a
    tensor at a fixed HBM address, `address = N`, takes none)."""
    return [op for op in program.declarations() if isinstance(op, TensorOp | ScalarOp) and _fixed_address(op) is None]


UNUSED_ARGS_ATTR = "spatial.unused_args"
UNUSED_ARG_TYPES_ATTR = "spatial.unused_arg_types"


def _unused_arguments(program: ProgramOp) -> list[tuple[str, Attribute]]:
    """Arguments of the source kernel the program does not use (`spatial.unused_args`,
    set by spatial-tile), with their types (`spatial.unused_arg_types`; index where the
    program does not record them): taken, so the program runs with the kernel's
    arguments, and ignored."""
    attr = program.attributes.get(UNUSED_ARGS_ATTR)
    names = [a.data for a in attr.data if isinstance(a, StringAttr)] if isinstance(attr, ArrayAttr) else []
    types_attr = program.attributes.get(UNUSED_ARG_TYPES_ATTR)
    types = list(types_attr.data) if isinstance(types_attr, ArrayAttr) else []
    if len(types) != len(names) or not all(isinstance(t, TypeAttribute) for t in types):
        types = [IndexType()] * len(names)
    return list(zip(names, types))


def _fixed_address(op: Operation) -> int | None:
    """The HBM element address of a `spatial.tensor` the kernel finds at a
    constant address (`attributes {address = N}`: data placed there before
    the run, as `interpret(..., hbm={N: array})` does), else None."""
    attr = op.attributes.get("address") if isinstance(op, TensorOp) else None
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else None


def spatial_kernels(module: ModuleOp, taken) -> dict[str, func.FuncOp]:
    """A wrapper function for every program of `module` whose name no function
    in `taken` has: `func.func @name(%x: index, %K: index, ...)` with one
    parameter per `spatial.tensor` (a pointer) and per `spatial.scalar` (of its
    type), named after it, in declaration order, and a `RunProgramOp` body. The
    wrappers are detached (the module is not changed) and located at their
    program."""
    wrappers: dict[str, func.FuncOp] = {}
    for name, program in programs_of(module).items():
        if name in taken:
            continue
        params = _parameters(program)
        types: list[Attribute] = [IndexType() if isinstance(p, TensorOp) else p.scalar_type for p in params]
        unused = _unused_arguments(program)
        block = Block(arg_types=types + [t for _, t in unused])
        for arg, arg_name in zip(block.args, [p.sym_name.data for p in params] + [n for n, _ in unused]):
            try:
                arg.name_hint = arg_name
            except (ValueError, TypeError):  # a name no SSA value can carry: positional arg#i
                pass
        run = RunProgramOp(program, list(block.args[: len(params)]))
        ret = func.ReturnOp()
        run.location = ret.location = program.location
        block.add_ops([run, ret])
        wrapper = func.FuncOp(name, FunctionType.from_lists([a.type for a in block.args], []), Region(block))
        wrapper.location = program.location
        wrappers[name] = wrapper
    return wrappers


# -- measurements -------------------------------------------------------------------------


@dataclass(frozen=True)
class SpatialEvent:
    """One step of one engine on the simulated timeline (cycles)."""

    site: str
    engine: str
    step: str  # "load_step", "compute_step", "store_step"
    stage: str
    start: float
    end: float
    indices: tuple[int, ...] = ()


@dataclass
class SpatialRunStats:
    """What a run of a spatial program measured (module docstring, "Measurements").

    `hbm_read_bytes` / `hbm_written_bytes`: bytes its load / store steps moved
    (a tile's bytes per step; a multicast load once). `cycles`: the largest
    engine clock, `engine_cycles` each (site.engine) clock, `events` every
    step on its engine's clock (None / empty without the cost model).
    `to_json()` is the "spatial" entry of `spyre-run --estimate-json`,
    `trace()` the Chrome trace of `spyre-run --trace` (one track per (site,
    engine), one slice per step)."""

    program: str
    hbm_read_bytes: int = 0
    hbm_written_bytes: int = 0
    steps: int = 0
    cycles: float | None = None
    engine_cycles: dict[str, float] = field(default_factory=dict)
    events: list[SpatialEvent] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)
    engines: list[tuple[str, str]] = field(default_factory=list)
    hardware: HardwareConfig | None = None

    @property
    def hbm_bytes(self) -> int:
        """Bytes moved between HBM and the sites, read and written."""
        return self.hbm_read_bytes + self.hbm_written_bytes

    def to_json(self) -> dict:
        hw = self.hardware
        return {
            "program": self.program,
            "hbm_read_bytes": self.hbm_read_bytes,
            "hbm_written_bytes": self.hbm_written_bytes,
            "hbm_bytes": self.hbm_bytes,
            "steps": self.steps,
            "cycles": self.cycles,
            "us": None if self.cycles is None or hw is None else hw.microseconds(self.cycles),
            "engine_cycles": dict(self.engine_cycles),
            "sites": len(self.sites),
            "hbm_bytes_per_cycle_per_site": None if hw is None else hw.hbm_bytes_per_cycle_per_core(len(self.sites)),
        }

    def render(self) -> str:
        cycles = "not simulated (the cost model is off)" if self.cycles is None else f"{self.cycles:g}"
        return (
            f"spatial program @{self.program}: {self.steps} steps on {len(self.engines)} engines of "
            f"{len(self.sites)} sites; HBM read {self.hbm_read_bytes} bytes, written {self.hbm_written_bytes}; "
            f"cycles {cycles} (engines overlapping)"
        )

    def trace(self) -> dict:
        """Chrome trace events (https://ui.perfetto.dev): pid = site, tid = engine,
        one "X" slice per step; ts/dur in microseconds of modeled time."""
        hw = self.hardware or HardwareConfig()
        pid = {site: i for i, site in enumerate(self.sites)}
        tid: dict[tuple[str, str], int] = {}
        meta: list[dict] = []
        for site, i in pid.items():
            meta += chrome.process(i, f"site @{site}")
        for site, engine in self.engines:
            t = tid[(site, engine)] = sum(1 for s, _ in tid if s == site)
            meta += chrome.thread(pid[site], t, engine)
        events = [
            chrome.span(
                f"{e.step} @{e.stage}",
                e.step,
                hw.microseconds(e.start),
                hw.microseconds(e.end - e.start),
                pid[e.site],
                tid[(e.site, e.engine)],
                {"stage": e.stage, "indices": list(e.indices), "start_cycles": e.start, "end_cycles": e.end},
            )
            for e in self.events
        ]
        other = {
            "model": "spatial program: engines with their own clocks (interpreter/ops_spatial.py)",
            "program": self.program,
            "clock_ghz": hw.clock_ghz,
            "time_unit": "microseconds of modeled time",
            "cycles": self.cycles,
            "hbm_read_bytes": self.hbm_read_bytes,
            "hbm_written_bytes": self.hbm_written_bytes,
        }
        return chrome.document(meta, events, other)

    def write_trace(self, path: str | os.PathLike) -> None:
        chrome.write_json(path, self.trace(), compact=True)


_RAN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""The programs (ids of their `RunProgramOp`s) each run (`Runtime`) ran: once per run, not per core."""


def _program_grid(program: ProgramOp) -> tuple[int, ...]:
    """The grid a program was built for (its `grid` attribute; (1,) without one)."""
    attr = program.attributes.get("grid")
    if isinstance(attr, ArrayAttr) and attr.data and all(isinstance(g, IntegerAttr) for g in attr.data):
        return tuple(int(g.value.data) for g in attr.data)  # pyright: ignore[reportAttributeAccessIssue]
    return (1,)


_RUNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""The stats of the spatial programs each run (`Runtime`) ran, in order."""


def spatial_stats(result) -> SpatialRunStats | None:
    """The measurements of the spatial program `result` (an `InterpretResult`,
    or its `Runtime`) ran, None if it ran none."""
    runs = _RUNS.get(getattr(result, "runtime", result))
    return runs[-1] if runs else None


def simulate(source, name: str | None = None, *, options=None, hbm=None, **args):
    """Run spatial program `name` of `source` (a module, text or path) with
    `args` (its tensors and scalars by name; `hbm={element address: array}`
    preloads fixed-address tensors), the cost model on (`options`'
    `cost_model`, else the default hardware): `(outputs, SpatialRunStats)`,
    `outputs` the run's `InterpretResult` (every tensor argument's contents)."""
    from spyre_mlir.interpreter.api import Interpreter
    from spyre_mlir.interpreter.runtime import InterpreterOptions

    options = options or InterpreterOptions()
    if not options.cost_model:
        options = dataclasses.replace(options, cost_model=True)
    result = Interpreter(source, options).run(name, args, hbm)
    stats = spatial_stats(result)
    if stats is None:
        raise error(None, f"@{result.report.function} is not a spatial program: simulate() runs spatial programs")
    return result, stats


# -- the plan of a program (decoded once) -------------------------------------------------


@dataclass
class _Tensor:
    op: TensorOp
    shape: tuple[int, ...]
    fmt: ElementFormat
    address_slot: int  # the argument's slot (-1: at a fixed address)
    fixed_address: int | None = None  # HBM element address of a fixed-address tensor


@dataclass
class _Scalar:
    op: ScalarOp
    fmt: ElementFormat
    slot: int


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
    local: bool


@dataclass
class _Move:
    """How a load or store stage places its tile in its tensor."""

    tensor: _Tensor
    buffer: _Buffer
    origin: Callable  # compile_map(origin map): (dims, symbols) -> origin
    text: str  # the map, as MLIR prints it
    dims: int
    explicit: bool  # the stage's own `origin` (else the tile grid)
    cycles: float  # the cost model's cycles of one step (HBM bytes over the site's bandwidth)
    masked: bool = False  # the stage's `masked`: elements outside the tensor load 0 and are not stored


def _name(ref) -> str:
    return ref.root_reference.data


def _format(op: Operation, ty, what: str) -> ElementFormat:
    try:
        return element_format(ty)
    except InterpreterError as exc:
        raise error(op, f"{what}: {exc.message}") from None


def _shape(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


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
        self.scalars: list[_Scalar] = []
        self.scalar_of: dict[str, _Scalar] = {}
        for op, value in zip(_parameters(program), run.arguments):
            if isinstance(op, ScalarOp):
                self.scalars.append(_Scalar(op, _format(op, op.scalar_type, f"scalar @{op.sym_name.data}"),
                                            fc.slot(value)))
                self.scalar_of[op.sym_name.data] = self.scalars[-1]
                continue
            ty = op.tensor_type
            assert isinstance(ty, MemRefType)
            shape = tuple(ty.get_shape())
            if any(d < 0 for d in shape):
                raise error(op, f"tensor @{op.sym_name.data}: only static shapes run, got {ty}")
            fmt = _format(op, ty.get_element_type(), f"tensor @{op.sym_name.data}")
            self.tensors[op.sym_name.data] = _Tensor(op, shape, fmt, fc.slot(value))
        for op in program.of_kind(TensorOp):
            assert isinstance(op, TensorOp)
            address = _fixed_address(op)
            if address is None:
                continue
            ty = op.tensor_type
            shape = tuple(ty.get_shape())
            if any(d < 0 for d in shape) or address < 0:
                raise error(op, f"tensor @{op.sym_name.data}: a fixed-address tensor has a static shape and a "
                            f"non-negative address, got {ty} at {address}")
            fmt = _format(op, ty.get_element_type(), f"tensor @{op.sym_name.data}")
            self.tensors[op.sym_name.data] = _Tensor(op, shape, fmt, -1, address)
        self.buffers: dict[str, _Buffer] = {}
        for op in program.of_kind(BufferOp):
            assert isinstance(op, BufferOp)
            name = op.sym_name.data
            if op.offset_value is None:
                raise error(op, f"buffer @{name} has no offset: it cannot be placed in LX")
            fmt = _format(op, op.tile.get_element_type(), f"buffer @{name}")
            shape = op.tile.get_shape()
            self.buffers[name] = _Buffer(
                op, name, _name(op.site), shape, fmt, op.depth_value, op.offset_value,
                math.prod(shape) * fmt.itemsize, op.is_local,
            )
        self.stages: dict[str, StageOp] = {op.sym_name.data: op for op in program.of_kind(StageOp)}  # pyright: ignore
        self.semaphores: dict[str, int] = {
            op.sym_name.data: int(op.init.value.data) for op in program.of_kind(SemaphoreOp)  # pyright: ignore
        }
        self.trips: list[TripOp] = program.of_kind(TripOp)  # pyright: ignore[reportAttributeAccessIssue]
        self.engines: list[EngineOp] = program.of_kind(EngineOp)  # pyright: ignore[reportAttributeAccessIssue]
        self.sites: list[str] = [op.sym_name.data for op in program.of_kind(SiteOp)]  # pyright: ignore
        self.lx_bytes = {site: 0 for site in (b.site for b in self.buffers.values())}
        for b in self.buffers.values():
            self.lx_bytes[b.site] = max(self.lx_bytes[b.site], b.offset + b.depth * b.tile_bytes)
        # The cost model's figures: set when the run has one (HBM shared by the program's sites).
        self.hardware: HardwareConfig | None = getattr(getattr(fc.program, "cost_model", None), "config", None)
        # Load and store stages: where their tiles lie; multicast readers: the receive buffers they fill.
        self.moves: dict[str, _Move] = {}
        for name, stage in self.stages.items():
            if stage.kind_name in ("load", "store"):
                self.moves[name] = self._move(stage)
        self.receivers: dict[str, list[tuple[StageOp, _Buffer]]] = {}
        by_group: dict[str, list[StageOp]] = {}
        for stage in self.stages.values():
            if stage.kind_name == "receive":
                by_group.setdefault(stage.input_names[0], []).append(stage)
        for group in program.of_kind(MulticastOp):
            assert isinstance(group, MulticastOp)
            self.receivers.setdefault(_name(group.reader), []).extend(
                (stage, self.buffers[stage.output_names[0]]) for stage in by_group.get(group.sym_name.data, [])
            )
        # What a step of each stage takes and fills, in the order the run does (engine simulator FIFOs).
        self.sides: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for name, stage in self.stages.items():
            kind = stage.kind_name
            if kind == "load":
                receive = tuple(b.name for _, b in self.receivers.get(name, ()))
                self.sides[name] = ((), (self.moves[name].buffer.name, *receive))
            elif kind == "store":
                self.sides[name] = ((self.moves[name].buffer.name,), ())
            elif kind == "compute":
                self.sides[name] = (tuple(stage.input_names), tuple(stage.output_names))
        # Compute bodies, decoded as functions of the program's function table.
        self.bodies: dict[str, object] = {}
        for name, stage in self.stages.items():
            if stage.kind_name == "compute":
                self.bodies[name] = self._decode_body(fc, stage)

    def _move(self, stage: StageOp) -> _Move:
        tensor_name, buffer_name = (
            (stage.input_names[0], stage.output_names[0]) if stage.kind_name == "load"
            else (stage.output_names[0], stage.input_names[0])
        )
        tensor, buffer = self.tensors[tensor_name], self.buffers[buffer_name]
        amap = stage.origin_map
        explicit = amap is not None
        if amap is None:
            amap = default_origin(buffer.shape)
        return _Move(tensor, buffer, compile_map(amap), format_map(amap), amap.num_dims, explicit,
                     self.move_cycles(buffer.shape, tensor.fmt.itemsize), MASKED_ATTR in stage.attributes)

    def move_cycles(self, shape: tuple[int, ...], itemsize: int) -> float:
        """The cost model's cycles of moving a tile of `shape` (0 without the cost model)."""
        hw = self.hardware
        if hw is None:
            return 0.0
        return tile_move_cycles(shape, itemsize, hw, len(self.sites))

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
        tiles = len(stage.inputs.data)  # then the index arguments
        formats = [
            _format(stage, a.type.get_element_type() if isinstance(a.type, TensorType) else a.type, f"stage @{name}")
            for a in block.args[:tiles]
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


def _number(value, fmt: ElementFormat) -> str:
    """A scalar for people: an integer as is, a float as its type prints it shortest (1e-05)."""
    if fmt.is_float:
        return str(np.asarray(value, fmt.compute)[()])
    return str(int(value))


class _Run:
    """The state of one run of a program: the LX of each site, the tensors, the trips; the engines,
    semaphores and buffer rings are a data-mode `Simulator` (analysis/engines.py)."""

    def __init__(self, plan: _Plan, frame: list, runtime):
        self.plan = plan
        self.frame = frame
        self.runtime = runtime
        self.lx: dict[str, np.ndarray] = {}
        for site, nbytes in plan.lx_bytes.items():
            runtime.budget.reserve(nbytes, f"the LX buffers of site @{site}")
            self.lx[site] = np.zeros(nbytes, np.uint8)
        self.tensor_views: dict[str, np.ndarray] = {}
        self.trip_counts: dict[str, int] = {}
        self.cost = runtime.cost  # the run's CostCounter, when the cost model is on
        self.stats = SpatialRunStats(
            plan.program.sym_name.data,
            sites=list(plan.sites),
            engines=[(_name(e.site), e.engine.data) for e in plan.engines],
            hardware=plan.hardware if self.cost is not None else None,
        )
        self.rows: dict[str, int] = {}
        if self.cost is not None:
            model = self.cost.model
            self.rows = {kind: model.row(f"spatial.{kind}", "memory") for kind in ("load_step", "store_step")}
            model.unpriced.discard(RunProgramOp.name)  # priced by its steps

    # -- scalars and trips --

    def check_scalars(self) -> None:
        """Every scalar argument equals the value the program is specialized for (in the
        scalar's type), before any engine runs: else a located error at the `spatial.scalar`."""
        program = self.plan.program.sym_name.data
        for scalar in self.plan.scalars:
            op, fmt = scalar.op, scalar.fmt
            if op.number is None:
                continue  # a runtime input
            given, wanted = self.frame[scalar.slot], fmt.scalar(op.number)
            if given != wanted:
                name = op.sym_name.data
                raise error(
                    op,
                    f"program @{program} is specialized for {name} = {_number(wanted, fmt)}, called with "
                    f"{name} = {_number(given, fmt)}",
                )

    def read_trips(self) -> None:
        """Every trip's count, from its tensor argument, before any engine runs: a value
        outside the admitted range is a located error at the `spatial.trip` (nothing runs;
        never clamped or wrapped)."""
        for trip in self.plan.trips:
            name, source, elem = trip.sym_name.data, trip.source_name, trip.element
            if trip.reads_scalar:
                value = int(self.frame[self.plan.scalar_of[source].slot])
                read = f"{source} = {value}"
            else:
                value = int(self.tensor(source, trip, write=False).reshape(-1)[elem])
                read = f"{value} from @{source}[{elem}]"
            refusal = trip.refusal(value)
            if refusal is not None:
                raise error(
                    trip,
                    f"trip @{name} reads {read}, {refusal} (refused before anything runs, never clamped or "
                    "wrapped)",
                )
            self.trip_counts[name] = trip.count(value)

    # -- memory --

    def tensor(self, name: str, op: Operation, write: bool) -> np.ndarray:
        t = self.plan.tensors[name]
        cached = self.tensor_views.get(name)
        if cached is not None and (not write or cached.flags.writeable):
            return cached
        if t.fixed_address is not None:
            itemsize = t.fmt.itemsize
            byte = t.fixed_address * itemsize
            try:
                seg = self.runtime.hbm.locate(byte, byte + t.op.span * itemsize, write, itemsize)
            except InterpreterError as exc:
                raise error(op, f"tensor @{name} at HBM element {t.fixed_address}: {exc}") from None
            view = seg.view(t.fmt.storage, byte // itemsize, t.shape, t.op.element_strides)
            self.tensor_views[name] = view
            return view
        value = self.frame[t.address_slot]
        args = self.runtime.array_args
        if name not in args or not isinstance(value, int | np.integer):
            raise error(t.op, f"tensor @{name} needs an array argument '{name}' (a {_describe(t)} array)")
        itemsize = t.fmt.itemsize
        nbytes = t.op.span * itemsize
        byte = int(value) * np.dtype(args[name][1]).itemsize
        seg = self.runtime.hbm.find(byte, byte + 1)
        # A row-major tensor is its whole argument; a strided one reads the elements its
        # strides reach, as the kernel's view does, from an argument at least that long.
        strided = t.op.element_strides != row_major(t.shape)
        if (
            seg is None
            or seg.start != byte
            or np.dtype(args[name][1]).itemsize != itemsize
            or (seg.data.size < nbytes if strided else seg.data.size != nbytes)
        ):
            got = f"{seg.data.size} bytes of {np.dtype(args[name][1])}" if seg is not None else "nothing"
            raise error(t.op, f"argument '{name}' must be a {_describe(t)} array (spatial.tensor @{name}), got {got}")
        seg = self.runtime.hbm.locate(byte, byte + nbytes, write)
        view = seg.view(t.fmt.storage, byte // itemsize, t.shape, t.op.element_strides)
        self.tensor_views[name] = view
        return view

    def tile_window(
        self, move: _Move, indices: list[int], op: Operation, stage: str
    ) -> tuple[tuple[slice, ...], tuple[slice, ...] | None]:
        """The tile of a step: [origin, origin + tile shape) per dim, the origin the stage's map
        of the step's indices (the tile grid without `origin`), as (the window of the tensor,
        None). A tile reaching outside the tensor is an error, unless the stage is `masked`
        and the run masks (the default; not `mask_out_of_bounds=False`): then (the window
        clipped to the tensor, the part of the tile it fills), possibly empty."""
        tensor, shape, tile = move.tensor.op.sym_name.data, move.tensor.shape, move.buffer.shape
        if len(tile) != len(shape):
            raise error(
                op,
                f"stage @{stage}: tensor @{tensor} has rank {len(shape)}, but its tiles "
                f"({_shape(tile)}, buffer @{move.buffer.name}) have rank {len(tile)}",
            )
        if move.explicit:
            if len(indices) != move.dims:
                raise error(
                    op, f"stage @{stage}: its origin {move.text} takes {move.dims} index(es), the step gives "
                    f"{len(indices)}",
                )
        else:  # the tile grid: omitted trailing indices are 0 where the tile spans the dim
            if len(indices) > len(shape):
                raise error(
                    op,
                    f"stage @{stage}: the step gives {len(indices)} tile indices, tensor @{tensor} has rank "
                    f"{len(shape)}",
                )
            for d in range(len(indices), len(shape)):
                if tile[d] != shape[d]:
                    raise error(
                        op,
                        f"stage @{stage}: the step gives {len(indices)} tile indices, but tensor @{tensor} "
                        f"({_shape(shape)}) has {shape[d] // tile[d] or 1} or more tiles of "
                        f"{_shape(tile)} along dim {d}: give its index too",
                    )
            indices = [*indices, *([0] * (len(shape) - len(indices)))]
        origin = [int(o) for o in move.origin(indices, ())]
        window, inner, outside = [], [], None
        for d, (start, size, dim) in enumerate(zip(origin, tile, shape)):
            if outside is None and (start < 0 or start + size > dim):
                outside = d
            lo, hi = max(start, 0), min(start + size, dim)
            if hi <= lo:
                window.append(slice(0, 0))
                inner.append(slice(0, 0))
            else:
                window.append(slice(lo, hi))
                inner.append(slice(lo - start, hi - start))
        if outside is None:
            return tuple(window), None
        if move.masked and self.runtime.options.mask_out_of_bounds:
            return tuple(window), tuple(inner)
        start, size, dim = origin[outside], tile[outside], shape[outside]
        why = ""  # a stage without the mark never reaches outside its tensor
        if move.masked:
            why = ("; the stage is masked (its elements outside the tensor load 0 and are not stored), but this run "
                   "checks bounds strictly (mask_out_of_bounds=False, spyre-run --strict-bounds)")
        raise error(
            op,
            f"stage @{stage}: the tile of indices {indices} (origin {origin} = {move.text}, tiles "
            f"{_shape(tile)}) is outside the tensor @{tensor} ({_shape(shape)}): along dim {outside} it covers "
            f"[{start}, {start + size}), the tensor [0, {dim}){why}",
        )

    def slot(self, buf: _Buffer, index: int) -> np.ndarray:
        lo = buf.offset + index * buf.tile_bytes
        return self.lx[buf.site][lo : lo + buf.tile_bytes].view(buf.fmt.storage).reshape(buf.shape)

    # -- engines --

    def program(self, engine: EngineOp):
        """The engine's choreography as the simulator's instructions; a step's tag is (its op, its
        indices: the iteration numbers of its enclosing loops, None when one is another value)."""
        yield from self.block(engine.body.block, {})

    def block(self, block: Block, env: dict):
        plan = self.plan
        for op in block.ops:
            if isinstance(op, LoopOp):
                trip = op.trip_name
                if trip is None:
                    lower, upper = op.bounds
                else:  # run to a trip: its count, read before the run
                    lower = int(op.lower.value.data)
                    upper = lower + self.trip_counts[trip]
                for k in range(lower, upper):
                    env[op.iteration] = k
                    yield from self.block(op.body.block, env)
            elif isinstance(op, WaitOp):
                yield Wait(_name(op.semaphore), int(op.count.value.data), op)
            elif isinstance(op, SignalOp):
                yield Signal(_name(op.semaphore), int(op.count.value.data), op)
            else:
                indices = tuple(env[v] for v in op.operands) if all(v in env for v in op.operands) else None
                takes, fills = plan.sides.get(_name(op.stage), ((), ()))  # pyright: ignore[reportAttributeAccessIssue]
                yield EngineStep(_name(op.stage), takes=takes, fills=fills, tag=(op, indices))  # pyright: ignore

    def step(self, engine: Engine, step: EngineStep, access: Access) -> float:
        """Do one step (module docstring, "Engines"): its cycles (0 without the cost model)."""
        plan = self.plan
        op, indices = step.tag  # pyright: ignore[reportGeneralTypeIssues]
        if isinstance(op, RecvStepOp):
            raise error(
                op,
                f"recv_step @{_name(op.stage)} does not run: a multicast group's tiles are delivered into its "
                "receive stages' buffers at its reader's load_step (a recv_step is a marker; docs/spatial.md)",
            )
        assert isinstance(op, LoadStepOp | StoreStepOp | ComputeStepOp)
        stage = plan.stages[_name(op.stage)]
        name = stage.sym_name.data
        if indices is None:
            raise error(op, "a step's indices must be iteration numbers of enclosing spatial.loop ops")
        indices = list(indices)
        self.stats.steps += 1
        if isinstance(op, LoadStepOp):
            move = plan.moves[name]
            window, inner = self.tile_window(move, indices, op, name)
            tensor, buf = move.tensor, move.buffer
            moved = _convert(self.tensor(tensor.op.sym_name.data, op, write=False)[window], tensor.fmt, buf.fmt)
            if inner is None:
                tile = moved
            else:  # masked: the elements outside the tensor are 0
                tile = np.zeros(buf.shape, buf.fmt.storage)
                tile[inner] = moved
            self.slot(buf, access.fill(0))[...] = tile
            for position, (_, rbuf) in enumerate(plan.receivers.get(name, ()), 1):
                self.slot(rbuf, access.fill(position))[...] = _convert(tile, buf.fmt, rbuf.fmt)
            self.stats.hbm_read_bytes += moved.size * tensor.fmt.itemsize
            cycles = move.cycles if inner is None else plan.move_cycles(moved.shape, tensor.fmt.itemsize)
            self.charge("load_step", cycles)
            return cycles
        if isinstance(op, StoreStepOp):
            move = plan.moves[name]
            window, inner = self.tile_window(move, indices, op, name)
            buf, tensor = move.buffer, move.tensor
            tile = self.slot(buf, access.take(0)).copy()
            if inner is not None:  # masked: the elements outside the tensor are not stored
                tile = tile[inner]
            self.tensor(tensor.op.sym_name.data, op, write=True)[window] = _convert(tile, buf.fmt, tensor.fmt)
            self.stats.hbm_written_bytes += tile.size * tensor.fmt.itemsize
            cycles = move.cycles if inner is None else plan.move_cycles(tile.shape, tensor.fmt.itemsize)
            self.charge("store_step", cycles)
            return cycles
        return self.compute(op, stage, indices, access)

    def charge(self, kind: str, cycles: float) -> None:
        if self.cost is not None:
            self.cost.charge(self.rows[kind], self.frame[0], cycles)

    def compute(self, op: ComputeStepOp, stage: StageOp, indices: list[int], access: Access) -> float:
        """Run the stage's body on its input tiles and the step's indices; the cycles the
        cost model charged its ops (0 without the cost model)."""
        plan = self.plan
        name = stage.sym_name.data
        compiled, formats = plan.bodies[name]  # pyright: ignore[reportGeneralTypeIssues]
        ins = [plan.buffers[b] for b in stage.input_names]
        args: list = []
        for position, (buf, fmt) in enumerate(zip(ins, formats)):
            tile = self.slot(buf, access.take(position)).copy()
            value = np.asarray(buf.fmt.from_storage(tile)).astype(fmt.compute)
            if fmt.round is not None:
                value = fmt.round(value)
            value.flags.writeable = False
            args.append(value)
        args += [self.frame[plan.scalar_of[s].slot] for s in stage.scalar_names]
        args += indices
        ctx = self.frame[0]
        before = float(self.cost.totals(ctx.linear).sum()) if self.cost is not None else 0.0
        try:
            results = compiled.call(ctx, args)  # pyright: ignore[reportAttributeAccessIssue]
        except DiagnosticError as exc:
            note = f"in the body of compute stage @{name}, run here"
            exc.diagnostic.notes.append(type(exc.diagnostic)("note", note, location_of(op)))
            raise
        cycles = float(self.cost.totals(ctx.linear).sum()) - before if self.cost is not None else 0.0
        outs = [plan.buffers[b] for b in stage.output_names]
        if len(results) != len(outs):
            raise error(op, f"compute stage @{name} yields {len(results)} tiles for {len(outs)} output buffers")
        for position, (buf, value) in enumerate(zip(outs, results)):
            value = np.asarray(value)
            if value.shape != buf.shape:
                raise error(
                    op, f"compute stage @{name} yields a {value.shape} tile for buffer @{buf.name} of tiles {buf.shape}"
                )
            value = value.astype(buf.fmt.compute)
            if buf.fmt.round is not None:
                value = buf.fmt.round(value)
            self.slot(buf, access.fill(position))[...] = np.asarray(buf.fmt.to_storage(value)).astype(buf.fmt.storage)
        return cycles

    # -- the scheduler --

    def run(self) -> SpatialRunStats:
        self.check_scalars()
        self.read_trips()
        plan = self.plan
        deadline = self.runtime.deadline

        def check() -> None:
            if deadline is not None and time.monotonic() > deadline:
                raise error(plan.program, self.runtime.timed_out("running this program").message)

        sim = Simulator(
            plan.semaphores,
            {name: Fifo(b.depth, b.local) for name, b in plan.buffers.items()},
            perform=self.step,
            record=self.cost is not None,
            check=check,
        )
        for engine in plan.engines:
            sim.add_engine(engine, self.program(engine))
        try:
            sim.run()
        except Deadlock as exc:
            self.deadlock(exc)
        except (FifoOverflow, FifoUnderflow) as exc:
            self.fifo_error(exc)
        stats = self.stats
        if self.cost is not None:
            stats.events = [
                SpatialEvent(
                    _name(e.engine.name.site),  # pyright: ignore[reportAttributeAccessIssue]
                    e.engine.name.engine.data,  # pyright: ignore[reportAttributeAccessIssue]
                    e.step.tag[0].name.split(".", 1)[1],  # pyright: ignore[reportIndexIssue]
                    e.step.key,  # pyright: ignore[reportArgumentType]
                    e.start,
                    e.end,
                    e.step.tag[1],  # pyright: ignore[reportIndexIssue]
                )
                for e in sim.events or ()
            ]
            stats.engine_cycles = {f"{_name(e.name.site)}.{e.name.engine.data}": e.clock for e in sim.engines}
            stats.cycles = max((e.clock for e in sim.engines), default=0.0)
        return stats

    def deadlock(self, exc: Deadlock) -> None:
        """The simulator's deadlock as a located error at the first blocked wait, with notes at the others."""
        waiting = [(e.name, w.tag, value) for e, w, value in exc.blocked]

        def what(engine: EngineOp, wait: WaitOp, value: int) -> str:
            return f"{engine.describe()} (wait @{_name(wait.semaphore)} >= {int(wait.count.value.data)}, value {value})"

        engine, wait, value = waiting[0]
        raise error(
            wait,  # pyright: ignore[reportArgumentType]
            f"deadlock: {engine.describe()} waits for semaphore @{_name(wait.semaphore)} >= "  # pyright: ignore
            f"{int(wait.count.value.data)}, but its value is {value} and no engine can progress; "  # pyright: ignore
            "blocked engines: " + "; ".join(what(e, w, v) for e, w, v in waiting),  # pyright: ignore
            *((w, f"{e.describe()} is blocked here") for e, w, _ in waiting[1:]),  # pyright: ignore
        )

    def fifo_error(self, exc: FifoOverflow | FifoUnderflow) -> None:
        """The simulator's overflow or underflow of a buffer as a located error at the step."""
        op = exc.step.tag[0]  # pyright: ignore[reportIndexIssue]
        stage = self.plan.stages[exc.step.key]  # pyright: ignore[reportArgumentType]
        buf = self.plan.buffers[exc.fifo]  # pyright: ignore[reportArgumentType]
        who = f"{stage.kind_name} stage @{stage.sym_name.data}"
        declared = (buf.op, f"buffer @{buf.name} is declared here")
        if isinstance(exc, FifoUnderflow):
            if buf.local:
                raise error(op, f"buffer underflow: {who} reads local buffer @{buf.name}, which was never written",
                            declared)
            raise error(op, f"buffer underflow: {who} reads buffer @{buf.name}, none of whose {buf.depth} slot(s) is "
                        "full", declared)
        via = ""
        if stage.kind_name == "load" and exc.position:  # a multicast delivery
            receiver = self.plan.receivers[stage.sym_name.data][exc.position - 1][0]
            via = f" (multicast to receive stage @{receiver.sym_name.data})"
        raise error(
            op,
            f"buffer overflow: {who}{via} writes buffer @{buf.name}, all {buf.depth} slot(s) of which are full",
            declared,
        )


def _describe(t: _Tensor) -> str:
    strides = t.op.element_strides
    if strides == row_major(t.shape):
        return f"{_shape(t.shape)} {t.fmt.name}"
    return f"{t.fmt.name} (at least {t.op.span} elements: {_shape(t.shape)} with strides {list(strides)})"


def _no_results(fc: FunctionCompiler, op: Operation) -> bool:
    return False


@handles(RunProgramOp, varying=_no_results)
def _run_program(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, RunProgramOp)
    plan = _Plan(fc, op)
    program = plan.program
    built = _program_grid(program)

    def step(frame):
        runtime = fc.program.runtime
        run_grid = tuple(runtime.grid)
        if run_grid != (1,) and run_grid != built:
            raise error(
                program,
                f"program @{program.sym_name.data} was built for grid {list(built)} (its sites); it cannot run on "
                f"grid {list(run_grid)}: run it without a grid (it runs its own sites), or lower the kernel for "
                f"that grid (spatial-tile grid=...)",
            )
        ran = _RAN.setdefault(runtime, set())
        if id(op) in ran:  # a grid of several cores: the program runs its sites once, not once per core
            return
        ran.add(id(op))
        stats = _Run(plan, frame, runtime).run()
        _RUNS.setdefault(runtime, []).append(stats)

    return step


# A spatial.program runs by its symbol name as a kernel does, through its wrapper function.
register(Plugin("spatial", entry_points=spatial_kernels))
