"""dataflow-scheduler's `symbol` dialect: symbolic indices and the maps from
constants to them (Symbol/Symbol.td of dataflow-scheduler-mlir-dialects).

`symbol.create_symbol` makes a fresh symbolic `index`; a
`symbol.symbol_immutable_mapping` maps `arith.constant` keys to such symbols
and `symbol.query_map` looks a key up in it. `symbol.create_id` tags a value
with a signed 64-bit symbol ID. A lowering dialect: parsed, verified and
printed, never executed (spyre_mlir.ir.LOWERING_DIALECTS).

`ScalarValue` is OpTraits.td's shared trait: an op whose result resolves to a
compile-time scalar (`uniform.def_immutable_mapping` accepts a mix of such
values as map values).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, Signedness
from xdsl.ir import BlockArgument, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, IsolatedFromAbove, MemoryWriteEffect, NoMemoryEffect, OpTrait
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.dialects.dataflow import sorted_attr_dict
from spyre_mlir.dialects.format_helpers import print_attrs_sorted, split_props

LOOP_LIKE_OPS = frozenset(
    {"scf.for", "scf.forall", "scf.parallel", "scf.while", "affine.for", "affine.parallel", "spyre_loop.for"}
)
"""Ops implementing MLIR's LoopLikeOpInterface (xDSL has no such trait): a
`symbol.query_map` key that is a block argument belongs to one of them."""


class ScalarValue(OpTrait):
    """OpTraits.td's `ScalarValue`: the op's result is a scalar that resolves to
    a compile-time constant (`symbol.create_symbol`)."""


def parse_key_value_pairs(parser: Parser) -> tuple[list[UnresolvedOperand], list[UnresolvedOperand]]:
    """`([%k -> %v], ...)`: the keys and the values, paired by position (also `()`)."""
    keys: list[UnresolvedOperand] = []
    values: list[UnresolvedOperand] = []

    def pair() -> None:
        parser.parse_punctuation("[")
        keys.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("->")
        values.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("]")

    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is None:
        parser.parse_comma_separated_list(parser.Delimiter.NONE, pair)
        parser.parse_punctuation(")")
    return keys, values


def print_key_value_pairs(printer: Printer, keys: tuple[SSAValue, ...], values: tuple[SSAValue, ...]) -> None:
    """`([%k -> %v], ...)`."""
    printer.print_string("(")
    for i, (key, value) in enumerate(zip(keys, values)):
        if i:
            printer.print_string(", ")
        printer.print_string("[")
        printer.print_ssa_value(key)
        printer.print_string(" -> ")
        printer.print_ssa_value(value)
        printer.print_string("]")
    printer.print_string(")")


def parse_map_key(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand]:
    """`(map: %m, key: %k)`, the map and the key."""
    parser.parse_punctuation("(")
    parser.parse_keyword("map")
    parser.parse_punctuation(":")
    map_handle = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    parser.parse_keyword("key")
    parser.parse_punctuation(":")
    key = parser.parse_unresolved_operand()
    parser.parse_punctuation(")")
    return map_handle, key


def print_map_key(printer: Printer, map_handle: SSAValue, key: SSAValue) -> None:
    """`(map:%m, key:%k)`, as upstream prints it."""
    printer.print_string("(map:")
    printer.print_ssa_value(map_handle)
    printer.print_string(", key:")
    printer.print_ssa_value(key)
    printer.print_string(")")


class MapQueryFormat:
    """The syntax of `symbol.query_map` and `uniform.query_map`:
    `(map:%m, key:%k) attr-dict : T` (both operands `index`). Upstream reads no
    attribute dictionary for uniform's; one is read and printed so that none is lost."""

    @classmethod
    def parse(cls, parser: Parser):
        map_handle, key = parse_map_key(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        index = IndexType()
        return cls.create(  # pyright: ignore[reportAttributeAccessIssue]
            operands=[parser.resolve_operand(map_handle, index), parser.resolve_operand(key, index)],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        print_map_key(printer, self.map, self.key)  # pyright: ignore[reportAttributeAccessIssue]
        print_attrs_sorted(printer, self, set())  # pyright: ignore[reportArgumentType]
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)  # pyright: ignore[reportAttributeAccessIssue]


@sorted_attr_dict
@irdl_op_definition
class CreateSymbolOp(IRDLOperation):
    """`%s = symbol.create_symbol : index`: a fresh symbolic index."""

    name = "symbol.create_symbol"

    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), ScalarValue())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@sorted_attr_dict
