"""func: calls between the functions of a module.

`func.func` bodies are decoded by `core.FunctionCompiler` (once per set of
varying arguments) and `func.return` ends them; `func.call` runs its callee.
The callee is decoded with its caller, so that a callee that cannot run
batched (a tile whose shape varies by core) is found while the kernel decodes
and the kernel falls back to running per core; only a recursive call (to a
function still being decoded) looks its callee up when it first runs.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation

from spyre_mlir.diagnostics import error
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, not_executable
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.plugins import Plugin, register
from spyre_mlir.interpreter.runtime import MAX_CALL_DEPTH


def _call_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Results vary with any argument, or when the callee (or one it calls) varies by itself."""
    assert isinstance(op, func.CallOp)
    name = op.callee.root_reference.data
    callee_varies = name in fc.program.functions and fc.program.may_vary(name)
    return fc.mark(op.results, callee_varies or any(fc.is_varying(x) for x in op.operands))


@handles(func.CallOp, varying=_call_varying)
def _call(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, func.CallOp)
    name = op.callee.root_reference.data
    callee = fc.program.functions.get(name)
    if callee is None or not callee.body.blocks:
        raise error(op, f"call to '@{name}', which has no body in this module")
    arg_slots = tuple(fc.slot(a) for a in op.arguments)
    result_slots = tuple(fc.slot(r) for r in op.res)
    arg_varying = tuple(fc.is_varying(a) for a in op.arguments)
    caller_varying = [fc.is_varying(r) for r in op.res]
    formats = [fc.format(r).compute for r in op.res]
    program = fc.program
    state: dict[str, object] = {}
    if not program.is_decoding(name, arg_varying):  # recursion: decoded once its outer decode ends
        state["callee"] = program.function(name, arg_varying)

    def step(frame):
        compiled = state.get("callee")
        if compiled is None:
            compiled = state["callee"] = program.function(name, arg_varying)
        runtime = program.runtime
        if runtime.call_depth >= MAX_CALL_DEPTH:
            raise InterpreterError(
                f"call depth exceeds {MAX_CALL_DEPTH} nested calls (unbounded recursion into @{name}?)"
            )
        runtime.call_depth += 1
        try:
            results = compiled.call(frame[0], [frame[s] for s in arg_slots])
        finally:
            runtime.call_depth -= 1
        for slot, value, wanted, have, dtype in zip(
            result_slots, results, caller_varying, compiled.result_varying, formats
        ):
            if wanted and not have:
                value = (
                    np.broadcast_to(value, (frame[0].count, *np.shape(value)))
                    if isinstance(value, np.ndarray)
                    else np.full(frame[0].count, value, dtype)
                )
            frame[slot] = value

    return step


not_executable(
    {
        func.FuncOp: "a function: the interpreter runs it as a kernel or as the callee of func.call",
    }
)


def _callee(state, op: Operation, functions) -> str | None:
    return op.callee.root_reference.data if isinstance(op, func.CallOp) else None


register(Plugin("func", callee=_callee))
