"""ktdf-check-schedule: warn where a schedule breaks the rules upstream's passes assume.

Upstream's ktdf verifiers accept IR whose stages, tokens and FIFO slots do
not form a runnable schedule (their transformations produce such IR on the
way: a slot written in one pipeline and read in another, a transfer hoisted
out of its stage). The rules a finished schedule keeps are checked here,
each broken one a located warning (`ktdf.schedule_problems`, docs/ktdf.md
"Schedule rules"):

- a stage lists a token once; a token is signaled (`depends_out`) by exactly
  one stage of a pipeline, and the stages waiting for it (`depends_in`) come
  after that stage;
- a FIFO slot is written by exactly one stage of its pipeline and read by
  exactly one later stage;
- a `ktdf.data_transfer`, `ktdf.read_from_fifo` or `ktdf.write_to_fifo` is
  in a `ktdf.stage`;
- a transfer to or from a slot of static size moves exactly its element count;
- a slot holds at least one element.

Where another op takes part (the stage signaling a token already, the first
writer of a slot), a remark at that op says how. The IR is left unchanged.
Before (stage #0 writes %p#0, no stage reads it):

    ktdf.stage depends_in(none) depends_out(%p#1) {
      ktdf.write_to_fifo %v, %p#0 : tensor<4xf32>, <"a" -> "b", 4xf32>
    }

After: the same IR, and at the stage:

    warning: stage #0 writes FIFO slot %p#0 that no stage reads
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from spyre_mlir.diagnostics import remark, warning
from spyre_mlir.dialects.ktdf import schedule_problems


@dataclass(frozen=True)
class KtdfCheckSchedulePass(ModulePass):
    """Warn at each broken schedule rule of the ktdf IR (see module docstring)."""

    name = "ktdf-check-schedule"
    changes_ir: ClassVar[bool] = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for problem in schedule_problems(op):
            warning(problem.op, problem.message)
            for other, note in problem.notes:
                remark(other, note)
