"""The `ktdf_arch` dialect: dataflow-scheduler's device model.

A `ktdf_arch.device` describes an accelerator as a graph: memories
(`ktdf_arch.memory`), execution units (`ktdf_arch.exec_unit`) and switches
(`ktdf_arch.switch`) linked by datapaths (`ktdf_arch.datapath`), with
`ktdf_arch.group`s marking what is private to a core or a sub-core, and
`ktdf_arch.patterns` holding device-specific PDL rewrites. A device is
written inline or declared by `import("path")`, the path relative to the
file that declares it (`import_device` reads it).

Names, custom syntax and verifier rules are upstream's
(../shared/corpus/dataflow-scheduler/dialects/KTDFArch/*.td), also the
intrinsic attributes (`ktdf_arch.features`, `ktdf_arch.transfer_granularity`,
`ktdf_arch.bandwidth`, `ktdf_arch.maps_to`, `ktdf_arch.overlaps`, and the
features `ktdf_arch.feature.{compute,load,simd,store,queue}`). What the
compiler reads from a device (the target facts) is in spyre_mlir/target.py;
docs/ktdf_arch.md lists the syntax and where we differ.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    BaseAttr,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from spyre_mlir.diagnostics import NotedRegionVerifyException, NotedVerifyException
from spyre_mlir.dialects.format_helpers import print_attrs_sorted, split_props

# ===========================================================================
# Types
# ===========================================================================


@irdl_attr_definition
class MemoryType(ParametrizedAttribute, TypeAttribute):
    """`!ktdf_arch.memory`: a memory resource."""

    name = "ktdf_arch.memory"


@irdl_attr_definition
class ExecutionUnitType(ParametrizedAttribute, TypeAttribute):
    """`!ktdf_arch.exec_unit`: an execution unit resource."""

    name = "ktdf_arch.exec_unit"


@irdl_attr_definition
class PortType(ParametrizedAttribute, TypeAttribute):
    """`!ktdf_arch.port`: a port of a switch."""

    name = "ktdf_arch.port"


EndpointType = AnyOf((BaseAttr(MemoryType), BaseAttr(ExecutionUnitType), BaseAttr(PortType)))

SHORT_TYPES: dict[str, type[ParametrizedAttribute]] = {
    "memory": MemoryType,
    "exec_unit": ExecutionUnitType,
    "port": PortType,
}
"""Type mnemonics an op's type list may write without `!ktdf_arch.` (upstream's `custom<ShortType>`)."""


def _parse_short_type(parser: Parser) -> Attribute:
    keyword = parser.parse_optional_keyword_in(tuple(SHORT_TYPES))
    if keyword is not None:
        return SHORT_TYPES[keyword]()
    return parser.parse_type()


def _print_short_type(printer: Printer, type_: Attribute) -> None:
    if isinstance(type_, MemoryType | ExecutionUnitType | PortType):
        printer.print_string(type_.name.split(".", 1)[1])
    else:
        printer.print_attribute(type_)


# ===========================================================================
# Attributes
# ===========================================================================


@irdl_attr_definition
class MapAttr(ParametrizedAttribute):
    """`#ktdf_arch.map<k0 = v0, k1 = v1>`: an ordered map between arbitrary
    attributes (types included); a key may appear once."""

    name = "ktdf_arch.map"

    keys: ArrayAttr[Attribute]
    values: ArrayAttr[Attribute]

    def __init__(self, entries: Sequence[tuple[Attribute, Attribute]] = ()):
        super().__init__(ArrayAttr([k for k, _ in entries]), ArrayAttr([v for _, v in entries]))

    @property
    def entries(self) -> list[tuple[Attribute, Attribute]]:
        return list(zip(self.keys.data, self.values.data))

    def get(self, key: Attribute) -> Attribute | None:
        """The value `key` maps to (linear scan, as upstream), else None."""
        for k, v in zip(self.keys.data, self.values.data):
            if k == key:
                return v
        return None

    def __len__(self) -> int:
        return len(self.keys.data)

    def verify(self) -> None:
        if len(self.keys.data) != len(self.values.data):
            raise VerifyException("#ktdf_arch.map has as many keys as values")
        seen: list[Attribute] = []
        for key in self.keys.data:
            if key in seen:
                raise VerifyException(f"#ktdf_arch.map maps key {key} more than once")
            seen.append(key)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def entry() -> tuple[Attribute, Attribute]:
            key = parser.parse_attribute()
            parser.parse_punctuation("=")
            return key, parser.parse_attribute()

        entries = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, entry)
        return ArrayAttr([k for k, _ in entries]), ArrayAttr([v for _, v in entries])

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            for i, (key, value) in enumerate(self.entries):
                if i:
                    printer.print_string(", ")
                printer.print_attribute(key)
                printer.print_string(" = ")
                printer.print_attribute(value)


# ===========================================================================
# Intrinsic attributes: `ktdf_arch.<property>` and `ktdf_arch.feature.<name>`
# ===========================================================================

BANDWIDTH = "ktdf_arch.bandwidth"
FEATURES = "ktdf_arch.features"
MAPS_TO = "ktdf_arch.maps_to"
OVERLAPS = "ktdf_arch.overlaps"
TRANSFER_GRANULARITY = "ktdf_arch.transfer_granularity"

FEATURE_COMPUTE = "ktdf_arch.feature.compute"
FEATURE_LOAD = "ktdf_arch.feature.load"
FEATURE_SIMD = "ktdf_arch.feature.simd"
FEATURE_STORE = "ktdf_arch.feature.store"
FEATURE_QUEUE = "ktdf_arch.feature.queue"
FEATURE_PREFIX = "ktdf_arch.feature."

MEM_SPACE_MAPPING = "mem_space_mapping"
"""The device attribute mapping the memory spaces of memrefs to memory kinds
(`#ktdf_arch.map<#ktdp.memory_space<global> = "DDR", ...>`), as upstream's tests write it."""


