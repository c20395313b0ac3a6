"""The cost model's report: the estimate of a run as a table (`spyre-run --estimate`), JSON
(`--estimate-json`) and a Chrome trace (`--trace`, written by `analysis/trace.py`)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from spyre_mlir.analysis import trace as chrome
from spyre_mlir.interpreter.cost_model import COMPONENTS, HardwareConfig, Interval

LOG_CAP = 50_000
"""Op executions (consecutive executions of one op kind merged) kept for the sequential trace."""

TRACE_EVENT_CAP = 40_000
"""Most events a trace holds (per-core timelines are coarsened to fit)."""

TRACE_CORE_CAP = 64
"""Most cores a trace shows (the first ones, and the critical core)."""


# ===========================================================================
# The estimate
# ===========================================================================


def _num(x: float) -> str:
    """A figure for people: an integer when whole, else four significant digits."""
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if x == 0:
        return "0"
    digits = max(0, 3 - int(math.floor(math.log10(abs(x)))))
    return f"{x:,.{digits}f}"


@dataclass
class CostEstimate:
    """The modeled time of one run (`result.report.estimate`): per core and
    component, sequential and (schedule IR) pipelined. `to_json()` is what
    `spyre-run --estimate-json` writes, `render()` what `--estimate` prints,
    `trace()` the Chrome trace of `--trace`."""

    config: HardwareConfig
    grid: tuple[int, ...]
    compute: np.ndarray
    memory: np.ndarray
    communication: np.ndarray
    pipelined: np.ndarray | None = None
    kinds: list[tuple[str, str]] = field(default_factory=list)
    kind_cycles: np.ndarray | None = None
    kind_counts: np.ndarray | None = None
    unpriced: list[str] = field(default_factory=list)
    stage_executions: int = 0
    pipelines: int = 0
    timelines: dict[int, list[Interval]] | None = None
    log: list[list] = field(default_factory=list, repr=False)
    log_truncated: bool = False

    # -- figures -------------------------------------------------------------

    @property
    def cores(self) -> int:
        return int(self.compute.shape[0])

    @property
    def totals(self) -> np.ndarray:
        """Sequential cycles per core: compute + memory + communication."""
        return self.compute + self.memory + self.communication

    @property
    def critical_core(self) -> int:
        return int(np.argmax(self.totals)) if self.cores else 0

    @property
    def sequential_cycles(self) -> float:
        return float(self.totals.max()) if self.cores else 0.0

    @property
    def pipelined_cycles(self) -> float | None:
        return None if self.pipelined is None else float(self.pipelined.max())

    @property
    def bottleneck(self) -> dict:
        """The largest component of the critical core: {"component", "core", "cycles"}."""
        core = self.critical_core
        parts = {c: float(getattr(self, c)[core]) for c in COMPONENTS}
        component = max(COMPONENTS, key=lambda c: parts[c])
        return {"component": component, "core": core, "cycles": parts[component]}

    def ops(self, core: int | None = None) -> list[dict]:
        """Cycles and executions by op on `core` (default: the critical core), largest first."""
        core = self.critical_core if core is None else core
        rows = []
        if self.kind_cycles is None or self.kind_counts is None:
            return rows
        for r, (name, component) in enumerate(self.kinds):
            count = int(self.kind_counts[r, core])
            if count:
                rows.append({"op": name, "component": component, "count": count, "cycles": float(self.kind_cycles[r, core])})
        rows.sort(key=lambda d: (-d["cycles"], d["op"]))
        return rows

    # -- output ----------------------------------------------------------------

    def to_json(self) -> dict:
        cfg = self.config
        core = self.critical_core
        per_core = []
        for c in range(self.cores):
            entry = {
                "core": c,
                "compute": float(self.compute[c]),
                "memory": float(self.memory[c]),
                "communication": float(self.communication[c]),
                "total": float(self.totals[c]),
            }
            if self.pipelined is not None:
                entry["pipelined"] = float(self.pipelined[c])
            per_core.append(entry)
        pipelined = self.pipelined_cycles
        return {
            "model": "ktir-cpu sequential latency model; pipelined: ktdf stages as engines (docs/cost-model.md)",
            "hardware": {
                **cfg.to_json(),
                "hbm_bytes_per_cycle_per_core": cfg.hbm_bytes_per_cycle_per_core(self.cores),
                "ring_bytes_per_cycle": cfg.ring_bytes_per_cycle,
                "systolic_flops_per_cycle": cfg.systolic_flops_per_cycle,
            },
            "grid": list(self.grid),
            "cores": self.cores,
            "sequential_cycles": self.sequential_cycles,
            "sequential_us": cfg.microseconds(self.sequential_cycles),
            "pipelined_cycles": pipelined,
            "pipelined_us": None if pipelined is None else cfg.microseconds(pipelined),
            "critical_core": core,
            "bottleneck": self.bottleneck,
            "components": {c: float(getattr(self, c)[core]) for c in COMPONENTS},
            "components_all_cores": {c: float(getattr(self, c).sum()) for c in COMPONENTS},
            "per_core": per_core,
            "ops": self.ops(core),
            "unpriced_ops": list(self.unpriced),
            "stages": {"executions": self.stage_executions, "pipelines": self.pipelines},
        }

    def render(self, max_rows: int = 12) -> str:
        cfg = self.config
        core = self.critical_core
        seq = self.sequential_cycles
        lines = [
            "cost estimate (ktir-cpu latency model: "
            f"{cfg.clock_ghz:g} GHz, HBM {_num(cfg.hbm_bytes_per_cycle_per_core(self.cores))} B/cycle per core "
            f"({_num(cfg.hbm_bytes_per_cycle)} B/cycle shared by "
            f"{cfg.hbm_sharing_cores or self.cores}), SIMD {cfg.simd_elements_per_cycle} elements/cycle, "
            f"transcendental x{cfg.transcendental_penalty:g}, systolic {_num(cfg.systolic_flops_per_cycle)} "
            f"flops/cycle, ring {_num(cfg.ring_bytes_per_cycle)} B/cycle)",
            f"sequential: {_num(seq)} cycles = {cfg.microseconds(seq):.4g} us "
            f"(max over {self.cores} core{'s' if self.cores != 1 else ''}; critical core {core})",
        ]
        pipelined = self.pipelined_cycles
        if pipelined is None:
            lines.append("pipelined:  n/a (no schedule IR stages ran)")
        else:
            lines.append(
                f"pipelined:  {_num(pipelined)} cycles = {cfg.microseconds(pipelined):.4g} us "
                f"({self.stage_executions} stage executions of {self.pipelines} pipeline"
                f"{'s' if self.pipelines != 1 else ''}, FIFO depth {cfg.fifo_depth} unless the IR says)"
            )
        b = self.bottleneck
        lines.append(f"bottleneck: {b['component']} on core {b['core']} ({_num(b['cycles'])} of {_num(seq)} cycles)")
        lines.append("")
        header = ["cores", "compute", "memory", "communication", "total"]
        if self.pipelined is not None:
            header.append("pipelined")
        table = [header]
        for first, last in self._folded_rows():
            row = [str(first) if first == last else f"{first}-{last}"]
            row += [_num(getattr(self, c)[first]) for c in COMPONENTS] + [_num(self.totals[first])]
            if self.pipelined is not None:
                row.append(_num(self.pipelined[first]))
            table.append(row)
        shown = table[: max_rows + 1]
        if len(table) > max_rows + 1:
            shown.append([f"... {len(table) - 1 - max_rows} more rows (--estimate-json has every core)"])
        lines += _columns(shown)
        ops = self.ops(core)
        if ops:
            lines.append("")
            lines.append(f"by op on core {core}:")
            op_table = [["op", "component", "count", "cycles"]]
            op_table += [[o["op"], o["component"], _num(o["count"]), _num(o["cycles"])] for o in ops]
            lines += ["  " + line for line in _columns(op_table)]
        if self.unpriced:
            lines.append(f"unpriced ops (counted as 0 cycles): {', '.join(self.unpriced)}")
        return "\n".join(lines)

    def _folded_rows(self) -> list[tuple[int, int]]:
        """Runs of consecutive cores with identical figures, as (first, last)."""
        figures = np.stack([self.compute, self.memory, self.communication] + ([self.pipelined] if self.pipelined is not None else []))
        out: list[tuple[int, int]] = []
        for c in range(self.cores):
            if out and np.array_equal(figures[:, c], figures[:, out[-1][0]]):
                out[-1] = (out[-1][0], c)
            else:
                out.append((c, c))
        return out

    def trace(self) -> dict:
        """The timeline as Chrome trace events (open in https://ui.perfetto.dev):
        pid = core, tid = engine; ts/dur in microseconds of modeled time. With
        schedule IR, the pipelined simulation's stages; otherwise each core's
        sequential ops, consecutive executions of one op merged."""
        return build_trace(self)

    def write_trace(self, path: str | os.PathLike) -> None:
        chrome.write_json(path, self.trace(), compact=True)

    def write_json(self, path: str | os.PathLike) -> None:
        chrome.write_json(path, self.to_json())


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows if i < len(r) and len(r) > 1) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        if len(r) == 1 and len(rows[0]) > 1:
            out.append(r[0])
            continue
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
    return out


# ===========================================================================
# Chrome trace events
# ===========================================================================


def _traced_cores(estimate: CostEstimate, candidates: Iterable[int]) -> list[int]:
    cores = sorted(set(candidates))
    if len(cores) <= TRACE_CORE_CAP:
        return cores
    keep = cores[:TRACE_CORE_CAP]
    if estimate.critical_core not in keep:
        keep[-1] = estimate.critical_core
    return sorted(keep)


def build_trace(estimate: CostEstimate) -> dict:
    cfg = estimate.config
    us = cfg.microseconds
    events: list[dict] = []
    meta: list[dict] = []
    notes: list[str] = []
    if estimate.timelines is not None:
        cores = _traced_cores(estimate, estimate.timelines)
        budget = max(1, TRACE_EVENT_CAP // max(1, len(cores)))
        for core in cores:
            spans = estimate.timelines[core]
            if len(spans) > budget:
                notes.append(f"core {core}: {len(spans) - budget} later spans left out")
                spans = spans[:budget]
            names = {0: "outside pipelines"}
            for s in spans:
                names.setdefault(s.tid, s.name if s.tid else "outside pipelines")
                args = {**s.args, "start_cycles": s.start, "end_cycles": s.end}
                events.append(
                    chrome.span(s.name, "stage" if s.tid else "sequential", us(s.start), us(s.end - s.start), core,
                                s.tid, args)
                )
            meta += _meta(core, {tid: (n if tid == 0 else f"engine {tid - 1}: {n}") for tid, n in names.items()})
    else:
        cores = _traced_cores(estimate, range(estimate.cores))
        per_core = _sequential_spans(estimate, cores)
        budget = max(1, TRACE_EVENT_CAP // max(1, len(cores)))
        for core in cores:
            spans = _coarsen(per_core.get(core, []), budget)
            for name, component, start, dur, count in spans:
                args = {"component": component, "executions": count, "cycles": dur, "start_cycles": start}
                events.append(chrome.span(name, component, us(start), us(dur), core, 0, args))
            meta += _meta(core, {0: "sequential ops"})
        if estimate.log_truncated:
            notes.append(f"only the first {LOG_CAP} op executions (repeats merged) were recorded")
    if len(cores) < estimate.cores:
        notes.append(f"{len(cores)} of {estimate.cores} cores shown")
    other = {
        "model": "spyre-mlir cost model (docs/cost-model.md)",
        "clock_ghz": cfg.clock_ghz,
        "time_unit": "microseconds of modeled time",
        "sequential_cycles": estimate.sequential_cycles,
        "pipelined_cycles": estimate.pipelined_cycles,
    }
    if notes:
        other["notes"] = notes
    return chrome.document(meta, events, other)


def _meta(core: int, threads: dict[int, str]) -> list[dict]:
    out = chrome.process(core, f"core {core}")
    for tid, name in sorted(threads.items()):
        out += chrome.thread(core, tid, name)
    return out


def _sequential_spans(estimate: CostEstimate, cores: Sequence[int]) -> dict[int, list[tuple[str, str, float, float, int]]]:
    """Per traced core, its op timeline from the run's log: (op, component, start, cycles, executions),
    consecutive executions of one op merged."""
    wanted = np.zeros(estimate.cores, bool)
    wanted[list(cores)] = True
    core_ids, entry_ids, durations, counts = [], [], [], []
    for e, (row, ctx, cycles, n) in enumerate(estimate.log):
        lanes = np.atleast_1d(np.asarray(ctx.linear))
        keep = wanted[lanes]
        if not keep.any():
            continue
        lanes = lanes[keep]
        core_ids.append(lanes)
        entry_ids.append(np.full(lanes.shape, e, np.int64))
        durations.append(np.broadcast_to(np.asarray(cycles, float), keep.shape)[keep])
        counts.append(np.full(lanes.shape, n, np.int64))
    out: dict[int, list] = {}
    if not core_ids:
        return out
    core_arr = np.concatenate(core_ids)
    entry_arr = np.concatenate(entry_ids)
    dur_arr = np.concatenate(durations)
    count_arr = np.concatenate(counts)
    order = np.lexsort((entry_arr, core_arr))
    core_arr, entry_arr, dur_arr, count_arr = core_arr[order], entry_arr[order], dur_arr[order], count_arr[order]
    rows = np.array([estimate.log[e][0] for e in entry_arr.tolist()], np.int64)
    for core in np.unique(core_arr).tolist():
        sel = core_arr == core
        r, d, n = rows[sel], dur_arr[sel], count_arr[sel]
        starts = np.concatenate([[0.0], np.cumsum(d)[:-1]])
        breaks = np.flatnonzero(np.diff(r) != 0) + 1
        bounds = np.concatenate([[0], breaks, [len(r)]])
        spans = []
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            name, component = estimate.kinds[int(r[a])]
            spans.append((name, component, float(starts[a]), float(d[a:b].sum()), int(n[a:b].sum())))
        out[int(core)] = spans
    return out


def _coarsen(spans: list, budget: int) -> list:
    """At most `budget` spans: groups of consecutive spans merged, each named by its largest op."""
    if len(spans) <= budget:
        return spans
    out = []
    for group in np.array_split(np.arange(len(spans)), budget):
        if not group.size:
            continue
        members = [spans[i] for i in group.tolist()]
        top = max(members, key=lambda s: s[3])
        name = top[0] if len(members) == 1 else f"{top[0]} +{len(members) - 1} spans"
        start = members[0][2]
        end = members[-1][2] + members[-1][3]
        out.append((name, top[1], start, end - start, sum(s[4] for s in members)))
    return out
