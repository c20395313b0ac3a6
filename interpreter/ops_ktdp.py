"""ktdp ops: tile ids, views, access tiles, loads and stores.

Semantics follow KTDP-SEMANTICS (§ numbers below); the choices where the
sources disagree are listed in docs/interpreter.md.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, TensorType
from xdsl.ir import BlockArgument, Operation

from spyre_mlir.analysis.affine import permutation_of
from spyre_mlir.analysis.inter_tile import check_inter_tile
from spyre_mlir.analysis.layout import Layout, LayoutError
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructDistributedMemoryViewOp,
    ConstructIndirectAccessTileOp,
    ConstructMemoryViewOp,
    GetComputeTileIdOp,
    InterTileProduceOp,
    LoadOp,
    RuntimeArgExtractOp,
    RuntimeArgType,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.spyre import TensorLayoutOp
from spyre_mlir.interpreter.affine_eval import compile_map
from spyre_mlir.interpreter.core import FunctionCompiler, Step, always_varying, handles
from spyre_mlir.interpreter.dtypes import element_format, storage_matches
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable
from spyre_mlir.interpreter.memory import ADDRESS_LIMIT
from spyre_mlir.interpreter.plugins import Plugin, register
from spyre_mlir.interpreter.views import (
    BoxTile,
    DistributedView,
    MemoryView,
    Placement,
    PointTile,
    TileGeometry,
    gather_points,
    load,
    store,
    view_geometry,
)
from spyre_mlir.walk import walk_ops


@handles(GetComputeTileIdOp, varying=always_varying)
def _tile_id(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, GetComputeTileIdOp)
    rank = len(fc.program.grid)
    if len(op.results) > rank:
        raise InterpreterError(
            f"asks for {len(op.results)} tile coordinates but the grid {list(fc.program.grid)} has rank {rank}"
        )
    slots = tuple(fc.slot(r) for r in op.results)
    if len(slots) == 1 and rank > 1:
        # One number on a multi-dimensional grid: the linear tile id, in the
        # run's grid order (KTDP-SEMANTICS §1, `spyre_mlir.analysis.grid`).
        (only,) = slots

        def linear_step(frame):
            frame[only] = frame[0].linear

        return linear_step

    def step(frame):
        coords = frame[0].coords
        for i, s in enumerate(slots):
            frame[s] = coords[i]

    return step


def _mixed(static, dynamic, fc: FunctionCompiler) -> tuple[list, bool]:
    values = iter(dynamic)
    entries = [("slot", fc.slot(next(values))) if s == DYNAMIC_INDEX else int(s) for s in static]
    return entries, any(isinstance(e, tuple) for e in entries)


def _resolve(entries: list, frame: list) -> tuple[int, ...]:
    return tuple(int(frame[e[1]]) if isinstance(e, tuple) else e for e in entries)


def _view_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """A view varies with its operands, and a `ct_local` view without `ct_id` always:
    it is each core's own LX, so what is loaded through it differs between cores."""
    assert isinstance(op, ConstructMemoryViewOp)
    space = normalized_memory_space(op.memory_space)
    own_lx = space is not None and not space.is_global and space.tile is None
    if own_lx or any(fc.is_varying(v) for v in op.operands):
        return fc.mark(op.results)
    return False


