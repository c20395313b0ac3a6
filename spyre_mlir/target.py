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
the field names of `Target`.

A `ktdf_arch.device` (dataflow-scheduler's device model) declared in the
module, or given as `--device FILE` / `PassManager(device=FILE)`, is the
target too: `device_facts` reads the facts it states (LX size and core count
from its core-local memories, the stick and the alignment from its HBM
datapaths, the SIMD lanes from its compute units; docs/target.md), and a
`spyre.target` fact that contradicts one of them is a located error. Spyre
itself is written as such a device, `SPYRE_DEVICE_FILE`, which states
exactly `SPYRE`'s facts (a test checks it): the numbers live here only.

A device declared in the module is read when a fact it may state is first
asked for (`DEVICE_STATED_FACTS`), not before: a pass that asks none runs on
a module whose device cannot be read, and one that asks gets a located
`DeviceFactError` at the declaration naming the fact. `--device FILE` is
read, and compared with `--target`, before the first pass.
"""

from __future__ import annotations

import dataclasses
import json
import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
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
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation

from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.spyre import TARGET_ATTR


class TargetError(ValueError):
    """A target description that cannot be used: an unknown fact, a value of the wrong kind or out of range,
    an unreadable file, or an element type without a byte width. The message names what and where."""


class DeviceFactError(DiagnosticError):
    """The module's device, read when a fact was first needed, cannot be read or contradicts a
    `spyre.target` fact: the user's error, located at the device, wherever the fact was asked for
    (a pass, a verifier, the interpreter), never a bug of the asker."""


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

    stated: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """The facts given explicitly (by a file, an attribute or a device), not kept from the default:
    `set_target` records them even where they equal Spyre's, so that a contradiction shows."""

    def __post_init__(self) -> None:
        for f in _fact_fields():
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
        return [f.name for f in _fact_fields()]

    def replace(self, **changes: Any) -> Target:
        """A copy with `changes`; an unknown fact is a `TargetError` naming the known ones."""
        unknown = sorted(set(changes) - set(self.keys()))
        if unknown:
            raise TargetError(
                f"unknown target fact{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                f"(known: {', '.join(self.keys())})"
            )
        return dataclasses.replace(self, **changes, stated=self.stated | frozenset(changes))

    def from_mapping(self, facts: Mapping[str, Any]) -> Target:
        """This target with the facts of `facts` (plain Python values) replaced."""
        return self.replace(**dict(facts))

    def to_attr(self) -> DictionaryAttr:
        """The facts that differ from `SPYRE` or were given explicitly (`stated`), as a `spyre.target`
        dictionary attribute."""
        return DictionaryAttr({
            f.name: _fact_attr(getattr(self, f.name))
            for f in _fact_fields()
            if getattr(self, f.name) != getattr(SPYRE, f.name) or f.name in self.stated
        })


def _fact_fields() -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(Target) if f.name != "stated"]


def _fact_attr(value: Any) -> Attribute:
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, int):
        return IntegerAttr(value, 64)
    return FloatAttr(value, 64)


SPYRE = Target()
"""The default target: one Spyre card (docs/target.md)."""

SPYRE_DEVICE_FILE = Path(__file__).resolve().parent / "devices" / "spyre.mlir"
"""`SPYRE` written as a `ktdf_arch.device` (data: test/unit/test_target.py checks that the two agree)."""


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
    """The target of the module that holds `op`: `SPYRE`, with the facts its `ktdf_arch.device` states
    (`device_facts`; the device of the nearest module that declares one, or the one an enclosing op's
    `ktdf_arch.maps_to` names), then the facts of the `spyre.target` attributes on `op` or the modules
    around it (inner modules override outer ones). A `spyre.target` fact that contradicts the device
    is a located error at the device, never a choice between them.

    The `spyre.target` attributes are read here (a bad one is a `TargetError`); the device is read
    only when a fact it may state (`DEVICE_STATED_FACTS`) is first asked for, so a pass that reads
    no such fact runs on a module whose device cannot be read (dataflow-scheduler's tests import
    devices their files lack). A device that cannot be read is then a located error at its
    declaration that names the fact which needed it."""
    chain: list[Operation] = []
    cur: Operation | None = op
    while cur is not None:
        if isinstance(cur, ModuleOp) and TARGET_ATTR in cur.attributes:
            chain.append(cur)
        cur = cur.parent_op()
    given = [facts_of_attr(module.attributes[TARGET_ATTR]) for module in reversed(chain)]
    target = SPYRE
    for facts in given:
        target = target.from_mapping(facts)
    device = device_of(op)
    if device is None:
        return target
    return _PendingDevice.of(target, device, given)


