"""Unit tests of spatial-tile (passes/spatial/spatial_tile.py).

The pass lowers a KTIR kernel to a `spatial.program` in phase "tiled": one
site per grid block with a load, a compute and a store engine; each
`ktdp.load`/`ktdp.store` of a box tile a load/store stage whose `origin` is
an affine map of the loop numbers, evaluated per site; the compute ops
between loops compute stages; each `scf.for` a `spatial.loop` in every
engine; loop-carried values local buffers of the compute engine; the
kernel's scalar arguments `spatial.scalar`s it is specialized for
(`scalars=` or the kernel's `spyre.specialize`).

Tested: the sites, stages, origins, loops, locals and scalars of a row-sum
kernel; `scalars=` and `spyre.specialize` give the same program; the `grid=`
option and the located warning of a kernel without a grid; translation
validation (the program, taken through the later phases so it runs, against
the source kernel on seeded inputs and a NumPy oracle, for two
specializations); located refusals (a missing scalar, a view that
places two elements at one address) and out-of-stage inputs (extracted groups, a program already
tiled), each naming what went wrong.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.ir.affine import AffineMap

import spyre_mlir
from spyre_mlir.diagnostics import collect
from spyre_mlir.dialects import spatial
from spyre_mlir.ir import print_ir

LATER = "spatial-place,spatial-fuse-readers,spatial-size-buffers,spatial-synthesize-handshakes"

# y[r] = 2 * (the sum of the K/16 tiles of row r of x), one row per block of a grid of 2.
ROWSUM = """
func.func @rowsum(%x: index, %y: index, %K: index) attributes {grid = [2]ATTRS} {
  %row = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 16], strides: [16, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %sum = scf.for %j = %c0 to %K step %c16 iter_args(%acc = %zero) -> (tensor<1x16xf32>) {
    %t = ktdp.construct_access_tile %xv[%row, %j] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x64xf32> -> !ktdp.access_tile<1x16xindex>
    %a = ktdp.load %t : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
    %n = arith.addf %acc, %a : tensor<1x16xf32>
    scf.yield %n : tensor<1x16xf32>
  }
  %twice = arith.addf %sum, %sum : tensor<1x16xf32>
  %u = ktdp.construct_access_tile %yv[%row, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %twice, %u : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  func.return
}
"""


def rowsum(attrs: str = "") -> str:
    return ROWSUM.replace("ATTRS", attrs)


def _tiled(text: str, options: str = '{scalars="K=64"}', after: str = ""):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(f"spatial-tile{options}" + (f",{after}" if after else "")).run(module)
    return module


def _of(module, cls) -> list:
    return [op for op in module.walk() if isinstance(op, cls)]


def _sym(ref) -> str:
    return ref.root_reference.data


def test_one_site_per_block_with_three_engines_and_the_scalar_it_is_specialized_for():
    module = _tiled(rowsum())
    (program,) = _of(module, spatial.ProgramOp)
    assert program.phase == "tiled" and program.sym_name.data == "rowsum"
    assert not [op for op in module.walk() if op.name == "func.func"]  # the kernel is replaced
    assert [s.sym_name.data for s in _of(module, spatial.SiteOp)] == ["b0", "b1"]
    engines = {(_sym(e.site), e.engine.data) for e in _of(module, spatial.EngineOp)}
    assert engines == {(b, k) for b in ("b0", "b1") for k in ("load", "compute", "store")}
    (scalar,) = _of(module, spatial.ScalarOp)
    assert scalar.sym_name.data == "K" and "= 64" in print_ir(scalar)
    assert {t.sym_name.data for t in _of(module, spatial.TensorOp)} == {"x", "y"}


def test_origins_are_affine_maps_of_the_loop_numbers_evaluated_per_site():
    module = _tiled(rowsum())
    stages = {s.sym_name.data: s for s in _of(module, spatial.StageOp)}
    loads = {_sym(s.site): s.origin_map for s in stages.values() if s.kind_name == "load"}
    stores = {_sym(s.site): s.origin_map for s in stages.values() if s.kind_name == "store"}
    assert loads == {"b0": AffineMap.from_callable(lambda k: (0, k * 16)),
                     "b1": AffineMap.from_callable(lambda k: (1, k * 16))}
    assert stores == {"b0": AffineMap.from_callable(lambda: (0, 0)), "b1": AffineMap.from_callable(lambda: (1, 0))}
    # The scf.for becomes a loop of K / 16 = 4 iterations in each engine that steps inside it.
    for engine in _of(module, spatial.EngineOp):
        loops = [op for op in engine.walk() if isinstance(op, spatial.LoopOp)]
        if engine.engine.data != "store":
            assert [loop.bounds for loop in loops] == [(0, 4)], print_ir(engine)


def test_the_loop_carried_sum_is_a_local_of_the_compute_engine():
    module = _tiled(rowsum())
    locals_ = [b for b in _of(module, spatial.BufferOp) if b.is_local]
    assert sorted(_sym(b.site) for b in locals_) == ["b0", "b1"]
    fifos = [b for b in _of(module, spatial.BufferOp) if not b.is_local]
    assert all(b.depth_value == 1 for b in fifos)  # depths are spatial-size-buffers' work


def test_scalars_option_and_specialize_attribute_give_the_same_program():
    by_option = print_ir(_tiled(rowsum()))
    by_attribute = print_ir(_tiled(rowsum(", spyre.specialize = {K = 64 : index}"), options=""))
    assert by_attribute == by_option


@pytest.mark.parametrize("k", [32, 64])
def test_program_computes_the_source_kernel_and_numpy(k):
    rng = np.random.default_rng(k)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    source = spyre_mlir.interpret(rowsum(), "rowsum", x=x.copy(), y=np.zeros((2, 16), np.float32), K=k)["y"]
    module = _tiled(rowsum(), f'{{scalars="K={k}"}}', after=LATER)
    got = spyre_mlir.interpret(module, "rowsum", x=x.copy(), y=np.zeros((2, 16), np.float32), K=k)["y"]
    np.testing.assert_array_equal(got, source)
    expected = 2 * x[:, :k].reshape(2, k // 16, 16).sum(axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_grid_option_and_the_warning_of_a_kernel_without_a_grid():
    no_grid = rowsum().replace("attributes {grid = [2]} ", "")
    with collect() as diagnostics:
        one = _tiled(no_grid)
    assert len(_of(one, spatial.SiteOp)) == 1
    (warning,) = [d for d in diagnostics if d.severity == "warning"]
    assert "reads the tile id but has no 'grid' attribute" in warning.message
    assert warning.location is not None and "ktdp.get_compute_tile_id" in no_grid.splitlines()[warning.location.line - 1]
    with collect() as diagnostics:
        two = _tiled(no_grid, '{scalars="K=64" grid=2}')
    assert not diagnostics
    assert print_ir(two) == print_ir(_tiled(rowsum()))


def _refused(text: str, passes: str) -> spyre_mlir.DiagnosticError:
    module = spyre_mlir.parse(text)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(passes).run(module)
    return info.value


def _line(text: str, exc: spyre_mlir.DiagnosticError) -> str:
    assert exc.diagnostic.location is not None, exc.diagnostic.message
    return text.splitlines()[exc.diagnostic.location.line - 1]


def test_bad_kernels_are_refused_with_located_errors():
    stepped = rowsum().replace("step %c16", "step %K")  # a loop step is fixed per site: K needs a value
    exc = _refused(stepped, "spatial-tile")
    assert "1 of them has no value: %K (index); pass scalars=\"K=...\"" in exc.diagnostic.message
    assert "func.func @rowsum" in _line(stepped, exc)
    # a column-major view is a strided tensor (test_spatial_strided.py); one that overlaps itself is refused
    overlapping = rowsum().replace("sizes: [2, 64], strides: [64, 1]", "sizes: [2, 64], strides: [32, 1]")
    exc = _refused(overlapping, 'spatial-tile{scalars="K=64"}')
    assert "not one address per element: its strides [32, 1] place two of its elements" in exc.diagnostic.message
    assert "%xv = ktdp.construct_memory_view" in _line(overlapping, exc)


@pytest.mark.parametrize(
    "before, message",
    [
        ("ktdp-extract-compute-groups", "already split into compute groups: run 'spatial-tile' on the kernel, "
                                        "not after 'ktdp-extract-compute-groups'"),
        ('spatial-tile{scalars="K=64"}', "already a spatial program (@rowsum, phase tiled): "
                                         "'spatial-tile' has run on it already"),
    ],
    ids=["groups", "twice"],
)
def test_out_of_stage_input_is_refused_naming_the_stage(before, message):
    text = rowsum()
    exc = _refused(text, f'{before},spatial-tile{{scalars="K=64"}}')
    assert exc.diagnostic.message == f"pass 'spatial-tile' needs a kernel, but this module is {message}"
    assert "func.func @rowsum" in _line(text, exc)