@handles(ConstructMemoryViewOp, varying=_view_varying)
def _memory_view(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ConstructMemoryViewOp)
    ty = op.result.type
    assert isinstance(ty, MemRefType)
    fmt = element_format(ty.get_element_type())
    if any(fc.is_varying(v) for v in (*op.sizes, *op.strides)):
        raise NotBatchable(op, "the sizes or strides of a view depend on the core id")
    sizes, dynamic_sizes = _mixed(op.static_sizes.get_values(), op.sizes, fc)
    strides, _ = _mixed(op.static_strides.get_values(), op.strides, fc)
    size_slots = tuple(fc.slot(s) for s in op.sizes)
    declared = tuple(ty.get_shape())
    cset = op.coordinate_set.data
    n_syms = cset.num_symbols
    base = fc.slot(op.offset)
    r = fc.slot(op.result)

    space = normalized_memory_space(op.memory_space)  # None: `unspecified`, taken as global
    explicit_core = None
    local = space is not None and not space.is_global
    if local and space.tile is not None:
        explicit_core = space.tile
        if explicit_core >= len(fc.program.cores):
            raise InterpreterError(f"ct_id {explicit_core} names no core of the {len(fc.program.cores)}-core grid")

    # A view over an array argument must read that array's element type.
    arg_name = None
    if isinstance(op.offset, BlockArgument) and op.offset.block is fc.func_op.body.blocks[0]:
        arg_name = op.offset.name_hint
    program = fc.program

    # A `spyre.tensor_layout` marker places the view's elements by its layout.
    marker, placement = _placement(fc, op, sizes, dynamic_sizes)
    contiguous = _contiguous_strides(sizes) if marker is not None else None

    # The geometry of a view of static sizes whose set has no symbols is fixed.
    static_geometry = None if dynamic_sizes or n_syms else view_geometry(cset, (), tuple(sizes))
    dynamic_strides = any(isinstance(e, tuple) for e in strides)
    static_span = None if dynamic_sizes or dynamic_strides else _span(tuple(sizes), tuple(strides))
    limit = ADDRESS_LIMIT // fmt.itemsize
    static_bounds = (-limit - static_span[0], limit - static_span[1]) if static_span else None
    if marker is not None and not dynamic_strides and tuple(strides) != contiguous:
        raise _strides_error(marker, contiguous, tuple(strides))
    check_strides = marker is not None and dynamic_strides  # checked when the view is built

    def out_of_range(offset, span) -> InterpreterError:
        low = int(np.min(offset)) + span[0]
        high = int(np.max(offset)) + span[1]
        return InterpreterError(
            f"the view spans element offsets [{low}, {high}], beyond the 2^62 bytes of address space the "
            "interpreter models"
        )

    def step(frame):
        view_sizes = _resolve(sizes, frame) if dynamic_sizes else tuple(sizes)
        offset = frame[base]
        lowest, highest = static_bounds or (-limit - (span := _span(view_sizes, _resolve(strides, frame)))[0],
                                            limit - span[1])
        if type(offset) is np.ndarray:
            values = offset.tolist()
            if not lowest < min(values) <= max(values) < highest:
                raise out_of_range(offset, static_span or _span(view_sizes, _resolve(strides, frame)))
        elif not lowest < offset < highest:
            raise out_of_range(offset, static_span or _span(view_sizes, _resolve(strides, frame)))
        if dynamic_sizes:
            for i, (got, want) in enumerate(zip(view_sizes, declared)):
                if want != DYNAMIC_INDEX and got != want:
                    raise InterpreterError(f"size {got} of dim {i} disagrees with the view type {ty}")
        syms = tuple(int(frame[s]) for s in size_slots[:n_syms])
        if arg_name is not None and arg_name in program.runtime.array_args:
            address, dtype = program.runtime.array_args[arg_name]
            if not storage_matches(fmt, dtype):
                raise InterpreterError(
                    f"argument '{arg_name}' is a {dtype} array but this view reads {fmt.name} elements "
                    f"(addresses are in units of the view's element type)"
                )
        lx = None
        if local:
            lx = explicit_core if explicit_core is not None else frame[0].linear
        view_strides = _resolve(strides, frame)
        if check_strides and view_strides != contiguous:
            raise _strides_error(marker, contiguous, view_strides)
        frame[r] = MemoryView(
            fmt, offset, view_sizes, view_strides, cset, syms, lx, op, static_geometry, placement
        )

    return step


def _layout_of_marker(marker: TensorLayoutOp, rank: int) -> Layout:
    """The layout a marker names on a rank-`rank` view; a located error at the marker if unsupported."""
    try:
        return Layout.from_arrays(
            marker.phys_src.get_values(), marker.phys_op.get_values(), marker.phys_arg.get_values(), rank
        )
    except LayoutError as exc:
        raise error(marker, f"unsupported layout: {exc}") from None


def _placement(fc: FunctionCompiler, op: ConstructMemoryViewOp, sizes: list, dynamic_sizes: bool):
    """(the `spyre.tensor_layout` marking the view, where its elements are) or (None, None).
    Located errors at the marker: a layout we cannot represent, two markers
    that disagree, sizes that are not static (a partial stick is padded: docs/interpreter.md)."""
    markers = [use.operation for use in op.result.uses if isinstance(use.operation, TensorLayoutOp)]
    if not markers:
        return None, None
    if len(markers) > 1:  # in the order of the function's text
        order = {id(o): i for i, o in enumerate(walk_ops(fc.func_op))}
        markers.sort(key=lambda m: order.get(id(m), 0))
    rank = len(sizes)
    layouts = [_layout_of_marker(m, rank) for m in markers]
    first, layout = markers[0], layouts[0]
    for other, other_layout in zip(markers[1:], layouts[1:]):
        if other_layout != layout:
            raise error(
                other,
                f"the view is marked with two layouts: {other_layout} here and {layout} by an earlier marker",
                (first, "the earlier marker"),
            )
    if dynamic_sizes:
        shown = ", ".join("?" if isinstance(s, tuple) else str(s) for s in sizes)
        raise error(first, f"a marked view must have static sizes (its layout places them), got [{shown}]")
    try:
        placement = Placement(layout, tuple(sizes))
    except LayoutError as exc:
        raise error(first, f"the layout {layout} cannot place the view's sizes {list(sizes)}: {exc}") from None
    return first, placement


