"""spyre-unroll-loops: replace every counted `spyre_loop.loop` by copies of its body.

A loop `count(N)` becomes N copies of its block, in order, copy i with the
tile number `%k` replaced by `arith.constant i : index` (no constant is made
when the body does not use `%k`). Nested loops are unrolled innermost first,
so a nest of counts 2 and 3 becomes 2 × 3 copies of the inner body. Nothing
else runs: addresses that are affine in `%k` (`affine.apply`, `arith.muli`
of it) are left as arithmetic on per-copy constants, and ops that do not
depend on `%k` are copied unchanged — a loop-internal LX (`ct_local`) view
at a fixed offset keeps that offset in every copy, while an HBM tile whose
anchor is computed from `%k` moves from copy to copy.

Refused with a located error, before anything is rewritten: a loop with a
symbolic count (`count(%n)`), and a nest whose unrolling would make more
than `max-copies` (default 4096) copies of its innermost bodies (the
product of the counts along the nest; sibling inner loops add up).

Before:

    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [16] {
    ^bb0(%k: index):
      %row = arith.muli %k, %c16 : index
      %t = ktdp.construct_access_tile %v[%row, %c0] {...} : memref<32x64xf32> -> !ktdp.access_tile<16x64xindex>
      ktdp.store %x, %t : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
    }

After:

    %k = arith.constant 0 : index
    %row = arith.muli %k, %c16 : index
    %t = ktdp.construct_access_tile %v[%row, %c0] {...} : memref<32x64xf32> -> !ktdp.access_tile<16x64xindex>
    ktdp.store %x, %t : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
    %k_1 = arith.constant 1 : index
    %row_1 = arith.muli %k_1, %c16 : index
    %t_1 = ktdp.construct_access_tile %v[%row_1, %c0] {...} : memref<32x64xf32> -> !ktdp.access_tile<16x64xindex>
    ktdp.store %x, %t_1 : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.ir import fill_locations
from spyre_mlir.passes.bundle.loop_transforms import unrolled_copies
from spyre_mlir.passes.contracts import require_groups
from spyre_mlir.walk import walk_ops, walk_ops_post


def _enclosing_loop(op: Operation) -> LoopOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, LoopOp):
        parent = parent.parent_op()
    return parent


def _check(module: ModuleOp, max_copies: int) -> None:
    """Refuse what cannot be unrolled, before any rewrite."""
    loops = [op for op in walk_ops(module) if isinstance(op, LoopOp)]
    for loop in loops:
        if loop.static_count is None:
            raise error(loop, "cannot unroll a loop with a symbolic count")
        if loop.static_count <= 0:
            raise error(loop, f"cannot unroll a loop of count {loop.static_count}: the count must be positive")
    # copies(loop) = count × (sum of the copies of the loops directly inside it, or 1).
    inner: dict[LoopOp, int] = {}
    copies: dict[LoopOp, int] = {}
    for op in walk_ops_post(module.body):
        if not isinstance(op, LoopOp):
            continue
        count = op.static_count or 0  # never None here: refused above
        copies[op] = count * inner.get(op, 1)
        if (outer := _enclosing_loop(op)) is not None:
            inner[outer] = inner.get(outer, 0) + copies[op]
    for loop in loops:  # outermost first, in source order
        if _enclosing_loop(loop) is None and copies[loop] > max_copies:
            raise error(
                loop,
                f"cannot unroll: the loop of count {loop.static_count} would make {copies[loop]} copies "
                f"of its body (with its nested loops), more than max-copies={max_copies}",
            )


class UnrollLoop(RewritePattern):
    """One static-count loop whose nested loops are already unrolled → its copies."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoopOp, rewriter: PatternRewriter) -> None:
        count = op.static_count
        if count is None or count <= 0:
            return  # refused by _check before any rewrite
        block = op.body.block
        if any(isinstance(inner, LoopOp) for inner in walk_ops(block)):
            return  # innermost first: the walker visits regions before their op
        k = block.args[0]
        used = any(True for _ in k.uses)
        consts = [arith.ConstantOp(IntegerAttr(i, IndexType())) for i in range(count)] if used else []
        for const in consts:
            const.result.name_hint = k.name_hint
            const.location = op.location
        copies, _ = unrolled_copies(block, [c.result for c in consts] if used else [k] * count)
        for i, copy in enumerate(copies):
            if used:
                rewriter.insert(consts[i], InsertPoint.before(op))
            rewriter.insert(copy, InsertPoint.before(op))
        rewriter.erase(op)


@dataclass(frozen=True)
class SpyreUnrollLoopsPass(ModulePass):
    """Unroll every static-count spyre_loop.loop (see module docstring)."""

    name = "spyre-unroll-loops"
    changes_ir: ClassVar[bool] = True

    max_copies: int = 4096

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_copies < 1:
            raise error(op, f"spyre-unroll-loops: max-copies must be positive, got {self.max_copies}")
        if not any(isinstance(o, LoopOp) for o in walk_ops(op)):
            # Nothing to unroll: fine after spyre-coarse-tile left every group whole, but a
            # kernel never split into groups, or an emitted bundle, means the order is wrong.
            require_groups(op, self.name, "the spyre_loop.loop nests of tiled compute groups", also="spyre-coarse-tile")
            return
        _check(op, self.max_copies)
        PatternRewriteWalker(UnrollLoop(), walk_regions_first=True).rewrite_module(op)
        fill_locations(op)
