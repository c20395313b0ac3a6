"""`scf.if`, `scf.while`, `scf.index_switch` as MLIR reads and verifies
them, where xDSL 0.75 does not; and MLIR's `scf.forall`, which xDSL lacks.

- Verifier: an `scf.if` with results needs an else region, and each
  region's `scf.yield` yields as many values as the `scf.if` has results,
  of the same types (MLIR's RegionBranchOpInterface check). xDSL accepted
  both, and the interpreter then failed on them.
- Syntax: a single result type after `->` needs no parentheses
  (`scf.if %c -> f32 {`), as in MLIR; xDSL insisted on `-> (f32)`.

- `scf.forall` (and its terminator `scf.forall.in_parallel`), the subset
  without `shared_outs` (no results): MLIR's custom syntax, normalized
  `scf.forall (%i, %j) in (4, %n) {` and general
  `scf.forall (%i) = (%lb) to (%ub) step (%s) {`, each bound an integer or an
  SSA value; MLIR's generic form (`staticLowerBound`, `staticUpperBound`,
  `staticStep` i64 arrays with dynamic placeholders, `operandSegmentSizes`
  of 4) and verifier. The `mapping` attribute (device ids) is refused.

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`); `ADDITIONS` are MLIR's
ops xDSL does not have. Candidates to upstream to xDSL; see
third_party/README.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DenseArrayBase, IndexType, i1, i64
from xdsl.dialects.utils.dynamic_index_list import (
    get_dynamic_index_list,
    parse_dynamic_index_without_type,
    print_dynamic_index_list,
    split_dynamic_index_list,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.diagnostics import NotedRegionVerifyException, NotedVerifyException
from spyre_mlir.verifier_utils import definition_without


class IfOp(scf.IfOp):
    """`scf.if` with MLIR's result checks and result-type syntax."""

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_operand(i1)
        return_types = []
        if parser.parse_optional_punctuation("->"):
            if parser.parse_optional_punctuation("(") is None:
                return_types = [parser.parse_type()]
            elif parser.parse_optional_punctuation(")") is None:
                return_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
        then_region = cls.parse_region_with_yield(parser)
        else_region = cls.parse_region_with_yield(parser) if parser.parse_optional_keyword("else") else None
        attr_dict = parser.parse_optional_attr_dict()
        return cls(cond, return_types, then_region, else_region, attr_dict)

    def verify_(self) -> None:
        super().verify_()
        results = [r.type for r in self.results]
        if results and not self.false_region.blocks:
            raise VerifyException("must have an else block if defining values")
        for region in (self.true_region, self.false_region):
            if not region.blocks:
                continue
            yield_ = region.blocks.last.last_op
            if not isinstance(yield_, scf.YieldOp):
                continue  # the terminator trait reports it
            edge = "along control flow edge from Operation scf.yield to Operation scf.if"
            note = (yield_, "region branch point")
            if len(yield_.operands) != len(results):
                raise NotedRegionVerifyException(
                    f"{edge}: region branch point has {len(yield_.operands)} operands, "
                    f"but region successor needs {len(results)} inputs",
                    note,
                )
            for i, (value, want) in enumerate(zip(yield_.operands, results)):
                if value.type != want:
                    raise NotedRegionVerifyException(
                        f"{edge}: successor operand type #{i} '{value.type}' should match successor input type "
                        f"#{i} '{want}'",
                        note,
                    )


def _edge_check(
    source: str, target: str, values, inputs, note: tuple[Operation, str]
) -> None:
    """MLIR's RegionBranchOpInterface check of one control-flow edge: the
    values passed match the successor's inputs in number and type."""
    edge = f"along control flow edge from {source} to {target}"
    values, inputs = list(values), list(inputs)
    if len(values) != len(inputs):
        raise NotedRegionVerifyException(
            f"{edge}: region branch point has {len(values)} operands, but region successor needs {len(inputs)} inputs",
            note,
        )
    for i, (value, want) in enumerate(zip(values, inputs)):
        if value.type != want:
            raise NotedRegionVerifyException(
                f"{edge}: successor operand type #{i} '{value.type}' should match successor input type #{i} '{want}'",
                note,
            )


def _types(values) -> list[Attribute]:
    return [v.type for v in values]


