"""The KTDF (KTIR dataflow) schedule dialect: pipelines of stages over FIFOs.

The schedule IR of torch-spyre's dataflow-scheduler: a `ktdf.pipeline` holds
one `ktdf.private` region that allocates FIFO slots and creates tokens, and
`ktdf.stage`s ordered by tokens (`depends_in` / `depends_out`) that move
data between memory views and FIFO slots (`ktdf.data_transfer`) and between
FIFO slots and tensors or buffers (`ktdf.read_from_fifo`,
`ktdf.write_to_fifo`); tile sizes the scheduler picks later
(`ktdf.tiling.*`), parallel iteration spaces over hardware instances
(`ktdf.parallel`), double buffering (`ktdf.buffer_phase`,
`ktdf.select_memref`) and target intrinsics (`ktdf.opaque`).

Exactly upstream's dialect (../shared/corpus/dataflow-scheduler/dialects/
KTDF/*.td): every op, type and attribute, its names, custom syntax, verifier
rules and messages, folders. IR upstream accepts verifies here. The rules a
finished schedule keeps that upstream leaves to its passes (one stage
signaling a token, one writer and one later reader per slot, element
counts) are `schedule_problems`, which `ktdf-check-schedule` reports as
warnings. Reference, semantics and choices: docs/ktdf.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar, NamedTuple

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.utils.dynamic_index_list import (
    get_dynamic_index_list,
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
    split_dynamic_index_list,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    SameVariadicOperandSize,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    EffectInstance,
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from spyre_mlir.diagnostics import NotedRegionVerifyException
from spyre_mlir.dialects.format_helpers import (
    SSAAffineSpace,
    parse_kind,
    parse_short_type,
    parse_value_from,
    parse_value_into,
    print_attrs_sorted,
    print_ssa_expr,
    print_value_from,
    print_value_into,
    split_props,
)

# ===========================================================================
# Types and attributes
# ===========================================================================


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """`!ktdf.token`: a synchronization point between stages; carries no data."""

    name = "ktdf.token"


def unit_name(unit: Attribute) -> str:
    """The name of a FIFO end: the text of a string (`"SFU"` -> `SFU`), else the
    attribute as printed (`#ktdp.memory_space<global>`)."""
    return unit.data if isinstance(unit, StringAttr) else str(unit)


@irdl_attr_definition
class FifoSlotType(ParametrizedAttribute, TypeAttribute):
    """`!ktdf.fifo.slot<SRC -> DST, NxT>`: one slot of a FIFO from SRC to DST
    holding N elements of type T (`?xT`: a size given to `ktdf.fifo.allocate`).
    SRC and DST are any attributes, as upstream's parser reads them: unit names
    (`"L1LU"`) or memory spaces (`#ktdp.memory_space<global>`). Inside the ops
    that name one slot type the short form `<SRC -> DST, NxT>` is accepted and
    printed, as upstream's declarative formats do."""

    name = "ktdf.fifo.slot"

    source: Attribute
    destination: Attribute
    num_elements: IntAttr
    element_type: Attribute

    def __init__(self, source: str | Attribute, destination: str | Attribute, num_elements: int | None,
                 element_type: Attribute):
        super().__init__(
            StringAttr(source) if isinstance(source, str) else source,
            StringAttr(destination) if isinstance(destination, str) else destination,
            IntAttr(DYNAMIC_INDEX if num_elements is None else num_elements),
            element_type,
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            source = parser.parse_attribute()
            parser.parse_punctuation("->")
            destination = parser.parse_attribute()
            parser.parse_punctuation(",")
            pos = parser.pos
            dims, element_type = parser.parse_ranked_shape()
            if len(dims) != 1:
                parser.raise_error(
                    "a FIFO slot holds a number of elements of one type: expected `NxT` or `?xT` (e.g. 64xf16)",
                    pos,
                    parser.pos,
                )
        return (source, destination, IntAttr(dims[0]), element_type)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.source)
        printer.print_string(" -> ")
        printer.print_attribute(self.destination)
        n = self.num_elements.data
        printer.print_string(f", {'?' if n == DYNAMIC_INDEX else n}x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    def verify(self) -> None:
        # Upstream's type has no verifier: a count of 0 reads (schedule_problems warns).
        if not isinstance(self.element_type, TypeAttribute):
            raise VerifyException(f"the element type of a FIFO slot must be a type, got {self.element_type}")

    @property
    def count(self) -> int | None:
        """Elements the slot holds; None when dynamic."""
        n = self.num_elements.data
        return None if n == DYNAMIC_INDEX else n

    @property
    def source_unit(self) -> str:
        """The source end by name (`unit_name`)."""
        return unit_name(self.source)

    @property
    def destination_unit(self) -> str:
        """The destination end by name (`unit_name`)."""
        return unit_name(self.destination)

    def short(self) -> str:
        """`<SRC -> DST, NxT>`."""
        n = self.count
        return f"<{self.source} -> {self.destination}, {'?' if n is None else n}x{self.element_type}>"


@irdl_attr_definition
class LoopTypeAttr(ParametrizedAttribute):
    """`#ktdf.loop_type<parallel_loop>`: how the scheduler classified an `scf.for`
    (upstream's enum: `parallel_loop`, `reduction_loop`). A discardable
    annotation: it changes nothing about execution."""

    name = "ktdf.loop_type"

    value: StringAttr

    KINDS: ClassVar[tuple[str, ...]] = ("parallel_loop", "reduction_loop")

    def __init__(self, value: str):
        super().__init__(StringAttr(value))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parse_kind(parser, cls.KINDS, "loop type")
        return (StringAttr(kind),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.value.data}>")

    def verify(self) -> None:
        if self.value.data not in self.KINDS:
            raise VerifyException(f"unknown loop type '{self.value.data}', expected one of: {', '.join(self.KINDS)}")


# ===========================================================================
# Helpers
# ===========================================================================


def describe_value(value: SSAValue) -> str:
    """`%name` (`%name#i` for one of the results of `%name:N = ...`) as written, else `result #i of 'op'`."""
    hint = value.name_hint
    if isinstance(value, OpResult):
        if hint:
            shared = sum(1 for r in value.op.results if r.name_hint == hint) > 1  # `%p:4 = ...`, not `%a, %b = ...`
            return f"%{hint}#{value.index}" if shared else f"%{hint}"
        return f"result #{value.index} of '{value.op.name}'"
    return f"%{hint}" if hint else f"block argument #{value.index}"  # pyright: ignore[reportAttributeAccessIssue]


def _single_block(region: Region) -> Region:
    """`region` with an (empty) block if it has none: `{}` parses to no block."""
    if not region.blocks:
        region.add_block(Block())
    return region


def _region_of(body: Region | Block | Sequence[Operation]) -> Region:
    if isinstance(body, Region):
        return _single_block(body)
    if isinstance(body, Block):
        return Region(body)
    return Region(Block(list(body)))


def _operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """`(none)` or `(%a, %b)`, the token lists of a stage."""
    parser.parse_punctuation("(")
    if parser.parse_optional_keyword("none") is not None:
        parser.parse_punctuation(")")
        return []
    if parser.parse_optional_punctuation(")") is not None:
        return []
    operands = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(")")
    return operands


def _print_operand_list(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string("(")
    if values:
        printer.print_list(values, printer.print_ssa_value)
    else:
        printer.print_string("none")
    printer.print_string(")")


def enclosing_stage(op: Operation) -> StageOp | None:
    """The `ktdf.stage` holding `op` at any depth, if any."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, StageOp):
        parent = parent.parent_op()
    return parent


def stages_of(pipeline: PipelineOp) -> list[StageOp]:
    """The stages of a pipeline, in order (their index is their position here)."""
    return [o for o in pipeline.body.block.ops if isinstance(o, StageOp)]


def _stage_in(op: Operation, pipeline: Operation) -> StageOp | None:
    """The innermost stage holding `op`, if it is a stage of `pipeline`."""
    stage = enclosing_stage(op)
    return stage if stage is not None and stage.parent_op() is pipeline else None


def fifo_accesses(op: Operation) -> list[tuple[SSAValue, str]]:
    """The FIFO slots `op` reads or writes, with "read" / "write"."""
    if isinstance(op, ReadFromFifoOp):
        return [(op.fifo_slot, "read")]
    if isinstance(op, WriteToFifoOp):
        return [(op.fifo_slot, "write")]
    if isinstance(op, DataTransferOp):
        found = []
        if isinstance(op.source.type, FifoSlotType):
            found.append((op.source, "read"))
        if isinstance(op.destination.type, FifoSlotType):
            found.append((op.destination, "write"))
        return found
    return []


def _role_of_use(op: Operation, index: int) -> str | None:
    if isinstance(op, ReadFromFifoOp) and index == 0:
        return "read"
    if isinstance(op, WriteToFifoOp) and index == 1:
        return "write"
    if isinstance(op, DataTransferOp):
        if op.operands[index] is op.source and index == 0 and isinstance(op.source.type, FifoSlotType):
            return "read"
        if op.operands[index] is op.destination and isinstance(op.destination.type, FifoSlotType):
            src = 1 + len(op.source_indices) + len(op.source_sizes)
            if index == src:
                return "write"
    return None


def _element_type(t: MemRefType | FifoSlotType) -> Attribute:
    return t.element_type if isinstance(t, FifoSlotType) else t.get_element_type()


def _elements(shape: Sequence[int]) -> int | None:
    return None if any(d < 0 for d in shape) else math.prod(shape)


def _fmt_shape(shape: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d < 0 else str(d) for d in shape) + "]"


# ===========================================================================
# Pipeline, private region, tokens, FIFO slots
# ===========================================================================


@irdl_op_definition
class PipelineOp(IRDLOperation):
    """A DAG of stages ordered by tokens, with one private region of resources.

    `ktdf.pipeline [modulo(size: N)] { ktdf.private ... ktdf.stage ... } [attrs]`"""

    name = "ktdf.pipeline"

    modulo = opt_prop_def(IntegerAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(self, body: Region | Block | Sequence[Operation] = (), modulo: int | None = None):
        props = {} if modulo is None else {"modulo": IntegerAttr(modulo, i64)}
        super().__init__(regions=[_region_of(body)], properties=props)

    @property
    def private(self) -> PrivateOp | None:
        return next((o for o in self.body.block.ops if isinstance(o, PrivateOp)), None)

    @property
    def stages(self) -> list[StageOp]:
        return stages_of(self)

    @classmethod
    def parse(cls, parser: Parser) -> PipelineOp:
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("modulo") is not None:
            parser.parse_punctuation("(")
            parser.parse_keyword("size")
            parser.parse_punctuation(":")
            props["modulo"] = IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
            parser.parse_punctuation(")")
        body = _single_block(parser.parse_region())
        more_props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        return cls.create(properties={**more_props, **props}, attributes=attrs, regions=[body])

    def print(self, printer: Printer) -> None:
        if self.modulo is not None:
            printer.print_string(f" modulo(size: {self.modulo.value.data})")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        print_attrs_sorted(printer, self, {"modulo"})

    def verify_(self) -> None:
        if self.modulo is not None and (
            self.modulo.type != i64 or self.modulo.value.data < 1
        ):
            raise VerifyException(
                "attribute 'modulo' failed to satisfy constraint: 64-bit signless integer attribute whose "
                "minimum value is 1"
            )
        first_private = None
        for op in self.body.block.ops:
            if isinstance(op, PrivateOp):
                if first_private is not None:
                    raise NotedRegionVerifyException(
                        "at most one immediate 'ktdf.private' child is allowed",
                        (first_private, "previous 'ktdf.private' is here"),
                    )
                first_private = op
            elif not isinstance(op, StageOp):
                raise NotedRegionVerifyException(
                    "immediate children must be 'ktdf.stage' or 'ktdf.private' ops", (op, f"found '{op.name}' op")
                )


@irdl_op_definition
class PrivateYieldOp(IRDLOperation):
    """Terminator of `ktdf.private`: the values it makes available to the stages."""

    name = "ktdf.private_yield"

    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(PrivateOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class PrivateOp(IRDLOperation):
    """Resources private to its pipeline (FIFO slots, tokens), made anew for every
    execution of the pipeline: `ktdf.private -> (T...) { ... ktdf.private_yield ... }`."""

    name = "ktdf.private"

    results_ = var_result_def()
    body = region_def("single_block")
    traits = lazy_traits_def(
        lambda: (SingleBlockImplicitTerminator(PrivateYieldOp), HasParent(PipelineOp), RecursiveMemoryEffect())
    )

    def __init__(self, body: Region | Block | Sequence[Operation], result_types: Sequence[Attribute] | None = None):
        """`body` ends with a `PrivateYieldOp` (one yielding nothing is added if it
        does not); the result types default to the types of what it yields."""
        region = _region_of(body)
        if not isinstance(region.block.last_op, PrivateYieldOp):
            region.block.add_op(PrivateYieldOp())
        if result_types is None:
            last = region.block.last_op
            result_types = [v.type for v in last.operands] if isinstance(last, PrivateYieldOp) else []
        super().__init__(result_types=[list(result_types)], regions=[region])

    @property
    def yield_op(self) -> PrivateYieldOp | None:
        last = self.body.block.last_op if self.body.blocks else None
        return last if isinstance(last, PrivateYieldOp) else None

    @classmethod
    def parse(cls, parser: Parser) -> PrivateOp:
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            parser.parse_punctuation("(")
            if parser.parse_optional_punctuation(")") is None:
                types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
        body = _single_block(parser.parse_region())
        block = body.block
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            block.add_op(PrivateYieldOp())  # the implicit terminator
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls.create(
            result_types=types, regions=[body], attributes=dict(attrs.data) if attrs is not None else {}
        )

    def print(self, printer: Printer) -> None:
        if self.results:
            printer.print_string(" -> (")
            printer.print_list(self.result_types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        y = self.yield_op
        elide = y is not None and not y.operands and not y.attributes
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=not elide)
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)

    def verify_(self) -> None:
        y = self.yield_op
        if y is None:
            return  # the terminator trait reports it
        if len(y.values) != len(self.results):
            raise NotedRegionVerifyException(
                f"yield operands count ({len(y.values)}) must match results count ({len(self.results)})",
                (y, "yield here"),
            )
        for value, result in zip(y.values, self.results):
            if value.type != result.type:
                raise NotedRegionVerifyException(
                    f"yield operand type {value.type} must match result type {result.type}", (y, "yield here")
                )


@irdl_op_definition
class FifoAllocateOp(IRDLOperation):
    """`ktdf.fifo.allocate(%n...) -> !ktdf.fifo.slot<...>, ...`: the slots of a FIFO.

    The slots of one allocation with the same source and destination units form
    one FIFO: a ring written and read in slot order (docs/ktdf.md)."""

    name = "ktdf.fifo.allocate"

    dynamic_sizes = var_operand_def(IndexType)
    slots = var_result_def(FifoSlotType)
    traits = lazy_traits_def(lambda: (FifoAllocateCanonicalization(),))

    def __init__(self, slot_types: Sequence[FifoSlotType], dynamic_sizes: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[list(dynamic_sizes)], result_types=[list(slot_types)])

    @classmethod
    def parse(cls, parser: Parser) -> FifoAllocateOp:
        sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        first = parser.parse_optional_type()  # none: an allocation of no slots, as upstream reads it
        types = [] if first is None else [first]
        while first is not None and parser.parse_optional_punctuation(",") is not None:
            types.append(parser.parse_type())
        idx = IndexType()
        return cls.create(
            operands=[parser.resolve_operand(s, idx) for s in sizes], result_types=types, attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.dynamic_sizes, printer.print_ssa_value)
        printer.print_string(")")
        print_attrs_sorted(printer, self, set())
        printer.print_string(" -> ")
        printer.print_list(self.result_types, printer.print_attribute)

    def verify_(self) -> None:
        dynamic = sum(1 for t in self.result_types if isinstance(t, FifoSlotType) and t.count is None)
        if len(self.dynamic_sizes) != dynamic:
            raise VerifyException(
                f"number of dynamic size operands ({len(self.dynamic_sizes)}) must match number of dynamic sizes in "
                f"result types ({dynamic})"
            )


class EraseUnusedAllocation(RewritePattern):
    """Upstream's canonicalizer of `fifo.allocate`: slots nobody uses are not allocated."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FifoAllocateOp, rewriter: PatternRewriter) -> None:
        if all(not r.uses for r in op.results):
            rewriter.erase_op(op)


class FifoAllocateCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (EraseUnusedAllocation(),)


@irdl_op_definition
class CreateTokenOp(IRDLOperation):
    """`ktdf.create_token : !ktdf.token`. Two tokens are never one: upstream makes
    it `Pure` with a `unique_id` property; here it allocates its result
    (`FreshValueEffect`), so CSE keeps both and DCE drops an unused one. The
    `unique_id` (an index) is read and kept; the custom form leaves it out,
    as upstream's does."""

    name = "ktdf.create_token"

    unique_id = opt_prop_def(IntegerAttr)
    result = result_def(TokenType)
    traits = lazy_traits_def(lambda: (FreshValueEffect(),))

    def __init__(self):
        super().__init__(result_types=[TokenType()])

    @classmethod
    def parse(cls, parser: Parser) -> CreateTokenOp:
        props, attrs, result_type = _parse_attr_dict_colon_type(parser, cls)
        return cls.create(properties=props, attributes=attrs, result_types=[result_type])

    def print(self, printer: Printer) -> None:
        print_attrs_sorted(printer, self, {"unique_id"})
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        _verify_unique_id(self)


def _token_source_ok(token: SSAValue) -> bool:
    """Upstream's rule: a token comes from `ktdf.create_token`, or from a
    `ktdf.private` result yielding one."""
    owner = token.owner
    if isinstance(owner, CreateTokenOp):
        return True
    if isinstance(owner, PrivateOp) and isinstance(token, OpResult):
        y = owner.yield_op
        return y is not None and token.index < len(y.values) and _token_source_ok(y.values[token.index])
    return False


@irdl_op_definition
class StageOp(IRDLOperation):
    """One step of a pipeline, run when the stages signaling its `depends_in`
    tokens have run; signals its `depends_out` tokens when done.

    `ktdf.stage depends_in(none | %t, ...) depends_out(%t, ...) { ... } [{applicable_units = [...]}]`"""

    name = "ktdf.stage"

    depends_in = var_operand_def()
    depends_out = var_operand_def()
    applicable_units = opt_prop_def(ArrayAttr)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    # No memory-effect trait (unknown effects): even an empty stage orders its
    # tokens, so DCE must never remove it (upstream's RecursiveMemoryEffects
    # lets it), nor a pipeline holding it.
    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(PipelineOp)))

    def __init__(
        self,
        depends_in: Sequence[SSAValue | Operation],
        depends_out: Sequence[SSAValue | Operation],
        body: Region | Block | Sequence[Operation] = (),
        applicable_units: Sequence[str] | ArrayAttr | None = None,
    ):
        props: dict[str, Attribute] = {}
        if applicable_units is not None:
            props["applicable_units"] = (
                applicable_units
                if isinstance(applicable_units, ArrayAttr)
                else ArrayAttr([StringAttr(u) for u in applicable_units])
            )
        super().__init__(operands=[list(depends_in), list(depends_out)], regions=[_region_of(body)], properties=props)

    @classmethod
    def parse(cls, parser: Parser) -> StageOp:
        parser.parse_keyword("depends_in")
        ins = _operand_list(parser)
        parser.parse_keyword("depends_out")
        outs = _operand_list(parser)
        body = _single_block(parser.parse_region())
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        token = TokenType()
        op = cls.create(
            operands=[parser.resolve_operand(o, token) for o in (*ins, *outs)],
            properties=props,
            attributes=attrs,
            regions=[body],
        )
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [len(ins), len(outs)])
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" depends_in")
        _print_operand_list(printer, self.depends_in)
        printer.print_string(" depends_out")
        _print_operand_list(printer, self.depends_out)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        print_attrs_sorted(printer, self, {"operandSegmentSizes"})

    def verify_(self) -> None:
        for i, value in enumerate(self.operands):
            if not isinstance(value.type, TokenType):
                raise VerifyException(
                    f"operand #{i} must be variadic of KTDF token type for dataflow synchronization, "
                    f"but got '{value.type}'"
                )
        for what, tokens in (("depends_in", self.depends_in), ("depends_out", self.depends_out)):
            for token in tokens:
                if not _token_source_ok(token):
                    raise VerifyException(
                        f"{what} operand must originate from ktdf.create_token or ktdf.private operation "
                        "yielding a token created by ktdf.create_token"
                    )


