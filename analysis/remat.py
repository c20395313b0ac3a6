"""Which ops may be re-materialized: cloned next to each user instead of computed once.

The compute-group extraction clones them into every group that uses them,
`ktdp-hbm-roundtrip` follows them to find the compute → compute edges, and
scratchpad planning leaves them out of the values it places in LX.

    from spyre_mlir.analysis.remat import rematerializable
    rematerializable(op)      # index arithmetic, views, tiles, constants, tensor.empty, splats
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.traits import is_side_effect_free

__all__ = ["CHEAP_TENSORS", "rematerializable"]

CHEAP_TENSORS = {"tensor.empty", "arith.constant", "tensor.splat"}
"""Tensor producers cheap enough to clone into every group that uses them."""


def rematerializable(op: Operation) -> bool:
    """Side-effect-free and cheap: index and view arithmetic, constants,
    `tensor.empty`, splats (not tensor computes, which run once, in a group).
    Whether its operands allow cloning is the caller's question."""
    if not is_side_effect_free(op):
        return False
    return op.name in CHEAP_TENSORS or not any(isinstance(r.type, TensorType) for r in op.results)
