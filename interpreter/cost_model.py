"""The cost model of Spyre (docs/cost-model.md): the hardware it assumes, the per-op cost
rules and how a core's stages compose into its pipelined time.

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
    a SuperDSC execution      per core: its compute ops over the work slice by the
                              rules above, its cores' HBM bytes at the shared rate
                              (`OpCosts.superdsc`, docs/superdsc.md)
    inter-tile delivery       ring bytes / ring_bytes_per_cycle ((cores - 1) x
                              partial bytes per reduce, docs/inter-tile.md §4.8)
    views, tiles, casts,      0
    splat/extract/reshape,
    control flow

Defaults (`HardwareConfig`): ktir-cpu's `HardwareConfig`: 1 GHz, HBM
0.128 TB/s for the chip (128 B/cycle) shared by the active cores, ring
0.064 TB/s (64 B/cycle), 64 SIMD elements/cycle, 8 systolic rows (1024
flops/cycle), transcendental x4.

The hardware figures default to the target model (`spyre_mlir.target.SPYRE`);
element widths are `spyre_mlir.target.element_bytes`. The counters a run
updates are `cost_instrumentation.py`, the tables and traces `cost_report.py`.
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
from xdsl.dialects.builtin import AnyFloat, ArrayAttr, IntAttr, IntegerAttr, MemRefType, StringAttr, TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import ReduceOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from spyre_mlir.analysis.dim_maps import DimMap, dim_map, loops_of
from spyre_mlir.analysis.engines import Signal, Simulator, Step, Wait
from spyre_mlir.analysis.inter_tile import ground_delivery
from spyre_mlir.dialects.ktdp import normalized_memory_space
from spyre_mlir.dialects.spyre import RelayoutOp, TensorLayoutOp
from spyre_mlir.superdsc import SuperDsc
from spyre_mlir.target import SPYRE, element_bytes

COMPONENTS = ("compute", "memory", "communication")
"""The three components of a core's time, in the order of every table."""

COMM_COUNTERS = ("ring", "received", "sent")
"""Values of `HardwareConfig.comm_bytes`: which inter-tile byte counter a delivery is charged by."""


# ===========================================================================
# Hardware configuration
# ===========================================================================


@dataclass(frozen=True)
class HardwareConfig:
    """The hardware the cost model assumes (docs/cost-model.md, "Defaults").

    The hardware figures default to the target model's (`spyre_mlir.target.SPYRE`), which are
    ktir-cpu's (`ktir_cpu/latency.py`, `HardwareConfig`); the others are the model's own:

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

    clock_ghz: float = SPYRE.clock_ghz
    hbm_bandwidth_tb_s: float = SPYRE.hbm_bandwidth_tb_s
    hbm_sharing_cores: int = 0
    stick_bytes: int = SPYRE.stick_bytes
    ring_bandwidth_tb_s: float = SPYRE.ring_bandwidth_tb_s
    lx_bandwidth_tb_s: float = SPYRE.lx_bandwidth_tb_s
    simd_elements_per_cycle: int = SPYRE.simd_elements_per_cycle
    systolic_rows: int = SPYRE.systolic_rows
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
) | frozenset(
    "spyreop." + n
    for n in "exp gelu reciprocal rsqrt sigmoid silu sqrt softplus exx2 exx2_fused layernormscale layernormscale_fused layernormnorm slice_reduction".split()
)
"""ktir-cpu's COMPUTE_TRANSCENDENTAL ops (it lists exp, sqrt, rsqrt, log, log2,
log1p, tanh, sin, cos, erf, powf), their siblings, and the SFU intrinsics of
`spyreop` (docs/spyreop.md) that evaluate a function per element."""

FLOAT_ELEMENTWISE = frozenset(
    ["arith." + n for n in "addf subf mulf divf remf negf maximumf minimumf maxnumf minnumf cmpf".split()]
    + ["math." + n for n in "absf ceil floor trunc round roundeven copysign fma".split()]
    + ["spyreop.realdiv"]
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
    + ["spyreop." + n for n in "addi32toi32 addi64toi64 muli32toi32 idx32toaddr".split()]
)
"""ktir-cpu's COMPUTE_INT: free on scalars (index arithmetic), one SIMD pass per element on tensors."""

