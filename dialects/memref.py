"""`memref` ops as MLIR reads, prints and verifies them, where xDSL 0.75 differs.

- `memref.load`/`memref.store` index counts: xDSL checks that there is one
  index per dimension, but raises a plain `Exception`, so that bad input
  surfaced as an internal error ("a bug in spyre-mlir"); here the same check
  is a located verifier error with MLIR's message.
- `memref.memory_space_cast` and `memref.cast`: xDSL has them without a
  custom form; MLIR's is `%1 = memref.cast %0 : T to U`, with MLIR's
  cast-compatibility rules (`areCastCompatible`) as the verifier.

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, NoneAttr, StridedLayoutAttr, UnrankedMemRefType
from xdsl.ir import Attribute
from xdsl.irdl import base, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


def _verify_indices(op) -> None:
    # The IRDL constraints only: xDSL's own count check raises a bare Exception.
    type(op).get_irdl_definition().verify(op)
    t = op.memref.type
    if isinstance(t, MemRefType) and t.get_num_dims() != len(op.indices):
        raise VerifyException(
            f"invalid number of indices for accessed memref, expected {t.get_num_dims()} but got {len(op.indices)}"
        )


class LoadOp(memref.LoadOp):
    """`memref.load` with one index per dimension, a located error otherwise."""

    def verify_(self) -> None:
        _verify_indices(self)


class StoreOp(memref.StoreOp):
    """`memref.store` with one index per dimension, a located error otherwise."""

    def verify_(self) -> None:
        _verify_indices(self)


def _strides_and_offset(t: MemRefType) -> tuple[list[int | None], int | None] | None:
    """MLIR's `getStridesAndOffset` for the layouts xDSL can tell it of
    (identity and `strided<..>`); None for any other (not a strided layout)."""
    if not isinstance(t.layout, NoneAttr | StridedLayoutAttr):
        return None
    strides = t.get_strides()
    return (list(strides), t.get_offset()) if strides is not None else None


def _compatible(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b  # None: dynamic (`?`)


def _memref_cast_compatible(a: Attribute, b: Attribute) -> bool:
    """MLIR's `memref::CastOp::areCastCompatible`."""
    if isinstance(a, MemRefType) and isinstance(b, MemRefType):
        if a.element_type != b.element_type or a.memory_space != b.memory_space:
            return False
        if a.layout != b.layout:
            sa, sb = _strides_and_offset(a), _strides_and_offset(b)
            if sa is None or sb is None or len(sa[0]) != len(sb[0]):
                return False
            if not _compatible(sa[1], sb[1]) or not all(map(_compatible, sa[0], sb[0])):
                return False
        if a.get_num_dims() != b.get_num_dims():
            return False
        return all(x == y or x < 0 or y < 0 for x, y in zip(a.get_shape(), b.get_shape()))
    if not isinstance(a, MemRefType | UnrankedMemRefType) or not isinstance(b, MemRefType | UnrankedMemRefType):
        return False
    if isinstance(a, UnrankedMemRefType) and isinstance(b, UnrankedMemRefType):
        return False  # unranked to unranked is not a cast MLIR has
    return a.element_type == b.element_type and a.memory_space == b.memory_space


def _memory_space_cast_compatible(a: Attribute, b: Attribute) -> bool:
    """MLIR's `memref::MemorySpaceCastOp::areCastCompatible`: only the memory space may change."""
    if isinstance(a, MemRefType) and isinstance(b, MemRefType):
        return a.element_type == b.element_type and a.layout == b.layout and a.get_shape() == b.get_shape()
    if isinstance(a, UnrankedMemRefType) and isinstance(b, UnrankedMemRefType):
        return a.element_type == b.element_type
    return False


_MEMREF = base(MemRefType) | base(UnrankedMemRefType)


def _verify_cast(op, compatible) -> None:
    type(op).get_irdl_definition().verify(op)
    source, dest = op.source.type, op.dest.type
    if source != dest and not compatible(source, dest):  # MLIR accepts a cast to the same type
        raise VerifyException(f"operand type '{source}' and result type '{dest}' are cast incompatible")


@irdl_op_definition
class CastOp(memref.CastOp):
    """`memref.cast` in MLIR's form, with MLIR's compatibility rules (static
    sizes, strides and offset may become dynamic, and back)."""

    source = operand_def(_MEMREF)
    dest = result_def(_MEMREF)

    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"

    def verify_(self) -> None:
        _verify_cast(self, _memref_cast_compatible)


@irdl_op_definition
class MemorySpaceCastOp(memref.MemorySpaceCastOp):
    """`memref.memory_space_cast` in MLIR's form: a memref in another memory
    space, same shape, element type and layout."""

    source = operand_def(_MEMREF)
    dest = result_def(_MEMREF)

    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"

    def verify_(self) -> None:
        _verify_cast(self, _memory_space_cast_compatible)


@irdl_op_definition
class CopyOp(memref.CopyOp):
    """`memref.copy %src, %dst : memref<...> to memref<...>` in MLIR's form
    (xDSL reads it only generic): same shape and element type."""

    source = operand_def(_MEMREF)
    destination = operand_def(_MEMREF)
    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    assembly_format = "$source `,` $destination attr-dict `:` type($source) `to` type($destination)"


REPLACEMENTS: list[type] = [LoadOp, StoreOp, CastOp, MemorySpaceCastOp, CopyOp]
