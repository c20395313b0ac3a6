"""A cost model of Spyre for the reference interpreter (docs/cost-model.md).

Two levels, both on the same per-op cycle counts:

* **Sequential** (any IR): every core executes its ops one after another,
  compute, memory and communication never overlap; a core's time is the sum,
  the kernel's the maximum over cores (the critical core). This is the model
  of the public ktir-cpu interpreter (torch-spyre/ktir-cpu, `docs/latency.md`
  and `ktir_cpu/latency.py`), with its defaults, so that the same kernel gets
  the same figure (its generated `docs/kernel_cost.md` lists them).
* **Pipelined** (schedule IR: `ktdf.pipeline` / `ktdf.stage`): each stage
  index of a pipeline is an engine; successive instances of a pipeline
  overlap as far as the engines and the FIFOs between them allow
  (`simulate_core`); work outside pipelines stays sequential.

Per-op cycles (one execution of an op; `OpCosts.rule`), after ktir-cpu:

    memory (HBM load/store)   bytes / (hbm_bytes_per_cycle / sharing cores)
                              bytes counted in whole sticks (128 B) per
                              contiguous row of the tile; LX (ct_local) is free
    elementwise (SIMD)        elements / simd_elements_per_cycle
    transcendental            elements / simd_elements_per_cycle x transcendental_penalty
                              (exp, log, sqrt, rsqrt, tanh, sin, cos, erf, pow, ...)
    integer                   0 for a scalar (index arithmetic), else as elementwise
    reduction / linalg body   domain elements / simd x sum over the body's ops of
                              their factor (1, or the penalty), a tree reduction
                              costing one pass over its input
    matmul / contraction      2 * M * N * K / systolic_flops_per_cycle,
                              systolic_flops_per_cycle = 2 * simd * systolic_rows
    inter-tile delivery       ring bytes / ring_bytes_per_cycle ((cores - 1) x
                              partial bytes per reduce, docs/inter-tile.md §4.8)
    views, tiles, casts,      0
    splat/extract/reshape,
    control flow

Defaults (`HardwareConfig`): ktir-cpu's `HardwareConfig`: 1 GHz, HBM
0.128 TB/s for the chip (128 B/cycle) shared by the active cores, ring
0.064 TB/s (64 B/cycle), 64 SIMD elements/cycle, 8 systolic rows (1024
flops/cycle), transcendental x4.

How it runs: when a `Program` has a `CostModel`, `FunctionCompiler.compile_block`
wraps the step of every op with a cost (`CostModel.instrument`), decided
once while decoding; the wrapper adds the op's cycles to the active lanes
(`frame[0].linear`) of the run's `CostCounter` (`Runtime.cost`), which is
also the stage hook filling `StageRecord.cycles`. Without a cost model
nothing is wrapped.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerAttr, MemRefType, StringAttr, TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import ReduceOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.traits import IsTerminator

COMPONENTS = ("compute", "memory", "communication")
"""The three components of a core's time, in the order of every table."""

COMM_COUNTERS = ("ring", "received", "sent")
"""Values of `HardwareConfig.comm_bytes`: which inter-tile byte counter a delivery is charged by."""

LOG_CAP = 50_000
"""Op executions (consecutive executions of one op kind merged) kept for the sequential trace."""

TRACE_EVENT_CAP = 40_000
"""Most events a trace holds (per-core timelines are coarsened to fit)."""

TRACE_CORE_CAP = 64
"""Most cores a trace shows (the first ones, and the critical core)."""


# ===========================================================================
# Hardware configuration
# ===========================================================================


