"""spyre-fold-reshapes: fold no-op expand/collapse pairs.

A `tensor.collapse_shape` of a `tensor.expand_shape` (or the other way
round) whose result has the type of the pair's source is the source itself:
reshapes keep elements in row-major order, so going back to the same shape
is the identity, whatever the two reassociations (physicalized values leave
pairs that move an extent-1 axis out and back in through different groups).
Only such round trips are folded, and with dynamic dims only when both
reassociations are the same; this is targeted cleanup, not general reshape
composition, so nothing about shapes is guessed.

Before:

    %e = tensor.expand_shape %x [[0, 1]] output_shape [1, 128] : tensor<128xf16> into tensor<1x128xf16>
    %c = tensor.collapse_shape %e [[0, 1]] : tensor<1x128xf16> into tensor<128xf16>
    %y = math.exp %c : tensor<128xf16>

After:

    %y = math.exp %x : tensor<128xf16>

The dead reshape is left for DCE/canonicalize to erase.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import tensor
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def _static(ty) -> bool:
    return isinstance(ty, TensorType) and all(d >= 0 for d in ty.get_shape())


class FoldCollapseOfExpand(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.CollapseShapeOp, rewriter: PatternRewriter) -> None:
        expand = op.src.owner
        if not isinstance(expand, tensor.ExpandShapeOp):
            return
        if op.result.type != expand.src.type:
            return
        if expand.reassociation != op.reassociation and not _static(op.result.type):
            return
        rewriter.replace(op, [], [expand.src])


class FoldExpandOfCollapse(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.ExpandShapeOp, rewriter: PatternRewriter) -> None:
        collapse = op.src.owner
        if not isinstance(collapse, tensor.CollapseShapeOp):
            return
        # With dynamic dims the output_shape operands would have to be proven
        # equal to the source's sizes; only fold fully static pairs.
        if op.result.type != collapse.src.type or not _static(op.result.type):
            return
        rewriter.replace(op, [], [collapse.src])


@dataclass(frozen=True)
class SpyreFoldReshapesPass(ModulePass):
    """Fold exact expand/collapse round trips (see module docstring)."""

    name = "spyre-fold-reshapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [FoldCollapseOfExpand(), FoldExpandOfCollapse()], dce_enabled=False
            )
        ).rewrite_module(op)
