"""Address spaces: the HBM shared by all cores and each core's LX scratchpad.

An address space is byte-addressed and sparse: a sorted list of segments,
each a contiguous NumPy byte buffer at a byte address. Views address it in
*elements of their own element type* (KTDP-SEMANTICS §2): element offset `e`
of an f16 view is byte `2 * e`.

Two kinds of segment:

- *fixed*: a host array placed by the caller (a kernel argument, an `hbm=`
  preload). Fully initialized; an access that starts inside it and runs past
  its end is an error, never a silent read of a neighbour.
- *scratch*: memory the kernel writes where nothing was placed (constant
  addresses, LX buffers). Created page-wise on the first store, merged with
  neighbouring scratch as it grows, and tracked byte by byte for
  initialization so that reading a byte nobody wrote is an error (or zero,
  when `check_uninitialized` is off).
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from spyre_mlir.interpreter.errors import InterpreterError

PAGE = 4096
"""Granularity of scratch segments, in bytes."""

ARG_ALIGNMENT = 128
"""Byte alignment of placed arrays (one stick)."""


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

    def own(self) -> None:
        """Copy the caller's bytes before the first write to them."""
        self.data = self.data.copy()
        self.shared = False

    @property
    def end(self) -> int:
        return self.start + self.data.size

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

    def typed(self, dtype: np.dtype) -> tuple[np.ndarray, int]:
        """The whole segment as elements of `dtype`, and the element address of its first element."""
        return self.data.view(dtype), self.start // dtype.itemsize

    def typed_init(self, itemsize: int) -> np.ndarray:
        assert self.init is not None
        return self.init.view(np.dtype(f"u{itemsize}"))


def all_written(mask: np.ndarray) -> bool:
    """Whether every element of an `init_view`/`typed_init` selection is fully written."""
    return bool((mask == np.iinfo(mask.dtype).max).all())


class AddressSpace:
    """HBM, or the LX scratchpad of one core."""

    def __init__(self, name: str, capacity: int | None = None, check_uninitialized: bool = True):
        self.name = name
        self.capacity = capacity
        self.check_uninitialized = check_uninitialized
        self.segments: list[Segment] = []
        self._starts: list[int] = []
        self.high_water = 0  # highest byte end accessed

    # -- placement ------------------------------------------------------

    def place(self, byte_start: int, array: np.ndarray, owner: str) -> Segment:
        """Put `array` at `byte_start` as a fixed segment. The caller's array
        is never modified: its bytes are copied when the kernel first writes them."""
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        if not np.may_share_memory(raw, array):
            shared = False  # already a private copy
        else:
            raw = raw.view()
            raw.flags.writeable = False
            shared = True
        end = byte_start + raw.size
        for seg in self.segments:
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

    # -- lookup ---------------------------------------------------------

    def locate(self, lo: int, hi: int, write: bool, itemsize: int = 1) -> Segment:
        """The segment holding bytes [lo, hi); scratch is created for writes.
        `itemsize` only serves messages (element addresses)."""
        if hi > self.high_water:
            self.high_water = hi
        i = bisect.bisect_right(self._starts, lo) - 1
        if i >= 0:
            seg = self.segments[i]
            if hi <= seg.start + seg.data.size:
                if write and seg.shared:
                    seg.own()
                return seg
        return self._locate_slow(lo, hi, write, i, itemsize)

    def _locate_slow(self, lo: int, hi: int, write: bool, i: int, itemsize: int) -> Segment:
        if lo < 0:
            raise InterpreterError(f"negative {self.name} address: byte {lo}")
        if self.capacity is not None and hi > self.capacity:
            raise InterpreterError(
                f"access to bytes [{lo}, {hi}) is beyond the {self.capacity}-byte {self.name} scratchpad"
            )
        containing = self.segments[i] if i >= 0 and self.segments[i].end > lo else None
        if containing is not None and containing.fixed:
            raise InterpreterError(
                f"access to {self.name} bytes [{lo}, {hi}) runs past the end of {containing.owner} "
                f"(bytes [{containing.start}, {containing.end}))"
            )
        overlapping = [s for s in self.segments if s.start < hi and lo < s.end]
        for seg in overlapping:
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
        return self._grow_scratch(lo, hi, overlapping)

    def _grow_scratch(self, lo: int, hi: int, overlapping: list[Segment]) -> Segment:
        new_lo = min([lo] + [s.start for s in overlapping])
        new_hi = max([hi] + [s.end for s in overlapping])
        # Round out to pages, but never over a neighbouring segment.
        floor = max((s.end for s in self.segments if s.end <= new_lo), default=0)
        ceiling = min((s.start for s in self.segments if s.start >= new_hi), default=None)
        new_lo = max(new_lo - new_lo % PAGE, floor)
        new_hi = new_hi + (-new_hi) % PAGE
        if ceiling is not None:
            new_hi = min(new_hi, ceiling)
        if self.capacity is not None:
            new_hi = min(new_hi, self.capacity)
        data = np.zeros(new_hi - new_lo, np.uint8)
        init = np.zeros(new_hi - new_lo, np.uint8)
        for seg in overlapping:
            a = seg.start - new_lo
            data[a : a + seg.data.size] = seg.data
            init[a : a + seg.data.size] = 0xFF if seg.init is None else seg.init
            j = self.segments.index(seg)
            del self.segments[j]
            del self._starts[j]
        segment = Segment(new_lo, data, f"scratch {self.name}", fixed=False, init=init)
        self._insert(segment)
        return segment

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
        for seg in self.segments:
            a, b = max(lo, seg.start), min(lo + size, seg.end)
            if a < b:
                out[a - lo : b - lo] = seg.data[a - seg.start : b - seg.start]
        return out

    def mapped_bytes(self) -> int:
        return sum(s.data.size for s in self.segments)