def _is_i64(attr: Attribute | None) -> bool:
    return isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and attr.type.width.data == 64


def _int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _intrinsic_error(name: str, message: str) -> VerifyException:
    return VerifyException(f"'{name}' intrinsic {message}")


def _only_on(op: Operation, name: str, *classes: type[Operation]) -> None:
    if not isinstance(op, classes):
        where = ", ".join(c.name.split(".", 1)[1] for c in classes)  # pyright: ignore[reportAttributeAccessIssue]
        raise _intrinsic_error(name, f"only valid on {where}")


def _verify_bandwidth(op: Operation, name: str, value: Attribute) -> None:
    _only_on(op, name, DatapathOp)
    if not _is_i64(value):
        raise _intrinsic_error(name, "requires 64-bit integer attribute")
    if _int(value) <= 0:
        raise _intrinsic_error(name, "value must be > 0")


def _verify_features(op: Operation, name: str, value: Attribute) -> None:
    if not isinstance(value, DictionaryAttr):
        raise _intrinsic_error(name, "requires dictionary attribute")
    for feature, feature_value in value.data.items():
        if not feature.startswith("ktdf_arch."):
            continue  # another dialect's feature: that dialect's to check
        verifier = FEATURE_VERIFIERS.get(feature)
        if verifier is None:
            raise VerifyException(
                f"unrecognized 'ktdf_arch' feature: {feature} (expected one of: {', '.join(FEATURE_VERIFIERS)})"
            )
        verifier(op, feature, feature_value)


def _verify_maps_to(op: Operation, name: str, value: Attribute) -> None:
    if op.dialect_name() == "ktdf_arch":
        raise _intrinsic_error(name, "only valid on mappable ops")


def _verify_overlaps(op: Operation, name: str, value: Attribute) -> None:
    if not isinstance(value, ArrayAttr):
        raise _intrinsic_error(name, "requires array attribute")


def _verify_transfer_granularity(op: Operation, name: str, value: Attribute) -> None:
    _only_on(op, name, DatapathOp)
    if not (isinstance(value, DenseArrayBase) and value.elt_type == i64):
        raise _intrinsic_error(name, "requires dense 64-bit integer array attribute")
    seen: set[int] = set()
    for size in value.get_values():
        if size <= 0:
            raise _intrinsic_error(name, "granularity must be > 0")
        if size in seen:
            raise _intrinsic_error(name, f"repeated granularity ({size})")
        seen.add(size)


PROPERTY_VERIFIERS: dict[str, Callable[[Operation, str, Attribute], None]] = {
    BANDWIDTH: _verify_bandwidth,
    FEATURES: _verify_features,
    MAPS_TO: _verify_maps_to,
    OVERLAPS: _verify_overlaps,
    TRANSFER_GRANULARITY: _verify_transfer_granularity,
}


def _feature_record(op: Operation, name: str, value: Attribute, *on: type[Operation]) -> DictionaryAttr:
    """A feature's value as a record (unit: the empty record), after checking where it may be."""
    if op.dialect_name() == "ktdf_arch":  # on a foreign (mappable) op a feature is a requirement
        _only_on(op, name, *on)
    if isinstance(value, UnitAttr):
        return DictionaryAttr({})
    if not isinstance(value, DictionaryAttr):
        raise _intrinsic_error(name, "requires unit or dictionary attribute")
    return value


