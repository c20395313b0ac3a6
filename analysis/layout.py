"""Stick layouts: what a `spyre.tensor_layout` marker says about memory.

A layout maps a logical tensor of rank r to a physical one: each physical
axis k is computed from logical dim `phys_src[k]` by `phys_op[k]` (0
identity, 1 floordiv, 2 mod) with divisor `phys_arg[k]` (the contract of
triton-spyre's `tt.spyre_tensor_layout`). The layouts we accept split each
logical dim at most once: the dim appears either once, as identity, or
exactly twice, as `floordiv a` and `mod a` with the same stick size `a`.
Anything else (a dim missing, a mod without its floordiv, two stick sizes)
is not injective or not a stick split, and is refused (`LayoutError`).

A rank-2 `[M, N]` tensor stick-laid on N (64 elements a stick) is
`phys_src = [1, 0, 1], phys_op = [1, 0, 2], phys_arg = [64, 0, 64]`: physical
`[N/64, M, 64]`, element (i, j) at physical (j floordiv 64, i, j mod 64).

**Memory.** A marked memory view's elements sit at the addresses of the
physical tensor stored contiguously (row-major over the physical shape)
from the view's base: element (i, j) of a marked 128x128 f32 view is at
`base + (j floordiv 64) * 8192 + i * 64 + j mod 64`. A partial stick (a
split dim whose size is not a multiple of its stick) is refused by default;
with `pad=True` the split dim is rounded up to whole sticks (`padded_shape`)
and the padding is part of the physical tensor: a `[128, 48]` f32 tensor
with sticks of 32 is physically `[2, 128, 32]`, its elements (i, j) for
j >= 48 padding, which `to_device(..., pad=True)` fills with zeros and
`from_device(..., pad=True)` drops (docs/layouts.md, "Partial sticks").

`to_device(array, layout)` / `from_device(array, shape, layout)` convert a
host (logical) array to the device (physical) one and back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

IDENTITY, FLOORDIV, MOD = 0, 1, 2
_PARTS = {IDENTITY: "whole", FLOORDIV: "outer", MOD: "inner"}


class LayoutError(ValueError):
    """A layout we cannot represent, or a shape it cannot lay out."""


@dataclass(frozen=True)
class Axis:
    """One physical axis: logical dim `dim`, whole or its `outer`/`inner` stick part."""

    dim: int
    part: str  # "whole" | "outer" | "inner"
    stick: int = 1  # the stick size of a split dim (1 for a whole one)

    def extent(self, shape: Sequence[int], pad: bool = False) -> int:
        """The axis's extent for logical `shape`; `pad`: a partial last stick counts whole."""
        if self.part == "whole":
            return int(shape[self.dim])
        if self.part == "outer":
            return -(-int(shape[self.dim]) // self.stick) if pad else int(shape[self.dim]) // self.stick
        return self.stick

    def __str__(self) -> str:
        if self.part == "whole":
            return f"d{self.dim}"
        return f"d{self.dim} floordiv {self.stick}" if self.part == "outer" else f"d{self.dim} mod {self.stick}"


@dataclass(frozen=True)
class Layout:
    """A physical layout of rank-`rank` logical tensors (see module docstring)."""

    axes: tuple[Axis, ...]
    rank: int

    # -- construction --------------------------------------------------------

    @classmethod
    def from_arrays(cls, src: Sequence[int], op: Sequence[int], arg: Sequence[int], rank: int) -> Layout:
        """The layout of a marker's three arrays on a rank-`rank` view; LayoutError if unsupported."""
        src, op, arg = (tuple(int(x) for x in a) for a in (src, op, arg))
        if not src or not (len(src) == len(op) == len(arg)):
            raise LayoutError("phys_src, phys_op and phys_arg must be non-empty and of the same length")
        axes = []
        for k, (s, o, a) in enumerate(zip(src, op, arg)):
            if o not in _PARTS:
                raise LayoutError(f"phys_op[{k}] = {o} is not 0 (identity), 1 (floordiv) or 2 (mod)")
            if not 0 <= s < rank:
                raise LayoutError(f"phys_src[{k}] = {s} names no dim of a rank-{rank} view")
            if o != IDENTITY and a <= 0:
                raise LayoutError(f"phys_arg[{k}] = {a} must be positive for {'floordiv' if o == FLOORDIV else 'mod'}")
            axes.append(Axis(s, _PARTS[o], a if o != IDENTITY else 1))
        layout = cls(tuple(axes), rank)
        layout._check()
        return layout

    @classmethod
    def identity(cls, rank: int) -> Layout:
        return cls(tuple(Axis(d, "whole") for d in range(rank)), rank)

    @classmethod
    def stick_last(cls, rank: int, stick: int = 64) -> Layout:
        """torch-spyre's default device layout (what `spyre launch` gives every tensor):
        the last dim split into sticks, outermost first dims 1..r-2, the last dim's
        stick count, dim 0, the stick: `[N]` -> `[N/64, 64]`, `[M, N]` -> `[N/64, M, 64]`,
        `[B, M, N]` -> `[M, N/64, B, 64]` (their compiled `add_3d` addresses its
        4x256x512 tensors so: docs/superdsc.md)."""
        last = rank - 1
        if rank == 1:
            return cls((Axis(0, "outer", stick), Axis(0, "inner", stick)), 1)
        middle = tuple(Axis(d, "whole") for d in range(1, last))
        return cls((*middle, Axis(last, "outer", stick), Axis(0, "whole"), Axis(last, "inner", stick)), rank)

    def _check(self) -> None:
        for d in range(self.rank):
            parts = sorted((a.part, a.stick) for a in self.axes if a.dim == d)
            if parts == [("whole", 1)]:
                continue
            if len(parts) == 2 and parts[0][0] == "inner" and parts[1][0] == "outer":
                if parts[0][1] != parts[1][1]:
                    raise LayoutError(
                        f"d{d} is split with two stick sizes ({parts[1][1]} and {parts[0][1]}): "
                        "floordiv and mod of one dim must share their divisor"
                    )
                continue
            if not parts:
                raise LayoutError(f"d{d} appears in no physical axis: the layout is not injective")
            raise LayoutError(
                f"d{d} appears as {', '.join(p for p, _ in parts)}: each dim must be whole (identity) "
                "or split once (floordiv a and mod a)"
            )

    def arrays(self) -> tuple[list[int], list[int], list[int]]:
        """(phys_src, phys_op, phys_arg) of this layout."""
        ops = {"whole": IDENTITY, "outer": FLOORDIV, "inner": MOD}
        return (
            [a.dim for a in self.axes],
            [ops[a.part] for a in self.axes],
            [a.stick if a.part != "whole" else 0 for a in self.axes],
        )

    # -- properties ----------------------------------------------------------

    @property
    def is_identity(self) -> bool:
        return self.axes == tuple(Axis(d, "whole") for d in range(self.rank))

    @property
    def splits(self) -> dict[int, int]:
        """Split logical dims and their stick sizes."""
        return {a.dim: a.stick for a in self.axes if a.part == "outer"}

    def axes_of(self, dim: int) -> list[int]:
        """The physical axes computed from logical dim `dim` (outer before inner)."""
        found = [k for k, a in enumerate(self.axes) if a.dim == dim]
        return sorted(found, key=lambda k: self.axes[k].part != "outer")

    def __str__(self) -> str:
        return "[" + ", ".join(str(a) for a in self.axes) + "]"

    # -- shapes --------------------------------------------------------------

    def check_shape(self, shape: Sequence[int], pad: bool = False) -> None:
        """LayoutError unless `shape` (logical) can be laid out: rank, static split
        dims, and whole sticks (unless `pad`: a partial last stick is padded)."""
        if len(shape) != self.rank:
            raise LayoutError(f"a rank-{self.rank} layout cannot lay out a rank-{len(shape)} shape {list(shape)}")
        for d, a in self.splits.items():
            if shape[d] < 0:
                raise LayoutError(f"d{d} is split into sticks of {a} but its size is not static")
            if shape[d] % a and not pad:
                raise LayoutError(
                    f"d{d} of size {shape[d]} is not a multiple of its stick size {a} (partial sticks are not supported)"
                )

    def padded_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """`shape` with each split dim rounded up to whole sticks: `[128, 48]`
        with sticks of 32 on d1 is `[128, 64]` (equal to `shape` when it has no partial stick)."""
        self.check_shape(shape, pad=True)
        splits = self.splits
        return tuple(-(-int(s) // splits[d]) * splits[d] if d in splits else int(s) for d, s in enumerate(shape))

    def physical_shape(self, shape: Sequence[int], pad: bool = False) -> tuple[int, ...]:
        """The physical shape of logical `shape`; `pad`: of its `padded_shape`."""
        self.check_shape(shape, pad)
        return tuple(a.extent(shape, pad) for a in self.axes)

    def physical_strides(self, shape: Sequence[int], pad: bool = False) -> tuple[int, ...]:
        """Element strides of the physical tensor stored contiguously (row-major)."""
        phys = self.physical_shape(shape, pad)
        strides, step = [], 1
        for extent in reversed(phys):
            strides.append(step)
            step *= extent
        return tuple(reversed(strides))

    def _expanded(self, shape: Sequence[int]) -> tuple[list[int], list[int]]:
        """The logical shape with split dims as (outer, inner) pairs, and each physical axis's position in it."""
        expanded, position = [], {}
        for d in range(self.rank):
            a = self.splits.get(d)
            if a is None:
                position[(d, "whole")] = len(expanded)
                expanded.append(int(shape[d]))
            else:
                position[(d, "outer")] = len(expanded)
                position[(d, "inner")] = len(expanded) + 1
                expanded += [int(shape[d]) // a, a]
        return expanded, [position[(a.dim, a.part)] for a in self.axes]

    # -- data ----------------------------------------------------------------

    def to_physical(self, array: np.ndarray, lead: int = 0) -> np.ndarray:
        """The physical tensor of a logical one (after `lead` batch axes, kept in front)."""
        shape = array.shape[lead:]
        self.check_shape(shape)
        expanded, perm = self._expanded(shape)
        x = array.reshape(array.shape[:lead] + tuple(expanded))
        return x.transpose(tuple(range(lead)) + tuple(lead + p for p in perm))

    def to_logical(self, array: np.ndarray, shape: Sequence[int], lead: int = 0) -> np.ndarray:
        """The logical tensor of shape `shape` whose physical tensor is `array`."""
        self.check_shape(shape)
        expanded, perm = self._expanded(shape)
        inverse = sorted(range(len(perm)), key=lambda k: perm[k])
        x = array.transpose(tuple(range(lead)) + tuple(lead + k for k in inverse))
        return x.reshape(array.shape[:lead] + tuple(int(s) for s in shape))

    def element_offsets(self, coords: np.ndarray, shape: Sequence[int], pad: bool = False) -> np.ndarray:
        """Offsets (in elements, from the base) of logical coordinates `coords`
        (last axis: the r coordinates) in the contiguous physical tensor of logical
        `shape` (`pad`: of its `padded_shape`)."""
        import numpy as np  # here, not at the top: reading a layout (spyre-opt's verifiers) needs no NumPy

        strides = self.physical_strides(shape, pad)
        coords = np.asarray(coords, np.int64)
        total = np.zeros(coords.shape[:-1], np.int64)
        for axis, stride in zip(self.axes, strides):
            c = coords[..., axis.dim]
            if axis.part == "outer":
                c = c // axis.stick
            elif axis.part == "inner":
                c = c % axis.stick
            total += c * stride
        return total

    # -- algebra (for propagation through ops) ---------------------------------

    def project(self, dims: Sequence[int]) -> Layout:
        """The layout of the sub-tensor over logical dims `dims` (renumbered 0.. in
        the order given), physical axes in this layout's order."""
        index = {d: i for i, d in enumerate(dims)}
        return Layout(tuple(Axis(index[a.dim], a.part, a.stick) for a in self.axes if a.dim in index), len(dims))

    def renumber(self, new_dim: Sequence[int], rank: int) -> Layout:
        """The same physical axes with logical dim d renamed `new_dim[d]`, on rank `rank`
        (new dims not named by any axis are unit dims, placed by `with_unit_dims`)."""
        return Layout(tuple(Axis(new_dim[a.dim], a.part, a.stick) for a in self.axes), rank)

    def with_unit_dims(self, units: Sequence[int], rank: int) -> Layout:
        """This layout on a rank-`rank` tensor that has extra unit dims `units` (sorted),
        each placed as a whole axis just after the axes of the logical dim before it."""
        kept = [d for d in range(rank) if d not in units]
        base = self.renumber(kept, rank)
        axes = list(base.axes)
        for u in sorted(units):
            before = [k for k, a in enumerate(axes) if a.dim < u]
            at = max(before) + 1 if before else 0
            axes.insert(at, Axis(u, "whole"))
        return Layout(tuple(axes), rank)

    def without_dims(self, dims: Sequence[int]) -> Layout:
        """The layout with whole logical dims `dims` removed (renumbering the rest)."""
        for d in dims:
            if d in self.splits:
                raise LayoutError(f"d{d} is split into sticks and cannot be dropped")
        kept = [d for d in range(self.rank) if d not in dims]
        return self.project(kept)


def to_device(array: np.ndarray, layout: Layout, pad: bool = False) -> np.ndarray:
    """The device (physical, contiguous) array of a host (logical) one. With
    `pad`, a partial last stick is zero-filled to a whole one:

        >>> to_device(np.ones((1, 3)), Layout.stick_last(2, 4), pad=True).tolist()
        [[[1.0, 1.0, 1.0, 0.0]]]
    """
    import numpy as np

    array = np.asarray(array)
    if pad:
        padded = layout.padded_shape(array.shape)
        if padded != array.shape:
            wide = np.zeros(padded, array.dtype)
            wide[tuple(slice(0, s) for s in array.shape)] = array
            array = wide
    return np.ascontiguousarray(layout.to_physical(array))


def from_device(array: np.ndarray, shape: Sequence[int], layout: Layout, pad: bool = False) -> np.ndarray:
    """The host (logical) array of shape `shape` whose device array is `array`
    (any array of the right number of elements, e.g. raw bytes viewed as the dtype).
    With `pad`, `array` is the physical tensor of `layout.padded_shape(shape)` and
    its padding is dropped."""
    import numpy as np

    if pad:
        padded = layout.padded_shape(shape)
        wide = layout.to_logical(np.asarray(array).reshape(layout.physical_shape(padded)), padded)
        return np.ascontiguousarray(wide[tuple(slice(0, int(s)) for s in shape)])
    phys = layout.physical_shape(shape)
    return np.ascontiguousarray(layout.to_logical(np.asarray(array).reshape(phys), shape))
