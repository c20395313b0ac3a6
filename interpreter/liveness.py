"""Static LX estimate: the peak bytes of tensors a core keeps live at once.

On Spyre the tensors a core computes on live in its LX scratchpad. The
interpreter does not allocate them in an address space; it bounds their
footprint from the IR instead: a tensor value is live from its definition to
its last use (a use inside a region counts at the op holding the region;
values a loop or branch uses from outside stay live while its body runs),
and the estimate is the largest sum of live tensor bytes at any op,
following calls. Every path is counted, executed or not, so this is an
upper bound of what the kernel needs under this simple model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Block, Operation, SSAValue

from spyre_mlir.interpreter.dtypes import element_format
from spyre_mlir.interpreter.errors import InterpreterError


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
    return int(np.prod(shape, dtype=np.int64)) * itemsize


def estimate_lx(func_op: func.FuncOp, functions: dict[str, func.FuncOp]) -> LxEstimate:
    estimate = LxEstimate()
    if func_op.body.blocks:
        _block(func_op.body.blocks[0], 0, estimate, functions, {func_op.sym_name.data})
    return estimate


def _block(block: Block, outer: int, estimate: LxEstimate, functions, active: set[str]) -> None:
    ops = list(block.ops)
    defined: dict[SSAValue, int] = {a: -1 for a in block.args}
    for i, op in enumerate(ops):
        for r in op.results:
            defined[r] = i
    last = dict(defined)
    captured: list[set[SSAValue]] = []
    for i, op in enumerate(ops):
        inner: set[SSAValue] = set()
        for operand in op.operands:
            if operand in last:
                last[operand] = max(last[operand], i)
        for nested in op.walk():
            if nested is op:
                continue
            for operand in nested.operands:
                if operand in last:
                    last[operand] = max(last[operand], i)
                    inner.add(operand)
        captured.append(inner)
    size = {v: _tensor_bytes(v, estimate) for v in defined}

    for i, op in enumerate(ops):
        live = outer + sum(b for v, b in size.items() if b and defined[v] <= i <= last[v])
        if live > estimate.peak_bytes:
            estimate.peak_bytes, estimate.op = live, op
        callee = None
        if isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            callee = functions.get(name) if name not in active else None
        if not op.regions and callee is None:
            continue
        during = outer + sum(
            b
            for v, b in size.items()
            if b and defined[v] < i and (last[v] > i or (last[v] == i and v in captured[i]))
        )
        for region in op.regions:
            for inner_block in region.blocks:
                _block(inner_block, during, estimate, functions, active)
        if callee is not None and callee.body.blocks:
            _block(callee.body.blocks[0], during, estimate, functions, active | {name})