class WhileOp(scf.WhileOp):
    """`scf.while` with MLIR's verifier in place of xDSL's (which raised a
    bare Exception, or indexed past the end of a block's arguments: internal
    errors), and MLIR's syntax for a loop without values
    (`scf.while : () -> () {`)."""

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)  # xDSL's own check is replaced by MLIR's
        before = self.before_region.block if self.before_region.blocks else None
        after = self.after_region.block if self.after_region.blocks else None
        condition = before.last_op if before is not None else None
        if not isinstance(condition, scf.ConditionOp):
            notes = [(condition, "terminator here")] if condition is not None else []
            raise NotedVerifyException("expects the 'before' region to terminate with 'scf.condition'", *notes)
        yield_ = after.last_op if after is not None else None
        if not isinstance(yield_, scf.YieldOp):
            notes = [(yield_, "terminator here")] if yield_ is not None else []
            raise NotedVerifyException("expects the 'after' region to terminate with 'scf.yield'", *notes)
        assert before is not None and after is not None
        # MLIR's RegionBranchOpInterface checks, after the ops of the regions.
        _edge_check("parent", "Region #0", self.arguments, _types(before.args), (self, "region branch point"))
        note = (condition, "region branch point")
        _edge_check("Operation scf.condition", "Operation scf.while", condition.args, _types(self.res), note)
        _edge_check("Operation scf.condition", "Region #1", condition.args, _types(after.args), note)
        note = (yield_, "region branch point")
        _edge_check("Operation scf.yield", "Region #0", yield_.arguments, _types(before.args), note)

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        def parse_assignment():
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation("=")
            return arg, parser.parse_unresolved_operand()

        pairs = []
        if parser.parse_optional_punctuation("(") is not None:
            if parser.parse_optional_punctuation(")") is None:
                pairs = parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_assignment)
                parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        type_pos = parser.pos
        function_type = parser.parse_function_type()
        inputs = function_type.inputs.data
        if len(pairs) != len(inputs):
            parser.raise_error(
                f"expected as many input types as operands (expected {len(pairs)} got {len(inputs)})", type_pos, type_pos
            )
        arguments = [parser.resolve_operand(operand, t) for (_, operand), t in zip(pairs, inputs)]
        before_region = parser.parse_region([arg.resolve(t) for (arg, _), t in zip(pairs, inputs)])
        parser.parse_characters("do")
        after_region = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(arguments, function_type.outputs.data, before_region, after_region)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


class IndexSwitchOp(scf.IndexSwitchOp):
    """`scf.index_switch` with MLIR's verifier and messages: as many case
    values as case regions, no duplicate, and each region yields the op's
    result types (xDSL asserted the terminator: an internal error)."""

    @classmethod
    def parse(cls, parser: Parser) -> IndexSwitchOp:
        op = super().parse(parser)
        # MLIR's implicit terminator: `default {}` is a block ending in `scf.yield`.
        for region in op.regions:
            if not region.blocks:
                region.add_block(Block())
            if len(region.blocks) != 1:
                continue  # the single-block constraint reports it
            last = region.block.last_op
            if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
                region.block.add_op(scf.YieldOp())
        return op

    def verify_(self) -> None:
        # MLIR's verify() looks at the terminators itself, before the ops in
        # the regions: xDSL's terminator trait is left out.
        definition_without(type(self), SingleBlockImplicitTerminator).verify(self)
        cases = self.cases.get_values()
        if len(cases) != len(self.case_regions):
            raise VerifyException(f"has {len(self.case_regions)} case regions but {len(cases)} case values")
        seen: set[int] = set()
        for value in cases:
            if value in seen:
                raise VerifyException(f"has duplicate case value: {value}")
            seen.add(value)
        results = _types(self.output)
        named = [(self.default_region, "default region")]
        named += [(r, f"case region #{i}") for i, r in enumerate(self.case_regions)]
        for region, name in named:
            if not region.blocks or region.block.last_op is None:
                continue  # the single-block constraint reports it
            yield_ = region.block.last_op
            if not isinstance(yield_, scf.YieldOp):
                raise VerifyException(f"expected region to end with scf.yield, but got {yield_.name}")
            if len(yield_.arguments) != len(results):
                raise NotedVerifyException(
                    f"expected each region to return {len(results)} values, but {name} returns "
                    f"{len(yield_.arguments)}",
                    (yield_, "see yield operation here"),
                )
            for i, (want, value) in enumerate(zip(results, yield_.arguments)):
                if value.type != want:
                    raise NotedVerifyException(
                        f"expected result #{i} of each region to be '{want}'",
                        (yield_, f"{name} returns '{value.type}' here"),
                    )


REPLACEMENTS: list[type] = [IfOp, WhileOp, IndexSwitchOp]