@dataclass(frozen=True)
class HardwareConfig:
    """The hardware the cost model assumes (docs/cost-model.md, "Defaults").

    Defaults are ktir-cpu's (`ktir_cpu/latency.py`, `HardwareConfig`):

    - `clock_ghz`: cycles per nanosecond; figures in microseconds divide by it.
    - `hbm_bandwidth_tb_s`: HBM bandwidth of the whole chip (0.128 TB/s, i.e.
      128 B/cycle at 1 GHz), shared by `hbm_sharing_cores` cores.
    - `hbm_sharing_cores`: how many cores share it; 0 (default) = the cores
      of the run's grid (ktir-cpu's "contended" sharing among active cores).
    - `stick_bytes`: HBM traffic is counted in whole sticks of this many
      bytes per contiguous row of a tile (ktir-cpu charges unique sticks);
      0 counts raw bytes.
    - `ring_bandwidth_tb_s`: the inter-core ring, one direction (0.064 TB/s,
      64 B/cycle).
    - `lx_bandwidth_tb_s`: on-chip LX traffic (`spyre.relayout`); ktir-cpu
      derives it from the ring bandwidth.
    - `simd_elements_per_cycle`: SIMD throughput (one 128-byte stick of f16).
    - `systolic_rows`: rows of the systolic array; its throughput is
      2 x simd_elements_per_cycle x systolic_rows flops/cycle (1024).
    - `transcendental_penalty`: cost of exp, log, sqrt, ... relative to an add.
    - `comm_bytes`: the inter-tile byte counter charged per delivery:
      "ring" (ktir-cpu: (cores - 1) x partial bytes per reduce; a consume,
      which has no ring figure, is charged its received bytes), "received"
      or "sent" (logical volumes, docs/inter-tile.md §4.8).
    - `fifo_depth`: FIFO entries between two stages of a pipeline, for the
      pipelined estimate, when the IR gives none (see `simulate_core`).
    """

    clock_ghz: float = 1.0
    hbm_bandwidth_tb_s: float = 0.128
    hbm_sharing_cores: int = 0
    stick_bytes: int = 128
    ring_bandwidth_tb_s: float = 0.064
    lx_bandwidth_tb_s: float = 0.064
    simd_elements_per_cycle: int = 64
    systolic_rows: int = 8
    transcendental_penalty: float = 4.0
    comm_bytes: str = "ring"
    fifo_depth: int = 1

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "str":
                if value not in COMM_COUNTERS:
                    raise ValueError(f"comm_bytes must be one of {', '.join(COMM_COUNTERS)}, not {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{f.name} must be a number, not {type(value).__name__} {value!r}")
            if f.type == "int" and value != int(value):
                raise ValueError(f"{f.name} must be an integer, not {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{f.name} must be finite, not {value!r}")
            least = 0 if f.name in ("hbm_sharing_cores", "stick_bytes") else (1 if f.name == "fifo_depth" else None)
            if least is None and not value > 0:
                raise ValueError(f"{f.name} must be positive, not {value!r}")
            if least is not None and value < least:
                raise ValueError(f"{f.name} must be at least {least}, not {value!r}")
            if f.type == "int":
                object.__setattr__(self, f.name, int(value))

    # -- derived figures ---------------------------------------------------

    @property
    def hbm_bytes_per_cycle(self) -> float:
        """HBM bytes per cycle for the whole chip."""
        return self.hbm_bandwidth_tb_s * 1e12 / (self.clock_ghz * 1e9)

    def hbm_bytes_per_cycle_per_core(self, cores: int) -> float:
        """HBM bytes per cycle of one core when `cores` cores run (unless `hbm_sharing_cores` fixes the share)."""
        return self.hbm_bytes_per_cycle / (self.hbm_sharing_cores or max(1, cores))

    @property
    def ring_bytes_per_cycle(self) -> float:
        return self.ring_bandwidth_tb_s * 1e12 / (self.clock_ghz * 1e9)

    @property
    def lx_bytes_per_cycle(self) -> float:
        return self.lx_bandwidth_tb_s * 1e12 / (self.clock_ghz * 1e9)

    @property
    def systolic_flops_per_cycle(self) -> float:
        return 2.0 * self.simd_elements_per_cycle * self.systolic_rows

    def microseconds(self, cycles: float) -> float:
        return cycles / (self.clock_ghz * 1e3)

    # -- construction --------------------------------------------------------

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    def replace(self, **changes) -> HardwareConfig:
        """A copy with `changes` (unknown keys: ValueError naming the known ones)."""
        unknown = sorted(set(changes) - set(self.keys()))
        if unknown:
            raise ValueError(
                f"unknown hardware parameter{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(self.keys())})"
            )
        return dataclasses.replace(self, **changes)

    def with_overrides(self, items: Iterable[str]) -> HardwareConfig:
        """A copy with `KEY=VALUE` overrides (`spyre-run --hw`), each value parsed as its field's type."""
        types = {f.name: f.type for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for item in items:
            key, sep, text = item.partition("=")
            key, text = key.strip(), text.strip()
            if not sep or not key or not text:
                raise ValueError(f"expected KEY=VALUE, not {item!r}")
            if key not in types:
                raise ValueError(f"unknown hardware parameter {key!r} (known: {', '.join(self.keys())})")
            changes[key] = _parse_field(key, types[key], text)
        return self.replace(**changes)

    @classmethod
    def from_json(cls, source: str | os.PathLike | dict, base: HardwareConfig | None = None) -> HardwareConfig:
        """A config from a dict, JSON text or a JSON file of `{key: value}`; the keys
        it does not name keep their value in `base` (default: the defaults)."""
        if isinstance(source, dict):
            data = source
        else:
            text = str(source)
            if isinstance(source, os.PathLike) or not text.lstrip().startswith("{"):
                with open(source, encoding="utf-8") as f:
                    text = f.read()
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"a hardware config is a JSON object of parameters, not {type(data).__name__}")
        return (base or cls()).replace(**data)

    def to_json(self) -> dict:
        out: dict[str, Any] = dataclasses.asdict(self)
        return out


def _parse_field(key: str, kind: str, text: str):
    if kind == "str":
        return text
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{key} takes a number, not {text!r}") from None
    if kind == "int":
        if value != int(value):
            raise ValueError(f"{key} takes an integer, not {text!r}")
        return int(value)
    return value


# ===========================================================================
# Per-op costs, decided while decoding
# ===========================================================================

