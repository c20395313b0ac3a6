"""`linalg` syntax that KTIR uses and xDSL 0.75 does not read or print.

- `linalg.reduce`: MLIR's short form `linalg.reduce { arith.addf } ins(..)
  outs(..) dimensions = [1]` (body `op(%init, %in)`, as MLIR's
  `addBodyWithPayloadOp(initFirst=true)` builds it), printed back in short
  form whenever the body is exactly that, as MLIR prints it.
- MLIR's verifiers that xDSL lacks: `linalg.reduce`'s dimensions increase
  and are in range, and its body takes one argument per operand, of its
  element type; `linalg.fill`'s value has the output's
  element type; `linalg.yield` sits in a linalg op and yields one value per
  output, of the output's element type (in the bodies written in the source:
  `linalg.generic` and `linalg.reduce`; named ops' bodies are built by xDSL).

Ops here subclass xDSL's (so `isinstance(op, linalg.ReduceOp)` and every xDSL
pass keep working) and replace them in xDSL's dialect under the same name
(`REPLACEMENTS`, swapped in by `spyre_mlir.ir`); nothing else of the dialect
is copied. Candidates to upstream to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, DenseArrayBase, ShapedType, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.abstract_ops import ElementwiseOperation, LinalgStructuredOperation
from xdsl.ir import Attribute, Block, BlockArgument, Region, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.diagnostics import RegionVerifyException
from spyre_mlir.verifier_utils import definition_without


class ReduceOp(linalg.ReduceOp):
    """`linalg.reduce` with MLIR's short form (see module docstring), and
    MLIR's check of the body's arguments: one per operand, of its element type."""

    def verify_(self) -> None:
        # MLIR's checks of `dimensions` first: xDSL's verifier indexes the
        # input shape with them, and crashed on one out of range.
        type(self).get_irdl_definition().verify(self)
        dims = self.dimensions.get_values()
        if any(b <= a for a, b in zip(dims, dims[1:])):
            raise VerifyException(
                "attribute 'dimensions' failed to satisfy constraint: i64 dense array attribute should be in "
                "increasing order"
            )
        if isinstance(self.input.type, ShapedType):
            rank = len(self.input.type.get_shape())
            if any(not 0 <= d < rank for d in dims):
                raise VerifyException(f"dimensions for reduction should be in the range [0, {rank - 1}].")
        super().verify_()
        if not self.region.blocks:
            return  # the region's single-block constraint reports it
        args = self.region.block.args
        if len(args) != 2:
            raise VerifyException("mismatching number of operands and block arguments")
        for which, operand, arg in (("input", self.input, args[0]), ("output", self.init, args[1])):
            element = operand.type.get_element_type() if isinstance(operand.type, ShapedType) else operand.type
            if element != arg.type:
                raise VerifyException(
                    f"{which} element type '{element}' does not match corresponding block argument type '{arg.type}'"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        payload_name: str | None = None
        payload_attrs: dict = {}
        if parser.parse_optional_punctuation("{") is not None:
            payload_name = parser.parse_identifier()
            payload_attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation("}")
        input_, init = _parse_single_ins_outs(parser)
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        dimensions = _parse_int64_list(parser)
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
    if not isinstance(yield_, linalg.YieldOp) or tuple(yield_.operands) != tuple(payload.results):
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

class FillOp(linalg.FillOp):
    """`linalg.fill` whose value has the output's element type, as MLIR checks."""

    def verify_(self) -> None:
        for i, out in enumerate(self.outputs):  # xDSL asserted it (an internal error)
            if not isinstance(out.type, ShapedType):
                raise VerifyException(
                    f"operand #{len(self.inputs) + i} must be variadic of shaped of any non-token type values, "
                    f"but got '{out.type}'"
                )
        super().verify_()
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            return
        value, out = self.inputs[0].type, self.outputs[0].type
        element = out.get_element_type() if isinstance(out, ShapedType) else out
        if value != element:
            raise VerifyException(f"expected fill value type ('{value}') to match output element type ('{element}')")