def read_device(target: Target) -> Target:
    """`target` (a `target_of` answer) with its device read now: the device's facts derived and
    checked against the `spyre.target` facts, each failure a located error (as when a fact is read)."""
    if isinstance(target, _PendingDevice):
        _resolve(target, None)
    return target


def _device_target(device: Operation, given: list[dict[str, Any]]) -> Target:
    """`SPYRE` with `device`'s facts, then the `spyre.target` facts `given` (outer first), each checked
    to agree with the device."""
    stated = device_facts(device)
    target = SPYRE.from_mapping(stated)
    for facts in given:
        _check_agreement(device, stated, facts, f"{TARGET_ATTR} (the module's, or --target's)")
        target = target.from_mapping(facts)
    return target


class _PendingDevice(Target):
    """`target_of`'s answer for a module with a device not yet read: the facts no device states are
    there already; the first read of one a device may state (or of the whole target: equality,
    `replace`, `to_attr`) reads the device, after which the object is a plain `Target`."""

    _device: Operation
    _given: list[dict[str, Any]]

    @classmethod
    def of(cls, target: Target, device: Operation, given: list[dict[str, Any]]) -> Target:
        pending = object.__new__(cls)
        for name, value in vars(target).items():
            object.__setattr__(pending, name, value)
        object.__setattr__(pending, "_device", device)
        object.__setattr__(pending, "_given", given)
        return pending

    def __getattribute__(self, name: str) -> Any:
        if name in _RESOLVING:
            _resolve(self, name)
        return object.__getattribute__(self, name)

    def replace(self, **changes: Any) -> Target:
        _resolve(self, None)
        return self.replace(**changes)

    def to_attr(self) -> DictionaryAttr:
        _resolve(self, None)
        return self.to_attr()

    def __eq__(self, other: object) -> bool:
        _resolve(self, None)
        return self == other

    def __hash__(self) -> int:
        _resolve(self, None)
        return hash(self)

    def __repr__(self) -> str:
        device = object.__getattribute__(self, "_device")
        return f"Target(<the facts of device @{device.properties['sym_name'].data}, not read yet>)"


def _resolve(pending: _PendingDevice, fact: str | None) -> None:
    """Read `pending`'s device and become the plain `Target` it describes. A device that cannot be
    read is a located `DeviceFactError` naming `fact` (None: the whole target) as what needed it;
    a contradiction with `spyre.target` is one naming the facts."""
    device = object.__getattribute__(pending, "_device")
    given = object.__getattribute__(pending, "_given")
    try:
        device_facts(device)
    except DiagnosticError as exc:
        needed = f"target fact '{fact}'" if fact is not None else "the target's facts"
        message = f"{exc.diagnostic.message} (needed for {needed})"
        raise DeviceFactError(dataclasses.replace(exc.diagnostic, message=message)) from None
    try:
        resolved = _device_target(device, given)
    except DiagnosticError as exc:
        raise DeviceFactError(exc.diagnostic) from None
    state = vars(pending)
    state.clear()
    state.update(vars(resolved))
    object.__setattr__(pending, "__class__", Target)


def set_target(module: ModuleOp, target: Target) -> None:
    """Record `target` on `module`: the facts that differ from the default or were stated, but those
    the module's device states alike (none: the attribute goes; a device that cannot be read states
    none here: the error comes when a pass needs one of its facts)."""
    device = device_of(module)
    try:
        from_device = device_facts(device) if device is not None else {}
    except DiagnosticError:  # reported when a fact is needed (target_of)
        from_device = {}
    entries = {
        name: value for name, value in target.to_attr().data.items()
        if not (name in from_device and _fact_attr(from_device[name]) == value)
    }
    if entries:
        module.attributes[TARGET_ATTR] = DictionaryAttr(entries)
    else:
        module.attributes.pop(TARGET_ATTR, None)


# -- a ktdf_arch.device as the target ---------------------------------------------
#
# Which device field sets which fact (docs/target.md has the table and the why):
#   lx_bytes     the `size` of the core-local memory (the kind `mem_space_mapping`
#                gives `#ktdp.memory_space<ct_local>`, else the one kind of memory
#                declared directly in the device's top-level groups)
#   cores        how many memories of that kind the device declares (one per core)
#   stick_bytes  the largest `ktdf_arch.transfer_granularity` of the datapaths
#                to and from the global memory (HBM transfers)
#   alignment_bytes  word_size x align_in_words of the load/store features for
#                the global memory, on the units of those datapaths
#   simd_elements_per_cycle  the f16 `lanes` of the compute units' simd feature
#   name         the device's symbol name

