"""Unit tests of spyre-distribute-work (passes/bundle/spyre_distribute_work.py).

On each compute group (after ktdp-extract-compute-groups) the pass records
how the kernel's grid splits the work across the cores, as
`CORE_SPLIT_ATTR` (`spyre.core_split`): the cores used (the grid's product),
the machine's core count (the `cores` option, else the module target's,
`spyre.target = {cores = N}`), the iteration-space dims the core id moves the
stores along, the tile one core computes and the tile all cores compute per
iteration. A grid of more cores than the machine has is a located error.

Tested: the record for a 1-D and a 2-D grid, the target's core count and the
option's, the refusals (too many cores, cores=0), translation validation (the
kernel before and after on seeded inputs, and a NumPy oracle), and that a
kernel not yet split into groups, or an emitted bundle, is refused with a
located error naming what to run first (pass manager and `apply` alike).
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr

import spyre_mlir
from spyre_mlir.dialects.spyre import CORE_SPLIT_ATTR
from spyre_mlir.passes.bundle.spyre_distribute_work import SpyreDistributeWorkPass
from spyre_mlir.passes.contracts import group_functions
from spyre_mlir.target import SPYRE

EXTRACT = "ktdp-extract-compute-groups"

# out = x + y over 4 * 128 elements, each of `grid` cores taking 4 * 128 / grid at core_id * that.
VADD = """
#all = affine_set<(d0) : (d0 >= 0, -d0 + 511 >= 0)>
#mine = affine_set<(d0) : (d0 >= 0, -d0 + {LAST} >= 0)>
#id1 = affine_map<(d0) -> (d0)>
module{ATTRS} {{
func.func @vadd(%x: index, %y: index, %out: index) attributes {{grid = [{GRID}]}} {{
  %n = arith.constant {PER_CORE} : index
  %core = ktdp.get_compute_tile_id : index
  %start = arith.muli %core, %n : index
  %xv = ktdp.construct_memory_view %x, sizes: [512], strides: [1] {{coordinate_set = #all, memory_space = #ktdp.memory_space<global>}} : memref<512xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [512], strides: [1] {{coordinate_set = #all, memory_space = #ktdp.memory_space<global>}} : memref<512xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [512], strides: [1] {{coordinate_set = #all, memory_space = #ktdp.memory_space<global>}} : memref<512xf32>
  %xt = ktdp.construct_access_tile %xv[%start] {{access_tile_set = #mine, access_tile_order = #id1}} : memref<512xf32> -> !ktdp.access_tile<{PER_CORE}xindex>
  %yt = ktdp.construct_access_tile %yv[%start] {{access_tile_set = #mine, access_tile_order = #id1}} : memref<512xf32> -> !ktdp.access_tile<{PER_CORE}xindex>
  %ot = ktdp.construct_access_tile %ov[%start] {{access_tile_set = #mine, access_tile_order = #id1}} : memref<512xf32> -> !ktdp.access_tile<{PER_CORE}xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<{PER_CORE}xindex> -> tensor<{PER_CORE}xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<{PER_CORE}xindex> -> tensor<{PER_CORE}xf32>
  %s = arith.addf %a, %b : tensor<{PER_CORE}xf32>
  ktdp.store %s, %ot : tensor<{PER_CORE}xf32>, !ktdp.access_tile<{PER_CORE}xindex>
  return
}}
}}
"""


def vadd(grid: int, target: str = "") -> str:
    per_core = 512 // grid
    attrs = f" attributes {{spyre.target = {{{target}}}}}" if target else ""
    return VADD.format(GRID=grid, PER_CORE=per_core, LAST=per_core - 1, ATTRS=attrs)


# A 2 x 4 grid: the first id moves the rows, the second the columns; each core computes 4 x 8.
GRID2 = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @grid2(%x: index, %out: index) attributes {grid = [2, 4]} {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %i, %j = ktdp.get_compute_tile_id : index, index
  %r = arith.muli %i, %c4 : index
  %c = arith.muli %j, %c8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%r, %c] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<4x8xindex>
  %ot = ktdp.construct_access_tile %ov[%r, %c] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<4x8xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
  %e = math.exp %a : tensor<4x8xf32>
  ktdp.store %e, %ot : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
  return
}
"""


def _distributed(text: str, options: str = ""):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(f"{EXTRACT},spyre-distribute-work{options}").run(module)
    return module


def _split(module) -> dict:
    """The one group's record, as Python values."""
    (group,) = group_functions(module)
    attr = group.attributes[CORE_SPLIT_ATTR]
    assert isinstance(attr, DictionaryAttr)
    out = {}
    for key, value in attr.data.items():
        if isinstance(value, IntegerAttr):
            out[key] = value.value.data
        else:
            assert isinstance(value, ArrayAttr)
            out[key] = [v.value.data for v in value.data]
    return out


def _error(text: str, passes: str) -> spyre_mlir.DiagnosticError:
    module = spyre_mlir.parse(text)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(passes).run(module)
    return info.value


def _line(text: str, exc: spyre_mlir.DiagnosticError) -> str:
    location = exc.diagnostic.location
    assert location is not None, exc.diagnostic.message
    return text.splitlines()[location.line - 1]


def test_one_dimensional_grid_is_recorded_with_the_targets_core_count():
    assert _split(_distributed(vadd(4))) == {
        "cores": 4, "machine_cores": SPYRE.cores, "dims": [0], "per_core": [128], "per_iteration": [512],
    }


def test_two_dimensional_grid_moves_two_dims():
    assert _split(_distributed(GRID2)) == {
        "cores": 8, "machine_cores": SPYRE.cores, "dims": [0, 1], "per_core": [4, 8], "per_iteration": [8, 32],
    }


def test_module_target_sets_the_machine_and_the_option_overrides_it():
    four = vadd(4, "cores = 4 : i64")
    assert _split(_distributed(four))["machine_cores"] == 4
    assert _split(_distributed(four, "{cores=16}"))["machine_cores"] == 16


def test_a_grid_larger_than_the_targets_machine_is_a_located_error():
    text = vadd(8, "cores = 4 : i64")
    exc = _error(text, f"{EXTRACT},spyre-distribute-work")
    assert "the kernel's grid [8] asks for 8 cores; the machine has 4" in exc.diagnostic.message
    assert "func.func @vadd" in _line(text, exc)
    # The same kernel on the default target fits.
    assert _split(_distributed(vadd(8)))["cores"] == 8


def test_zero_cores_is_refused():
    exc = _error(vadd(4), f"{EXTRACT},spyre-distribute-work{{cores=0}}")
    assert "cores must be positive, got 0" in exc.diagnostic.message


@pytest.mark.parametrize("grid", [1, 4])
def test_kernel_computes_the_same_before_and_after_and_matches_numpy(grid):
    rng = np.random.default_rng(grid)
    x, y = (rng.standard_normal(512).astype(np.float32) for _ in range(2))

    def run(module):
        return np.asarray(spyre_mlir.interpret(module, "vadd", x=x.copy(), y=y.copy(), out=np.zeros(512, np.float32))["out"])

    before = run(spyre_mlir.parse(vadd(grid)))
    module = spyre_mlir.parse(vadd(grid))
    spyre_mlir.PassManager.parse(EXTRACT).run(module)
    extracted = run(module)
    spyre_mlir.PassManager.parse("spyre-distribute-work").run(module)
    assert CORE_SPLIT_ATTR in group_functions(module)[0].attributes
    np.testing.assert_array_equal(run(module), extracted)
    np.testing.assert_array_equal(run(module), before)
    np.testing.assert_allclose(run(module), x + y, rtol=1e-6)


def test_an_unextracted_kernel_is_refused_naming_the_extraction():
    text = vadd(4)
    exc = _error(text, "spyre-distribute-work")
    assert exc.diagnostic.message == (
        "pass 'spyre-distribute-work' needs extracted compute groups: run 'ktdp-extract-compute-groups' first")
    assert "ktdp.load" in _line(text, exc)  # the first access outside a group
    # The pass's own guard says the same to a caller of `apply`.
    with pytest.raises(spyre_mlir.DiagnosticError, match="run 'ktdp-extract-compute-groups' first"):
        SpyreDistributeWorkPass().apply(Context(), spyre_mlir.parse(text))


def test_an_emitted_bundle_is_refused(tmp_path):
    exc = _error(vadd(4), f"{EXTRACT},spyre-emit-bundle{{out-dir={tmp_path}}},spyre-distribute-work")
    assert "already an emitted bundle: run 'spyre-distribute-work' before 'spyre-emit-bundle'" in exc.diagnostic.message
    assert exc.diagnostic.location is not None
