"""The `sdscbundle` dialect: the ops of a bundle (`bundle.mlir`, docs/bundle.md).

A bundle function runs SDSC functions, each described by a file `sdsc_N.json`
beside the bundle. We read two forms of it: ours (spyre-emit-bundle) and
torch-spyre's (its compiled `bundle.mlir` files).

Ours, in MLIR's generic form only (so that upstream MLIR reads it with
`--allow-unregistered-dialect`); the operands are per-tile HBM byte
addresses, index values and the kernel's scalar arguments, in the order of
the SDSC function's parameters:

    "sdscbundle.sdsc_execute"(%addr_0, %addr_1, %n) {sdsc_filename = "sdsc_0.json"} : (index, index, index) -> ()

torch-spyre's, in the ops' custom forms: each argument of the bundle function
is an `!sdscbundle.input_arg<index>` (the runtime's base byte address of a
kernel tensor), read by `input_arg_extract`; each `sdsc_execute` takes only
`index` operands (per-core start addresses), and `symbol_ids` names, for each
operand, the symbolic start address in the SDSC file (`"data_": {"[0, 0, 0]":
"-9"}` of an allocation with `isStartAddrSymbolic_`) that its value replaces:

    %arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
    sdscbundle.sdsc_execute (%arg_0, %arg_0_core_65536) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2]}

`sdsc_filename` and `symbol_ids` are attributes (not properties). An
`sdsc_execute` with `symbol_ids` prints in the custom form, as MLIR prints
it (`sdscbundle.sdsc_execute(%a, %b) {sdsc_filename = "sdsc_0.json",
symbol_ids = [-1, -2]}`); one without (ours, which may take scalars) has no
custom form and prints generic (`has_custom_form`, read by
spyre_mlir.ir.SpyrePrinter). The interpreter runs `sdsc_execute` in
interpreter/ops_sdscbundle.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, IndexType, IntegerAttr, IntegerType, StringAttr, i64
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class InputArgType(ParametrizedAttribute, TypeAttribute):
    """`!sdscbundle.input_arg<T>`: an argument of the bundle function that
    holds a runtime value of type `T` (torch-spyre: the base byte address of a
    kernel tensor, `!sdscbundle.input_arg<index>`), read by `input_arg_extract`."""

    name = "sdscbundle.input_arg"

    value_type: TypeAttribute

    def __init__(self, value_type: TypeAttribute):
        super().__init__(value_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.value_type)


@irdl_op_definition
class InputArgExtractOp(IRDLOperation):
    """`%v = sdscbundle.input_arg_extract value from %a : !sdscbundle.input_arg<T> -> T`:
    the value an `input_arg` holds; the result type is the input_arg's `T`."""

    name = "sdscbundle.input_arg_extract"

    input = operand_def(InputArgType)
    result = result_def(TypeAttribute)

    assembly_format = "`value` `from` $input attr-dict `:` type($input) `->` type($result)"

    traits = traits_def(Pure())

    def __init__(self, input: SSAValue):
        assert isinstance(input.type, InputArgType)
        super().__init__(operands=[input], result_types=[input.type.value_type])

    def verify_(self) -> None:
        assert isinstance(self.input.type, InputArgType)
        if self.result.type != self.input.type.value_type:
            raise VerifyException(
                f"result type {self.result.type} must be the type the input_arg holds, {self.input.type.value_type}"
            )


def check_sdsc_filename(name: str) -> str | None:
    """Why `name` is not a valid `sdsc_filename` (None when it is): a plain
    file name, relative to the bundle's directory, ending in `.json`."""
    if "/" in name or "\\" in name or name.startswith(".."):
        return f"sdsc_filename must be a plain file name beside the bundle (no '/' or '..'), got '{name}'"
    if not name.endswith(".json") or name == ".json" or "\0" in name:
        return f"sdsc_filename must name a .json file, got '{name}'"
    return None