def _require_unit(name: str, record: DictionaryAttr, field: str) -> None:
    if field in record.data and not isinstance(record.data[field], UnitAttr):
        raise _intrinsic_error(name, f"attribute '{field}' requires unit")


def _require_positive(name: str, record: DictionaryAttr, field: str) -> None:
    if field not in record.data:
        return
    if not _is_i64(record.data[field]):
        raise _intrinsic_error(name, f"attribute '{field}' requires 64-bit integer")
    if _int(record.data[field]) <= 0:
        raise _intrinsic_error(name, f"'{field}' must be > 0")


def _verify_compute(op: Operation, name: str, value: Attribute) -> None:
    _feature_record(op, name, value, ExecutionUnitOp)


def _verify_load_store(op: Operation, name: str, value: Attribute) -> None:
    record = _feature_record(op, name, value, ExecutionUnitOp)
    word_size = record.data.get("word_size")
    if word_size is not None:
        if not (isinstance(word_size, MapAttr) and all(_is_i64(v) for _, v in word_size.entries)):
            raise _intrinsic_error(name, "attribute 'word_size' requires map from attribute to 64-bit integer")
        for space, size in word_size.entries:
            if _int(size) <= 0:
                raise _intrinsic_error(name, f"attribute 'word_size[{space}]' must be > 0")
    granularity = record.data.get("access_granularity")
    if granularity is None:
        return
    if not (
        isinstance(granularity, MapAttr)
        and all(isinstance(v, ArrayAttr) and all(isinstance(a, DictionaryAttr) for a in v) for _, v in granularity.entries)
    ):
        raise _intrinsic_error(
            name, "attribute 'access_granularity' requires map from attribute to array of dictionary attributes"
        )
    for space, accesses in granularity.entries:
        assert isinstance(accesses, ArrayAttr)
        for access in accesses:
            assert isinstance(access, DictionaryAttr)
            where = f"attribute 'access_granularity[{space}]'"
            if not _is_i64(access.data.get("size_in_words")):
                raise _intrinsic_error(name, f"{where} attribute 'size_in_words' requires 64-bit integer")
            for field in ("size_in_words", "align_in_words"):
                if field not in access.data:
                    continue
                if not _is_i64(access.data[field]):
                    raise _intrinsic_error(name, f"{where} attribute '{field}' requires 64-bit integer")
                if _int(access.data[field]) <= 0:
                    raise _intrinsic_error(name, f"{where} attribute '{field}' must be > 0")


def _verify_simd(op: Operation, name: str, value: Attribute) -> None:
    record = _feature_record(op, name, value, ExecutionUnitOp)
    _require_unit(name, record, "splat")
    _require_unit(name, record, "zero_pad")
    lanes = record.data.get("lanes")
    if lanes is None:
        return
    if not (
        isinstance(lanes, MapAttr)
        and all(isinstance(k, TypeAttribute) and _is_i64(v) for k, v in lanes.entries)
    ):
        raise _intrinsic_error(name, "attribute 'lanes' requires map from type to 64-bit integer")
    for type_, count in lanes.entries:
        if _int(count) <= 0:
            raise _intrinsic_error(name, f"attribute 'lanes[{type_}]' must be > 0")


def _verify_queue(op: Operation, name: str, value: Attribute) -> None:
    record = _feature_record(op, name, value, DatapathOp)
    _require_unit(name, record, "ordered")
    _require_positive(name, record, "size")
    _require_positive(name, record, "depth")


FEATURE_VERIFIERS: dict[str, Callable[[Operation, str, Attribute], None]] = {
    FEATURE_COMPUTE: _verify_compute,
    FEATURE_LOAD: _verify_load_store,
    FEATURE_SIMD: _verify_simd,
    FEATURE_STORE: _verify_load_store,
    FEATURE_QUEUE: _verify_queue,
}


def verify_intrinsics(op: Operation) -> None:
    """Check the `ktdf_arch.*` attributes of `op` (upstream's dialect attribute verifier): an unknown
    one, or one of the wrong kind or on the wrong op, is a VerifyException. The verifier runs it on
    every op that carries one, of any dialect (`spyre_mlir.module_checks`), as MLIR does."""
    for name, value in op.attributes.items():
        if not name.startswith("ktdf_arch."):
            continue
        verifier = PROPERTY_VERIFIERS.get(name)
        if verifier is None:
            raise VerifyException(
                f"unrecognized 'ktdf_arch' intrinsic: {name} (expected one of: {', '.join(PROPERTY_VERIFIERS)})"
            )
        verifier(op, name, value)