DEVICE_OP = "ktdf_arch.device"
DEVICE_STATED_FACTS = frozenset({"name", "lx_bytes", "cores", "stick_bytes", "alignment_bytes", "simd_elements_per_cycle"})
"""The facts a device may state (the table above): reading one of them reads the device."""
_RESOLVING = DEVICE_STATED_FACTS | {"stated"}
_DEVICE_FACTS: weakref.WeakKeyDictionary[Operation, dict[str, Any]] = weakref.WeakKeyDictionary()


def device_of(op: Operation) -> Operation | None:
    """The `ktdf_arch.device` declaration that is `op`'s target, or None: the device an enclosing op's
    `ktdf_arch.maps_to` names, else the one declared in the nearest module that declares any
    (two there and no `maps_to`: none, as upstream's `findDeviceDeclarationFor`), else the one
    declared in a module of the outermost module (a program of sibling modules)."""
    cur: Operation | None = op
    outermost: ModuleOp | None = None
    while cur is not None:
        maps_to = cur.attributes.get("ktdf_arch.maps_to")
        if isinstance(maps_to, SymbolRefAttr) and not maps_to.nested_references.data:
            named = _declared_device(cur, maps_to.root_reference.data)
            if named is not None:
                return named
        if isinstance(cur, ModuleOp):
            outermost = cur
            devices = [d for d in cur.body.block.ops if d.name == DEVICE_OP]
            if devices:
                # Several, and no maps_to: none is the target (upstream's findDeviceDeclarationFor).
                return devices[0] if len(devices) == 1 else None
        cur = cur.parent_op()
    # A program of sibling modules (ktdp-extract-compute-groups puts the kernel's module beside its
    # groups' modules): the one device declared in one of them is the program's.
    if outermost is None:
        return None
    nested = [d for m in outermost.body.block.ops if isinstance(m, ModuleOp) for d in m.body.block.ops if d.name == DEVICE_OP]
    return nested[0] if len(nested) == 1 else None


def _declared_device(op: Operation, name: str) -> Operation | None:
    cur: Operation | None = op
    while cur is not None:
        if isinstance(cur, ModuleOp):
            for d in cur.body.block.ops:
                if d.name == DEVICE_OP and d.properties.get("sym_name") == StringAttr(name):
                    return d
        cur = cur.parent_op()
    return None


def device_facts(declaration: Operation) -> dict[str, Any]:
    """The target facts a `ktdf_arch.device` states (plain values, keyed as `Target`'s fields), its
    import read if it is one. A device that cannot be read, or lacks what a fact needs, or states
    a fact two ways, is a located error (`DiagnosticError`) at the declaration."""
    cached = _DEVICE_FACTS.get(declaration)
    if cached is not None:
        return dict(cached)
    from spyre_mlir.diagnostics import error
    from spyre_mlir.dialects.ktdf_arch import DeviceImportError, DeviceOp, import_device

    assert isinstance(declaration, DeviceOp)
    try:
        definition = import_device(declaration)
    except DeviceImportError as exc:
        raise error(exc.op or declaration, f"'{DEVICE_OP}' op {exc}") from None
    try:
        facts = _facts_of_definition(definition)
    except TargetError as exc:
        raise error(declaration, f"'{DEVICE_OP}' op @{declaration.device_name}: {exc}") from None
    _DEVICE_FACTS[declaration] = facts
    return dict(facts)


def _facts_of_definition(device) -> dict[str, Any]:
    from spyre_mlir.dialects.ktdf_arch import MEM_SPACE_MAPPING, MapAttr, MemoryOp

    mapping = device.attributes.get(MEM_SPACE_MAPPING)
    if mapping is not None and not isinstance(mapping, MapAttr):
        raise TargetError(f"'{MEM_SPACE_MAPPING}' must be a #ktdf_arch.map from memory spaces to memory kinds")
    memories = [op for op in device.walk() if isinstance(op, MemoryOp)]
    local_kind = _mapped_kind(mapping, "ct_local", memories) or _core_local_kind(device, memories)
    global_kind = _mapped_kind(mapping, "global", memories) or _global_kind(device)
    local = [m for m in memories if m.kind == local_kind]
    sizes = sorted({m.size_bytes for m in local if m.size_bytes is not None})
    if not sizes:
        raise TargetError(f"the core-local memory (kind {local_kind}) has no 'size': it sets lx_bytes")
    if len(sizes) > 1 or any(m.size_bytes is None for m in local):
        raise TargetError(
            f"the core-local memories (kind {local_kind}) differ in size ({', '.join(map(str, sizes))}, "
            f"or none): one lx_bytes"
        )
    facts: dict[str, Any] = {"name": device.device_name, "lx_bytes": sizes[0], "cores": len(local)}
    if global_kind is not None:
        facts.update(_global_transfer_facts(device, global_kind))
    lanes = _f16_lanes(device)
    if lanes is not None:
        facts["simd_elements_per_cycle"] = lanes
    return facts


