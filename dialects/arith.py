"""`arith` on tensors, as MLIR allows it and xDSL 0.75 does not.

- Casts (`arith.sitofp %a : tensor<4xi32> to tensor<4xf32>`, also uitofp,
  fptosi, fptoui, index_cast, extsi, extui, extf, truncf, and trunci with
  MLIR's `overflow<...>` flags) apply elementwise to tensors; ext* must widen
  and trunc* narrow, as MLIR checks (xDSL 0.75 let extf/truncf go any way).
- `arith.cmpi`/`arith.cmpf` on tensors yield a tensor of i1 (xDSL 0.75 gave
  a scalar i1).
- `arith.select` takes a tensor condition, spelled as MLIR does
  (`arith.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>`).

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    TensorType,
    container_of,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
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


def _elementwise_shapes_match(op) -> None:
    """MLIR's elementwise cast rule: scalar to scalar, or same-shape tensors."""
    src, dst = op.input.type, op.result.type
    if isinstance(src, TensorType) != isinstance(dst, TensorType) or (
        isinstance(src, TensorType) and isinstance(dst, TensorType) and src.get_shape() != dst.get_shape()
    ):
        raise VerifyException("failed to verify that input and output have the same tensor dimensions")


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
        raise VerifyException(f"operand type '{op.input.type}' and result type '{op.result.type}' are cast incompatible")


def _cast_incompatible(op, how: str) -> VerifyException:
    """MLIR's message for an ext/trunc that does not widen/narrow."""
    return VerifyException(
        f"operand type '{op.input.type}' and result type '{op.result.type}' are cast incompatible "
        f"(the result type must be {how} than the operand type)"
    )


def _widens(op, src: Attribute, dst: Attribute) -> None:
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    if dst.width.data <= src.width.data:
        raise _cast_incompatible(op, "wider")


def _narrows(op, src: Attribute, dst: Attribute) -> None:
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    if dst.width.data >= src.width.data:
        raise _cast_incompatible(op, "narrower")


# MLIR compares float types by bit width alone: bf16 -> f16 is no extension.
def _widens_float(op, src: Attribute, dst: Attribute) -> None:
    assert isinstance(src, AnyFloat) and isinstance(dst, AnyFloat)
    if dst.bitwidth <= src.bitwidth:
        raise _cast_incompatible(op, "wider")


def _narrows_float(op, src: Attribute, dst: Attribute) -> None:
    assert isinstance(src, AnyFloat) and isinstance(dst, AnyFloat)
    if dst.bitwidth >= src.bitwidth:
        raise _cast_incompatible(op, "narrower")


TENSOR_CASTS = [
    _tensor_cast(arith.SIToFPOp, _INT, _FLOAT),
    _tensor_cast(arith.UIToFPOp, _INT, _FLOAT),
    _tensor_cast(arith.FPToSIOp, _FLOAT, _INT),
    _tensor_cast(arith.FPToUIOp, _FLOAT, _INT),
    _tensor_cast(arith.ExtSIOp, _INT, _INT, _widens),
    _tensor_cast(arith.ExtUIOp, _INT, _INT, _widens),
    _tensor_cast(arith.ExtFOp, _FLOAT, _FLOAT, _widens_float),
    _tensor_cast(arith.TruncFOp, _FLOAT, _FLOAT, _narrows_float),
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
        raise VerifyException(
            "expected string or keyword containing one of the following enum values for attribute 'predicate' "
            f"[{', '.join(names)}]"
        )
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
            raise VerifyException("failed to verify that condition is signless i1 or has matching shape")

REPLACEMENTS: list[type] = [*TENSOR_CASTS, CmpiOp, CmpfOp, SelectOp]


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    """`arith.remf`, the floating-point remainder (MLIR has it, xDSL 0.75 not)."""

    name = "arith.remf"
    traits = traits_def(Pure())


IndexCastUIOp = _tensor_cast(arith.IndexCastOp, _INT_OR_INDEX, _INT_OR_INDEX, _exactly_one_index, name="arith.index_castui")
IndexCastUIOp.__doc__ = "`arith.index_castui`, the zero-extending `index_cast` (MLIR has it, xDSL 0.75 not)."

ADDITIONS: list[type] = [RemFOp, IndexCastUIOp]
"""Ops of MLIR's arith dialect that xDSL 0.75 does not have, added to it."""


def _mark_elementwise() -> None:
    """Give every arith op but `arith.constant` MLIR's `Elementwise` trait, and
    every one the rule that integers are signless."""
    from spyre_mlir.traits import Elementwise, SignlessIntegers

    for cls in {*arith.Arith.operations, *REPLACEMENTS, *ADDITIONS}:
        cls.traits.add_trait(SignlessIntegers())
        if cls.name != "arith.constant":
            cls.traits.add_trait(Elementwise())
    assert not arith.ConstantOp.has_trait(Elementwise), "arith.constant shares traits with an elementwise op"


_mark_elementwise()
