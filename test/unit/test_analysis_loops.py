"""The loop-nest model (spyre_mlir.analysis.loops): loops of a function and affine forms of index values.

The dependence tests in test_loop_analysis.py exercise it through the accesses; here
its own answers: domains, paths, the linearizer over SSA values, the helpers."""

from __future__ import annotations

import spyre_mlir
from spyre_mlir.analysis.affine import Linear
from spyre_mlir.analysis.loops import (
    constant_int,
    enclosing_function,
    inside,
    is_param,
    iteration_domains,
    linearize,
    loop_of_iv,
    trip_count,
    value_name,
)

NEST = """
func.func private @use(index, index, index)
func.func @nest(%x: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c4 : index
    %a = affine.apply affine_map<(d0)[s0] -> ((d0 * 6 + s0 * 2) floordiv 2)>(%row)[%x]
    %b = arith.addi %a, %x : index
    %sq = arith.muli %i, %i : index
    %nn = arith.muli %n, %n : index
    %m = arith.addi %nn, %c1 : index
    func.call @use(%b, %sq, %m) : (index, index, index) -> ()
  }
  spyre_loop.loop count(3) tiled_dims [0] tile_sizes [4] {
  ^bb0(%t: index):
  }
  return
}
"""


def values(module):
    found = {}
    for op in module.walk():
        for r in op.results:
            if r.name_hint:
                found[r.name_hint] = r
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    found[a.name_hint] = a
    return found


def test_domains_paths_and_nesting():
    module = spyre_mlir.parse(NEST)
    f = next(op for op in module.walk() if op.name == "func.func" and op.body.blocks)
    outer, counted = iteration_domains(f)
    assert (outer.lower, outer.upper, outer.step, outer.trip_count, outer.depth) == (0, 8, 1, 8, 0)
    assert (counted.kind, counted.trip_count, counted.path) == ("spyre_loop.loop", 3, ("nest", 1))
    v = values(module)
    use = next(op for op in module.walk() if op.name == "func.call")
    assert outer.encloses(use) and not counted.encloses(use)
    assert inside(use, f) and not inside(f, use)
    assert enclosing_function(use) is f
    assert loop_of_iv(v["i"]) is outer.op and loop_of_iv(v["row"]) is None
    assert is_param(v["x"]) and not is_param(v["i"])
    assert value_name(v["x"]) == "%x"
    assert constant_int(v["c4"]) == 4 and constant_int(v["row"]) is None and constant_int(v["x"]) is None


def test_linearize_over_loop_variables_and_fixed_values():
    module = spyre_mlir.parse(NEST)
    v = values(module)
    i, x = v["i"], v["x"]
    assert linearize(v["row"]) == Linear(0, {i: 4})
    # affine.apply through linear_form: (4i * 6 + 2x) floordiv 2 = 12i + x, then + x
    assert linearize(v["b"]) == Linear(0, {i: 12, x: 2})
    assert linearize(v["sq"]) is None  # i * i: not affine in a loop variable
    m = linearize(v["m"])  # n * n is fixed for the run: one opaque term
    assert m is not None and m.const == 1 and list(m.terms.values()) == [1]


def test_trip_count():
    assert trip_count(0, 10, 3) == 4 and trip_count(2, 2, 1) == 0 and trip_count(5, 1, 1) == 0
    assert trip_count(0, None, 1) is None and trip_count(0, 8, 0) is None
