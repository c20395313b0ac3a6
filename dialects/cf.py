"""`cf.br`/`cf.cond_br` successor operands, checked as MLIR checks them.

xDSL 0.75 let a branch pass more or fewer values than its target block has
arguments, or values of other types; the block arguments were then unbound
or mistyped where they are used. MLIR's BranchOpInterface rejects both;
these subclasses do too, with MLIR's messages.

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import cf
from xdsl.ir import Block, SSAValue
from xdsl.utils.exceptions import VerifyException


def _verify_successor(index: int, operands: Sequence[SSAValue], block: Block) -> None:
    if len(operands) != len(block.args):
        raise VerifyException(
            f"branch has {len(operands)} operands for successor #{index}, but target block has {len(block.args)}"
        )
    for i, (value, arg) in enumerate(zip(operands, block.args)):
        if value.type != arg.type:
            raise VerifyException(f"type mismatch for bb argument #{i} of successor #{index}")


class BranchOp(cf.BranchOp):
    """`cf.br` passing its target block exactly its arguments."""

    def verify_(self) -> None:
        super().verify_()
        _verify_successor(0, self.arguments, self.successor)


class ConditionalBranchOp(cf.ConditionalBranchOp):
    """`cf.cond_br` passing each target block exactly its arguments."""

    def verify_(self) -> None:
        super().verify_()
        _verify_successor(0, self.then_arguments, self.then_block)
        _verify_successor(1, self.else_arguments, self.else_block)


REPLACEMENTS: list[type] = [BranchOp, ConditionalBranchOp]