# ---------------------------------------------------------------------------
# scf.forall (MLIR's ForallOp, without shared_outs)
# ---------------------------------------------------------------------------


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """`scf.forall.in_parallel`, the terminator of `scf.forall`. Its one block
    would hold the parallel-combining ops writing `shared_outs`; a forall
    without them leaves it empty (MLIR prints nothing for it then)."""

    name = "scf.forall.in_parallel"

    region = region_def("single_block")

    traits = lazy_traits_def(lambda: (IsTerminator(), NoTerminator(), HasParent(ForallOp), Pure()))

    def __init__(self, region: Region | None = None):
        super().__init__(regions=[region if region is not None else Region(Block())])

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls(region)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False, print_block_terminators=False)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if self.region.blocks and self.region.block.first_op is not None:
            raise VerifyException("expected only ParallelCombiningOpInterface ops")


Mixed = int | SSAValue
"""A bound or step of `scf.forall`: a static integer or an SSA index value."""


def _parse_index_list(parser: Parser) -> tuple[list[UnresolvedOperand], list[int]]:
    """MLIR's `custom<DynamicIndexList>` in parentheses: `(4, %n, -1)`."""
    mixed = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parse_dynamic_index_without_type(parser))
    dynamic = [v for v in mixed if not isinstance(v, int)]
    static = [v if isinstance(v, int) else DYNAMIC_INDEX for v in mixed]
    return dynamic, static


