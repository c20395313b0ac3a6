"""arith ops, on scalars and (elementwise) on tensors.

Every op is one NumPy call on whatever its operands are: Python ints, NumPy
float scalars, lane arrays or tensors. NumPy's float16 arithmetic rounds
each result to f16; bf16 results are rounded explicitly (see `dtypes`).
Integer scalars are Python ints and are wrapped to their width after each op;
integer arrays wrap in their NumPy dtype.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from spyre_mlir.dialects.arith import IndexCastUIOp, RemFOp
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles, lookup, not_executable, registered_class
from spyre_mlir.interpreter.dtypes import ElementFormat
from spyre_mlir.interpreter.errors import InterpreterError

# ---------------------------------------------------------------------------
# Result normalization
# ---------------------------------------------------------------------------


def finisher(fc: FunctionCompiler, result: SSAValue) -> Callable | None:
    """What to apply to a raw NumPy/Python result so that it has the
    representation of `result`'s type: bf16 rounding for floats, Python ints
    wrapped to width for plain integer scalars. None when nothing is needed."""
    fmt = fc.format(result)
    plain_scalar = not isinstance(result.type, TensorType) and not fc.is_varying(result) and fc.body_depth == 0
    if fmt.round is not None:
        return fmt.round
    if not plain_scalar:
        return None
    if fmt.kind == "bool":
        return bool
    if fmt.kind == "index":
        return index_value
    if fmt.kind == "int":
        wrap = fmt.wrap
        return lambda x: wrap(int(x))
    return None


_INDEX_MIN, _INDEX_MAX = -(1 << 63), (1 << 63) - 1


def index_value(x) -> int:
    """An `index` result as a Python int, wrapped at 64 bits like index arithmetic."""
    x = int(x)
    if _INDEX_MIN <= x <= _INDEX_MAX:
        return x
    return ((x - _INDEX_MIN) & ((1 << 64) - 1)) + _INDEX_MIN


def unary_step(fc: FunctionCompiler, op: Operation, fn: Callable) -> Step:
    a, r = fc.slot(op.operands[0]), fc.slot(op.results[0])
    finish = finisher(fc, op.results[0])
    if finish is None:

        def step(frame):
            frame[r] = fn(frame[a])

    else:

        def step(frame):
            frame[r] = finish(fn(frame[a]))

    return step


def _has_dynamic_tensor(values) -> bool:
    return any(isinstance(v.type, TensorType) and any(d < 0 for d in v.type.get_shape()) for v in values)


def shape_checked(fc: FunctionCompiler, op: Operation, fn: Callable, operands=None) -> Callable:
    """`fn`, refusing tensor operands whose run-time shapes differ (possible only
    with dynamic dims: the verifier has checked static ones)."""
    operands = list(op.operands if operands is None else operands)
    if not _has_dynamic_tensor(operands):
        return fn
    leads = [1 if fc.is_varying(v) else 0 for v in operands]
    tensors = [isinstance(v.type, TensorType) for v in operands]

    def checked(*args):
        shapes = {np.shape(x)[lead:] for x, lead, t in zip(args, leads, tensors) if t}
        if len(shapes) > 1:
            listed = " and ".join("x".join(map(str, sh)) or "scalar" for sh in sorted(shapes))
            raise InterpreterError(f"operands of '{op.name}' have different shapes at run time: {listed}")
        return fn(*args)

    return checked


def binary_step(fc: FunctionCompiler, op: Operation, fn: Callable) -> Step:
    a, b, r = fc.slot(op.operands[0]), fc.slot(op.operands[1]), fc.slot(op.results[0])
    finish = finisher(fc, op.results[0])
    fn = shape_checked(fc, op, fn)
    if finish is None:

        def step(frame):
            frame[r] = fn(frame[a], frame[b])

    else:

        def step(frame):
            frame[r] = finish(fn(frame[a], frame[b]))

    return step


# ---------------------------------------------------------------------------
# Integer helpers (Python ints or NumPy integer arrays)
# ---------------------------------------------------------------------------


def is_array(x) -> bool:
    return isinstance(x, np.ndarray | np.generic)


def as_unsigned(x, fmt: ElementFormat):
    """An integer value reinterpreted as unsigned of its width: arrays as NumPy unsigned (i1 as uint8), Python ints masked."""
    if is_array(x):
        x = np.asarray(x)
        if fmt.kind == "bool":
            return x.astype(np.uint8)
        return x.view(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.kind == "i" else x
    return int(x) & ((1 << fmt.width) - 1)


def _signed(x, fmt: ElementFormat):
    if is_array(x):
        x = np.asarray(x)
        return x.view(fmt.compute) if x.dtype.kind == "u" and fmt.kind != "bool" and not fmt.unsigned else x
    return fmt.wrap(int(x))


def _check_divisor(b) -> None:
    if (np.asarray(b) == 0).any():
        raise InterpreterError("integer division by zero")


def _check_signed_overflow(a, b, fmt: ElementFormat, op: str) -> None:
    """INT_MIN / -1 overflows: undefined behavior for divsi, floordivsi, ceildivsi
    and (as LLVM's srem it lowers to) remsi."""
    if fmt.kind == "bool" or fmt.unsigned:
        return
    least = -(1 << (fmt.width - 1))
    if ((np.asarray(a) == least) & (np.asarray(b) == -1)).any():
        raise InterpreterError(
            f"signed division overflow in {op}: {least} / -1 does not fit in {fmt.name} (undefined behavior in MLIR)"
        )


def _divsi(a, b):
    if is_array(a) or is_array(b):
        a, b = np.asarray(a), np.asarray(b)
        q = a // b
        return q + ((a % b != 0) & ((a < 0) != (b < 0)))
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _remsi(a, b):
    if is_array(a) or is_array(b):
        return np.fmod(a, b)
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _floordivsi(a, b):
    return a // b


def _ceildivsi(a, b):
    return -((-a) // b)


def _signed_division(fmt: ElementFormat, fn: Callable, op: str) -> Callable:
    def apply(a, b):
        _check_divisor(b)
        _check_signed_overflow(a, b, fmt, op)
        return fn(a, b)

    return apply


_OVERFLOW_CHECKED: dict[type[Operation], str] = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.ShLIOp: "<<"}


def _exact(a, b, symbol: str):
    """The mathematically exact result of `a symbol b` on Python ints (object arrays for arrays)."""
    if is_array(a) or is_array(b):
        a, b = np.asarray(a).astype(object), np.asarray(b).astype(object)
    if symbol == "+":
        return a + b
    if symbol == "-":
        return a - b
    if symbol == "*":
        return a * b
    return a * (2**b) if not isinstance(b, np.ndarray) else a * np.vectorize(lambda k: 2**int(k), otypes=[object])(b)


def _overflow_checked(fmt: ElementFormat, fn: Callable, symbol: str, nsw: bool, nuw: bool, op: str) -> Callable:
    """`fn`, with MLIR's `overflow<nsw|nuw>` flags: a result that wraps is poison, an error here."""
    bits = fmt.width
    lo_s, hi_s = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    hi_u = (1 << bits) - 1

    def apply(a, b):
        if symbol == "<<":
            _shift_amount(b, fmt)
        if nsw:
            exact = _exact(_signed(a, fmt), _signed(b, fmt) if symbol != "<<" else as_unsigned(b, fmt), symbol)
            if (np.asarray(exact < lo_s) | np.asarray(exact > hi_s)).any():
                raise InterpreterError(f"signed overflow in {op} with overflow<nsw> (poison in MLIR)")
        if nuw:
            exact = _exact(as_unsigned(a, fmt), as_unsigned(b, fmt), symbol)
            if (np.asarray(exact < 0) | np.asarray(exact > hi_u)).any():
                raise InterpreterError(f"unsigned overflow in {op} with overflow<nuw> (poison in MLIR)")
        return fn(a, b)

    return apply


def _unsigned_binary(fmt: ElementFormat, fn: Callable) -> Callable:
    def apply(a, b):
        return _signed(fn(as_unsigned(a, fmt), as_unsigned(b, fmt)), fmt)

    return apply


def _udiv(a, b):
    _check_divisor(b)
    return a // b


def _urem(a, b):
    _check_divisor(b)
    return a % b


def _uceildiv(a, b):
    _check_divisor(b)
    return a // b + (a % b != 0)


def _shift_amount(b, fmt: ElementFormat) -> None:
    amount = np.asarray(b)
    if ((amount < 0) | (amount >= fmt.width)).any():
        raise InterpreterError(f"shift amount out of range for {fmt.name} (poison in MLIR)")


# ---------------------------------------------------------------------------
# arith
# ---------------------------------------------------------------------------

_FLOAT_BINARY: dict[type[Operation], Callable] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    RemFOp: np.fmod,
    arith.MaximumfOp: np.maximum,  # NaN-propagating
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,  # prefers the non-NaN operand
    arith.MinnumfOp: np.fmin,
}


