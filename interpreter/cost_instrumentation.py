"""The cost model's instrumentation: the counters a run updates while the interpreter executes.

When a `Program` has a `CostModel`, `FunctionCompiler.compile_block` wraps
the step of every op with a cost (`CostModel.instrument`), decided once
while decoding from the rules of `cost_model.py`; the wrapper adds the op's
cycles to the active lanes (`frame[0].linear`) of the run's `CostCounter`
(`Runtime.cost`), which is also the stage hook filling `StageRecord.cycles`.
Without a cost model nothing is wrapped. `CostCounter.estimate()` is the
run's `CostEstimate` (`cost_report.py`).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from spyre_mlir.interpreter.cost_model import COMPONENTS, HardwareConfig, OpCosts, pipelined_per_core
from spyre_mlir.interpreter.cost_report import LOG_CAP, CostEstimate
from spyre_mlir.walk import walk_ops

# ===========================================================================
# The model of a Program, and the counter of a run
# ===========================================================================


class CostModel:
    """The cost rules of one decoded `Program`: installs the per-op charges
    (`instrument`, called by `FunctionCompiler.compile_block`) and names the
    rows of the counter (one per op name and component)."""

    def __init__(self, config: HardwareConfig, cores: int):
        self.config = config
        self.cores = cores
        self.costs = OpCosts(config, cores)
        self.kinds: list[tuple[str, str]] = []  # row -> (op name, component)
        self._rows: dict[tuple[str, str], int] = {}
        self._combiners: set[int] | None = None

    @property
    def unpriced(self) -> set[str]:
        return self.costs.unpriced

    def combiner_ops(self, module) -> set[int]:
        """Ids of the ops inside inter-tile reduce combiners of `module` (found once, linearly)."""
        if self._combiners is None:
            found: set[int] = set()
            for op in walk_ops(module):
                if op.name == "ktdp.inter_tile_reduce":
                    found.update(id(inner) for region in op.regions for inner in walk_ops(region))
            self._combiners = found
        return self._combiners

    def row(self, name: str, component: str) -> int:
        key = (name, component)
        if key not in self._rows:
            self._rows[key] = len(self.kinds)
            self.kinds.append(key)
        return self._rows[key]

    def instrument(self, fc, op: Operation, step):
        """`step`, followed by charging `op`'s cycles to the active lanes (or `step` itself when free)."""
        if fc.body_depth or id(op) in self.combiner_ops(fc.program.module):
            # inside a linalg body (the structured op is charged as a whole) or an
            # inter-tile combiner (charged with its delivery, to every consumer)
            return step
        charge = self.costs.rule(fc, op)
        if charge is None:
            return step
        row = self.row(op.name, charge.component)
        program = fc.program
        run = step if step is not None else _nothing
        if charge.comm_counter is not None:
            key = charge.comm_counter
            ncores = len(program.cores)
            per_byte = 1.0 / self.config.ring_bytes_per_cycle
            combiner = [(self.row(name, "compute"), cycles) for name, cycles in charge.combiner]
            applications = charge.applications

            def comm(frame):
                runtime = program.runtime
                counters = runtime.stats.communication(ncores)
                counter, ring = counters[key], counters["ring"]
                lanes = frame[0].linear
                before, ring_before = counter[lanes], ring[lanes]
                run(frame)
                cost = runtime.cost
                if cost is None:
                    return
                ctx = frame[0]
                cost.charge(row, ctx, (counter[lanes] - before) * per_byte)
                if combiner and applications is not None:
                    times = np.where(ring[lanes] > ring_before, applications[lanes], 0)  # the lanes it reached
                    for combiner_row, cycles in combiner:
                        cost.charge(combiner_row, ctx, cycles * times, times)

            return comm
        cycles = charge.cycles
        if callable(cycles):

            def dynamic(frame):
                run(frame)
                cost = program.runtime.cost
                if cost is not None:
                    cost.charge(row, frame[0], cycles(frame))

            return dynamic

        def charged(frame):
            run(frame)
            cost = program.runtime.cost
            if cost is not None:
                cost.charge(row, frame[0], cycles)

        return charged


