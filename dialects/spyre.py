"""The `spyre` dialect: layout markers and tiling hints for Spyre.

`spyre.tensor_layout` marks a KTDP memory view with its physical (device)
layout, with exactly the contract of triton-spyre's `tt.spyre_tensor_layout`:
three parallel arrays, one entry per physical dim, outermost first:

    phys_src[k]  the logical dim the physical dim k is computed from
    phys_op[k]   0 identity, 1 floordiv, 2 mod
    phys_arg[k]  the divisor for floordiv/mod (ignored for identity)

A rank-2 `[M, N]` f16 view stored stick-major on N (64 elements a stick) is
`phys_src = [1, 0, 1], phys_op = [1, 0, 2], phys_arg = [64, 0, 64]`, i.e.
device `[N floordiv 64, M, N mod 64]`. The pass that consumes the marker
(spyre-physicalize-layouts) is later work.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, MemRefType, i64
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, prop_def
from xdsl.utils.exceptions import VerifyException

PHYS_OPS = {0: "identity", 1: "floordiv", 2: "mod"}


@irdl_op_definition
class TensorLayoutOp(IRDLOperation):
    """Physical layout of a memory view (see module docstring)."""

    name = "spyre.tensor_layout"

    view = operand_def(MemRefType)
    phys_src = prop_def(DenseArrayBase.constr(i64))
    phys_op = prop_def(DenseArrayBase.constr(i64))
    phys_arg = prop_def(DenseArrayBase.constr(i64))

    assembly_format = "$view attr-dict `:` type($view)"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        src, ops, args = (a.get_values() for a in (self.phys_src, self.phys_op, self.phys_arg))
        if not src:
            raise VerifyException("phys_src, phys_op and phys_arg must be non-empty")
        if not (len(src) == len(ops) == len(args)):
            raise VerifyException(
                f"phys_src, phys_op and phys_arg must have the same length, got {len(src)}, {len(ops)} and {len(args)}"
            )
        view_type = self.view.type
        assert isinstance(view_type, MemRefType)
        rank = view_type.get_num_dims()
        for k, (s, o, a) in enumerate(zip(src, ops, args)):
            if o not in PHYS_OPS:
                raise VerifyException(f"phys_op[{k}] = {o} is not one of 0 (identity), 1 (floordiv), 2 (mod)")
            if not 0 <= s < rank:
                raise VerifyException(f"phys_src[{k}] = {s} is out of range for a rank-{rank} view")
            if o != 0 and a <= 0:
                raise VerifyException(f"phys_arg[{k}] = {a} must be positive for {PHYS_OPS[o]}")


SPYRE = Dialect("spyre", [TensorLayoutOp], [])
