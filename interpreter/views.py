"""Memory views, access tiles, and the loads and stores between them.

A `MemoryView` is `ktdp.construct_memory_view` at run time: a base element
offset, sizes, strides, a coordinate set and a memory space. A
`DistributedView` is the union of partition views over global coordinates.
An access tile holds coordinates, not data: `BoxTile` for
`ktdp.construct_access_tile` (the anchor plus the bounding box of
`access_tile_set`, with a hole mask when the set is not a box), `PointTile`
for explicit coordinate lists (indirect access tiles).

Loads and stores take one of two paths:

- the *fast path*: a box of a plain view, entirely inside the view's valid
  region, read or written as one strided NumPy view of the memory segment
  (for a batch of cores: one view with a lane stride, one per distinct
  anchor, or one gather);
- the *point path*: every coordinate checked (view bounds, coordinate set,
  partition membership), gathered or scattered one core at a time. Every
  out-of-bounds or masked access ends up here, so the error names the exact
  coordinate and core.

A view marked by `spyre.tensor_layout` carries a `Placement`: its logical
element at local coordinates c sits at `base + layout.element_offsets(c,
sizes, pad=True)` (the physical tensor of its layout over the padded sizes,
contiguous from the base: a split dim that ends in a partial stick is
rounded up to whole sticks, and the padding is never addressed). The point
path computes those offsets; the fast path takes a box that is also a
strided box of the physical tensor (every split dim inside one stick, or
whole sticks), and leaves any other box to the point path.

Bounds follow KTDP-SEMANTICS §4: an access outside the view is an error by
default; with `mask_out_of_bounds` it loads 0 and the store skips it. Holes of
a non-box tile set load 0 and are skipped by stores.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from xdsl.ir import Operation
from xdsl.ir.affine import AffineSet

from spyre_mlir.analysis.affine import bounding_box, box_bounds
from spyre_mlir.interpreter.affine_eval import compile_set
from spyre_mlir.interpreter.dtypes import ElementFormat
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.memory import AddressSpace, Segment, all_written, format_bytes

LARGE_TILE = 2048
"""Tiles with at least this many elements are copied lane by lane instead of
gathered with one fancy index (a strided copy beats index arithmetic)."""


# ===========================================================================
# Geometry of a tile set
# ===========================================================================


class TileGeometry:
    """The bounding box of an access-tile set and its order.

    `lo`/`extents` are in set order; tile axis k is set dim `perm[k]`, so the
    tile shape is `extents[perm[k]]`. `box_mask` (set order) / `tile_mask`
    (tile order) mark the members when the set is not exactly its box."""

    __slots__ = ("lo", "extents", "perm", "shape", "box_mask", "tile_mask", "identity", "lane_perm", "size")

    def __init__(
        self,
        lo: tuple[int, ...],
        extents: tuple[int, ...],
        perm: tuple[int, ...],
        box_mask: np.ndarray | None = None,
        tile_mask: np.ndarray | None = None,
    ):
        self.lo = lo
        self.extents = extents
        self.perm = perm
        self.shape = tuple(extents[p] for p in perm)
        self.box_mask = box_mask
        self.tile_mask = tile_mask
        self.identity = perm == tuple(range(len(perm)))
        self.lane_perm = (0, *(p + 1 for p in perm))  # the same order with a leading lane axis
        self.size = math.prod(extents)

    def member_offsets(self) -> np.ndarray:
        """Set offsets (relative to `lo`) of the members, in tile C order: [N, rank]."""
        rank = len(self.extents)
        if rank == 0:
            return np.zeros((1, 0), np.int64)
        grid = np.indices(self.extents, dtype=np.int64)
        in_tile_order = np.transpose(grid, self.lane_perm).reshape(rank, -1).T
        if self.tile_mask is not None:
            in_tile_order = in_tile_order[self.tile_mask.reshape(-1)]
        return in_tile_order

    @staticmethod
    def of(
        aset: AffineSet, perm: tuple[int, ...], syms: tuple[int, ...] = (), limit: int | None = None
    ) -> TileGeometry:
        box = box_bounds(aset, syms)
        bbox = box if box is not None else bounding_box(aset, syms)
        if bbox is None:
            raise InterpreterError("the tile set is unbounded: every dim needs a lower and an upper bound")
        lo = tuple(a for a, _ in bbox)
        extents = tuple(max(0, b - a + 1) for a, b in bbox)
        if any(not -(1 << 62) < v < (1 << 62) for bounds in bbox for v in bounds):
            raise InterpreterError(f"the tile set's bounds {bbox} are beyond the 2^62 elements the interpreter models")
        box_mask = tile_mask = None
        if box is None and extents:
            need = math.prod(extents) * (8 * len(extents) + 2)
            if limit is not None and need > limit:
                raise InterpreterError(
                    f"the {'x'.join(map(str, extents))} bounding box of the tile set would allocate "
                    f"{format_bytes(need)} to find its members, over the {format_bytes(limit)} memory limit"
                )
            grid = np.indices(extents, dtype=np.int64).reshape(len(extents), -1)
            dims = [grid[i] + lo[i] for i in range(len(extents))]
            box_mask = np.asarray(compile_set(aset)(dims, syms), dtype=bool)
            box_mask = np.broadcast_to(box_mask, (grid.shape[1],)).reshape(extents)
            tile_mask = np.ascontiguousarray(np.transpose(box_mask, perm))
        return TileGeometry(lo, extents, perm, box_mask, tile_mask)


# ===========================================================================
# Views
# ===========================================================================


@lru_cache(maxsize=1024)
def view_geometry(
    cset: AffineSet, syms: tuple[int, ...], sizes: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """(lower corner of the coordinate set, exclusive local upper bounds, whether
    the valid coordinates are exactly the box [0, upper))."""
    box = box_bounds(cset, syms)
    bbox = box if box is not None else bounding_box(cset, syms)
    if bbox is None:
        return (0,) * len(sizes), sizes, False
    lo = tuple(a for a, _ in bbox)
    hi = tuple(max(0, min(s, b - a + 1)) for s, (a, b) in zip(sizes, bbox))
    return lo, hi, box is not None


def gather_points(view, coords: np.ndarray, ctx, lane, access: Access) -> np.ndarray:
    """Values at view coordinates [N, rank], every coordinate checked (e.g. index views)."""
    return _gather(view, coords, None, ctx, lane, access)


def _lanes(x) -> bool:
    return isinstance(x, np.ndarray)


def _lane(x, lane: int):
    return int(x[lane]) if isinstance(x, np.ndarray) else x


class MemoryView:
    """A strided view of one memory space (`ktdp.construct_memory_view`)."""

    __slots__ = (
        "fmt",
        "base",
        "sizes",
        "strides",
        "lo",
        "valid_hi",
        "exact",
        "cset",
        "cset_syms",
        "lx_core",
        "op",
        "placement",
    )

    def __init__(
        self,
        fmt: ElementFormat,
        base,
        sizes: tuple[int, ...],
        strides: tuple[int, ...],
        cset: AffineSet,
        cset_syms: tuple[int, ...],
        lx_core,
        op: Operation | None,
        geometry: tuple | None = None,
        placement: Placement | None = None,
    ):
        self.fmt = fmt
        self.base = base  # element offset: int, or an int64 lane array
        self.sizes = sizes
        self.strides = strides
        self.cset = cset
        self.cset_syms = cset_syms
        self.lx_core = lx_core  # None for global memory; else an int or a lane array
        self.op = op
        self.lo, self.valid_hi, self.exact = geometry or view_geometry(cset, cset_syms, sizes)
        self.placement = placement  # None: element c at base + c . strides; else placed by a layout

    def element_offsets(self, coords: np.ndarray) -> np.ndarray:
        """Element addresses of local coordinates [N, rank] (base included)."""
        if self.placement is None:
            return self.base + coords @ np.asarray(self.strides, np.int64)
        return self.base + self.placement.offsets(coords)

    def _with(self, base, lx_core) -> MemoryView:
        view = object.__new__(MemoryView)
        for name in MemoryView.__slots__:
            setattr(view, name, getattr(self, name))
        view.base = base
        view.lx_core = lx_core
        return view

    @property
    def varying(self) -> bool:
        return _lanes(self.base) or _lanes(self.lx_core)

    def take_lanes(self, idx: np.ndarray) -> MemoryView:
        return self._with(
            self.base[idx] if _lanes(self.base) else self.base,
            self.lx_core[idx] if _lanes(self.lx_core) else self.lx_core,
        )

    def lane(self, lane: int) -> MemoryView:
        return self._with(_lane(self.base, lane), _lane(self.lx_core, lane))

    def valid(self, coords: np.ndarray) -> np.ndarray:
        """Which local coordinates [N, rank] the view holds."""
        ok = (coords >= 0).all(axis=1) & (coords < np.asarray(self.valid_hi, dtype=np.int64)).all(axis=1)
        if not self.exact:
            dims = [coords[:, i] + self.lo[i] for i in range(coords.shape[1])]
            ok &= np.asarray(compile_set(self.cset)(dims, self.cset_syms), dtype=bool)
        return ok

    def contains_global(self, coords: np.ndarray) -> np.ndarray:
        return self.valid(coords - np.asarray(self.lo, dtype=np.int64))

    def global_box(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """[lo, hi) in global coordinates when the partition is exactly a box."""
        if not self.exact:
            return None
        return self.lo, tuple(a + n for a, n in zip(self.lo, self.valid_hi))

    def describe(self) -> str:
        shape = "x".join(str(s) for s in self.sizes)
        return f"{shape}x{self.fmt.name} view"


class Placement:
    """Where the elements of a view marked with a layout are: the physical
    tensor of `layout` over the view's (static) `sizes` padded to whole
    sticks (`Layout.padded_shape`), stored contiguously from the view's base
    (see `spyre_mlir.analysis.layout`). A `[8, 48]` f32 view with sticks of
    32 on d1 is the physical `[2, 8, 32]` tensor of `[8, 64]`: element
    `(i, j)` at `(j floordiv 32) * 256 + i * 32 + j mod 32`; the padding
    (`j >= 48`) is outside the view, so no access reaches it."""

    __slots__ = ("layout", "sizes", "dims", "_expanded")

    def __init__(self, layout, sizes: tuple[int, ...]):
        self.layout = layout
        self.sizes = sizes
        strides = layout.physical_strides(sizes, pad=True)
        dims = []
        for d in range(layout.rank):
            ks = layout.axes_of(d)
            if len(ks) == 1:
                dims.append((0, strides[ks[0]], 0))  # whole: (no stick, stride, -)
            else:
                outer, inner = ks
                dims.append((layout.axes[outer].stick, strides[outer], strides[inner]))
        self.dims = tuple(dims)  # per logical dim: (stick or 0, outer stride, inner stride)
        self._expanded: dict[int, tuple] = {}

    def offsets(self, coords: np.ndarray) -> np.ndarray:
        """Element offsets from the base of local coordinates [..., rank]."""
        coords = np.asarray(coords, np.int64)
        total = np.zeros(coords.shape[:-1], np.int64)
        for d, (stick, outer, inner) in enumerate(self.dims):
            c = coords[..., d]
            if stick:
                total += (c // stick) * outer + (c % stick) * inner
            else:
                total += c * outer
        return total

    def box(self, first: tuple, extents: tuple[int, ...]):
        """The box `first + [0, extents)` (per dim an int or a lane array) as a
        strided box of memory: (offset of its first element from the base, int
        or lane array; its extents; its element strides), with a split dim
        that spans whole sticks as two axes (sticks, stick); None when some
        lane's box cuts a stick without staying inside it."""
        start = 0
        ext: list[int] = []
        strides: list[int] = []
        for f, e, (stick, outer, inner) in zip(first, extents, self.dims):
            if not stick:
                start = start + f * outer
                ext.append(e)
                strides.append(outer)
                continue
            lanes = type(f) is np.ndarray
            q, r = (f // stick, f % stick) if lanes else divmod(f, stick)
            if e <= stick:  # inside one stick
                if (r + e > stick).any() if lanes else r + e > stick:
                    return None
                start = start + q * outer + r * inner
                ext.append(e)
                strides.append(inner)
            else:  # whole sticks
                if e % stick or ((r != 0).any() if lanes else r):
                    return None
                start = start + q * outer
                ext += [e // stick, stick]
                strides += [outer, inner]
        return start, tuple(ext), tuple(strides)

    def expanded(self, geom: TileGeometry, ext: tuple[int, ...]) -> TileGeometry:
        """A geometry (set order) of the box `ext` that `box` returned for `geom`'s
        extents when they differ (a split dim as two axes): the box's members."""
        cached = self._expanded.get(id(geom))
        if cached is not None and cached[0] is geom:
            return cached[1]
        mask = None if geom.box_mask is None else geom.box_mask.reshape(ext)
        expanded = TileGeometry(geom.lo, ext, tuple(range(len(ext))), mask, mask)
        if len(self._expanded) > 256:
            self._expanded.clear()
        self._expanded[id(geom)] = (geom, expanded)
        return expanded


class DistributedView:
    """One logical view over the union of its partitions' coordinate sets."""

    __slots__ = ("fmt", "parts", "op")

    def __init__(self, fmt: ElementFormat, parts: list[MemoryView], op: Operation | None):
        self.fmt = fmt
        self.parts = parts
        self.op = op

    @property
    def varying(self) -> bool:
        return any(p.varying for p in self.parts)

    def take_lanes(self, idx: np.ndarray) -> DistributedView:
        return DistributedView(self.fmt, [p.take_lanes(idx) for p in self.parts], self.op)

    def lane(self, lane: int) -> DistributedView:
        return DistributedView(self.fmt, [p.lane(lane) for p in self.parts], self.op)

    def describe(self) -> str:
        return f"distributed view of {len(self.parts)} partitions"

    def check_disjoint(self) -> None:
        """KTDP-SEMANTICS §3 Rec: overlapping partitions are an error."""
        for i, a in enumerate(self.parts):
            for j in range(i + 1, len(self.parts)):
                b = self.parts[j]
                box_a, box_b = a.global_box(), b.global_box()
                lo = [max(x, y) for x, y in zip(a.lo, b.lo)]
                hi = [min(x + n, y + m) for x, n, y, m in zip(a.lo, a.valid_hi, b.lo, b.valid_hi)]
                if any(l >= h for l, h in zip(lo, hi)):
                    continue
                if box_a is not None and box_b is not None:
                    overlap = lo
                else:
                    grid = np.indices([h - l for l, h in zip(lo, hi)], dtype=np.int64).reshape(len(lo), -1).T
                    points = grid + np.asarray(lo, dtype=np.int64)
                    both = a.contains_global(points) & b.contains_global(points)
                    if not both.any():
                        continue
                    overlap = [int(c) for c in points[np.argmax(both)]]
                raise InterpreterError(
                    f"partitions #{i} and #{j} of the distributed view overlap (both hold coordinate "
                    f"({', '.join(str(int(c)) for c in overlap)}))"
                )


# ===========================================================================
# Tiles
# ===========================================================================


class BoxTile:
    """Coordinates `first + box` of a view, in the order of `geom`."""

    __slots__ = ("view", "first", "geom", "op")

    def __init__(self, view, first: tuple, geom: TileGeometry, op: Operation | None):
        self.view = view
        self.first = first  # per view dim: anchor + set lower corner (int or lane array)
        self.geom = geom
        self.op = op

    @property
    def shape(self) -> tuple[int, ...]:
        return self.geom.shape

    @property
    def varying(self) -> bool:
        return any(_lanes(f) for f in self.first) or self.view.varying

    def take_lanes(self, idx: np.ndarray) -> BoxTile:
        return BoxTile(
            self.view.take_lanes(idx), tuple(f[idx] if _lanes(f) else f for f in self.first), self.geom, self.op
        )

    def lane(self, lane: int) -> BoxTile:
        return BoxTile(self.view.lane(lane), tuple(_lane(f, lane) for f in self.first), self.geom, self.op)

    def points(self) -> PointTile:
        offsets = self.geom.member_offsets()
        if any(_lanes(f) for f in self.first):
            first = np.stack(np.broadcast_arrays(*[np.asarray(f, np.int64) for f in self.first]), axis=-1)
            coords = offsets[None, :, :] + first[:, None, :]
        else:
            coords = offsets + np.asarray(self.first, dtype=np.int64)
        return PointTile(self.view, coords, self.geom.shape, self.geom.tile_mask, self.op)


class PointTile:
    """Explicit view coordinates [N, rank] of the tile's members, in tile C order."""

    __slots__ = ("view", "coords", "shape", "member", "op")

    def __init__(self, view, coords: np.ndarray, shape: tuple[int, ...], member: np.ndarray | None, op):
        self.view = view
        self.coords = coords  # [N, rank], or [lanes, N, rank]
        self.shape = shape
        self.member = member  # tile-shaped bool mask, None if every position is a member
        self.op = op

    @property
    def varying(self) -> bool:
        return self.coords.ndim == 3 or self.view.varying

    def take_lanes(self, idx: np.ndarray) -> PointTile:
        coords = self.coords[idx] if self.coords.ndim == 3 else self.coords
        view = self.view.take_lanes(idx) if self.view.varying else self.view
        return PointTile(view, coords, self.shape, self.member, self.op)

    def lane(self, lane: int) -> PointTile:
        coords = self.coords[lane] if self.coords.ndim == 3 else self.coords
        view = self.view.lane(lane) if self.view.varying else self.view
        return PointTile(view, coords, self.shape, self.member, self.op)


# ===========================================================================
# Access
# ===========================================================================


class Access:
    """What a load or store needs besides the tile: memory and options."""

    __slots__ = ("hbm", "lx_space", "mask_out_of_bounds", "check_uninitialized", "memory_limit")

    def __init__(
        self,
        hbm: AddressSpace,
        lx_space,
        mask_out_of_bounds: bool,
        check_uninitialized: bool,
        memory_limit: int | None = None,
    ):
        self.hbm = hbm
        self.lx_space = lx_space  # core id -> AddressSpace
        self.mask_out_of_bounds = mask_out_of_bounds
        self.check_uninitialized = check_uninitialized
        self.memory_limit = memory_limit

    def check_points(self, tile: BoxTile, ctx) -> None:
        """Refuse the point path of a tile whose coordinates would not fit in the memory limit."""
        if self.memory_limit is None:
            return
        lanes = ctx.count if tile.varying and ctx.count else 1
        points = tile.geom.size * lanes
        need = points * 8 * (len(tile.geom.extents) + 3)
        if need > self.memory_limit:
            raise InterpreterError(
                f"the {points} points of the access tile would allocate {format_bytes(need)} for their "
                f"coordinates, over the {format_bytes(self.memory_limit)} memory limit",
                _tile_note(tile),
            )

    def space(self, view: MemoryView) -> AddressSpace:
        return self.hbm if view.lx_core is None else self.lx_space(view.lx_core)


def _tile_note(tile) -> tuple[tuple[Operation | None, str], ...]:
    if tile is None or tile.op is None:
        return ()
    return ((tile.op, "access tile constructed here"),)


def _check_written(seg: Segment, space: AddressSpace, fmt: ElementFormat, mask: np.ndarray, first_address) -> None:
    if space.check_uninitialized and not all_written(mask):
        raise InterpreterError(
            f"read of uninitialized {space.name}: the tile includes {fmt.name} elements (from element address "
            f"{first_address}) that were never written"
        )


def load(tile, ctx, access: Access) -> np.ndarray:
    """The tile's data as a fresh tensor (with a lane axis when `tile.varying`)."""
    if type(tile) is BoxTile:
        view = tile.view
        if type(view) is DistributedView:
            part = _partition_holding(view, tile)
            if part is not None:
                tile = part
                view = tile.view
        if type(view) is MemoryView:
            out = _load_box(tile, ctx, access) if not _lanes(view.lx_core) else _load_box_per_core(tile, ctx, access)
            if out is not None:
                return out
        access.check_points(tile, ctx)
        tile = tile.points()
    return _load_points(tile, ctx, access)


def _load_box_per_core(tile: BoxTile, ctx, access: Access) -> np.ndarray | None:
    """A box tile of the executing core's own LX on a batch of cores (`lx_core` a lane
    array): each lane reads its core's address space, so the lanes are no one strided
    read. At a lane-invariant address (LX at a fixed offset, `spyre-plan-scratchpad`)
    the box is located once and each core's box is one strided copy into the batch;
    otherwise each lane takes the box path on its own. None (the point path for all)
    when a lane cannot."""
    view = tile.view
    if _lanes(view.base) or any(_lanes(f) for f in tile.first):
        out = []
        for lane in range(ctx.count):
            one = _load_box(tile.lane(lane), ctx, access)
            if one is None:
                return None
            out.append(one)
        return np.stack(out)
    geom = tile.geom
    if geom.size == 0 or not view.exact or not _in_bounds(view, tile):
        return None
    located = _memory_box(view, tile)
    if located is None:
        return None
    start, box, strides = located
    fmt = view.fmt
    dtype = fmt.storage
    size = dtype.itemsize
    low, high = _box_span(strides, box.extents)
    lo, hi = (start + low) * size, (start + high + 1) * size
    cores = view.lx_core.tolist()
    data = np.empty((len(cores), *box.extents), dtype)
    init = None  # the initialization bytes of the lanes whose segment tracks them
    byte_strides = tuple(s * size for s in strides)
    checked = []  # (lane, space, segment) whose initialization is checked
    for lane, core in enumerate(cores):
        space = access.lx_space(core)
        seg = space.locate(lo, hi, False, size, geom.size * size)
        if seg is None:
            return None
        _stay_home(space, seg, view.base, size, start + low, start + high + 1)
        data[lane] = np.ndarray(
            box.extents, dtype, buffer=seg.data, offset=start * size - seg.start, strides=byte_strides
        )
        if seg.init is not None:
            if init is None:
                init = np.full((len(cores), *box.extents), np.iinfo(f"u{size}").max, f"u{size}")
            init[lane] = np.ndarray(
                box.extents, init.dtype, buffer=seg.init, offset=start * size - seg.start, strides=byte_strides
            )
            checked.append((lane, space, seg))
    if init is not None and not all_written(init):  # the first lane that read unwritten bytes says so
        for lane, space, seg in checked:
            _check_written(seg, space, fmt, init[lane], start + low)
    if box is not geom:
        data = data.reshape(len(cores), *geom.extents)
    out = fmt.from_storage(data if geom.identity else np.ascontiguousarray(data.transpose(geom.lane_perm)))
    if geom.tile_mask is not None:
        out = np.where(geom.tile_mask, out, np.zeros((), out.dtype))
    return out


def store(tile, data: np.ndarray, ctx, access: Access) -> None:
    if type(tile) is BoxTile:
        view = tile.view
        if type(view) is DistributedView:
            part = _partition_holding(view, tile)
            if part is not None:
                tile = part
                view = tile.view
        if type(view) is MemoryView:
            if (
                _store_box(tile, data, ctx, access)
                if not _lanes(view.lx_core)
                else _store_box_per_core(tile, data, ctx, access)
            ):
                return
        access.check_points(tile, ctx)
        tile = tile.points()
    _store_points(tile, data, ctx, access)


def _store_box_per_core(tile: BoxTile, data: np.ndarray, ctx, access: Access) -> bool:
    """The store counterpart of `_load_box_per_core`, lane by lane in lane order. False
    (the point path for all) when a lane cannot take the box path: the lanes written
    before it are written again, with the same data."""
    view = tile.view
    lanes_in_data = data.ndim == len(tile.geom.shape) + 1
    if _lanes(view.base) or any(_lanes(f) for f in tile.first):
        for lane in range(ctx.count):
            if not _store_box(tile.lane(lane), data[lane] if lanes_in_data else data, ctx, access):
                return False
        return True
    if tile.geom.size == 0 or not view.exact or not _in_bounds(view, tile):
        return False
    placed = _box_data(view, tile, data, lanes_in_data)
    if placed is None:
        return False
    start, geom, strides, data = placed
    fmt = view.fmt
    dtype = fmt.storage
    size = dtype.itemsize
    low, high = _box_span(strides, geom.extents)
    lo, hi = (start + low) * size, (start + high + 1) * size
    raw = fmt.to_storage(data)
    byte_strides = tuple(s * size for s in strides)
    written = np.dtype(f"u{size}")
    full = np.iinfo(written).max
    for lane, core in enumerate(view.lx_core.tolist()):
        space = access.lx_space(core)
        seg = space.locate(lo, hi, True, size, geom.size * size)
        if seg is None:
            return False
        _stay_home(space, seg, view.base, size, start + low, start + high + 1)
        offset = start * size - seg.start
        dst = np.ndarray(geom.extents, dtype, buffer=seg.data, offset=offset, strides=byte_strides)
        _write(dst if geom.identity else dst.transpose(geom.perm), raw[lane] if lanes_in_data else raw, geom.tile_mask)
        if seg.init is not None:
            init = np.ndarray(geom.extents, written, buffer=seg.init, offset=offset, strides=byte_strides)
            _write(init if geom.identity else init.transpose(geom.perm), full, geom.tile_mask)
    return True


def _partition_holding(view: DistributedView, tile: BoxTile) -> BoxTile | None:
    """The tile as a tile of the one partition holding its whole box, if any."""
    lo = [int(np.min(f)) for f in tile.first]
    hi = [int(np.max(f)) + e for f, e in zip(tile.first, tile.geom.extents)]
    for part in view.parts:
        box = part.global_box()
        if box is None:
            continue
        if all(a <= l and h <= b for l, h, a, b in zip(lo, hi, box[0], box[1])):
            first = tuple(f - a for f, a in zip(tile.first, part.lo))
            return BoxTile(part, first, tile.geom, tile.op)
    return None


def _box_span(strides: tuple[int, ...], extents: tuple[int, ...]) -> tuple[int, int]:
    """Element offsets of the box's lowest and highest element relative to its first."""
    low = sum((e - 1) * s for e, s in zip(extents, strides) if s < 0 and e > 0)
    high = sum((e - 1) * s for e, s in zip(extents, strides) if s > 0 and e > 0)
    return low, high


def _in_bounds(view: MemoryView, tile: BoxTile) -> bool:
    for f, e, hi in zip(tile.first, tile.geom.extents, view.valid_hi):
        if type(f) is np.ndarray:
            values = f.tolist()  # min/max of a few lanes: faster in Python than in NumPy
            if min(values) < 0 or max(values) + e > hi:
                return False
        elif f < 0 or f + e > hi:
            return False
    return True


def _start(view: MemoryView, first: tuple):
    start = view.base
    for f, s in zip(first, view.strides):
        start = start + f * s
    return start


def _memory_box(view: MemoryView, tile: BoxTile):
    """(first element address, the box's geometry in memory, its element strides)
    of a box tile: the tile's own geometry and the view's strides for a plain
    view; for a placed view, the strided box of memory holding it (a split dim
    over whole sticks as two axes, see `Placement.box`), or None when the box
    is not one (the point path takes it)."""
    placement = view.placement
    geom = tile.geom
    if placement is None:
        return _start(view, tile.first), geom, view.strides
    placed = placement.box(tile.first, geom.extents)
    if placed is None:
        return None
    rel, ext, strides = placed
    return view.base + rel, geom if ext == geom.extents else placement.expanded(geom, ext), strides


def _stay_home(space: AddressSpace, seg: Segment, base, itemsize: int, first: int, end: int) -> None:
    """An access of elements [first, end) found in `seg` through a view based at
    element `base` (int or lane array): when the base lies in another placed
    array, the access left it (a view over a placed array must stay inside it)."""
    if type(base) is np.ndarray:
        values = base.tolist()
        low, high = min(values) * itemsize, max(values) * itemsize
        if seg.start <= low and high < seg.end:
            return
        for b in sorted(set(values)):
            if not seg.start <= b * itemsize < seg.end:
                space.check_home(b * itemsize, first * itemsize, end * itemsize)
        return
    byte = base * itemsize
    if not seg.start <= byte < seg.end:
        space.check_home(byte, first * itemsize, end * itemsize)


def _spacing(starts: list[int]) -> int | None:
    """The common difference of `starts` if they form an arithmetic progression."""
    if len(starts) == 1:
        return 0
    step = starts[1] - starts[0]
    previous = starts[1]
    for s in starts[2:]:
        if s - previous != step:
            return None
        previous = s
    return step


def _load_box(tile: BoxTile, ctx, access: Access) -> np.ndarray | None:
    view = tile.view
    geom = tile.geom
    if geom.size == 0 or not view.exact or _lanes(view.lx_core) or not _in_bounds(view, tile):
        return None
    located = _memory_box(view, tile)
    if located is None:
        return None
    start, box, strides = located  # `box` is `geom` unless a split dim spans whole sticks
    fmt = view.fmt
    dtype = fmt.storage
    size = dtype.itemsize
    low, high = _box_span(strides, box.extents)
    space = access.space(view)
    if type(start) is not np.ndarray:
        seg = space.locate((start + low) * size, (start + high + 1) * size, False, size, geom.size * size)
        if seg is None:
            return None
        _stay_home(space, seg, view.base, size, start + low, start + high + 1)
        data = seg.view(dtype, start, box.extents, strides)
        if seg.init is not None:
            _check_written(seg, space, fmt, seg.init_view(size, start, box.extents, strides), start + low)
        if box is not geom:
            data = data.reshape(geom.extents)
        if not geom.identity:
            data = data.transpose(geom.perm)
        out = fmt.from_storage(data.copy(order="C"))
        if tile.varying:  # a varying view whose lanes all start at one address
            out = np.broadcast_to(out, (ctx.count, *out.shape))
    else:
        starts = start.tolist()
        seg = space.locate(
            (min(starts) + low) * size, (max(starts) + high + 1) * size, False, size, len(starts) * geom.size * size
        )
        if seg is None:
            return None
        _stay_home(space, seg, view.base, size, min(starts) + low, max(starts) + high + 1)
        data = _gather_lanes(seg, dtype, starts, box, strides)
        if seg.init is not None:
            for s in set(starts):
                _check_written(seg, space, fmt, seg.init_view(size, s, box.extents, strides), s + low)
        if box is not geom:
            data = data.reshape(len(starts), *geom.extents)
        out = fmt.from_storage(data if geom.identity else np.ascontiguousarray(data.transpose(geom.lane_perm)))
    if geom.tile_mask is not None:
        out = np.where(geom.tile_mask, out, np.zeros((), out.dtype))
    return out


def _gather_lanes(seg: Segment, dtype: np.dtype, starts: list[int], geom: TileGeometry, strides: tuple[int, ...]):
    """[lanes, *extents] elements (set order) of boxes starting at `starts`, one per lane."""
    lanes = len(starts)
    step = _spacing(starts)
    if step is not None:
        return seg.view(dtype, starts[0], (lanes, *geom.extents), (step, *strides)).copy(order="C")
    distinct = sorted(set(starts))
    if geom.size >= LARGE_TILE:
        boxes = np.empty((len(distinct), *geom.extents), dtype)
        for i, s in enumerate(distinct):
            boxes[i] = seg.view(dtype, s, geom.extents, strides)
        if len(distinct) == lanes and distinct == starts:
            return boxes
        position = {s: i for i, s in enumerate(distinct)}
        return boxes[[position[s] for s in starts]]
    typed, first_elem = seg.typed(dtype)
    offsets = _box_offsets(geom.extents, strides)
    rel = np.asarray(starts, np.int64) - first_elem
    return typed[rel[:, None] + offsets[None, :]].reshape(lanes, *geom.extents)


def _box_offsets(extents: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """Element offsets of a box's elements (C order) relative to its first."""
    offsets = np.zeros((), np.int64)
    for e, s in zip(extents, strides):
        offsets = offsets[..., None] + np.arange(e, dtype=np.int64) * s
    return offsets.reshape(-1)


def _box_data(view, tile: BoxTile, data: np.ndarray, lanes_in_data: bool):
    """(start, memory box, element strides, data in the box's identity order) of a
    store through the box path, or None when the tile is no box in memory."""
    located = _memory_box(view, tile)
    if located is None:
        return None
    start, box, strides = located
    geom = tile.geom
    if box is not geom:  # the data in set order, split dims as (sticks, stick): `box`'s identity order
        lead = 1 if lanes_in_data else 0
        if not geom.identity:
            inverse = tuple(np.argsort(geom.perm).tolist())
            data = data.transpose((0, *(k + 1 for k in inverse)) if lead else inverse)
        data = data.reshape(data.shape[:lead] + box.extents)
    return start, box, strides, data


def _store_box(tile: BoxTile, data: np.ndarray, ctx, access: Access) -> bool:
    view = tile.view
    if tile.geom.size == 0 or not view.exact or _lanes(view.lx_core) or not _in_bounds(view, tile):
        return False
    lanes_in_data = data.ndim == len(tile.geom.shape) + 1
    placed = _box_data(view, tile, data, lanes_in_data)
    if placed is None:
        return False
    start, geom, strides, data = placed
    fmt = view.fmt
    dtype = fmt.storage
    size = dtype.itemsize
    low, high = _box_span(strides, geom.extents)
    space = access.space(view)
    raw = fmt.to_storage(data)
    if type(start) is not np.ndarray:
        if lanes_in_data:  # every lane writes the same elements: the last lane wins
            raw = raw[-1]
        seg = space.locate((start + low) * size, (start + high + 1) * size, True, size, geom.size * size)
        if seg is None:
            return False
        _stay_home(space, seg, view.base, size, start + low, start + high + 1)
        dst = seg.view(dtype, start, geom.extents, strides)
        _write(dst if geom.identity else dst.transpose(geom.perm), raw, geom.tile_mask)
        if seg.init is not None:
            init = seg.init_view(size, start, geom.extents, strides)
            _write(init if geom.identity else init.transpose(geom.perm), np.iinfo(init.dtype).max, geom.tile_mask)
        return True
    starts = start.tolist()
    lanes = len(starts)
    seg = space.locate(
        (min(starts) + low) * size, (max(starts) + high + 1) * size, True, size, lanes * geom.size * size
    )
    if seg is None:
        return False
    _stay_home(space, seg, view.base, size, min(starts) + low, max(starts) + high + 1)
    if not lanes_in_data:
        raw = np.broadcast_to(raw, (lanes, *raw.shape))
    step = _spacing(starts)
    if lanes > 1 and step is not None and step > 0 and step > high - low:  # lanes disjoint: one strided write
        dst = seg.view(dtype, starts[0], (lanes, *geom.extents), (step, *strides))
        _write(dst if geom.identity else dst.transpose(geom.lane_perm), raw, geom.tile_mask)
    else:  # lane by lane, in lane order, so that the last lane wins where lanes overlap
        for lane, s in enumerate(starts):
            dst = seg.view(dtype, s, geom.extents, strides)
            _write(dst if geom.identity else dst.transpose(geom.perm), raw[lane], geom.tile_mask)
    if seg.init is not None:
        full = np.iinfo(np.dtype(f"u{size}")).max
        for s in set(starts):
            init = seg.init_view(size, s, geom.extents, strides)
            _write(init if geom.identity else init.transpose(geom.perm), full, geom.tile_mask)
    return True


def _write(dst: np.ndarray, src, mask: np.ndarray | None) -> None:
    if mask is None:
        dst[...] = src
    else:
        np.copyto(dst, src, where=mask)


# -- point path --------------------------------------------------------------


def _load_points(tile: PointTile, ctx, access: Access) -> np.ndarray:
    if tile.varying:
        return np.stack([_load_points_one(tile.lane(lane), ctx, lane, access) for lane in range(ctx.count)])
    return _load_points_one(tile, ctx, None, access)


def _load_points_one(tile: PointTile, ctx, lane: int | None, access: Access) -> np.ndarray:
    fmt = tile.view.fmt
    values = _gather(tile.view, tile.coords, tile, ctx, lane, access)
    if tile.member is None:
        return values.reshape(tile.shape)
    out = np.zeros(tile.shape, fmt.compute)
    out[tile.member] = values
    return out


def _store_points(tile: PointTile, data: np.ndarray, ctx, access: Access) -> None:
    lanes_in_data = data.ndim == len(tile.shape) + 1
    if tile.varying or lanes_in_data:
        count = ctx.count
        for lane in range(count):
            one = tile.lane(lane) if tile.varying else tile
            _store_points_one(one, data[lane] if lanes_in_data else data, ctx, lane, access)
        return
    _store_points_one(tile, data, ctx, None, access)


def _store_points_one(tile: PointTile, data: np.ndarray, ctx, lane, access: Access) -> None:
    values = data.reshape(-1) if tile.member is None else data[tile.member]
    _scatter(tile.view, tile.coords, values, tile, ctx, lane, access)


def _outside(view, coords: np.ndarray, bad: np.ndarray, tile, ctx, lane) -> InterpreterError:
    coord = "(" + ", ".join(str(int(c)) for c in coords[np.argmax(bad)]) + ")"
    if isinstance(view, DistributedView):
        what = "is in no partition of the distributed view"
    else:
        bounds = ", ".join(f"0 <= c{i} < {n}" for i, n in enumerate(view.valid_hi))
        what = f"is outside the {view.describe()} (valid: {bounds}" + (
            ")" if view.exact else ", in its coordinate_set)"
        )
    where = f" on {ctx.describe(lane)}" if ctx is not None else ""
    return InterpreterError(f"access outside the view: coordinate {coord} {what}{where}", _tile_note(tile))


def _owners(view: DistributedView, coords: np.ndarray) -> np.ndarray:
    owner = np.full(coords.shape[0], -1, np.int64)
    for i, part in enumerate(view.parts):
        owner[(owner < 0) & part.contains_global(coords)] = i
    return owner


def _gather(view, coords: np.ndarray, tile, ctx, lane, access: Access) -> np.ndarray:
    fmt = view.fmt
    if isinstance(view, DistributedView):
        owner = _owners(view, coords)
        if (owner < 0).any() and not access.mask_out_of_bounds:
            raise _outside(view, coords, owner < 0, tile, ctx, lane)
        out = np.zeros(coords.shape[0], fmt.compute)
        for i, part in enumerate(view.parts):
            sel = owner == i
            if sel.any():
                out[sel] = _gather(part, coords[sel] - np.asarray(part.lo, np.int64), tile, ctx, lane, access)
        return out
    valid = view.valid(coords)
    selected = None
    if not valid.all():
        if not access.mask_out_of_bounds:
            raise _outside(view, coords, ~valid, tile, ctx, lane)
        selected = valid
        coords = coords[valid]
    values = np.zeros(coords.shape[0], fmt.compute)
    if coords.shape[0]:
        offsets = view.element_offsets(coords)
        space = access.space(view)
        size = fmt.storage.itemsize
        for seg, sel in space.locate_points(offsets, size, False, _anchor(view, size)):
            if seg is None:  # never written, read as zero (check_uninitialized is off)
                continue
            typed, first_elem = seg.typed(fmt.storage)
            rel = offsets[sel] - first_elem
            values[sel] = fmt.from_storage(typed[rel])
            if seg.init is not None:
                _check_written(seg, space, fmt, seg.typed_init(size)[rel], int(offsets[sel].min()))
    if selected is None:
        return values
    out = np.zeros(selected.shape[0], fmt.compute)
    out[selected] = values
    return out


def _anchor(view: MemoryView, itemsize: int) -> int | None:
    base = view.base
    return int(base) * itemsize if not isinstance(base, np.ndarray) else None


def _scatter(view, coords: np.ndarray, values: np.ndarray, tile, ctx, lane, access: Access) -> None:
    fmt = view.fmt
    if isinstance(view, DistributedView):
        owner = _owners(view, coords)
        if (owner < 0).any() and not access.mask_out_of_bounds:
            raise _outside(view, coords, owner < 0, tile, ctx, lane)
        for i, part in enumerate(view.parts):
            sel = owner == i
            if sel.any():
                local = coords[sel] - np.asarray(part.lo, np.int64)
                _scatter(part, local, values[sel], tile, ctx, lane, access)
        return
    valid = view.valid(coords)
    if not valid.all():
        if not access.mask_out_of_bounds:
            raise _outside(view, coords, ~valid, tile, ctx, lane)
        coords, values = coords[valid], values[valid]
    if not coords.shape[0]:
        return
    offsets = view.element_offsets(coords)
    space = access.space(view)
    size = fmt.storage.itemsize
    raw = fmt.to_storage(np.asarray(values, fmt.compute))
    for seg, sel in space.locate_points(offsets, size, True, _anchor(view, size)):
        typed, first_elem = seg.typed(fmt.storage)
        rel = offsets[sel] - first_elem
        typed[rel] = raw[sel]
        if seg.init is not None:
            init = seg.typed_init(size)
            init[rel] = np.iinfo(init.dtype).max