@handles(*_FLOAT_BINARY)
def _float_binary(fc: FunctionCompiler, op: Operation) -> Step:
    return binary_step(fc, op, lookup(_FLOAT_BINARY, op))


@handles(arith.NegfOp)
def _negf(fc: FunctionCompiler, op: Operation) -> Step:
    return unary_step(fc, op, np.negative)


@handles(
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    arith.DivSIOp,
    arith.RemSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
    arith.CeilDivUIOp,
    arith.MaxUIOp,
    arith.MinUIOp,
    arith.ShLIOp,
    arith.ShRSIOp,
    arith.ShRUIOp,
)
def _int_binary(fc: FunctionCompiler, op: Operation) -> Step:
    fmt = fc.format(op.results[0])

    def shli(a, b):
        _shift_amount(b, fmt)
        return a << b

    def shrsi(a, b):
        _shift_amount(b, fmt)
        return a >> b

    def shrui(a, b):
        _shift_amount(b, fmt)
        return _signed(as_unsigned(a, fmt) >> as_unsigned(b, fmt), fmt)

    fns: dict[type[Operation], Callable] = {
        arith.AddiOp: lambda a, b: a + b,
        arith.SubiOp: lambda a, b: a - b,
        arith.MuliOp: lambda a, b: a * b,
        arith.AndIOp: lambda a, b: a & b,
        arith.OrIOp: lambda a, b: a | b,
        arith.XOrIOp: lambda a, b: a ^ b,
        arith.MaxSIOp: lambda a, b: np.maximum(a, b) if is_array(a) or is_array(b) else max(a, b),
        arith.MinSIOp: lambda a, b: np.minimum(a, b) if is_array(a) or is_array(b) else min(a, b),
        arith.DivSIOp: _signed_division(fmt, _divsi, "arith.divsi"),
        arith.RemSIOp: _signed_division(fmt, _remsi, "arith.remsi"),
        arith.FloorDivSIOp: _signed_division(fmt, _floordivsi, "arith.floordivsi"),
        arith.CeilDivSIOp: _signed_division(fmt, _ceildivsi, "arith.ceildivsi"),
        arith.DivUIOp: _unsigned_binary(fmt, _udiv),
        arith.RemUIOp: _unsigned_binary(fmt, _urem),
        arith.CeilDivUIOp: _unsigned_binary(fmt, _uceildiv),
        arith.MaxUIOp: _unsigned_binary(fmt, np.maximum),
        arith.MinUIOp: _unsigned_binary(fmt, np.minimum),
        arith.ShLIOp: shli,
        arith.ShRSIOp: shrsi,
        arith.ShRUIOp: shrui,
    }
    if fmt.kind == "bool":  # i1 arithmetic is modulo 2
        fns[arith.AddiOp] = fns[arith.SubiOp] = fns[arith.XOrIOp]
        fns[arith.MuliOp] = fns[arith.AndIOp]
    fn = lookup(fns, op)
    flags = op.properties.get("overflowFlags")
    flag_names = {str(getattr(f, "value", f)) for f in getattr(flags, "data", ())}
    nsw, nuw = "nsw" in flag_names, "nuw" in flag_names
    symbol = _OVERFLOW_CHECKED.get(registered_class(type(op), _OVERFLOW_CHECKED))
    if (nsw or nuw) and symbol is not None and fmt.kind != "bool":
        fn = _overflow_checked(fmt, fn, symbol, nsw, nuw, op.name)
    return binary_step(fc, op, fn)


