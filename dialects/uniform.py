"""dataflow-scheduler's `uniform` dialect: one program for several units
(Uniform/Uniform.td of dataflow-scheduler-mlir-dialects).

`uniform.uniformize_regions` and `uniform.equalize_pattern` hold one region
per list of units, each region's one `index` argument standing for the unit
it runs on; `uniform.def_immutable_mapping` maps units (or constants) to the
values that differ between them and `uniform.query_map` looks one up, so a
single program can be specialized per unit. `uniform.yield` ends the
regions (implicitly). A lowering dialect: parsed, verified and printed,
never executed (spyre_mlir.ir.LOWERING_DIALECTS).

Syntax and verifier messages are upstream's (Uniform.cpp):

    %r = uniform.uniformize_regions -> (index) {
      (%arg0 -> %u0, %u1){
        ...
        uniform.yield %x : index
      }
    }
    %map = uniform.def_immutable_mapping([%c0 -> %u0], [%c1 -> %u1]):index
    %v = uniform.query_map(map:%map, key:%arg0) : index
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, i32
from xdsl.ir import Attribute, BlockArgument, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoMemoryEffect, ReturnLike, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.dialects.dataflow import CreateGroupOp, GetUnitOp, sorted_attr_dict
from spyre_mlir.dialects.format_helpers import print_attrs_sorted, split_props
from spyre_mlir.dialects.symbol import (
    MapQueryFormat,
    ScalarValue,
    parse_key_value_pairs,
    print_key_value_pairs,
)


@sorted_attr_dict
@irdl_op_definition
class YieldOp(IRDLOperation):
    """`uniform.yield %a, %b : T, U`: the values a region of its parent yields
    (the implicit terminator of the dialect's regions)."""

    name = "uniform.yield"

    values = var_operand_def()
    traits = traits_def(NoMemoryEffect(), IsTerminator(), ReturnLike())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])


class _UnitRegionsOp(IRDLOperation):
    """Regions, each run on a list of units: `{ (%arg -> %u, ...){ ... } ... }`.
    The units of all regions are the operands, `list_sizes` says how many each
    region takes."""

    units = var_operand_def()
    list_sizes = prop_def(ArrayAttr[IntegerAttr])
    unit_regions = var_region_def("single_block")

    def region_units(self, index: int) -> tuple[SSAValue, ...]:
        """The units region `index` runs on."""
        sizes = self.sizes
        start = sum(sizes[:index])
        return tuple(self.units[start : start + sizes[index]])

    def region_arg(self, index: int) -> BlockArgument:
        """The unit argument of region `index`."""
        return self.unit_regions[index].block.args[0]

    def region_of_unit(self, unit: SSAValue) -> Region | None:
        """The region that runs on `unit`, if any."""
        for i in range(len(self.unit_regions)):
            if unit in self.region_units(i):
                return self.unit_regions[i]
        return None

    @property
    def sizes(self) -> list[int]:
        return [a.value.data for a in self.list_sizes.data]

    @classmethod
    def parse_unit_regions(cls, parser: Parser) -> tuple[list[SSAValue], list[Region], ArrayAttr]:
        """`{ (%arg -> %u, ...) region ... }`: the units, the regions, list_sizes."""
        index = IndexType()
        units: list[SSAValue] = []
        regions: list[Region] = []
        sizes: list[int] = []
        parser.parse_punctuation("{")
        while parser.parse_optional_punctuation("(") is not None:
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation("->")
            region_units: list[UnresolvedOperand] = (
                parser.parse_optional_undelimited_comma_separated_list(
                    parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
                )
                or []
            )
            parser.parse_punctuation(")")
            region = parser.parse_region([parser.Argument(arg.name, index)])
            block = region.blocks.first
            if block is not None and (block.last_op is None or not block.last_op.has_trait(IsTerminator)):
                block.add_op(YieldOp())
            regions.append(region)
            sizes.append(len(region_units))
            units.extend(parser.resolve_operand(u, index) for u in region_units)
        parser.parse_optional_punctuation("}")
        return units, regions, ArrayAttr([IntegerAttr(n, i32) for n in sizes])

    def print_unit_regions(self, printer: Printer) -> None:
        printer.print_string(" {")
        with printer.indented():
            for i, region in enumerate(self.unit_regions):
                printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
                printer.print_string("(")
                block = region.blocks.first
                if block is not None and block.args:
                    printer.print_ssa_value(block.args[0])
                printer.print_string(" -> ")
                printer.print_list(self.region_units(i), printer.print_ssa_value)
                printer.print_string(")")
                printer.print_region(region, print_entry_block_args=False, print_block_terminators=True)
        printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
        printer.print_string("}")

    def verify_unit_regions(self) -> None:
        """Upstream's checks shared by both ops: list_sizes matches the regions
        and the units, no unit twice, each region's units `dataflow.get_unit`s
        (or one `dataflow.create_group`)."""
        sizes = self.sizes
        if not self.unit_regions:
            raise VerifyException("expects at least one region")
        if len(sizes) != len(self.unit_regions):
            raise VerifyException(
                f"expects one list size per region: {len(sizes)} list sizes for {len(self.unit_regions)} regions"
            )
        if sum(sizes) != len(self.units) or any(n < 0 for n in sizes):
            raise VerifyException("unit size has to be matched to the list sizes contents.")
        for region in self.unit_regions:
            block = region.blocks.first
            if block is None or len(block.args) != 1 or not isinstance(block.args[0].type, IndexType):
                raise VerifyException("each region takes one 'index' argument, the unit it runs on")
        if len(set(self.units)) != len(self.units):
            raise VerifyException("duplicated unit SSAs found!")
        for i in range(len(self.unit_regions)):
            units = self.region_units(i)
            if len(units) == 1:
                if not isinstance(units[0].owner, GetUnitOp | CreateGroupOp):
                    raise VerifyException("region's unit_list must be programUnitOp or createGroupOp type!")
            elif not all(isinstance(u.owner, GetUnitOp) for u in units):
                raise VerifyException("when unit_list size > 1, all units must be programUnitOp!")


