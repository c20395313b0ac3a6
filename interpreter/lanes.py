"""Who is executing: one core, or a batch of cores ("lanes") in lockstep.

Slot 0 of every frame holds one of these. A value marked *varying* by the
decoder carries a leading lane axis whose length is `count` of the frame's
context; everything else is shared by all lanes.
"""

from __future__ import annotations

import numpy as np

from spyre_mlir.analysis.grid import linear_order

__all__ = ["CoreContext", "LaneContext", "linear_order"]


class CoreContext:
    """A single core; its tile ids are plain ints."""

    __slots__ = ("coords", "linear")
    count = None

    def __init__(self, coords: tuple[int, ...], linear: int):
        self.coords = coords
        self.linear = linear

    def describe(self, lane: int | None = None) -> str:
        return f"core {self.linear} (tile id {_fmt(self.coords)})"


class LaneContext:
    """A batch of cores; each tile id is an int64 array over the lanes."""

    __slots__ = ("coords", "linear", "count")

    def __init__(self, coords: tuple[np.ndarray, ...], linear: np.ndarray):
        self.coords = coords
        self.linear = linear
        self.count = int(linear.shape[0])

    @staticmethod
    def for_cores(cores) -> LaneContext:
        table = np.array(cores, dtype=np.int64).reshape(len(cores), -1)
        return LaneContext(tuple(table[:, i].copy() for i in range(table.shape[1])), np.arange(len(cores)))

    def subset(self, idx: np.ndarray) -> LaneContext:
        return LaneContext(tuple(c[idx] for c in self.coords), self.linear[idx])

    def describe(self, lane: int | None = None) -> str:
        if lane is None:
            return f"{self.count} cores"
        coords = tuple(int(c[lane]) for c in self.coords)
        return f"core {int(self.linear[lane])} (tile id {_fmt(coords)})"


def _fmt(coords: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(c) for c in coords) + ")"


def take_lanes(value, idx: np.ndarray):
    """The lanes `idx` of a varying value (array or view/tile object)."""
    if isinstance(value, np.ndarray):
        return value[idx]
    return value.take_lanes(idx)


def broadcast_lanes(value, count: int, dtype: np.dtype):
    """A shared value as a varying one (a read-only broadcast view for tensors)."""
    if isinstance(value, np.ndarray):
        return np.broadcast_to(value, (count, *value.shape))
    return np.full(count, value, dtype=dtype)
