"""The `spyre` dialect: layout markers and tiling hints for Spyre.

`spyre.tensor_layout` marks a KTDP memory view with its physical (device)
layout, with exactly the contract of triton-spyre's `tt.spyre_tensor_layout`:
three parallel arrays, one entry per physical dim, outermost first:

    phys_src[k]  the logical dim the physical dim k is computed from
    phys_op[k]   0 identity, 1 floordiv, 2 mod
    phys_arg[k]  the divisor for floordiv/mod (ignored for identity)

A rank-2 `[M, N]` f16 view stored stick-major on N (64 elements a stick) is
`phys_src = [1, 0, 1], phys_op = [1, 0, 2], phys_arg = [64, 0, 64]`, i.e.
device `[N floordiv 64, M, N mod 64]`. What a marker means for memory, and
the layouts accepted, are in `spyre_mlir.analysis.layout`; `spyre-physicalize-layouts`
rewrites marked kernels onto physical views and types.

`spyre.relayout` converts a tensor from one layout of its logical value to
another (a restickify): `from` and `to` are layouts given as their three
arrays, `[phys_src, phys_op, phys_arg]`; the identity layout is the logical
tensor itself.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, MemRefType, TensorType, i64
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.analysis.layout import Layout, LayoutError

PHYS_OPS = {0: "identity", 1: "floordiv", 2: "mod"}


# ---------------------------------------------------------------------------
# The discardable `spyre.*` attributes passes leave for later passes, the
# interpreter and the tools. Each is declared here once; code names it by
# these constants, never by its string (test/unit/test_architecture.py).
# ---------------------------------------------------------------------------

COMPUTE_GROUP_ATTR = "spyre.compute_group"
"""Unit attribute on a `func.func` outlined by `ktdp-extract-compute-groups`: the function is one compute group."""
SLICES_ATTR = "spyre.slices"
"""Coarse-tiling hint on a group or op: slices per dim (`spyre-coarse-tile`)."""
DIMS_ATTR = "spyre.dims"
"""Coarse-tiling hint: which dims the slices apply to (`spyre-coarse-tile`)."""
SEARCH_ARGS_ATTR = "spyre.search_args"
"""Scalar arguments the tiling search runs a kernel's candidates with."""
LX_OFFSET_ATTR = "spyre.lx_offset"
"""Byte offset in LX of an intermediate placed by `spyre-plan-scratchpad`."""
PEAK_LX_BYTES_ATTR = "spyre.peak_lx_bytes"
"""On a group: its LX high-water mark (`spyre-plan-scratchpad`; marks the group as planned)."""
LX_SPILLED_ATTR = "spyre.lx_spilled"
"""On a compute whose intermediate did not fit LX (`spyre-plan-scratchpad`)."""
CORE_SPLIT_ATTR = "spyre.core_split"
"""On a group: how its work splits across cores (`spyre-distribute-work`)."""
SCRATCH_BYTES_ATTR = "spyre.scratch_bytes"
"""On a kernel: HBM scratch bytes per core for its round trips (`ktdp-hbm-roundtrip`; the interpreter allocates it)."""
KERNEL_ATTR = "spyre.kernel"
"""On the emitted bundle's function (`spyre-emit-bundle`)."""
SPECIALIZE_ATTR = "spyre.specialize"
"""Scalar values a kernel is specialized for (`spatial-tile{scalars=...}`)."""
HOST_LAYOUT_ATTR = "spyre.host_layout"
"""On a kernel argument: the layout the host hands it in (spyre_mlir.analysis.layout)."""
TARGET_ATTR = "spyre.target"
"""On a module: facts that override the default target (spyre_mlir.target)."""


