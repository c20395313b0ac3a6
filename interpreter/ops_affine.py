"""affine ops on index values: `affine.apply` and `affine.min` (maps evaluated by affine_eval)."""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce

import numpy as np
from xdsl.dialects import affine
from xdsl.ir import Operation

from spyre_mlir.interpreter.affine_eval import compile_map
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles
from spyre_mlir.interpreter.ops_arith import index_value


@handles(affine.ApplyOp, affine.MinOp)
def _affine(fc: FunctionCompiler, op: Operation) -> Step:
    amap = op.properties["map"].data
    fn = compile_map(amap)
    nd = amap.num_dims
    operands = tuple(fc.slot(v) for v in op.operands)
    r = fc.slot(op.results[0])
    combine: Callable
    if isinstance(op, affine.ApplyOp):

        def combine(results):
            return results[0]

    else:  # affine.min (xDSL 0.75 has no affine.max)

        def combine(results):
            if any(isinstance(x, np.ndarray) for x in results):
                return reduce(np.minimum, results)
            return min(results)

    varying = fc.is_varying(op.results[0])

    def step(frame):
        values = [frame[s] for s in operands]
        result = combine(fn(values[:nd], values[nd:]))
        if not isinstance(result, np.ndarray):
            result = index_value(result)  # index arithmetic wraps at 64 bits
        if varying and not isinstance(result, np.ndarray):  # the map ignored the varying operands
            result = np.full(frame[0].count, result, np.int64)
        frame[r] = result

    return step
