"""`tensor` verifiers that upstream MLIR has and xDSL 0.75 lacks.

xDSL accepted, and the interpreter then crashed on or silently misread:
an `extract`/`insert` with the wrong number of indices, a slice out of the
bounds of its source or with a result type that does not match its sizes,
a `collapse_shape` whose group sizes do not multiply to the result's, an
`expand_shape` whose `output_shape` contradicts its result type, a
`from_elements` with the wrong element count, a `tensor.empty` with the
wrong number of dynamic sizes. Each check here is MLIR's
(mlir/lib/Dialect/Tensor/IR/TensorOps.cpp, ViewLikeInterface.cpp,
ReshapeOpsUtils.cpp), with MLIR's message, in MLIR's order.

`expand_shape` also accepts what MLIR accepts and xDSL's verifier refused:
an expansion of a rank-0 tensor (`[] output_shape [1, 1]`).

Ops here subclass xDSL's and replace them in xDSL's dialect under the same
name (`REPLACEMENTS`, swapped in by `spyre_mlir.ir`). Candidates to upstream
to xDSL; see third_party/README.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IndexType, IntegerAttr, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.diagnostics import RegionVerifyException


def _shape(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)  # guaranteed by the op's IRDL constraints
    return tuple(t.get_shape())


def _dynamic(n: int) -> bool:
    return n == DYNAMIC_INDEX


def _type_str(shape: Sequence[int], element: Attribute) -> str:
    return str(TensorType(element, list(shape)))


class ExtractOp(tensor.ExtractOp):
    """`tensor.extract` with MLIR's index count check."""

    def verify_(self) -> None:
        super().verify_()
        if len(self.indices) != len(_shape(self.tensor.type)):
            raise VerifyException("incorrect number of indices for extract_element")


class InsertOp(tensor.InsertOp):
    """`tensor.insert` with MLIR's index count check."""

    def verify_(self) -> None:
        super().verify_()
        if len(self.indices) != len(_shape(self.dest.type)):
            raise VerifyException("incorrect number of indices")


# ---------------------------------------------------------------------------
# extract_slice / insert_slice
# ---------------------------------------------------------------------------


def _verify_offsets_sizes_strides(op, rank: int) -> None:
    """MLIR's OffsetSizeAndStrideOpInterface verifier: the three static
    lists have one entry per dimension of the sliced tensor, and static
    offsets and sizes are non-negative."""
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    if len(offsets) != len(sizes):
        raise VerifyException(
            f"expected mixed offsets rank to match mixed sizes rank ({len(offsets)} vs {len(sizes)}) "
            "so the rank of the result type is well-formed."
        )
    if len(sizes) != len(strides):
        raise VerifyException(
            f"expected mixed sizes rank to match mixed strides rank ({len(sizes)} vs {len(strides)}) "
            "so the rank of the result type is well-formed."
        )
    for name, values in (("offset", offsets), ("size", sizes), ("stride", strides)):
        if len(values) != rank:
            raise VerifyException(f"expected {rank} {name} values, got {len(values)}")
    for name, values in (("offsets", offsets), ("sizes", sizes)):
        for v in values:
            if v < 0 and not _dynamic(v):
                raise VerifyException(f"expected {name} to be non-negative, but got {v}")


def _rank_reduction_fits(original: Sequence[int], reduced: Sequence[int]) -> bool:
    """MLIR's `computeRankReductionMask` (exact sizes): `reduced` is
    `original` with some size-1 dimensions dropped."""
    j = 0
    for size in original:
        if j < len(reduced) and size == reduced[j]:
            j += 1
        elif size != 1:
            return False
    return j == len(reduced)


def _verify_slice_type(expected: Sequence[int], element: Attribute, candidate: Attribute) -> None:
    """MLIR's `isRankReducedType` + `produceSliceErrorMsg`: `candidate` is the
    slice type (sizes `expected`), or it with unit dimensions dropped."""
    assert isinstance(candidate, TensorType)
    got = _shape(candidate)
    if len(got) > len(expected):
        raise VerifyException("expected rank to be smaller or equal to the other rank. ")
    if not _rank_reduction_fits(expected, got):
        raise VerifyException(
            f"expected type to be '{_type_str(expected, element)}' or a rank-reduced version. (size mismatch) "
        )
    if candidate.get_element_type() != element:
        raise VerifyException(f"expected element type to be '{element}'")


def _verify_in_bounds(shape: Sequence[int], offsets, sizes, strides) -> None:
    """MLIR's `verifyInBoundsSlice`, on the static entries."""
    for i, dim in enumerate(shape):
        if _dynamic(dim) or _dynamic(offsets[i]):
            continue
        if offsets[i] >= dim:
            raise VerifyException(f"offset {i} is out-of-bounds: {offsets[i]} >= {dim}")
        if _dynamic(sizes[i]) or _dynamic(strides[i]):
            continue
        last = offsets[i] + (sizes[i] - 1) * strides[i]
        if last >= dim:
            raise VerifyException(f"slice along dimension {i} runs out-of-bounds: {last} >= {dim}")