def features_of(op: Operation) -> dict[str, DictionaryAttr]:
    """The `ktdf_arch.feature.*` features `op` declares, each as a record (a unit feature: empty)."""
    value = op.attributes.get(FEATURES)
    if not isinstance(value, DictionaryAttr):
        return {}
    return {
        name: feature if isinstance(feature, DictionaryAttr) else DictionaryAttr({})
        for name, feature in value.data.items()
        if name.startswith(FEATURE_PREFIX)
    }


# ===========================================================================
# Shared syntax: `(@id)? custom<AttrDictOrAlias>(attr-dict)`
# ===========================================================================


def _parse_attr_dict_or_alias(parser: Parser) -> dict[str, Attribute]:
    """`{...}`, or an alias of a dictionary (`#DDR`), or nothing."""
    if parser._current_token.kind == MLIRTokenKind.L_BRACE:  # pyright: ignore[reportPrivateUsage]
        return parser.parse_optional_attr_dict()
    if parser._current_token.kind == MLIRTokenKind.HASH_IDENT:  # pyright: ignore[reportPrivateUsage]
        start = parser.pos
        attr = parser.parse_attribute()
        if not isinstance(attr, DictionaryAttr):
            parser.raise_error(f"expected an attribute dictionary, got {attr}", start, parser.pos)
        return dict(attr.data)
    return {}


def _parse_isolated_region(parser: Parser, arguments: Sequence[Parser.Argument] | None = None) -> Region | None:
    """A region (if present) of an op that is isolated from above: as in MLIR, its names are a scope of
    their own, so a name of the enclosing region may be defined again inside."""
    outer = parser.ssa_values
    parser.ssa_values = {}
    try:
        if arguments is None:
            return parser.parse_optional_region()
        return parser.parse_region(arguments)
    finally:
        parser.ssa_values = outer


def _parse_id_and_attrs(parser: Parser, op_cls: type[IRDLOperation]) -> tuple[dict, dict]:
    """`(@id)? attr-dict-or-alias`, as (properties, attributes) of `op_cls`."""
    attrs: dict[str, Attribute] = {}
    if (sym := parser.parse_optional_symbol_name()) is not None:
        attrs["id"] = sym
    attrs.update(_parse_attr_dict_or_alias(parser))
    return split_props(op_cls, attrs)


def _print_id_and_attrs(printer: Printer, op: IRDLOperation, elided: set[str] = frozenset()) -> None:  # pyright: ignore[reportArgumentType]
    id_ = op.properties.get("id")
    if isinstance(id_, StringAttr):
        printer.print_string(" ")
        printer.print_symbol_name(id_.data)
    print_attrs_sorted(printer, op, {"id", *elided})


# ===========================================================================
# Resources
# ===========================================================================


class ResourceOp(IRDLOperation):
    """An allocatable resource (upstream's `Resource` interface): an optional
    unique `id` (a symbol name) and an optional `kind`, which relates it to
    functionally similar resources."""

    id = opt_prop_def(SymbolNameConstraint())
    kind = opt_prop_def(AnyAttr())

    def verify_(self) -> None:
        verify_intrinsics(self)
        self._verify_unique_id()

    def _verify_unique_id(self) -> None:
        """Upstream's device region check, made at the redefinition: one resource per `id` in a device."""
        if self.id is None:
            return
        device = self.parent_op()
        while device is not None and not isinstance(device, DeviceOp):
            device = device.parent_op()
        if device is None:
            return
        for other in device.walk():
            if other is self:
                return
            if isinstance(other, ResourceOp) and other.id == self.id:
                raise NotedVerifyException(
                    f'resource with id "{self.id.data}" redefined', (other, "previous definition is here")
                )


def _verify_subgraph(op: Operation) -> None:
    """Upstream's `IsSubgraph`: the children of a device or group are resources (terminators and meta ops aside)."""
    for region in op.regions:
        for child in region.ops:
            if isinstance(child, ResourceOp | YieldOp | PatternsOp):
                continue
            raise NotedRegionVerifyException("expects child ops to be resources", (child, "unexpected child is here"))


class NodeOp(ResourceOp):
    """A resource that is an endpoint of links: `(@id)? attr-dict-or-alias`, one result of its type."""

    RESULT_TYPE: ClassVar[type[ParametrizedAttribute]]

    @classmethod
    def parse(cls, parser: Parser) -> NodeOp:
        props, attrs = _parse_id_and_attrs(parser, cls)
        op = cls.create(result_types=[cls.RESULT_TYPE()], properties=props, attributes=attrs)
        op.results[0].name_hint = cls.RESULT_TYPE.name.split(".", 1)[1]  # as upstream names it (unless bound)
        return op

    def print(self, printer: Printer) -> None:
        _print_id_and_attrs(printer, self)


