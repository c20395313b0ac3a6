"""Address spaces: the HBM shared by all cores and each core's LX scratchpad.

An address space is byte-addressed and sparse: a sorted list of disjoint
segments, each a contiguous NumPy byte buffer at a byte address, found by
bisection. Views address it in *elements of their own element type*
(KTDP-SEMANTICS §2): element offset `e` of an f16 view is byte `2 * e`.

Two kinds of segment:

- *fixed*: a host array placed by the caller (a kernel argument, an `hbm=`
  preload). Fully initialized; an access that starts inside it and runs past
  its end is an error, never a silent read of a neighbour.
- *scratch*: memory the kernel writes where nothing was placed (constant
  addresses, LX buffers). Created page-wise on the first store, merged with
  neighbouring scratch when one access spans several (growing with room to
  spare, so that memory written in ascending or descending order costs
  amortized linear time), and tracked byte by byte for initialization so
  that reading a byte nobody wrote is an error (or zero, when
  `check_uninitialized` is off).

Scattered accesses (`locate_points`) are grouped by the segment holding each
address; addresses in no segment are clustered (a gap of more than a page
starts a new cluster) and each cluster becomes its own scratch, so 20,000
stores to scattered addresses cost 20,000 small segments, not one buffer
spanning them all.

Every byte of scratch (data and initialization mask) and every copy of a
caller's array is charged to a `MemoryBudget`; an allocation that would
exceed it is refused before it is made.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from spyre_mlir.interpreter.errors import InterpreterError

PAGE = 4096
"""Granularity of scratch segments, in bytes."""

SCATTER_GRANULE = 64
"""Granularity of the scratch created for scattered stores (a cluster of
nearby addresses each), so that a million scattered elements cost about
128 MiB, not 8 GiB of pages."""

MAX_SLACK = 64 << 20
"""Most room left to grow when scratch segments are merged."""

ADDRESS_LIMIT = 1 << 62
"""Byte addresses the interpreter models: [0, 2^62)."""


def format_bytes(n: int) -> str:
    """`n` bytes for a message: "512 bytes", "2 MiB", "1.1 TiB"."""
    if n < 1024:
        return f"{n} bytes"
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        n_unit = n / 1024
        if n_unit < 1024 or unit == "EiB":
            text = f"{n_unit:.1f}".removesuffix(".0")
            return f"{text} {unit}"
        n = n_unit  # type: ignore[assignment]
    raise AssertionError


class MemoryBudget:
    """Bytes the interpreter may allocate in one run (`InterpreterOptions.memory_limit`)."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int):
        self.limit = limit
        self.used = 0

    def reserve(self, nbytes: int, what: str, released: int = 0) -> None:
        """Charge `nbytes` (after giving back `released`), or refuse with an error naming `what`."""
        if self.used - released + nbytes > self.limit:
            already = self.used - released
            extra = f" ({format_bytes(already)} already allocated)" if already > 0 and nbytes <= self.limit else ""
            raise InterpreterError(
                f"{what} would allocate {format_bytes(nbytes)}, over the {format_bytes(self.limit)} memory limit{extra}"
            )
        self.used += nbytes - released


