"""Exceptions raised while decoding or running a kernel.

`InterpreterError` is bad input met at run time (an access outside a view, a
read of uninitialized memory, ...). It carries no location: the block runner
that executes the failing op turns it into a located `DiagnosticError`
(`spyre_mlir.diagnostics.error`) naming that op. Decode-time problems (an
unsupported op) are raised directly as located errors.
"""

from __future__ import annotations

from xdsl.ir import Operation


class InterpreterError(Exception):
    """A user-facing run-time error, located later at the executing op."""

    def __init__(self, message: str, notes: tuple[tuple[Operation | None, str], ...] = ()):
        super().__init__(message)
        self.message = message
        self.notes = notes


class NotBatchable(Exception):
    """Raised while decoding when the kernel cannot run with all cores batched
    (e.g. a tensor whose shape depends on the core id); the interpreter then
    runs the cores one after another."""

    def __init__(self, op: Operation, reason: str):
        super().__init__(reason)
        self.op = op
        self.reason = reason


class InterpreterWarning(UserWarning):
    """A located warning about a run (e.g. a kernel that reads the tile id but
    has no grid). Its text is the rendered diagnostic, `FILE:LINE:COL:
    warning: ...`; the run's `RunReport.warnings` holds the diagnostics."""