def _contiguous_strides(sizes) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(sizes):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _strides_error(marker: TensorLayoutOp, contiguous: tuple[int, ...], got: tuple[int, ...]):
    return error(
        marker,
        f"a marked view's elements are placed by its layout; its strides must be the contiguous row-major "
        f"strides {list(contiguous)} of its sizes, got {list(got)}",
    )


def _span(sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, int]:
    """Element offsets of a view's lowest and highest element relative to its base."""
    low = high = 0
    for n, s in zip(sizes, strides):
        if n > 0:
            low += min(0, (n - 1) * s)
            high += max(0, (n - 1) * s)
    return low, high


@handles(ConstructDistributedMemoryViewOp)
def _distributed_view(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ConstructDistributedMemoryViewOp)
    fmt = element_format(op.result.type.get_element_type())
    part_slots = tuple(fc.slot(m) for m in op.memrefs)
    r = fc.slot(op.result)
    checked: set = set()

    def step(frame):
        parts = [frame[s] for s in part_slots]
        for i, part in enumerate(parts):
            if not isinstance(part, MemoryView):
                raise InterpreterError(f"partition #{i} of a distributed view must be a memory view")
        view = DistributedView(fmt, parts, op)
        key = tuple((p.lo, p.valid_hi, p.cset, p.cset_syms) for p in parts)
        if key not in checked:
            view.check_disjoint()
            checked.add(key)
        frame[r] = view

    return step


def _geometry_for(op: Operation, aset, order, result_type: AccessTileType, what: str, memory_limit: int | None = None):
    """A function syms -> TileGeometry, checking the declared tile type."""
    perm = permutation_of(order)
    if perm is None:
        raise InterpreterError(f"{what}_order must be a permutation of its dims, got {order}")
    declared = result_type.get_shape()
    cache: dict[tuple[int, ...], TileGeometry] = {}
    limit = memory_limit

    def geometry(syms: tuple[int, ...]) -> TileGeometry:
        geom = cache.get(syms)
        if geom is None:
            geom = TileGeometry.of(aset, tuple(perm), syms, limit)
            if any(d != DYNAMIC_INDEX and d != g for d, g in zip(declared, geom.shape)):
                raise InterpreterError(
                    f"access tile type {result_type} does not match the {what}_set, whose bounding box "
                    f"under {what}_order is {'x'.join(map(str, geom.shape))}"
                )
            cache[syms] = geom
        return geom

    return geometry


@handles(ConstructAccessTileOp)
def _access_tile(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ConstructAccessTileOp)
    if isinstance(op.base.type, TensorType):
        raise InterpreterError("access tiles on tensors are not supported by the interpreter (views only)")
    if any(fc.is_varying(s) for s in op.symbol_operands):
        raise NotBatchable(op, "the shape of an access tile depends on the core id")
    aset = op.access_tile_set.data
    geometry = _geometry_for(op, aset, op.access_tile_order.data, op.result.type, "access_tile", fc.program.memory_limit)
    static_geom = geometry(()) if aset.num_symbols == 0 else None
    anchor_of = compile_map(op.base_map.data)
    n_dims = op.base_map.data.num_dims
    v = fc.slot(op.base)
    index_slots = tuple(fc.slot(i) for i in op.indices)
    symbol_slots = tuple(fc.slot(s) for s in op.symbol_operands)
    r = fc.slot(op.result)

    def step(frame):
        values = [frame[i] for i in index_slots]
        anchor = anchor_of(values[:n_dims], values[n_dims:])
        geom = static_geom or geometry(tuple(int(frame[s]) for s in symbol_slots))
        first = tuple(a + lo for a, lo in zip(anchor, geom.lo)) if any(geom.lo) else anchor
        frame[r] = BoxTile(frame[v], first, geom, op)

    return step


