"""From KTIR to the schedule IR (issue 10): HBM round trips and compute-group extraction.

Every pass keeps the kernel executable: the kernel runs before and after on
the same seeded arguments and gives the same outputs (translation
validation); seed 001's round-trip kernels also equal NumPy, with and
without CSE before the extraction.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, kernel_arguments

import spyre_mlir
from spyre_mlir import ir

ROUND_TRIPS = Path(__file__).parent / "kernels" / "schedule" / "round_trips.mlir"
CHAINS = {1: [np.exp, np.sqrt], 2: [np.exp, np.sqrt, np.exp], 3: [np.exp, np.sqrt, np.exp, np.sqrt]}


def run_pipeline(module, pipeline: str):
    spyre_mlir.PassManager.parse(pipeline).run(module)
    return module


def count_ops(module) -> int:
    return sum(1 for _ in module.walk())


def round_trip_args(n: int, seed: int = 0) -> dict:
    x = np.random.default_rng(seed).random((4, 32)).astype(np.float32)
    args = {"x": x, "out": np.zeros((4, 32), np.float32)}
    for k in range(n):
        args[f"s{k}"] = np.zeros((4, 32), np.float32)
    return args


def outlined(module) -> list[str]:
    from xdsl.dialects.builtin import ModuleOp

    return [op.sym_name.data for op in module.ops if isinstance(op, ModuleOp) and op.sym_name]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_seed_round_trips_extract_and_run_with_and_without_cse(n):
    """The seed's smallest case (one author-written round trip) and variants with
    two and three: CSE merges the store's and load's access tiles and the two
    tensor.empty; extraction is unaffected (same groups, same results), and CSE
    only makes the IR smaller."""
    func = f"round_trip_{n}"
    args = round_trip_args(n)
    expected = args["x"]
    for f in CHAINS[n]:
        expected = f(expected)
    plain = run_pipeline(spyre_mlir.parse(ROUND_TRIPS), "ktdp-extract-compute-groups")
    merged = run_pipeline(spyre_mlir.parse(ROUND_TRIPS), "cse,ktdp-extract-compute-groups")
    out_plain = spyre_mlir.interpret(plain, func, **args)
    out_merged = spyre_mlir.interpret(merged, func, **args)
    np.testing.assert_allclose(out_plain["out"], expected, rtol=1e-6)
    for key in out_plain:
        np.testing.assert_array_equal(out_merged[key], out_plain[key])
    assert outlined(plain) == outlined(merged)
    assert count_ops(merged) < count_ops(plain)
    # n round trips: n + 1 groups per kernel (the file has three kernels: 2 + 3 + 4 groups).
    assert len(outlined(plain)) == 9


def test_cse_before_extraction_merges_what_the_seed_says():
    """Before extraction, CSE merges the round trip's two access tiles (and the index
    arithmetic) and the computes' tensor.empty: the situation seed 001 aborted on."""
    from spyre_mlir.dialects.ktdp import ConstructAccessTileOp

    module = spyre_mlir.parse(ROUND_TRIPS)
    before = sum(isinstance(op, ConstructAccessTileOp) for op in module.walk())
    empties_before = sum(op.name == "tensor.empty" for op in module.walk())
    run_pipeline(module, "cse")
    after = sum(isinstance(op, ConstructAccessTileOp) for op in module.walk())
    empties_after = sum(op.name == "tensor.empty" for op in module.walk())
    assert after < before and empties_after < empties_before