class Segment:
    """A contiguous range of bytes of one address space."""

    __slots__ = ("start", "data", "init", "owner", "fixed", "shared")

    def __init__(
        self,
        start: int,
        data: np.ndarray,
        owner: str,
        fixed: bool,
        init: np.ndarray | None = None,
        shared: bool = False,
    ):
        self.start = start
        self.data = data  # uint8, C-contiguous; writable unless shared
        self.init = init  # uint8 per byte (0xFF = written), None = all initialized
        self.owner = owner
        self.fixed = fixed
        self.shared = shared  # data is the caller's array, copied on the first write

    @property
    def end(self) -> int:
        return self.start + self.data.size

    @property
    def cost(self) -> int:
        """Bytes of it charged to the budget."""
        if self.shared:
            return 0
        return self.data.size * (2 if self.init is not None else 1)

    def view(self, dtype: np.dtype, elem_start: int, shape: tuple[int, ...], elem_strides: tuple[int, ...]) -> np.ndarray:
        """A strided NumPy view of elements of `dtype`; the caller checked bounds."""
        size = dtype.itemsize
        return np.ndarray(
            shape,
            dtype,
            buffer=self.data,
            offset=elem_start * size - self.start,
            strides=tuple(s * size for s in elem_strides),
        )

    def init_view(self, itemsize: int, elem_start: int, shape: tuple[int, ...], elem_strides: tuple[int, ...]):
        """The initialization bytes of the same elements, one unsigned int per element."""
        assert self.init is not None
        return np.ndarray(
            shape,
            np.dtype(f"u{itemsize}"),
            buffer=self.init,
            offset=elem_start * itemsize - self.start,
            strides=tuple(s * itemsize for s in elem_strides),
        )

    def _aligned(self, itemsize: int) -> slice:
        skip = (-self.start) % itemsize
        return slice(skip, skip + (self.data.size - skip) // itemsize * itemsize)

    def typed(self, dtype: np.dtype) -> tuple[np.ndarray, int]:
        """The whole elements of `dtype` in the segment, and the element address of the first."""
        size = dtype.itemsize
        if size == 1 or (self.start % size == 0 and self.data.size % size == 0):
            return self.data.view(dtype), self.start // size
        return self.data[self._aligned(size)].view(dtype), -(-self.start // size)

    def typed_init(self, itemsize: int) -> np.ndarray:
        """The initialization bytes of the same elements as `typed`, one unsigned int per element."""
        assert self.init is not None
        if itemsize == 1 or (self.start % itemsize == 0 and self.data.size % itemsize == 0):
            return self.init.view(np.dtype(f"u{itemsize}"))
        return self.init[self._aligned(itemsize)].view(np.dtype(f"u{itemsize}"))


def all_written(mask: np.ndarray) -> bool:
    """Whether every element of an `init_view`/`typed_init` selection is fully written."""
    return bool((mask == np.iinfo(mask.dtype).max).all())


class AddressSpace:
    """HBM, or the LX scratchpad of one core."""

    def __init__(
        self,
        name: str,
        capacity: int | None = None,
        check_uninitialized: bool = True,
        budget: MemoryBudget | None = None,
    ):
        self.name = name
        self.capacity = capacity
        self.check_uninitialized = check_uninitialized
        self.budget = budget if budget is not None else MemoryBudget(1 << 62)
        self.segments: list[Segment] = []
        self._starts: list[int] = []
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None  # starts, ends as arrays (for scattered access)
        self.high_water = 0  # highest byte end accessed

    # -- placement ------------------------------------------------------

    def place(self, byte_start: int, array: np.ndarray, owner: str) -> Segment:
        """Put `array` at `byte_start` as a fixed segment. The caller's array
        is never modified: its bytes are copied when the kernel first writes them."""
        if byte_start + array.nbytes > ADDRESS_LIMIT:
            raise InterpreterError(f"{owner} at byte address {byte_start} ends beyond the modelled 2^62-byte address space")
        contiguous = array.flags.c_contiguous
        if not contiguous:
            self.budget.reserve(array.nbytes, f"copying {owner} (not C-contiguous)")
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        if not np.may_share_memory(raw, array):
            shared = False  # already a private copy
        else:
            raw = raw.view()
            raw.flags.writeable = False
            shared = True
        end = byte_start + raw.size
        i = bisect.bisect_right(self._starts, byte_start) - 1
        for seg in self.segments[max(i, 0) : bisect.bisect_left(self._starts, end)]:
            if seg.start < end and byte_start < seg.end:
                raise InterpreterError(
                    f"{owner} at byte address {byte_start} overlaps {seg.owner} at byte address {seg.start}"
                )
        segment = Segment(byte_start, raw, owner, fixed=True, shared=shared)
        self._insert(segment)
        return segment

    def end_of_fixed(self) -> int:
        return max((s.end for s in self.segments if s.fixed), default=0)

    def _insert(self, segment: Segment) -> None:
        i = bisect.bisect_left(self._starts, segment.start)
        self.segments.insert(i, segment)
        self._starts.insert(i, segment.start)
        self._arrays = None

    def _own(self, seg: Segment) -> None:
        """Copy the caller's bytes before the first write to them."""
        self.budget.reserve(seg.data.size, f"copying {seg.owner} before the kernel writes it")
        seg.data = seg.data.copy()
        seg.shared = False

    # -- lookup ---------------------------------------------------------

    def locate(self, lo: int, hi: int, write: bool, itemsize: int = 1, touched: int | None = None) -> Segment:
        """The segment holding bytes [lo, hi); scratch is created for writes.
        `itemsize` only serves messages (element addresses). With `touched`
        (the bytes the access really reads or writes in that range): None
        when no segment holds the range and it is sparse (more than 4x
        `touched` plus two pages), for the caller to access it point by point."""
        if hi > self.high_water:
            self.high_water = hi
        i = bisect.bisect_right(self._starts, lo) - 1
        if i >= 0:
            seg = self.segments[i]
            if hi <= seg.start + seg.data.size:
                if write and seg.shared:
                    self._own(seg)
                return seg
        if touched is not None and hi - lo > 4 * touched + 2 * PAGE:
            return None  # type: ignore[return-value]
        return self._locate_slow(lo, hi, write, i, itemsize)

    def find(self, lo: int, hi: int) -> Segment | None:
        """The segment holding all of bytes [lo, hi), if one does (nothing is created)."""
        i = bisect.bisect_right(self._starts, lo) - 1
        if i >= 0:
            seg = self.segments[i]
            if hi <= seg.start + seg.data.size:
                return seg
        return None

    def _check_range(self, lo: int, hi: int) -> None:
        if lo < 0:
            raise InterpreterError(f"negative {self.name} address: byte {lo}")
        if self.capacity is not None and hi > self.capacity:
            raise InterpreterError(
                f"access to bytes [{lo}, {hi}) is beyond the {self.capacity}-byte {self.name} scratchpad"
            )
        if hi > ADDRESS_LIMIT:
            raise InterpreterError(
                f"access to {self.name} bytes [{lo}, {hi}) is beyond the modelled 2^62-byte address space"
            )

    def _locate_slow(self, lo: int, hi: int, write: bool, i: int, itemsize: int, granule: int = PAGE) -> Segment:
        self._check_range(lo, hi)
        containing = self.segments[i] if i >= 0 and self.segments[i].end > lo else None
        if containing is not None and containing.fixed:
            raise InterpreterError(
                f"access to {self.name} bytes [{lo}, {hi}) runs past the end of {containing.owner} "
                f"(bytes [{containing.start}, {containing.end}))"
            )
        first = i if containing is not None else i + 1
        last = bisect.bisect_left(self._starts, hi)  # segments[first:last] overlap [lo, hi)
        for seg in self.segments[first:last]:
            if seg.fixed:
                raise InterpreterError(
                    f"access to {self.name} bytes [{lo}, {hi}) starts before {seg.owner} "
                    f"(bytes [{seg.start}, {seg.end})) and runs into it"
                )
        if not write and self.check_uninitialized:
            first_unmapped = lo if containing is None else containing.end
            element = f" (element address {first_unmapped // itemsize})" if itemsize > 1 else ""
            raise InterpreterError(
                f"read of uninitialized {self.name}: byte address {first_unmapped}{element} was never written"
            )
        return self._grow_scratch(lo, hi, first, last, granule)

    def _grow_scratch(self, lo: int, hi: int, first: int, last: int, granule: int = PAGE) -> Segment:
        """A scratch segment covering [lo, hi) and replacing the (scratch) segments[first:last]."""
        old = self.segments[first:last]
        new_lo = min(lo, old[0].start) if old else lo
        new_hi = max(hi, old[-1].end) if old else hi
        # Round out to pages, but never over a neighbouring segment.
        floor = self.segments[first - 1].end if first > 0 else 0
        ceiling = self.segments[last].start if last < len(self.segments) else None
        new_lo = max(new_lo - new_lo % granule, floor)
        new_hi = new_hi + (-new_hi) % granule
        if old:  # growing: leave room to grow again the same way (amortized linear)
            slack = min(max(sum(s.data.size for s in old), PAGE), MAX_SLACK)
            if hi > old[-1].end:
                new_hi += slack
            if lo < old[0].start:
                new_lo = max(new_lo - slack, floor)
        if ceiling is not None:
            new_hi = min(new_hi, ceiling)
        if self.capacity is not None:
            new_hi = min(new_hi, self.capacity)
        new_hi = min(new_hi, ADDRESS_LIMIT)
        size = new_hi - new_lo
        self.budget.reserve(
            2 * size, f"{self.name} memory at bytes [{new_lo}, {new_hi})", released=sum(s.cost for s in old)
        )
        data = np.zeros(size, np.uint8)
        init = np.zeros(size, np.uint8)
        for seg in old:
            a = seg.start - new_lo
            data[a : a + seg.data.size] = seg.data
            init[a : a + seg.data.size] = 0xFF if seg.init is None else seg.init
        del self.segments[first:last]
        del self._starts[first:last]
        segment = Segment(new_lo, data, f"scratch {self.name}", fixed=False, init=init)
        self._insert(segment)
        return segment

    # -- scattered access -----------------------------------------------

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            starts = np.array(self._starts, np.int64)
            ends = np.array([s.end for s in self.segments], np.int64)
            self._arrays = (starts, ends)
        return self._arrays

    def _assign(self, byte_lo: np.ndarray, itemsize: int) -> tuple[np.ndarray, np.ndarray]:
        """Per address: index of the segment it starts in (or -1), and whether the element lies inside it."""
        starts, ends = self._bounds()
        if not starts.size:
            return np.full(byte_lo.shape, -1, np.int64), np.zeros(byte_lo.shape, bool)
        idx = np.searchsorted(starts, byte_lo, side="right") - 1
        inside = (idx >= 0) & (byte_lo + itemsize <= ends[np.maximum(idx, 0)])
        return idx, inside

    def locate_points(
        self, elements: np.ndarray, itemsize: int, write: bool, anchor: int | None = None
    ) -> list[tuple[Segment | None, np.ndarray | slice]]:
        """Element addresses (of `itemsize`-byte elements) grouped by the segment
        holding them: [(segment, indices into `elements`)]. Writes create scratch
        where nothing is; unwritten addresses read are an error, or (when
        `check_uninitialized` is off) come back under `None` and read as zero.
        `anchor` is the byte address of the view's base: when it lies in a
        placed array, every element must too (running off it is an error)."""
        if not elements.size:
            return []
        byte_lo = elements.astype(np.int64, copy=False) * itemsize
        lo, hi = int(byte_lo.min()), int(byte_lo.max()) + itemsize
        self._check_range(lo, hi)
        if hi > self.high_water:
            self.high_water = hi
        seg = self.find(lo, hi)
        if seg is not None:
            if anchor is not None and not seg.start <= anchor < seg.end:
                self.check_home(anchor, lo, hi)
            if write and seg.shared:
                self._own(seg)
            return [(seg, slice(None))]
        idx, inside = self._assign(byte_lo, itemsize)
        if anchor is not None:
            # A view over a placed array must stay inside it (as a contiguous access must).
            home = self.find(anchor, anchor + 1)
            if home is not None and home.fixed:
                stray = ~inside | (idx != bisect.bisect_right(self._starts, anchor) - 1)
                if stray.any():
                    self._off_home(home, lo, hi, int(byte_lo[np.argmax(stray)]))
        unmapped = None
        if not inside.all():
            outside = np.unique(byte_lo[~inside])
            if write:
                breaks = np.flatnonzero(np.diff(outside) > PAGE) + 1
                for chunk_lo, chunk_hi in zip(
                    outside[np.concatenate([[0], breaks])].tolist(),
                    outside[np.concatenate([breaks - 1, [outside.size - 1]])].tolist(),
                ):
                    chunk_hi += itemsize
                    i = bisect.bisect_right(self._starts, chunk_lo) - 1
                    seg = self.segments[i] if i >= 0 else None
                    if seg is None or chunk_hi > seg.end:
                        self._locate_slow(chunk_lo, chunk_hi, True, i, itemsize, SCATTER_GRANULE)
                idx, inside = self._assign(byte_lo, itemsize)
            else:
                starts, ends = self._bounds()
                # An element that overlaps a segment without lying inside it goes through the
                # contiguous path: the precise error (past the end of an argument, uninitialized),
                # or, reading unwritten memory as zero, scratch merged to hold it.
                if starts.size:
                    j = np.searchsorted(starts, outside, side="right") - 1
                    straddles = (j >= 0) & (outside < ends[np.maximum(j, 0)])
                    nxt = np.minimum(j + 1, starts.size - 1)
                    straddles |= (j + 1 < starts.size) & (starts[nxt] < outside + itemsize)
                    for p in outside[straddles].tolist():
                        self.locate(p, p + itemsize, write=False, itemsize=itemsize)
                    idx, inside = self._assign(byte_lo, itemsize)
                if self.check_uninitialized and not inside.all():
                    first = int(byte_lo[np.argmin(inside)])
                    element = f" (element address {first // itemsize})" if itemsize > 1 else ""
                    raise InterpreterError(
                        f"read of uninitialized {self.name}: byte address {first}{element} was never written"
                    )
                unmapped = np.flatnonzero(~inside)
        groups: list[tuple[Segment | None, np.ndarray | slice]] = []
        members = np.flatnonzero(inside) if unmapped is not None else None
        keys = idx if members is None else idx[members]
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        cuts = np.flatnonzero(np.diff(sorted_keys)) + 1
        for part in np.split(order, cuts) if keys.size else ():
            seg = self.segments[int(keys[part[0]])]
            if write and seg.shared:
                self._own(seg)
            groups.append((seg, part if members is None else members[part]))
        if unmapped is not None and unmapped.size:
            groups.append((None, unmapped))
        return groups

    def check_home(self, anchor: int, lo: int, hi: int) -> None:
        """Bytes [lo, hi) of an access through a view whose base is at byte
        `anchor`: when the base lies in a placed array, the access must stay in
        it (never a silent read or write of a neighbour); the caller found them
        outside the segment holding `anchor`."""
        home = self.find(anchor, anchor + 1)
        if home is not None and home.fixed:
            self._off_home(home, lo, hi, lo if lo < home.start else hi - 1)

    def _off_home(self, home: Segment, lo: int, hi: int, stray: int) -> None:
        where = "starts before" if stray < home.start else "runs past the end of"
        raise InterpreterError(
            f"access to {self.name} bytes [{lo}, {hi}) {where} {home.owner} "
            f"(bytes [{home.start}, {home.end})), which holds the view's base"
        )

    # -- host access ----------------------------------------------------

    def contents(self, lo: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """The array of `shape` at byte `lo`, without a copy when it is exactly one
        placed segment: the segment's own buffer if the kernel wrote it, else a
        read-only view of the caller's array."""
        size = math.prod(shape) * dtype.itemsize
        i = bisect.bisect_right(self._starts, lo) - 1
        if i >= 0 and self.segments[i].start == lo and self.segments[i].data.size == size:
            return self.segments[i].data.view(dtype).reshape(shape)
        return self.read_bytes(lo, size).view(dtype).reshape(shape)

    def read_bytes(self, lo: int, size: int) -> np.ndarray:
        """A copy of bytes [lo, lo + size), for results; unwritten scratch reads as zero."""
        out = np.zeros(size, np.uint8)
        first = max(bisect.bisect_right(self._starts, lo) - 1, 0)
        for seg in self.segments[first : bisect.bisect_left(self._starts, lo + size)]:
            a, b = max(lo, seg.start), min(lo + size, seg.end)
            if a < b:
                out[a - lo : b - lo] = seg.data[a - seg.start : b - seg.start]
        return out

    def mapped_bytes(self) -> int:
        return sum(s.data.size for s in self.segments)
