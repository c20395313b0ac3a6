"""Upstream MLIR syntax that KTIR uses and xDSL does not (yet) read or print.

Each fix subclasses the xDSL op (so `isinstance(op, linalg.ReduceOp)` and
every xDSL pass keep working) and swaps it into xDSL's dialect under the same
name; nothing else of the dialect is copied. Each is a candidate to upstream
to xDSL; see third_party/README.md.

- `linalg.reduce`: MLIR's short form `linalg.reduce { arith.addf } ins(..)
  outs(..) dimensions = [1]` (body `op(%init, %in)`, as MLIR's
  `addBodyWithPayloadOp(initFirst=true)` builds it), printed back in short
  form whenever the body is exactly that, as MLIR prints it.
- arith casts on tensors (`arith.sitofp %a : tensor<4xi32> to tensor<4xf32>`,
  also uitofp, fptosi, fptoui, index_cast, extsi, extui, trunci with its
  `overflow<...>` flags), which MLIR allows elementwise and xDSL 0.75 only on scalars.
- `arith.cmpi`/`arith.cmpf` on tensors yield a tensor of i1 (xDSL 0.75 gave
  a scalar i1).
- `arith.select` with a tensor condition, spelled as MLIR does
  (`arith.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    TensorType,
    container_of,
    i1,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


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


def _elementwise_shapes_match(op) -> None:
    """MLIR's elementwise cast rule: scalar to scalar, or same-shape tensors."""
    src, dst = op.input.type, op.result.type
    if isinstance(src, TensorType) != isinstance(dst, TensorType):
        raise VerifyException(f"'{op.name}' casts {src} to {dst}: both must be scalars or both tensors")
    if isinstance(src, TensorType) and isinstance(dst, TensorType) and src.get_shape() != dst.get_shape():
        raise VerifyException(f"'{op.name}' operand and result must have the same shape, got {src} and {dst}")


_INT = container_of(IntegerType)
_FLOAT = container_of(AnyFloat)
_INT_OR_INDEX = container_of(IntegerType | IndexType)


def _tensor_cast(base: type, input_constr, result_constr, element_check=None, **extra) -> type:
    """`base` (an xDSL arith cast) accepting tensors of its element types.

    xDSL's generated `verify_` of `base` checks `base`'s own (scalar)
    constraints, so the element rule is restated here rather than inherited."""

    def verify_(self) -> None:
        _elementwise_shapes_match(self)
        if element_check is not None:
            element_check(self, _element(self.input.type), _element(self.result.type))

    cls = type(
        base.__name__,
        (base,),
        {
            "__module__": __name__,
            "__doc__": f"`{base.name}` on scalars and, elementwise, on tensors.",
            "input": operand_def(input_constr),
            "result": result_def(result_constr),
            "verify_": verify_,
            # Re-derive parse/print from the inherited assembly format.
            "parse": Operation.__dict__["parse"],
            "print": Operation.print,
            **extra,
        },
    )
    return irdl_op_definition(cls)


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, ShapedType) else t


def _exactly_one_index(op, src: Attribute, dst: Attribute) -> None:
    if isinstance(src, IndexType) == isinstance(dst, IndexType):
        raise VerifyException(f"'{op.name}' casts between index and an integer type, got {op.input.type} to {op.result.type}")


def _widens(op, src: Attribute, dst: Attribute) -> None:
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    if dst.width.data <= src.width.data:
        raise VerifyException(f"'{op.name}' result type must be wider than its operand type")


def _narrows(op, src: Attribute, dst: Attribute) -> None:
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    if dst.width.data >= src.width.data:
        raise VerifyException(f"'{op.name}' result type must be narrower than its operand type")


TENSOR_CASTS = [
    _tensor_cast(arith.SIToFPOp, _INT, _FLOAT),
    _tensor_cast(arith.UIToFPOp, _INT, _FLOAT),
    _tensor_cast(arith.FPToSIOp, _FLOAT, _INT),
    _tensor_cast(arith.FPToUIOp, _FLOAT, _INT),
    _tensor_cast(arith.ExtSIOp, _INT, _INT, _widens),
    _tensor_cast(arith.ExtUIOp, _INT, _INT, _widens),
    # MLIR's trunci carries overflow flags (xDSL 0.75's does not).
    _tensor_cast(
        arith.TruncIOp,
        _INT,
        _INT,
        _narrows,
        overflow_flags=prop_def(
            arith.IntegerOverflowAttr, default_value=arith.IntegerOverflowAttr("none"), prop_name="overflowFlags"
        ),
        assembly_format="$input (`overflow` `` $overflowFlags^)? attr-dict `:` type($input) `to` type($result)",
    ),
    _tensor_cast(arith.IndexCastOp, _INT_OR_INDEX, _INT_OR_INDEX, _exactly_one_index),
]