TRANSCENDENTAL = frozenset(
    "math." + n
    for n in (
        "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt cbrt tanh sin cos tan asin acos atan atan2 "
        "sinh cosh asinh acosh atanh erf erfc powf fpowi"
    ).split()
)
"""ktir-cpu's COMPUTE_TRANSCENDENTAL ops (it lists exp, sqrt, rsqrt, log, log2,
log1p, tanh, sin, cos, erf, powf), and their siblings."""

FLOAT_ELEMENTWISE = frozenset(
    ["arith." + n for n in "addf subf mulf divf remf negf maximumf minimumf maxnumf minnumf cmpf".split()]
    + ["math." + n for n in "absf ceil floor trunc round roundeven copysign fma".split()]
)
"""One SIMD pass per element (ktir-cpu's COMPUTE_FLOAT); a scalar costs 1/simd."""

INT_ELEMENTWISE = frozenset(
    [
        "arith." + n
        for n in (
            "addi subi muli divsi divui ceildivsi ceildivui floordivsi remsi remui andi ori xori shli shrsi "
            "shrui maxsi maxui minsi minui cmpi"
        ).split()
    ]
    + ["math." + n for n in "absi ctpop ctlz cttz ipowi".split()]
)
"""ktir-cpu's COMPUTE_INT: free on scalars (index arithmetic), one SIMD pass per element on tensors."""

FREE = {
    "arith.constant": "a compile-time value",
    "ktdp.construct_memory_view": "computes an address, moves nothing",
    "ktdp.construct_distributed_memory_view": "computes addresses, moves nothing",
    "ktdp.construct_access_tile": "narrows a view; the load or store carries the bytes",
    "ktdp.construct_indirect_access_tile": "the indirect load or store is charged the index reads",
    "ktdp.get_compute_tile_id": "the core's own coordinates",
    "ktdp.runtime_arg_extract": "a launch-time value",
    "ktdp.inter_tile_produce": "publishes a partial; the delivery is charged the transfer",
    "spyre.tensor_layout": "a statement about memory",
    "func.call": "its callee's ops are charged",
    "sdscbundle.sdsc_execute": "runs an SDSC function, whose ops are charged",
    "spyre_interpreter.run_spatial_program": "runs a spatial.program: its compute bodies' ops are charged, its tile moves not yet",
    "tensor.empty": "an uninitialized buffer",
    "tensor.splat": "ktir-cpu: free (a broadcast read by the consumer)",
    "tensor.extract": "ktir-cpu: free (one element)",
    "tensor.insert": "one element",
    "tensor.extract_slice": "ktir-cpu: free (a strided view)",
    "tensor.insert_slice": "ktir-cpu: free",
    "tensor.expand_shape": "a reshape",
    "tensor.collapse_shape": "a reshape",
    "tensor.reshape": "a reshape",
    "tensor.cast": "a type relabel",
    "tensor.dim": "a shape query",
    "tensor.from_elements": "ktir-cpu: free",
    "tensor.concat": "a copy ktir-cpu does not charge (like insert_slice)",
    "linalg.fill": "ktir-cpu: free",
    "linalg.broadcast": "ktir-cpu: free",
    "linalg.transpose": "ktir-cpu: free",
    "linalg.index": "the iteration index",
    "affine.apply": "index arithmetic",
    "affine.min": "index arithmetic",
}
"""Ops that cost nothing, with why (control flow: its body's ops are charged).
Casts (`arith.extf`, `truncf`, `sitofp`, `index_cast`, ...) are free as in ktir-cpu."""

CASTS = frozenset(
    "arith." + n
    for n in (
        "extf truncf sitofp uitofp fptosi fptoui index_cast index_castui extsi extui trunci bitcast "
        "scaling_extf scaling_truncf"
    ).split()
)
FREE_DIALECTS = ("scf.", "ktdf.", "builtin.", "spyre_loop.")
"""Structure: `scf`, the schedule IR's `ktdf` and the counted loops of `spyre_loop` hold regions whose ops are charged."""

FREE_IN_BODY = CASTS | {"arith.constant", "linalg.index", "linalg.yield"}


@dataclass
class Charge:
    """What one execution of an op costs: a component and cycles, constant or
    computed from the frame (run-time shapes), or an inter-tile byte counter."""

    component: str
    cycles: float | Callable[[list], float] = 0.0
    comm_counter: str | None = None  # charge the growth of this RunStats.comm counter instead
    # An inter-tile reduce's combiner: (op name, cycles of one application) per op of its
    # region, applied `applications[core]` times on each consumer (its group's producers - 1).
    combiner: list[tuple[str, float]] = field(default_factory=list)
    applications: np.ndarray | None = None


