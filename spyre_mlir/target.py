"""The target model: the one place that holds the hardware facts.

Every pass, dialect verifier, cost model and the interpreter's runtime asks
here for the number of cores, the LX scratchpad size, the stick size, the
buffer alignment, the memory and engine rates and the clock, and for the
byte width of an element type (`element_bytes`). No other module writes one
of these numbers (test/unit/test_architecture.py checks it).

The default is the Spyre card (`SPYRE`: docs/target.md gives each figure and
where it comes from). A kernel overrides it with a module attribute, a
pipeline or a tool with a file:

    module attributes {spyre.target = {cores = 4 : i64, lx_bytes = 65536 : i64}} { ... }

    spyre-opt --target my-card.json ...      # {"cores": 4, "lx_bytes": 65536}
    PassManager.from_pipeline("ktir-to-bundle", target=load_target("my-card.json"))

A fact not named keeps the default. The file form is flat JSON whose keys are
the field names of `Target`; the public dataflow-scheduler describes a device
as a `ktdf_arch.device` op instead, and `Target` is plain data so that form
can be read into it the same way (`from_mapping`).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import (
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation

from spyre_mlir.dialects.spyre import TARGET_ATTR


class TargetError(ValueError):
    """A target description that cannot be used: an unknown fact, a value of the wrong kind or out of range,
    an unreadable file, or an element type without a byte width. The message names what and where."""


@dataclass(frozen=True)
class Target:
    """The hardware a kernel is compiled for and run on. All sizes are bytes."""

    name: str = "spyre"
    cores: int = 32
    """Cores of the chip; a kernel's grid is spread over them."""
    lx_bytes: int = 2 * 1024 * 1024
    """LX scratchpad of one core."""
    stick_bytes: int = 128
    """One stick: the unit of HBM transfers and of the device layouts' innermost dim."""
    alignment_bytes: int = 128
    """Where buffers start, in HBM and in LX (one stick)."""
    index_bytes: int = 8
    """An `index` element in memory."""
    clock_ghz: float = 1.0
    """Core clock: cycles per nanosecond."""
    hbm_bandwidth_tb_s: float = 0.128
    """HBM bandwidth of the whole chip (128 bytes a cycle at 1 GHz)."""
    ring_bandwidth_tb_s: float = 0.064
    """The inter-core ring, one direction."""
    lx_bandwidth_tb_s: float = 0.064
    """On-chip LX traffic (relayouts)."""
    simd_elements_per_cycle: int = 64
    """SIMD throughput: one stick of f16 a cycle."""
    systolic_rows: int = 8
    """Rows of the systolic array (2 x simd x rows flops a cycle)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "name":
                if not isinstance(value, str) or not value:
                    raise TargetError(f"target fact 'name' must be a non-empty string, not {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TargetError(f"target fact '{f.name}' must be a number, not {value!r}")
            if f.type == "int":
                if value != int(value):
                    raise TargetError(f"target fact '{f.name}' must be an integer, not {value!r}")
                object.__setattr__(self, f.name, int(value))
            if not math.isfinite(value) or value <= 0:
                raise TargetError(f"target fact '{f.name}' must be positive, not {value!r}")

    # -- element widths -------------------------------------------------------

    def element_bytes(self, elem: Attribute) -> int:
        """Bytes one element of type `elem` occupies in memory: `index` is `index_bytes`, an integer or
        float of w bits is ceil(w / 8) bytes (i1 takes a byte). Anything else is a `TargetError`."""
        if isinstance(elem, IndexType):
            return self.index_bytes
        if isinstance(elem, IntegerType):
            return max(1, (elem.width.data + 7) // 8)
        bits = getattr(elem, "bitwidth", None)
        if isinstance(bits, int) and bits > 0:
            return (bits + 7) // 8
        raise TargetError(f"no byte width for element type {elem}")

    def stick_elements(self, elem: Attribute) -> int:
        """Elements of type `elem` in one stick (64 for f16, 32 for f32)."""
        return max(1, self.stick_bytes // self.element_bytes(elem))

    def align(self, n: int) -> int:
        """`n` rounded up to `alignment_bytes`."""
        return -(-n // self.alignment_bytes) * self.alignment_bytes

    # -- derived rates --------------------------------------------------------

    def bytes_per_cycle(self, tb_s: float) -> float:
        """A bandwidth in TB/s as bytes per clock cycle."""
        return tb_s * 1e12 / (self.clock_ghz * 1e9)

    # -- construction ---------------------------------------------------------

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    def replace(self, **changes: Any) -> Target:
        """A copy with `changes`; an unknown fact is a `TargetError` naming the known ones."""
        unknown = sorted(set(changes) - set(self.keys()))
        if unknown:
            raise TargetError(
                f"unknown target fact{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(self.keys())})"
            )
        return dataclasses.replace(self, **changes)

    def from_mapping(self, facts: Mapping[str, Any]) -> Target:
        """This target with the facts of `facts` (plain Python values) replaced."""
        return self.replace(**dict(facts))

    def to_attr(self) -> DictionaryAttr:
        """The facts that differ from `SPYRE`, as a `spyre.target` dictionary attribute."""
        entries: dict[str, Attribute] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value == getattr(SPYRE, f.name):
                continue
            if isinstance(value, str):
                entries[f.name] = StringAttr(value)
            elif isinstance(value, int):
                entries[f.name] = IntegerAttr(value, 64)
            else:
                entries[f.name] = FloatAttr(value, 64)
        return DictionaryAttr(entries)


SPYRE = Target()
"""The default target: one Spyre card (docs/target.md)."""


def element_bytes(elem: Attribute, target: Target = SPYRE) -> int:
    """Bytes of one element of type `elem` (see `Target.element_bytes`)."""
    return target.element_bytes(elem)


def _attr_value(name: str, attr: Attribute) -> Any:
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.value.data
    raise TargetError(f"{TARGET_ATTR} fact '{name}' must be an integer, float or string attribute, not {attr}")


def facts_of_attr(attr: Attribute) -> dict[str, Any]:
    """The facts a `spyre.target` attribute names (plain Python values)."""
    if not isinstance(attr, DictionaryAttr):
        raise TargetError(f"{TARGET_ATTR} must be a dictionary attribute, not {attr}")
    return {name: _attr_value(name, value) for name, value in attr.data.items()}


def target_of(op: Operation) -> Target:
    """The target of the module that holds `op`: `SPYRE` with the facts of the nearest `spyre.target`
    attribute on `op` or a module around it (inner modules override outer ones)."""
    chain: list[Operation] = []
    cur: Operation | None = op
    while cur is not None:
        if isinstance(cur, ModuleOp) and TARGET_ATTR in cur.attributes:
            chain.append(cur)
        cur = cur.parent_op()
    target = SPYRE
    for module in reversed(chain):
        target = target.from_mapping(facts_of_attr(module.attributes[TARGET_ATTR]))
    return target


def set_target(module: ModuleOp, target: Target) -> None:
    """Record `target` on `module` (only the facts that differ from the default; none: the attribute goes)."""
    attr = target.to_attr()
    if attr.data:
        module.attributes[TARGET_ATTR] = attr
    else:
        module.attributes.pop(TARGET_ATTR, None)


def load_target(path: str | Path, base: Target = SPYRE) -> Target:
    """A target from a JSON file of facts (`{"cores": 4}`); a bad file is a `TargetError` naming it."""
    try:
        facts = json.loads(Path(path).read_text())
    except OSError as exc:
        raise TargetError(f"cannot read target file '{path}': {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise TargetError(f"{path}:{exc.lineno}:{exc.colno}: target file is not JSON: {exc.msg}") from None
    if not isinstance(facts, dict):
        raise TargetError(f"{path}: a target file is a JSON object of facts, e.g. {{\"cores\": 4}}")
    try:
        return base.from_mapping(facts)
    except TargetError as exc:
        raise TargetError(f"{path}: {exc}") from None


__all__ = [
    "SPYRE",
    "TARGET_ATTR",
    "Target",
    "TargetError",
    "element_bytes",
    "facts_of_attr",
    "load_target",
    "set_target",
    "target_of",
]
