"""`memref.load`/`memref.store` index counts, checked as MLIR checks them.

xDSL 0.75 checks that there is one index per dimension, but raises a plain
`Exception`, so that bad input surfaced as an internal error ("a bug in
spyre-mlir"). These subclasses make the same check a located verifier error
with MLIR's message.

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.utils.exceptions import VerifyException


def _verify_indices(op) -> None:
    # The IRDL constraints only: xDSL's own count check raises a bare Exception.
    type(op).get_irdl_definition().verify(op)
    t = op.memref.type
    if isinstance(t, MemRefType) and t.get_num_dims() != len(op.indices):
        raise VerifyException(
            f"invalid number of indices for accessed memref, expected {t.get_num_dims()} but got {len(op.indices)}"
        )


class LoadOp(memref.LoadOp):
    """`memref.load` with one index per dimension, a located error otherwise."""

    def verify_(self) -> None:
        _verify_indices(self)


class StoreOp(memref.StoreOp):
    """`memref.store` with one index per dimension, a located error otherwise."""

    def verify_(self) -> None:
        _verify_indices(self)


REPLACEMENTS: list[type] = [LoadOp, StoreOp]
