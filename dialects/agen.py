"""The `agen` dialect (dataflow-scheduler's Agen/Agen.td, AgenEnums.td): the
address generators of a Spyre core, which move vectors between memory views
(typically `dataflow.get_logical_memory_view`s) and the compute chain:

    %data = agen.vector_load %l1_view[0, 0]
      {load_order = affine_map<(d0, d1) -> (d1, d0)>,
       load_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 == 0)>}
      : memref<8x16xi8>, vector<8xi8>

A subscript list `%m[%i + 1, 0]` is an affine map of SSA names, as
`affine.load`'s: each distinct name is a dim, `symbol(%n)` a symbol. The
composite ops run their region once per time step (`time_set`,
`time_order`, `*_time_addr_map`), its argument the vector loaded then.

Syntax is upstream's: the .td's assembly formats (`yield`, `vector_load`,
`vector_store`) and, for the others, the parsers and printers of
dataflow-scheduler-mlir-dialects' lib/Dialect/Agen/Agen.cpp, with its
verifiers (its parse-time checks are verifier rules here, so the generic
form is checked too). Where upstream breaks a printed op over several lines
it is printed on one here. Parsed, verified and printed back, never executed
(spyre_mlir.ir.LOWERING_DIALECTS).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    VectorType,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
    ReturnLike,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from spyre_mlir.dialects.dataflow import CustomVectorType, GetLogicalMemoryViewOp, sorted_attr_dict
from spyre_mlir.dialects.format_helpers import (
    AngleBracketEnum,
    SSAAffineSpace,
    print_attrs_sorted,
    print_ssa_expr,
    split_props,
)

# ---------------------------------------------------------------------------
# Enum (AgenEnums.td)
# ---------------------------------------------------------------------------


class AgenRoutingDirection(StrEnum):
    PSEUDO_RANDOM = "PseudoRandom"
    COUNTER_CLOCKWISE = "CounterClockwise"
    CLOCKWISE = "Clockwise"
    BOTH_WAYS = "BothWays"


@irdl_attr_definition
class AgenRoutingDirectionAttr(AngleBracketEnum, EnumAttribute[AgenRoutingDirection]):
    """`#agen.direction<Clockwise>`: how a transfer is routed."""

    name = "agen.direction"


VECTOR_LIKE = VectorType | CustomVectorType
"""`AnyTypeOf<[AnyVectorOfAnyRank, Dataflow_CustomVectorType]>`."""

# ---------------------------------------------------------------------------
# Subscripts: an affine map of SSA names (Agen.cpp's custom<AffineMapOfSSAIds>)
# ---------------------------------------------------------------------------


def parse_map_of_ssa_ids(parser: Parser) -> tuple[AffineMapAttr, list[SSAValue]]:
    """`[expr, ...]` over SSA names: the map (distinct names are its dims, in
    order of appearance, then `symbol(%x)`s its symbols) and its index operands."""
    space = SSAAffineSpace(parser)
    exprs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, space.parse_expr)
    operands = [parser.resolve_operand(o, IndexType()) for o in (*space.dims, *space.syms)]
    return AffineMapAttr(AffineMap(len(space.dims), len(space.syms), tuple(exprs))), operands


def print_map_of_ssa_ids(printer: Printer, map_attr: AffineMapAttr | None, operands: Sequence[SSAValue]) -> None:
    """`[expr, ...]`, dim i printed as `operands[i]`, symbol j as `symbol(<operands[dims + j]>)`."""
    printer.print_string("[")
    if map_attr is not None:
        amap = map_attr.data
        if len(operands) != amap.num_dims + amap.num_symbols:
            # Only a module that does not verify gets here: print the map itself.
            printer.print_string(f"<<map of {len(operands)} operands: {amap}>>")
        else:
            dims, syms = operands[: amap.num_dims], operands[amap.num_dims :]
            printer.print_list(amap.results, lambda e: print_ssa_expr(printer, e, dims, syms))
    printer.print_string("]")


def _operand_list(parser: Parser) -> list[UnresolvedOperand]:
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)


def _print_values(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_ssa_value)


def _segments(*sizes: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, list(sizes))


def _with_yield(region: Region, block_args: Sequence[Attribute] = ()) -> Region:
    """`region` with one block ending in `agen.yield` (added if absent), as
    MLIR's SingleBlockImplicitTerminator::ensureTerminator makes it."""
    if not region.blocks:
        region.add_block(Block(arg_types=block_args))
    block = region.blocks[0]
    if block.last_op is None or not block.last_op.has_trait(IsTerminator):
        block.add_op(YieldOp())
    return region


