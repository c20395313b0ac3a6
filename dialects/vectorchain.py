"""The `vectorchain` dialect (dataflow-scheduler's VectorChain/VectorChain.td,
VectorChainEnums.td): the vector operations of a Spyre compute unit's chain,
each on whole vectors (builtin `vector<...>` or `!dataflow.custom_vector<NxT>`),
most with an optional lane mask:

    %d = vectorchain.binary %a, %b [%m : vector<64xi1>] {binary_op = #vectorchain.binary_operator<add>,
           op_specific_map = affine_map<(d0) -> (d0)>} : vector<64xf16>, vector<64xf16>, vector<64xf16>

Syntax is upstream's: the .td's assembly formats as xDSL declarative formats,
and for `constant_bitstream` and `shuffle` the parsers/printers of
dataflow-scheduler-mlir-dialects' VectorChain.cpp, with its verifiers
(`cast`, `constant_bitstream`, `shuffle`). Parsed, verified and printed
back, never executed (spyre_mlir.ir.LOWERING_DIALECTS).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from spyre_mlir.dialects.dataflow import CustomVectorType, sorted_attr_dict
from spyre_mlir.dialects.format_helpers import AngleBracketEnum

# ---------------------------------------------------------------------------
# Enums (VectorChainEnums.td) and their attributes (VectorChain.td)
# ---------------------------------------------------------------------------


class BinaryOperator(StrEnum):
    AND0 = "and0"
    OR0 = "or0"
    XNOR = "xnor"
    AND_NOT = "and_not"
    MIN = "min"
    MAX = "max"
    ABS_MIN = "abs_min"
    ABS_MAX = "abs_max"
    ADD = "add"
    MUL = "mul"
    SUB = "sub"
    MUL_DIV2 = "mul_div2"


class ElementWiseCompareOperator(StrEnum):
    EQ = "compare_eq"
    NEQ = "compare_neq"
    LT = "compare_lt"
    LE = "compare_le"
    GT = "compare_gt"
    GE = "compare_ge"


class ExpEstimate(StrEnum):
    A = "a"
    B = "b"


class EstimateVersions(StrEnum):
    SLOPE = "slope"
    OFFSET = "offset"


class ScanOpEvalOrders(StrEnum):
    LEFT_TO_RIGHT = "left_to_right"
    RIGHT_TO_LEFT = "right_to_left"


@irdl_attr_definition
class BinaryOperatorAttr(AngleBracketEnum, EnumAttribute[BinaryOperator]):
    """`#vectorchain.binary_operator<add>`."""

    name = "vectorchain.binary_operator"


@irdl_attr_definition
class ElementWiseCompareOperatorAttr(AngleBracketEnum, EnumAttribute[ElementWiseCompareOperator]):
    """`#vectorchain.element_wise_compare_operator<compare_lt>`."""

    name = "vectorchain.element_wise_compare_operator"


@irdl_attr_definition
class ExpEstimateAttr(AngleBracketEnum, EnumAttribute[ExpEstimate]):
    """`#vectorchain.exp_estimate<a>`."""

    name = "vectorchain.exp_estimate"


@irdl_attr_definition
class EstimateVersionsAttr(AngleBracketEnum, EnumAttribute[EstimateVersions]):
    """`#vectorchain.estimate_versions<slope>`."""

    name = "vectorchain.estimate_versions"


@irdl_attr_definition
class ScanOpEvalOrdersAttr(AngleBracketEnum, EnumAttribute[ScanOpEvalOrders]):
    """`#vectorchain.eval_order<left_to_right>`."""

    name = "vectorchain.eval_order"


# ---------------------------------------------------------------------------
# Type constraints and helpers
# ---------------------------------------------------------------------------

ANY_VECTOR = VectorType
VECTOR_LIKE = CustomVectorType | VectorType
"""`AnyTypeOf<[Dataflow_CustomVectorType, AnyVectorOfAnyRank]>`."""
MASK = VectorType.constr(i1)
"""`VectorOfRankAndType<[1], [I1]>` (the rank is checked in `_check_mask`)."""


def element_type_of(t: Attribute) -> Attribute:
    """The element type of a vector or custom vector (dataflow's getElementType)."""
    return t.element_type if isinstance(t, CustomVectorType) else t.get_element_type()  # pyright: ignore


def num_elements_of(t: Attribute) -> int:
    """The number of elements of a vector or custom vector (dataflow's getNumElements)."""
    if isinstance(t, CustomVectorType):
        return t.num_elements.data
    count = 1
    for d in t.get_shape():  # pyright: ignore[reportAttributeAccessIssue]
        count *= d
    return count


def _check_mask(op: Operation, mask: SSAValue | None) -> None:
    if mask is not None and mask.type.get_num_dims() != 1:  # pyright: ignore[reportAttributeAccessIssue]
        raise VerifyException(f"operand 'mask' must be vector of 1-bit signless integer values of ranks 1, got {mask.type}")


class _VectorChainOp(IRDLOperation):
    traits = traits_def(NoMemoryEffect(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------


@irdl_op_definition
class SelectOp(_VectorChainOp):
    """`%d = vectorchain.select %x {selection_map = affine_map<...>} : vector<4xi8>, vector<128xi8>`:
    selects/shuffles the required data."""

    name = "vectorchain.select"
    data = operand_def(VECTOR_LIKE)
    selection_map = prop_def(AffineMapAttr)
    selected_data = result_def(VECTOR_LIKE)
    assembly_format = "$data attr-dict `:` type($data) `,` type(results)"


_MASKED_BINARY = "$op1 `,` $op2 (`[` $mask^ `:` type($mask) `]`)? attr-dict `:` type($op1) `,` type($op2) `,` type(results)"
_MASKED_UNARY = "$op (`[` $mask^ `:` type($mask) `]`)? attr-dict `:` type($op) `,` type(results)"


@irdl_op_definition
class MultiplyOp(_VectorChainOp):
    """Element-wise multiply, reduced with `reduction_map`."""

    name = "vectorchain.multiply"
    op1 = operand_def(VECTOR_LIKE)
    op2 = operand_def(VECTOR_LIKE)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    reduction_map = prop_def(AffineMapAttr)
    data = result_def(VECTOR_LIKE)
    assembly_format = _MASKED_BINARY


@irdl_op_definition
class BinaryOp(_VectorChainOp):
    """The element-wise operation `binary_op`, reduced with `op_specific_map`."""

    name = "vectorchain.binary"
    op1 = operand_def(VECTOR_LIKE)
    op2 = operand_def(VECTOR_LIKE)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    binary_op = prop_def(BinaryOperatorAttr)
    op_specific_map = prop_def(AffineMapAttr)
    data = result_def(VECTOR_LIKE)
    assembly_format = _MASKED_BINARY


@irdl_op_definition
class ElementWiseCompareOp(_VectorChainOp):
    """Element-wise comparison `compare_op`."""

    name = "vectorchain.element_wise_compare"
    op1 = operand_def(ANY_VECTOR)
    op2 = operand_def(ANY_VECTOR)
    mask = opt_operand_def(MASK)
    dbgName = opt_prop_def(StringAttr)
    compare_op = prop_def(ElementWiseCompareOperatorAttr)
    data = result_def(ANY_VECTOR)
    assembly_format = _MASKED_BINARY

    def verify_(self) -> None:
        _check_mask(self, self.mask)


@irdl_op_definition
class MergeOp(_VectorChainOp):
    """Merges two vectors following a polyhedral mini-scop (iteration spaces
    and access functions of C from A and from B)."""

    name = "vectorchain.merge"
    op1 = operand_def(VECTOR_LIKE)
    op2 = operand_def(VECTOR_LIKE)
    dbgName = opt_prop_def(StringAttr)
    iteration_space_CA = prop_def(AffineSetAttr)
    access_function_CA = prop_def(AffineMapAttr)
    access_function_A = prop_def(AffineMapAttr)
    iteration_space_CB = prop_def(AffineSetAttr)
    access_function_CB = prop_def(AffineMapAttr)
    access_function_B = prop_def(AffineMapAttr)
    data = result_def(VECTOR_LIKE)
    assembly_format = "$op1 `,` $op2 attr-dict `:` type($op1) `,` type($op2) `,` type(results)"


@irdl_op_definition
class CreateAffineMaskOp(_VectorChainOp):
    """`%m = vectorchain.create_affine_mask %p {mask_set = affine_set<...>} : vector<64xi1>`."""

    name = "vectorchain.create_affine_mask"
    mask_parameter = opt_operand_def(IndexType)
    mask_set = prop_def(AffineSetAttr)
    data = result_def(MASK)
    assembly_format = "($mask_parameter^)? attr-dict `:` type(results)"

    def verify_(self) -> None:
        if self.data.type.get_num_dims() != 1:
            raise VerifyException(f"result 'data' must be vector of 1-bit signless integer values of ranks 1, got {self.data.type}")


@irdl_op_definition
class PackOp(_VectorChainOp):
    """Packs two vectors into one following `indices`, `repetition` times."""

    name = "vectorchain.pack"
    op1 = operand_def(VECTOR_LIKE)
    op2 = operand_def(VECTOR_LIKE)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    indices = prop_def(ArrayAttr)
    repetition = prop_def(IntegerAttr[IndexType])
    sign_extend = prop_def(BoolAttr, default_value=BoolAttr.from_bool(False))
    data = result_def(VECTOR_LIKE)
    assembly_format = _MASKED_BINARY


@irdl_op_definition
class CastOp(_VectorChainOp):
    """Casts a vector to one of another element type and as many elements."""

    name = "vectorchain.cast"
    input = operand_def(VECTOR_LIKE)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    data = result_def(VECTOR_LIKE)
    assembly_format = "$input (`[` $mask^ `:` type($mask) `]`)? attr-dict `:` type($input) `,` type(results)"

    def verify_(self) -> None:
        if num_elements_of(self.data.type) != num_elements_of(self.input.type):
            raise VerifyException("result size does not match input size")


class _MaskedUnaryOp(_VectorChainOp):
    op = operand_def(ANY_VECTOR)
    mask = opt_operand_def(MASK)
    dbgName = opt_prop_def(StringAttr)
    data = result_def(ANY_VECTOR)
    assembly_format = _MASKED_UNARY

    def verify_(self) -> None:
        _check_mask(self, self.mask)


@irdl_op_definition
class FastExpOp(_MaskedUnaryOp):
    """The fast exp auxiliary function."""

    name = "vectorchain.fast_exp"


@irdl_op_definition
class ExpEstimateOp(_MaskedUnaryOp):
    """The exp estimate, version `a` or `b`."""

    name = "vectorchain.exp_estimate"
    version = prop_def(ExpEstimateAttr)


@irdl_op_definition
class FloorOp(_MaskedUnaryOp):
    """floor."""

    name = "vectorchain.floor"


@irdl_op_definition
class RecEstimateOp(_MaskedUnaryOp):
    """The reciprocal estimate."""

    name = "vectorchain.rec_estimate"


@irdl_op_definition
class LnEstimateOp(_MaskedUnaryOp):
    """The ln estimate."""

    name = "vectorchain.ln_estimate"


@irdl_op_definition
class RsqrtEstimateOp(_MaskedUnaryOp):
    """The rsqrt estimate."""

    name = "vectorchain.rsqrt_estimate"


@irdl_op_definition
class SigmoidEstimateOp(_MaskedUnaryOp):
    """The sigmoid estimate's `slope` or `offset`."""

    name = "vectorchain.sigmoid_estimate"
    version = prop_def(EstimateVersionsAttr)


@irdl_op_definition
class TanhEstimateOp(_MaskedUnaryOp):
    """The tanh estimate's `slope` or `offset`."""

    name = "vectorchain.tanh_estimate"
    version = prop_def(EstimateVersionsAttr)


@irdl_op_definition
class NegOp(_MaskedUnaryOp):
    """-x."""

    name = "vectorchain.neg"


@irdl_op_definition
class MultiplyAndAccumulateOp(_VectorChainOp):
    """op1 * op2 + op3, reduced with `reduction_map`."""

    name = "vectorchain.multiply_and_accumulate"
    op1 = operand_def(VECTOR_LIKE)
    op2 = operand_def(VECTOR_LIKE)
    op3 = operand_def(VECTOR_LIKE)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    reduction_map = prop_def(AffineMapAttr)
    data = result_def(VECTOR_LIKE)
    assembly_format = (
        "$op1 `,` $op2 `,` $op3 (`[` $mask^ `:` type($mask) `]`)? attr-dict "
        "`:` type($op1) `,` type($op2) `,` type($op3) `,` type(results)"
    )


@irdl_op_definition
class ElementWiseSelectionOp(_VectorChainOp):
    """`%d = vectorchain.element_wise_selection %c ? %l : %r : Tc, Tl, Tr, T`: lhs where cond, else rhs."""

    name = "vectorchain.element_wise_selection"
    cond = operand_def(ANY_VECTOR)
    lhs = operand_def(VECTOR_LIKE)
    rhs = operand_def(VECTOR_LIKE)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    data = result_def(VECTOR_LIKE)
    assembly_format = (
        "$cond `?` $lhs `:` $rhs (`[` $mask^ `:` type($mask) `]`)? attr-dict "
        "`:` type($cond) `,` type($lhs) `,` type($rhs) `,` type(results)"
    )


@irdl_op_definition
class ConstantBitstreamOp(_VectorChainOp):
    """`%c = vectorchain.constant_bitstream {value = [0x1, 0xFF]} : vector<2xi8>`: a
    constant bit stream read as a vector, one signed 64-bit integer per element
    (upstream prints them in hex; `is_symbol = true` keeps them as written)."""

    name = "vectorchain.constant_bitstream"
    value = prop_def(ArrayAttr)
    result = result_def(VECTOR_LIKE)

    def _converts_values(self) -> bool:
        is_symbol = self.attributes.get("is_symbol")
        return not (isinstance(is_symbol, IntegerAttr) and is_symbol.value.data)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantBitstreamOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        props = {"value": attrs.pop("value")} if "value" in attrs else {}
        return cls.create(properties=props, attributes=attrs, result_types=[result_type])

    def print(self, printer: Printer) -> None:
        if not self._converts_values():
            printer.print_op_attributes({"value": self.value, **self.attributes})
        else:
            # Upstream prints only the values, in hex; other attributes are kept here.
            printer.print_string(" {")
            for i, name in enumerate(sorted({"value", *self.attributes})):
                printer.print_string(f"{', ' if i else ''}{name} = ")
                if name != "value":
                    printer.print_attribute(self.attributes[name])
                    continue
                hexes = (f"0x{v.value.data & 0xFFFFFFFFFFFFFFFF:X}" for v in self.value.data)  # pyright: ignore
                printer.print_string(f"[{', '.join(hexes)}]")
            printer.print_string("}")
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        result_type = self.result.type
        element = element_type_of(result_type)
        if not isinstance(element, IntegerType | AnyFloat) and not hasattr(element, "bitwidth"):
            raise VerifyException("result element type is not ints or floats")
        if num_elements_of(result_type) != len(self.value.data):
            raise VerifyException("result does not match value array")
        if not self._converts_values():
            return
        width = element.bitwidth  # pyright: ignore[reportAttributeAccessIssue]
        for v in self.value.data:
            if not isinstance(v, IntegerAttr):
                raise VerifyException("value attribute should only contain integer representations")
            # Any signed 64-bit value fits 64 bits (upstream's mask, pow(2, 64) - 1 in a double, overflows there).
            if width < 64 and v.value.data & ((1 << width) - 1) != v.value.data:
                raise VerifyException("value attribute contains element that exceeds bitwidth of output element type")


_SCALAR = IndexType | IntegerType | AnyFloat


@irdl_op_definition
class ShuffleOp(_VectorChainOp):
    """`%o = vectorchain.shuffle input(%x), variable(%a, %b), pad(%c0), mask(%m)
    {indices = [...], repetition = 16 : i32} : Tx, Ta, Tb, Tc0, Tm, T`: the
    elements of `%x` picked by `indices`, the pattern repeated `repetition`
    times; an index -k (k >= 1) is the k-th of the variable then pad operands."""

    name = "vectorchain.shuffle"
    input = operand_def(VECTOR_LIKE)
    variable = var_operand_def(_SCALAR)
    pad = var_operand_def(_SCALAR)
    mask = opt_operand_def(ANY_VECTOR)
    dbgName = opt_prop_def(StringAttr)
    indices = prop_def(ArrayAttr)
    repetition = prop_def(IntegerAttr[IntegerType])
    output = result_def(VECTOR_LIKE)
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        parser.parse_keyword("input")
        parser.parse_punctuation("(")
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        groups: dict[str, list[UnresolvedOperand]] = {}
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            keyword = parser.parse_optional_identifier()
            if keyword not in ("variable", "pad", "mask") or keyword in groups:
                parser.raise_error("expected 'variable', 'pad', or 'mask' keyword", pos, parser.pos)
            parse_one = parser.parse_unresolved_operand
            groups[keyword] = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_one)
            if keyword == "mask" and len(groups[keyword]) != 1:
                parser.raise_error("expected one mask operand", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_value = parser.resolve_operand(source, parser.parse_type())
        resolved: dict[str, list[SSAValue]] = {}
        for keyword in ("variable", "pad", "mask"):
            resolved[keyword] = []
            for operand in groups.get(keyword, []):
                parser.parse_punctuation(",")
                resolved[keyword].append(parser.resolve_operand(operand, parser.parse_type()))
        parser.parse_punctuation(",")
        result_type = parser.parse_type()
        prop_names = ("dbgName", "indices", "repetition")
        return cls.create(
            operands=[source_value, *resolved["variable"], *resolved["pad"], *resolved["mask"]],
            result_types=[result_type],
            properties={
                "operandSegmentSizes": _segments(1, len(resolved["variable"]), len(resolved["pad"]), len(resolved["mask"])),
                **{k: v for k, v in attrs.items() if k in prop_names},
            },
            attributes={k: v for k, v in attrs.items() if k not in prop_names},
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" input(")
        printer.print_ssa_value(self.input)
        printer.print_string(")")
        for keyword, values in (("variable", self.variable), ("pad", self.pad), ("mask", [self.mask] if self.mask else [])):
            if values:
                printer.print_string(f", {keyword}(")
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(")")
        attrs = {k: v for k, v in {**self.properties, **self.attributes}.items() if k != "operandSegmentSizes"}
        printer.print_op_attributes(attrs)
        printer.print_string(" : ")
        printer.print_list([o.type for o in self.operands] + [self.output.type], printer.print_attribute)

    def verify_(self) -> None:
        count = num_elements_of(self.output.type)
        if count != len(self.indices.data) * self.repetition.value.data:
            raise VerifyException("result does not scale with indices and repetitions")
        if element_type_of(self.output.type) != element_type_of(self.input.type):
            raise VerifyException("input element type does not match output element type")
        highest = num_elements_of(self.input.type) - 1
        lowest = -(len(self.variable) + len(self.pad))
        for index in self.indices.data:
            if not isinstance(index, IntegerAttr):
                raise VerifyException("indices element is not integer")
            if not lowest <= index.value.data <= highest:
                raise VerifyException("out of bounds indices element")


def _segments(*sizes: int) -> Attribute:
    return DenseArrayBase.from_list(i32, list(sizes))


@irdl_op_definition
class ScanWithGapOp(_VectorChainOp):
    """A scan with `reduction_op`: O[i] = op{I[i - k*gap] | k = 0..i/gap}, in `eval_order`."""

    name = "vectorchain.scan_with_gap"
    input = operand_def(VECTOR_LIKE)
    dbgName = opt_prop_def(StringAttr)
    reduction_op = prop_def(BinaryOperatorAttr)
    gap = prop_def(IntegerAttr[IndexType])
    eval_order = prop_def(ScanOpEvalOrdersAttr)
    output = result_def(VECTOR_LIKE)
    assembly_format = "$input attr-dict `:` type($input) `,` type(results)"


@irdl_op_definition
class RotateOp(_VectorChainOp):
    """Rotates the (linearized) vector by `position`, right unless `right_shift = false`."""

    name = "vectorchain.rotate"
    input = operand_def(VECTOR_LIKE)
    position = operand_def(IndexType)
    dbgName = opt_prop_def(StringAttr)
    right_shift = prop_def(BoolAttr, default_value=BoolAttr.from_bool(True))
    output = result_def(VECTOR_LIKE)
    assembly_format = "$input `,` $position attr-dict `:` type($input) `,` type($position) `,` type(results)"


_OPS = [
    SelectOp,
    MultiplyOp,
    BinaryOp,
    ElementWiseCompareOp,
    MergeOp,
    CreateAffineMaskOp,
    PackOp,
    CastOp,
    FastExpOp,
    ExpEstimateOp,
    FloorOp,
    RecEstimateOp,
    LnEstimateOp,
    RsqrtEstimateOp,
    SigmoidEstimateOp,
    TanhEstimateOp,
    NegOp,
    MultiplyAndAccumulateOp,
    ElementWiseSelectionOp,
    ConstantBitstreamOp,
    ShuffleOp,
    ScanWithGapOp,
    RotateOp,
]
for _op in _OPS:
    sorted_attr_dict(_op)  # MLIR prints an attribute dictionary sorted by name

VECTORCHAIN = Dialect(
    "vectorchain",
    _OPS,
    [
        BinaryOperatorAttr,
        ElementWiseCompareOperatorAttr,
        ExpEstimateAttr,
        EstimateVersionsAttr,
        ScanOpEvalOrdersAttr,
    ],
)
