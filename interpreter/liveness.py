"""Static LX estimate: the peak bytes of tensors a core keeps live at once.

On Spyre the tensors a core computes on live in its LX scratchpad. The
interpreter does not allocate them in an address space; it bounds their
footprint from the IR instead: a tensor value is live from its definition to
its last use (a use inside a region counts at the op holding the region;
values a loop or branch uses from outside stay live while its body runs),
and the estimate is the largest sum of live tensor bytes at any op,
following calls. Every path is counted, executed or not, so this is an
upper bound of what the kernel needs under this simple model.

The analysis is linear in the size of the IR: each block is swept once
(live sizes by prefix sums), nested regions report their own peak relative
to what is live around them, and each called function is analysed once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Block, Operation, SSAValue

from spyre_mlir.interpreter.dtypes import element_format
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.walk import capture_summaries


@dataclass
class LxEstimate:
    peak_bytes: int = 0
    op: Operation | None = None  # where the peak is reached
    dynamic_tensors: int = 0  # tensors of dynamic shape, not counted


def _tensor_bytes(value: SSAValue, estimate: LxEstimate) -> int:
    ty = value.type
    if not isinstance(ty, TensorType):
        return 0
    shape = ty.get_shape()
    if any(d == DYNAMIC_INDEX or d < 0 for d in shape):
        estimate.dynamic_tensors += 1
        return 0
    try:
        itemsize = element_format(ty.get_element_type()).itemsize
    except InterpreterError:
        return 0
    return math.prod(shape) * itemsize


class _Analysis:
    def __init__(self, functions: dict[str, func.FuncOp], estimate: LxEstimate):
        self.functions = functions
        self.estimate = estimate
        self.callee_peaks: dict[str, tuple[int, Operation | None]] = {}

    def function(self, func_op: func.FuncOp, active: frozenset[str]) -> tuple[int, Operation | None]:
        name = func_op.sym_name.data
        if name not in self.callee_peaks:
            self.callee_peaks[name] = (0, None)  # recursion: counted once
            captures = capture_summaries(func_op.body)
            self.callee_peaks[name] = self.block(func_op.body.blocks[0], captures, active | {name})
        return self.callee_peaks[name]

    def block(self, block: Block, captures: dict[int, dict], active: frozenset[str]) -> tuple[int, Operation | None]:
        """Peak live bytes inside `block` (not counting what is live around it), and where."""
        ops = list(block.ops)
        n = len(ops)
        defined: dict[SSAValue, int] = {a: -1 for a in block.args}
        for i, op in enumerate(ops):
            for r in op.results:
                defined[r] = i
        last = dict(defined)
        captured: list[set[SSAValue]] = []
        for i, op in enumerate(ops):
            for operand in op.operands:
                if operand in last and last[operand] < i:
                    last[operand] = i
            inner: set[SSAValue] = set()
            for region in op.regions:
                for operand in captures[id(region)]:
                    if operand in last:
                        if last[operand] < i:
                            last[operand] = i
                        inner.add(operand)
            captured.append(inner)

        delta = [0] * (n + 1)
        results = [0] * n
        dying = [0] * n  # bytes of values last used (directly) by op i and defined before it
        for v, where in defined.items():
            size = _tensor_bytes(v, self.estimate)
            if not size:
                continue
            end = last[v]
            delta[max(where, 0)] += size
            delta[end + 1] -= size
            if where >= 0:
                results[where] += size
            if where < end and v not in captured[end]:
                dying[end] += size

        peak, peak_op = 0, None
        live = 0
        for i, op in enumerate(ops):
            live += delta[i]
            if live > peak:
                peak, peak_op = live, op
            callee = None
            if isinstance(op, func.CallOp):
                name = op.callee.root_reference.data
                callee = self.functions.get(name) if name not in active else None
                if callee is not None and not callee.body.blocks:
                    callee = None
            if not op.regions and callee is None:
                continue
            during = live - results[i] - dying[i]
            for region in op.regions:
                for inner_block in region.blocks:
                    inner_peak, inner_op = self.block(inner_block, captures, active)
                    if during + inner_peak > peak:
                        peak, peak_op = during + inner_peak, inner_op
            if callee is not None:
                inner_peak, inner_op = self.function(callee, active)
                if during + inner_peak > peak:
                    peak, peak_op = during + inner_peak, inner_op
        return peak, peak_op


def estimate_lx(func_op: func.FuncOp, functions: dict[str, func.FuncOp]) -> LxEstimate:
    estimate = LxEstimate()
    if func_op.body.blocks:
        estimate.peak_bytes, estimate.op = _Analysis(functions, estimate).function(func_op, frozenset())
    return estimate
