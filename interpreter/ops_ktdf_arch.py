"""ktdf_arch: dataflow-scheduler's device model, never executed.

A `ktdf_arch.device` (inline or `import(...)`) describes the target for the
scheduler's passes; it sits at module level, outside any function, so a run
never meets it: the interpreter runs functions and leaves module-level
declarations alone. Its other ops only appear inside a device body.
"""

from __future__ import annotations

from xdsl.traits import IsTerminator

from spyre_mlir.dialects import ktdf_arch
from spyre_mlir.interpreter.core import not_executable

not_executable(
    {
        op: "part of a device description (module level), read by the scheduler's passes, not run"
        for op in ktdf_arch.KTDF_ARCH.operations
        if not op.has_trait(IsTerminator)  # its operands are the results of its block
    }
)
