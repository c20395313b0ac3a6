"""spatial-place: the grid's blocks pinned to the target's cores (the printed IR is in
test/lit/passes/spatial/spatial-place.mlir)."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects import spatial

# Four blocks of a vector scale.
KERNEL = """
module MODULE_ATTRS {
func.func @scale(%x: index, %y: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %o = arith.muli %c, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %t = ktdp.construct_access_tile %xv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %b = arith.addf %a, %a : tensor<4xf32>
  %u = ktdp.construct_access_tile %yv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %b, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
  func.return
}
}
"""


def _placed(pipeline: str, module_attrs: str = "") -> dict[str, list[tuple[int, ...]]]:
    """The blocks each site runs, by site name, after `pipeline`."""
    module = spyre_mlir.parse(KERNEL.replace("MODULE_ATTRS", module_attrs))
    spyre_mlir.PassManager.parse(pipeline).run(module)
    sites = [op for op in module.walk() if isinstance(op, spatial.SiteOp)]
    return {
        s.sym_name.data: [tuple(c.value.data for c in b.data) for b in s.attributes["blocks"].data]  # pyright: ignore
        for s in sites
    }


def test_the_default_target_has_a_core_per_block():
    assert _placed("spatial-tile,spatial-place") == {f"b{i}": [(i,)] for i in range(4)}


def test_the_module_target_gives_the_cores():
    two = {"b0": [(0,), (2,)], "b1": [(1,), (3,)]}
    assert _placed("spatial-tile,spatial-place", "attributes {spyre.target = {cores = 2 : i64}}") == two


def test_the_pass_option_overrides_the_target():
    attrs = "attributes {spyre.target = {cores = 2 : i64}}"
    assert _placed("spatial-tile,spatial-place{cores=4}", attrs) == {f"b{i}": [(i,)] for i in range(4)}
    assert _placed("spatial-tile,spatial-place{cores=1}") == {"b0": [(0,), (1,), (2,), (3,)]}


def test_no_core_is_a_located_error():
    with pytest.raises(DiagnosticError, match="spatial-place: cores must be at least 1, got 0"):
        _placed("spatial-tile,spatial-place{cores=0}")
