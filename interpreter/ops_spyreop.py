"""spyreop intrinsics, on scalars (and elementwise on the lanes of a
`linalg.generic` body), as math's are (see ops_math).

What each computes is docs/spyreop.md's: the reference definition of the
function the intrinsic's summary names, computed in a wider float and
rounded once to the result type (the hardware's own approximations are not
modelled). Integer intrinsics wrap like `arith` (i32, i64). `df16` and the
fused pair types have no NumPy representation: an intrinsic of those types
is a located "unsupported type" error. The LayerNorm and reduction helpers
(`exx2`, `layernorm*`, `slice_reduction`) have no documented arithmetic, so
the interpreter refuses them at the op rather than guess one.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable

import numpy as np
from xdsl.ir import Operation

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects import spyreop
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, lookup
from spyre_mlir.interpreter.ops_arith import binary_step, finisher, shape_checked, unary_step


def _wider(x):
    """x in a float type wide enough to round a composite function only once."""
    dtype = np.asarray(x).dtype
    return np.asarray(x, np.float64 if dtype in (np.float32, np.float64) else np.float32)


def _back(x, like):
    dtype = np.asarray(like).dtype
    out = np.asarray(x).astype(dtype)
    return out if isinstance(like, np.ndarray) else dtype.type(out)


def _once(fn: Callable) -> Callable:
    """`fn` of floats computed wider and rounded once to the operands' type."""
    return lambda *xs: _back(fn(*(_wider(x) for x in xs)), xs[0])


_erf = np.vectorize(pymath.erf, otypes=[np.float64])


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(np.asarray(x, np.float64) / np.sqrt(2.0)))


_UNARY: dict[type[Operation], Callable] = {
    spyreop.ExpOp: np.exp,
    spyreop.SqrtOp: np.sqrt,
    spyreop.RsqrtOp: _once(lambda x: 1.0 / np.sqrt(x)),
    spyreop.ReciprocalOp: _once(lambda x: 1.0 / x),
    spyreop.SigmoidOp: _once(_sigmoid),
    spyreop.SiluOp: _once(lambda x: x * _sigmoid(x)),
    spyreop.GeluOp: _once(_gelu),
}

_BINARY: dict[type[Operation], Callable] = {
    spyreop.RealDivOp: lambda a, b: a / b,
    spyreop.AddI32ToI32Op: lambda a, b: a + b,
    spyreop.AddI64ToI64Op: lambda a, b: a + b,
    spyreop.MulI32ToI32Op: lambda a, b: a * b,
}

_UNDEFINED: dict[type[Operation], str] = {
    spyreop.Exx2Op: "its mean and mean of squares are over a reduction whose extent the op does not state",
    spyreop.Exx2FusedOp: "its fused pair type has no value representation",
    spyreop.LayerNormScaleOp: "its arithmetic (the epsilon of the variance) is not documented",
    spyreop.LayerNormScaleFusedOp: "its fused pair type has no value representation",
    spyreop.LayerNormNormOp: "its arithmetic is not documented",
    spyreop.SliceReductionOp: "the size of a slice is a hardware fact the op does not state",
}


@handles(*_UNARY)
def _unary(fc: FunctionCompiler, op: Operation) -> Step:
    fc.format(op.operands[0])  # df16: a located "unsupported type" before any lane runs
    return unary_step(fc, op, lookup(_UNARY, op))


@handles(*_BINARY)
def _binary(fc: FunctionCompiler, op: Operation) -> Step:
    fc.format(op.operands[0])
    return binary_step(fc, op, lookup(_BINARY, op))


@handles(spyreop.SoftplusOp)
def _softplus(fc: FunctionCompiler, op: spyreop.SoftplusOp) -> Step:
    """PyTorch's softplus: log(1 + exp(beta x)) / beta, and x itself where beta x > threshold."""
    fc.format(op.operand)
    beta, threshold = op.beta.value.data, op.threshold.value.data

    def softplus(x):
        bx = beta * x
        return np.where(bx > threshold, x, np.log1p(np.exp(bx)) / beta)

    return unary_step(fc, op, _once(softplus))


@handles(spyreop.Idx32ToAddrOp)
def _idx32toaddr(fc: FunctionCompiler, op: spyreop.Idx32ToAddrOp) -> Step:
    i, b, s, r = (fc.slot(v) for v in (*op.operands, op.result))
    finish = finisher(fc, op.result) or (lambda x: x)
    address = shape_checked(fc, op, lambda index, base, stride: finish(base + stride * index))

    def step(frame):
        frame[r] = address(frame[i], frame[b], frame[s])

    return step


@handles(spyreop.ConstantOp)
def _constant(fc: FunctionCompiler, op: spyreop.ConstantOp) -> Step:
    value = fc.format(op.result).scalar(op.value.value.data)  # pyright: ignore[reportAttributeAccessIssue]
    r = fc.slot(op.result)

    def step(frame):
        frame[r] = value

    return step


@handles(*_UNDEFINED)
def _undefined(fc: FunctionCompiler, op: Operation) -> Step:
    raise error(op, f"the interpreter does not run '{op.name}': {lookup(_UNDEFINED, op)} (docs/spyreop.md)")