@irdl_op_definition
class DataTransferOp(IRDLOperation):
    """Data moved between memory views and FIFO slots (memref -> memref,
    memref -> slot, slot -> memref, as upstream allows):

    `ktdf.data_transfer from %view[%i, %j] size [1, 64] to %slot size [1, 64] : memref<...>, !ktdf.fifo.slot<...>`
    `ktdf.data_transfer from %a[%m, %n] size [1, %k] to %b[%c0] size [%k] : memref<...>, memref<...>`

    A memref side is the box `[map(indices), map(indices) + size)` of the view
    (subscripts are affine expressions of SSA values, one per dim; plain
    indices are the identity map); a slot side names no indices, and its
    optional `size` repeats the tile's. Sizes are integers or SSA values."""

    name = "ktdf.data_transfer"

    source = operand_def()
    source_indices = var_operand_def(IndexType)
    source_sizes = var_operand_def(IndexType)
    destination = operand_def()
    dest_indices = var_operand_def(IndexType)
    dest_sizes = var_operand_def(IndexType)
    static_source_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    static_dest_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    source_map = opt_prop_def(AffineMapAttr)
    dest_map = opt_prop_def(AffineMapAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        source: SSAValue | Operation,
        destination: SSAValue | Operation,
        *,
        source_indices: Sequence[SSAValue | Operation] = (),
        source_sizes: Sequence[int | SSAValue | Operation] | None = None,
        dest_indices: Sequence[SSAValue | Operation] = (),
        dest_sizes: Sequence[int | SSAValue | Operation] | None = None,
        source_map: AffineMap | None = None,
        dest_map: AffineMap | None = None,
    ):
        """Build a transfer. A memref side takes its indices (identity map unless
        a map is given) and sizes (integers or index values); a slot side takes
        no indices and optional sizes. See also `to_fifo` / `from_fifo`."""
        source = SSAValue.get(source)
        destination = SSAValue.get(destination)
        props: dict[str, Attribute] = {}
        dynamic: dict[str, list[SSAValue]] = {"source": [], "dest": []}
        for key, value, indices, the_map, sizes in (
            ("source", source, source_indices, source_map, source_sizes),
            ("dest", destination, dest_indices, dest_map, dest_sizes),
        ):
            if sizes is not None:
                mixed = [s if isinstance(s, int) else SSAValue.get(s) for s in sizes]
                static, dynamic[key] = split_dynamic_index_list(mixed, DYNAMIC_INDEX)
                props[f"static_{key}_sizes"] = DenseArrayBase.from_list(i64, static)
            if isinstance(value.type, MemRefType):
                props[f"{key}_map"] = AffineMapAttr(the_map or AffineMap.identity(len(indices)))
        super().__init__(
            operands=[source, list(source_indices), dynamic["source"], destination, list(dest_indices),
                      dynamic["dest"]],
            properties=props,
        )

    @classmethod
    def to_fifo(
        cls, view: SSAValue | Operation, indices: Sequence[SSAValue | Operation], sizes: Sequence[int],
        slot: SSAValue | Operation,
    ) -> DataTransferOp:
        """`from %view[indices] size [sizes] to %slot size [sizes]`."""
        return cls(view, slot, source_indices=indices, source_sizes=sizes, dest_sizes=sizes)

    @classmethod
    def from_fifo(
        cls, slot: SSAValue | Operation, view: SSAValue | Operation, indices: Sequence[SSAValue | Operation],
        sizes: Sequence[int],
    ) -> DataTransferOp:
        """`from %slot size [sizes] to %view[indices] size [sizes]`."""
        return cls(slot, view, source_sizes=sizes, dest_indices=indices, dest_sizes=sizes)

    # -- syntax (upstream's custom<CellOrSlot>) -------------------------------

    @staticmethod
    def _parse_side(parser: Parser):
        operand = parser.parse_unresolved_operand()
        amap = None
        dims: list[UnresolvedOperand] = []
        if parser._current_token.kind == MLIRTokenKind.L_SQUARE:  # pyright: ignore[reportPrivateUsage]
            space = SSAAffineSpace(parser)
            parser.parse_punctuation("[")
            exprs = []
            if parser.parse_optional_punctuation("]") is None:
                exprs = parser.parse_comma_separated_list(parser.Delimiter.NONE, space.parse_expr)
                parser.parse_punctuation("]")
            amap = AffineMap(len(space.dims), len(space.syms), tuple(exprs))
            dims = space.dims + space.syms
        sizes, static = None, None
        if parser.parse_optional_keyword("size") is not None:
            sizes, static = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
        return operand, amap, dims, sizes, static

    @classmethod
    def parse(cls, parser: Parser) -> DataTransferOp:
        parser.parse_keyword("from")
        src, src_map, src_idx, src_dyn, src_static = cls._parse_side(parser)
        parser.parse_keyword("to")
        dst, dst_map, dst_idx, dst_dyn, dst_static = cls._parse_side(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parse_short_type(parser, FifoSlotType)
        parser.parse_punctuation(",")
        dst_type = parse_short_type(parser, FifoSlotType)
        props, attrs = split_props(cls, attrs)
        for key, amap, static in (("source", src_map, src_static), ("dest", dst_map, dst_static)):
            if amap is not None:
                props[f"{key}_map"] = AffineMapAttr(amap)
            if static is not None:
                props[f"static_{key}_sizes"] = DenseArrayBase.from_list(i64, list(static))
        idx = IndexType()
        src_dyn, dst_dyn = list(src_dyn or ()), list(dst_dyn or ())
        op = cls.create(
            operands=[
                parser.resolve_operand(src, src_type),
                *[parser.resolve_operand(o, idx) for o in (*src_idx, *src_dyn)],
                parser.resolve_operand(dst, dst_type),
                *[parser.resolve_operand(o, idx) for o in (*dst_idx, *dst_dyn)],
            ],
            properties=props,
            attributes=attrs,
        )
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [1, len(src_idx), len(src_dyn), 1, len(dst_idx), len(dst_dyn)]
        )
        return op

    @staticmethod
    def _print_side(printer: Printer, value: SSAValue, indices, amap, dynamic_sizes, static_sizes) -> None:
        printer.print_ssa_value(value)
        if amap is not None:
            m = amap.data
            dims, syms = list(indices[: m.num_dims]), list(indices[m.num_dims :])
            printer.print_string("[")
            for i, r in enumerate(m.results):
                if i:
                    printer.print_string(", ")
                print_ssa_expr(printer, r, dims, syms)
            printer.print_string("]")
        if static_sizes is not None:
            printer.print_string(" size ")
            print_dynamic_index_list(printer, DYNAMIC_INDEX, dynamic_sizes, static_sizes.get_values())

    def print(self, printer: Printer) -> None:
        printer.print_string(" from ")
        self._print_side(printer, self.source, self.source_indices, self.source_map, self.source_sizes,
                         self.static_source_sizes)
        printer.print_string(" to ")
        self._print_side(printer, self.destination, self.dest_indices, self.dest_map, self.dest_sizes,
                         self.static_dest_sizes)
        print_attrs_sorted(
            printer,
            self,
            {"operandSegmentSizes", "static_source_sizes", "static_dest_sizes", "source_map", "dest_map"},
        )
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(", ")
        printer.print_attribute(self.destination.type)

    # -- accessors -----------------------------------------------------------

    @property
    def source_is_fifo(self) -> bool:
        return isinstance(self.source.type, FifoSlotType)

    @property
    def dest_is_fifo(self) -> bool:
        return isinstance(self.destination.type, FifoSlotType)

    @property
    def to_slot(self) -> bool:
        """Whether this transfer writes a FIFO slot (memory -> FIFO)."""
        return self.dest_is_fifo

    def mixed_source_sizes(self) -> list[int | SSAValue] | None:
        """The source sizes, integers and SSA values in order; None when not given."""
        if self.static_source_sizes is None:
            return None
        return get_dynamic_index_list(self.static_source_sizes.get_values(), self.source_sizes, DYNAMIC_INDEX)

    def mixed_dest_sizes(self) -> list[int | SSAValue] | None:
        """The destination sizes, integers and SSA values in order; None when not given."""
        if self.static_dest_sizes is None:
            return None
        return get_dynamic_index_list(self.static_dest_sizes.get_values(), self.dest_sizes, DYNAMIC_INDEX)

    def memref_side(self) -> tuple[SSAValue, Sequence[SSAValue], AffineMap, tuple[int, ...]]:
        """(view, indices, map, static sizes) of the memref side of a transfer to
        or from a slot (after verification; a dynamic size is DYNAMIC_INDEX)."""
        if self.to_slot:
            view, indices, amap, sizes = self.source, self.source_indices, self.source_map, self.static_source_sizes
        else:
            view, indices, amap, sizes = self.destination, self.dest_indices, self.dest_map, self.static_dest_sizes
        assert amap is not None and sizes is not None
        return view, indices, amap.data, tuple(sizes.get_values())

    def slot(self) -> SSAValue:
        return self.destination if self.to_slot else self.source

    # -- verifier (upstream's rules, in its order) -----------------------------

    def verify_(self) -> None:
        src_t, dst_t = self.source.type, self.destination.type
        dst_index = 1 + len(self.source_indices) + len(self.source_sizes)
        for i, t in ((0, src_t), (dst_index, dst_t)):
            if not isinstance(t, MemRefType | FifoSlotType):
                raise VerifyException(
                    f"operand #{i} must be memref of any type values or KTDF FIFO slot type for dataflow buffering, "
                    f"but got '{t}'"
                )
        if _element_type(src_t) != _element_type(dst_t):
            raise VerifyException("failed to verify that all of {source, destination} have same element type")
        sides = (
            ("source", src_t, self.source_map, self.source_indices, self.source_sizes, self.static_source_sizes),
            ("dest", dst_t, self.dest_map, self.dest_indices, self.dest_sizes, self.static_dest_sizes),
        )
        for side, t, amap, indices, _, static in sides:
            sizes = static.get_values() if static is not None else ()
            if isinstance(t, MemRefType):
                if amap is None:
                    raise VerifyException(f"{side}_map must be present when {side} is a memref")
                m = amap.data
                if m.num_symbols:
                    raise VerifyException(f"{side}_map must have 0 symbols (dims-only); got {m.num_symbols}")
                rank = t.get_num_dims()
                if len(m.results) != rank:
                    raise VerifyException(f"{side} memref has rank {rank} but {side}_map has {len(m.results)} results")
                if len(indices) != m.num_dims:
                    raise VerifyException(
                        f"{side}_indices count ({len(indices)}) must match {side}_map dim count ({m.num_dims})"
                    )
                if len(sizes) != rank:
                    raise VerifyException(f"{side} size count ({len(sizes)}) must match memref rank ({rank})")
            else:
                if amap is not None:
                    raise VerifyException(f"{side}_map must be absent for fifo {side}")
                if indices:
                    raise VerifyException(f"FIFO slot {side} cannot have indices specified")
        for side, _, _, _, dynamic, static in sides:
            if static is None:
                continue
            markers = sum(1 for s in static.get_values() if s == DYNAMIC_INDEX)
            if len(dynamic) != markers:
                raise VerifyException(
                    f"number of dynamic {side} sizes ({len(dynamic)}) must match number of dynamic entries in "
                    f"static_{side}_sizes ({markers})"
                )