def _check_set_and_order(
    op: Operation, what: str, aset: AffineSetAttr, order: AffineMapAttr, subscripts: AffineMapAttr | None, array: str
) -> None:
    """Agen.cpp's two rules of an element set and order: the set spans at least
    the subscripted array's dims, and the order has the set's dims."""
    if subscripts is not None and aset.data.num_dims < len(subscripts.data.results):
        raise VerifyException(f"{what} set and {array} dimensions should match")
    if aset.data.num_dims != order.data.num_dims:
        raise VerifyException(f"{what} set and order dimensions should match")


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`agen.yield %v : T`: yields zero or more values to the parent op."""

    name = "agen.yield"
    operands_ = var_operand_def()
    traits = traits_def(NoMemoryEffect(), IsTerminator(), ReturnLike())
    assembly_format = "attr-dict ($operands_^ `:` type($operands_))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


_IMPLICIT_YIELD = SingleBlockImplicitTerminator(YieldOp)


@irdl_op_definition
class VectorLoadOp(IRDLOperation):
    """`%v = agen.vector_load %view[%i, 0] [multicast_info = %mc] {load_set = ..., load_order = ...}
    : memref<...>, vector<...>`: the elements `load_set` picks from the
    subscripted address, packed into the vector in `load_order`."""

    name = "agen.vector_load"
    mem_ref = operand_def(MemRefType)
    map_operands = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    affine_map = prop_def(AffineMapAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    result = result_def(VECTOR_LIKE)
    traits = traits_def(MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> VectorLoadOp:
        mem_ref = parser.parse_unresolved_operand()
        amap, map_operands = parse_map_of_ssa_ids(parser)
        multicast: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("multicast_info") is not None:
            parser.parse_punctuation("=")
            multicast.append(parser.parse_unresolved_operand())
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        mem_ref_type = parser.parse_type()
        parser.parse_punctuation(",")
        result_type = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(mem_ref, mem_ref_type),
                *map_operands,
                *(parser.resolve_operand(m, IndexType()) for m in multicast),
            ],
            result_types=[result_type],
            properties={**props, "affine_map": amap, "operandSegmentSizes": _segments(1, len(map_operands), len(multicast))},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.mem_ref)
        print_map_of_ssa_ids(printer, self.affine_map, self.map_operands)
        if self.multicast_info is not None:
            printer.print_string(" multicast_info = ")
            printer.print_ssa_value(self.multicast_info)
        print_attrs_sorted(printer, self, {"affine_map", "operandSegmentSizes"})
        printer.print_string(" : ")
        printer.print_attribute(self.mem_ref.type)
        printer.print_string(", ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        _check_map_operands(self.affine_map, self.map_operands)


def _check_map_operands(map_attr: AffineMapAttr, operands: Sequence[SSAValue]) -> None:
    inputs = map_attr.data.num_dims + map_attr.data.num_symbols
    if inputs != len(operands):
        raise VerifyException(f"expected {inputs} map operands, but got {len(operands)}")


@irdl_op_definition
class VectorStoreOp(IRDLOperation):
    """`agen.vector_store %v, %view[%i, 0] {store_set = ..., store_order = ...} : memref<...>, vector<...>`:
    the counterpart of `agen.vector_load`."""

    name = "agen.vector_store"
    value_to_store = operand_def(VECTOR_LIKE)
    mem_ref = operand_def(MemRefType)
    map_operands = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    affine_map = prop_def(AffineMapAttr)
    store_set = prop_def(AffineSetAttr)
    store_order = prop_def(AffineMapAttr)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser) -> VectorStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        mem_ref = parser.parse_unresolved_operand()
        amap, map_operands = parse_map_of_ssa_ids(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        mem_ref_type = parser.parse_type()
        parser.parse_punctuation(",")
        value_type = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(value, value_type), parser.resolve_operand(mem_ref, mem_ref_type), *map_operands],
            properties={**props, "affine_map": amap},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value_to_store)
        printer.print_string(", ")
        printer.print_ssa_value(self.mem_ref)
        print_map_of_ssa_ids(printer, self.affine_map, self.map_operands)
        print_attrs_sorted(printer, self, {"affine_map"})
        printer.print_string(" : ")
        printer.print_attribute(self.mem_ref.type)
        printer.print_string(", ")
        printer.print_attribute(self.value_to_store.type)

    def verify_(self) -> None:
        _check_map_operands(self.affine_map, self.map_operands)


def _parse_load_iv(parser: Parser):
    """`load_iv(%v:T)`: the region's argument, the vector loaded at a time step."""
    parser.parse_keyword("load_iv")
    parser.parse_punctuation("(")
    arg = parser.parse_argument(expect_type=True)
    parser.parse_punctuation(")")
    return arg


def _print_load_iv(printer: Printer, region: Region, keyword: bool = True) -> None:
    arg = region.blocks[0].args[0] if region.blocks and region.blocks[0].args else None
    printer.print_string("load_iv(" if keyword else "(")
    if arg is not None:
        printer.print_ssa_value(arg)
        printer.print_string(":")
        printer.print_attribute(arg.type)
    printer.print_string(")")


def _print_body(printer: Printer, region: Region, terminators: bool = True) -> None:
    printer.print_string(" ")
    printer.print_region(region, print_entry_block_args=False, print_block_terminators=terminators)


def _check_load_iv(op: Operation, region: Region) -> None:
    if not region.blocks or len(region.blocks[0].args) != 1:
        raise VerifyException("the region takes one argument, the vector loaded at a time step (load_iv)")


