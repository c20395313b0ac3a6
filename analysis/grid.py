"""The one definition of linear tile ids over a kernel's `grid` (KTDP-SEMANTICS §1).

A *linear* tile id appears where a kernel names a tile by one number: a
single-result `ktdp.get_compute_tile_id` on a multi-dimensional grid, the
inter-tile `(i)[g]` sets, `ct_id`, the core a spatial block runs on. Two
conventions exist in public sources:

- `col-major` (default): grid dim 0 varies fastest, ktir-cpu's
  `core_id = x + nx*(y + ny*z)`; the public multi-dimensional kernels
  (ktir-cpu's `rmsnorm_4core_2x2`, `sdpa_pv_ksplit`: `pid = row_id*2 + col_id`)
  are written for it.
- `row-major`: the last grid dim varies fastest, dataflow-scheduler's
  internal NormalizeGridTo1D flattening.

The interpreter and every pass take the order from here; `spyre-run
--grid-order` and `InterpreterOptions.grid_order` choose another.
"""

from __future__ import annotations

from functools import lru_cache

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
from xdsl.ir import Operation

GRID_ORDERS = ("col-major", "row-major")
"""Linearizations of grid coordinates into tile ids, the default first."""

DEFAULT_GRID_ORDER = GRID_ORDERS[0]


def check_grid_order(order: str) -> str:
    if order not in GRID_ORDERS:
        raise ValueError(f"unknown grid order '{order}' (expected {' or '.join(repr(o) for o in GRID_ORDERS)})")
    return order


@lru_cache(maxsize=64)
def linear_order(grid: tuple[int, ...], order: str = DEFAULT_GRID_ORDER) -> tuple[tuple[int, ...], ...]:
    """Grid coordinates indexed by linear tile id."""
    check_grid_order(order)
    dims = range(len(grid))
    fastest_first = list(dims) if order == "col-major" else list(reversed(dims))
    coords = []
    for linear in range(_size(grid)):
        point = [0] * len(grid)
        for d in fastest_first:
            point[d] = linear % grid[d]
            linear //= grid[d]
        coords.append(tuple(point))
    return tuple(coords)


def linear_id(coords: tuple[int, ...], grid: tuple[int, ...], order: str = DEFAULT_GRID_ORDER) -> int:
    """The linear tile id of grid coordinates `coords`."""
    check_grid_order(order)
    dims = range(len(grid))
    slowest_first = list(reversed(dims)) if order == "col-major" else list(dims)
    linear = 0
    for d in slowest_first:
        linear = linear * grid[d] + coords[d]
    return linear


def grid_attr(op: Operation) -> tuple[int, ...] | None:
    """The dims of `op`'s `grid` attribute (a kernel's, a spatial program's), None without one or when it
    is not an array of integers."""
    attr = op.attributes.get("grid")
    if isinstance(attr, ArrayAttr) and all(isinstance(d, IntegerAttr) for d in attr.data):
        return tuple(int(d.value.data) for d in attr.data)  # pyright: ignore[reportAttributeAccessIssue]
    return None


def _size(grid: tuple[int, ...]) -> int:
    n = 1
    for g in grid:
        n *= g
    return n