def _i1_like(t: Attribute) -> Attribute:
    return TensorType(i1, t.get_shape()) if isinstance(t, TensorType) else i1


def _predicate(arg: int | str, names: list[str]) -> int:
    if isinstance(arg, int):
        return arg
    if arg not in names:
        raise VerifyException(f"unknown comparison predicate '{arg}', expected one of: {', '.join(names)}")
    return names.index(arg)


@irdl_op_definition
class CmpiOp(arith.CmpiOp):
    """`arith.cmpi`, elementwise on tensors with a tensor-of-i1 result."""

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(arith.signlessIntegerLike)
    rhs = operand_def(arith.signlessIntegerLike)
    result = result_def(container_of(i1))
    traits = traits_def(arith.CmpiHasCanonicalizationPatterns(), Pure())

    def __init__(self, operand1: Operation | SSAValue, operand2: Operation | SSAValue, arg: int | str):
        operand1, operand2 = SSAValue.get(operand1), SSAValue.get(operand2)
        arith.CmpiOp._validate_operand_types(operand1, operand2)
        IRDLOperation.__init__(
            self,
            operands=[operand1, operand2],
            result_types=[_i1_like(operand1.type)],
            properties={"predicate": IntegerAttr(_predicate(arg, arith.CMPI_COMPARISON_OPERATIONS), 64)},
        )

    def verify_(self) -> None:
        if _i1_like(self.lhs.type) != self.result.type:
            raise VerifyException(f"result type must be {_i1_like(self.lhs.type)}, got {self.result.type}")


@irdl_op_definition
class CmpfOp(arith.CmpfOp):
    """`arith.cmpf`, elementwise on tensors with a tensor-of-i1 result."""

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(arith.floatingPointLike)
    rhs = operand_def(arith.floatingPointLike)
    fastmath = prop_def(arith.FastMathFlagsAttr, default_value=arith.FastMathFlagsAttr("none"))
    result = result_def(container_of(i1))
    traits = traits_def(Pure())

    def __init__(
        self,
        operand1: Operation | SSAValue,
        operand2: Operation | SSAValue,
        arg: int | str,
        fastmath: arith.FastMathFlagsAttr = arith.FastMathFlagsAttr("none"),
    ):
        operand1, operand2 = SSAValue.get(operand1), SSAValue.get(operand2)
        arith.CmpfOp._validate_operand_types(operand1, operand2)
        IRDLOperation.__init__(
            self,
            operands=[operand1, operand2],
            result_types=[_i1_like(operand1.type)],
            properties={
                "predicate": IntegerAttr(_predicate(arg, arith.CMPF_COMPARISON_OPERATIONS), 64),
                "fastmath": fastmath,
            },
        )

    def verify_(self) -> None:
        if _i1_like(self.lhs.type) != self.result.type:
            raise VerifyException(f"result type must be {_i1_like(self.lhs.type)}, got {self.result.type}")


@irdl_op_definition
class SelectOp(arith.SelectOp):
    """`arith.select` with an i1 condition or, elementwise, a tensor of i1."""

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(container_of(i1))
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)
    traits = traits_def(Pure(), arith.SelectHasCanonicalizationPatterns())
    assembly_format = None

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        first = parser.parse_type()
        if parser.parse_optional_punctuation(","):
            cond_type, value_type = first, parser.parse_type()
        else:
            cond_type, value_type = i1, first
        op = cls(
            parser.resolve_operand(cond, cond_type),
            parser.resolve_operand(lhs, value_type),
            parser.resolve_operand(rhs, value_type),
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.cond, self.lhs, self.rhs], printer.print_ssa_value)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        if isinstance(self.cond.type, ShapedType):
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        ct, rt = self.cond.type, self.result.type
        if isinstance(ct, ShapedType) and (not isinstance(rt, ShapedType) or ct.get_shape() != rt.get_shape()):
            raise VerifyException(f"a tensor condition {ct} needs values of the same shape, got {rt}")


_REPLACEMENTS: dict[str, list[type]] = {"linalg": [ReduceOp], "arith": [*TENSOR_CASTS, CmpiOp, CmpfOp, SelectOp]}


def patched(name: str, factory: Callable[[], Dialect]) -> Callable[[], Dialect]:
    """A factory for xDSL's dialect `name` with our op subclasses swapped in."""
    replacements = _REPLACEMENTS.get(name)
    if not replacements:
        return factory

    def make() -> Dialect:
        base = factory()
        by_name = {r.name: r for r in replacements}
        ops = [by_name.get(o.name, o) for o in base.operations]
        return Dialect(base.name, ops, list(base.attributes))

    return make