def _memory_space_like(attr: Attribute | None) -> bool:
    """MLIR's `isSupportedMemorySpace`: an integer, string or dictionary, or another dialect's attribute."""
    if attr is None:
        return False
    if isinstance(attr, IntegerAttr | StringAttr | DictionaryAttr):
        return True
    return attr.name.split(".", 1)[0] != "builtin" and "." in attr.name


@irdl_op_definition
class MemoryOp(NodeOp):
    """`%m = ktdf_arch.memory {kind = "L1", size = 1048576}`: a memory whose
    `kind` is a memory space (required) and whose optional `size` is in bytes."""

    name = "ktdf_arch.memory"
    RESULT_TYPE: ClassVar[type[ParametrizedAttribute]] = MemoryType

    size = opt_prop_def(AnyAttr())
    result = result_def(MemoryType)

    def __init__(self, kind: Attribute, size: int | None = None):
        props: dict[str, Attribute] = {"kind": kind}
        if size is not None:
            props["size"] = IntegerAttr(size, i64)
        super().__init__(result_types=[MemoryType()], properties=props)
        self.result.name_hint = "memory"

    def verify_(self) -> None:
        if self.size is not None and not (_is_i64(self.size) and _int(self.size) >= 1):
            raise VerifyException(
                "attribute 'size' failed to satisfy constraint: 64-bit integer attribute whose minimum value is 1"
            )
        if not _memory_space_like(self.kind):
            raise VerifyException("attribute 'kind' requires valid memory space")
        super().verify_()

    @property
    def size_bytes(self) -> int | None:
        return _int(self.size) if self.size is not None else None


@irdl_op_definition
class ExecutionUnitOp(NodeOp):
    """`%e = ktdf_arch.exec_unit {kind = "SFU"}`: an execution unit work is assigned to."""

    name = "ktdf_arch.exec_unit"
    RESULT_TYPE: ClassVar[type[ParametrizedAttribute]] = ExecutionUnitType

    result = result_def(ExecutionUnitType)

    def __init__(self, kind: Attribute | None = None):
        super().__init__(result_types=[ExecutionUnitType()], properties={"kind": kind} if kind is not None else {})
        self.result.name_hint = "exec_unit"


@irdl_op_definition
class SwitchOp(ResourceOp):
    """`%sw:4 = ktdf_arch.switch [4] {connectivity = dense<...> : tensor<4x4xi1>}`:
    a routing switch with N ports; `connectivity` (default: all to all) is its
    N x N adjacency matrix."""

    name = "ktdf_arch.switch"

    connectivity = prop_def(AnyAttr())
    result = var_result_def(PortType)

    @staticmethod
    def full_connectivity(ports: int) -> DenseIntOrFPElementsAttr:
        from xdsl.dialects.builtin import TensorType, i1

        return DenseIntOrFPElementsAttr.from_list(TensorType(i1, [ports, ports]), [1] * (ports * ports))

    @classmethod
    def parse(cls, parser: Parser) -> SwitchOp:
        parser.parse_punctuation("[")
        ports = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("]")
        props, attrs = _parse_id_and_attrs(parser, cls)
        props.setdefault("connectivity", cls.full_connectivity(ports))
        op = cls.create(result_types=[PortType()] * ports, properties=props, attributes=attrs)
        for result in op.results:
            result.name_hint = "switch"
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" [{len(self.results)}]")
        elided = {"connectivity"} if self.connectivity == self.full_connectivity(len(self.results)) else set()
        _print_id_and_attrs(printer, self, elided)

    def verify_(self) -> None:
        ports = len(self.results)
        shape = getattr(getattr(self.connectivity, "type", None), "get_shape", lambda: None)()
        if shape is None:
            raise VerifyException("attribute 'connectivity' requires a directed sparse or dense adjacency matrix")
        if tuple(shape) != (ports, ports):
            raise VerifyException(
                f"expected connectivity shape {{{ports}, {ports}}}, but got {{{', '.join(map(str, shape))}}}"
            )
        super().verify_()


