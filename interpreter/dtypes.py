"""How each MLIR element type is held in NumPy.

An `ElementFormat` gives two dtypes: `storage`, the bytes in HBM/LX, and
`compute`, the values in tensors and scalars. They agree for every type NumPy
has. bf16 is the exception: NumPy has no bfloat16, so bf16 is stored as its
uint16 bit pattern and computed in float32, rounded back to bf16
(round-to-nearest-even) after every op (`ElementFormat.round`).

Scalars of integer types (and `index`) are Python ints, wrapped to their
width; `i1` is a Python bool; float scalars are NumPy scalars of the compute
dtype, so NumPy's scalar arithmetic rounds them like arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from spyre_mlir.interpreter.errors import InterpreterError


def round_to_bf16(values):
    """float32 values rounded to the nearest bf16 (ties to even), as float32."""
    array = np.asarray(values, dtype=np.float32)
    bits = array.view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)).view(
        np.float32
    )
    # The carry trick would turn a NaN with low payload bits into inf.
    out = np.where(np.isnan(array), array, rounded)
    return out if out.ndim else np.float32(out)


def float32_to_bf16_bits(values) -> np.ndarray:
    """The bf16 bit patterns (uint16) nearest to `values`."""
    return (np.asarray(round_to_bf16(values), dtype=np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)


def bf16_bits_to_float32(bits) -> np.ndarray:
    """float32 values of bf16 bit patterns (uint16)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


@dataclass(frozen=True)
class ElementFormat:
    """NumPy representation of one MLIR element type."""

    name: str
    storage: np.dtype
    compute: np.dtype
    kind: str  # "float" | "int" | "bool" | "index"
    width: int
    unsigned: bool = False
    round: Callable | None = None  # applied to float results (bf16 only)

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "index", "bool")

    @property
    def itemsize(self) -> int:
        """Bytes of one element in HBM and LX: the target's `element_bytes` of the type."""
        return self.storage.itemsize

    def from_storage(self, array: np.ndarray) -> np.ndarray:
        if self.round is not None:
            return bf16_bits_to_float32(array)
        return array

    def to_storage(self, array: np.ndarray) -> np.ndarray:
        if self.round is not None:
            return float32_to_bf16_bits(array)
        return array

    def scalar(self, value):
        """`value` as this type's scalar representation (see module docstring)."""
        if self.kind == "bool":
            return bool(int(value) & 1)
        if self.kind in ("int", "index"):
            return self.wrap(int(value))
        if self.round is not None:
            return self.round(np.float32(value))
        return self.compute.type(value)

    def wrap(self, value: int) -> int:
        """A Python int wrapped to this integer type's width (two's complement)."""
        if self.unsigned:
            return value & ((1 << self.width) - 1)
        half = 1 << (self.width - 1)
        return ((value + half) & ((1 << self.width) - 1)) - half

    def to_python(self, value):
        """A NumPy scalar (e.g. one element of a lane array) in scalar form."""
        if self.kind == "bool":
            return bool(value)
        if self.kind in ("int", "index"):
            return int(value)
        return self.compute.type(value)


_INT_DTYPES = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_UINT_DTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}

_FORMATS = {
    Float16Type: ElementFormat("f16", np.dtype(np.float16), np.dtype(np.float16), "float", 16),
    Float32Type: ElementFormat("f32", np.dtype(np.float32), np.dtype(np.float32), "float", 32),
    Float64Type: ElementFormat("f64", np.dtype(np.float64), np.dtype(np.float64), "float", 64),
    BFloat16Type: ElementFormat("bf16", np.dtype(np.uint16), np.dtype(np.float32), "float", 16, round=round_to_bf16),
    IndexType: ElementFormat("index", np.dtype(np.int64), np.dtype(np.int64), "index", 64),
}
"""The element types other than integers, by xDSL type class."""


@cache
def element_format(ty: Attribute) -> ElementFormat:
    """The format of an element type; InterpreterError for types we cannot hold."""
    fmt = _FORMATS.get(type(ty))
    if fmt is not None:
        return fmt
    if isinstance(ty, IntegerType):
        width = ty.width.data
        unsigned = ty.signedness.data == Signedness.UNSIGNED
        if width == 1:
            return ElementFormat("i1", np.dtype(np.bool_), np.dtype(np.bool_), "bool", 1)
        table = _UINT_DTYPES if unsigned else _INT_DTYPES
        if width not in table:
            raise InterpreterError(f"integer type {ty} is not supported (widths 1, 8, 16, 32, 64 are)")
        dtype = np.dtype(table[width])
        return ElementFormat(str(ty), dtype, dtype, "int", width, unsigned=unsigned)
    raise InterpreterError(f"element type {ty} is not supported by the interpreter")


@cache
def element_type_names() -> tuple[str, ...]:
    """MLIR's spelling of every element type the interpreter holds: `f16`,
    `f32`, `f64`, `bf16`, `index`, and `iN`, `siN`, `uiN` of each width it has."""
    types: list[Attribute] = [cls() for cls in _FORMATS]
    for width in sorted(_INT_DTYPES.keys() | _UINT_DTYPES.keys()):
        types += [IntegerType(width, signedness) for signedness in Signedness]
    names = []
    for ty in types:
        try:
            element_format(ty)
        except InterpreterError:
            continue
        names.append(str(ty))
    return tuple(names)


def element_format_named(name: str) -> ElementFormat:
    """The format of the element type MLIR spells `name` (`f16`, `bf16`,
    `index`, `i32`, `ui8`, ...); InterpreterError naming the spellings
    (`element_type_names`) if the interpreter holds no such type."""
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    try:
        ty = Parser(Context(), name).parse_type()
        if str(ty) == name:  # the whole name, in MLIR's spelling
            return element_format(ty)
    except (ParseError, InterpreterError):
        pass
    raise InterpreterError(f"unknown element type '{name}' (one of {', '.join(element_type_names())})")


def storage_matches(fmt: ElementFormat, dtype: np.dtype) -> bool:
    """Whether a host array of `dtype` holds elements of `fmt` as stored."""
    if fmt.round is not None:  # bf16: bit patterns, or ml_dtypes.bfloat16 when installed
        return dtype == np.uint16 or dtype.name == "bfloat16"
    return dtype == fmt.storage