def _mapped_kind(mapping, space: str, memories) -> Attribute | None:
    """The memory kind `mem_space_mapping` gives `#ktdp.memory_space<space>` (or the older
    `#ktdp.spyre_memory_space` spelling of it), checked to name a memory of the device."""
    if mapping is None:
        return None
    for key, kind in mapping.entries:
        as_space = getattr(key, "as_memory_space", None)
        key = as_space() if callable(as_space) else key
        if key.name != "ktdp.memory_space" or getattr(key, "kind", None) != StringAttr(space):
            continue
        if not any(m.kind == kind for m in memories):
            raise TargetError(f"mem_space_mapping maps {key} to kind {kind}, but no memory of the device has that kind")
        return kind
    return None


def _kinds(ops) -> list[Attribute]:
    kinds: list[Attribute] = []
    for op in ops:
        if op.kind is not None and op.kind not in kinds:
            kinds.append(op.kind)
    return kinds


def _core_local_kind(device, memories) -> Attribute:
    """Without a mapping: the one kind of memory declared directly in the device's top-level groups
    (the memory private to a core)."""
    from spyre_mlir.dialects.ktdf_arch import GroupOp, MemoryOp

    groups = [op for op in device.body.block.ops if isinstance(op, GroupOp)] if device.body.blocks else []
    kinds = _kinds(op for g in groups for op in g.block.ops if isinstance(op, MemoryOp))
    if len(kinds) == 1:
        return kinds[0]
    spelled = ", ".join(str(k) for k in kinds)
    raise TargetError(
        ("no memory is declared in a top-level group (a core's private memory)" if not kinds
         else f"the top-level groups declare memories of several kinds ({spelled})")
        + ": name the core-local one with mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<ct_local> = KIND>"
    )


def _global_kind(device) -> Attribute | None:
    """Without a mapping: the one kind of memory declared at the device's top level, if one."""
    from spyre_mlir.dialects.ktdf_arch import MemoryOp

    if not device.body.blocks:
        return None
    kinds = _kinds(op for op in device.body.block.ops if isinstance(op, MemoryOp))
    return kinds[0] if len(kinds) == 1 else None


def _global_transfer_facts(device, global_kind: Attribute) -> dict[str, Any]:
    """stick_bytes and alignment_bytes from the datapaths to and from the global memory."""
    from spyre_mlir.dialects.ktdf_arch import (
        FEATURE_LOAD,
        FEATURE_STORE,
        TRANSFER_GRANULARITY,
        DatapathOp,
        exec_unit_of,
        features_of,
        memory_of,
    )

    facts: dict[str, Any] = {}
    granularities: dict[tuple[int, ...], DatapathOp] = {}
    units = []
    for path in (op for op in device.walk() if isinstance(op, DatapathOp)):
        ends = [(memory_of(v), v) for v in (path.source, path.target)]
        if not any(m is not None and m.kind == global_kind for m, _ in ends):
            continue
        units += [u for m, v in ends if m is None for u in exec_unit_of(v)]
        value = path.attributes.get(TRANSFER_GRANULARITY)
        if value is not None:
            granularities.setdefault(tuple(value.get_values()), path)  # pyright: ignore[reportAttributeAccessIssue]
    if len(granularities) > 1:
        spelled = "; ".join(f"[{', '.join(map(str, g))}]" for g in granularities)
        raise TargetError(f"the datapaths of the global memory (kind {global_kind}) differ in transfer granularity ({spelled}): one stick_bytes")
    if granularities:
        facts["stick_bytes"] = max(next(iter(granularities)))
    alignments: set[int] = set()
    for unit in units:
        for name, record in features_of(unit).items():
            if name not in (FEATURE_LOAD, FEATURE_STORE):
                continue
            accesses = _map_get(record.data.get("access_granularity"), global_kind)
            if accesses is None:
                continue
            word = _map_get(record.data.get("word_size"), global_kind)
            word_bytes = word.value.data if word is not None else 1  # pyright: ignore[reportAttributeAccessIssue]
            align_words = max((a.data["align_in_words"].value.data if "align_in_words" in a.data else 1) for a in accesses)
            alignments.add(word_bytes * align_words)
    if len(alignments) > 1:
        raise TargetError(
            f"the load/store units of the global memory (kind {global_kind}) differ in alignment "
            f"({', '.join(map(str, sorted(alignments)))} bytes): one alignment_bytes"
        )
    if alignments:
        facts["alignment_bytes"] = alignments.pop()
    return facts


