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

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, MemRefType, TensorType, i64
from xdsl.ir import BlockArgument, Dialect, SSAValue
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
from spyre_mlir.diagnostics import location_of

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
ADMIT_ATTR = "spyre.admit"
"""On an index or integer kernel argument: the values it admits at run time,
`{upperbound = U[, granularity = G]}` (0 ..= U, multiples of G), as
`!ktdp.runtime_arg` states them; a loop it bounds becomes a trip (spatial-tile)."""
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


# ===========================================================================
# Host layouts of kernel parameters (IR-aware)
# ===========================================================================

# `HOST_LAYOUT_ATTR` (declared above) is the arg attribute of a pointer parameter whose memory holds a
# tensor in a physical layout: `{phys_src = array<i64: ...>, phys_op = array<i64: ...>, phys_arg =
# array<i64: ...>, shape = array<i64: ...>}` (`shape`: the logical shape). `spyre-physicalize-layouts`
# puts it where it erases the markers, so that the host side still knows how to lay out the array.


def host_layout_attr(layout: Layout, shape: Sequence[int]):
    """The `spyre.host_layout` value (a DictionaryAttr) of a parameter holding a
    logical `shape` tensor in `layout`; LayoutError if `layout` cannot lay it out."""
    shape = tuple(int(s) for s in shape)
    layout.check_shape(shape)
    src, op, arg = layout.arrays()
    return DictionaryAttr(
        {
            "phys_src": DenseArrayBase.from_list(i64, src),
            "phys_op": DenseArrayBase.from_list(i64, op),
            "phys_arg": DenseArrayBase.from_list(i64, arg),
            "shape": DenseArrayBase.from_list(i64, list(shape)),
        }
    )


def host_layout_of_attr(attr) -> tuple[Layout, tuple[int, ...]]:
    """(layout, logical shape) of a `spyre.host_layout` value; LayoutError if malformed."""
    keys = ("phys_src", "phys_op", "phys_arg", "shape")
    if not isinstance(attr, DictionaryAttr) or set(attr.data) != set(keys):
        raise LayoutError(
            f"{HOST_LAYOUT_ATTR} must be a dictionary of exactly {', '.join(keys)} (arrays of i64), got {attr}"
        )
    values = {}
    for key in keys:
        entry = attr.data[key]
        if not isinstance(entry, DenseArrayBase):
            raise LayoutError(f"{HOST_LAYOUT_ATTR}: '{key}' must be an array<i64: ...>, got {entry}")
        values[key] = tuple(int(v) for v in entry.get_values())
    shape = values["shape"]
    layout = Layout.from_arrays(values["phys_src"], values["phys_op"], values["phys_arg"], len(shape))
    layout.check_shape(shape)
    return layout, shape


def host_layouts(func_op) -> dict[int, tuple[Layout, tuple[int, ...]]]:
    """By parameter index, the host layout and logical shape of each pointer
    parameter that has one: from its `spyre.host_layout` arg attribute, or, in
    a kernel still carrying markers, from the `spyre.tensor_layout` markers of
    views whose base is that parameter itself (the entry block's argument);
    a marked view whose split dim ends in a partial stick gives its padded
    shape (`Layout.padded_shape`: `[8, 48]` with sticks of 32 gives `[8, 64]`).
    LayoutError when a parameter's marked views disagree (naming them), when
    they disagree with its attribute, or when an attribute or marker is
    malformed."""
    found: dict[int, tuple[Layout, tuple[int, ...]]] = {}
    entry = func_op.body.blocks[0] if func_op.body.blocks else None
    names = [a.name_hint for a in entry.args] if entry is not None else []

    def param(i: int) -> str:
        name = names[i] if i < len(names) and names[i] else None
        return f"parameter #{i}" + (f" (%{name})" if name else "")

    arg_attrs = func_op.arg_attrs
    for i, attrs in enumerate(arg_attrs.data if arg_attrs is not None else ()):
        attr = attrs.data.get(HOST_LAYOUT_ATTR)
        if attr is not None:
            try:
                found[i] = host_layout_of_attr(attr)
            except LayoutError as exc:
                raise LayoutError(f"{param(i)}: {exc}") from None
    if entry is None:
        return found

    marked: dict[int, list[tuple[Layout, tuple[int, ...], object]]] = {}
    for op in func_op.walk():
        if not isinstance(op, TensorLayoutOp):
            continue
        view = op.operands[0]
        owner = view.owner
        if getattr(owner, "name", None) != "ktdp.construct_memory_view":
            continue
        base = owner.operands[0]
        if not isinstance(base, BlockArgument) or base.block is not entry:
            continue
        where = location_of(op)
        at = f" at {where}" if where else ""
        sizes = tuple(int(s) for s in owner.static_sizes.get_values())
        if any(s < 0 for s in sizes):
            raise LayoutError(f"{param(base.index)}: the marked view{at} does not have static sizes")
        try:
            layout = Layout.from_arrays(
                op.phys_src.get_values(), op.phys_op.get_values(), op.phys_arg.get_values(), len(sizes)
            )
            # A partial last stick is padded (the parameter holds the padded tensor, as
            # `spyre-physicalize-layouts` records it): its host array has the padded shape.
            sizes = layout.padded_shape(sizes)
        except LayoutError as exc:
            raise LayoutError(f"{param(base.index)}: the marker{at}: {exc}") from None
        marked.setdefault(base.index, []).append((layout, sizes, where))

    for i, entries in marked.items():
        distinct = list(dict.fromkeys((layout, shape) for layout, shape, _ in entries))
        if len(distinct) > 1:
            described = "; ".join(
                f"{layout} of {list(shape)} (marker at {where or 'an unknown location'})"
                for layout, shape, where in entries
            )
            raise LayoutError(
                f"{param(i)} has views marked with different layouts, so its host layout is ambiguous: {described}"
            )
        if i in found and found[i] != distinct[0]:
            (la, sa), (lb, sb) = found[i], distinct[0]
            raise LayoutError(
                f"{param(i)}: its {HOST_LAYOUT_ATTR} attribute says {la} of {list(sa)} but its marked views say "
                f"{lb} of {list(sb)}"
            )
        found[i] = distinct[0]
    return dict(sorted(found.items()))


SPYRE = Dialect("spyre", [TensorLayoutOp, RelayoutOp], [])
