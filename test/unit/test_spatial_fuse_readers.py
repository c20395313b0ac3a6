"""Unit tests of spatial-fuse-readers (passes/spatial/spatial_fuse_readers.py).

In a placed spatial program, the loads of one tile by several sites at the
same point of their choreographies (same tensor, tile, origin and loop
position) become one load: the first site's load stage is the reader of a
`spatial.multicast` group to the other sites, whose load stages become
`receive` stages of the group and whose load steps are removed.
`multicast=false` only moves the phase on (the baseline).

Tested: the multicast group a shared bias tile makes (reader, targets,
receive stages, steps removed), loads of different tiles left alone, fusing
inside a loop, the baseline, translation validation (the program after the
pass, sized and synthesized so it runs, against the source kernel on seeded
inputs, the baseline and NumPy), fewer HBM bytes read, and the phase
refusals (a tiled program, a fused one, a module without a program).
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.dialects import spatial
from spyre_mlir.interpreter.ops_spatial import simulate
from spyre_mlir.ir import print_ir

PASS = "spatial-fuse-readers"
BEFORE = "spatial-tile,spatial-place"
AFTER = "spatial-size-buffers,spatial-synthesize-handshakes"

# Each of `rows` blocks adds the one bias row %w to its own row of %x.
ADD_BIAS = """
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_bias(%x: index, %w: index, %y: index) attributes {grid = [ROWS]} {
  %r = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [ROWS, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + LAST >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<ROWSx8xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [1, 8], strides: [8, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x8xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [ROWS, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + LAST >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<ROWSx8xf32>
  %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<ROWSx8xf32> -> !ktdp.access_tile<1x8xindex>
  %wt = ktdp.construct_access_tile %wv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x8xf32> -> !ktdp.access_tile<1x8xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %b = ktdp.load %wt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %s = arith.addf %a, %b : tensor<1x8xf32>
  %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<ROWSx8xf32> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %s, %yt : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>
  func.return
}
"""

# Two blocks, each walking its row of %x in two 8-column chunks and adding the same chunk of %w.
CHUNKED = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#w = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#chunk = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chunked(%x: index, %w: index, %y: index) attributes {grid = [2]} {
  %r = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x16xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [1, 16], strides: [16, 1] {coordinate_set = #w, memory_space = #ktdp.memory_space<global>} : memref<1x16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 16], strides: [16, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x16xf32>
  scf.for %k = %c0 to %c2 step %c1 {
    %col = arith.muli %k, %c8 : index
    %xt = ktdp.construct_access_tile %xv[%r, %col] {access_tile_set = #chunk, access_tile_order = #id2} : memref<2x16xf32> -> !ktdp.access_tile<1x8xindex>
    %wt = ktdp.construct_access_tile %wv[%c0, %col] {access_tile_set = #chunk, access_tile_order = #id2} : memref<1x16xf32> -> !ktdp.access_tile<1x8xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
    %b = ktdp.load %wt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
    %s = arith.addf %a, %b : tensor<1x8xf32>
    %yt = ktdp.construct_access_tile %yv[%r, %col] {access_tile_set = #chunk, access_tile_order = #id2} : memref<2x16xf32> -> !ktdp.access_tile<1x8xindex>
    ktdp.store %s, %yt : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>
  }
  func.return
}
"""


def add_bias(rows: int) -> str:
    return ADD_BIAS.replace("ROWS", str(rows)).replace("LAST", str(rows - 1))


def _lowered(text: str, passes: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(passes).run(module)
    return module


def _of(module, cls) -> list:
    return [op for op in module.walk() if isinstance(op, cls)]


def _stages(module) -> dict[str, spatial.StageOp]:
    return {op.sym_name.data: op for op in _of(module, spatial.StageOp)}


def _stepped(module) -> set[str]:
    return {op.stage.root_reference.data for op in _of(module, spatial.LoadStepOp)}


def _args(rows: int, cols: int = 8, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return dict(
        x=rng.standard_normal((rows, cols)).astype(np.float32),
        w=rng.standard_normal((1, cols)).astype(np.float32),
        y=np.zeros((rows, cols), np.float32),
    )


def _copy(args: dict) -> dict:
    return {k: v.copy() for k, v in args.items()}


def test_a_shared_tile_becomes_one_load_multicast_to_the_other_sites():
    module = _lowered(add_bias(4), f"{BEFORE},{PASS}")
    (program,) = _of(module, spatial.ProgramOp)
    assert program.phase == "fused"
    (group,) = _of(module, spatial.MulticastOp)
    stages = _stages(module)
    reader = stages[group.reader.root_reference.data]
    assert reader.kind_name == "load" and reader.input_names == ("w",) and reader.site.root_reference.data == "b0"
    targets = [t.root_reference.data for t in group.targets.data]
    assert targets == ["b1", "b2", "b3"]
    receivers = [s for s in stages.values() if s.kind_name == "receive"]
    assert sorted(s.site.root_reference.data for s in receivers) == targets
    assert all(s.input_names == (group.sym_name.data,) and s.origin is None for s in receivers)
    # Their load steps are gone; the reader's and every site's own row of %x still load.
    stepped = _stepped(module)
    assert not stepped & {s.sym_name.data for s in receivers}
    x_loads = [s for s in stages.values() if s.kind_name == "load" and s.input_names == ("x",)]
    assert len(x_loads) == 4 and {s.sym_name.data for s in x_loads} <= stepped


def test_loads_inside_a_loop_are_fused_at_the_same_step():
    module = _lowered(CHUNKED, f"{BEFORE},{PASS}")
    (group,) = _of(module, spatial.MulticastOp)
    assert [t.root_reference.data for t in group.targets.data] == ["b1"]
    reader = _stages(module)[group.reader.root_reference.data]
    assert reader.input_names == ("w",)
    (step,) = [s for s in _of(module, spatial.LoadStepOp) if s.stage.root_reference.data == reader.sym_name.data]
    assert isinstance(step.parent_op(), spatial.LoopOp)


def test_multicast_false_only_moves_the_phase_on():
    placed = print_ir(_lowered(add_bias(4), BEFORE))
    module = _lowered(add_bias(4), f"{BEFORE},{PASS}{{multicast=false}}")
    assert not _of(module, spatial.MulticastOp)
    assert print_ir(module) == placed.replace('spatial.phase = "placed"', 'spatial.phase = "fused"')


@pytest.mark.parametrize("text, name, rows, cols", [(add_bias(4), "add_bias", 4, 8), (CHUNKED, "chunked", 2, 16)])
def test_fused_program_computes_the_source_kernel_the_baseline_and_numpy(text, name, rows, cols):
    args = _args(rows, cols, seed=rows)
    source = spyre_mlir.interpret(text, name, **_copy(args))["y"]
    fused = spyre_mlir.interpret(_lowered(text, f"{BEFORE},{PASS},{AFTER}"), name, **_copy(args))["y"]
    plain = spyre_mlir.interpret(_lowered(text, f"{BEFORE},{PASS}{{multicast=false}},{AFTER}"), name, **_copy(args))["y"]
    np.testing.assert_array_equal(fused, source)
    np.testing.assert_array_equal(fused, plain)
    np.testing.assert_allclose(fused, args["x"] + args["w"], rtol=1e-6)


def test_fusing_reads_the_shared_tile_from_hbm_once():
    args = _args(4)
    fused = _lowered(add_bias(4), f"{BEFORE},{PASS},{AFTER}")
    plain = _lowered(add_bias(4), f"{BEFORE},{PASS}{{multicast=false}},{AFTER}")
    tile = 8 * 4  # one 1x8 f32 row
    assert simulate(plain, "add_bias", **_copy(args))[1].hbm_read_bytes == 4 * 2 * tile
    assert simulate(fused, "add_bias", **_copy(args))[1].hbm_read_bytes == (4 + 1) * tile


def _refusal(text: str, passes: str) -> spyre_mlir.DiagnosticError:
    module = spyre_mlir.parse(text)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(passes).run(module)
    return info.value


@pytest.mark.parametrize(
    "passes, message",
    [
        ("spatial-tile", "needs a program in phase placed, got tiled (program @add_bias); run spatial-place first"),
        (f"{BEFORE},{PASS}", "needs a program in phase placed, got fused (program @add_bias); the program is past this phase"),
        ("", "needs a spatial.program in phase placed; the module has none: run spatial-tile, spatial-place first"),
    ],
    ids=["tiled", "fused", "kernel"],
)
def test_a_program_in_another_phase_is_refused_naming_what_to_run(passes, message):
    text = add_bias(2)
    exc = _refusal(text, f"{passes},{PASS}" if passes else PASS)
    assert exc.diagnostic.message == f"{PASS} {message}"
    assert exc.diagnostic.location is not None