_CMPI = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
}


@handles(arith.CmpiOp)
def _cmpi(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, arith.CmpiOp)
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    if predicate in _CMPI:
        return binary_step(fc, op, _CMPI[predicate])
    fmt = fc.format(op.lhs)
    compare = _CMPI["s" + predicate[1:]]
    return binary_step(fc, op, lambda a, b: compare(as_unsigned(a, fmt), as_unsigned(b, fmt)))


_CMPF: dict[str, Callable] = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    "oeq": lambda a, b: np.equal(a, b),
    "ogt": lambda a, b: np.greater(a, b),
    "oge": lambda a, b: np.greater_equal(a, b),
    "olt": lambda a, b: np.less(a, b),
    "ole": lambda a, b: np.less_equal(a, b),
    "one": lambda a, b: np.not_equal(a, b) & ~np.isnan(a) & ~np.isnan(b),
    "ord": lambda a, b: ~np.isnan(a) & ~np.isnan(b),
    "ueq": lambda a, b: np.equal(a, b) | np.isnan(a) | np.isnan(b),
    "ugt": lambda a, b: ~np.less_equal(a, b),
    "uge": lambda a, b: ~np.less(a, b),
    "ult": lambda a, b: ~np.greater_equal(a, b),
    "ule": lambda a, b: ~np.greater(a, b),
    "une": lambda a, b: np.not_equal(a, b),
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}