@irdl_op_definition
class ForallOp(IRDLOperation):
    """MLIR's `scf.forall` without `shared_outs`: a multi-dimensional loop whose
    iterations are independent, so they may run in any order or in parallel.

        scf.forall (%i, %j) in (4, %n) { ... }                   // 0 to ub step 1
        scf.forall (%i) = (%lb) to (%ub) step (%s) { ... }

    Each bound and step is a static integer or an SSA `index` value. Stored
    as MLIR stores it: `staticLowerBound`/`staticUpperBound`/`staticStep` i64
    arrays, `DYNAMIC_INDEX` where the value is the next operand of
    `dynamicLowerBound`/`dynamicUpperBound`/`dynamicStep`. The body is one
    block of `index` arguments, one per dimension, ending in an (empty)
    `scf.forall.in_parallel`, implicit in the custom syntax.

    Beyond MLIR's verifier, a static step must be positive (MLIR accepts a
    zero or negative step, whose loop is meaningless)."""

    name = "scf.forall"

    dynamicLowerBound = var_operand_def(IndexType)
    dynamicUpperBound = var_operand_def(IndexType)
    dynamicStep = var_operand_def(IndexType)
    outputs = var_operand_def()

    staticLowerBound = prop_def(DenseArrayBase.constr(i64))
    staticUpperBound = prop_def(DenseArrayBase.constr(i64))
    staticStep = prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)

    res = var_result_def()

    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = lazy_traits_def(lambda: (SingleBlockImplicitTerminator(InParallelOp), RecursiveMemoryEffect()))

    def __init__(
        self,
        lower: Sequence[Mixed],
        upper: Sequence[Mixed],
        steps: Sequence[Mixed],
        body: Region,
        attributes: dict[str, Attribute] | None = None,
    ):
        static: dict[str, Attribute] = {}
        dynamic: list[list[SSAValue]] = []
        for key, values in (("staticLowerBound", lower), ("staticUpperBound", upper), ("staticStep", steps)):
            ints, ssa = split_dynamic_index_list(values, DYNAMIC_INDEX)
            static[key] = DenseArrayBase.from_list(i64, ints)
            dynamic.append(ssa)
        super().__init__(
            operands=[*dynamic, []], result_types=[[]], properties=static, regions=[body], attributes=attributes
        )

    @classmethod
    def normalized(cls, upper: Sequence[Mixed], body: Region) -> ForallOp:
        """`scf.forall (...) in (upper)`: lower bounds 0, steps 1."""
        return cls([0] * len(upper), upper, [1] * len(upper), body)

    # -- accessors ----------------------------------------------------------

    @property
    def rank(self) -> int:
        return len(self.staticLowerBound.get_values())

    @property
    def induction_variables(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    def mixed_lower_bound(self) -> list[Mixed]:
        return get_dynamic_index_list(self.staticLowerBound.get_values(), self.dynamicLowerBound, DYNAMIC_INDEX)

    def mixed_upper_bound(self) -> list[Mixed]:
        return get_dynamic_index_list(self.staticUpperBound.get_values(), self.dynamicUpperBound, DYNAMIC_INDEX)

    def mixed_step(self) -> list[Mixed]:
        return get_dynamic_index_list(self.staticStep.get_values(), self.dynamicStep, DYNAMIC_INDEX)

    def is_normalized(self) -> bool:
        """Lower bounds all a static 0 and steps all a static 1: printed as `in (ub)`.
        (MLIR also prints SSA constants 0 and 1 so, dropping those operands; we
        keep them, so that a print reads back as the same op.)"""
        return all(v == 0 for v in self.staticLowerBound.get_values()) and all(
            v == 1 for v in self.staticStep.get_values()
        )

    # -- syntax --------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:
        ivs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        index = IndexType()
        if parser.parse_optional_keyword("in") is not None:
            ub_dyn, ub = _parse_index_list(parser)
            lb_dyn, lb, st_dyn, st = [], [0] * len(ivs), [], [1] * len(ivs)
        else:
            parser.parse_punctuation("=")
            lb_dyn, lb = _parse_index_list(parser)
            parser.parse_keyword("to")
            ub_dyn, ub = _parse_index_list(parser)
            parser.parse_keyword("step")
            st_dyn, st = _parse_index_list(parser)
        if parser.parse_optional_keyword("shared_outs") is not None:
            parser.raise_error("'scf.forall' with shared_outs (results) is not supported")

        def mixed(static: list[int], dynamic: list[UnresolvedOperand]) -> list[Mixed]:
            values = iter(parser.resolve_operand(v, index) for v in dynamic)
            return [next(values) if v == DYNAMIC_INDEX else v for v in static]

        lower, upper, steps = mixed(lb, lb_dyn), mixed(ub, ub_dyn), mixed(st, st_dyn)
        body = parser.parse_region([iv.resolve(index) for iv in ivs])
        # MLIR's implicit terminator: an empty `scf.forall.in_parallel`.
        if not body.blocks:
            body.add_block(Block())
        if len(body.blocks) == 1:
            last = body.block.last_op
            if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
                body.block.add_op(InParallelOp())
        attrs = parser.parse_optional_attr_dict()
        mapping = attrs.pop("mapping", None)  # an inherent attribute (a property), as in MLIR
        op = cls(lower, upper, steps, body, attrs)
        if mapping is not None:
            op.properties["mapping"] = mapping
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.body.block.args, printer.print_ssa_value)
        printer.print_string(")")

        def index_list(static: DenseArrayBase, dynamic: Sequence[SSAValue]) -> None:
            values = static.get_values()
            print_dynamic_index_list(printer, DYNAMIC_INDEX, dynamic, values, delimiter=Parser.Delimiter.PAREN)

        if self.is_normalized():
            printer.print_string(" in ")
            index_list(self.staticUpperBound, self.dynamicUpperBound)
        else:
            printer.print_string(" = ")
            index_list(self.staticLowerBound, self.dynamicLowerBound)
            printer.print_string(" to ")
            index_list(self.staticUpperBound, self.dynamicUpperBound)
            printer.print_string(" step ")
            index_list(self.staticStep, self.dynamicStep)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_empty_block=False, print_block_terminators=False
        )
        attrs = dict(self.attributes)
        if self.mapping is not None:
            attrs["mapping"] = self.mapping
        printer.print_op_attributes(attrs)

    # -- verifier ------------------------------------------------------------

    def verify_(self) -> None:
        if self.outputs or self.res:
            raise VerifyException("with shared_outs (results) is not supported")
        rank = self.rank
        body = self.body.block
        if len(body.args) != rank:
            raise VerifyException(f"region expects {rank} arguments")
        for i, arg in enumerate(body.args):
            if not isinstance(arg.type, IndexType):
                raise VerifyException(f"expects {i}-th block argument to be an index")
        if self.mapping is not None:
            raise VerifyException("the mapping attribute (device ids) is not supported")
        lists = (
            ("lower bound", self.staticLowerBound, self.dynamicLowerBound),
            ("upper bound", self.staticUpperBound, self.dynamicUpperBound),
            ("step", self.staticStep, self.dynamicStep),
        )
        for what, static, dynamic in lists:
            values = static.get_values()
            if len(values) != rank:
                raise VerifyException(f"expected {rank} {what} values, got {len(values)}")
            markers = values.count(DYNAMIC_INDEX)
            if markers != len(dynamic):
                raise VerifyException(f"expected {markers} dynamic {what} values")
        for k, step in enumerate(self.staticStep.get_values()):
            if step != DYNAMIC_INDEX and step <= 0:
                raise VerifyException(f"expected a positive step, got {step} for dimension #{k}")


ADDITIONS: list[type] = [ForallOp, InParallelOp]
"""Ops of MLIR's scf dialect that xDSL 0.75 does not have, added to it."""
