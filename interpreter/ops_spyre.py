"""spyre: layout markers. The interpreter runs logical KTIR, before layouts are applied."""

from __future__ import annotations

from spyre_mlir.dialects.spyre import RelayoutOp, TensorLayoutOp
from spyre_mlir.interpreter.core import not_executable

not_executable(
    {
        TensorLayoutOp: "a physical-layout marker for the pass that applies layouts (spyre-physicalize-layouts, "
        "later work); kernels are interpreted before it",
        RelayoutOp: "not executed yet (issue 9)",
    }
)
