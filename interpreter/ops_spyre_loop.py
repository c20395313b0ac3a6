"""spyre_loop: a counted loop runs its tile block `count` times (%k = 0 .. count - 1)."""

from __future__ import annotations

from time import monotonic

from xdsl.ir import Operation

from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable


def _loop_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The tile number is the same on every core (the count must be too)."""
    return False


@handles(LoopOp, varying=_loop_varying)
def _loop(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, LoopOp)
    if op.count_value is not None and fc.is_varying(op.count_value):
        raise NotBatchable(op, "its count differs between cores")
    body = fc.compile_block(op.body.block)
    k = fc.slot(op.iteration)
    static = op.static_count
    count_slot = fc.slot(op.count_value) if op.count_value is not None else None
    program = fc.program

    def step(frame):
        count = static if count_slot is None else int(frame[count_slot])
        if count <= 0:
            raise InterpreterError(f"spyre_loop.loop count must be positive, got {count}")
        deadline = program.runtime.deadline
        for i in range(count):
            if deadline is not None and monotonic() > deadline:
                raise program.runtime.timed_out()
            frame[k] = i
            body(frame)

    return step
