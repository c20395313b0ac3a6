"""One discrete-event simulator of engines, bounded FIFOs and semaphores.

The cost model's pipelined estimate (`interpreter/cost_model.py`,
`simulate_core`), the spatial interpreter (`interpreter/ops_spatial.py`) and
`spatial-verify` all run on this one; it knows no IR.

    sim = Simulator(semaphores={"full": 0, "empty": 2}, fifos={"b": Fifo(depth=2)})
    sim.add_engine("load", [Wait("empty", 1), Step("ld", cycles=4, fills=("b",)), Signal("full", 1)])
    sim.add_engine("store", [Wait("full", 1), Step("st", cycles=3, takes=("b",)), Signal("empty", 1)])
    sim.run()                      # raises Deadlock, FifoOverflow, FifoUnderflow, StepCapExceeded
    sim.engines[1].clock           # 7.0

Model:

- An **engine** runs its program (any iterable of `Wait`, `Signal`, `Step`;
  `Loop` repeats a body lazily) in order, one instruction at a time, on its
  own clock (cycles, starting at `start`).
- A **semaphore** is a counter whose units carry the clock of the engine that
  signalled them (its initial units: `start`). `Wait(s, n)` blocks while the
  value is below n, then takes n units and moves the engine's clock to the
  latest stamp among them; `Signal(s, n)` adds n units stamped with the
  engine's clock.
- A **FIFO** of depth D is a ring of D slots, each full or free. A step fills
  the next free slot of each FIFO in `fills` and takes the oldest full slot of
  each in `takes`; filling a full FIFO (`FifoOverflow`) or taking from an empty
  one (`FifoUnderflow`) is an error, not a block: semaphores order the
  engines. A *local* FIFO (one engine's variable) is one slot: a fill
  overwrites it, a take reads it without freeing it, a take before any fill is
  an underflow.
- A **step** starts at max(the engine's clock, `not_before`) and lasts
  `cycles`; the engine's clock moves to its end.

Schedules: round robin over the engines in the order they were added, each
running as far as it can before it blocks (`eager=True`) or one instruction
per round (`eager=False`, lock step). A round in which no engine executes an
instruction or finishes, while some engine is unfinished, is a `Deadlock`
naming every blocked engine and what it waits for; `max_steps` bounds the
instructions executed (`StepCapExceeded`). Timing does not depend on the
schedule; FIFO occupancy (`Fifo.peak`) does.

Modes: in *counts* mode (no `perform`) a step only moves FIFO counts and the
clock. In *data* mode, `perform(engine, step, access)` is called for every
step to do its work: `access.take(i)` / `access.fill(i)` take and fill the
FIFO `step.takes[i]` / `step.fills[i]` (returning the slot, for the caller's
data), in the order the work needs; the takes and fills it did not make are
made after it returns, in order. It returns the step's cycles (None: the
step's own). Both modes keep the same counts, so they agree on timing and
occupancy.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, repeat


@dataclass(frozen=True, slots=True)
class Wait:
    """Block until `semaphore` holds `count` units, then take them."""

    semaphore: Hashable
    count: int = 1
    tag: object = None  # the caller's (e.g. the op), returned in errors


@dataclass(frozen=True, slots=True)
class Signal:
    """Add `count` units to `semaphore`, stamped with the engine's clock."""

    semaphore: Hashable
    count: int = 1
    tag: object = None


@dataclass(frozen=True, slots=True)
class Step:
    """A unit of work of `cycles`, taking a slot of each FIFO in `takes`, then filling one of each in
    `fills`; it starts no earlier than `not_before`. `key` names what it runs: the steps of one key
    are counted together (`Simulator.runs`)."""

    key: Hashable
    cycles: float = 0.0
    takes: tuple[Hashable, ...] = ()
    fills: tuple[Hashable, ...] = ()
    not_before: float = 0.0
    tag: object = None


Instruction = Wait | Signal | Step


class Loop:
    """`count` runs of `body` (instructions and nested `Loop`s) as a re-iterable program: iterating
    it unrolls the loops lazily, at C speed (a choreography's loops without the interpreter's indices)."""

    def __init__(self, count: int, body: list[Instruction | Loop]):
        self.count = max(0, count)
        self.parts: list = []  # runs of plain instructions (lists) and loops
        for item in body:
            if isinstance(item, Loop):
                self.parts.append(item)
            elif self.parts and isinstance(self.parts[-1], list):
                self.parts[-1].append(item)
            else:
                self.parts.append([item])

    def __iter__(self) -> Iterator[Instruction]:
        return chain.from_iterable(chain.from_iterable(repeat(self.parts, self.count)))