@irdl_op_definition
class DatapathOp(ResourceOp):
    """`ktdf_arch.datapath (@id)? {...} %a to %b : memory, exec_unit`: a
    point-to-point link from one endpoint to another."""

    name = "ktdf_arch.datapath"

    source = operand_def(EndpointType)
    target = operand_def(EndpointType)

    def __init__(self, source: SSAValue | Operation, target: SSAValue | Operation):
        super().__init__(operands=[source, target])

    @classmethod
    def parse(cls, parser: Parser) -> DatapathOp:
        props, attrs = _parse_id_and_attrs(parser, cls)
        source = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        target = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        source_type = _parse_short_type(parser)
        parser.parse_punctuation(",")
        target_type = _parse_short_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(source, source_type), parser.resolve_operand(target, target_type)],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        _print_id_and_attrs(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" to ")
        printer.print_ssa_value(self.target)
        printer.print_string(" : ")
        _print_short_type(printer, self.source.type)
        printer.print_string(", ")
        _print_short_type(printer, self.target.type)

    def verify_(self) -> None:
        if self.source == self.target:
            raise VerifyException("can't link resource to itself")
        super().verify_()


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`ktdf_arch.yield %e0, %e1`: the execution units a group releases to its parent."""

    name = "ktdf_arch.yield"

    values = var_operand_def(ExecutionUnitType)

    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(GroupOp)))

    @classmethod
    def parse(cls, parser: Parser) -> YieldOp:
        operands = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        ) or []
        attrs = parser.parse_optional_attr_dict()
        return cls.create(
            operands=[parser.resolve_operand(o, ExecutionUnitType()) for o in operands], attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        if self.values:
            printer.print_string(" ")
            printer.print_list(self.values, printer.print_ssa_value)
        print_attrs_sorted(printer, self, set())


@irdl_op_definition
class GroupOp(ResourceOp):
    """`%e = ktdf_arch.group (@id)? {kind = "core"} share(%mem, ...) { ... } -> exec_unit`:
    a level of the private-resource hierarchy. The region sees the shared
    memories under the same names (its block arguments) and nothing else
    from outside; it yields the execution units it releases."""

    name = "ktdf_arch.group"
    DEFAULT_DIALECT: ClassVar[str] = "ktdf_arch"  # KTDFArch_Subgraph: nested ops print without the prefix, as in MLIR

    shared_memory = var_operand_def(MemoryType)
    shared_exec = var_result_def(ExecutionUnitType)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove())

    @property
    def block(self) -> Block:
        return self.body.block

    @classmethod
    def parse(cls, parser: Parser) -> GroupOp:
        props, attrs = _parse_id_and_attrs(parser, cls)
        parser.parse_keyword("share")
        captures = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        operands = [parser.resolve_operand(c, MemoryType()) for c in captures]
        # The region's arguments take the captured names (upstream parses with name shadowing).
        body = _parse_isolated_region(parser, [Parser.Argument(c.span, MemoryType()) for c in captures])
        assert body is not None
        if not body.blocks:
            body.add_block(Block(arg_types=[MemoryType()] * len(captures)))
        block = body.block
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            block.add_op(YieldOp.create())
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: _parse_short_type(parser))
        return cls.create(
            operands=operands, result_types=result_types, properties=props, attributes=attrs, regions=[body]
        )

    def print(self, printer: Printer) -> None:
        _print_id_and_attrs(printer, self)
        printer.print_string(" share(")
        for i, (operand, arg) in enumerate(zip(self.shared_memory, self.block.args)):
            if i:
                printer.print_string(", ")
            name = printer.print_ssa_value(operand)
            printer._ssa_values[arg] = name  # pyright: ignore[reportPrivateUsage] - shadowed under the same name
        printer.print_string(") ")
        terminator = self.block.last_op
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_empty_block=False,
            print_block_terminators=terminator is not None and bool(terminator.operands),
        )
        if self.shared_exec:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.shared_exec], lambda t: _print_short_type(printer, t))

    def verify_(self) -> None:
        if len(self.body.blocks) != 1:
            raise VerifyException("expects a region with one block")
        args = self.block.args
        if len(args) != len(self.shared_memory) or any(not isinstance(a.type, MemoryType) for a in args):
            raise VerifyException(
                f"expects one memory block argument per shared memory ({len(self.shared_memory)}), got {len(args)}"
            )
        terminator = self.block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("expects its region to end with 'ktdf_arch.yield'")
        if len(terminator.values) != len(self.shared_exec):
            raise VerifyException(
                f"yields {len(terminator.values)} execution unit(s), but has {len(self.shared_exec)} result(s)"
            )
        super().verify_()
        _verify_subgraph(self)


# ===========================================================================
# Meta ops and the device
# ===========================================================================


@irdl_op_definition
class PatternsOp(IRDLOperation):
    """`ktdf_arch.patterns ["group", ...] { pdl.pattern ... }`: device-specific
    PDL rewrites, enabled by group name (none: always)."""

    name = "ktdf_arch.patterns"

    groups = opt_prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")

    traits = lazy_traits_def(lambda: (IsolatedFromAbove(), NoTerminator(), HasParent(DeviceOp)))

    @classmethod
    def parse(cls, parser: Parser) -> PatternsOp:
        props: dict[str, Attribute] = {}
        if parser._current_token.kind == MLIRTokenKind.L_SQUARE:  # pyright: ignore[reportPrivateUsage]
            start = parser.pos
            groups = parser.parse_attribute()
            if not (isinstance(groups, ArrayAttr) and all(isinstance(g, StringAttr) for g in groups)):
                parser.raise_error("expected an array of strings (pattern groups)", start, parser.pos)
            props["groups"] = groups
        extra = parser.parse_optional_attr_dict_with_keyword()
        body = _parse_isolated_region(parser)
        if body is None:
            parser.raise_error("expected a region of 'pdl.pattern's")
        if not body.blocks:
            body.add_block(Block())
        more_props, attrs = split_props(cls, dict(extra.data) if extra else {})
        return cls.create(properties={**props, **more_props}, attributes=attrs, regions=[body])

    def print(self, printer: Printer) -> None:
        if self.groups is not None and self.groups.data:
            printer.print_string(" ")
            printer.print_attribute(self.groups)
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(dict(sorted(self.attributes.items())))
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def verify_(self) -> None:
        for child in self.body.ops:
            if child.name != "pdl.pattern":
                raise NotedRegionVerifyException(
                    "expects child ops to be 'pdl.pattern'", (child, "unexpected child is here")
                )


@irdl_op_definition
class DeviceOp(IRDLOperation):
    """`ktdf_arch.device @name attributes {...} { ... }` or
    `ktdf_arch.device @name attributes {...} import("path")`: an accelerator,
    inline or read from `path` (relative to the declaring file) on use."""

    name = "ktdf_arch.device"
    DEFAULT_DIALECT: ClassVar[str] = "ktdf_arch"  # KTDFArch_Subgraph: nested ops print without the prefix, as in MLIR

    sym_name = prop_def(SymbolNameConstraint())
    import_path = opt_prop_def(StringAttr)
    version = opt_prop_def(AnyAttr())
    body = region_def()

    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolOpInterface())

    def __init__(self, name: str, body: Region | None = None, import_path: str | None = None):
        """An inline device of `body` (default: empty), or, with `import_path`, an imported one."""
        props: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if import_path is not None:
            props["import_path"] = StringAttr(import_path)
            body = Region()
        elif body is None:
            body = Region(Block())
        super().__init__(properties=props, regions=[body])

    @property
    def is_imported(self) -> bool:
        return not self.body.blocks

    @property
    def device_name(self) -> str:
        return self.sym_name.data

    @classmethod
    def parse(cls, parser: Parser) -> DeviceOp:
        props: dict[str, Attribute] = {"sym_name": parser.parse_symbol_name()}
        extra = parser.parse_optional_attr_dict_with_keyword(("sym_name", "import_path"))
        more_props, attrs = split_props(cls, dict(extra.data) if extra else {})
        props.update(more_props)
        body = _parse_isolated_region(parser)
        if body is None:
            parser.parse_keyword("import")
            parser.parse_punctuation("(")
            start = parser.pos
            path = parser.parse_attribute()
            if not isinstance(path, StringAttr):
                parser.raise_error(f"expected a string (the device file), got {path}", start, parser.pos)
            parser.parse_punctuation(")")
            props["import_path"] = path
            body = Region()
        elif not body.blocks:
            body.add_block(Block())  # `{}`: a device without resources, not an import
        return cls.create(properties=props, attributes=attrs, regions=[body])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        shown = {k: v for k, v in {**self.properties, **self.attributes}.items() if k not in ("sym_name", "import_path")}
        if shown:
            printer.print_string(" attributes ")
            printer.print_attr_dict(dict(sorted(shown.items())))
        printer.print_string(" ")
        if self.import_path is not None:
            printer.print_string("import(")
            printer.print_attribute(self.import_path)
            printer.print_string(")")
            return
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def verify_(self) -> None:
        if self.version is not None and not _is_i64(self.version):
            raise VerifyException("attribute 'version' failed to satisfy constraint: 64-bit signless integer attribute")
        if len(self.body.blocks) > 1:
            raise VerifyException("expects a region with at most one block")
        if self.is_imported:
            if self.import_path is None:
                raise VerifyException("empty device requires 'import_path' attribute")
            return
        if self.import_path is not None:
            raise VerifyException("non-empty device can't have 'import_path' attribute")
        _verify_subgraph(self)


# ===========================================================================
# Reading devices
# ===========================================================================


class DeviceImportError(Exception):
    """A device that cannot be read; `op` is the declaration to report it at (None: no op yet)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


