"""The `spyreop` dialect: the scalar intrinsics of Spyre's compute units.

KTIR kernels call them inside `linalg.generic` bodies, one element at a time:

    %m = spyreop.exp %x : f16
    %s = spyreop.realdiv %m, %y : f16

dataflow-scheduler's corpus has no .td for this dialect; its definition is
torch-spyre/ktir-mlir-frontend's `include/ktir/Dialect/SpyreOp/` (SpyreOp.td,
SpyreOpTypes.td, SpyreOpAttrs.td) and `lib/Dialect/SpyreOp/SpyreOpOps.cpp`.
docs/spyreop.md says which version, op by op, and what each computes; the
interpreter runs them (interpreter/ops_spyreop.py).

Every intrinsic is pure and, unless said otherwise, has operands and result of
one type: `f16`, IBM's `!spyreop.df16` or `f32`.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    Float16Type,
    Float32Type,
    FloatAttr,
    TensorType,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AnyOf,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SameOperandsAndResultType
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from spyre_mlir.dialects.format_helpers import AngleBracketEnum

# ---------------------------------------------------------------------------
# Types (SpyreOpTypes.td)
# ---------------------------------------------------------------------------


@irdl_attr_definition
class DF16Type(ParametrizedAttribute, TypeAttribute):
    """IBM df16: a 16-bit float with 1 sign, 6 exponent and 9 mantissa bits."""

    name = "spyreop.df16"


@irdl_attr_definition
class DF16FusedType(ParametrizedAttribute, TypeAttribute):
    """A pair of df16 floats held as one value (a mean and a mean of squares)."""

    name = "spyreop.df16_fused"


@irdl_attr_definition
class FP16FusedType(ParametrizedAttribute, TypeAttribute):
    """A pair of 16-bit floats held as one value."""

    name = "spyreop.fp16_fused"


@irdl_attr_definition
class FP32FusedType(ParametrizedAttribute, TypeAttribute):
    """A pair of 32-bit floats held as one value."""

    name = "spyreop.fp32_fused"


FUSED_PAIR_OF: dict[type[Attribute], type[Attribute]] = {
    Float16Type: FP16FusedType,
    DF16Type: DF16FusedType,
    Float32Type: FP32FusedType,
}
"""The scalar type -> the type holding a pair of it (SpyreOpOps.cpp's fusedPairOf)."""


def _float_types(*types: type[Attribute]):
    return AnyOf([base(t) for t in types])


_SPYRE_FLOAT = (Float16Type, DF16Type, Float32Type)
_FUSED = (FP16FusedType, DF16FusedType, FP32FusedType)

# ---------------------------------------------------------------------------
# Attributes (SpyreOpAttrs.td)
# ---------------------------------------------------------------------------


class ReductionKind(StrEnum):
    ADD = "add"
    SUB = "sub"
    MAX = "max"
    MIN = "min"
    MUL = "mul"
    ABS_MAX = "abs_max"


class ReductionScope(StrEnum):
    IN_SLICE = "in_slice"
    ACROSS_SLICE = "across_slice"


@irdl_attr_definition
class ReductionKindAttr(AngleBracketEnum, EnumAttribute[ReductionKind]):
    """`#spyreop.reduction_kind<add>`: the operator of a `spyreop.slice_reduction`."""

    name = "spyreop.reduction_kind"


@irdl_attr_definition
class ReductionScopeAttr(AngleBracketEnum, EnumAttribute[ReductionScope]):
    """`#spyreop.reduction_scope<in_slice>`: within every slice, or across slices."""

    name = "spyreop.reduction_scope"


# ---------------------------------------------------------------------------
# Intrinsics (SpyreOp.td)
# ---------------------------------------------------------------------------


class UnaryIntrinsic(IRDLOperation):
    """`spyreop.<name> %x : T`, T one of f16, df16, f32."""

    T: ClassVar = VarConstraint("T", _float_types(*_SPYRE_FLOAT))
    operand = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "operands attr-dict `:` type($result)"


@irdl_op_definition
class ExpOp(UnaryIntrinsic):
    """exp(x)."""

    name = "spyreop.exp"


@irdl_op_definition
class GeluOp(IRDLOperation):
    """GeLU, `x * CDF(x)` (f16 and df16 only)."""

    name = "spyreop.gelu"
    T: ClassVar = VarConstraint("T", _float_types(Float16Type, DF16Type))
    operand = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "operands attr-dict `:` type($result)"


@irdl_op_definition
class ReciprocalOp(UnaryIntrinsic):
    """1 / x."""

    name = "spyreop.reciprocal"


@irdl_op_definition
class RsqrtOp(UnaryIntrinsic):
    """1 / sqrt(x)."""

    name = "spyreop.rsqrt"


@irdl_op_definition
class SigmoidOp(UnaryIntrinsic):
    """1 / (1 + exp(-x))."""

    name = "spyreop.sigmoid"


@irdl_op_definition
class SiluOp(UnaryIntrinsic):
    """x * sigmoid(x)."""

    name = "spyreop.silu"


@irdl_op_definition
class SqrtOp(UnaryIntrinsic):
    """sqrt(x)."""

    name = "spyreop.sqrt"


@irdl_op_definition
class RealDivOp(IRDLOperation):
    """`spyreop.realdiv %a, %b : T`: a / b."""

    name = "spyreop.realdiv"
    T: ClassVar = VarConstraint("T", _float_types(*_SPYRE_FLOAT))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "operands attr-dict `:` type($result)"


@irdl_op_definition
class SoftplusOp(IRDLOperation):
    """`spyreop.softplus %x beta 1.0 threshold 20.0 : f16`: softplus with a
    non-zero `beta` and a `threshold` (f32 attributes, to hold f16 and df16
    values alike)."""

    name = "spyreop.softplus"
    T: ClassVar = VarConstraint("T", _float_types(Float16Type, DF16Type))
    operand = operand_def(T)
    beta = prop_def(FloatAttr[Float32Type])
    threshold = prop_def(FloatAttr[Float32Type])
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "$operand `beta` $beta `threshold` $threshold attr-dict `:` type($result)"

    def verify_(self) -> None:
        if self.beta.value.data == 0.0:
            raise VerifyException("attribute 'beta' failed to satisfy constraint: 32-bit float attribute which is non-zero")


@irdl_op_definition
class Exx2Op(IRDLOperation):
    """`%mean, %squares = spyreop.exx2 %x : T`: a mean and a mean of squares."""

    name = "spyreop.exx2"
    T: ClassVar = VarConstraint("T", _float_types(*_SPYRE_FLOAT))
    operand = operand_def(T)
    result = result_def(T)
    squares = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "$operand attr-dict `:` type($result)"


@irdl_op_definition
class Exx2FusedOp(IRDLOperation):
    """`spyreop.exx2_fused %x : f16 -> !spyreop.fp16_fused`: exx2's pair as one value,
    of the fused type of the operand's type."""

    name = "spyreop.exx2_fused"
    operand = operand_def(_float_types(*_SPYRE_FLOAT))
    result = result_def(_float_types(*_FUSED))
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def verify_(self) -> None:
        expected = FUSED_PAIR_OF[type(self.operand.type)]()
        if self.result.type != expected:
            raise VerifyException(
                f"inferred type(s) '{expected}' are incompatible with return type(s) of operation '{self.result.type}'"
            )


@irdl_op_definition
class LayerNormScaleOp(IRDLOperation):
    """`spyreop.layernormscale %mean squares %sq : T`: the scaling part of LayerNorm."""

    name = "spyreop.layernormscale"
    T: ClassVar = VarConstraint("T", _float_types(*_SPYRE_FLOAT))
    operand = operand_def(T)
    squares = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "$operand `squares` $squares attr-dict `:` type($result)"


@irdl_op_definition
class LayerNormScaleFusedOp(IRDLOperation):
    """`spyreop.layernormscale_fused %pair : !spyreop.fp16_fused -> f16`: layernormscale
    of a fused mean and mean of squares; the result is the scalar the pair holds."""

    name = "spyreop.layernormscale_fused"
    operand = operand_def(_float_types(*_FUSED))
    result = result_def(_float_types(*_SPYRE_FLOAT))
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def verify_(self) -> None:
        scalar = next(s for s, f in FUSED_PAIR_OF.items() if isinstance(self.operand.type, f))()
        if self.result.type != scalar:
            raise VerifyException(
                f"inferred type(s) '{scalar}' are incompatible with return type(s) of operation '{self.result.type}'"
            )


@irdl_op_definition
class LayerNormNormOp(IRDLOperation):
    """`spyreop.layernormnorm %x squares %s scale %c weight %w bias %b : T`: the
    normalising part of LayerNorm."""

    name = "spyreop.layernormnorm"
    T: ClassVar = VarConstraint("T", _float_types(*_SPYRE_FLOAT))
    operand = operand_def(T)
    squares = operand_def(T)
    scale = operand_def(T)
    weight = operand_def(T)
    bias = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = (
        "$operand `squares` $squares `scale` $scale `weight` $weight `bias` $bias attr-dict `:` type($result)"
    )


class IntegerIntrinsic(IRDLOperation):
    """`spyreop.<name> %a, %b`: two integers of the op's width, no type written."""

    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "operands attr-dict"


@irdl_op_definition
class AddI32ToI32Op(IntegerIntrinsic):
    """a + b on i32, wrapping."""

    name = "spyreop.addi32toi32"
    lhs = operand_def(I32)
    rhs = operand_def(I32)
    result = result_def(I32)


@irdl_op_definition
class AddI64ToI64Op(IntegerIntrinsic):
    """a + b on i64, wrapping."""

    name = "spyreop.addi64toi64"
    lhs = operand_def(I64)
    rhs = operand_def(I64)
    result = result_def(I64)


@irdl_op_definition
class MulI32ToI32Op(IntegerIntrinsic):
    """a * b on i32, wrapping."""

    name = "spyreop.muli32toi32"
    lhs = operand_def(I32)
    rhs = operand_def(I32)
    result = result_def(I32)


@irdl_op_definition
class Idx32ToAddrOp(IRDLOperation):
    """`spyreop.idx32toaddr %i base %b stride %s`: the address `b + s * i` (i32)."""

    name = "spyreop.idx32toaddr"
    index = operand_def(I32)
    base = operand_def(I32)
    stride = operand_def(I32)
    result = result_def(I32)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = "$index `base` $base `stride` $stride attr-dict"


@irdl_op_definition
class SliceReductionOp(IRDLOperation):
    """`spyreop.slice_reduction %t {reduction_kind = ..., reduction_scope = ...} : T -> T`:
    a reduction of a stick-wide ranked tensor within or across its slices."""

    name = "spyreop.slice_reduction"
    operand = operand_def(TensorType)
    reduction_kind = prop_def(ReductionKindAttr)
    reduction_scope = prop_def(ReductionScopeAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), SameOperandsAndResultType())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`%c = spyreop.constant 1.0 : f16`: a float constant of f16 or f32 (ktir-mlir-frontend's
    newer SpyreOp.td; the form and rules are those of its invalid.mlir test)."""

    name = "spyreop.constant"
    value = prop_def(Attribute)
    result = result_def(Attribute)  # f16 or f32: checked in verify_, with upstream's message
    traits = traits_def(Pure())

    def __init__(self, value: FloatAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def verify_(self) -> None:
        if not isinstance(self.result.type, Float16Type | Float32Type):
            raise VerifyException(f"result #0 must be 16-bit float or 32-bit float, but got '{self.result.type}'")
        if not isinstance(self.value, FloatAttr):
            raise VerifyException(f"requires a floating-point value attribute, got {self.value}")
        if self.value.type != self.result.type:
            raise VerifyException("failed to verify that all of {value, result} have same type")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, FloatAttr):
            # The result type is the value's: an integer, a tensor, ... is refused by the verifier.
            typ = getattr(value, "type", None)
            if typ is None:
                parser.raise_error("expected a typed attribute, e.g. 1.0 : f16", pos, parser.pos)
            op = cls.create(properties={"value": value}, result_types=[typ])
        else:
            op = cls(value)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)


SPYREOP = Dialect(
    "spyreop",
    [
        AddI32ToI32Op,
        AddI64ToI64Op,
        ConstantOp,
        ExpOp,
        Exx2Op,
        Exx2FusedOp,
        GeluOp,
        Idx32ToAddrOp,
        LayerNormNormOp,
        LayerNormScaleOp,
        LayerNormScaleFusedOp,
        MulI32ToI32Op,
        RealDivOp,
        ReciprocalOp,
        RsqrtOp,
        SigmoidOp,
        SiluOp,
        SliceReductionOp,
        SoftplusOp,
        SqrtOp,
    ],
    [DF16Type, DF16FusedType, FP16FusedType, FP32FusedType, ReductionKindAttr, ReductionScopeAttr],
)
