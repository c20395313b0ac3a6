"""spatial: spatial programs are not executable yet (docs/spatial.md, "Executing it").

Every op of the dialect is listed as not executable, with that reason, until
the discrete-event simulation of a verified program lands (issue 13). The
compute stage's `spatial.yield` is a terminator: its operands are the results
of the stage body, for the handler of the stage, so it is not listed.
"""

from __future__ import annotations

from spyre_mlir.dialects.spatial import (
    BufferOp,
    ComputeStepOp,
    EdgeOp,
    EngineOp,
    LoadStepOp,
    LoopOp,
    MulticastOp,
    ProgramOp,
    RecvStepOp,
    SemaphoreOp,
    SignalOp,
    SiteOp,
    StageOp,
    StoreStepOp,
    TensorOp,
    WaitOp,
)
from spyre_mlir.interpreter.core import not_executable

_NOT_YET = "spatial programs are not executable yet (docs/spatial.md, issue 13)"

not_executable(
    dict.fromkeys(
        (
            ProgramOp,
            TensorOp,
            SiteOp,
            BufferOp,
            StageOp,
            EdgeOp,
            MulticastOp,
            SemaphoreOp,
            EngineOp,
            LoopOp,
            WaitOp,
            SignalOp,
            LoadStepOp,
            StoreStepOp,
            ComputeStepOp,
            RecvStepOp,
        ),
        _NOT_YET,
    )
)