@handles(ConstructIndirectAccessTileOp)
def _indirect_tile(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ConstructIndirectAccessTileOp)
    if isinstance(op.base.type, TensorType):
        raise InterpreterError("indirect access tiles on tensors are not supported by the interpreter (views only)")
    if any(fc.is_varying(s) for s in op.symbol_operands):
        raise NotBatchable(op, "the shape of an access tile depends on the core id")
    aset = op.variables_space_set.data
    geometry = _geometry_for(
        op, aset, op.variables_space_order.data, op.result.type, "variables_space", fc.program.memory_limit
    )
    kinds = [k.value for k in op.per_dim_subscript_kinds.data]
    maps = [compile_map(m.data) for m in op.per_dim_subscript_maps.data]
    base = fc.slot(op.base)
    index_views = tuple(fc.slot(m) for m in op.indirect_memrefs)
    captured = tuple(fc.slot(c) for c in op.captured_variables)
    symbol_slots = tuple(fc.slot(s) for s in op.symbol_operands)
    r = fc.slot(op.result)
    program = fc.program
    varying = fc.is_varying(op.result)

    def coordinates(frame, view_values, index_values, captured_values, geom, lane):
        points = geom.member_offsets() + np.asarray(geom.lo, np.int64)
        n = points.shape[0]
        dims = [np.full(n, c, np.int64) for c in captured_values] + [points[:, j] for j in range(points.shape[1])]
        index_iter = iter(index_values)
        columns = []
        for indirect, amap in zip(kinds, maps):
            exprs = [np.broadcast_to(np.asarray(e, np.int64), (n,)) for e in amap(dims, ())]
            if not indirect:
                columns.append(exprs[0])
                continue
            index_view = next(index_iter)
            if not index_view.fmt.is_integer:
                raise InterpreterError(f"index view of element type {index_view.fmt.name} must hold integers")
            loaded = gather_points(index_view, np.stack(exprs, axis=1), frame[0], lane, program.runtime.access)
            columns.append(np.asarray(loaded, np.int64))
        return np.stack(columns, axis=1) if columns else np.zeros((n, 0), np.int64)

    def step(frame):
        view = frame[base]
        geom = geometry(tuple(int(frame[s]) for s in symbol_slots))
        index_values = [frame[s] for s in index_views]
        captured_values = [frame[s] for s in captured]
        if not varying:
            coords = coordinates(frame, view, index_values, captured_values, geom, None)
            frame[r] = PointTile(view, coords, geom.shape, geom.tile_mask, op)
            return
        count = frame[0].count
        per_lane = []
        for lane in range(count):
            lane_index = [m.lane(lane) if m.varying else m for m in index_values]
            lane_captured = [int(c[lane]) if isinstance(c, np.ndarray) else c for c in captured_values]
            per_lane.append(coordinates(frame, view, lane_index, lane_captured, geom, lane))
        frame[r] = PointTile(view, np.stack(per_lane), geom.shape, geom.tile_mask, op)

    return step


@handles(LoadOp)
def _load(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, LoadOp)
    fmt = fc.format(op.result)
    t, r = fc.slot(op.access_tile), fc.slot(op.result)
    program = fc.program
    varying = fc.is_varying(op.result)
    dynamic = any(d < 0 for d in op.result.type.get_shape())  # static results are checked while decoding

    def step(frame):
        tile = frame[t]
        if tile.view.fmt is not fmt:
            raise InterpreterError(
                f"loading {fmt.name} elements through an access tile of a {tile.view.fmt.name} view"
            )
        if dynamic:
            lanes = frame[0].count if varying else 1
            program.runtime.check_allocation(
                math.prod(tile.shape) * fmt.compute.itemsize * lanes,
                f"loading a {'x'.join(map(str, tile.shape))} tile" + (f" for {lanes} cores" if lanes > 1 else ""),
            )
        data = load(tile, frame[0], program.runtime.access)
        if varying and not tile.varying:  # the tile's anchor ignored the core id after all
            data = np.broadcast_to(data, (frame[0].count, *data.shape))
        frame[r] = data

    return step


@handles(StoreOp)
def _store(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, StoreOp)
    fmt = fc.format(op.data_tile)
    d, t = fc.slot(op.data_tile), fc.slot(op.access_tile)
    program = fc.program
    lead = 1 if fc.is_varying(op.data_tile) else 0

    def step(frame):
        tile = frame[t]
        if tile.view.fmt is not fmt:
            raise InterpreterError(f"storing {fmt.name} elements through an access tile of a {tile.view.fmt.name} view")
        data = frame[d]
        if data.shape[lead:] != tile.shape:
            raise InterpreterError(
                f"storing a {'x'.join(map(str, data.shape[lead:]))} tensor through a "
                f"{'x'.join(map(str, tile.shape))} access tile"
            )
        store(tile, data, frame[0], program.runtime.access)

    return step


@handles(RuntimeArgExtractOp)
def _runtime_arg_extract(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, RuntimeArgExtractOp)
    ty = op.input.type
    assert isinstance(ty, RuntimeArgType)
    a, r = fc.slot(op.input), fc.slot(op.result)
    kind = op.kind.data
    if kind == "value":

        def step(frame):
            frame[r] = frame[a]

        return step
    constant = int(getattr(ty, kind).data)

    def step(frame):
        frame[r] = constant

    return step


# Loads and stores move data between HBM and the cores (the report's HBM traffic); a kernel producing
# for other tiles (interpreter/ops_inter_tile.py) needs every core of its grid running together, and
# the inter-tile legality rules are checks no op verifier makes (ktdp-check-inter-tile).
register(Plugin("ktdp", collective=(InterTileProduceOp,), hbm_transfers=(LoadOp, StoreOp), verify=check_inter_tile))
