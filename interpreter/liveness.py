"""Static LX estimate of a kernel: the peak bytes of tensors a core keeps live at once.

The interpreter does not allocate tensors in an address space; it bounds their
footprint from the IR with the one liveness analysis
(`spyre_mlir.analysis.liveness.peak_live_bytes`): every path counted, executed
or not, calls followed, so this is an upper bound of what the kernel needs
under that model. A tensor is sized by the element format the interpreter
holds it in; one of dynamic shape is not counted (`dynamic_tensors` says how
many), nor one of an element type the interpreter cannot hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, SSAValue

from spyre_mlir.analysis.liveness import peak_live_bytes
from spyre_mlir.interpreter.dtypes import element_format
from spyre_mlir.interpreter.errors import InterpreterError


@dataclass
class LxEstimate:
    peak_bytes: int = 0
    op: Operation | None = None  # where the peak is reached
    dynamic_tensors: int = 0  # tensors of dynamic shape, not counted


def estimate_lx(func_op: func.FuncOp, functions: dict[str, func.FuncOp]) -> LxEstimate:
    estimate = LxEstimate()

    def size_of(value: SSAValue) -> int:
        ty = value.type
        if not isinstance(ty, TensorType):
            return 0
        shape = ty.get_shape()
        if any(d == DYNAMIC_INDEX or d < 0 for d in shape):
            estimate.dynamic_tensors += 1
            return 0
        try:
            return math.prod(shape) * element_format(ty.get_element_type()).itemsize
        except InterpreterError:
            return 0

    estimate.peak_bytes, estimate.op = peak_live_bytes(func_op, functions, size_of)
    return estimate