@handles(arith.CmpfOp)
def _cmpf(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, arith.CmpfOp)
    return binary_step(fc, op, _CMPF[arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]])


@handles(arith.SelectOp)
def _select(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, arith.SelectOp)
    c, a, b, r = fc.slot(op.cond), fc.slot(op.lhs), fc.slot(op.rhs), fc.slot(op.result)
    result_is_tensor = isinstance(op.result.type, TensorType)
    scalar_cond = not isinstance(op.cond.type, TensorType)
    if scalar_cond and not fc.is_varying(op.cond) and fc.body_depth == 0:
        # One of the operands may be varying and the other not: the result must be varying either way.
        fix_a = fc.lanes_of(op.lhs) if fc.is_varying(op.result) and not fc.is_varying(op.lhs) else None
        fix_b = fc.lanes_of(op.rhs) if fc.is_varying(op.result) and not fc.is_varying(op.rhs) else None
        if fix_a is None and fix_b is None:

            def step(frame):
                frame[r] = frame[a] if frame[c] else frame[b]

        else:

            def step(frame):
                chosen, fix = (frame[a], fix_a) if frame[c] else (frame[b], fix_b)
                frame[r] = chosen if fix is None else fix(chosen, frame[0].count)

        return step
    if scalar_cond and result_is_tensor:  # one condition per lane, selecting whole tensors
        rank = len(op.result.type.get_shape())

        def step(frame):
            cond = frame[c]
            frame[r] = np.where(cond.reshape(cond.shape + (1,) * rank), frame[a], frame[b])

        return step

    where = shape_checked(fc, op, np.where)

    def step(frame):
        frame[r] = where(frame[c], frame[a], frame[b])

    return step


# -- casts -------------------------------------------------------------------


def _to_float(fmt: ElementFormat) -> Callable:
    dtype, rnd = fmt.compute, fmt.round

    def convert(x):
        y = x.astype(dtype) if isinstance(x, np.ndarray) else dtype.type(x)
        return rnd(y) if rnd is not None else y

    return convert


def _to_int(src: ElementFormat, dst: ElementFormat, zero_extend: bool) -> Callable:
    dtype = dst.compute

    def convert(x):
        if zero_extend:
            x = as_unsigned(x, src)
        if isinstance(x, np.ndarray):
            return x.astype(dtype)
        return dst.scalar(x)

    return convert


