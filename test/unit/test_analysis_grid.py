"""spyre_mlir.analysis.grid: linear tile ids and the `grid` attribute."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr

from spyre_mlir.analysis.grid import grid_attr, linear_id, linear_order


def _with_grid(attr) -> ModuleOp:
    module = ModuleOp([])
    if attr is not None:
        module.attributes["grid"] = attr
    return module


def test_grid_attr_reads_an_array_of_integers():
    assert grid_attr(_with_grid(ArrayAttr([IntegerAttr(2, 64), IntegerAttr(16, 64)]))) == (2, 16)


@pytest.mark.parametrize("attr", [None, StringAttr("4"), ArrayAttr([IntegerAttr(4, 64), StringAttr("x")])])
def test_grid_attr_is_none_without_a_grid_of_integers(attr):
    assert grid_attr(_with_grid(attr)) is None


@pytest.mark.parametrize("order, second", [("col-major", (1, 0)), ("row-major", (0, 1))])
def test_linear_ids_follow_the_grid_order(order, second):
    grid = (2, 3)
    coords = linear_order(grid, order)
    assert coords[1] == second
    assert [linear_id(c, grid, order) for c in coords] == list(range(6))
