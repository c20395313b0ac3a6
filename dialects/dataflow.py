"""dataflow-scheduler's `dataflow` dialect: Dataflow IR, programs of hardware
units that exchange data and synchronization signals (Dataflow/*.td of
dataflow-scheduler-mlir-dialects).

`dataflow.get_unit` names a hardware unit (`index` handle);
`dataflow.program_unit` holds the program one or more units run (terminated by
the implicit `dataflow.return`); `send`/`receive` move vectors between units,
`sync_send`/`sync_recv` synchronize them, `get_logical_memory_view` and
`get_paged_logical_memory_view` view a unit's memory as a memref; groups
(`create_group`, `create_multicast_group`) address several units at once;
`dataflow.opaque` calls an auxiliary function. A lowering dialect: parsed,
verified and printed, never executed (spyre_mlir.ir.LOWERING_DIALECTS).

Types: `!dataflow.custom_vector<NxT>`, `!dataflow.mxfp<W>`,
`!dataflow.mxint<W>`, and the dialect's short spellings
`!dataflow.custom<mxfp4|mxfp8|mxint4>` (upstream prints the 4- and 8-bit MX
types that way; here the short spelling is its own type, see
`CustomMXType`). Attribute: `#dataflow<direction CounterClockwise>`.

Syntax is upstream's: the declarative formats of Dataflow.td and the parsers
of DataflowOps.cpp / DataflowTypes.cpp; attribute dictionaries print sorted,
as MLIR does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    VectorType,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.ir.affine import AffineSet
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
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
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoMemoryEffect, OpTrait, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from spyre_mlir.dialects.format_helpers import print_attrs_sorted, split_props

# ===========================================================================
# Enums, attributes, types
# ===========================================================================


class DataflowRoutingDirection(StrEnum):
    """DataflowEnums.td's `DataflowRoutingDirection` (I32EnumAttr: 0..3, in this order)."""

    PseudoRandom = "PseudoRandom"
    CounterClockwise = "CounterClockwise"
    Clockwise = "Clockwise"
    BothWays = "BothWays"


@irdl_attr_definition
class DataflowRoutingDirectionAttr(EnumAttribute[DataflowRoutingDirection], SpacedOpaqueSyntaxAttribute):
    """`#dataflow<direction CounterClockwise>`: the direction a `dataflow.send`
    routes its data around the ring."""

    name = "dataflow.direction"


@irdl_attr_definition
class CustomVectorType(ParametrizedAttribute, TypeAttribute):
    """`!dataflow.custom_vector<NxT>`: a vector of N elements of type T (a type of
    the dialect, sent and received like a builtin vector)."""

    name = "dataflow.custom_vector"

    element_type: Attribute
    num_elements: IntAttr

    def __init__(self, element_type: Attribute, num_elements: int):
        super().__init__(element_type, IntAttr(num_elements))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            dims, element_type = parser.parse_ranked_shape()
            if len(dims) != 1 or dims[0] < 0:
                parser.raise_error("expected `NxT`: a number of elements and their type", pos, parser.pos)
        return (element_type, IntAttr(dims[0]))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.num_elements.data}x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    def verify(self) -> None:
        if not isinstance(self.element_type, TypeAttribute):
            raise VerifyException(f"the element type of a custom vector must be a type, got {self.element_type}")


class _MXType(ParametrizedAttribute, TypeAttribute):
    """`<W>`: an MX (microscaling) type of width W bits."""

    width: IntAttr

    def __init__(self, width: int):
        super().__init__(IntAttr(width))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            width = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (IntAttr(width),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.width.data}>")

    @property
    def bitwidth(self) -> int:
        return self.width.data


@irdl_attr_definition
class CustomMXFloatType(_MXType):
    """`!dataflow.mxfp<W>`: an MX float of W bits (an element type of memrefs)."""

    name = "dataflow.mxfp"


@irdl_attr_definition
class CustomMXIntType(_MXType):
    """`!dataflow.mxint<W>`: an MX integer of W bits (an element type of memrefs)."""

    name = "dataflow.mxint"


