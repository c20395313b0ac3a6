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
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.diagnostics import NotedRegionVerifyException


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


REPLACEMENTS: list[type] = [IfOp]