@dataclass
class Fifo:
    """A bounded FIFO of `depth` slots (`local`: one engine's variable of one slot)."""

    depth: int = 1
    local: bool = False
    head: int = 0  # the oldest full slot
    count: int = 0  # full slots
    peak: int = 0  # the most full slots at once
    written: bool = False  # a local: filled at least once

    @property
    def tail(self) -> int:
        """The slot the next fill writes."""
        return (self.head + self.count) % self.depth


@dataclass
class Semaphore:
    """A counting semaphore; `units` are its units in arrival order, run-length encoded as [stamp, count]."""

    value: int
    units: deque[list] = field(default_factory=deque)


class SimulationError(Exception):
    """A run that cannot go on; the subclasses say why, with what the caller needs to locate it."""


class Deadlock(SimulationError):
    """No engine can progress: `blocked` is every unfinished engine with the `Wait` it is blocked on and
    the value of its semaphore, in engine order."""

    def __init__(self, blocked: list[tuple[Engine, Wait, int]]):
        self.blocked = blocked
        super().__init__(
            "deadlock: "
            + "; ".join(f"{e.name} waits for {w.semaphore} >= {w.count} (value {v})" for e, w, v in blocked)
        )


class FifoError(SimulationError):
    """A step that fills a full FIFO or takes from an empty one: `engine`, `step`, the FIFO's name
    `fifo`, its `position` in the step's takes or fills, and `run`, how many runs of the step's key
    came before this one."""

    def __init__(self, what: str, engine: Engine, step: Step, fifo: Hashable, position: int, run: int):
        self.engine, self.step, self.fifo, self.position, self.run = engine, step, fifo, position, run
        super().__init__(f"{what}: {engine.name} step {step.key} on FIFO {fifo}")


class FifoOverflow(FifoError):
    def __init__(self, engine: Engine, step: Step, fifo: Hashable, position: int, run: int):
        super().__init__("overflow", engine, step, fifo, position, run)


class FifoUnderflow(FifoError):
    def __init__(self, engine: Engine, step: Step, fifo: Hashable, position: int, run: int):
        super().__init__("underflow", engine, step, fifo, position, run)


class StepCapExceeded(SimulationError):
    """More than `cap` instructions executed; `engine` executed the last one."""

    def __init__(self, cap: int, engine: Engine):
        self.cap, self.engine = cap, engine
        super().__init__(f"more than {cap} instructions executed (last by {engine.name})")


@dataclass
class Event:
    """One step on its engine's clock (recorded when `Simulator(record=True)`)."""

    engine: Engine
    step: Step
    start: float
    end: float


class Engine:
    """One engine: its program, its clock, the instructions it executed."""

    def __init__(self, name: Hashable, program: Iterable[Instruction], clock: float = 0.0, index: int = 0):
        self.name = name
        self.index = index  # its position among the simulator's engines
        self.clock = clock
        self.executed = 0  # instructions executed
        self.program: Iterator[Instruction] = iter(program)
        self.pending: Instruction | None = None  # the next instruction, fetched
        self.done = False

    def fetch(self) -> Instruction | None:
        """The next instruction (None: the program is finished)."""
        if self.pending is None and not self.done:
            self.pending = next(self.program, None)
            self.done = self.pending is None
        return self.pending


class Access:
    """The FIFO side of one step in data mode (`Simulator.perform`): take and fill its FIFOs by position."""

    def __init__(self, sim: Simulator, engine: Engine, step: Step):
        self.sim, self.engine, self.step = sim, engine, step
        self.taken = [-1] * len(step.takes)
        self.filled = [-1] * len(step.fills)

    def take(self, position: int) -> int:
        """Take from FIFO `step.takes[position]`: the slot (a local: 0, kept full)."""
        if self.taken[position] < 0:
            self.taken[position] = self.sim._take(self.engine, self.step, position)
        return self.taken[position]

    def fill(self, position: int) -> int:
        """Fill FIFO `step.fills[position]`: the slot written."""
        if self.filled[position] < 0:
            self.filled[position] = self.sim._fill(self.engine, self.step, position)
        return self.filled[position]

    def finish(self) -> None:
        for i in range(len(self.taken)):
            self.take(i)
        for i in range(len(self.filled)):
            self.fill(i)


Perform = Callable[[Engine, Step, Access], float | None]