class YieldOp(linalg.YieldOp):
    """`linalg.yield` with MLIR's checks against the enclosing linalg op."""

    def verify_(self) -> None:
        super().verify_()
        parent = self.parent_op()
        if parent is None:
            return
        if not isinstance(parent, LinalgStructuredOperation | linalg.ReduceOp | linalg.BroadcastOp):
            raise VerifyException("expected parent op with LinalgOp interface")
        if not isinstance(parent, linalg.GenericOp | linalg.ReduceOp):
            return  # a named op's body, built by xDSL, not written in the source
        inits = [parent.init] if isinstance(parent, linalg.ReduceOp) else list(parent.outputs)
        if len(self.arguments) != len(inits):
            raise VerifyException(
                f"expected number of yield values ({len(self.arguments)}) to match the number of inits / outs "
                f"operands of the enclosing LinalgOp ({len(inits)})"
            )
        for i, (value, init) in enumerate(zip(self.arguments, inits)):
            element: Attribute = init.type.get_element_type() if isinstance(init.type, ShapedType) else init.type
            if value.type != element:
                raise VerifyException(
                    f"type of yield operand {i + 1} ('{value.type}') doesn't match the element type of the "
                    f"enclosing linalg.generic op ('{element}')"
                )


def _num_loops(op) -> int | None:
    """MLIR's `LinalgOp::getNumLoops` for the ops xDSL has, if known."""
    if isinstance(op, linalg.GenericOp):
        return len(op.iterator_types.data)
    if isinstance(op, linalg.ReduceOp):
        shaped = op.input.type
    elif isinstance(op, linalg.BroadcastOp):
        shaped = op.init.type
    else:
        try:
            return len(op.get_iterator_types().data)
        except Exception:  # noqa: BLE001 - a named op xDSL cannot tell it for: not checked
            return None
    return len(shaped.get_shape()) if isinstance(shaped, ShapedType) else None


def _parse_int64_list(parser: Parser) -> list[int]:
    """`[a, b, ...]` of 64-bit integers, as MLIR reads an i64 array
    (`integer value too large` at a literal outside 64 bits)."""

    def parse_one() -> int:
        at = parser.pos
        value = parser.parse_integer(allow_boolean=False)
        if not -(1 << 63) <= value < 1 << 63:
            parser.raise_error("integer value too large", at, parser.pos)
        return value

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_one)