def _verify_slice(op, whole: Attribute, part: Attribute) -> None:
    """`part` is the slice of `whole` that `op`'s offsets, sizes and strides
    select (extract_slice: source and result; insert_slice: dest and source)."""
    assert isinstance(whole, TensorType)
    shape = _shape(whole)
    _verify_offsets_sizes_strides(op, len(shape))
    sizes = op.static_sizes.get_values()
    _verify_slice_type(sizes, whole.get_element_type(), part)
    _verify_in_bounds(shape, op.static_offsets.get_values(), sizes, op.static_strides.get_values())


class ExtractSliceOp(tensor.ExtractSliceOp):
    """`tensor.extract_slice` with MLIR's rank, result type and bounds checks."""

    def verify_(self) -> None:
        super().verify_()
        _verify_slice(self, self.source.type, self.result.type)


class InsertSliceOp(tensor.InsertSliceOp):
    """`tensor.insert_slice` with MLIR's rank, source type and bounds checks."""

    def verify_(self) -> None:
        super().verify_()
        _verify_slice(self, self.dest.type, self.source.type)


# ---------------------------------------------------------------------------
# collapse_shape / expand_shape
# ---------------------------------------------------------------------------


def _groups(reassociation: ArrayAttr) -> list[list[int]]:
    return [[e.value.data for e in group.data if isinstance(e, IntegerAttr)] for group in reassociation.data]


def _verify_reshape(expanded: Attribute, collapsed: Attribute, reassociation: ArrayAttr) -> None:
    """MLIR's `verifyTensorReshapeOp`: the reassociation groups the expanded
    dims, in order, one group per collapsed dim, and each group's sizes
    multiply to that dim; element types agree."""
    assert isinstance(expanded, TensorType) and isinstance(collapsed, TensorType)
    big, small = _shape(expanded), _shape(collapsed)
    groups = _groups(reassociation)
    if len(big) < len(small):
        raise VerifyException(
            f"expected the expanded type, '{expanded}' to have a higher (or same) rank "
            f"than the collapsed type, '{collapsed}'."
        )
    if len(small) != len(groups):
        raise VerifyException(
            f"expected collapsed rank ({len(small)}) to equal the number of reassociation maps ({len(groups)})."
        )
    # MLIR turns the groups into affine maps over max(index) + 1 dims.
    num_dims = max((i for g in groups for i in g), default=0) + 1
    for index, _ in enumerate(groups):
        if num_dims != len(big):
            raise VerifyException(
                f"expected reassociation map #{index} to have size equal to the expanded rank "
                f"({len(big)}), but it is  {num_dims}."
            )
    expected = 0
    for index, group in enumerate(groups):
        for i in group:
            if i != expected:
                raise VerifyException(f"expected reassociation map #{index} to be valid and contiguous.")
            expected += 1
    if groups and expected != num_dims:
        raise VerifyException(f"expected reassociation map #{len(groups) - 1} to be valid and contiguous.")
    start = 0
    for index, group in enumerate(groups):
        dims = big[start : start + len(group)]
        start += len(group)
        if any(_dynamic(d) for d in dims):
            if not _dynamic(small[index]):
                raise VerifyException(
                    f"expected dimension {index} of collapsed type to be dynamic since one or more of the "
                    "corresponding dimensions in the expanded type is dynamic"
                )
        elif small[index] != math.prod(dims):
            raise VerifyException(
                f"expected dimension {index} of collapsed type to be static value of {math.prod(dims)}"
            )
    if expanded.get_element_type() != collapsed.get_element_type():
        raise VerifyException(
            f"expected collapsed type to be '{_type_str(small, expanded.get_element_type())}', but got '{collapsed}'"
        )
    if not any(_dynamic(d) for d in big + small) and math.prod(big) != math.prod(small):
        raise VerifyException(f"number of elements must be preserved: {math.prod(big)} != {math.prod(small)}")


def _no_empty_group(reassociation: ArrayAttr) -> None:
    if any(not g for g in _groups(reassociation)):
        raise VerifyException("reassociation indices must not be empty")


class CollapseShapeOp(tensor.CollapseShapeOp):
    """`tensor.collapse_shape` with MLIR's verifier (xDSL 0.75 has none)."""

    def verify_(self) -> None:
        super().verify_()
        _no_empty_group(self.reassociation)
        _verify_reshape(self.src.type, self.result.type, self.reassociation)


