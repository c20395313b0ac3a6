"""dataflow-scheduler's `ktdf_lowering` dialect: the temporary ops between the
KTDF schedule IR and Dataflow IR (KTDFLowering/KTDFLowering.td of
dataflow-scheduler-mlir-dialects).

Stages and pipelines become `ktdf_lowering.execute_on %unit, ... { ... }`
regions run on the given units, ordered by `ktdf_lowering.signal %a, %b`
synchronization points; later phases split them into `dataflow.program_unit`s
and `dataflow.sync_send`/`sync_recv`. A lowering dialect: parsed, verified
and printed, never executed (spyre_mlir.ir.LOWERING_DIALECTS).

Syntax is upstream's parser (KTDFLoweringOps.cpp): the units are a bare
operand list, `execute_on %a, %b {`. The .td's examples write them in
parentheses, `execute_on(%a) {`, which upstream's parser rejects; we read
both and print upstream's form.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, region_def, traits_def, var_operand_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoTerminator

from spyre_mlir.dialects.format_helpers import print_attrs_sorted, split_props


def parse_units(parser: Parser) -> list[SSAValue]:
    """`%a, %b` (or `(%a, %b)`, the .td's spelling; or nothing), as `index` operands."""
    parenthesized = parser.parse_optional_punctuation("(") is not None
    units: list[UnresolvedOperand] = []
    if parenthesized:
        if parser.parse_optional_punctuation(")") is None:
            units = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(")")
    else:
        units = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
    index = IndexType()
    return [parser.resolve_operand(u, index) for u in units]


def print_units(printer: Printer, units: Sequence[SSAValue]) -> None:
    """` %a, %b` (nothing when there are none)."""
    if units:
        printer.print_string(" ")
        printer.print_list(units, printer.print_ssa_value)


@irdl_op_definition
class ExecuteOnOp(IRDLOperation):
    """`ktdf_lowering.execute_on %unit, ... { ... }`: the body runs on the given
    hardware units (`index` handles from `dataflow.get_unit` or
    `uniform.query_map`)."""

    name = "ktdf_lowering.execute_on"

    units = var_operand_def(IndexType)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, units: Sequence[SSAValue | Operation], body: Region | Block | Sequence[Operation] = ()):
        if not isinstance(body, Region):
            body = Region(body if isinstance(body, Block) else Block(body))
        super().__init__(operands=[list(units)], regions=[body])

    @classmethod
    def parse(cls, parser: Parser) -> ExecuteOnOp:
        units = parse_units(parser)
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        return cls.create(operands=units, regions=[body], properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_units(printer, self.units)
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False)
        print_attrs_sorted(printer, self, set())


@irdl_op_definition
class SignalOp(IRDLOperation):
    """`ktdf_lowering.signal %a, %b`: a synchronization point between the given
    units. Has unknown side effects, so nothing removes it before it is
    lowered to `dataflow.sync_send`/`sync_recv`."""

    name = "ktdf_lowering.signal"

    units = var_operand_def(IndexType)

    def __init__(self, units: Sequence[SSAValue | Operation]):
        super().__init__(operands=[list(units)])

    @classmethod
    def parse(cls, parser: Parser) -> SignalOp:
        units = parse_units(parser)
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        return cls.create(operands=units, properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_units(printer, self.units)
        print_attrs_sorted(printer, self, set())


KTDF_LOWERING = Dialect("ktdf_lowering", [ExecuteOnOp, SignalOp], [])

__all__ = ["KTDF_LOWERING", "ExecuteOnOp", "SignalOp", "parse_units", "print_units"]
