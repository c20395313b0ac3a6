"""`linalg` syntax that KTIR uses and xDSL 0.75 does not read or print.

- `linalg.reduce`: MLIR's short form `linalg.reduce { arith.addf } ins(..)
  outs(..) dimensions = [1]` (body `op(%init, %in)`, as MLIR's
  `addBodyWithPayloadOp(initFirst=true)` builds it), printed back in short
  form whenever the body is exactly that, as MLIR prints it.

Ops here subclass xDSL's (so `isinstance(op, linalg.ReduceOp)` and every xDSL
pass keep working) and replace them in xDSL's dialect under the same name
(`REPLACEMENTS`, swapped in by `spyre_mlir.ir`); nothing else of the dialect
is copied. Candidates to upstream to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, ShapedType, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer


class ReduceOp(linalg.ReduceOp):
    """`linalg.reduce` with MLIR's short form (see module docstring)."""

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        payload_name: str | None = None
        payload_attrs: dict = {}
        if parser.parse_optional_punctuation("{") is not None:
            payload_name = parser.parse_identifier()
            payload_attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation("}")
        parser.parse_characters("ins")
        parser.parse_punctuation("(")
        unresolved_input = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        input_ = parser.resolve_operand(unresolved_input, parser.parse_type())
        parser.parse_punctuation(")")
        parser.parse_characters("outs")
        parser.parse_punctuation("(")
        unresolved_init = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        init = parser.resolve_operand(unresolved_init, parser.parse_type())
        parser.parse_punctuation(")")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        dimensions = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        if payload_name is None:
            entry_args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
            region = parser.parse_region(entry_args)
        else:
            region = _payload_region(parser, payload_name, payload_attrs, input_.type, init.type)
        attrs = parser.parse_optional_attr_dict()
        op = cls(input_, init, DenseArrayBase.from_list(i64, dimensions), region)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        payload = _short_form_payload(self)
        if payload is not None:
            printer.print_string(f" {{ {payload.name}")
            if payload.attributes:
                printer.print_string(" ")
                printer.print_attr_dict(payload.attributes)
            printer.print_string(" }")
        printer.print_string(" ins(")
        printer.print_ssa_value(self.input)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(") outs(")
        printer.print_ssa_value(self.init)
        printer.print_string(" : ")
        printer.print_attribute(self.init.type)
        printer.print_string(") dimensions = [")
        printer.print_list(self.dimensions.get_values(), lambda v: printer.print_string(str(v)))
        printer.print_string("]")
        if payload is None:
            printer.print_string(" (")
            printer.print_list(self.region.block.args, printer.print_block_argument)
            printer.print_string(") ")
            printer.print_region(self.region, print_entry_block_args=False)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)


def _payload_region(parser: Parser, name: str, attrs: dict, in_type, init_type) -> Region:
    assert isinstance(in_type, ShapedType) and isinstance(init_type, ShapedType)
    elt_in, elt_init = in_type.get_element_type(), init_type.get_element_type()
    block = Block(arg_types=[elt_in, elt_init])
    op_type = parser.ctx.get_op(name)
    props_names = set(op_type.get_irdl_definition().properties) if hasattr(op_type, "get_irdl_definition") else set()
    props = {k: v for k, v in attrs.items() if k in props_names}
    plain = {k: v for k, v in attrs.items() if k not in props_names}
    payload = op_type.create(
        operands=[block.args[1], block.args[0]], result_types=[elt_init], properties=props, attributes=plain
    )
    block.add_ops([payload, YieldOp(payload.results[0])])
    return Region(block)


def _short_form_payload(op: linalg.ReduceOp):
    """The payload op if the body is exactly `yield op(%init, %in)`."""
    block = op.region.block
    ops = list(block.ops)
    if len(ops) != 2 or len(block.args) != 2:
        return None
    payload, yield_ = ops
    if not isinstance(yield_, YieldOp) or tuple(yield_.operands) != tuple(payload.results):
        return None
    if len(payload.results) != 1 or tuple(payload.operands) != (block.args[1], block.args[0]):
        return None
    if payload.regions or payload.successors:
        return None
    # The short form cannot carry properties other than defaults MLIR elides.
    from xdsl.dialects.arith import FastMathFlagsAttr

    for value in payload.properties.values():
        if not (isinstance(value, FastMathFlagsAttr) and not value.data):
            return None
    return payload

REPLACEMENTS: list[type] = [ReduceOp]
