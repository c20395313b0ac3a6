"""spyre_mlir.analysis.inter_tile: the legality rules of inter-tile produce/reduce/consume, asked per op
(the rules one by one, through the pass, are in test/lit/dialects/ktdp/inter-tile-invalid.mlir)."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.analysis.inter_tile import (
    check_delivery,
    check_inter_tile,
    check_produce,
    ground_delivery,
    ground_groups,
)
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.ktdp import InterTileProduceOp, InterTileReduceOp

KERNEL = """
#groups = affine_set<(g) : (g == 0)>
#tiles  = affine_set<(i)[g] : (i >= 0, -i + 3 >= 0)>
#first  = affine_set<(i)[g] : (i == 0)>
#pair   = affine_set<(i)[g] : (i >= 0, -i + 1 >= 0)>
func.func @k(%p: tensor<64xf32>, %id: tensor<64xf32>) -> tensor<64xf32> GRID {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #tiles -> <(tensor<64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %p : tensor<64xf32>
  }
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = CONSUMERS,
      identity(%id : tensor<64xf32>) : <(tensor<64xf32>), groups = #groups> -> tensor<64xf32> {
  ^bb0(%l: tensor<64xf32>, %r2: tensor<64xf32>):
    %s = arith.addf %l, %r2 : tensor<64xf32>
    ktdp.yield_reduced %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
"""


def _kernel(consumers: str = "#tiles", grid: str = ""):
    module = spyre_mlir.parse(KERNEL.replace("CONSUMERS", consumers).replace("GRID", grid))
    produce = next(op for op in module.walk() if isinstance(op, InterTileProduceOp))
    reduce = next(op for op in module.walk() if isinstance(op, InterTileReduceOp))
    return module, produce, reduce


@pytest.mark.parametrize("consumers", ["#tiles", "#first"])
def test_all_reduce_and_reduce_to_one_are_legal(consumers):
    module, produce, reduce = _kernel(consumers)
    check_produce(produce)
    check_delivery(reduce)
    check_inter_tile(module)


def test_reduce_to_a_strict_subset_of_several_tiles_is_refused_at_the_reduce():
    module, _, reduce = _kernel("#pair")
    with pytest.raises(DiagnosticError, match="strict subset of producer_tiles_per_group") as info:
        check_delivery(reduce)
    assert info.value.diagnostic.location is not None
    with pytest.raises(DiagnosticError, match="strict subset"):
        check_inter_tile(module)


def test_tiles_outside_the_grid_attribute_are_refused():
    _, produce, _ = _kernel(grid="attributes {grid = [2]}")
    with pytest.raises(DiagnosticError, match="names tiles 2, 3, outside the grid of 2 tiles"):
        check_produce(produce)


def test_ncores_bounds_the_tiles_instead_of_the_grid_attribute():
    _, produce, reduce = _kernel(grid="attributes {grid = [4]}")
    check_produce(produce)
    with pytest.raises(DiagnosticError, match="outside the grid of 3 tiles"):
        check_produce(produce, ncores=3)
    with pytest.raises(DiagnosticError, match="consumer_tiles_per_group for group 0 names tiles 3"):
        check_delivery(reduce, ncores=3)


def test_ground_groups_and_delivery_on_a_grid():
    _, produce, reduce = _kernel("#first")
    groups = ground_groups(produce, 4)
    assert groups.ids == [0] and groups.producers == {0: [0, 1, 2, 3]}
    assert groups.group_of_producer.tolist() == [0, 0, 0, 0]
    delivery = ground_delivery(reduce, 4)
    assert delivery.group_of_consumer.tolist() == [0, -1, -1, -1]
    assert delivery.needs[0].tolist() == [0, 1, 2, 3] and (delivery.needs[1:] == -1).all()


def test_ground_groups_drops_tiles_past_the_grid_and_delivery_checks_first():
    _, produce, reduce = _kernel()
    assert ground_groups(produce, 2).producers == {0: [0, 1]}
    with pytest.raises(DiagnosticError, match="outside the grid of 2 tiles"):
        ground_delivery(reduce, 2)