class Simulator:
    """Engines, FIFOs and semaphores (module docstring). `perform`: data mode; `record`: keep every
    step's `Event`; `max_steps`: the instruction cap; `check`: called once per round (e.g. a deadline)."""

    def __init__(
        self,
        semaphores: dict[Hashable, int] | None = None,
        fifos: dict[Hashable, Fifo] | None = None,
        *,
        perform: Perform | None = None,
        record: bool = False,
        max_steps: int | None = None,
        check: Callable[[], None] | None = None,
        start: float = 0.0,
    ):
        self.start = start
        self.semaphores: dict[Hashable, Semaphore] = {}
        for name, init in (semaphores or {}).items():
            self.add_semaphore(name, init)
        self.fifos: dict[Hashable, Fifo] = dict(fifos or {})
        self.engines: list[Engine] = []
        self.perform = perform
        self.events: list[Event] | None = [] if record else None
        self.max_steps = max_steps
        self.check = check
        self.executed = 0
        self.runs: dict[Hashable, int] = {}  # executions of steps, by key

    def add_semaphore(self, name: Hashable, init: int = 0) -> None:
        self.semaphores[name] = Semaphore(init, deque([[self.start, init]]) if init > 0 else deque())

    def add_engine(self, name: Hashable, program: Iterable[Instruction]) -> Engine:
        engine = Engine(name, program, self.start, len(self.engines))
        self.engines.append(engine)
        return engine

    @property
    def clock(self) -> float:
        """The latest engine clock (the start without engines)."""
        return max((e.clock for e in self.engines), default=self.start)

    # -- running --

    def run(self, eager: bool = True) -> Simulator:
        """Run every engine to its end (module docstring, "Schedules")."""
        live = [e for e in self.engines if e.fetch() is not None]
        while live:
            progressed = False
            for engine in live:
                if self._advance(engine, eager):
                    progressed = True
            if not progressed:  # every engine is blocked on a wait (an engine finishes only by executing)
                raise Deadlock([(e, e.pending, self.semaphores[e.pending.semaphore].value) for e in live])  # pyright: ignore
            live = [e for e in live if not e.done]
            if self.check is not None:
                self.check()
        return self

    def _advance(self, engine: Engine, eager: bool) -> bool:
        """Execute `engine`'s instructions until it blocks or ends (one, unless `eager`); whether any ran."""
        ran = 0
        instr = engine.pending
        program = engine.program
        semaphores = self.semaphores
        limit = float("inf") if self.max_steps is None else self.max_steps - self.executed
        while instr is not None:
            kind = type(instr)
            if kind is Wait:
                sem = semaphores[instr.semaphore]
                if sem.value < instr.count:
                    break
                sem.value -= instr.count
                stamp = _take_units(sem.units, instr.count)
                if stamp > engine.clock:
                    engine.clock = stamp
            elif kind is Signal:
                sem = semaphores[instr.semaphore]
                sem.value += instr.count
                units = sem.units
                if units and units[-1][0] == engine.clock:
                    units[-1][1] += instr.count
                else:
                    units.append([engine.clock, instr.count])
            else:
                self._step(engine, instr)  # pyright: ignore[reportArgumentType]
            ran += 1
            if ran > limit:
                raise StepCapExceeded(self.max_steps, engine)  # pyright: ignore[reportArgumentType]
            instr = next(program, None)
            if not eager:
                break
        engine.pending = instr
        engine.done = instr is None
        engine.executed += ran
        self.executed += ran
        return ran > 0

    def _step(self, engine: Engine, step: Step) -> None:
        start = engine.clock if engine.clock >= step.not_before else step.not_before
        cycles = step.cycles
        if self.perform is None:
            for i in range(len(step.takes)):
                self._take(engine, step, i)
            for i in range(len(step.fills)):
                self._fill(engine, step, i)
        else:
            access = Access(self, engine, step)
            measured = self.perform(engine, step, access)
            access.finish()
            if measured is not None:
                cycles = measured
        engine.clock = start + cycles
        key = step.key
        self.runs[key] = self.runs.get(key, 0) + 1
        if self.events is not None:
            self.events.append(Event(engine, step, start, engine.clock))

    def _take(self, engine: Engine, step: Step, position: int) -> int:
        name = step.takes[position]
        fifo = self.fifos[name]
        if fifo.local:
            if not fifo.written:
                raise FifoUnderflow(engine, step, name, position, self.runs.get(step.key, 0))
            return 0
        if fifo.count == 0:
            raise FifoUnderflow(engine, step, name, position, self.runs.get(step.key, 0))
        slot = fifo.head
        fifo.head = (slot + 1) % fifo.depth
        fifo.count -= 1
        return slot

    def _fill(self, engine: Engine, step: Step, position: int) -> int:
        name = step.fills[position]
        fifo = self.fifos[name]
        if fifo.local:
            fifo.written = True
            return 0
        if fifo.count >= fifo.depth:
            raise FifoOverflow(engine, step, name, position, self.runs.get(step.key, 0))
        slot = fifo.tail
        fifo.count += 1
        if fifo.count > fifo.peak:
            fifo.peak = fifo.count
        return slot


def _take_units(units: deque[list], count: int) -> float:
    """Take the `count` oldest units (or all there are): the latest stamp among them."""
    stamp = float("-inf")
    while count and units:
        head = units[0]
        taken = head[1] if head[1] < count else count
        head[1] -= taken
        count -= taken
        if head[0] > stamp:
            stamp = head[0]
        if not head[1]:
            units.popleft()
    return stamp