class TransposeOp(linalg.TransposeOp):
    """`linalg.transpose` with MLIR's verifier (xDSL's indexed the input
    shape with an out-of-range permutation: an internal error)."""

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)  # xDSL's own check is replaced by MLIR's
        perm = list(self.permutation.get_values())
        if sorted(perm) != list(range(len(perm))):
            raise VerifyException("permutation is not valid")
        input_type, init_type = self.inputs[0].type, self.outputs[0].type
        if not isinstance(input_type, ShapedType) or not isinstance(init_type, ShapedType):
            return
        inputs, inits = input_type.get_shape(), init_type.get_shape()
        if len(inputs) != len(inits):
            raise VerifyException(f"input rank ({len(inputs)}) does not match init rank ({len(inits)})")
        if len(perm) != len(inputs):
            raise VerifyException(f"size of permutation {len(perm)} does not match the argument rank {len(inputs)}")
        for i, p in enumerate(perm):
            if inputs[p] != inits[i]:
                raise VerifyException(
                    f"dim(result, {i}) = {inits[i]} doesn't match dim(input, permutation[{i}]) = {inputs[p]}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        input_, init = _parse_single_ins_outs(parser)
        parser.parse_keyword("permutation")
        parser.parse_punctuation("=")
        op = cls(input_, init, DenseArrayBase.from_list(i64, _parse_int64_list(parser)))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


class GenericOp(linalg.GenericOp):
    """`linalg.generic` whose structured-op checks (indexing maps, body
    arguments) come after the ops of its body have been verified, as MLIR's
    LinalgOp interface makes them (an error in the body is reported first)."""

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        try:
            super().verify_()
        except VerifyException as exc:
            raise RegionVerifyException(str(exc)) from exc


class IndexOp(linalg.IndexOp):
    """`linalg.index` in any linalg op (xDSL allowed only `linalg.generic`:
    it refused one in `linalg.reduce`), below its number of loops, as MLIR
    checks it."""

    def verify_(self) -> None:
        # The IRDL constraints, without xDSL's parent trait: MLIR's check below.
        definition_without(type(self), HasParent).verify(self)
        dim = self.dim.value.data
        if dim < 0:
            raise VerifyException(
                "attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum "
                "value is 0"
            )
        parent = self.parent_op()
        if parent is None:
            return
        if not isinstance(parent, LinalgStructuredOperation | linalg.ReduceOp | linalg.BroadcastOp):
            raise VerifyException("expected parent op with LinalgOp interface")
        loops = _num_loops(parent)
        if loops is not None and loops <= dim:
            raise VerifyException(
                f"expected dim ({dim}) to be lower than the number of loops ({loops}) of the enclosing LinalgOp"
            )


def _operands_shaped(op) -> None:
    """xDSL's named ops assume shaped operands (an AssertionError otherwise:
    an internal error); MLIR's indexing maps refuse them (the rank check of
    its LinalgOp interface)."""
    for i, operand in enumerate(op.operands):
        if not isinstance(operand.type, ShapedType):
            raise VerifyException(f"expected operand #{i} to be a tensor or memref, got '{operand.type}'")


def _elementwise(base: type) -> type:
    """xDSL's named elementwise op `base` with shaped operands checked first."""

    def verify_(self) -> None:
        _operands_shaped(self)
        base.verify_(self)

    return type(base.__name__, (base,), {"__module__": __name__, "__doc__": base.__doc__, "verify_": verify_})


ELEMENTWISE = [
    _elementwise(op)
    for op in vars(linalg).values()
    if isinstance(op, type) and issubclass(op, ElementwiseOperation) and op is not ElementwiseOperation
]

REPLACEMENTS: list[type] = [ReduceOp, FillOp, YieldOp, IndexOp, GenericOp, TransposeOp, *ELEMENTWISE]


@irdl_op_definition
class DivOp(ElementwiseOperation):
    """`linalg.div`: elementwise division, MLIR's named op (`BinaryFn::div`:
    `arith.divf` on floats, `arith.divsi` on integers), which xDSL 0.75 lacks."""

    name = "linalg.div"

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue] = (),
        res: Sequence[Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=res if res is not None else tuple(out.type for out in outputs),
            attributes=attributes,
            hidden_region=self.get_hidden_region(inputs, outputs),
        )

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = cls.body_arg_types((*inputs, *outputs))
        div = arith.DivfOp if isinstance(arg_types[-1], AnyFloat) else arith.DivSIOp

        @Builder.implicit_region(arg_types)
        def hidden_region(args: tuple[BlockArgument, ...]) -> None:
            linalg.YieldOp(div(args[0], args[1]))

        return hidden_region

    def verify_(self) -> None:
        _operands_shaped(self)
        super().verify_()


ADDITIONS: list[type] = [DivOp]
"""Named ops of MLIR's linalg dialect that xDSL 0.75 does not have, added to it."""


def _parse_single_ins_outs(parser: Parser) -> tuple[SSAValue, SSAValue]:
    """`ins(%x : T) outs(%y : U)` with one operand each (linalg.reduce, linalg.transpose)."""
    operands = []
    for keyword in ("ins", "outs"):
        parser.parse_characters(keyword)
        parser.parse_punctuation("(")
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        operands.append(parser.resolve_operand(unresolved, parser.parse_type()))
        parser.parse_punctuation(")")
    return operands[0], operands[1]