def check_symbol_ids(ids: ArrayAttr, operand_count: int) -> str | None:
    """Why `ids` is not a valid `symbol_ids` for `operand_count` operands (None
    when it is): one distinct negative i64 per operand."""
    values: list[int] = []
    for i, element in enumerate(ids.data):
        if not isinstance(element, IntegerAttr) or element.type != i64:
            return f"symbol_ids must be an array of i64 integers, but element #{i} is {element}"
        values.append(element.value.data)
    if len(values) != operand_count:
        return f"symbol_ids has {len(values)} entries for {operand_count} operands: one symbol id per operand"
    for i, value in enumerate(values):
        if value >= 0:
            return f"symbol id #{i} must be negative (a symbolic address of the SDSC file), got {value}"
        if value in values[:i]:
            return f"symbol id {value} is given twice (#{values.index(value)} and #{i}): each operand has its own"
    return None


@irdl_op_definition
class SdscExecuteOp(IRDLOperation):
    """Run the SDSC function of `sdsc_filename` on the operands; with
    `symbol_ids`, operand i replaces the SDSC file's symbolic address
    `symbol_ids[i]` (see the module docstring).

    Custom form (torch-spyre's; `index` operands only, their type not written):

        sdscbundle.sdsc_execute (%a, %b) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2]}
    """

    name = "sdscbundle.sdsc_execute"

    args = var_operand_def(IndexType | IntegerType | AnyFloat)
    sdsc_filename = attr_def(StringAttr)
    symbol_ids_attr = opt_attr_def(ArrayAttr, attr_name="symbol_ids")

    def __init__(
        self,
        args: Sequence[SSAValue],
        sdsc_filename: str | StringAttr,
        symbol_ids: Sequence[int] | None = None,
    ):
        if isinstance(sdsc_filename, str):
            sdsc_filename = StringAttr(sdsc_filename)
        attributes: dict[str, Attribute] = {"sdsc_filename": sdsc_filename}
        if symbol_ids is not None:
            attributes["symbol_ids"] = ArrayAttr(IntegerAttr(i, i64) for i in symbol_ids)
        super().__init__(operands=[list(args)], attributes=attributes)

    @property
    def filename(self) -> str:
        return self.sdsc_filename.data

    @property
    def symbol_ids(self) -> list[int] | None:
        """The symbol id of each operand, in order; None when the op has none (our bundles)."""
        if self.symbol_ids_attr is None:
            return None
        return [element.value.data for element in self.symbol_ids_attr.data if isinstance(element, IntegerAttr)]

    @classmethod
    def parse(cls, parser: Parser) -> SdscExecuteOp:
        # The operands' type is not written: every operand is an index.
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        args = [parser.resolve_operand(operand, IndexType()) for operand in operands]
        attributes = parser.parse_optional_attr_dict()
        return cls.create(operands=args, attributes=attributes)

    def has_custom_form(self) -> bool:
        """Whether the custom form holds this op: with symbol_ids (index operands, verified);
        our ops, without them, may take scalars and print generic (spyre_mlir.ir.SpyrePrinter)."""
        return self.symbol_ids_attr is not None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")  # `sdsc_execute (%a, ...)`, as torch-spyre prints it
        with printer.in_parens():
            printer.print_list(self.args, printer.print_ssa_value)
        printer.print_string(" ")
        printer.print_attr_dict(self.attributes)

    def verify_(self) -> None:
        for i, value in enumerate(self.args):
            if not isinstance(value.type, IndexType | IntegerType | AnyFloat):
                raise VerifyException(f"operand #{i} must be an index or a scalar, but got {value.type}")
        problem = check_sdsc_filename(self.filename)
        if problem is not None:
            raise VerifyException(problem)
        if self.symbol_ids_attr is None:
            return
        problem = check_symbol_ids(self.symbol_ids_attr, len(self.args))
        if problem is not None:
            raise VerifyException(problem)
        for i, value in enumerate(self.args):
            if not isinstance(value.type, IndexType):
                raise VerifyException(
                    f"operand #{i} must be an index (a start address) when symbol_ids is given, but got {value.type}"
                )


SDSCBUNDLE = Dialect("sdscbundle", [SdscExecuteOp, InputArgExtractOp], [InputArgType])