def _nothing(frame) -> None:
    return None


class CostCounter:
    """Cycles per (op kind, core) of one run, accumulated as the kernel runs;
    also the stage hook (`Runtime.stage_hooks`) that fills `StageRecord.cycles`."""

    def __init__(self, model: CostModel, ncores: int):
        self.model = model
        self.ncores = ncores
        rows = max(16, len(model.kinds) + 16)
        self.cycles = np.zeros((rows, ncores))
        self.count = np.zeros((rows, ncores), np.int64)
        self.log: list[list] = []  # [row, context, cycles, executions], consecutive repeats merged
        self.log_truncated = False
        self._last: list | None = None
        self._open: list[np.ndarray] = []
        self.stage_starts: list[tuple[object, np.ndarray, int]] = []  # (record, start per lane, nesting)

    def charge(self, row: int, ctx, cycles, executions=1) -> None:
        """Add `cycles` (one figure, or one per lane) to row `row` of the lanes of `ctx`."""
        lanes = ctx.linear
        try:
            self.cycles[row, lanes] += cycles
        except IndexError:
            self._grow(row)
            self.cycles[row, lanes] += cycles
        self.count[row, lanes] += executions
        last = self._last
        if last is not None and last[0] == row and last[1] is ctx:
            last[2] = last[2] + cycles
            last[3] = last[3] + executions
        elif len(self.log) < LOG_CAP:
            self._last = [row, ctx, cycles, executions]
            self.log.append(self._last)
        else:
            self.log_truncated = True
            self._last = None

    def _grow(self, row: int) -> None:
        rows = max(row + 16, 2 * self.cycles.shape[0])
        self.cycles = np.concatenate([self.cycles, np.zeros((rows - self.cycles.shape[0], self.ncores))])
        self.count = np.concatenate([self.count, np.zeros((rows - self.count.shape[0], self.ncores), np.int64)])

    def totals(self, lanes) -> np.ndarray:
        """Cycles so far of the cores `lanes`."""
        return self.cycles[:, lanes].sum(axis=0)

    # -- stage hook (Runtime.stage) -------------------------------------------

    def enter(self, record) -> None:
        start = self.totals(record.lanes)
        self.stage_starts.append((record, start, len(self._open)))
        self._open.append(start)

    def exit(self, record) -> None:
        start = self._open.pop()
        record.cycles = self.totals(record.lanes) - start

    # -- the result ---------------------------------------------------------

    def estimate(self, grid: tuple[int, ...] | None = None) -> CostEstimate:
        kinds = list(self.model.kinds)
        rows = len(kinds)
        by_kind = self.cycles[:rows]
        parts = {c: np.zeros(self.ncores) for c in COMPONENTS}
        for r, (_, component) in enumerate(kinds):
            parts[component] += by_kind[r]
        stages = [
            (record, start, depth) for record, start, depth in self.stage_starts if getattr(record, "cycles", None) is not None
        ]
        pipelined, timelines = None, None
        if stages:
            pipelined, timelines = pipelined_per_core(
                stages, parts["compute"] + parts["memory"] + parts["communication"], self.model.config.fifo_depth
            )
        return CostEstimate(
            config=self.model.config,
            grid=tuple(grid) if grid else (self.ncores,),
            compute=parts["compute"],
            memory=parts["memory"],
            communication=parts["communication"],
            pipelined=pipelined,
            kinds=kinds,
            kind_cycles=by_kind.copy(),
            kind_counts=self.count[:rows].copy(),
            unpriced=sorted(self.model.unpriced),
            stage_executions=len(stages),
            pipelines=len({id(r.pipeline) for r, _, d in stages if d == 0}),
            timelines=timelines,
            log=self.log,
            log_truncated=self.log_truncated,
        )