FREE = {
    "arith.constant": "a compile-time value",
    "spyreop.constant": "a compile-time value",
    "ktdp.construct_memory_view": "computes an address, moves nothing",
    "ktdp.construct_distributed_memory_view": "computes addresses, moves nothing",
    "ktdp.construct_access_tile": "narrows a view; the load or store carries the bytes",
    "ktdp.construct_indirect_access_tile": "the indirect load or store is charged the index reads",
    "ktdp.get_compute_tile_id": "the core's own coordinates",
    "ktdp.runtime_arg_extract": "a launch-time value",
    "ktdp.inter_tile_produce": "publishes a partial; the delivery is charged the transfer",
    TensorLayoutOp.name: "a statement about memory",
    "func.call": "its callee's ops are charged",
    "sdscbundle.sdsc_execute": "runs an SDSC function, whose ops are charged (a SuperDSC: OpCosts.superdsc)",
    "sdscbundle.input_arg_extract": "reads a bundle argument",
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
    "memref.memory_space_cast": "relabels a memref, moves nothing",
    "memref.cast": "relabels a memref, moves nothing",
    "memref.reinterpret_cast": "computes an address, moves nothing",
    "memref.subview": "narrows a memref; the transfer carries the bytes",
    "memref.alloc": "reserves L1; the transfers carry the bytes",
    "memref.alloca": "reserves L1; the transfers carry the bytes",
    "memref.dealloc": "releases L1",
    "memref.load": "one element (like tensor.extract)",
    "memref.store": "one element (like tensor.insert)",
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


SUPERDSC_TRANSCENDENTAL = frozenset("exp log sqrt rsqrt tanh sigmoid gelufwd silufwd reciprocal".split())
"""SuperDSC compute ops (`opFuncName`) priced as transcendental, as their math/spyreop counterparts are."""


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
        itemsize = element_bytes(ty.get_element_type())
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
        if name == RelayoutOp.name:
            moved = self._scaled(self._raw_bytes(fc, op.operands[0]), 2.0)  # read + write
            return Charge("memory", self._scaled(moved, 1.0 / self.config.lx_bytes_per_cycle))
        if name == "memref.copy":  # an on-chip copy between buffers (read + write at the LX rate)
            ty = op.operands[0].type
            shape = ty.get_shape() if isinstance(ty, MemRefType) else (-1,)
            if any(d < 0 for d in shape):
                self.unpriced.add(f"{name} (dynamically shaped)")
                return None
            moved = 2.0 * math.prod(shape) * element_bytes(ty.get_element_type())
            return Charge("memory", moved / self.config.lx_bytes_per_cycle)
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

    def superdsc(self, sdsc: SuperDsc, hbm_bytes: int) -> list[tuple[str, str, float]]:
        """(row name, component, cycles) of one core running torch-spyre SuperDSC `sdsc`
        (docs/superdsc.md) whose cores moved `hbm_bytes` between HBM and LX in all: each compute
        op over the core's work slice by the rules above (sfp: elementwise or transcendental,
        a reduction one pass over its input; pt: a contraction), HBM at the shared rate of its
        cores; LX, as everywhere, free."""
        rows: list[tuple[str, str, float]] = []
        for dsc in sdsc.dscs:
            volume = math.prod(dsc.work_slice.values())
            for op in dsc.compute_ops:
                name = f"superdsc.{op.op_func_name}"
                if op.ex_unit == "pt":
                    cycles = 2.0 * volume / self.config.systolic_flops_per_cycle
                else:
                    penalty = self.config.transcendental_penalty if op.op_func_name in SUPERDSC_TRANSCENDENTAL else 1.0
                    cycles = volume / self.simd * penalty
                rows.append((name, "compute", cycles))
        cores = max(sdsc.num_cores_used, 1)
        if hbm_bytes:
            rows.append(("superdsc.hbm", "memory", hbm_bytes / cores / self.config.hbm_bytes_per_cycle_per_core(cores)))
        return rows

    def static_cycles(self, ops: Iterable[Operation]) -> float:
        """The cycles of one execution of `ops` that the rules price without running them (static
        shapes); an op whose cost depends on run-time shapes counts nothing here."""
        total = 0.0
        for op in ops:
            try:
                charge = self.rule(None, op)
            except Exception:  # noqa: BLE001 - a shape only known at run time: not priced statically
                charge = None
            if charge is not None and not callable(charge.cycles) and charge.cycles:
                total += float(charge.cycles)
        return total

    def _combiner(self, fc, op: Operation, charge: Charge) -> None:
        """The combiner of an inter-tile reduce: each consumer applies it once per
        producer of its group but the first (ktir-cpu's ring: group size - 1 folds),
        whatever the interpreter's fold plan shares between consumers."""
        delivery = ground_delivery(op, self.cores)  # pyright: ignore[reportArgumentType]
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
                itemsize = element_bytes(_element_type(index_view.type))
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
        if any(d < 0 for d in shape):  # a dynamic size (DYNAMIC_INDEX): not sized statically either
            self.unpriced.add(op.name)
            return None
        if _view_space(view) == "lx":
            return None
        moved = stick_bytes(shape, element_bytes(_element_type(view.type)), self.config.stick_bytes)
        return Charge("memory", moved / self.hbm)

    def _raw_bytes(self, fc, value: SSAValue):
        ty = value.type
        if not isinstance(ty, TensorType):
            return 0
        return self._scaled(self._elements(fc, value), float(element_bytes(ty.get_element_type())))

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
        dims = dim_map(op)
        assert dims is not None, op.name  # a verified structured op has one indexing map per operand
        domain = self._domain(fc, op, dims)
        if dims.reductions and _is_contraction(block):
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

    def _domain(self, fc, op: LinalgStructuredOperation, dims: DimMap) -> int | Callable[[list], int]:
        """The number of points of a structured op's iteration domain (its loops' extents, analysis/dim_maps)."""
        operands = (*op.inputs, *op.outputs)
        shapes = [v.type.get_shape() if isinstance(v.type, TensorType | MemRefType) else None for v in operands]
        sizes = dims.extents(shapes)
        if all(s is not None for s in sizes):
            return math.prod(s for s in sizes if s is not None)
        slots = [(fc.slot(v), 1 if fc.is_varying(v) else 0) for v in operands]

        def at_run_time(frame) -> int:
            found = list(sizes)
            for amap, (slot, lead) in zip(dims.operands, slots):
                if amap is None:
                    continue
                shape = np.shape(frame[slot])[lead:]
                for loop, n in zip(loops_of(amap), shape):
                    if loop is not None:
                        found[loop] = n
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


def tile_move_cycles(shape: Sequence[int], itemsize: int, config: HardwareConfig, sites: int) -> float:
    """Cycles of moving a tile of `shape` between HBM and one of `sites` sites (or cores) sharing
    the chip's bandwidth: its bytes in whole sticks per row (`stick_bytes`) over one site's share."""
    return stick_bytes(shape, itemsize, config.stick_bytes) / config.hbm_bytes_per_cycle_per_core(sites)


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
    return isinstance(ty, AnyFloat)


def _view_space(view: SSAValue) -> str:
    """"hbm" or "lx" for a memory view value (HBM when it cannot be told statically, as in ktir-cpu)."""
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
    that goes back, starts a new run. Within a run, stage index k is engine k
    (of `analysis/engines.py`), and stage k of instance i starts at

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
        if run is None or not run.continues(item):
            if run is not None:
                t = run.finish(events)
            if gap > 0:
                events.append(Interval(0, "outside pipelines", t, t + gap))
                t += gap
            run = _Run(item.pipeline, t, item.depth if item.depth is not None else depth)
        elif gap > 0:
            run.outside(gap)
        run.add(item)
        seq = start + item.cycles
    if run is not None:
        t = run.finish(events)
    whole = seq if total is None else float(total)
    tail = max(0.0, whole - seq)
    if tail > 0:
        events.append(Interval(0, "outside pipelines", t, t + tail))
        t += tail
    return t, events


class _Run:
    """One run of a pipeline on one core (`simulate_core`): its stage records as steps of
    engines, stage k of instance i signalling ("data", i, k) to stage k + 1 of instance i
    and ("space", i, k) to stage k - 1 of the instance `depth` + 1 later."""

    def __init__(self, pipeline, start: float, depth: int):
        self.pipeline = pipeline
        self.start = start
        self.cursor = start  # issue time of the next stage
        self.depth = max(1, int(depth))
        self.instances: list[int] = []  # in order of first appearance
        self.placed: set[tuple[int, int]] = set()
        self.programs: dict[int, list] = {}  # engine (stage index) -> its instructions
        self.semaphores: dict[tuple, int] = {}
        self.entries: list[Interval | StageRun] = []  # the timeline, in order: gaps and stages
        self.last: tuple[int, int] | None = None

    def continues(self, item: StageRun) -> bool:
        if item.pipeline is not self.pipeline and item.pipeline != self.pipeline:
            return False
        return self.last is None or (item.instance, item.index) > self.last

    def outside(self, gap: float) -> None:
        """Work outside stages between two records: it delays the issue of the next stage."""
        self.entries.append(Interval(0, "outside stages", self.cursor, self.cursor + gap))
        self.cursor += gap

    def add(self, item: StageRun) -> None:
        i, k = item.instance, item.index
        if not self.instances or self.instances[-1] != i:
            self.instances.append(i)
        back = len(self.instances) - 2 - self.depth
        program = self.programs.setdefault(k, [])
        if (i, k - 1) in self.placed:
            program.append(Wait(("data", i, k - 1)))
        if back >= 0 and (self.instances[back], k + 1) in self.placed:
            program.append(Wait(("space", self.instances[back], k + 1)))
        program.append(Step(len(self.entries), float(item.cycles), not_before=self.cursor))
        program += [Signal(("data", i, k)), Signal(("space", i, k))]
        self.semaphores[("data", i, k)] = self.semaphores[("space", i, k)] = 0
        self.placed.add((i, k))
        self.entries.append(item)
        self.last = (i, k)

    def finish(self, events: list[Interval]) -> float:
        """Simulate the run, append its timeline to `events`; when it ends (its last stage, or the work after)."""
        sim = Simulator(self.semaphores, start=self.start, record=True)
        for k, program in self.programs.items():
            sim.add_engine(k, program)
        spans = {e.step.key: (e.start, e.end) for e in sim.run().events}  # pyright: ignore[reportOptionalIterable]
        for n, entry in enumerate(self.entries):
            if isinstance(entry, Interval):
                events.append(entry)
                continue
            begin, end = spans[n]
            events.append(
                Interval(
                    entry.index + 1,
                    entry.name or f"stage {entry.index}",
                    begin,
                    end,
                    {"instance": entry.instance, "stage": entry.index, "cycles": entry.cycles},
                )
            )
        return max(sim.clock, self.cursor)


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