def _check_fifo_data(slot_type: Attribute, data_type: Attribute, what: str, names: str) -> None:
    """Upstream's rules of `read_from_fifo` / `write_to_fifo`: a ranked tensor or a
    memref of the slot's element type, static exactly when the slot is, with
    as many elements as the slot holds."""
    if not isinstance(data_type, TensorType | MemRefType):
        raise VerifyException(
            f"{what} must be ranked tensor of any type values or memref of any type values, but got '{data_type}'"
        )
    assert isinstance(slot_type, FifoSlotType)
    if slot_type.element_type != data_type.get_element_type():
        raise VerifyException(f"failed to verify that all of {{{names}}} have same element type")
    n = _elements(data_type.get_shape())
    if (slot_type.count is None) != (n is None):
        raise VerifyException("FIFO slot and data must both be dynamic or both be static")
    if n is not None and n != slot_type.count:
        raise VerifyException(f"data total elements ({n}) must match FIFO slot size ({slot_type.count})")


@irdl_op_definition
class ReadFromFifoOp(IRDLOperation):
    """`%t = ktdf.read_from_fifo %slot : <"SRC" -> "DST", NxT> -> tensor<...xT>`:
    take the tile out of the slot (the slot is empty afterwards). A memref
    result is a buffer of the read data, alive in the op's region only."""

    name = "ktdf.read_from_fifo"

    fifo_slot = operand_def(FifoSlotType)
    result = result_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, slot: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[slot], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> ReadFromFifoOp:
        return parse_value_from(parser, cls, FifoSlotType)  # pyright: ignore[reportReturnType]

    def print(self, printer: Printer) -> None:
        print_value_from(printer, self, self.fifo_slot, self.result, short=True)

    def verify_(self) -> None:
        _check_fifo_data(self.fifo_slot.type, self.result.type, "result #0", "fifo_slot, result")


