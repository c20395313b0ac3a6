"""The plan summary of a spatial program, REPORTED from its structure (issue 13).

There is no strategy option anywhere in the spatial pipeline: how many
multicast groups, which block shape and how many distinct engine programs a
plan has *emerge* from the passes. `plan_summary(program)` reads them back
from a `spatial.program` op (any phase) and never changes it:

- the program's name and phase, its sites;
- its multicast groups, each with its reader stage and number of target sites;
- the block shape: the distinct tile types of its buffers (e.g. "16x64xf16");
- per site: the number of FIFO buffers and, separately, of local buffers
  (one engine's variables), the LX bytes they use and the LX limit
  (`lx_bytes`, default the target's LX size). LX bytes: placed buffers (with an offset)
  count the bytes they cover, once (two locals of one engine may share
  bytes); unplaced ones depth x tile bytes each;
- the engine-program classes: engines whose choreography is identical up to
  the symbols of their own site. Each engine region is printed in a
  normalized form where a symbol of the engine's site is replaced by its
  kind and position (`sem#0`, `load-stage#1`, in order of first use) and
  loop variables by their nesting depth; engines of the same engine name
  with the same normalized print form one class;
- from `spatial.certificate` (spatial-verify), when present: the total steps
  and the steps of each (site, engine), and the HBM bytes read and written
  (`hbm_read_bytes`, `hbm_written_bytes`);
- cycles: the certificate's `cycles` (spatial-verify's simulation with the
  cost model's step cycles, engines overlapping, waits on semaphores; the
  interpreter's `simulate` gives the same figure) and `pipelined_cycles` (the
  schedule IR's pipelined estimate) when present; without a certificate,
  "not simulated": numbers are never invented. The schedule IR's estimates
  come from running the scheduled kernel on data, so they are measured next
  to the simulated cycles by `benchmarks/spatial_bench.py`.

`PlanSummary.table()` is readable text, `PlanSummary.to_json()` a JSON-ready
dict. `spyre-opt --print-plan-summary` prints the table of every program of
its output to stderr (`--plan-summary-json PATH` writes the JSON).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation, SSAValue

from spyre_mlir.dialects.spatial import (
    BufferOp,
    EngineOp,
    MulticastOp,
    ProgramOp,
    SemaphoreOp,
    SiteOp,
    StageOp,
    TileType,
)

CERTIFICATE_ATTR = "spatial.certificate"  # as passes/spatial/spatial_verify.py


@dataclass(frozen=True)
class MulticastSummary:
    name: str
    reader: str
    targets: int


@dataclass(frozen=True)
class SiteSummary:
    name: str
    coordinates: tuple[int, ...]
    buffers: int
    """FIFO buffers (between engines)."""
    lx_bytes: int
    lx_limit: int
    locals: int = 0
    """Local buffers (one engine's variables)."""


@dataclass(frozen=True)
class EngineClass:
    engine: str
    """The engine name shared by the members ("load", "compute", ...)."""
    members: tuple[str, ...]
    """"site.engine" of each member, in declaration order."""


@dataclass
class PlanSummary:
    program: str
    phase: str | None
    sites: list[SiteSummary] = field(default_factory=list)
    multicast: list[MulticastSummary] = field(default_factory=list)
    block_shapes: list[str] = field(default_factory=list)
    engine_classes: list[EngineClass] = field(default_factory=list)
    steps: int | None = None
    engine_steps: dict[str, int] | None = None
    cycles: float | None = None
    pipelined_cycles: float | None = None
    hbm_read_bytes: int | None = None
    hbm_written_bytes: int | None = None

    @property
    def engines(self) -> int:
        return sum(len(c.members) for c in self.engine_classes)

    def to_json(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "phase": self.phase,
            "sites": [
                {
                    "name": s.name,
                    "coordinates": list(s.coordinates),
                    "buffers": s.buffers,
                    "locals": s.locals,
                    "lx_bytes": s.lx_bytes,
                    "lx_limit": s.lx_limit,
                }
                for s in self.sites
            ],
            "multicast_groups": {
                "count": len(self.multicast),
                "groups": [{"name": g.name, "reader": g.reader, "targets": g.targets} for g in self.multicast],
            },
            "block_shapes": list(self.block_shapes),
            "engine_classes": {
                "count": len(self.engine_classes),
                "engines": self.engines,
                "classes": [{"engine": c.engine, "members": list(c.members)} for c in self.engine_classes],
            },
            "steps": self.steps,
            "engine_steps": None if self.engine_steps is None else dict(self.engine_steps),
            "hbm": None if self.hbm_read_bytes is None and self.hbm_written_bytes is None else {
                "read_bytes": self.hbm_read_bytes,
                "written_bytes": self.hbm_written_bytes,
            },
            "cycles": {
                "simulated": self.cycles,
                "pipelined_estimate": self.pipelined_cycles,
                "status": self._cycle_text(),
            },
        }

    def _cycle_text(self) -> str:
        if self.cycles is None:
            return "not simulated"
        if self.pipelined_cycles is None:
            return f"{_num(self.cycles)} simulated (no pipelined estimate)"
        return f"{_num(self.cycles)} simulated vs {_num(self.pipelined_cycles)} pipelined estimate"

    def table(self) -> str:
        lines = [f"plan summary of spatial.program @{self.program} (phase {self.phase or '?'})"]
        lines.append(f"  sites: {len(self.sites)}")
        lines.append(f"  multicast groups: {len(self.multicast)}")
        for g in self.multicast:
            lines.append(f"    @{g.name}: reader @{g.reader}, {g.targets} target site(s)")
        lines.append(f"  block shape: {', '.join(self.block_shapes) if self.block_shapes else '(no buffers)'}")
        if self.sites:
            width = max(len(s.name) for s in self.sites) + 1
            with_locals = any(s.locals for s in self.sites)  # the column only where there are locals
            lines.append(f"  {'site':<{width}}  buffers{'  locals' if with_locals else ''}  LX bytes / limit")
            for s in self.sites:
                locals_ = f"  {s.locals:>6}" if with_locals else ""
                lines.append(f"  {'@' + s.name:<{width}}  {s.buffers:>7}{locals_}  {s.lx_bytes} / {s.lx_limit}")
        lines.append(f"  engine-program classes: {len(self.engine_classes)} (of {self.engines} engines)")
        for i, c in enumerate(self.engine_classes):
            lines.append(f'    class {i} "{c.engine}": {", ".join(c.members)}')
        if self.steps is None:
            lines.append("  steps: not verified (no spatial.certificate)")
        else:
            assert self.engine_steps is not None
            per = ", ".join(f"{k} {v}" for k, v in self.engine_steps.items())
            lines.append(f"  steps: {self.steps}" + (f" ({per})" if per else ""))
        lines.append(f"  cycles: {self._cycle_text()}")
        if self.hbm_read_bytes is not None or self.hbm_written_bytes is not None:
            lines.append(f"  hbm bytes: read {_opt(self.hbm_read_bytes)}, written {_opt(self.hbm_written_bytes)}")
        return "\n".join(lines) + "\n"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _opt(x: int | None) -> str:
    return "?" if x is None else str(x)


def lx_footprint(buffers: list[BufferOp]) -> int:
    """LX bytes `buffers` (of one site) use: the bytes the placed ones cover, each
    byte once (two locals of one engine may share bytes), plus depth x tile
    bytes of each one without an offset."""
    spans = sorted((o, o + b.size) for b in buffers if (o := b.offset_value) is not None)
    covered, end = 0, None
    for lo, hi in spans:
        if end is None or lo >= end:
            covered += hi - lo
            end = hi
        elif hi > end:
            covered += hi - end
            end = hi
    return covered + sum(b.size for b in buffers if b.offset_value is None)


def tile_text(tile: TileType) -> str:
    """`16x64xf16` for `!spatial.tile<16x64xf16>`."""
    return "".join(f"{d}x" for d in tile.get_shape()) + str(tile.element_type)


def _sym(ref: SymbolRefAttr) -> str:
    return ref.root_reference.data


# -- engine-program classes -----------------------------------------------


class _Normalizer:
    """A normalized print of one engine's region (see the module docstring)."""

    def __init__(self, engine: EngineOp, decls: dict[str, Operation]):
        self.site = _sym(engine.site)
        self.decls = decls
        self.tokens: dict[str, str] = {}
        self.per_kind: dict[str, int] = {}
        self.values: dict[SSAValue, str] = {}

    def symbol(self, ref: SymbolRefAttr) -> str:
        name = _sym(ref)
        if name in self.tokens:
            return self.tokens[name]
        decl = self.decls.get(name)
        site = getattr(decl, "site", None)
        if decl is None or not isinstance(site, SymbolRefAttr) or _sym(site) != self.site:
            token = "@" + name  # not a symbol of this engine's site: kept as is
        else:
            if isinstance(decl, StageOp):
                kind = f"{decl.kind_name}-stage"
            elif isinstance(decl, SemaphoreOp):
                kind = "sem"
            else:
                kind = decl.name
            n = self.per_kind.get(kind, 0)
            self.per_kind[kind] = n + 1
            token = f"{kind}#{n}"
        self.tokens[name] = token
        return token

    def attr(self, a: Attribute) -> str:
        if isinstance(a, SymbolRefAttr):
            return self.symbol(a)
        if isinstance(a, ArrayAttr):
            return "[" + ", ".join(self.attr(x) for x in a.data) + "]"
        return str(a)

    def ops(self, ops, depth: int, out: list[str]) -> None:
        for op in ops:
            props = ", ".join(f"{k}={self.attr(v)}" for k, v in sorted(op.properties.items()))
            attrs = ", ".join(f"{k}={self.attr(v)}" for k, v in sorted(op.attributes.items()))
            operands = ", ".join(self.values.get(v, "?") for v in op.operands)
            out.append(f"{'  ' * depth}{op.name}({operands}) <{props}> {{{attrs}}}")
            for region in op.regions:
                for block in region.blocks:
                    for i, arg in enumerate(block.args):
                        self.values[arg] = f"%d{depth}.{i}"
                    out.append(f"{'  ' * depth}{{")
                    self.ops(block.ops, depth + 1, out)
                    out.append(f"{'  ' * depth}}}")


def normalized_engine(engine: EngineOp, decls: dict[str, Operation]) -> str:
    """The engine's choreography with its own site's symbols replaced by kind + position."""
    out: list[str] = []
    _Normalizer(engine, decls).ops(engine.body.block.ops, 0, out)
    return "\n".join(out)


# -- the summary -----------------------------------------------------------


def _number(attr: Attribute | None) -> float | None:
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    return None


def plan_summary(program: ProgramOp) -> PlanSummary:
    """The plan of `program`, read from its structure (it is not changed)."""
    decls: dict[str, Operation] = {}
    for op in program.declarations():
        sym = op.get_attr_or_prop("sym_name")
        if sym is not None and hasattr(sym, "data"):
            decls[sym.data] = op  # pyright: ignore[reportAttributeAccessIssue]

    summary = PlanSummary(program=program.sym_name.data, phase=program.phase)
    buffers = [op for op in program.declarations() if isinstance(op, BufferOp)]
    by_site: dict[str, list[BufferOp]] = {}
    for b in buffers:
        by_site.setdefault(_sym(b.site), []).append(b)
    limit = program.lx_bytes
    for site in program.declarations():
        if not isinstance(site, SiteOp):
            continue
        name = site.sym_name.data
        mine = by_site.get(name, [])
        fifo = sum(1 for b in mine if not b.is_local)
        summary.sites.append(
            SiteSummary(name, site.coordinates, fifo, lx_footprint(mine), limit, len(mine) - fifo)
        )

    for group in program.declarations():
        if isinstance(group, MulticastOp):
            summary.multicast.append(MulticastSummary(group.sym_name.data, _sym(group.reader), len(group.targets.data)))

    for b in buffers:
        shape = tile_text(b.tile)
        if shape not in summary.block_shapes:
            summary.block_shapes.append(shape)

    classes: dict[tuple[str, str], list[str]] = {}
    for engine in program.declarations():
        if isinstance(engine, EngineOp):
            key = (engine.engine.data, normalized_engine(engine, decls))
            classes.setdefault(key, []).append(f"{_sym(engine.site)}.{engine.engine.data}")
    summary.engine_classes = [EngineClass(k[0], tuple(m)) for k, m in classes.items()]

    certificate = program.attributes.get(CERTIFICATE_ATTR)
    if isinstance(certificate, DictionaryAttr):
        figures = certificate.data
        steps = _number(figures.get("steps"))
        summary.steps = None if steps is None else int(steps)
        engines = figures.get("engines")
        if isinstance(engines, DictionaryAttr):
            summary.engine_steps = {k: int(v) for k, a in engines.data.items() if (v := _number(a)) is not None}
        elif summary.steps is not None:
            summary.engine_steps = {}
        summary.cycles = _number(figures.get("cycles"))
        summary.pipelined_cycles = _number(figures.get("pipelined_cycles"))
        for key in ("hbm_read_bytes", "hbm_written_bytes"):
            value = _number(figures.get(key))
            setattr(summary, key, None if value is None else int(value))
    return summary


def plan_summaries(module: Operation) -> list[PlanSummary]:
    """The summary of every `spatial.program` in `module`, in order."""
    return [plan_summary(op) for op in module.walk() if isinstance(op, ProgramOp)]