def _parse_optional_arrow_types(parser: Parser) -> list[Attribute]:
    """MLIR's optional arrow type list: `-> T`, `-> (T, U)`, `-> ()`, or nothing."""
    if parser.parse_optional_punctuation("->") is None:
        return []
    if parser.parse_optional_punctuation("(") is None:
        return [parser.parse_type()]
    if parser.parse_optional_punctuation(")") is not None:
        return []
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return types


def _print_arrow_types(printer: Printer, types: Sequence[Attribute]) -> None:
    """MLIR's arrow type list: ` -> T` for one type, ` -> (T, U)` / ` -> ()` otherwise."""
    printer.print_string(" -> ")
    if len(types) == 1:
        printer.print_attribute(types[0])
        return
    printer.print_string("(")
    printer.print_list(types, printer.print_attribute)
    printer.print_string(")")


@irdl_op_definition
class UniformizeRegionsOp(_UnitRegionsOp):
    """The programs of several units, one region per list of units, as one
    program: `%r = uniform.uniformize_regions -> (T) { (%arg -> %u, ...){ ... } ... }`.
    Each region yields the op's results."""

    name = "uniform.uniformize_regions"

    regIndices = opt_prop_def(ArrayAttr[IntegerAttr])
    regLocales = opt_prop_def(ArrayAttr)
    results_ = var_result_def()
    traits = lazy_traits_def(lambda: (SingleBlockImplicitTerminator(YieldOp),))

    ELIDED: ClassVar[frozenset[str]] = frozenset({"list_sizes", "newly_added"})
    """Not printed (upstream's printer elides both; `newly_added` is a marker its passes set)."""

    @classmethod
    def parse(cls, parser: Parser) -> UniformizeRegionsOp:
        result_types = _parse_optional_arrow_types(parser)
        units, regions, sizes = cls.parse_unit_regions(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        return cls.create(
            operands=units,
            result_types=result_types,
            regions=regions,
            properties={**props, "list_sizes": sizes},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        _print_arrow_types(printer, self.result_types)
        self.print_unit_regions(printer)
        print_attrs_sorted(printer, self, set(self.ELIDED))

    def verify_(self) -> None:
        self.verify_unit_regions()
        for name in ("list_sizes", "regIndices"):
            values = self.properties.get(name)
            if isinstance(values, ArrayAttr) and any(v.type != i32 for v in values.data):  # pyright: ignore
                raise VerifyException(
                    f"attribute '{name}' failed to satisfy constraint: 32-bit integer array attribute"
                )
        for region in self.unit_regions:
            terminator = region.block.last_op
            if isinstance(terminator, YieldOp) and len(terminator.values) != len(self.results):
                raise VerifyException(
                    "The size of the operands in the yieldOp of a uniformize_regionsOp region differs from the "
                    "size of its results."
                )


@irdl_op_definition
class EqualizePatternOp(_UnitRegionsOp):
    """The variations of one pattern between units, one region per list of
    units: `uniform.equalize_pattern { (%arg -> %u, ...){ ... } ... }`. All
    regions hold the same sequence of operations."""

    name = "uniform.equalize_pattern"

    traits = lazy_traits_def(lambda: (SingleBlockImplicitTerminator(YieldOp),))

    @classmethod
    def parse(cls, parser: Parser) -> EqualizePatternOp:
        units, regions, sizes = cls.parse_unit_regions(parser)
        # Upstream reads no attribute dictionary; one is read (and printed) so that none is lost.
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        return cls.create(operands=units, regions=regions, properties={**props, "list_sizes": sizes}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        self.print_unit_regions(printer)
        print_attrs_sorted(printer, self, {"list_sizes"})

    def verify_(self) -> None:
        self.verify_unit_regions()
        if any(v.type != i32 for v in self.list_sizes.data):
            raise VerifyException("attribute 'list_sizes' failed to satisfy constraint: 32-bit integer array attribute")
        sequences = [[op.name for op in region.block.ops] for region in self.unit_regions]
        for sequence in sequences[1:]:
            if len(sequence) != len(sequences[0]):
                raise VerifyException("regions have different operation size.")
        for sequence in sequences[1:]:
            if sequence != sequences[0]:
                raise VerifyException("Operation sequences different.")


@irdl_op_definition
class DefImmutableMappingOp(IRDLOperation):
    """`%map = uniform.def_immutable_mapping([%k0 -> %v0], [%k1 -> %v1]):index[, T]`:
    an immutable map from `index` keys to values of one type T (`index` unless
    given after the result type), paired by position."""

    name = "uniform.def_immutable_mapping"

    keys = var_operand_def()
    values = var_operand_def()
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def lookup(self, key: SSAValue) -> SSAValue | None:
        """The value mapped to `key`, if any."""
        for k, v in zip(self.keys, self.values):
            if k is key:
                return v
        return None

    @classmethod
    def parse(cls, parser: Parser) -> DefImmutableMappingOp:
        keys, values = parse_key_value_pairs(parser)
        # Upstream reads no attribute dictionary; one is read (and printed) so that none is lost.
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        value_type = parser.parse_type() if parser.parse_optional_punctuation(",") is not None else IndexType()
        index = IndexType()
        op = cls.create(
            operands=[
                *(parser.resolve_operand(k, index) for k in keys),
                *(parser.resolve_operand(v, value_type) for v in values),
            ],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )
        op.properties["operandSegmentSizes"] = _segments(len(keys), len(values))
        return op

    def print(self, printer: Printer) -> None:
        print_key_value_pairs(printer, self.keys, self.values)
        print_attrs_sorted(printer, self, {"operandSegmentSizes"})
        printer.print_string(":")
        printer.print_attribute(self.result.type)
        value_type = self.values[-1].type if self.values else self.result.type
        if value_type != self.result.type:
            printer.print_string(", ")
            printer.print_attribute(value_type)

    def verify_(self) -> None:
        if len(self.keys) != len(self.values):
            raise VerifyException(
                f"expects as many keys as values, got {len(self.keys)} keys and {len(self.values)} values"
            )
        if self.keys and isinstance(self.keys[0].owner, GetUnitOp):
            if not all(isinstance(k.owner, GetUnitOp) for k in self.keys):
                raise VerifyException("All Keys are not of same type")
        if not self.values:
            return
        first = self.values[0].owner
        if isinstance(first, Operation) and first.has_trait(ScalarValue):
            # Scalar values may mix (they resolve to compile-time constants).
            if not all(isinstance(v.owner, Operation) and v.owner.has_trait(ScalarValue) for v in self.values):
                raise VerifyException("All map values are expected to be scalar values.")
            return
        kind = _defining_op_name(self.values[0])
        if any(_defining_op_name(v) != kind for v in self.values):
            raise VerifyException("All map values should be of same type.")


@irdl_op_definition
class QueryMapOp(MapQueryFormat, IRDLOperation):
    """`%v = uniform.query_map(map:%map, key:%k) : T`: the value that
    `uniform.def_immutable_mapping` `%map` maps key `%k` to."""

    name = "uniform.query_map"

    map = operand_def(IndexType)
    key = operand_def(IndexType)
    result = result_def()
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())


def _segments(*sizes: int) -> Attribute:
    return DenseArrayBase.from_list(i32, list(sizes))


def _defining_op_name(value: SSAValue) -> str | None:
    """The name of the op defining `value`; None for a block argument."""
    return value.owner.name if isinstance(value.owner, Operation) else None


UNIFORM = Dialect(
    "uniform",
    [YieldOp, UniformizeRegionsOp, EqualizePatternOp, DefImmutableMappingOp, QueryMapOp],
    [],
)

__all__ = [
    "UNIFORM",
    "DefImmutableMappingOp",
    "EqualizePatternOp",
    "QueryMapOp",
    "UniformizeRegionsOp",
    "YieldOp",
]