class OpCosts:
    """The static cost rules: `rule(fc, op)` is the `Charge` of one execution of `op`, or None when free."""

    def __init__(self, config: HardwareConfig, cores: int):
        self.config = config
        self.cores = cores
        self.simd = float(config.simd_elements_per_cycle)
        self.hbm = config.hbm_bytes_per_cycle_per_core(cores)
        self.unpriced: set[str] = set()

    # -- helpers -------------------------------------------------------------

    def _elements(self, fc, value: SSAValue) -> int | Callable[[list], int]:
        """Elements of a scalar (1) or tensor value, statically or from the frame."""
        ty = value.type
        if not isinstance(ty, TensorType):
            return 1
        shape = tuple(ty.get_shape())
        if all(d >= 0 for d in shape):
            return math.prod(shape)
        slot, lead = fc.slot(value), 1 if fc.is_varying(value) else 0
        return lambda frame: math.prod(np.shape(frame[slot])[lead:])

    def _scaled(self, count, factor: float) -> float | Callable[[list], float]:
        if callable(count):
            return lambda frame: count(frame) * factor
        return count * factor

    def _stick_bytes(self, fc, value: SSAValue) -> float | Callable[[list], float]:
        """Bytes of a tensor moved to or from HBM: whole sticks per contiguous (last-dim) row."""
        ty = value.type
        if not isinstance(ty, TensorType):
            return 0.0
        itemsize = _itemsize(ty.get_element_type())
        stick = self.config.stick_bytes
        shape = tuple(ty.get_shape())
        if all(d >= 0 for d in shape):
            return stick_bytes(shape, itemsize, stick)
        slot, lead = fc.slot(value), 1 if fc.is_varying(value) else 0
        return lambda frame: stick_bytes(np.shape(frame[slot])[lead:], itemsize, stick)

    # -- the rules -----------------------------------------------------------

    def rule(self, fc, op: Operation) -> Charge | None:
        name = op.name
        if name in ("ktdp.load", "ktdp.store"):
            return self._memory(fc, op)
        if name == "ktdf.data_transfer":
            return self._transfer(op)
        if name in ("ktdp.inter_tile_reduce", "ktdp.inter_tile_consume"):
            counter = self.config.comm_bytes
            if counter == "ring" and name == "ktdp.inter_tile_consume":
                counter = "received"  # a consume has no ring figure
            charge = Charge("communication", comm_counter=counter)
            if name == "ktdp.inter_tile_reduce":
                self._combiner(fc, op, charge)
            return charge
        if name == "spyre.relayout":
            moved = self._scaled(self._raw_bytes(fc, op.operands[0]), 2.0)  # read + write
            return Charge("memory", self._scaled(moved, 1.0 / self.config.lx_bytes_per_cycle))
        if isinstance(op, ReduceOp):
            return self._reduce(fc, op)
        if isinstance(op, LinalgStructuredOperation):
            return self._structured(fc, op)
        if name == "arith.select" or name in FLOAT_ELEMENTWISE or name in INT_ELEMENTWISE or name in TRANSCENDENTAL:
            return self._elementwise(fc, op)
        if name in FREE or name in CASTS or name.startswith(FREE_DIALECTS):
            return None
        self.unpriced.add(name)
        return None

    def _combiner(self, fc, op: Operation, charge: Charge) -> None:
        """The combiner of an inter-tile reduce: each consumer applies it once per
        producer of its group but the first (ktir-cpu's ring: group size - 1 folds),
        whatever the interpreter's fold plan shares between consumers."""
        from spyre_mlir.interpreter.ops_inter_tile import _delivery

        delivery = _delivery(op, self.cores)  # pyright: ignore[reportArgumentType]
        sizes = {g: len(p) for g, p in delivery.groups.producers.items()}
        charge.applications = np.array(
            [max(0, sizes.get(int(g), 1) - 1) if g >= 0 else 0 for g in delivery.group_of_consumer.tolist()], np.int64
        )
        block = op.regions[0].block
        for inner in block.ops:
            if inner is block.last_op:
                continue
            inner_charge = self.rule(fc, inner)
            if inner_charge is None:
                continue
            if callable(inner_charge.cycles):  # a dynamically shaped combiner: not sized statically
                self.unpriced.add(f"{inner.name} (dynamically shaped, in an inter-tile combiner)")
                continue
            charge.combiner.append((inner.name, float(inner_charge.cycles)))

    def _elementwise(self, fc, op: Operation) -> Charge | None:
        value = op.results[0] if op.results else op.operands[0]
        name = op.name
        if name == "arith.cmpf":
            is_float = True
        elif name in INT_ELEMENTWISE:
            is_float = False
        elif name in TRANSCENDENTAL or name in FLOAT_ELEMENTWISE:
            is_float = True
        else:  # select: by its result type
            is_float = _is_float(_element_type(value.type))
        if not is_float and not isinstance(value.type, TensorType):
            return None  # scalar index arithmetic: free (ktir-cpu)
        factor = self.config.transcendental_penalty if name in TRANSCENDENTAL else 1.0
        cycles = self._scaled(self._elements(fc, value), factor / self.simd)
        if not callable(cycles) and cycles == 0:
            return None
        return Charge("compute", cycles)

    def _memory(self, fc, op: Operation) -> Charge | None:
        tile = op.operands[0] if op.name == "ktdp.load" else op.operands[1]
        data = op.results[0] if op.name == "ktdp.load" else op.operands[0]
        moved = self._stick_bytes(fc, data) if _tile_space(tile) == "hbm" else 0.0  # LX: on-chip, free (ktir-cpu)
        owner = tile.owner
        if isinstance(owner, Operation) and owner.name == "ktdp.construct_indirect_access_tile":
            # every point of the tile reads one index from each index view; the HBM ones are charged
            count = self._elements(fc, data)
            stick = self.config.stick_bytes
            for index_view in owner.indirect_memrefs:  # pyright: ignore[reportAttributeAccessIssue]
                if _view_space(index_view) == "lx":
                    continue
                itemsize = _itemsize(_element_type(index_view.type))
                if callable(count):
                    moved = _add(moved, lambda frame, count=count, itemsize=itemsize: _round_up(count(frame) * itemsize, stick))
                else:
                    moved = _add(moved, _round_up(count * itemsize, stick))
        if not callable(moved) and moved == 0:
            return None
        return Charge("memory", self._scaled(moved, 1.0 / self.hbm))

    def _transfer(self, op: Operation) -> Charge | None:
        """A schedule-IR transfer between a memory view and a FIFO slot (in LX): a load or store of its tile."""
        try:
            view, _, _, sizes = op.memref_side()  # pyright: ignore[reportAttributeAccessIssue]
            shape = tuple(int(d) for d in sizes)
        except Exception:  # noqa: BLE001 - a form we cannot size statically
            self.unpriced.add(op.name)
            return None
        if _view_space(view) == "lx":
            return None
        moved = stick_bytes(shape, _itemsize(_element_type(view.type)), self.config.stick_bytes)
        return Charge("memory", moved / self.hbm)

    def _raw_bytes(self, fc, value: SSAValue):
        ty = value.type
        if not isinstance(ty, TensorType):
            return 0
        return self._scaled(self._elements(fc, value), float(_itemsize(ty.get_element_type())))

    def body_factor(self, block: Block) -> float:
        """Cycles per domain element per SIMD lane of a structured op's body: 1 per
        elementwise op, the penalty per transcendental, 0 for casts and index reads."""
        factor = 0.0
        for inner in block.ops:
            name = inner.name
            if name in FREE_IN_BODY or inner is block.last_op:
                continue
            factor += self.config.transcendental_penalty if name in TRANSCENDENTAL else 1.0
        return factor

    def _reduce(self, fc, op: ReduceOp) -> Charge | None:
        factor = self.body_factor(op.region.block)
        if not factor:
            return None
        return Charge("compute", self._scaled(self._elements(fc, op.input), factor / self.simd))

    def _structured(self, fc, op: LinalgStructuredOperation) -> Charge | None:
        block = op.body.block
        iterators = [str(it.data) for it in op.get_iterator_types().data]
        domain = self._domain(fc, op)
        if "reduction" in iterators and _is_contraction(block):
            return Charge("compute", self._scaled(domain, 2.0 / self.config.systolic_flops_per_cycle))
        factor = self.body_factor(block)
        cycles = self._scaled(domain, factor / self.simd)
        if op.name == "linalg.generic" and op.res:
            # ktir-cpu also charges the generic itself one pass over its output.
            out = self._scaled(self._elements(fc, op.res[0]), 1.0 / self.simd)
            cycles = _add(cycles, out)
        if not callable(cycles) and cycles == 0:
            return None
        return Charge("compute", cycles)

    def _domain(self, fc, op: LinalgStructuredOperation) -> int | Callable[[list], int]:
        """The number of points of a structured op's iteration domain."""
        maps = [m.data for m in op.get_indexing_maps().data]
        operands = (*op.inputs, *op.outputs)
        n = maps[0].num_dims if maps else 0
        sizes: list[int | None] = [None] * n
        for amap, v in zip(maps, operands):
            shape = v.type.get_shape() if isinstance(v.type, TensorType | MemRefType) else ()
            for k, e in enumerate(amap.results):
                if isinstance(e, AffineDimExpr) and k < len(shape) and shape[k] >= 0:
                    sizes[e.position] = shape[k]
        if all(s is not None for s in sizes):
            return math.prod(s for s in sizes if s is not None)
        slots = [(fc.slot(v), 1 if fc.is_varying(v) else 0) for v in operands]

        def at_run_time(frame) -> int:
            found = list(sizes)
            for amap, (slot, lead) in zip(maps, slots):
                shape = np.shape(frame[slot])[lead:]
                for k, e in enumerate(amap.results):
                    if isinstance(e, AffineDimExpr) and k < len(shape):
                        found[e.position] = shape[k]
            return math.prod(s or 0 for s in found)

        return at_run_time


