"""math ops, on scalars and (elementwise) on tensors, as arith's are (see ops_arith).

Results are NumPy's (its float16 functions compute in f32 and round);
`rsqrt`, `fma` and `fpowi` compute in a wider type and round once.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable

import numpy as np
from xdsl.dialects import math
from xdsl.ir import Operation

from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, lookup
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.ops_arith import as_unsigned, binary_step, finisher, is_array, shape_checked, unary_step

_MATH_UNARY: dict[type[Operation], Callable] = {
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SqrtOp: np.sqrt,
    math.CbrtOp: np.cbrt,
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.AsinOp: np.arcsin,
    math.AcosOp: np.arccos,
    math.AtanOp: np.arctan,
    math.SinhOp: np.sinh,
    math.CoshOp: np.cosh,
    math.TanhOp: np.tanh,
    math.AsinhOp: np.arcsinh,
    math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
    math.AbsFOp: np.abs,
    math.CeilOp: np.ceil,
    math.FloorOp: np.floor,
    math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint,
}

_MATH_BINARY: dict[type[Operation], Callable] = {
    math.PowFOp: np.power,
    math.Atan2Op: np.arctan2,
    math.CopySignOp: np.copysign,
}


def _wider(x):
    """x in a float type wide enough to round a composite op only once."""
    dtype = np.asarray(x).dtype
    return np.asarray(x, np.float64 if dtype == np.float32 or dtype == np.float64 else np.float32)


def _back(x, like):
    dtype = np.asarray(like).dtype
    out = np.asarray(x).astype(dtype)
    return out if isinstance(like, np.ndarray) else dtype.type(out)


def _rsqrt(x):
    return _back(1.0 / np.sqrt(_wider(x)), x)


def _round_half_away(x):
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0).astype(np.asarray(x).dtype)


_erf = np.vectorize(pymath.erf, otypes=[np.float64])


def _erf_fn(x):
    return _back(_erf(np.asarray(x, np.float64)), x)


_MATH_UNARY.update({math.RsqrtOp: _rsqrt, math.RoundOp: _round_half_away, math.ErfOp: _erf_fn})


@handles(*_MATH_UNARY)
def _math_unary(fc: FunctionCompiler, op: Operation) -> Step:
    return unary_step(fc, op, lookup(_MATH_UNARY, op))


@handles(*_MATH_BINARY)
def _math_binary(fc: FunctionCompiler, op: Operation) -> Step:
    return binary_step(fc, op, lookup(_MATH_BINARY, op))


@handles(math.FPowIOp)
def _fpowi(fc: FunctionCompiler, op: Operation) -> Step:
    return binary_step(fc, op, lambda x, n: _back(np.power(_wider(x), np.asarray(n, np.float64)), x))


@handles(math.FmaOp)
def _fma(fc: FunctionCompiler, op: Operation) -> Step:
    a, b, c, r = (fc.slot(v) for v in (*op.operands, op.results[0]))
    finish = finisher(fc, op.results[0]) or (lambda x: x)

    fma = shape_checked(fc, op, lambda x, y, z: finish(_back(_wider(x) * _wider(y) + _wider(z), x)))

    def step(frame):
        frame[r] = fma(frame[a], frame[b], frame[c])

    return step


@handles(math.AbsIOp)
def _absi(fc: FunctionCompiler, op: Operation) -> Step:
    return unary_step(fc, op, lambda x: np.abs(x) if is_array(x) else abs(x))


@handles(math.IPowIOp)
def _ipowi(fc: FunctionCompiler, op: Operation) -> Step:
    modulus = 1 << fc.format(op.results[0]).width

    def ipow(a, b):
        if (np.asarray(b) < 0).any():
            raise InterpreterError("math.ipowi with a negative exponent")
        if is_array(a) or is_array(b):
            return np.power(a, b)  # repeated squaring, wrapping at the width
        return pow(a, b, modulus)  # wrapped to the signed range by the finisher

    return binary_step(fc, op, ipow)


_BIT_COUNTS: dict[type[Operation], str] = {
    math.CtPopOp: "ctpop",
    math.CountLeadingZerosOp: "ctlz",
    math.CountTrailingZerosOp: "cttz",
}


@handles(*_BIT_COUNTS)
def _bit_count(fc: FunctionCompiler, op: Operation) -> Step:
    fmt = fc.format(op.results[0])
    width = fmt.width
    kind = lookup(_BIT_COUNTS, op)

    def count(v: int) -> int:
        v &= (1 << width) - 1
        if kind == "ctpop":
            return bin(v).count("1")
        if kind == "ctlz":
            return width - v.bit_length()
        return width if v == 0 else (v & -v).bit_length() - 1

    def bit_length(u: np.ndarray) -> np.ndarray:
        """Bits needed for each unsigned value, by binary search (vectorized, no Python loop per element)."""
        u = u.astype(np.uint64)
        length = np.zeros(u.shape, np.int64)
        for shift in (32, 16, 8, 4, 2, 1):
            high = u >= np.uint64(1 << shift)
            length += np.where(high, shift, 0)
            u = np.where(high, u >> np.uint64(shift), u)
        return length + (u > 0)

    def vectorized(x):
        u = as_unsigned(np.asarray(x), fmt)
        if kind == "ctpop":
            out = np.bitwise_count(u)
        elif kind == "ctlz":
            out = width - bit_length(u)
        else:
            u64 = u.astype(np.uint64)
            lowest = u64 & (~u64 + np.uint64(1))
            out = np.where(u64 == 0, width, bit_length(lowest) - 1)
        return np.asarray(out).astype(fmt.compute)

    return unary_step(fc, op, lambda x: vectorized(x) if is_array(x) else count(int(x)))