def _fp_to_int(src: ElementFormat, dst: ElementFormat, unsigned: bool) -> Callable:
    lo = 0 if unsigned else -(1 << (dst.width - 1))
    hi = (1 << dst.width) - 1 if unsigned else (1 << (dst.width - 1)) - 1
    dtype = np.dtype(f"u{dst.compute.itemsize}") if unsigned and dst.kind != "bool" else dst.compute

    def convert(x):
        t = np.trunc(np.asarray(x, dtype=np.float64))
        if not np.isfinite(t).all() or (t < lo).any() or (t > hi).any():
            raise InterpreterError(f"float to {dst.name} conversion out of range (poison in MLIR)")
        if isinstance(x, np.ndarray):
            return t.astype(dtype).view(dst.compute) if dtype != dst.compute else t.astype(dtype)
        return dst.scalar(int(t))

    return convert


_CASTS: dict[type[Operation], str] = {
    arith.ExtFOp: "to float",
    arith.TruncFOp: "to float",
    arith.SIToFPOp: "to float",
    arith.UIToFPOp: "unsigned to float",
    arith.FPToSIOp: "to signed",
    arith.FPToUIOp: "to unsigned",
    arith.ExtSIOp: "sign-extend or truncate",
    arith.TruncIOp: "sign-extend or truncate",
    arith.IndexCastOp: "sign-extend or truncate",
    arith.ExtUIOp: "zero-extend or truncate",
    IndexCastUIOp: "zero-extend or truncate",
    arith.BitcastOp: "bits",
}


@handles(*_CASTS)
def _cast(fc: FunctionCompiler, op: Operation) -> Step:
    src, dst = fc.format(op.operands[0]), fc.format(op.results[0])
    match lookup(_CASTS, op):
        case "to float":
            fn = _to_float(dst)
        case "unsigned to float":
            to_float = _to_float(dst)

            def fn(x):
                return to_float(as_unsigned(x, src))

        case "to signed" | "to unsigned" as kind:
            fn = _fp_to_int(src, dst, kind == "to unsigned")
        case "sign-extend or truncate":
            fn = _to_int(src, dst, zero_extend=False)
        case "zero-extend or truncate":
            fn = _to_int(src, dst, zero_extend=True)
        case _:
            fn = _bitcast(src, dst)
    return unary_step(fc, op, fn)


def _bitcast(src: ElementFormat, dst: ElementFormat) -> Callable:
    if src.itemsize != dst.itemsize:
        raise InterpreterError(f"bitcast between types of different widths ({src.name} to {dst.name})")

    def convert(x):
        raw = src.to_storage(np.asarray(x, dtype=src.compute))
        out = dst.from_storage(np.array(raw).view(dst.storage))
        if isinstance(x, np.ndarray):
            return out
        return dst.scalar(out[()]) if dst.is_integer else dst.compute.type(out[()])

    return convert


# -- constants ---------------------------------------------------------------


def constant_value(fmt: ElementFormat, attr, result_type):
    """The run-time value of an `arith.constant` attribute."""
    if isinstance(attr, IntegerAttr | FloatAttr) and not isinstance(result_type, TensorType):
        return fmt.scalar(attr.value.data)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        shape = tuple(result_type.get_shape())
        raw = attr.data.data
        if fmt.kind == "bool":
            values = np.frombuffer(raw, np.uint8) != 0
        else:
            values = fmt.from_storage(np.frombuffer(raw, fmt.storage))
        count = int(np.prod(shape, dtype=np.int64))
        if values.size == 1 and count != 1:
            values = np.broadcast_to(values.reshape(()), shape)
        elif values.size != count:
            raise InterpreterError(f"dense constant has {values.size} elements for shape {shape}")
        array = np.array(values.reshape(shape), dtype=fmt.compute)
        array.flags.writeable = False
        return array
    raise InterpreterError(f"constant attribute {attr} is not supported by the interpreter")


@handles(arith.ConstantOp)
def _constant(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, arith.ConstantOp)
    value = constant_value(fc.format(op.result), op.value, op.result.type)
    r = fc.slot(op.result)

    def step(frame):
        frame[r] = value

    return step


_EXTENDED = "not implemented: its two results (low and high halves) are not modelled"
not_executable({arith.AddUIExtendedOp: _EXTENDED, arith.MulUIExtendedOp: _EXTENDED, arith.MulSIExtendedOp: _EXTENDED})