@irdl_attr_definition
class CustomMXType(ParametrizedAttribute, TypeAttribute):
    """`!dataflow.custom<mxfp4>` (`mxfp8`, `mxint4`): the dialect's short spelling
    of `!dataflow.mxfp<4>`, `!dataflow.mxfp<8>`, `!dataflow.mxint<4>`.

    Upstream these are one type in two spellings (its parser reads both, its
    printer writes the short one). xDSL names a type by its class, so here the
    short spelling is a type of its own, printed as written: `kind` says
    which MX type it spells (`mx_type()` gives that type)."""

    name = "dataflow.custom"

    kind: StringAttr

    KINDS: ClassVar[dict[str, tuple[type[_MXType], int]]] = {
        "mxfp4": (CustomMXFloatType, 4),
        "mxfp8": (CustomMXFloatType, 8),
        "mxint4": (CustomMXIntType, 4),
    }

    def __init__(self, kind: str):
        super().__init__(StringAttr(kind))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            kind = parser.parse_optional_identifier()
            if kind not in cls.KINDS:
                parser.raise_error(f"expected 'mxfp4', 'mxfp8' or 'mxint4' but got '{kind or ''}'", pos, parser.pos)
        return (StringAttr(kind),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.kind.data}>")

    def verify(self) -> None:
        if self.kind.data not in self.KINDS:
            raise VerifyException(f"expected 'mxfp4', 'mxfp8' or 'mxint4' but got '{self.kind.data}'")

    def mx_type(self) -> _MXType:
        cls, width = self.KINDS[self.kind.data]
        return cls(width)

    @property
    def bitwidth(self) -> int:
        return self.KINDS[self.kind.data][1]


class DebugNameOpInterface(OpTrait):
    """DataflowInterfaces.td's `DebugNameOpInterface`: the op has an optional
    inherent `dbgName` string attribute."""

    ATTR_NAME: ClassVar[str] = "dbgName"

    @staticmethod
    def get_dbg_name(op: Operation) -> str | None:
        name = op.properties.get("dbgName")
        return name.data if isinstance(name, StringAttr) else None

    @staticmethod
    def set_dbg_name(op: Operation, name: str | None) -> None:
        if name is None:
            op.properties.pop("dbgName", None)
        else:
            op.properties["dbgName"] = StringAttr(name)


def sorted_attr_dict(cls: type[IRDLOperation]) -> type[IRDLOperation]:
    """An op whose declarative format prints its `attr-dict` sorted by name, as
    MLIR prints an attribute dictionary (xDSL's prints the attributes, then the
    properties). Apply above `@irdl_op_definition`."""
    format_print = cls.print

    def print_sorted(self: IRDLOperation, printer: Printer) -> None:
        print_dict = printer.print_op_attributes
        printer.print_op_attributes = (  # pyright: ignore[reportAttributeAccessIssue]
            lambda attributes, **options: print_dict(dict(sorted(attributes.items())), **options)
        )
        try:
            format_print(self, printer)
        finally:
            del printer.print_op_attributes

    cls.print = print_sorted  # pyright: ignore[reportAttributeAccessIssue]
    return cls


# ===========================================================================
# Units, programs and groups
# ===========================================================================


@sorted_attr_dict
@irdl_op_definition
class GetUnitOp(IRDLOperation):
    """`%u = dataflow.get_unit {core = 0, corelet = 0, name = "L1-LU", type = "L1LU"} : index`:
    the handle of a hardware unit; one result per program time step."""

    name = "dataflow.get_unit"

    unit_name = prop_def(StringAttr, prop_name="name")
    type = prop_def(StringAttr)
    units = var_result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($units)"

    def __init__(self, name: str, unit_type: str, num_results: int = 1, attributes: dict[str, Attribute] | None = None):
        super().__init__(
            result_types=[[IndexType()] * num_results],
            properties={"name": StringAttr(name), "type": StringAttr(unit_type)},
            attributes=attributes,
        )

    @property
    def unit(self) -> SSAValue:
        return self.units[0]

    def verify_(self) -> None:
        # Upstream fails here without a message; the rule is that of its comment.
        if not self.units:
            raise VerifyException("expects at least one result (the unit handle)")