def _map_get(mapping: Attribute | None, key: Attribute) -> Any:
    get = getattr(mapping, "get", None)
    return get(key) if callable(get) else None


def _f16_lanes(device) -> int | None:
    """The f16 lanes of the compute units' `ktdf_arch.feature.simd` (all alike), if any says."""
    from xdsl.dialects.builtin import Float16Type

    from spyre_mlir.dialects.ktdf_arch import FEATURE_COMPUTE, FEATURE_SIMD, ExecutionUnitOp, features_of

    lanes: set[int] = set()
    for unit in (op for op in device.walk() if isinstance(op, ExecutionUnitOp)):
        features = features_of(unit)
        if FEATURE_COMPUTE not in features or FEATURE_SIMD not in features:
            continue
        count = _map_get(features[FEATURE_SIMD].data.get("lanes"), Float16Type())
        if count is not None:
            lanes.add(count.value.data)
    if len(lanes) > 1:
        raise TargetError(f"the compute units differ in f16 SIMD lanes ({', '.join(map(str, sorted(lanes)))})")
    return lanes.pop() if lanes else None


def _check_agreement(device: Operation, stated: Mapping[str, Any], facts: Mapping[str, Any], source: str) -> None:
    """A fact `source` gives that the device states otherwise: a located error at the device."""
    from spyre_mlir.diagnostics import error

    clashes = [
        f"{name} is {stated[name]} on the device, {value} there"
        for name, value in facts.items()
        if name in stated and name != "name" and stated[name] != value
    ]
    if clashes:
        name = device.properties.get("sym_name")
        raise error(
            device,
            f"'{DEVICE_OP}' op @{name.data if isinstance(name, StringAttr) else '?'} and {source} disagree: "
            + "; ".join(clashes),
        )


def load_device(path: str | Path) -> Operation:
    """The one device of the MLIR file `path`, read and verified; a bad file is a `TargetError` naming it."""
    from spyre_mlir.dialects.ktdf_arch import DeviceImportError, read_device_file

    try:
        return read_device_file(path)
    except DeviceImportError as exc:
        raise TargetError(f"cannot use device file '{path}': {exc}") from None


def attach_device(module: ModuleOp, path: str | Path) -> None:
    """Make the device of file `path` `module`'s target: a `ktdf_arch.device @name import("<absolute
    path>")` declaration at the top of the module (kept in the output, so a later reader sees the same
    target). A module that declares its own device keeps it when the two state the same facts; when
    they disagree it is a located error at the module's device."""
    import os

    from spyre_mlir.dialects.ktdf_arch import DeviceOp

    device = load_device(path)
    facts = _file_device_facts(device)
    existing = device_of(module)
    if existing is not None:
        try:
            stated = device_facts(existing)
        except DiagnosticError as exc:
            message = f"{exc.diagnostic.message} (needed to compare it with --device {path})"
            raise DiagnosticError(dataclasses.replace(exc.diagnostic, message=message)) from None
        _check_agreement(existing, stated, {k: v for k, v in facts.items() if k != "name"}, f"--device {path}")
        return
    declaration = DeviceOp(device.device_name, import_path=os.path.abspath(path))
    declaration.location = device.location  # errors about it point at the device in its file
    block = module.body.block
    if block.first_op is None:
        block.add_op(declaration)
    else:
        block.insert_op_before(declaration, block.first_op)
    _DEVICE_FACTS[declaration] = facts


def _file_device_facts(definition: Operation) -> dict[str, Any]:
    try:
        return _facts_of_definition(definition)
    except TargetError as exc:
        raise TargetError(f"device @{definition.device_name}: {exc}") from None  # pyright: ignore[reportAttributeAccessIssue]


def device_target(path: str | Path, base: Target = SPYRE) -> Target:
    """The target the device of file `path` describes (`base` for the facts it does not state)."""
    return base.from_mapping(_file_device_facts(load_device(path)))


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
    "SPYRE_DEVICE_FILE",
    "TARGET_ATTR",
    "attach_device",
    "DEVICE_STATED_FACTS",
    "DeviceFactError",
    "device_facts",
    "device_of",
    "device_target",
    "load_device",
    "read_device",
    "Target",
    "TargetError",
    "element_bytes",
    "facts_of_attr",
    "load_target",
    "set_target",
    "target_of",
]