def _add(a, b):
    if callable(a) or callable(b):
        fa = a if callable(a) else (lambda frame, a=a: a)
        fb = b if callable(b) else (lambda frame, b=b: b)
        return lambda frame: fa(frame) + fb(frame)
    return a + b


def stick_bytes(shape: Sequence[int], itemsize: int, stick: int) -> float:
    """Bytes a tile of `shape` moves to or from HBM: each contiguous row (the last
    dim) rounded up to whole sticks of `stick` bytes (0: raw bytes). ktir-cpu
    charges the sticks an access touches; this is that count for tiles whose
    rows start on a stick boundary (every tile of the corpus)."""
    shape = tuple(shape) or (1,)
    row = shape[-1] * itemsize
    return float(math.prod(shape[:-1]) * _round_up(row, stick))


def _round_up(nbytes: float, stick: int) -> float:
    return math.ceil(nbytes / stick) * stick if stick and nbytes else float(nbytes)


def _is_contraction(block: Block) -> bool:
    """A body that multiplies and accumulates (`out + a * b`, casts allowed): matmul, conv, dot, ..."""
    names = [op.name for op in block.ops if op is not block.last_op]
    mul = any(n in ("arith.mulf", "arith.muli") for n in names)
    add = any(n in ("arith.addf", "arith.addi") for n in names)
    return mul and add and all(n in ("arith.mulf", "arith.muli", "arith.addf", "arith.addi") or n in CASTS for n in names)


