"""First-fit placement of buffers in one address space (LX, HBM scratch).

One allocator serves every pass that gives buffers byte offsets: the LX plan
of a compute group (spyre-plan-scratchpad), the LX buffers of a spatial site
(spatial-size-buffers) and the per-core HBM scratch slots of the round trips
(ktdp-hbm-roundtrip). A buffer goes at the lowest offset, a multiple of the
target's alignment, where it overlaps none of the buffers placed before it
that it *conflicts* with: by default those whose live ranges overlap its
own, so buffers that are never live together share bytes.

    slots = [Slot(4096, 0, 3), Slot(1000, 1, 2), Slot(4096, 4, 5)]
    done = allocate(slots, alignment=128)
    [s.offset for s in slots]   # [0, 4096, 0]: the third reuses the first's bytes
    done.peak                   # 5096

Pure Python over integers: no IR.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar


def align_up(n: int, alignment: int) -> int:
    """`n` rounded up to a multiple of `alignment`."""
    return -(-n // alignment) * alignment


def first_fit(size: int, placed: Iterable[tuple[int, int]], alignment: int, base: int = 0) -> int:
    """The lowest offset from `base` (itself aligned), past each range it would overlap rounded up
    to `alignment`, where `size` bytes overlap none of the `placed` (offset, size) ranges."""
    offset = base
    for start, length in sorted(placed):
        if offset + size <= start:
            break
        offset = max(offset, align_up(start + length, alignment))
    return offset


@dataclass
class Slot:
    """One buffer to place: `size` bytes, live from program point `start` through `end` (inclusive).
    `offset` is set by `allocate` (None: not placed)."""

    size: int
    start: int = 0
    end: int = 0
    offset: int | None = None


def overlaps(a: Slot, b: Slot) -> bool:
    """Whether the live ranges of `a` and `b` share a program point."""
    return a.start <= b.end and b.start <= a.end


S = TypeVar("S", bound=Slot)


@dataclass
class Allocation:
    """What `allocate` did: the end of the highest placed slot (0 if none) and the slots that did not fit."""

    peak: int = 0
    overflow: list[tuple[Slot, int]] = field(default_factory=list)
    """(slot, the offset it would have taken) for each slot past `capacity`, in placement order."""


def allocate(
    slots: Sequence[S],
    alignment: int,
    *,
    capacity: int | None = None,
    base: int = 0,
    conflicts: Callable[[S, S], bool] = overlaps,
) -> Allocation:
    """Give each of `slots`, in order, the `first_fit` offset from `base` among the slots placed before
    it that it `conflicts` with. A slot that would end past `capacity` is not placed (its offset stays
    None, it takes no bytes) and is reported in `overflow`."""
    done = Allocation()
    placed: list[tuple[S, int]] = []
    for slot in slots:
        offset = first_fit(slot.size, [(at, p.size) for p, at in placed if conflicts(p, slot)], alignment, base)
        if capacity is not None and offset + slot.size > capacity:
            done.overflow.append((slot, offset))
            continue
        slot.offset = offset
        placed.append((slot, offset))
        done.peak = max(done.peak, offset + slot.size)
    return done


__all__ = ["Allocation", "Slot", "align_up", "allocate", "first_fit", "overlaps"]