@sorted_attr_dict
@irdl_op_definition
class GetLocalUnitOp(IRDLOperation):
    """`%u = dataflow.get_local_unit %id {name = "L1-LU"} : index`: the handle of a
    local unit."""

    name = "dataflow.get_local_unit"

    unitId = operand_def(IndexType)
    unit_name = prop_def(StringAttr, prop_name="name")
    unit = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$unitId attr-dict `:` type($unit)"


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`dataflow.return`: the (implicit) terminator of a `dataflow.program_unit`.
    Upstream gives it no custom syntax: written out, it is `"dataflow.return"() : () -> ()`."""

    name = "dataflow.return"

    traits = traits_def(IsTerminator())

    def __init__(self):
        super().__init__()


@irdl_op_definition
class ProgramUnitOp(IRDLOperation):
    """The program one or more units run:

        dataflow.program_unit %l1lu : { ... }
        dataflow.program_unit iter_arg : %unit -> (%l1lu0, %l1lu1) : { ... }

    In the second form the region's one `index` argument `%unit` stands for
    each unit in turn (one per program time step). The implicit
    `dataflow.return` is printed only when it carries attributes."""

    name = "dataflow.program_unit"

    units = var_operand_def(IndexType)
    precision = opt_prop_def(StringAttr)
    region = region_def("single_block")
    traits = lazy_traits_def(lambda: (SingleBlockImplicitTerminator(ReturnOp),))

    def __init__(
        self,
        units: Sequence[SSAValue | Operation],
        body: Region | Block | Sequence[Operation] = (),
        precision: str | None = None,
    ):
        if not isinstance(body, Region):
            block = body if isinstance(body, Block) else Block(body)
            if not isinstance(block.last_op, ReturnOp):
                block.add_op(ReturnOp())
            body = Region(block)
        props = {} if not precision else {"precision": StringAttr(precision)}
        super().__init__(operands=[list(units)], regions=[body], properties=props)

    @classmethod
    def parse(cls, parser: Parser) -> ProgramUnitOp:
        index = IndexType()
        region_args: list[Parser.Argument] = []
        if parser.parse_optional_keyword("iter_arg") is not None:
            parser.parse_punctuation(":")
            arg = parser.parse_argument(expect_type=False)
            region_args.append(parser.Argument(arg.name, index))
            parser.parse_punctuation("->")
            units = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        else:
            units = (
                parser.parse_optional_undelimited_comma_separated_list(
                    parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
                )
                or []
            )
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        body = parser.parse_region(region_args or None)
        _ensure_terminator(body, ReturnOp)
        return cls.create(
            operands=[parser.resolve_operand(u, index) for u in units],
            regions=[body],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        block = self.region.blocks.first
        args = block.args if block is not None else ()
        printer.print_string(" ")
        if args:
            printer.print_string("iter_arg : ")
            printer.print_list(args, printer.print_ssa_value)
            printer.print_string(" -> (")
        printer.print_list(self.units, printer.print_ssa_value)
        if args:
            printer.print_string(")")
        print_attrs_sorted(printer, self, set())
        printer.print_string(" : ")
        terminator = block.last_op if block is not None else None
        print_terminator = not (isinstance(terminator, ReturnOp) and not terminator.attributes
                                and not terminator.properties)
        printer.print_region(self.region, print_entry_block_args=False, print_block_terminators=print_terminator)


@sorted_attr_dict
@irdl_op_definition
class CreateGroupOp(IRDLOperation):
    """`%g = dataflow.create_group(%u0, %u1 : index, index) : index`: one handle
    for a group of units."""

    name = "dataflow.create_group"

    unit_ids = var_operand_def(IndexType)
    group_id = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    assembly_format = "`(` ($unit_ids^ `:` type($unit_ids))? `)` attr-dict `:` type($group_id)"


@sorted_attr_dict
@irdl_op_definition
class CreateMulticastGroupOp(IRDLOperation):
    """`%g = dataflow.create_multicast_group(%producer -> (%c0, %c1)) {count = 0 : i32,
    group_id = 1 : i32, num_consumers = 2 : i32} : index`: the group a producer
    multicasts to. Upstream checks nothing: its description asks that a
    non-empty consumer list have `num_consumers` entries, but its own example
    lists three consumers for `num_consumers = 2`."""

    name = "dataflow.create_multicast_group"

    producer = operand_def(IndexType)
    consumers = var_operand_def(IndexType)
    num_consumers = prop_def(IntegerAttr[IntegerType])
    group_id = prop_def(IntegerAttr[IntegerType])
    count = prop_def(IntegerAttr[IntegerType])
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $producer `->` `(` ($consumers^)? `)` `)` attr-dict `:` type($result)"

    def verify_(self) -> None:
        _check_i32(self, "num_consumers", "group_id", "count")


# ===========================================================================
# Synchronization and data
# ===========================================================================


@sorted_attr_dict
@irdl_op_definition
class SyncSendOp(IRDLOperation):
    """`dataflow.sync_send %to {wait_immediately_for_async_transfers = false} : index`:
    signals unit `%to`."""

    name = "dataflow.sync_send"

    to_unit = operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    wait_immediately_for_async_transfers = opt_prop_def(BoolAttr)
    traits = traits_def(DebugNameOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$to_unit attr-dict `:` type($to_unit)"


@sorted_attr_dict
@irdl_op_definition
class SyncRecvOp(IRDLOperation):
    """`dataflow.sync_recv %from : index`: waits for a signal from unit `%from`."""

    name = "dataflow.sync_recv"

    from_unit = operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    traits = traits_def(DebugNameOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$from_unit attr-dict `:` type($from_unit)"


@sorted_attr_dict
@irdl_op_definition
class ImplicitSyncOnStreamingBufferOp(IRDLOperation):
    """`dataflow.implicit_sync_on_streaming_buffer %view, %dst, %size : memref<4xi8>, index, index`:
    synchronizes with `%dst` at each boundary of a streaming buffer of `%size`."""

    name = "dataflow.implicit_sync_on_streaming_buffer"

    memory_unit = operand_def()  # MEMREF_TYPES, checked with MLIR's message
    dst_unit = operand_def(IndexType)
    buffer_size = operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    traits = traits_def(DebugNameOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$memory_unit `,` $dst_unit `,` $buffer_size attr-dict `:` "
        "type($memory_unit) `,` type($dst_unit) `,` type($buffer_size)"
    )

    def verify_(self) -> None:
        _check_type("operand #0", self.memory_unit.type, *MEMREF_TYPES)


@sorted_attr_dict
@irdl_op_definition
class GetLogicalMemoryViewOp(IRDLOperation):
    """`%v = dataflow.get_logical_memory_view %mem, %start {layout_map = affine_map<(i, j) -> (i + j * 8)>}
    : index, index, memref<8x16xi8>`: unit `%mem`'s memory from element `%start`
    on, viewed through `layout_map` as a memref."""

    name = "dataflow.get_logical_memory_view"

    from_unit = operand_def(IndexType)
    start_address = operand_def(IndexType)
    layout_map = prop_def(AffineMapAttr)
    data = result_def()  # MEMREF_TYPES, checked with MLIR's message
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$from_unit `,` $start_address attr-dict `:` type($from_unit) `,` type($start_address) `,` type($data)"
    )

    def verify_(self) -> None:
        _check_type("result #0", self.data.type, *MEMREF_TYPES)


@irdl_op_definition
class GetPagedLogicalMemoryViewOp(IRDLOperation):
    """A memref over pages of a unit's memory, each page a box of indices
    (`idx_set`) at its own start address:

        %v = dataflow.get_paged_logical_memory_view %mem, %start {layout_map = #map}
          {segments =
            page0: (idx_set = #set0, start_addr = %p0),
            page1: (idx_set = #set1, start_addr = %p1)} : index, index, memref<64x4xf16>

    The pages are numbered from 0 in order; `idx_sets` holds their sets."""

    name = "dataflow.get_paged_logical_memory_view"

    unit = operand_def(IndexType)
    start_addr = operand_def(IndexType)
    page_start_addrs = var_operand_def(IndexType)
    layout_map = prop_def(AffineMapAttr)
    idx_sets = prop_def(ArrayAttr)
    data = result_def()  # MEMREF_TYPES, checked with MLIR's message
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())

    @classmethod
    def parse(cls, parser: Parser) -> GetPagedLogicalMemoryViewOp:
        unit = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        start = parser.parse_unresolved_operand()
        # The attribute dictionary (layout_map is required, so it is there)
        # comes before the braces of the segments.
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation("{")
        parser.parse_keyword("segments")
        parser.parse_punctuation("=")
        idx_sets: list[Attribute] = []
        page_addrs: list[UnresolvedOperand] = []
        while parser.parse_optional_keyword(f"page{len(idx_sets)}") is not None:
            parser.parse_punctuation(":")
            parser.parse_punctuation("(")
            parser.parse_keyword("idx_set")
            parser.parse_punctuation("=")
            idx_sets.append(parser.parse_attribute())
            parser.parse_punctuation(",")
            parser.parse_keyword("start_addr")
            parser.parse_punctuation("=")
            page_addrs.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(")")
            parser.parse_optional_punctuation(",")
        parser.parse_punctuation("}")
        parser.parse_punctuation(":")
        unit_type = parser.parse_type()
        parser.parse_punctuation(",")
        start_type = parser.parse_type()
        parser.parse_punctuation(",")
        result_type = parser.parse_type()
        index = IndexType()
        return cls.create(
            operands=[
                parser.resolve_operand(unit, unit_type),
                parser.resolve_operand(start, start_type),
                *(parser.resolve_operand(a, index) for a in page_addrs),
            ],
            result_types=[result_type],
            properties={**props, "idx_sets": ArrayAttr(idx_sets)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.unit, self.start_addr), printer.print_ssa_value)
        print_attrs_sorted(printer, self, {"idx_sets"})
        # Upstream's layout: the segments on a line of their own, each page on its own line.
        printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
        printer.print_string("  {segments =")
        for page, (idx_set, address) in enumerate(zip(self.idx_sets.data, self.page_start_addrs)):
            if page:
                printer.print_string(",")
            printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
            printer.print_string(f"    page{page}: (idx_set = ")
            printer.print_attribute(idx_set)
            printer.print_string(", start_addr = ")
            printer.print_ssa_value(address)
            printer.print_string(")")
        printer.print_string("} : ")
        printer.print_list((self.unit.type, self.start_addr.type, self.data.type), printer.print_attribute)

    def verify_(self) -> None:
        _check_type("result #0", self.data.type, *MEMREF_TYPES)
        if len(self.idx_sets.data) != len(self.page_start_addrs):
            raise VerifyException("there should be a start address and idx_set for every page")
        for idx_set, address in zip(self.idx_sets.data, self.page_start_addrs):
            if not (isinstance(address.owner, Operation) and address.owner.name == "arith.constant"):
                raise VerifyException("page start addresses should be arith::ConstantOp")
            if not isinstance(idx_set, AffineSetAttr):
                raise VerifyException("idx_sets should be IntegerSetAttrs")
            if not is_hyper_rectangular(idx_set.data):
                raise VerifyException("idx_set should be hyper rectangular")


@sorted_attr_dict
@irdl_op_definition
class SendOp(IRDLOperation):
    """`dataflow.send %to, %data {dir = #dataflow<direction Clockwise>} : vector<128xi8>`:
    sends a vector to unit (or group) `%to`."""

    name = "dataflow.send"

    to_unit = operand_def(IndexType)
    send_data = operand_def()  # VECTOR_TYPES, checked with MLIR's message
    dir = opt_prop_def(DataflowRoutingDirectionAttr)
    dbgName = opt_prop_def(StringAttr)
    traits = traits_def(DebugNameOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$to_unit `,` $send_data attr-dict `:` type($send_data)"

    def verify_(self) -> None:
        _check_type("operand #1", self.send_data.type, *VECTOR_TYPES)


@sorted_attr_dict
@irdl_op_definition
class ReceiveOp(IRDLOperation):
    """`%data = dataflow.receive %from : vector<128xi8>`: receives a vector from unit `%from`."""

    name = "dataflow.receive"

    from_unit = operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    data = result_def()  # VECTOR_TYPES, checked with MLIR's message
    traits = traits_def(DebugNameOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$from_unit attr-dict `:` type($data)"

    def verify_(self) -> None:
        _check_type("result #0", self.data.type, *VECTOR_TYPES)


@sorted_attr_dict
@irdl_op_definition
class OpaqueOp(IRDLOperation):
    """`dataflow.opaque {func_name = "reciprocal", parameter_dictionary = {...},
    read_only_register_dictionary = {...}, read_write_register_dictionary = {...}}`:
    a call of an auxiliary function with its registers and parameters."""

    name = "dataflow.opaque"

    dbgName = opt_prop_def(StringAttr)
    func_name = prop_def(StringAttr)
    read_write_register_dictionary = prop_def(DictionaryAttr)
    read_only_register_dictionary = prop_def(DictionaryAttr)
    parameter_dictionary = prop_def(DictionaryAttr)
    traits = traits_def(DebugNameOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"


# ===========================================================================
# Helpers
# ===========================================================================


def is_hyper_rectangular(aset: AffineSet) -> bool:
    """Whether each constraint of `aset` bounds at most one dim or symbol (MLIR's
    `FlatLinearValueConstraints::isHyperRectangular` over all its variables);
    a constraint that is not linear (`mod`, `floordiv` of a dim) is not."""
    from spyre_mlir.analysis.affine import Linear, linear_form  # NumPy only when a paged view is verified

    dims = [Linear(0, {("d", i): 1}) for i in range(aset.num_dims)]
    syms = [Linear(0, {("s", i): 1}) for i in range(aset.num_symbols)]
    for constraint in aset.constraints:
        form = linear_form(constraint.lhs - constraint.rhs, dims, syms)
        if form is None or len(form.terms) > 1:
            return False
    return True


def _ensure_terminator(region: Region, terminator: type[IRDLOperation]) -> None:
    """MLIR's `ensureTerminator`: an empty region gets a block, a block without
    `terminator` at its end gets one."""
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks.first
    assert block is not None
    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
        block.add_op(terminator.create())


VECTOR_TYPES = ((VectorType, CustomVectorType), "vector of any type values or Dataflow custom vector type")
"""`AnyTypeOf<[AnyVectorOfAnyRank, Dataflow_CustomVectorType]>`: the types and MLIR's summary."""

MEMREF_TYPES = ((MemRefType,), "memref of any type values")
"""`AnyTypeOf<[AnyMemRef]>` (ranked memrefs): the types and MLIR's summary."""


def _check_type(what: str, value_type: Attribute, kinds: tuple[type, ...], summary: str) -> None:
    """An ODS type constraint, with MLIR's message: `what` must be `summary`."""
    if not isinstance(value_type, kinds):
        raise VerifyException(f"{what} must be {summary}, but got '{value_type}'")


def _check_i32(op: Operation, *names: str) -> None:
    """MLIR's `I32Attr` constraint on each of the properties `names`."""
    for name in names:
        value = op.properties.get(name)
        if isinstance(value, IntegerAttr) and value.type != i32:
            raise VerifyException(f"attribute '{name}' failed to satisfy constraint: 32-bit signless integer attribute")


DATAFLOW = Dialect(
    "dataflow",
    [
        GetUnitOp,
        GetLocalUnitOp,
        ProgramUnitOp,
        ReturnOp,
        CreateGroupOp,
        CreateMulticastGroupOp,
        SyncSendOp,
        SyncRecvOp,
        ImplicitSyncOnStreamingBufferOp,
        GetLogicalMemoryViewOp,
        GetPagedLogicalMemoryViewOp,
        SendOp,
        ReceiveOp,
        OpaqueOp,
    ],
    [
        DataflowRoutingDirectionAttr,
        CustomVectorType,
        CustomMXFloatType,
        CustomMXIntType,
        CustomMXType,
    ],
)
