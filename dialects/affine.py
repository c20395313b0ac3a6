"""`affine.yield` as MLIR verifies it, where xDSL 0.75 does not.

xDSL accepted an `affine.yield` anywhere (`scf.if` then reported only that
its region does not end with `scf.yield`), and with any values. MLIR's
verifier: it terminates an `affine.if`, `affine.for` or `affine.parallel`,
and yields one value per result of that op, of the result's type.

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from xdsl.dialects import affine
from xdsl.utils.exceptions import VerifyException


class YieldOp(affine.YieldOp):
    """`affine.yield` with MLIR's parent, count and type checks."""

    def verify_(self) -> None:
        super().verify_()
        parent = self.parent_op()
        if parent is None:
            return
        if not isinstance(parent, affine.ForOp | affine.IfOp | affine.ParallelOp):
            raise VerifyException("only terminates affine.if/for/parallel regions")
        if len(parent.results) != len(self.arguments):
            raise VerifyException("parent of yield must have same number of results as the yield operands")
        if any(r.type != a.type for r, a in zip(parent.results, self.arguments)):
            raise VerifyException("types mismatch between yield op and its parent")


REPLACEMENTS: list[type] = [YieldOp]