def _element_type(ty):
    return ty.get_element_type() if isinstance(ty, TensorType | MemRefType) else ty


def _is_float(ty) -> bool:
    from xdsl.dialects.builtin import AnyFloat

    return isinstance(ty, AnyFloat)


def _itemsize(ty) -> int:
    width = getattr(ty, "bitwidth", None)
    if width is None:
        width = getattr(getattr(ty, "width", None), "data", None)
    if width is None:
        return 8  # index
    return max(1, (int(width) + 7) // 8)


def _view_space(view: SSAValue) -> str:
    """"hbm" or "lx" for a memory view value (HBM when it cannot be told statically, as in ktir-cpu)."""
    from spyre_mlir.dialects.ktdp import normalized_memory_space

    owner = view.owner
    if isinstance(owner, Operation):
        if owner.name == "ktdp.construct_memory_view":
            space = normalized_memory_space(owner.memory_space)  # pyright: ignore[reportAttributeAccessIssue]
            return "lx" if space is not None and not space.is_global else "hbm"
        if owner.name == "ktdp.construct_distributed_memory_view":
            spaces = {_view_space(v) for v in owner.operands}
            return "hbm" if "hbm" in spaces or not spaces else "lx"
    ty = view.type
    if isinstance(ty, TensorType):
        return "lx"  # an access tile over a tensor: on chip
    if isinstance(ty, MemRefType):
        space = normalized_memory_space(ty.memory_space)
        if space is not None and not space.is_global:
            return "lx"
    return "hbm"


def _tile_space(tile: SSAValue) -> str:
    owner = tile.owner
    if isinstance(owner, Operation) and owner.name in (
        "ktdp.construct_access_tile",
        "ktdp.construct_indirect_access_tile",
    ):
        return _view_space(owner.operands[0])
    return "hbm"


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

    def _combiner_ops(self, module) -> set[int]:
        """Ids of the ops inside inter-tile reduce combiners of `module` (found once, linearly)."""
        if self._combiners is None:
            from spyre_mlir.walk import walk_ops

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
        if fc.body_depth or id(op) in self._combiner_ops(fc.program.module):
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


# ===========================================================================
# The pipelined schedule
# ===========================================================================


@dataclass
class StageRun:
    """One execution of a stage on one core, as the simulation sees it."""

    pipeline: object  # identity of the pipeline (the ktdf.pipeline op)
    instance: int
    index: int  # the stage's position: its engine
    cycles: float
    start: float | None = None  # cycles the core had executed before it (None: right after the previous run)
    depth: int | None = None  # FIFO depth of its pipeline (None: the default)
    name: str = ""


@dataclass
class Interval:
    """A span of the simulated timeline of one core."""

    tid: int  # 0: work outside pipelines; k + 1: engine k
    name: str
    start: float
    end: float
    args: dict = field(default_factory=dict)


def simulate_core(runs: Sequence[StageRun], total: float | None = None, depth: int = 1) -> tuple[float, list[Interval]]:
    """The pipelined time of one core and its timeline, from its stage runs in execution order.

    A *run* of a pipeline is a sequence of its stage executions with
    increasing (instance, stage index); a record of another pipeline, or one
    that goes back, starts a new run. Within a run, stage index k is engine k,
    and stage k of instance i starts at

        start(i, k) = max(end(i, k-1),              the data it consumes
                          end(i-1, k),              its engine is free
                          end(i-1-depth, k+1),      a FIFO entry between k and k+1 is free
                          issue(i, k))              the work before it outside stages

    `depth` is the number of FIFO entries between two engines (each engine
    also holds the instance it works on): with depth 1, stage k may run one
    instance ahead of stage k+1, so for stage times uniform over N instances
    a run lasts L + C + S + (N - 1) x max(L, C, S). Work outside stages
    between two records of a run delays the issue of the next stage (a
    control engine runs it in order, without waiting for stages); work
    between runs is sequential: a run starts after everything before it has
    finished, and the next work starts after its last stage. `total` is the
    core's sequential time (default: the sum of the runs' cycles); the runs'
    `start` place the work outside stages (default: none)."""
    events: list[Interval] = []
    t = 0.0  # everything before is finished
    seq = 0.0  # sequential position consumed so far
    run: _Run | None = None
    for item in runs:
        start = seq if item.start is None else float(item.start)
        gap = max(0.0, start - seq)
        item_depth = item.depth if item.depth is not None else depth
        if run is None or not run.continues(item):
            if run is not None:
                t = max(t, run.finish())
            if gap > 0:
                events.append(Interval(0, "outside pipelines", t, t + gap))
                t += gap
            run = _Run(item.pipeline, t, item_depth)
        elif gap > 0:
            events.append(Interval(0, "outside stages", run.cursor, run.cursor + gap))
            run.cursor += gap
        begin, end = run.place(item)
        events.append(
            Interval(
                item.index + 1,
                item.name or f"stage {item.index}",
                begin,
                end,
                {"instance": item.instance, "stage": item.index, "cycles": item.cycles},
            )
        )
        seq = start + item.cycles
    if run is not None:
        t = max(t, run.finish())
    whole = seq if total is None else float(total)
    tail = max(0.0, whole - seq)
    if tail > 0:
        events.append(Interval(0, "outside pipelines", t, t + tail))
        t += tail
    return t, events


class _Run:
    """The state of one run of a pipeline on one core (`simulate_core`)."""

    def __init__(self, pipeline, start: float, depth: int):
        self.pipeline = pipeline
        self.cursor = start  # issue time of the next stage
        self.depth = max(1, int(depth))
        self.instances: list[int] = []  # in order of first appearance
        self.ends: dict[tuple[int, int], float] = {}
        self.engine_free: dict[int, float] = {}
        self.last: tuple[int, int] | None = None
        self.latest = start

    def continues(self, item: StageRun) -> bool:
        if item.pipeline is not self.pipeline and item.pipeline != self.pipeline:
            return False
        return self.last is None or (item.instance, item.index) > self.last

    def place(self, item: StageRun) -> tuple[float, float]:
        i, k = item.instance, item.index
        if not self.instances or self.instances[-1] != i:
            self.instances.append(i)
        position = len(self.instances) - 1
        begin = self.cursor
        begin = max(begin, self.ends.get((i, k - 1), begin), self.engine_free.get(k, begin))
        back = position - 1 - self.depth
        if back >= 0:
            begin = max(begin, self.ends.get((self.instances[back], k + 1), begin))
        end = begin + float(item.cycles)
        self.ends[(i, k)] = max(end, self.ends.get((i, k), end))
        self.engine_free[k] = end
        self.last = (i, k)
        self.latest = max(self.latest, end)
        return begin, end

    def finish(self) -> float:
        return max(self.latest, self.cursor)


def fifo_depth_of(pipeline, default: int) -> int:
    """The FIFO depth a pipeline op gives (a `depth` or `fifo_depth` integer attribute or property), else `default`."""
    for table in (getattr(pipeline, "attributes", None), getattr(pipeline, "properties", None)):
        if not isinstance(table, dict):
            continue
        for key in ("depth", "fifo_depth"):
            attr = table.get(key)
            if isinstance(attr, IntegerAttr):
                return max(1, int(attr.value.data))
            if isinstance(attr, IntAttr):
                return max(1, attr.data)
    return default


def stage_name(stage, index: int) -> str:
    """An engine's name: the stage op's `name`/`kind`/`engine`/`sym_name` string
    attribute; else what its body does ("load" / "store" when it only transfers
    into / out of FIFO slots, else "compute") and its `applicable_units`."""
    if isinstance(stage, str):
        return stage
    units: list[str] = []
    for table in (getattr(stage, "attributes", None), getattr(stage, "properties", None)):
        if not isinstance(table, dict):
            continue
        for key in ("name", "kind", "engine", "sym_name"):
            attr = table.get(key)
            if isinstance(attr, StringAttr):
                return attr.data
        found = table.get("applicable_units")
        if isinstance(found, ArrayAttr):
            units += [u.data for u in found.data if isinstance(u, StringAttr)]
    regions = getattr(stage, "regions", None)
    if not regions or not regions[0].blocks:
        return f"stage {index}"
    block = regions[0].blocks[0]
    ops = [op for op in block.ops if not op.has_trait(IsTerminator)]
    kind = "compute"
    if ops and all(op.name == "ktdf.data_transfer" for op in ops):
        directions = {bool(getattr(op, "to_slot", False)) for op in ops}
        kind = {frozenset([True]): "load", frozenset([False]): "store"}.get(frozenset(directions), "transfer")
    return f"{kind} ({'/'.join(units)})" if units else kind


def pipelined_per_core(
    stages: Sequence[tuple[object, np.ndarray | None, int]], totals: np.ndarray, depth: int = 1
) -> tuple[np.ndarray, dict[int, list[Interval]]]:
    """Simulate every core: `stages` are (StageRecord, sequential start per lane
    or None, nesting depth) in execution order; nested stages are inside their
    parent and not simulated. Returns the pipelined cycles per core and the
    timelines of the cores that ran stages."""
    per_core: dict[int, list[StageRun]] = {}
    depths: dict[int, int] = {}
    for record, starts, nesting in stages:
        if nesting:
            continue
        pipeline = record.pipeline  # pyright: ignore[reportAttributeAccessIssue]
        key = id(pipeline)
        if key not in depths:
            depths[key] = fifo_depth_of(pipeline, depth)
        name = stage_name(record.stage, record.index)  # pyright: ignore[reportAttributeAccessIssue]
        lanes = np.atleast_1d(record.lanes)  # pyright: ignore[reportAttributeAccessIssue]
        cycles = np.broadcast_to(np.asarray(record.cycles, float), lanes.shape)  # pyright: ignore
        for j, core in enumerate(lanes.tolist()):
            per_core.setdefault(core, []).append(
                StageRun(
                    pipeline,
                    record.instance,  # pyright: ignore[reportAttributeAccessIssue]
                    record.index,  # pyright: ignore[reportAttributeAccessIssue]
                    float(cycles[j]),
                    None if starts is None else float(starts[j]),
                    depths[key],
                    name,
                )
            )
    result = np.array(totals, float, copy=True)
    timelines: dict[int, list[Interval]] = {}
    for core, runs in per_core.items():
        result[core], timelines[core] = simulate_core(runs, float(totals[core]), depth)
    return result, timelines


def simulate_records(records: Sequence, ncores: int | None = None, depth: int = 1) -> np.ndarray:
    """The pipelined cycles per core of a list of filled `StageRecord`s alone (no
    work outside stages, each stage right after the previous one in sequence)."""
    lanes = [np.atleast_1d(r.lanes) for r in records]
    n = ncores if ncores is not None else (1 + max((int(x.max()) for x in lanes if x.size), default=-1))
    totals = np.zeros(n)
    for r, ls in zip(records, lanes):
        totals[ls] += np.broadcast_to(np.asarray(r.cycles, float), ls.shape)
    pipelined, _ = pipelined_per_core([(r, None, 0) for r in records], totals, depth)
    return pipelined


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
        _write_json(path, self.trace(), compact=True)

    def write_json(self, path: str | os.PathLike) -> None:
        _write_json(path, self.to_json())


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


def _write_json(path, data, compact: bool = False) -> None:
    text = json.dumps(data, separators=(",", ":")) if compact else json.dumps(data, indent=2)
    if str(path) == "-":
        print(text)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


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
                events.append(
                    {
                        "name": s.name,
                        "cat": "stage" if s.tid else "sequential",
                        "ph": "X",
                        "ts": us(s.start),
                        "dur": us(s.end - s.start),
                        "pid": core,
                        "tid": s.tid,
                        "args": {**s.args, "start_cycles": s.start, "end_cycles": s.end},
                    }
                )
            meta += _meta(core, {tid: (n if tid == 0 else f"engine {tid - 1}: {n}") for tid, n in names.items()})
    else:
        cores = _traced_cores(estimate, range(estimate.cores))
        per_core = _sequential_spans(estimate, cores)
        budget = max(1, TRACE_EVENT_CAP // max(1, len(cores)))
        for core in cores:
            spans = _coarsen(per_core.get(core, []), budget)
            for name, component, start, dur, count in spans:
                events.append(
                    {
                        "name": name,
                        "cat": component,
                        "ph": "X",
                        "ts": us(start),
                        "dur": us(dur),
                        "pid": core,
                        "tid": 0,
                        "args": {"component": component, "executions": count, "cycles": dur, "start_cycles": start},
                    }
                )
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
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def _meta(core: int, threads: dict[int, str]) -> list[dict]:
    out = [
        {"name": "process_name", "ph": "M", "pid": core, "tid": 0, "args": {"name": f"core {core}"}},
        {"name": "process_sort_index", "ph": "M", "pid": core, "tid": 0, "args": {"sort_index": core}},
    ]
    for tid, name in sorted(threads.items()):
        out.append({"name": "thread_name", "ph": "M", "pid": core, "tid": tid, "args": {"name": name}})
        out.append({"name": "thread_sort_index", "ph": "M", "pid": core, "tid": tid, "args": {"sort_index": tid}})
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


def resolve(option) -> HardwareConfig | None:
    """`InterpreterOptions.cost_model` as a config: None/False -> None, True -> the defaults."""
    if option is None or option is False:
        return None
    if option is True:
        return HardwareConfig()
    if isinstance(option, HardwareConfig):
        return option
    raise TypeError(
        f"InterpreterOptions.cost_model must be None, a bool or a HardwareConfig, not {type(option).__name__} {option!r}"
    )
