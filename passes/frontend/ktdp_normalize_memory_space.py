"""ktdp-normalize-memory-space: one spelling of KTDP memory spaces.

Rewrites the older `#ktdp.spyre_memory_space<...>` to the current
`#ktdp.memory_space<...>` (HBM -> global, LX and L0 -> ct_local, core = N ->
ct_id = N), on `ktdp.construct_memory_view` and in the memory space of its
result type, so later passes match one attribute. `unspecified` has no
current equivalent and is left as written, with a warning.

Before:

    %v = ktdp.construct_memory_view %a, sizes: [64], strides: [1] {
           coordinate_set = #set, memory_space = #ktdp.spyre_memory_space<LX, core = 3>} : memref<64xf16>

After:

    %v = ktdp.construct_memory_view %a, sizes: [64], strides: [1] {
           coordinate_set = #set, memory_space = #ktdp.memory_space<ct_local, ct_id = 3>} : memref<64xf16>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from spyre_mlir.diagnostics import warning
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp, SpyreMemorySpaceAttr


class NormalizeViewMemorySpace(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstructMemoryViewOp, rewriter: PatternRewriter) -> None:
        old = op.memory_space
        if not isinstance(old, SpyreMemorySpaceAttr):
            return
        new = old.as_memory_space()
        if new is None:
            warning(op, "memory space 'unspecified' has no #ktdp.memory_space equivalent; left as written")
            return
        op.properties["memory_space"] = new
        ty = op.result.type
        if isinstance(ty, MemRefType) and ty.memory_space == old:
            rewriter.replace_value_with_new_type(
                op.result, MemRefType(ty.element_type, ty.shape, ty.layout, new)
            )
        rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class KtdpNormalizeMemorySpacePass(ModulePass):
    """Rewrite `#ktdp.spyre_memory_space` to `#ktdp.memory_space` (see module docstring)."""

    name = "ktdp-normalize-memory-space"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(NormalizeViewMemorySpace(), apply_recursively=False).rewrite_module(op)