@irdl_op_definition
class CompositeLoadAndStoreOp(IRDLOperation):
    """`agen.composite_load_and_store src:%s[...] dst:%d[...] time_symbols(...), load_iv(%v:T)
    [, multicast_info = %mc] {attrs} {region} : Ts, Td`: at each time step,
    loads from one address and stores into another (core <-> memory moves)."""

    name = "agen.composite_load_and_store"
    src_mem_ref = operand_def(MemRefType)
    dst_mem_ref = operand_def(MemRefType)
    src_map_operands = var_operand_def(IndexType)
    dst_map_operands = var_operand_def(IndexType)
    time_symbols = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    src_map = prop_def(AffineMapAttr)
    dst_map = prop_def(AffineMapAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    store_set = prop_def(AffineSetAttr)
    store_order = prop_def(AffineMapAttr)
    time_set = prop_def(AffineSetAttr)
    time_order = prop_def(AffineMapAttr)
    load_time_addr_map = prop_def(AffineMapAttr)
    store_time_addr_map = prop_def(AffineMapAttr)
    dir = opt_prop_def(AgenRoutingDirectionAttr)
    region = region_def("single_block")
    traits = traits_def(_IMPLICIT_YIELD)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeLoadAndStoreOp:
        parser.parse_keyword("src")
        parser.parse_punctuation(":")
        src = parser.parse_unresolved_operand()
        src_map, src_operands = parse_map_of_ssa_ids(parser)
        parser.parse_keyword("dst")
        parser.parse_punctuation(":")
        dst = parser.parse_unresolved_operand()
        dst_map, dst_operands = parse_map_of_ssa_ids(parser)
        parser.parse_keyword("time_symbols")
        time_symbols = _operand_list(parser)
        parser.parse_punctuation(",")
        load_iv = _parse_load_iv(parser)
        multicast: list[UnresolvedOperand] = []
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("multicast_info")
            parser.parse_punctuation("=")
            multicast.append(parser.parse_unresolved_operand())
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = _with_yield(parser.parse_region([load_iv]))
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation(",")
        dst_type = parser.parse_type()
        index = IndexType()
        return cls.create(
            operands=[
                parser.resolve_operand(src, src_type),
                parser.resolve_operand(dst, dst_type),
                *src_operands,
                *dst_operands,
                *(parser.resolve_operand(t, index) for t in time_symbols),
                *(parser.resolve_operand(m, index) for m in multicast),
            ],
            properties={
                **props,
                "src_map": src_map,
                "dst_map": dst_map,
                "operandSegmentSizes": _segments(
                    1, 1, len(src_operands), len(dst_operands), len(time_symbols), len(multicast)
                ),
            },
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" src:")
        printer.print_ssa_value(self.src_mem_ref)
        print_map_of_ssa_ids(printer, self.src_map, self.src_map_operands)
        printer.print_string(" dst:")
        printer.print_ssa_value(self.dst_mem_ref)
        print_map_of_ssa_ids(printer, self.dst_map, self.dst_map_operands)
        printer.print_string(" time_symbols(")
        _print_values(printer, self.time_symbols)
        printer.print_string("), ")
        _print_load_iv(printer, self.region)
        if self.multicast_info is not None:
            printer.print_string(", multicast_info = ")
            printer.print_ssa_value(self.multicast_info)
        print_attrs_sorted(printer, self, {"src_map", "dst_map", "operandSegmentSizes"})
        _print_body(printer, self.region)
        printer.print_string(" : ")
        printer.print_attribute(self.src_mem_ref.type)
        printer.print_string(", ")
        printer.print_attribute(self.dst_mem_ref.type)

    def verify_(self) -> None:
        _check_set_and_order(self, "load", self.load_set, self.load_order, self.src_map, "src array")
        _check_set_and_order(self, "store", self.store_set, self.store_order, self.dst_map, "dst array")
        _check_map_operands(self.src_map, self.src_map_operands)
        _check_map_operands(self.dst_map, self.dst_map_operands)
        _check_load_iv(self, self.region)


@irdl_op_definition
class CompositeLoadOp(IRDLOperation):
    """`agen.composite_load %m[...] time_symbols(...)(%v:T) {attrs} {region} : memref<...>`:
    a load at each time step, the region consuming the vector."""

    name = "agen.composite_load"
    mem_ref = operand_def(MemRefType)
    map_operands = var_operand_def(IndexType)
    time_symbols = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    affine_map = prop_def(AffineMapAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    time_set = prop_def(AffineSetAttr)
    time_order = prop_def(AffineMapAttr)
    time_addr_map = prop_def(AffineMapAttr)
    region = region_def("single_block")
    traits = traits_def(_IMPLICIT_YIELD, MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeLoadOp:
        mem_ref = parser.parse_unresolved_operand()
        amap, map_operands = parse_map_of_ssa_ids(parser)
        parser.parse_keyword("time_symbols")
        time_symbols = _operand_list(parser)
        parser.parse_punctuation("(")
        load_iv = parser.parse_argument(expect_type=True)
        parser.parse_punctuation(")")
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = _with_yield(parser.parse_region([load_iv]))
        parser.parse_punctuation(":")
        mem_ref_type = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(mem_ref, mem_ref_type),
                *map_operands,
                *(parser.resolve_operand(t, IndexType()) for t in time_symbols),
            ],
            properties={
                **props,
                "affine_map": amap,
                "operandSegmentSizes": _segments(1, len(map_operands), len(time_symbols)),
            },
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.mem_ref)
        print_map_of_ssa_ids(printer, self.affine_map, self.map_operands)
        printer.print_string(" time_symbols(")
        _print_values(printer, self.time_symbols)
        printer.print_string(")")
        _print_load_iv(printer, self.region, keyword=False)
        print_attrs_sorted(printer, self, {"affine_map", "operandSegmentSizes"})
        _print_body(printer, self.region)
        printer.print_string(" : ")
        printer.print_attribute(self.mem_ref.type)

    def verify_(self) -> None:
        _check_set_and_order(self, "load", self.load_set, self.load_order, self.affine_map, "Array")
        _check_map_operands(self.affine_map, self.map_operands)
        _check_load_iv(self, self.region)


@irdl_op_definition
class CompositeStoreOp(IRDLOperation):
    """`agen.composite_store %m[...] time_symbols(...) {store_set = ..., store_order = ...} {region} : memref<...>`,
    or with a vector to store instead of the region and the set/order:
    `agen.composite_store %m[...] input_vector=%v time_symbols(...) {attrs} : memref<...> , vector<...>`."""

    name = "agen.composite_store"
    mem_ref = operand_def(MemRefType)
    map_operands = var_operand_def(IndexType)
    input_vector = opt_operand_def(VECTOR_LIKE)
    time_symbols = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    affine_map = prop_def(AffineMapAttr)
    store_set = opt_prop_def(AffineSetAttr)
    store_order = opt_prop_def(AffineMapAttr)
    time_set = prop_def(AffineSetAttr)
    time_order = prop_def(AffineMapAttr)
    time_addr_map = prop_def(AffineMapAttr)
    region = region_def()
    traits = traits_def(_IMPLICIT_YIELD, MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeStoreOp:
        start = parser.pos
        mem_ref = parser.parse_unresolved_operand()
        amap, map_operands = parse_map_of_ssa_ids(parser)
        input_vector: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("input_vector") is not None:
            parser.parse_punctuation("=")
            input_vector.append(parser.parse_unresolved_operand())
        parser.parse_keyword("time_symbols")
        time_symbols = _operand_list(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = parser.parse_optional_region()
        if region is not None and input_vector:
            parser.raise_error("for composite_store, input_vector and region can't co-exist", start, parser.pos)
        region = _with_yield(region or Region())
        parser.parse_punctuation(":")
        mem_ref_type = parser.parse_type()
        vector_types = []
        if input_vector:
            parser.parse_punctuation(",")
            vector_types.append(parser.parse_type())
            # The form with an input vector stores it in order: upstream sets the identity.
            props["store_order"] = AffineMapAttr(AffineMap.identity(len(amap.data.results)))
        return cls.create(
            operands=[
                parser.resolve_operand(mem_ref, mem_ref_type),
                *map_operands,
                *(parser.resolve_operand(v, t) for v, t in zip(input_vector, vector_types)),
                *(parser.resolve_operand(t, IndexType()) for t in time_symbols),
            ],
            properties={
                **props,
                "affine_map": amap,
                "operandSegmentSizes": _segments(1, len(map_operands), len(input_vector), len(time_symbols)),
            },
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.mem_ref)
        print_map_of_ssa_ids(printer, self.affine_map, self.map_operands)
        if self.input_vector is not None:
            printer.print_string(" input_vector=")
            printer.print_ssa_value(self.input_vector)
        printer.print_string(" time_symbols(")
        _print_values(printer, self.time_symbols)
        printer.print_string(")")
        elided = {"affine_map", "operandSegmentSizes"}
        if self.input_vector is not None:
            elided |= {"store_order", "store_set"}
        print_attrs_sorted(printer, self, elided)
        if self.input_vector is None:
            _print_body(printer, self.region)
        printer.print_string(" : ")
        printer.print_attribute(self.mem_ref.type)
        if self.input_vector is not None:
            printer.print_string(" , ")
            printer.print_attribute(self.input_vector.type)

    def verify_(self) -> None:
        _check_map_operands(self.affine_map, self.map_operands)
        if self.input_vector is not None:
            # Upstream's rule reads "has store_set/order == has input vector", but its
            # parser gives the input-vector form the identity order: the order is
            # allowed there, the set is not (see docs/agen.md).
            if self.store_set is not None:
                raise VerifyException("either store_set/order or input vector has to be present in composite store")
            block = self.region.blocks[0] if self.region.blocks else None
            if block is not None and list(block.ops) and not isinstance(block.first_op, YieldOp):
                raise VerifyException("for composite_store, input_vector and region can't co-exist")
            return
        if self.store_set is None or self.store_order is None:
            raise VerifyException("either store_set/order or input vector has to be present in composite store")
        _check_set_and_order(self, "store", self.store_set, self.store_order, self.affine_map, "Array")


def _parse_memref_access(parser: Parser, keyword: str, optional: bool = False):
    """`keyword:%m[...]`: the memref (unresolved) with its map and index operands; None if optional and absent."""
    if optional:
        if parser.parse_optional_keyword(keyword) is None:
            return None
    else:
        parser.parse_keyword(keyword)
    parser.parse_punctuation(":")
    memref = parser.parse_unresolved_operand()
    amap, operands = parse_map_of_ssa_ids(parser)
    return memref, amap, operands


def _print_memref_access(printer: Printer, keyword: str, memref: SSAValue, amap: AffineMapAttr | None, operands) -> None:
    printer.print_string(f" {keyword}:")
    printer.print_ssa_value(memref)
    print_map_of_ssa_ids(printer, amap, operands)


def _parse_multicast(parser: Parser) -> list[UnresolvedOperand]:
    if parser.parse_optional_keyword("multicast_info") is None:
        return []
    parser.parse_punctuation("=")
    return [parser.parse_unresolved_operand()]


def _print_multicast(printer: Printer, multicast: SSAValue | None) -> None:
    if multicast is not None:
        printer.print_string(" multicast_info = ")
        printer.print_ssa_value(multicast)


def _parse_memref_types(parser: Parser, count: int) -> list[Attribute]:
    types = [parser.parse_type()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
    return types


def _check_indirect(
    op: Operation, what: str, aset: AffineSetAttr, order: AffineMapAttr, direct_map: AffineMapAttr | None, array: str
) -> None:
    """Agen.cpp's checks of the indirect ops (made when it parses them)."""
    if direct_map is not None and aset.data.num_dims < len(direct_map.data.results):
        raise VerifyException(f"{what} set and {array} dimensions should match")
    if aset.data.num_dims != order.data.num_dims:
        raise VerifyException(f"{what} set and order dimensions should match")


_LOAD_AND_STORE_MAPS = ("indirect_src_map", "direct_src_map", "indirect_dst_map", "direct_dst_map")
"""The subscript maps of composite_indirect_load_and_store, in the order of its accesses."""


@irdl_op_definition
class CompositeIndirectLoadAndStoreOp(IRDLOperation):
    """`agen.composite_indirect_load_and_store [indirect_src:%a[...]] direct_src:%b[...]
    [indirect_dst:%c[...]] direct_dst:%d[...] [multicast_info = %mc] time_symbols(...), load_iv(%v:T)
    {attrs} {region} : [Ta, ] Tb, [Tc, ] Td`: a load and a store at each
    time step, each address optionally read from an index memref."""

    name = "agen.composite_indirect_load_and_store"
    indirect_src_memref = opt_operand_def(MemRefType)
    direct_src_memref = operand_def(MemRefType)
    indirect_dst_memref = opt_operand_def(MemRefType)
    direct_dst_memref = operand_def(MemRefType)
    indirect_src_map_indices = var_operand_def(IndexType)
    direct_src_map_indices = var_operand_def(IndexType)
    indirect_dst_map_indices = var_operand_def(IndexType)
    direct_dst_map_indices = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    time_symbols = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    indirect_src_map = opt_prop_def(AffineMapAttr)
    direct_src_map = opt_prop_def(AffineMapAttr)
    indirect_dst_map = opt_prop_def(AffineMapAttr)
    direct_dst_map = opt_prop_def(AffineMapAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    store_set = prop_def(AffineSetAttr)
    store_order = prop_def(AffineMapAttr)
    time_set = prop_def(AffineSetAttr)
    time_order = prop_def(AffineMapAttr)
    load_indirect_time_addr_map = opt_prop_def(AffineMapAttr)
    load_direct_time_addr_map = prop_def(AffineMapAttr)
    store_indirect_time_addr_map = opt_prop_def(AffineMapAttr)
    store_direct_time_addr_map = prop_def(AffineMapAttr)
    region = region_def("single_block")
    traits = traits_def(_IMPLICIT_YIELD)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeIndirectLoadAndStoreOp:
        accesses = [
            _parse_memref_access(parser, "indirect_src", optional=True),
            _parse_memref_access(parser, "direct_src"),
            _parse_memref_access(parser, "indirect_dst", optional=True),
            _parse_memref_access(parser, "direct_dst"),
        ]
        multicast = _parse_multicast(parser)
        parser.parse_keyword("time_symbols")
        time_symbols = _operand_list(parser)
        parser.parse_punctuation(",")
        load_iv = _parse_load_iv(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = _with_yield(parser.parse_region([load_iv]))
        present = [a for a in accesses if a is not None]
        parser.parse_punctuation(":")
        types = _parse_memref_types(parser, len(present))
        index = IndexType()
        memrefs = [parser.resolve_operand(a[0], t) for a, t in zip(present, types)]
        for name, access in zip(_LOAD_AND_STORE_MAPS, accesses):
            if access is not None:
                props[name] = access[1]
        return cls.create(
            operands=[
                *memrefs,
                *(o for a in present for o in a[2]),
                *(parser.resolve_operand(m, index) for m in multicast),
                *(parser.resolve_operand(t, index) for t in time_symbols),
            ],
            properties={
                **props,
                "operandSegmentSizes": _segments(
                    *(int(a is not None) for a in accesses),
                    *(len(a[2]) if a is not None else 0 for a in accesses),
                    len(multicast),
                    len(time_symbols),
                ),
            },
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        accesses = (
            ("indirect_src", self.indirect_src_memref, self.indirect_src_map, self.indirect_src_map_indices),
            ("direct_src", self.direct_src_memref, self.direct_src_map, self.direct_src_map_indices),
            ("indirect_dst", self.indirect_dst_memref, self.indirect_dst_map, self.indirect_dst_map_indices),
            ("direct_dst", self.direct_dst_memref, self.direct_dst_map, self.direct_dst_map_indices),
        )
        for keyword, memref, amap, operands in accesses:
            if memref is not None:
                _print_memref_access(printer, keyword, memref, amap, operands)
        _print_multicast(printer, self.multicast_info)
        printer.print_string(" time_symbols(")
        _print_values(printer, self.time_symbols)
        printer.print_string("), ")
        _print_load_iv(printer, self.region)
        print_attrs_sorted(printer, self, {*_LOAD_AND_STORE_MAPS, "operandSegmentSizes"})
        _print_body(printer, self.region)
        printer.print_string(" : ")
        printer.print_list([m.type for _, m, _, _ in accesses if m is not None], printer.print_attribute)

    def verify_(self) -> None:
        _check_indirect(self, "load", self.load_set, self.load_order, self.direct_src_map, "direct src array")
        _check_indirect(self, "store", self.store_set, self.store_order, self.direct_dst_map, "direct dst array")
        _check_load_iv(self, self.region)


class _IndirectPair(IRDLOperation):
    """The shared custom form of the indirect ops with one indirect and one
    direct memref: `indirect:%a[...] direct:%b[...] [multicast_info = %mc]`."""

    def _print_pair(self, printer: Printer) -> None:
        _print_memref_access(printer, "indirect", self.indirect_memref, self.indirect_map, self.indirect_map_indices)  # pyright: ignore
        _print_memref_access(printer, "direct", self.direct_memref, self.direct_map, self.direct_map_indices)  # pyright: ignore
        _print_multicast(printer, self.multicast_info)  # pyright: ignore

    @staticmethod
    def _parse_pair(parser: Parser):
        indirect = _parse_memref_access(parser, "indirect")
        direct = _parse_memref_access(parser, "direct")
        return indirect, direct, _parse_multicast(parser)


@irdl_op_definition
class CompositeIndirectLoadOp(_IndirectPair):
    """`agen.composite_indirect_load indirect:%a[...] direct:%b[...] [multicast_info = %mc]
    time_symbols(...), load_iv(%v:T) {attrs} {region} : Ta, Tb`."""

    name = "agen.composite_indirect_load"
    indirect_memref = operand_def(MemRefType)
    direct_memref = operand_def(MemRefType)
    indirect_map_indices = var_operand_def(IndexType)
    direct_map_indices = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    time_symbols = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    indirect_map = prop_def(AffineMapAttr)
    direct_map = prop_def(AffineMapAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    time_set = prop_def(AffineSetAttr)
    time_order = prop_def(AffineMapAttr)
    time_addr_map = prop_def(AffineMapAttr)
    region = region_def("single_block")
    traits = traits_def(_IMPLICIT_YIELD)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeIndirectLoadOp:
        indirect, direct, multicast = cls._parse_pair(parser)
        parser.parse_keyword("time_symbols")
        time_symbols = _operand_list(parser)
        parser.parse_punctuation(",")
        load_iv = _parse_load_iv(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = _with_yield(parser.parse_region([load_iv]))
        parser.parse_punctuation(":")
        types = _parse_memref_types(parser, 2)
        index = IndexType()
        return cls.create(
            operands=[
                parser.resolve_operand(indirect[0], types[0]),
                parser.resolve_operand(direct[0], types[1]),
                *indirect[2],
                *direct[2],
                *(parser.resolve_operand(m, index) for m in multicast),
                *(parser.resolve_operand(t, index) for t in time_symbols),
            ],
            properties={
                **props,
                "indirect_map": indirect[1],
                "direct_map": direct[1],
                "operandSegmentSizes": _segments(1, 1, len(indirect[2]), len(direct[2]), len(multicast), len(time_symbols)),
            },
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        self._print_pair(printer)
        printer.print_string(" time_symbols(")
        _print_values(printer, self.time_symbols)
        printer.print_string("), ")
        _print_load_iv(printer, self.region)
        print_attrs_sorted(printer, self, {"indirect_map", "direct_map", "operandSegmentSizes"})
        _print_body(printer, self.region)
        printer.print_string(" : ")
        printer.print_list([self.indirect_memref.type, self.direct_memref.type], printer.print_attribute)

    def verify_(self) -> None:
        _check_indirect(self, "load", self.load_set, self.load_order, self.direct_map, "direct src array")
        _check_load_iv(self, self.region)


@irdl_op_definition
class CompositeIndirectStoreOp(_IndirectPair):
    """`agen.composite_indirect_store indirect:%a[...] direct:%b[...] [multicast_info = %mc]
    time_symbols(...) {attrs} {region} : Ta, Tb` (the region takes no argument)."""

    name = "agen.composite_indirect_store"
    indirect_memref = operand_def(MemRefType)
    direct_memref = operand_def(MemRefType)
    indirect_map_indices = var_operand_def(IndexType)
    direct_map_indices = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    time_symbols = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    indirect_map = prop_def(AffineMapAttr)
    direct_map = prop_def(AffineMapAttr)
    store_set = prop_def(AffineSetAttr)
    store_order = prop_def(AffineMapAttr)
    time_set = prop_def(AffineSetAttr)
    time_order = prop_def(AffineMapAttr)
    time_addr_map = prop_def(AffineMapAttr)
    region = region_def("single_block")
    traits = traits_def(_IMPLICIT_YIELD)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeIndirectStoreOp:
        indirect, direct, multicast = cls._parse_pair(parser)
        parser.parse_keyword("time_symbols")
        time_symbols = _operand_list(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = _with_yield(parser.parse_region())
        parser.parse_punctuation(":")
        types = _parse_memref_types(parser, 2)
        index = IndexType()
        return cls.create(
            operands=[
                parser.resolve_operand(indirect[0], types[0]),
                parser.resolve_operand(direct[0], types[1]),
                *indirect[2],
                *direct[2],
                *(parser.resolve_operand(m, index) for m in multicast),
                *(parser.resolve_operand(t, index) for t in time_symbols),
            ],
            properties={
                **props,
                "indirect_map": indirect[1],
                "direct_map": direct[1],
                "operandSegmentSizes": _segments(1, 1, len(indirect[2]), len(direct[2]), len(multicast), len(time_symbols)),
            },
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        self._print_pair(printer)
        printer.print_string(" time_symbols(")
        _print_values(printer, self.time_symbols)
        printer.print_string(")")
        print_attrs_sorted(printer, self, {"indirect_map", "direct_map", "operandSegmentSizes"})
        _print_body(printer, self.region)
        printer.print_string(" : ")
        printer.print_list([self.indirect_memref.type, self.direct_memref.type], printer.print_attribute)

    def verify_(self) -> None:
        _check_indirect(self, "store", self.store_set, self.store_order, self.direct_map, "direct array")


@irdl_op_definition
class IndirectVectorLoadOp(_IndirectPair):
    """`%v = agen.indirect_vector_load indirect:%a[...] direct:%b[...] [multicast_info = %mc]
    {attrs} : Ta, Tb, T`."""

    name = "agen.indirect_vector_load"
    indirect_memref = operand_def(MemRefType)
    direct_memref = operand_def(MemRefType)
    indirect_map_indices = var_operand_def(IndexType)
    direct_map_indices = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    indirect_map = prop_def(AffineMapAttr)
    direct_map = prop_def(AffineMapAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    result = result_def(VECTOR_LIKE)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> IndirectVectorLoadOp:
        indirect, direct, multicast = cls._parse_pair(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        types = _parse_memref_types(parser, 3)
        return cls.create(
            operands=[
                parser.resolve_operand(indirect[0], types[0]),
                parser.resolve_operand(direct[0], types[1]),
                *indirect[2],
                *direct[2],
                *(parser.resolve_operand(m, IndexType()) for m in multicast),
            ],
            result_types=[types[2]],
            properties={
                **props,
                "indirect_map": indirect[1],
                "direct_map": direct[1],
                "operandSegmentSizes": _segments(1, 1, len(indirect[2]), len(direct[2]), len(multicast)),
            },
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        self._print_pair(printer)
        print_attrs_sorted(printer, self, {"indirect_map", "direct_map", "operandSegmentSizes"})
        printer.print_string(" : ")
        printer.print_list([self.indirect_memref.type, self.direct_memref.type, self.result.type], printer.print_attribute)

    def verify_(self) -> None:
        _check_indirect(self, "load", self.load_set, self.load_order, self.direct_map, "direct array")


@irdl_op_definition
class IndirectVectorStoreOp(_IndirectPair):
    """`agen.indirect_vector_store %v indirect:%a[...] direct:%b[...] [multicast_info = %mc]
    {attrs} : T, Ta, Tb`."""

    name = "agen.indirect_vector_store"
    value = operand_def()
    indirect_memref = operand_def(MemRefType)
    direct_memref = operand_def(MemRefType)
    indirect_map_indices = var_operand_def(IndexType)
    direct_map_indices = var_operand_def(IndexType)
    multicast_info = opt_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    indirect_map = prop_def(AffineMapAttr)
    direct_map = prop_def(AffineMapAttr)
    store_set = prop_def(AffineSetAttr)
    store_order = prop_def(AffineMapAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> IndirectVectorStoreOp:
        value = parser.parse_unresolved_operand()
        indirect, direct, multicast = cls._parse_pair(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        types = _parse_memref_types(parser, 3)
        return cls.create(
            operands=[
                parser.resolve_operand(value, types[0]),
                parser.resolve_operand(indirect[0], types[1]),
                parser.resolve_operand(direct[0], types[2]),
                *indirect[2],
                *direct[2],
                *(parser.resolve_operand(m, IndexType()) for m in multicast),
            ],
            properties={
                **props,
                "indirect_map": indirect[1],
                "direct_map": direct[1],
                "operandSegmentSizes": _segments(1, 1, 1, len(indirect[2]), len(direct[2]), len(multicast)),
            },
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        self._print_pair(printer)
        print_attrs_sorted(printer, self, {"indirect_map", "direct_map", "operandSegmentSizes"})
        printer.print_string(" : ")
        printer.print_list([self.value.type, self.indirect_memref.type, self.direct_memref.type], printer.print_attribute)

    def verify_(self) -> None:
        _check_indirect(self, "store", self.store_set, self.store_order, self.direct_map, "direct array")


_COMPOSITE_MEMORY_OPS = (
    "agen.composite_load_and_store",
    "agen.composite_load",
    "agen.composite_store",
    "agen.composite_indirect_load_and_store",
    "agen.composite_indirect_load",
    "agen.composite_indirect_store",
)


@irdl_op_definition
class CompositeMemoryInterleaveOp(IRDLOperation):
    """`agen.composite_memory_interleave {granularity = 64 : i32} { composite ops }`:
    interleaves the composite memory ops of its region in bursts of
    `granularity` elements (the hardware's largest burst when absent)."""

    name = "agen.composite_memory_interleave"
    dbgName = opt_prop_def(StringAttr)
    granularity = opt_prop_def(IntegerAttr.constr(type=i32))
    region = region_def("single_block")
    traits = traits_def(_IMPLICIT_YIELD)

    @classmethod
    def parse(cls, parser: Parser) -> CompositeMemoryInterleaveOp:
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        region = _with_yield(parser.parse_region())
        return cls.create(properties=props, attributes=attrs, regions=[region])

    def print(self, printer: Printer) -> None:
        if not self.properties and not self.attributes:
            printer.print_string(" {}")
        print_attrs_sorted(printer, self, set())
        _print_body(printer, self.region, terminators=False)

    def verify_(self) -> None:
        # The description's restrictions that the IR states: only composite memory
        # ops inside, all of one kind. (Bursts and the hardware's largest one are not in the IR.)
        inner = [op for op in self.region.ops if not isinstance(op, YieldOp)]
        for op in inner:
            if op.name not in _COMPOSITE_MEMORY_OPS:
                raise VerifyException(f"only composite memory operations are allowed in the region, found '{op.name}'")
        if len({op.name for op in inner}) > 1:
            raise VerifyException("all composite memory operations in the region must be the same operation type")


_MASK_PATTERN = re.compile(r"^\(\s*unmasked\s*=\s*(-?\d+)[^,]*,\s*masked\s*=\s*(-?\d+)[^)]*\)$")


@irdl_op_definition
class SetTransferMaskStateOp(IRDLOperation):
    """`%m = agen.set_transfer_mask_state mask_value(%c0) { num_slices = 8 : i32,
    slice_mask_map = "(A)(A)(A|B)(1)", maskA = "(unmasked = 6, masked = 2)", maskB = ... } :  index , vector<64xf16>`:
    the transfer mask of a unit. Each `maskX` string is read into
    `num_unmasked_elements` / `num_masked_elements` (X = A, B, ... in order)
    and printed back from them."""

    name = "agen.set_transfer_mask_state"
    mask_value = operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    num_slices = prop_def(IntegerAttr.constr(type=i32))
    slice_mask_map = prop_def(StringAttr)
    num_unmasked_elements = opt_prop_def(ArrayAttr[IntegerAttr])
    num_masked_elements = opt_prop_def(ArrayAttr[IntegerAttr])
    result = result_def(VectorType)
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser) -> SetTransferMaskStateOp:
        parser.parse_keyword("mask_value")
        parser.parse_punctuation("(")
        mask_value = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        pos = parser.pos
        entries = parser.parse_optional_attr_dict()
        masks: dict[str, tuple[int, int]] = {}
        for key in [k for k in entries if k.startswith("mask")]:
            text = entries.pop(key)
            if len(key) <= len("mask"):
                parser.raise_error("mask attribute is not properly labeled", pos, parser.pos)
            if not isinstance(text, StringAttr):
                parser.raise_error("mask attribute does not describe the mask pattern", pos, parser.pos)
            match = _MASK_PATTERN.match(text.data.strip())
            if match is None:
                parser.raise_error("cannot determine where unmasked/masked values are", pos, parser.pos)
            masks[key[len("mask") :]] = (int(match.group(1)), int(match.group(2)))
        if masks:
            expected = [chr(ord("A") + i) for i in range(len(masks))]
            if sorted(masks) != expected:
                parser.raise_error(f"masks are labeled A, B, ... in order: expected {', '.join('mask' + e for e in expected)}", pos, parser.pos)
            ordered = [masks[k] for k in expected]
            entries["num_unmasked_elements"] = ArrayAttr([IntegerAttr(u, i32) for u, _ in ordered])
            entries["num_masked_elements"] = ArrayAttr([IntegerAttr(m, i32) for _, m in ordered])
        props, attrs = split_props(cls, entries)
        parser.parse_punctuation(":")
        mask_type = parser.parse_type()
        parser.parse_punctuation(",")
        result_type = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(mask_value, mask_type)],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" mask_value(")
        printer.print_ssa_value(self.mask_value)
        printer.print_string(") { num_slices = ")
        printer.print_attribute(self.num_slices)
        printer.print_string(", slice_mask_map = ")
        printer.print_attribute(self.slice_mask_map)
        if self.num_unmasked_elements is not None and self.num_masked_elements is not None:
            pairs = zip(self.num_unmasked_elements.data, self.num_masked_elements.data)
            for i, (unmasked, masked) in enumerate(pairs):
                printer.print_string(
                    f', mask{chr(ord("A") + i)} = "(unmasked = {unmasked.value.data}, masked = {masked.value.data})"'
                )
        # Upstream prints only the fields above; the debug name and any other attribute are kept here.
        for name, value in sorted({**self.attributes, **({"dbgName": self.dbgName} if self.dbgName else {})}.items()):
            printer.print_string(f", {name} = ")
            printer.print_attribute(value)
        printer.print_string(" } :  ")
        printer.print_attribute(self.mask_value.type)
        printer.print_string(" , ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        unmasked, masked = self.num_unmasked_elements, self.num_masked_elements
        if unmasked is not None:
            if masked is None:
                raise VerifyException("cannot have unmasked values if there are no masked values")
            if len(unmasked.data) != len(masked.data):
                raise VerifyException("number of unmasked values and number of masked values must match")
        elif masked is not None:
            raise VerifyException("cannot have masked values if there are no unmasked values")


def _check_symbolic(op: Operation, memref: SSAValue, vector_type: Attribute, indices: int, strides: int) -> None:
    """Agen.cpp's rules of the symbolic vector ops."""
    memref_type = memref.type
    if not isinstance(memref_type, MemRefType):
        raise VerifyException("memref is not of MemRefType")
    if memref_type.get_num_dims() != 1:
        raise VerifyException("memref is not one dimensional")
    view = memref.owner
    if not isinstance(view, GetLogicalMemoryViewOp):
        raise VerifyException("memref should be a dataflow.get_logical_memory_view")
    layout = view.layout_map.data
    if layout != AffineMap.identity(layout.num_dims):
        raise VerifyException("memref layout map should be an identity map")
    if isinstance(vector_type, VectorType):
        if vector_type.get_num_dims() != 1:
            raise VerifyException("result type is not one dimensional")
        element = vector_type.get_element_type()
    elif isinstance(vector_type, CustomVectorType):
        element = vector_type.element_type
    else:
        raise VerifyException(f"expected a vector or a custom vector, got {vector_type}")
    if element != memref_type.get_element_type():
        raise VerifyException("result type does not match memref element type")
    if indices < 1:
        raise VerifyException("indices should not be empty")
    if strides != indices:
        raise VerifyException("strides should be the same size as indices")


def _parse_indices_and_strides(parser: Parser) -> tuple[list[UnresolvedOperand], list[UnresolvedOperand]]:
    """`[indices:(%a, ...), strides:(%s, ...)]`."""
    parser.parse_punctuation("[")
    parser.parse_keyword("indices")
    parser.parse_punctuation(":")
    indices = _operand_list(parser)
    parser.parse_punctuation(",")
    parser.parse_keyword("strides")
    parser.parse_punctuation(":")
    strides = _operand_list(parser)
    parser.parse_punctuation("]")
    return indices, strides


def _print_indices_and_strides(printer: Printer, indices: Sequence[SSAValue], strides: Sequence[SSAValue]) -> None:
    printer.print_string("[indices:(")
    _print_values(printer, indices)
    printer.print_string("), strides:(")
    _print_values(printer, strides)
    printer.print_string(")]")


class _SymbolicVectorOp(IRDLOperation):
    """`operands1` is the indices, then as many strides, then (loads) an optional multicast info."""

    @property
    def indices(self) -> Sequence[SSAValue]:
        return self.operands1[: self.num_indices.value.data]  # pyright: ignore

    @property
    def strides(self) -> Sequence[SSAValue]:
        n = self.num_indices.value.data  # pyright: ignore
        return self.operands1[n : n + self.num_strides.value.data]  # pyright: ignore


@irdl_op_definition
class SymbolicVectorLoadOp(_SymbolicVectorOp):
    """`%v = agen.symbolic_vector_load %m[indices:(%i), strides:(%s)][, multicast_info(%mc)] : memref<128xi8>, vector<128xi8>`:
    a vector load whose addresses are symbolic (SSA indices and strides)."""

    name = "agen.symbolic_vector_load"
    memref = operand_def(MemRefType)
    operands1 = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    load_set = prop_def(AffineSetAttr)
    load_order = prop_def(AffineMapAttr)
    num_indices = prop_def(IntegerAttr.constr(type=i32))
    num_strides = prop_def(IntegerAttr.constr(type=i32))
    result = result_def(VECTOR_LIKE)
    traits = traits_def(MemoryReadEffect())

    @property
    def multicast_info(self) -> SSAValue | None:
        extra = self.operands1[self.num_indices.value.data + self.num_strides.value.data :]
        return extra[0] if len(extra) == 1 else None

    @classmethod
    def parse(cls, parser: Parser) -> SymbolicVectorLoadOp:
        memref = parser.parse_unresolved_operand()
        indices, strides = _parse_indices_and_strides(parser)
        multicast: list[UnresolvedOperand] = []
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("multicast_info")
            parser.parse_punctuation("(")
            multicast.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(")")
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        parser.parse_punctuation(",")
        result_type = parser.parse_type()
        index = IndexType()
        props["num_indices"] = IntegerAttr(len(indices), i32)
        props["num_strides"] = IntegerAttr(len(strides), i32)
        return cls.create(
            operands=[
                parser.resolve_operand(memref, memref_type),
                *(parser.resolve_operand(o, index) for o in (*indices, *strides, *multicast)),
            ],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.memref)
        _print_indices_and_strides(printer, self.indices, self.strides)
        if self.multicast_info is not None:
            printer.print_string(", multicast_info(")
            printer.print_ssa_value(self.multicast_info)
            printer.print_string(")")
        print_attrs_sorted(printer, self, {"num_indices", "num_strides"})
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)
        printer.print_string(", ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        extra = len(self.operands1) - self.num_indices.value.data - self.num_strides.value.data
        if extra not in (0, 1):
            raise VerifyException("expect one or no multicast info")
        _check_symbolic(self, self.memref, self.result.type, len(self.indices), len(self.strides))


@irdl_op_definition
class SymbolicVectorStoreOp(_SymbolicVectorOp):
    """`agen.symbolic_vector_store %v, %m[indices:(%i), strides:(%s)] : memref<128xi8>, vector<128xi8>`."""

    name = "agen.symbolic_vector_store"
    value_to_store = operand_def()
    memref = operand_def(MemRefType)
    operands1 = var_operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    store_set = prop_def(AffineSetAttr)
    store_order = prop_def(AffineMapAttr)
    num_indices = prop_def(IntegerAttr.constr(type=i32))
    num_strides = prop_def(IntegerAttr.constr(type=i32))
    traits = traits_def(MemoryWriteEffect())

    @classmethod
    def parse(cls, parser: Parser) -> SymbolicVectorStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref = parser.parse_unresolved_operand()
        indices, strides = _parse_indices_and_strides(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        parser.parse_punctuation(",")
        value_type = parser.parse_type()
        index = IndexType()
        props["num_indices"] = IntegerAttr(len(indices), i32)
        props["num_strides"] = IntegerAttr(len(strides), i32)
        return cls.create(
            operands=[
                parser.resolve_operand(value, value_type),
                parser.resolve_operand(memref, memref_type),
                *(parser.resolve_operand(o, index) for o in (*indices, *strides)),
            ],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value_to_store)
        printer.print_string(", ")
        printer.print_ssa_value(self.memref)
        _print_indices_and_strides(printer, self.indices, self.strides)
        print_attrs_sorted(printer, self, {"num_indices", "num_strides"})
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)
        printer.print_string(", ")
        printer.print_attribute(self.value_to_store.type)

    def verify_(self) -> None:
        if len(self.operands1) != self.num_indices.value.data + self.num_strides.value.data:
            raise VerifyException("expected num_indices + num_strides index operands")
        _check_symbolic(self, self.memref, self.value_to_store.type, len(self.indices), len(self.strides))


AGEN = Dialect(
    "agen",
    [
        sorted_attr_dict(YieldOp),
        VectorLoadOp,
        VectorStoreOp,
        CompositeLoadAndStoreOp,
        CompositeLoadOp,
        CompositeStoreOp,
        CompositeIndirectLoadAndStoreOp,
        CompositeIndirectLoadOp,
        CompositeIndirectStoreOp,
        IndirectVectorLoadOp,
        IndirectVectorStoreOp,
        CompositeMemoryInterleaveOp,
        SetTransferMaskStateOp,
        SymbolicVectorLoadOp,
        SymbolicVectorStoreOp,
    ],
    [AgenRoutingDirectionAttr],
)