@irdl_op_definition
class WriteToFifoOp(IRDLOperation):
    """`ktdf.write_to_fifo %t, %slot : tensor<...xT>, <"SRC" -> "DST", NxT>`:
    put a tile (a tensor, or the contents of a memref) into the (empty) slot."""

    name = "ktdf.write_to_fifo"

    data = operand_def()
    fifo_slot = operand_def(FifoSlotType)
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, data: SSAValue | Operation, slot: SSAValue | Operation):
        super().__init__(operands=[data, slot])

    @classmethod
    def parse(cls, parser: Parser) -> WriteToFifoOp:
        return parse_value_into(parser, cls, FifoSlotType)  # pyright: ignore[reportReturnType]

    def print(self, printer: Printer) -> None:
        print_value_into(printer, self, self.data, self.fifo_slot, short=True)

    def verify_(self) -> None:
        _check_fifo_data(self.fifo_slot.type, self.data.type, "operand #0", "data, fifo_slot")


# ===========================================================================
# Tile sizes (placeholders the scheduler fills in) and tile index math
# ===========================================================================


class FreshValueEffect(MemoryEffect):
    """Each execution makes a new value (upstream: `Pure` plus a `UniqueProp`
    identity): never merged with a like op by CSE, removed by DCE when unused."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.ALLOC, r) for r in op.results}


def _verify_unique_id(op: IRDLOperation) -> None:
    unique_id = op.properties.get("unique_id")
    if unique_id is None:
        return
    if not isinstance(unique_id, IntegerAttr) or not isinstance(unique_id.type, IndexType):
        raise VerifyException("expected index attribute")
    if unique_id.value.data < 0:
        raise VerifyException("expected host word sized integer")


def _verify_index_result(op: Operation) -> None:
    t = op.results[0].type
    if not isinstance(t, IndexType):
        raise VerifyException(f"result #0 must be index, but got '{t}'")


def _constant_int(value: SSAValue) -> int | None:
    """The integer `value` holds when a constant op (`arith.constant`) makes it."""
    attr = ConstantLike.get_constant_value(value)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _index(n: int) -> IntegerAttr:
    return IntegerAttr(n, IndexType())


def _parse_attr_dict_colon_type(parser: Parser, cls: type[IRDLOperation]) -> tuple[dict, dict, Attribute]:
    """`attr-dict : type`: (properties of `cls`, other attributes, the type)."""
    props, attrs = split_props(cls, parser.parse_optional_attr_dict())
    parser.parse_punctuation(":")
    return props, attrs, parser.parse_type()


def _parse_bracket_pair_list(parser: Parser) -> tuple[list[UnresolvedOperand], list[UnresolvedOperand]]:
    """`[%a : %b], [%c : %d] ...` (upstream's BracketPairList; the comma after each pair optional)."""
    first: list[UnresolvedOperand] = []
    second: list[UnresolvedOperand] = []
    while parser.parse_optional_punctuation("[") is not None:
        first.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(":")
        second.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("]")
        parser.parse_optional_punctuation(",")
    return first, second


def _print_bracket_pair_list(printer: Printer, first: Sequence[SSAValue], second: Sequence[SSAValue]) -> None:
    for k, (a, b) in enumerate(zip(first, second)):
        if k:
            printer.print_string(", ")
        printer.print_string("[")
        printer.print_ssa_value(a)
        printer.print_string(" : ")
        printer.print_ssa_value(b)
        printer.print_string("]")


@irdl_op_definition
class TilingReserveSizeOp(IRDLOperation):
    """`%ts = ktdf.tiling.reserve_size {divisibility = D : index, min_value = M : index} : index`:
    a tile size the scheduler chooses later (at least M; it divides D)."""

    name = "ktdf.tiling.reserve_size"

    min_value = prop_def(IntegerAttr)
    divisibility = prop_def(IntegerAttr)
    unique_id = opt_prop_def(IntegerAttr)
    result = result_def()  # index: checked in verify_ for upstream's message
    traits = traits_def(FreshValueEffect())

    def __init__(self, min_value: int, divisibility: int):
        super().__init__(
            properties={"min_value": IntegerAttr(min_value, IndexType()),
                        "divisibility": IntegerAttr(divisibility, IndexType())},
            result_types=[IndexType()],
        )

    @classmethod
    def parse(cls, parser: Parser) -> TilingReserveSizeOp:
        props, attrs, result_type = _parse_attr_dict_colon_type(parser, cls)
        return cls.create(properties=props, attributes=attrs, result_types=[result_type])

    def print(self, printer: Printer) -> None:
        print_attrs_sorted(printer, self, {"unique_id"})
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        _verify_index_result(self)
        for key in ("min_value", "divisibility"):
            attr = self.properties[key]
            if not isinstance(attr, IntegerAttr) or not isinstance(attr.type, IndexType):
                raise VerifyException(f"attribute '{key}' failed to satisfy constraint: index attribute")
        _verify_unique_id(self)

    @property
    def min_value_int(self) -> int:
        return self.min_value.value.data

    @property
    def divisibility_int(self) -> int:
        return self.divisibility.value.data


@irdl_op_definition
class TilingDeriveSizeOp(IRDLOperation, HasFolderInterface):
    """`%n = ktdf.tiling.derive_size [%i0 : %ts0], [%i1 : %ts1], total_size = %N : index`:
    the trip count of the current inner tile loop (the last tile size in the
    steady state, what remains of N in an epilogue, 0 once exhausted)."""

    name = "ktdf.tiling.derive_size"

    ivs = var_operand_def(IndexType)
    tile_sizes = var_operand_def(IndexType)
    total_size = operand_def(IndexType)
    result = result_def()  # index: checked in verify_ for upstream's message

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(Pure())

    def __init__(self, ivs: Sequence[SSAValue | Operation], tile_sizes: Sequence[SSAValue | Operation],
                 total_size: SSAValue | Operation):
        super().__init__(operands=[list(ivs), list(tile_sizes), total_size], result_types=[IndexType()])

    @classmethod
    def parse(cls, parser: Parser) -> TilingDeriveSizeOp:
        ivs, sizes = _parse_bracket_pair_list(parser)
        parser.parse_keyword("total_size")
        parser.parse_punctuation("=")
        total = parser.parse_unresolved_operand()
        props, attrs, result_type = _parse_attr_dict_colon_type(parser, cls)
        idx = IndexType()
        return cls.create(
            operands=[*(parser.resolve_operand(o, idx) for o in (*ivs, *sizes)), parser.resolve_operand(total, idx)],
            properties=props,
            attributes=attrs,
            result_types=[result_type],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_bracket_pair_list(printer, self.ivs, self.tile_sizes)
        if self.ivs:
            printer.print_string(", ")
        printer.print_string("total_size = ")
        printer.print_ssa_value(self.total_size)
        print_attrs_sorted(printer, self, set())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        """Upstream's folder: one level only, all operands constant, the IV 0 (the
        loop around folded away): min(tile size, total size)."""
        if len(self.ivs) != 1:
            return None
        iv, tile, total = (_constant_int(v) for v in (self.ivs[0], self.tile_sizes[0], self.total_size))
        if iv != 0 or tile is None or total is None:
            return None
        return (_index(min(tile, total)),)

    def verify_(self) -> None:
        _verify_index_result(self)
        if len(self.ivs) != len(self.tile_sizes):
            raise VerifyException("number of ivs must equal number of tile_sizes")
        if not self.ivs:
            raise VerifyException("must have at least one [iv : tile_size] pair")


@irdl_op_definition
class TilingLinearizeIndexOp(IRDLOperation):
    """`%x = ktdf.tiling.linearize_index [%i0 : %s0], [%i1 : %s1] : index`:
    `i0*s0 + i1*s1 + ...`, the index in the untiled iteration space."""

    name = "ktdf.tiling.linearize_index"

    ivs = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    result = result_def()  # index: checked in verify_ for upstream's message

    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(Pure())

    def __init__(self, ivs: Sequence[SSAValue | Operation], strides: Sequence[SSAValue | Operation]):
        super().__init__(operands=[list(ivs), list(strides)], result_types=[IndexType()])

    @classmethod
    def parse(cls, parser: Parser) -> TilingLinearizeIndexOp:
        ivs, strides = _parse_bracket_pair_list(parser)
        props, attrs, result_type = _parse_attr_dict_colon_type(parser, cls)
        idx = IndexType()
        return cls.create(
            operands=[parser.resolve_operand(o, idx) for o in (*ivs, *strides)],
            properties=props,
            attributes=attrs,
            result_types=[result_type],
        )

    def print(self, printer: Printer) -> None:
        if self.ivs:
            printer.print_string(" ")
            _print_bracket_pair_list(printer, self.ivs, self.strides)
        print_attrs_sorted(printer, self, set())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        _verify_index_result(self)
        if len(self.ivs) != len(self.strides):
            raise VerifyException("number of ivs must equal number of strides")
        if not self.ivs:
            raise VerifyException("must have at least one [iv : stride] pair")


# ===========================================================================
# Parallel iteration spaces
# ===========================================================================


@irdl_op_definition
class ParallelYieldOp(IRDLOperation):
    """Terminator of `ktdf.parallel`; yields nothing."""

    name = "ktdf.parallel_yield"

    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(ParallelOp)))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class ParallelOp(IRDLOperation):
    """An N-dim iteration space split in contiguous chunks over `num_instances`
    hardware instances:

    `ktdf.parallel (%m, %n, %inst) = (%lb0, %lb1) to (%ub0, %ub1) step (%s0, %s1) distribute(num_instances = 2) {...}`

    The block arguments are the N induction variables and the instance id."""

    name = "ktdf.parallel"

    lower_bounds = var_operand_def(IndexType)
    upper_bounds = var_operand_def(IndexType)
    steps = var_operand_def(IndexType)
    num_instances = prop_def(IntegerAttr)
    body = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)

    def __init__(
        self,
        lower_bounds: Sequence[SSAValue | Operation],
        upper_bounds: Sequence[SSAValue | Operation],
        steps: Sequence[SSAValue | Operation],
        num_instances: int,
        body: Region | Block | None = None,
    ):
        """`body` defaults to a block of N + 1 index arguments ending in `ktdf.parallel_yield`."""
        if body is None:
            body = Block([ParallelYieldOp()], arg_types=[IndexType()] * (len(lower_bounds) + 1))
        super().__init__(
            operands=[list(lower_bounds), list(upper_bounds), list(steps)],
            properties={"num_instances": IntegerAttr(num_instances, i64)},
            regions=[_region_of(body)],
        )

    @property
    def num_loops(self) -> int:
        return len(self.lower_bounds)

    @property
    def induction_vars(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args[: self.num_loops])

    @property
    def instance_id(self) -> SSAValue:
        return self.body.block.args[self.num_loops]

    @classmethod
    def parse(cls, parser: Parser) -> ParallelOp:
        pos = parser.pos
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        if len(args) < 2:
            parser.raise_error(
                f"expected at least one induction variable plus an instance id (got {len(args)} block arguments)",
                pos,
                parser.pos,
            )
        loops = len(args) - 1

        def bounds(what: str) -> list[UnresolvedOperand]:
            at = parser.pos
            found = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            if len(found) != loops:
                parser.raise_error(f"expected {loops} {what}, got {len(found)}", at, parser.pos)
            return found

        parser.parse_punctuation("=")
        lbs = bounds("lower bounds")
        parser.parse_keyword("to")
        ubs = bounds("upper bounds")
        parser.parse_keyword("step")
        steps = bounds("steps")
        parser.parse_keyword("distribute")
        parser.parse_punctuation("(")
        parser.parse_keyword("num_instances")
        parser.parse_punctuation("=")
        num_instances = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(")")
        idx = IndexType()
        operands = [parser.resolve_operand(o, idx) for o in (*lbs, *ubs, *steps)]
        body = parser.parse_region([a.resolve(idx) for a in args])
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        props["num_instances"] = IntegerAttr(num_instances, i64)
        return cls.create(operands=operands, properties=props, attributes=attrs, regions=[body])

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.body.block.args if self.body.blocks else (), printer.print_ssa_value)
        printer.print_string(") = (")
        printer.print_list(self.lower_bounds, printer.print_ssa_value)
        printer.print_string(") to (")
        printer.print_list(self.upper_bounds, printer.print_ssa_value)
        printer.print_string(") step (")
        printer.print_list(self.steps, printer.print_ssa_value)
        printer.print_string(f") distribute(num_instances = {self.num_instances.value.data}) ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=True)
        print_attrs_sorted(printer, self, {"num_instances"})

    def verify_(self) -> None:
        if self.num_instances.type != i64:
            raise VerifyException(
                "attribute 'num_instances' failed to satisfy constraint: 64-bit signless integer attribute"
            )
        loops = self.num_loops
        if loops < 1:
            raise VerifyException("expected at least one induction variable")
        n = self.num_instances.value.data
        if n < 1:
            raise VerifyException(f"expected num_instances >= 1, got {n}")
        block = self.body.block
        if len(block.args) != loops + 1:
            raise VerifyException(
                f"expected {loops + 1} block arguments (one per induction variable plus the instance id), "
                f"got {len(block.args)}"
            )
        if not all(isinstance(a.type, IndexType) for a in block.args):
            raise VerifyException("all block arguments (induction variables and instance id) must be of type index")
        if not isinstance(block.last_op, ParallelYieldOp):
            raise VerifyException("region must be terminated by a ktdf.parallel_yield operation")


# ===========================================================================
# Double buffering
# ===========================================================================


@irdl_op_definition
class BufferPhaseOp(IRDLOperation, HasFolderInterface):
    """`%phase = ktdf.buffer_phase(%i, %j) {num_phases = 2 : i64} : index`: the
    linearized iteration count of the loops of these IVs, modulo `num_phases`."""

    name = "ktdf.buffer_phase"

    ivs = var_operand_def(IndexType)
    num_phases = prop_def(IntegerAttr)
    result = result_def()  # index: checked in verify_ for upstream's message
    traits = lazy_traits_def(lambda: (Pure(), BufferPhaseCanonicalization()))

    def __init__(self, ivs: Sequence[SSAValue | Operation], num_phases: int):
        super().__init__(
            operands=[list(ivs)], properties={"num_phases": IntegerAttr(num_phases, i64)}, result_types=[IndexType()]
        )

    @classmethod
    def parse(cls, parser: Parser) -> BufferPhaseOp:
        ivs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        props, attrs, result_type = _parse_attr_dict_colon_type(parser, cls)
        idx = IndexType()
        return cls.create(
            operands=[parser.resolve_operand(o, idx) for o in ivs],
            properties=props,
            attributes=attrs,
            result_types=[result_type],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.ivs, printer.print_ssa_value)
        printer.print_string(")")
        print_attrs_sorted(printer, self, set())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        """Upstream's folder, full case: all operands constant, the phase is 0
        (the partial case is `DropConstantPhaseIvs`)."""
        if self.ivs and all(_constant_int(iv) is not None for iv in self.ivs):
            return (_index(0),)
        return None

    def verify_(self) -> None:
        _verify_index_result(self)
        if self.num_phases.type != i64 or self.num_phases.value.data < 2:
            raise VerifyException(
                "attribute 'num_phases' failed to satisfy constraint: 64-bit signless integer attribute whose "
                "minimum value is 2"
            )
        if not self.ivs:
            raise VerifyException("requires at least one induction variable operand")


class DropConstantPhaseIvs(RewritePattern):
    """Upstream's folder of `buffer_phase`, partial case: constant operands (IVs
    of folded-away single-trip loops) do not change the phase; they go."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BufferPhaseOp, rewriter: PatternRewriter) -> None:
        kept = [iv for iv in op.ivs if _constant_int(iv) is None]
        if not kept or len(kept) == len(op.ivs):
            return
        rewriter.replace_op(
            op,
            BufferPhaseOp.create(operands=kept, properties=dict(op.properties), attributes=dict(op.attributes),
                                 result_types=[op.result.type]),
        )


class BufferPhaseCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (DropConstantPhaseIvs(),)


@irdl_op_definition
class SelectMemrefOp(IRDLOperation, HasFolderInterface):
    """`%x = ktdf.select_memref %phase[%x0, %x1] : memref<...>`: `candidates[phase]`."""

    name = "ktdf.select_memref"

    phase = operand_def(IndexType)
    candidates = var_operand_def(MemRefType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())

    def __init__(self, phase: SSAValue | Operation, candidates: Sequence[SSAValue | Operation]):
        values = [SSAValue.get(c) for c in candidates]
        super().__init__(operands=[phase, values], result_types=[values[0].type])

    @classmethod
    def parse(cls, parser: Parser) -> SelectMemrefOp:
        phase = parser.parse_unresolved_operand()
        candidates = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        props, attrs, result_type = _parse_attr_dict_colon_type(parser, cls)
        return cls.create(
            operands=[parser.resolve_operand(phase, IndexType()),
                      *(parser.resolve_operand(c, result_type) for c in candidates)],
            properties=props,
            attributes=attrs,
            result_types=[result_type],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.phase)
        printer.print_string("[")
        printer.print_list(self.candidates, printer.print_ssa_value)
        printer.print_string("]")
        print_attrs_sorted(printer, self, set())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        """Upstream's folder: a constant phase selects its candidate."""
        phase = _constant_int(self.phase)
        if phase is None or not 0 <= phase < len(self.candidates):
            return None
        return (self.candidates[phase],)

    def verify_(self) -> None:
        if any(c.type != self.result.type for c in self.candidates):
            raise VerifyException("failed to verify that all of {candidates} have the type of result")
        if len(self.candidates) < 2:
            raise VerifyException(f"requires at least 2 candidate memrefs, got {len(self.candidates)}")
        phase_op = self.phase.owner
        if isinstance(phase_op, BufferPhaseOp) and phase_op.num_phases.value.data != len(self.candidates):
            raise VerifyException(
                f"phase op num_phases ({phase_op.num_phases.value.data}) must equal candidate count "
                f"({len(self.candidates)})"
            )


# ===========================================================================
# Opaque intrinsics
# ===========================================================================


class OpaqueEffects(MemoryEffect):
    """`linalg.generic` access semantics: memref inputs are read, memref outputs
    read and written; on tensors the op is pure."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        assert isinstance(op, OpaqueOp)
        effects: set[EffectInstance] = set()
        for value in op.inputs:
            if isinstance(value.type, MemRefType):
                effects.add(EffectInstance(MemoryEffectKind.READ, value))
        for value in op.outputs:
            if isinstance(value.type, MemRefType):
                effects.add(EffectInstance(MemoryEffectKind.READ, value))
                effects.add(EffectInstance(MemoryEffectKind.WRITE, value))
        return effects


@irdl_op_definition
class OpaqueOp(IRDLOperation):
    """An intrinsic of the target the back end knows by name, in destination
    passing style:

        %r = ktdf.opaque "ADD" -> tensor<64xf16>
          ins(%a, %b: tensor<64xf16>, tensor<64xf16>)
          outs(%o: tensor<64xf16>)
    """

    name = "ktdf.opaque"

    template_name = prop_def(StringAttr)
    inputs = var_operand_def()
    outputs = var_operand_def(base(TensorType) | base(MemRefType))
    results_ = var_result_def(TensorType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(OpaqueEffects())

    def __init__(
        self,
        template_name: str,
        inputs: Sequence[SSAValue | Operation],
        outputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute] | None = None,
    ):
        """`result_types` default to the types of the tensor outputs."""
        outs = [SSAValue.get(o) for o in outputs]
        if result_types is None:
            result_types = [o.type for o in outs if isinstance(o.type, TensorType)]
        super().__init__(
            operands=[list(inputs), outs],
            properties={"template_name": StringAttr(template_name)},
            result_types=[list(result_types)],
        )
        for result in self.results:  # upstream names its results after the template (OpAsmOpInterface)
            if SSAValue.is_valid_name(template_name):
                result.name_hint = template_name

    @classmethod
    def parse(cls, parser: Parser) -> OpaqueOp:
        template_name = parser.parse_str_literal("the template name of the intrinsic, a string")
        props, attrs = split_props(cls, parser.parse_optional_attr_dict())
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)

        def operand_group(keyword: str) -> list[SSAValue]:
            parser.parse_keyword(keyword)
            parser.parse_punctuation("(")
            if parser.parse_optional_punctuation(")") is not None:
                return []
            pos = parser.pos
            names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            return parser.resolve_operands(names, types, pos)

        inputs = operand_group("ins")
        outputs = operand_group("outs")
        props["template_name"] = StringAttr(template_name)
        op = cls.create(operands=[*inputs, *outputs], properties=props, attributes=attrs, result_types=result_types)
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [len(inputs), len(outputs)])
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.template_name.data)
        print_attrs_sorted(printer, self, {"template_name", "operandSegmentSizes"})
        if self.results:
            printer.print_string(" -> ")
            printer.print_list(self.result_types, printer.print_attribute)
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            printer._print_new_line()  # pyright: ignore[reportPrivateUsage]
            printer.print_string(f"  {keyword}(")
            if values:
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(": ")
                printer.print_list([v.type for v in values], printer.print_attribute)
            printer.print_string(")")

    def verify_(self) -> None:
        tensor_outputs = [o for o in self.outputs if isinstance(o.type, TensorType)]
        if len(tensor_outputs) != len(self.results):
            raise VerifyException(
                f"expected the number of tensor results ({len(self.results)}) to be equal to the number of output "
                f"tensors ({len(tensor_outputs)})"
            )
        first_output = len(self.inputs)
        for output, result in zip(tensor_outputs, self.results):
            if output.type != result.type:
                number = first_output + list(self.outputs).index(output)
                raise VerifyException(
                    f"expected type of operand #{number} ({output.type}) to match type of corresponding result "
                    f"({result.type})"
                )


# ===========================================================================
# Schedule rules: what a well-formed schedule keeps, which upstream's
# verifiers do not check (its passes assume them). Not verifier rules: their
# valid IR breaks some mid-transformation (a slot written in one pipeline
# and read in another, a transfer hoisted out of its stage), so
# `ktdf-check-schedule` reports them as warnings.
# ===========================================================================


class ScheduleProblem(NamedTuple):
    """A broken schedule rule at `op`, with notes at other ops."""

    op: Operation
    message: str
    notes: tuple[tuple[Operation, str], ...] = ()


def schedule_problems(root: Operation) -> Iterator[ScheduleProblem]:
    """The broken schedule rules in `root` (docs/ktdf.md, "Schedule rules"), in
    IR order: per stage its tokens and FIFO slots; per allocation its slots'
    sizes; per transfer, read and write its stage and element counts."""
    for op in root.walk():
        if isinstance(op, StageOp) and isinstance(op.parent_op(), PipelineOp):
            yield from _token_problems(op)
            yield from _slot_problems(op)
        elif isinstance(op, FifoAllocateOp):
            for slot in op.slots:
                if isinstance(slot.type, FifoSlotType) and slot.type.count == 0:
                    yield ScheduleProblem(op, f"FIFO slot {describe_value(slot)} holds no elements")
        elif isinstance(op, DataTransferOp | ReadFromFifoOp | WriteToFifoOp):
            if enclosing_stage(op) is None:
                yield ScheduleProblem(op, f"'{op.name}' outside a 'ktdf.stage': it belongs to no step of a pipeline")
            if isinstance(op, DataTransferOp):
                yield from _transfer_count_problems(op)


def _stage_index(stage: StageOp) -> tuple[PipelineOp, dict[int, int], int]:
    pipeline = stage.parent_op()
    assert isinstance(pipeline, PipelineOp)
    index = {id(s): k for k, s in enumerate(stages_of(pipeline))}
    return pipeline, index, index[id(stage)]


def _token_problems(stage: StageOp) -> Iterator[ScheduleProblem]:
    """A token is signaled (depends_out) by exactly one stage of a pipeline and
    awaited only by stages after it; a stage lists a token once."""
    pipeline, index, k = _stage_index(stage)

    def signalers(token: SSAValue) -> list[StageOp]:
        found = []
        for use in token.uses:
            other = use.operation
            if isinstance(other, StageOp) and other.parent_op() is pipeline and use.index >= len(other.depends_in):
                found.append(other)
        return sorted(dict.fromkeys(found), key=lambda s: index[id(s)])

    for what, tokens in (("depends_in", stage.depends_in), ("depends_out", stage.depends_out)):
        seen: set[SSAValue] = set()
        for token in tokens:
            if token in seen:
                yield ScheduleProblem(stage, f"{what} lists token {describe_value(token)} twice")
            seen.add(token)
    for token in dict.fromkeys(stage.depends_out):
        earlier = [o for o in signalers(token) if index[id(o)] < k]
        if earlier:
            j = index[id(earlier[0])]
            yield ScheduleProblem(
                stage,
                f"stage #{k} signals token {describe_value(token)}, which stage #{j} signals already: "
                "a token is signaled (depends_out) by exactly one stage of a pipeline",
                ((earlier[0], f"stage #{j} signals it here"),),
            )
    for token in dict.fromkeys(stage.depends_in):
        found = signalers(token)
        if not found:
            yield ScheduleProblem(
                stage, f"stage #{k} waits for token {describe_value(token)} that no stage of the pipeline signals"
            )
            continue
        j = index[id(found[0])]
        if j == k:
            yield ScheduleProblem(stage, f"stage #{k} waits for token {describe_value(token)} that it signals itself")
        elif j > k:
            yield ScheduleProblem(
                stage,
                f"stage #{k} waits for token {describe_value(token)} that stage #{j}, after it, signals: a stage "
                "comes after the stages signaling its depends_in tokens",
                ((found[0], f"stage #{j} signals it here"),),
            )


def _slot_problems(stage: StageOp) -> Iterator[ScheduleProblem]:
    """A slot is written by exactly one stage of its pipeline and read by exactly
    one later stage. Each violation is reported once, at the stage that
    completes it (the later of two writers or readers; the reader of a slot
    written later or never; the writer of a slot nobody reads)."""
    pipeline, index, k = _stage_index(stage)
    mine: dict[SSAValue, set[str]] = {}
    for op in stage.body.walk():
        if enclosing_stage(op) is not stage:
            continue  # in a stage of a pipeline nested in this one: its own rules
        for slot, role in fifo_accesses(op):
            mine.setdefault(slot, set()).add(role)
    for slot, roles in mine.items():
        writers: dict[int, StageOp] = {}
        readers: dict[int, StageOp] = {}
        for use in slot.uses:
            role = _role_of_use(use.operation, use.index)
            holder = _stage_in(use.operation, pipeline) if role else None
            if holder is not None:
                (writers if role == "write" else readers)[index[id(holder)]] = holder
        name = describe_value(slot)
        if "write" in roles:
            earlier = [j for j in writers if j < k]
            if earlier:
                j = min(earlier)
                yield ScheduleProblem(
                    stage,
                    f"stage #{k} writes FIFO slot {name}, which stage #{j} writes already: a slot is written by "
                    "exactly one stage",
                    ((writers[j], f"stage #{j} writes it here"),),
                )
            elif not readers:
                yield ScheduleProblem(stage, f"stage #{k} writes FIFO slot {name} that no stage reads")
        if "read" in roles:
            earlier = [j for j in readers if j < k]
            if earlier:
                j = min(earlier)
                yield ScheduleProblem(
                    stage,
                    f"stage #{k} reads FIFO slot {name}, which stage #{j} reads already: a slot is read by exactly "
                    "one stage",
                    ((readers[j], f"stage #{j} reads it here"),),
                )
            elif not writers:
                yield ScheduleProblem(stage, f"stage #{k} reads FIFO slot {name} that no stage writes")
            elif (j := min(writers)) == k:
                yield ScheduleProblem(
                    stage,
                    f"stage #{k} reads FIFO slot {name} that it writes itself: a slot is read by a later stage than "
                    "the one writing it",
                )
            elif j > k:
                yield ScheduleProblem(
                    stage,
                    f"stage #{k} reads FIFO slot {name} that stage #{j}, after it, writes: a slot is read by a later "
                    "stage than the one writing it",
                    ((writers[j], f"stage #{j} writes it here"),),
                )


def _transfer_count_problems(op: DataTransferOp) -> Iterator[ScheduleProblem]:
    """A transfer to or from a slot of static size fills or drains it exactly."""
    for slot in (op.source, op.destination):
        slot_t = slot.type
        if not isinstance(slot_t, FifoSlotType) or slot_t.count is None:
            continue
        for side, static in (("source", op.static_source_sizes), ("dest", op.static_dest_sizes)):
            if static is None or any(s == DYNAMIC_INDEX for s in static.get_values()):
                continue
            sizes = static.get_values()
            n = math.prod(sizes)
            if n != slot_t.count:
                yield ScheduleProblem(
                    op,
                    f"{side} size {_fmt_shape(sizes)} moves {n} elements but the FIFO slot holds {slot_t.count}: "
                    "a transfer fills or drains its slot exactly",
                )


class KtdfConstantMaterialization(ConstantMaterializationInterface):
    """Upstream's constant materializer: folded indices become `arith.constant`."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not isinstance(value, IntegerAttr):
            return None
        return arith.ConstantOp(value, type)


KTDF = Dialect(
    "ktdf",
    [
        PipelineOp,
        PrivateOp,
        PrivateYieldOp,
        FifoAllocateOp,
        CreateTokenOp,
        StageOp,
        DataTransferOp,
        ReadFromFifoOp,
        WriteToFifoOp,
        TilingReserveSizeOp,
        TilingDeriveSizeOp,
        TilingLinearizeIndexOp,
        ParallelOp,
        ParallelYieldOp,
        BufferPhaseOp,
        SelectMemrefOp,
        OpaqueOp,
    ],
    [TokenType, FifoSlotType, LoopTypeAttr],
    [KtdfConstantMaterialization()],
)
