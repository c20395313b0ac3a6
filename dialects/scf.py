"""`scf.if` as MLIR reads and verifies it, where xDSL 0.75 does not.

- Verifier: an `scf.if` with results needs an else region, and each
  region's `scf.yield` yields as many values as the `scf.if` has results,
  of the same types (MLIR's RegionBranchOpInterface check). xDSL accepted
  both, and the interpreter then failed on them.
- Syntax: a single result type after `->` needs no parentheses
  (`scf.if %c -> f32 {`), as in MLIR; xDSL insisted on `-> (f32)`.

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import i1
from xdsl.ir import Attribute, Block, Operation
from xdsl.parser import Parser
from xdsl.traits import IsTerminator, SingleBlockImplicitTerminator
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