def devices_in(module: Operation) -> list[DeviceOp]:
    """The devices declared directly in `module`'s body."""
    return [op for region in module.regions for op in region.ops if isinstance(op, DeviceOp)]


def import_path_of(declaration: DeviceOp) -> Path:
    """Where an imported device is read from: its `import(...)` path, relative to the file the
    declaration was read from (the CWD for stdin or text), as upstream's DeviceManager resolves it."""
    assert declaration.import_path is not None
    path = Path(declaration.import_path.data)
    if path.is_absolute():
        return path
    op: Operation | None = declaration
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            source = loc.filename.data
            if source in ("-", "<stdin>", "<string>") or source.startswith("<"):
                return path
            return Path(os.path.dirname(source)) / path
        op = op.parent_op()
    return path


def read_device_file(path: str | os.PathLike[str], name: str | None = None) -> DeviceOp:
    """The device `name` (None: the only one) of the MLIR file `path`, verified and detached.
    A missing or bad file, or no such device, is a DeviceImportError (a bad file: located in it)."""
    from spyre_mlir.diagnostics import DiagnosticError
    from spyre_mlir.ir import make_context, parse_module, read_source, verify

    try:
        text, source = read_source(Path(path))
    except OSError as exc:
        raise DeviceImportError(f"cannot open input file '{path}': {exc.strerror or exc}") from None
    try:
        module = parse_module(text, source, make_context())
        verify(module)
    except DiagnosticError as exc:
        raise DeviceImportError(exc.diagnostic.render()) from None  # located in the device file
    devices = devices_in(module)
    if name is None:
        if not devices:
            raise DeviceImportError(f"no device in import file '{path}'")
        if len(devices) > 1:
            raise DeviceImportError(f"multiple devices in import file '{path}'")
        chosen = devices[0]
    else:
        matching = [d for d in devices if d.device_name == name]
        if not matching:
            raise DeviceImportError(f"no device named '{name}'")
        chosen = matching[0]
    if chosen.is_imported:
        raise DeviceImportError("recursive importing is prohibited", chosen)
    chosen.detach()
    return chosen