@irdl_op_definition
class TensorLayoutOp(IRDLOperation):
    """Physical layout of a memory view (see module docstring)."""

    name = "spyre.tensor_layout"

    view = operand_def(MemRefType)
    phys_src = prop_def(DenseArrayBase.constr(i64))
    phys_op = prop_def(DenseArrayBase.constr(i64))
    phys_arg = prop_def(DenseArrayBase.constr(i64))

    assembly_format = "$view attr-dict `:` type($view)"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        src, ops, args = (a.get_values() for a in (self.phys_src, self.phys_op, self.phys_arg))
        if not src:
            raise VerifyException("phys_src, phys_op and phys_arg must be non-empty")
        if not (len(src) == len(ops) == len(args)):
            raise VerifyException(
                f"phys_src, phys_op and phys_arg must have the same length, got {len(src)}, {len(ops)} and {len(args)}"
            )
        view_type = self.view.type
        assert isinstance(view_type, MemRefType)
        rank = view_type.get_num_dims()
        for k, (s, o, a) in enumerate(zip(src, ops, args)):
            if o not in PHYS_OPS:
                raise VerifyException(f"phys_op[{k}] = {o} is not one of 0 (identity), 1 (floordiv), 2 (mod)")
            if not 0 <= s < rank:
                raise VerifyException(f"phys_src[{k}] = {s} is out of range for a rank-{rank} view")
            if o != 0 and a <= 0:
                raise VerifyException(f"phys_arg[{k}] = {a} must be positive for {PHYS_OPS[o]}")


def layout_attr(layout: Layout) -> ArrayAttr:
    """`[array<i64: phys_src...>, array<i64: phys_op...>, array<i64: phys_arg...>]`."""
    return ArrayAttr([DenseArrayBase.from_list(i64, list(a)) for a in layout.arrays()])


def layout_of_attr(attr: ArrayAttr) -> Layout:
    """The layout an attribute of `layout_attr`'s form names; LayoutError if malformed."""
    parts = attr.data
    if len(parts) != 3 or not all(isinstance(p, DenseArrayBase) for p in parts):
        raise LayoutError("a layout is [array<i64: phys_src...>, array<i64: phys_op...>, array<i64: phys_arg...>]")
    src, op, arg = (p.get_values() for p in parts)  # pyright: ignore[reportAttributeAccessIssue]
    return Layout.from_arrays(src, op, arg, len(set(src)))


def logical_shape(physical: tuple[int, ...], layout: Layout) -> tuple[int, ...]:
    """The logical shape whose `layout` has the physical shape `physical`."""
    shape = [1] * layout.rank
    for axis, extent in zip(layout.axes, physical):
        shape[axis.dim] = extent if axis.part == "whole" else shape[axis.dim] * extent
    return tuple(shape)


@irdl_op_definition
class RelayoutOp(IRDLOperation):
    """Convert a tensor between two layouts of the same logical value (see module docstring)."""

    name = "spyre.relayout"

    input = operand_def(TensorType)
    from_layout = prop_def(ArrayAttr, prop_name="from")
    to_layout = prop_def(ArrayAttr, prop_name="to")
    result = result_def(TensorType)

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, value: SSAValue, source: Layout, target: Layout, result_type: TensorType):
        super().__init__(
            operands=[value],
            result_types=[result_type],
            properties={"from": layout_attr(source), "to": layout_attr(target)},
        )

    def layouts(self) -> tuple[Layout, Layout]:
        return layout_of_attr(self.from_layout), layout_of_attr(self.to_layout)

    def verify_(self) -> None:
        try:
            source, target = self.layouts()
        except LayoutError as exc:
            raise VerifyException(str(exc)) from None
        if source.rank != target.rank:
            raise VerifyException(f"'from' lays out rank {source.rank} and 'to' rank {target.rank}")
        in_type, out_type = self.input.type, self.result.type
        assert isinstance(in_type, TensorType) and isinstance(out_type, TensorType)
        if in_type.get_element_type() != out_type.get_element_type():
            raise VerifyException(f"element types differ: {in_type} and {out_type}")
        in_shape = tuple(in_type.get_shape())
        if len(in_shape) != len(source.axes):
            raise VerifyException(f"the input {in_type} does not have the rank of the 'from' layout {source}")
        logical = logical_shape(in_shape, source)
        try:
            expected = target.physical_shape(logical)
            if source.physical_shape(logical) != in_shape:
                raise LayoutError(f"the input {in_type} is not the 'from' layout {source} of a logical {list(logical)}")
        except LayoutError as exc:
            raise VerifyException(str(exc)) from None
        if tuple(out_type.get_shape()) != expected:
            raise VerifyException(
                f"the result of laying out logical {list(logical)} by {target} has shape {list(expected)}, "
                f"not {list(out_type.get_shape())}"
            )


SPYRE = Dialect("spyre", [TensorLayoutOp, RelayoutOp], [])