CHAIN = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: index, %out: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %c = ktdp.get_compute_tile_id : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<1x32xindex>
  %d = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
  %e = math.exp %d : tensor<1x32xf32>
  %s = math.sqrt %e : tensor<1x32xf32>
  %t = arith.addf %s, %e : tensor<1x32xf32>
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %t, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}
"""


def test_hbm_roundtrip_splits_computes_into_groups_and_keeps_results():
    """exp -> sqrt -> add on 4 cores: ktdp-hbm-roundtrip sends every edge through
    per-core scratch the runtime allocates; the computes become groups ordered
    through it, and the results are those of the kernel and of NumPy."""
    module = run_pipeline(spyre_mlir.parse(CHAIN), "ktdp-hbm-roundtrip,ktdp-extract-compute-groups")
    x = np.random.default_rng(0).random((4, 32)).astype(np.float32)
    args = {"x": x, "out": np.zeros((4, 32), np.float32)}
    before = spyre_mlir.interpret(spyre_mlir.parse(CHAIN), "chain", **args)
    after = spyre_mlir.interpret(module, "chain", **args)
    assert set(after) == set(before)  # the scratch parameter is the runtime's, not a result
    np.testing.assert_array_equal(after["out"], before["out"])
    np.testing.assert_allclose(after["out"], np.sqrt(np.exp(x)) + np.exp(x), rtol=1e-6)
    assert len(outlined(module)) == 3  # exp, sqrt, add: one group each
    assert "spyre.scratch_bytes" in ir.print_ir(module)
    # The caller may also pass the scratch itself.
    scratch = np.zeros(4 * 3 * 128, np.uint8)
    given = spyre_mlir.interpret(module, "chain", hbm_scratch=scratch, **args)
    np.testing.assert_array_equal(given["out"], before["out"])


# -- the corpus -------------------------------------------------------------------


def corpus_cases():
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/ktir not present"))]
    return [pytest.param(p, id=p.stem) for p in sorted(CORPUS.glob("*.mlir")) if p.stem != "matmul_fwd_ktir"]


def corpus_all():
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/ktir not present"))]
    return [pytest.param(p, id=p.stem) for p in sorted(CORPUS.glob("*.mlir"))]


@pytest.mark.parametrize("path", corpus_cases())
@pytest.mark.parametrize("cse", [False, True])
def test_corpus_kernels_after_each_pass(path, cse):
    """Every corpus kernel: the same outputs after each pass of the schedule lowering."""
    name, args, hbm = kernel_arguments(path, seed=0)
    module = spyre_mlir.parse(path)
    reference = spyre_mlir.interpret(module, name, hbm=hbm, **args)
    passes = (["cse"] if cse else []) + ["ktdp-hbm-roundtrip", "ktdp-extract-compute-groups", "ktdf-build-pipelines"]
    for p in passes:
        run_pipeline(module, p)
        out = spyre_mlir.interpret(module, name, hbm=hbm, **args)
        assert set(out) == set(reference), p
        for key in reference:
            np.testing.assert_array_equal(out[key], reference[key], err_msg=f"{path.name} {key} after {p}")
    assert outlined(module), "no group was extracted"


@pytest.mark.parametrize("path", corpus_all())
def test_corpus_kernels_through_ktir_to_schedule(path):
    """The named pipeline: every corpus kernel lowers to the schedule IR (groups, and
    ktdf pipelines where a group body is one load -> compute -> store pass) and
    runs equal to its source."""
    name, args, hbm = kernel_arguments(path, seed=0)
    module = spyre_mlir.parse(path)
    reference = spyre_mlir.interpret(module, name, hbm=hbm, **args)
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
    out = spyre_mlir.interpret(module, name, hbm=hbm, **args)
    for key in reference:
        np.testing.assert_array_equal(out[key], reference[key], err_msg=f"{path.name} {key}")
    assert any(op.name == "ktdf.pipeline" for op in module.walk()) or path.stem == "matmul_fwd_ktir"
    text = ir.print_ir(module)
    assert ir.print_ir(spyre_mlir.parse(text)) == text  # round-trips


# -- alias analysis -----------------------------------------------------------------

ALIAS = """
#s = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id = affine_map<(d0) -> (d0)>
func.func @k(%p: index, %q: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %p64 = arith.addi %p, %c64 : index
  %p32 = arith.addi %p, %c32 : index
  %a = ktdp.construct_memory_view %p, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %b = ktdp.construct_memory_view %p64, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %c = ktdp.construct_memory_view %p32, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %d = ktdp.construct_memory_view %q, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %e = ktdp.construct_memory_view %c1024, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %f = ktdp.construct_memory_view %c2048, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %g = ktdp.construct_memory_view %c0, sizes: [64], strides: [1] {coordinate_set = #s, memory_space = #ktdp.memory_space<ct_local>} : memref<64xf32>
  %ta = ktdp.construct_access_tile %a[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %tb = ktdp.construct_access_tile %b[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %tc = ktdp.construct_access_tile %c[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %td = ktdp.construct_access_tile %d[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %te = ktdp.construct_access_tile %e[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %tf = ktdp.construct_access_tile %f[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %tg = ktdp.construct_access_tile %g[%c0] {access_tile_set = #s, access_tile_order = #id} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  return
}
"""


def test_alias_analysis_from_address_ranges():
    from spyre_mlir.analysis.access import may_alias as _may_alias
    from spyre_mlir.analysis.access import view_of as _view_of

    module = spyre_mlir.parse(ALIAS)
    tiles = {op.results[0].name_hint: op.results[0] for op in module.walk() if op.name == "ktdp.construct_access_tile"}
    view = {k[1:]: _view_of(v) for k, v in tiles.items()}
    assert not _may_alias(view["a"], view["b"])  # %p and %p + 64 elements: disjoint
    assert _may_alias(view["a"], view["c"])  # %p and %p + 32: overlap
    assert not _may_alias(view["a"], view["d"])  # two parameters: two buffers
    assert not _may_alias(view["e"], view["f"])  # constant bases, disjoint
    assert _may_alias(view["a"], view["e"])  # a parameter and a constant address: not provably apart
    assert not _may_alias(view["a"], view["g"])  # HBM and LX


# -- groups stay whole ---------------------------------------------------------------

INTER_TILE_PUBLIC = Path(__file__).parent / "kernels" / "inter_tile_public"


@pytest.mark.parametrize("stem", ["rmsnorm_4core_2x2", "ffn_swiglu_4core"])
def test_scratch_is_independent_of_distributed_views(stem):
    """Loads through `construct_distributed_memory_view` (which the alias analysis
    does not follow) cannot touch compiler scratch, whose address only the
    scratch parameter gives: the groups order without a cycle, stay whole and
    exchange no values (ffn_swiglu_4core was refused before)."""
    from xdsl.dialects import func

    module = spyre_mlir.parse((INTER_TILE_PUBLIC / f"{stem}.mlir").read_text())
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
    calls = [op for op in module.walk() if isinstance(op, func.CallOp)]
    assert calls and not any(call.results for call in calls)


def test_a_scalar_read_of_a_shared_load_gets_its_own_load():
    """tensor_ops.mlir @per_core: `tensor.extract` of the loaded tile feeds the
    last group's `tensor.insert`; the tile is loaded again for it, so the first
    group does not wait for the last one's round trip, and the kernel runs equal."""
    path = Path(__file__).parent / "kernels" / "tensor_ops.mlir"
    text = path.read_text()
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse("ktdp-hbm-roundtrip,ktdp-extract-compute-groups").run(module)
    x = np.random.default_rng(0).random((8, 6)).astype(np.float32)
    args = {"x": x, "y": np.zeros((8, 6), np.float32)}
    before = spyre_mlir.interpret(spyre_mlir.parse(text), "per_core", **args)
    after = spyre_mlir.interpret(module, "per_core", **args)
    np.testing.assert_array_equal(after["y"], before["y"])


CALLS = """
func.func @calls(%x: index, %out: index, %f: f32) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %row = func.call @row_of(%core, %c2) : (index, index) -> index
  %x_view = ktdp.construct_memory_view %x, sizes: [8, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
  %tile = ktdp.construct_access_tile %x_view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<2x4xindex>
  %v = ktdp.load %tile : !ktdp.access_tile<2x4xindex> -> tensor<2x4xf32>
  %s = func.call @scaled(%v, %f) : (tensor<2x4xf32>, f32) -> tensor<2x4xf32>
  %out_view = ktdp.construct_memory_view %out, sizes: [8, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
  %out_tile = ktdp.construct_access_tile %out_view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<2x4xindex>
  ktdp.store %s, %out_tile : tensor<2x4xf32>, !ktdp.access_tile<2x4xindex>
  return
}
func.func @row_of(%core: index, %rows_per_core: index) -> index {
  %r = arith.muli %core, %rows_per_core : index
  return %r : index
}
func.func @scaled(%t: tensor<2x4xf32>, %f: f32) -> tensor<2x4xf32> {
  %s = tensor.splat %f : tensor<2x4xf32>
  %m = arith.mulf %t, %s : tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}
"""


@pytest.mark.parametrize("pipeline", ["ktir-to-schedule", "ktir-to-bundle"])
def test_a_group_calling_functions_gets_its_callees(pipeline, tmp_path):
    """A group's module is a symbol table of its own: the functions its ops
    call (an index helper, a compute helper) are copied beside it, and into
    the SDSC's "ktir" text, so the output verifies and runs (fuzz: 'func.call'
    op '@row_of' could not be found, after extraction). A called function is a
    helper, not a kernel: it is not split into groups of its own."""
    module = spyre_mlir.parse(CALLS)
    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    args = {"x": x, "out": np.zeros_like(x), "f": 2.0}
    if pipeline == "ktir-to-bundle":
        spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path} kernel=calls format=ktir}}").run(module)
        module, entry = tmp_path / "bundle.mlir", "sdsc_bundle"  # read from its path: the SDSC files beside it
    else:
        spyre_mlir.PassManager.from_pipeline(pipeline).run(module)
        assert outlined(module) == ["local_schedule_0"]
        entry = "calls"
    before = spyre_mlir.interpret(CALLS, "calls", **{k: np.copy(v) for k, v in args.items()})["out"]
    after = spyre_mlir.interpret(module, entry, **{k: np.copy(v) for k, v in args.items()})["out"]
    np.testing.assert_array_equal(after, before)
    np.testing.assert_allclose(after, x * 2)