def import_device(declaration: DeviceOp) -> DeviceOp:
    """The definition of `declaration`: itself when inline, else the device of the same name read
    from its import file, with the declaration's discardable attributes overriding the file's
    (as upstream's DeviceManager). Failures are DeviceImportErrors at the declaration."""
    if not declaration.is_imported:
        return declaration
    path = import_path_of(declaration)
    try:
        definition = read_device_file(path, declaration.device_name)
    except DeviceImportError as exc:
        raise DeviceImportError(f"unable to import device graph: {exc}", declaration) from None
    for name, value in declaration.attributes.items():
        definition.attributes[name] = value
    return definition


def memory_of(value: SSAValue) -> MemoryOp | None:
    """The memory a value names: a `ktdf_arch.memory` result, or a group's shared-memory argument
    traced to the memory it captures."""
    while isinstance(value, BlockArgument):
        group = value.block.parent_op()
        if not isinstance(group, GroupOp):
            return None
        value = group.shared_memory[value.index]
    if isinstance(value, OpResult) and isinstance(value.op, MemoryOp):
        return value.op
    return None


def exec_unit_of(value: SSAValue) -> list[ExecutionUnitOp]:
    """The execution units a value names: an `exec_unit` result, or those a group yields as this result."""
    if not isinstance(value, OpResult):
        return []
    if isinstance(value.op, ExecutionUnitOp):
        return [value.op]
    if isinstance(value.op, GroupOp):
        terminator = value.op.block.last_op
        if isinstance(terminator, YieldOp):
            return exec_unit_of(terminator.values[value.index])
    return []


def walk_resources(device: DeviceOp) -> Iterator[Operation]:
    """Every resource of `device`'s graph, in order (patterns skipped)."""
    for op in device.walk():
        if isinstance(op, ResourceOp):
            yield op


KTDF_ARCH = Dialect(
    "ktdf_arch",
    [DeviceOp, GroupOp, YieldOp, MemoryOp, ExecutionUnitOp, SwitchOp, DatapathOp, PatternsOp],
    [MemoryType, ExecutionUnitType, PortType, MapAttr],
)

__all__ = [
    "KTDF_ARCH",
    "DatapathOp",
    "DeviceImportError",
    "DeviceOp",
    "ExecutionUnitOp",
    "ExecutionUnitType",
    "GroupOp",
    "MapAttr",
    "MemoryOp",
    "MemoryType",
    "PatternsOp",
    "PortType",
    "SwitchOp",
    "YieldOp",
    "devices_in",
    "exec_unit_of",
    "features_of",
    "import_device",
    "import_path_of",
    "memory_of",
    "read_device_file",
    "verify_intrinsics",
    "walk_resources",
]