class ExpandShapeOp(tensor.ExpandShapeOp):
    """`tensor.expand_shape` with MLIR's verifier, in place of xDSL's (which
    refused rank-0 sources and did not compare `output_shape` with the
    result type)."""

    def verify_(self) -> None:
        # The IRDL constraints only: xDSL's own check is replaced by MLIR's.
        type(self).get_irdl_definition().verify(self)
        _no_empty_group(self.reassociation)
        result = _shape(self.result.type)
        static = self.static_output_shape.get_values()
        if len(static) != len(result):
            raise VerifyException(
                f"expected number of static shape dims to be equal to the output rank ({len(result)}) "
                f"but found {len(static)} inputs instead"
            )
        marked = sum(1 for s in static if _dynamic(s))
        given = len(self.dynamic_output_shape)
        if given != marked:
            raise VerifyException(
                "mismatch in dynamic dims in output_shape and static_output_shape: static_output_shape has "
                f"{marked} dynamic dims while output_shape has {given} values"
            )
        wanted = sum(1 for d in result if _dynamic(d))
        if given != wanted:
            raise VerifyException(f"incorrect number of dynamic sizes, has {given}, expected {wanted}")
        for pos, (dim, size) in enumerate(zip(result, static)):
            if not _dynamic(dim) and dim != size:
                raise VerifyException(f"invalid output shape provided at pos {pos}")
        _verify_reshape(self.result.type, self.src.type, self.reassociation)


# ---------------------------------------------------------------------------
# from_elements / empty
# ---------------------------------------------------------------------------


class FromElementsOp(tensor.FromElementsOp):
    """`tensor.from_elements` with one operand per element of its static shape."""

    def verify_(self) -> None:
        super().verify_()
        shape = _shape(self.result.type)
        if any(_dynamic(d) for d in shape):
            raise VerifyException(
                f"result #0 must be statically shaped tensor of any non-token type values, but got '{self.result.type}'"
            )
        if len(self.elements) != math.prod(shape):
            raise VerifyException(
                "failed to verify that operand types match result element type "
                f"({len(self.elements)} elements given, {math.prod(shape)} in '{self.result.type}')"
            )


class EmptyOp(tensor.EmptyOp):
    """`tensor.empty` with one dynamic-size operand per `?` dimension."""

    def verify_(self) -> None:
        super().verify_()
        wanted = sum(1 for d in _shape(self.tensor.type) if _dynamic(d))
        if len(self.dynamic_sizes) != wanted:
            raise VerifyException(f"incorrect number of dynamic sizes, has {len(self.dynamic_sizes)}, expected {wanted}")


# ---------------------------------------------------------------------------
# pad / yield
# ---------------------------------------------------------------------------


class PadOp(tensor.PadOp):
    """`tensor.pad` with MLIR's verifier in place of xDSL's: the result shape
    is the source's plus the static pads where all three are static (a static
    result size where MLIR infers `?` is fine, xDSL refused it), and the body
    takes one `index` per dimension and yields the element type."""

    def verify_(self) -> None:
        # The IRDL constraints only: xDSL's own check is replaced by MLIR's.
        type(self).get_irdl_definition().verify(self)
        source, result = self.source.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(result, TensorType)
        shape, low, high = _shape(source), self.static_low.get_values(), self.static_high.get_values()
        if len(low) != len(shape) or len(high) != len(shape):
            raise VerifyException(
                f"failed to infer expectedType from sourceType '{source}', specified resultType is '{result}'"
            )
        inferred = [
            DYNAMIC_INDEX if any(_dynamic(n) for n in dims) else sum(dims) for dims in zip(shape, low, high)
        ]
        got = _shape(result)
        if len(got) != len(inferred) or any(g != i and not _dynamic(i) for g, i in zip(got, inferred)):
            raise VerifyException(
                f"specified type '{result}' does not match the inferred type "
                f"'{_type_str(inferred, source.get_element_type())}'"
            )
        # MLIR's verifyRegions: after the ops of the body.
        if not self.region.blocks:
            return  # the single-block constraint reports it
        block = self.region.block
        if len(block.args) != len(got):
            raise RegionVerifyException(f"expected the block to have {len(got)} arguments")
        for i, arg in enumerate(block.args):
            if not isinstance(arg.type, IndexType):
                raise RegionVerifyException(f"expected block argument {i + 1} to be an index")
        terminator = block.last_op
        if isinstance(terminator, tensor.YieldOp) and len(terminator.arguments) == 1:
            if terminator.arguments[0].type != result.get_element_type():
                raise RegionVerifyException("expected yield type to match shape element type")


class YieldOp(tensor.YieldOp):
    """`tensor.yield`: one value, in a `tensor.pad` (or `tensor.generate`,
    which xDSL does not have), as MLIR's `OneOperand` and `HasParent` require."""

    def verify_(self) -> None:
        super().verify_()
        if len(self.arguments) != 1:
            raise VerifyException("requires a single operand")
        parent = self.parent_op()
        if parent is not None and not isinstance(parent, tensor.PadOp):
            raise VerifyException("expects parent op to be one of 'tensor.generate, tensor.pad'")


REPLACEMENTS: list[type] = [
    PadOp,
    YieldOp,
    ExtractOp,
    InsertOp,
    ExtractSliceOp,
    InsertSliceOp,
    CollapseShapeOp,
    ExpandShapeOp,
    FromElementsOp,
    EmptyOp,
]