@irdl_op_definition
class CreateIdOp(IRDLOperation):
    """`symbol.create_id %value {symbol_id = -100 : si64} : T`: tags a value of any
    type with a mandatory signed 64-bit symbol ID (MLIR's `SI64Attr`)."""

    name = "symbol.create_id"

    input = operand_def()
    symbol_id = prop_def(IntegerAttr)
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, value: SSAValue | Operation, symbol_id: int):
        super().__init__(
            operands=[value],
            properties={"symbol_id": IntegerAttr(symbol_id, IntegerType(64, Signedness.SIGNED))},
        )

    def verify_(self) -> None:
        id_type = self.symbol_id.type
        if not (
            isinstance(id_type, IntegerType)
            and id_type.width.data == 64
            and id_type.signedness.data == Signedness.SIGNED
        ):
            raise VerifyException("attribute 'symbol_id' failed to satisfy constraint: 64-bit signed integer attribute")


@irdl_op_definition
class SymbolImmutableMappingOp(IRDLOperation):
    """`%m = symbol.symbol_immutable_mapping ([%c0 -> %s0], [%c1 -> %s1]) : index`:
    maps `arith.constant` keys to `symbol.create_symbol` values."""

    name = "symbol.symbol_immutable_mapping"

    keys = var_operand_def(IndexType)
    values = var_operand_def(IndexType)
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (SameVariadicOperandSize(),)

    @classmethod
    def parse(cls, parser: Parser) -> SymbolImmutableMappingOp:
        keys, values = parse_key_value_pairs(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        index = IndexType()
        props, attrs = split_props(cls, attrs)
        return cls.create(
            operands=[parser.resolve_operand(o, index) for o in (*keys, *values)],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        # The declarative format of Symbol.td puts a space before `custom<ImmutableMap>`.
        printer.print_string(" ")
        print_key_value_pairs(printer, self.keys, self.values)
        print_attrs_sorted(printer, self, set())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        # Upstream's first check (as many keys as values) is SameVariadicOperandSize's, made before.
        for key in self.keys:
            if not (isinstance(key.owner, Operation) and key.owner.has_trait(ConstantLike)):
                raise VerifyException("All keys expected to be constant operations")
        for value in self.values:
            if not isinstance(value.owner, CreateSymbolOp):
                raise VerifyException("Values in SymbolImmutableMapping should be results of symbol.create_symbol")


@irdl_op_definition
class SymbolQueryMapOp(MapQueryFormat, IRDLOperation):
    """`%v = symbol.query_map(map:%m, key:%k) : index`: the symbol a
    `symbol.symbol_immutable_mapping` maps key `%k` to (typically a loop's
    induction variable)."""

    name = "symbol.query_map"

    map = operand_def(IndexType)
    key = operand_def(IndexType)
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())

    def verify_(self) -> None:
        if isinstance(self.key, BlockArgument):
            parent = self.key.block.parent_op()
            if parent is None or parent.name not in LOOP_LIKE_OPS:
                raise VerifyException("key's parentOp must be a ForOp.")
        if not isinstance(self.map.owner, SymbolImmutableMappingOp):
            raise VerifyException("map's defOp must be symbol_immutable_mapping op.")


SYMBOL = Dialect(
    "symbol",
    [CreateSymbolOp, CreateIdOp, SymbolImmutableMappingOp, SymbolQueryMapOp],
    [],
)

__all__ = [
    "SYMBOL",
    "CreateIdOp",
    "CreateSymbolOp",
    "LOOP_LIKE_OPS",
    "MapQueryFormat",
    "ScalarValue",
    "SymbolImmutableMappingOp",
    "SymbolQueryMapOp",
    "parse_key_value_pairs",
    "parse_map_key",
    "print_key_value_pairs",
    "print_map_key",
]
