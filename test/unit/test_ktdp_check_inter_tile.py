"""Unit tests of ktdp-check-inter-tile (passes/frontend/ktdp_check_inter_tile.py).

The pass checks the cross-op legality rules of inter-tile communication
(`ktdp.inter_tile_produce` and the `ktdp.inter_tile_reduce` /
`ktdp.inter_tile_consume` that delivers its future) that no op verifier sees
alone, with tile ids bounded by the function's `grid`; the rules live in
`spyre_mlir.analysis.inter_tile`. It changes no IR: a legal kernel is left
as it was, the first violation is a located error naming the sets or tiles.

Tested: a legal all-reduce is left unchanged and computes the same before
and after (equal to a NumPy fold); the refusals, each at the op that breaks
the rule (a reduce to a strict subset of several tiles, tiles outside the
grid, a future used twice); and that the pass has no stage requirement.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.contracts import CONTRACTS

PASS = "ktdp-check-inter-tile"

# All-reduce over one group of 4 tiles: each tile loads its row of x, every tile stores the sum of the rows.
ALLREDUCE = """
#producers = affine_set<(i)[g] : (PRODUCERS)>
#consumers = affine_set<(i)[g] : (CONSUMERS)>
#groups = affine_set<(g) : (g == 0)>
#row = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @allreduce(%x: index, %out: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
  %partial = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %f = ktdp.inter_tile_produce producer_tiles_per_group = #producers -> <(tensor<1x64xf32>), groups = #groups> {
  ^bb0(%gid: index):
    ktdp.yield_partial %partial : tensor<1x64xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #consumers, identity(%zero : tensor<1x64xf32>)
      : <(tensor<1x64xf32>), groups = #groups> -> tensor<1x64xf32> {
  ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
    %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
    ktdp.yield_reduced %s : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %r, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}
"""
ALL_FOUR = "i >= 0, -i + 3 >= 0"


def allreduce(producers: str = ALL_FOUR, consumers: str = ALL_FOUR) -> str:
    return ALLREDUCE.replace("PRODUCERS", producers).replace("CONSUMERS", consumers)


def _checked(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(PASS).run(module)
    return module


def _refused(text: str) -> spyre_mlir.DiagnosticError:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        _checked(text)
    return info.value


def _line(text: str, exc: spyre_mlir.DiagnosticError) -> str:
    assert exc.diagnostic.location is not None, exc.diagnostic.message
    return text.splitlines()[exc.diagnostic.location.line - 1]


def test_a_legal_all_reduce_is_left_unchanged():
    text = allreduce()
    module = spyre_mlir.parse(text)
    before = print_ir(module)
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(module) == before


@pytest.mark.parametrize("seed", [0, 1])
def test_checked_kernel_computes_the_same_and_equals_the_numpy_fold(seed):
    x = np.random.default_rng(seed).standard_normal((4, 64)).astype(np.float32)

    def run(module):
        return np.asarray(spyre_mlir.interpret(module, "allreduce", x=x.copy(), out=np.zeros((4, 64), np.float32))["out"])

    before = run(spyre_mlir.parse(allreduce()))
    after = run(_checked(allreduce()))
    np.testing.assert_array_equal(after, before)
    np.testing.assert_array_equal(after, np.stack([functools.reduce(np.add, list(x))] * 4))  # ascending tile id, in f32


def test_a_reduce_to_a_strict_subset_of_several_tiles_is_refused_at_the_reduce():
    text = allreduce(consumers="i >= 0, -i + 1 >= 0")
    exc = _refused(text)
    assert ("consumer_tiles_per_group for group 0 is a strict subset of producer_tiles_per_group"
            in exc.diagnostic.message)
    assert "ktdp.inter_tile_reduce" in _line(text, exc)


def test_a_reduce_to_one_tile_is_legal():
    module = _checked(allreduce(consumers="i == 0"))
    assert "ktdp.inter_tile_reduce" in print_ir(module)


def test_tiles_outside_the_grid_are_refused_naming_them():
    text = allreduce(producers="i >= 0, -i + 5 >= 0", consumers="i >= 0, -i + 5 >= 0")
    exc = _refused(text)
    assert "outside the grid of 4 tiles" in exc.diagnostic.message
    assert "4" in exc.diagnostic.message and "5" in exc.diagnostic.message
    assert "ktdp.inter_tile_" in _line(text, exc)


def test_a_future_delivered_twice_is_refused_at_its_produce():
    second = (
        "  %again = ktdp.inter_tile_consume(%f) consumer_tiles_per_group = #consumers"
        " : <(tensor<1x64xf32>), groups = #groups> -> tensor<1x64xf32>\n  return\n"
    )
    text = allreduce().replace("  return\n", second, 1)
    exc = _refused(text)
    assert exc.diagnostic.message == "future result must have exactly one use, has 2"
    assert "%f = ktdp.inter_tile_produce" in _line(text, exc)


def test_no_stage_requirement_it_checks_whatever_it_is_given():
    assert not CONTRACTS[PASS].requires
    # A module with no inter-tile op (here: a spatial program) has nothing to check.
    program = 'spatial.program @p attributes {spatial.phase = "tiled", grid = [1]} {\n}\n'
    module = spyre_mlir.parse(program)
    before = print_ir(module)
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(module) == before
