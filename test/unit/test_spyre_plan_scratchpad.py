"""spyre-plan-scratchpad: which values it places in LX, and what the planned kernels compute.

Only tensors passed between the group's compute ops (at its top level or in
its loops and branches) are intermediates. What is computed inside another
op's own region (an inter_tile_reduce combiner, an inter_tile_produce body, a
linalg body) is not: a combiner must stay pure, so a ktdp.store there is
invalid IR.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS_INTER_TILE, kernel_arguments

import spyre_mlir
from spyre_mlir.dialects.ktdp import InterTileProduceOp, InterTileReduceOp, StoreOp
from spyre_mlir.dialects.spyre import LX_OFFSET_ATTR
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.passes.pipelines import PIPELINES

PREFIX = ",".join(
    "spyre-coarse-tile{slices=2}" if p == "spyre-coarse-tile" else p
    for p in PIPELINES["ktir-to-bundle"][0].split(",")
    if p not in ("spyre-plan-scratchpad", "spyre-emit-bundle")
)


def _run(module, arguments) -> dict:
    name, args, hbm = arguments
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    result = spyre_mlir.interpret(module, name, hbm={a: v.copy() for a, v in hbm.items()}, **args)
    return {k: np.asarray(v) for k, v in result.items()}


def _inside(op, kinds) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent_op()
    return False


@pytest.mark.parametrize("stem", ["ring_reduce", "ring_reduce_inner_loop"])
def test_inter_tile_regions_are_not_planned(stem):
    path = CORPUS_INTER_TILE / f"{stem}.mlir"
    if not path.exists():
        pytest.skip(f"{path} not present")
    arguments = kernel_arguments(path, seed=0)
    source = spyre_mlir.parse(path.read_text())
    expected = _run(source, arguments)

    module = spyre_mlir.parse(path.read_text())
    spyre_mlir.PassManager.parse(PREFIX).run(module)
    spyre_mlir.PassManager.parse("spyre-plan-scratchpad").run(module)  # raised on invalid IR before the fix
    module.verify()

    stores = [op for op in module.walk() if isinstance(op, StoreOp)]
    assert not [s for s in stores if _inside(s, (InterTileReduceOp, InterTileProduceOp))]
    lx = [s for s in stores if LX_OFFSET_ATTR in s.operands[1].owner.operands[0].owner.attributes]
    assert lx, "the intermediates between the group's computes (outside the combiner) are still planned"

    got = _run(module, arguments)
    assert got.keys() == expected.keys()
    for k in expected:
        np.testing.assert_array_equal(got[k], expected[k], err_msg=f"{stem}: output {k!r}")


# -- LX at fixed offsets on a batch of cores ----------------------------------------
#
# A ct_local view without ct_id is the executing core's own LX: on a batch of cores its
# core is a lane array, and each lane reads and writes its own core's address space. A
# planned kernel has such views at fixed offsets; their boxes must take the box path
# (one strided copy per core), not the point path (coordinates of every element,
# located segment by segment, lane by lane), which made the planned layernorm_fwd_ktir
# ~20x slower to interpret than its source.

ROWS = """
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @rows(%x: index, %y: index) attributes {grid = [4]} {
    %c0 = arith.constant 0 : index
    %n = arith.constant 64 : index
    %pid = ktdp.get_compute_tile_id : index
    %o = arith.muli %pid, %n : index
    %xa = arith.addi %x, %o : index
    %ya = arith.addi %y, %o : index
    %xv = ktdp.construct_memory_view %xa, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
    %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %b = arith.addf %a, %a : tensor<1x64xf16>
    OFFSET
    %lv = ktdp.construct_memory_view %off, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<ct_local>} : memref<1x64xf16>
    %lt = ktdp.construct_access_tile %lv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
    STORE
    %c = ktdp.load %lt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %d = arith.mulf %c, %a : tensor<1x64xf16>
    %yv = ktdp.construct_memory_view %ya, sizes: [1, 64], strides: [64, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x64xf16>
    %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<1x64xf16> -> !ktdp.access_tile<1x64xindex>
    ktdp.store %d, %yt : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    return
  }
}
"""


@pytest.fixture
def point_path_in_lx(monkeypatch):
    """The accesses to LX that took the point path, as (load|store, lanes)."""
    from spyre_mlir.interpreter import views

    taken = []
    load_points, store_points = views._load_points, views._store_points

    def load(tile, ctx, access):
        if tile.view.__class__ is views.MemoryView and tile.view.lx_core is not None:
            taken.append(("load", ctx.count if tile.varying else 1))
        return load_points(tile, ctx, access)

    def store(tile, data, ctx, access):
        if tile.view.__class__ is views.MemoryView and tile.view.lx_core is not None:
            taken.append(("store", ctx.count if tile.varying else 1))
        return store_points(tile, data, ctx, access)

    monkeypatch.setattr(views, "_load_points", load)
    monkeypatch.setattr(views, "_store_points", store)
    return taken


FIXED = "%off = arith.constant 256 : index"
PER_CORE = "%off = arith.addi %o, %n : index"  # a different LX address on each core


def _rows(offset: str = FIXED, store: bool = True):
    text = ROWS.replace("OFFSET", offset).replace(
        "STORE", "ktdp.store %b, %lt : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>" if store else "")
    return spyre_mlir.parse(text)


@pytest.mark.parametrize("offset", [FIXED, PER_CORE], ids=["fixed", "per-core"])
def test_own_lx_at_a_fixed_offset_runs_batched_per_core(point_path_in_lx, offset):
    x = np.random.default_rng(0).integers(-4, 5, (4, 64)).astype(np.float16)
    out = spyre_mlir.interpret(_rows(offset), "rows", x=x, y=np.zeros((4, 64), np.float16))
    np.testing.assert_array_equal(np.asarray(out["y"]), (x + x) * x)  # each core reads back its own row
    assert point_path_in_lx == []


def test_unwritten_own_lx_is_refused_naming_the_core(point_path_in_lx):
    with pytest.raises(spyre_mlir.DiagnosticError, match="read of uninitialized LX of core 0"):
        spyre_mlir.interpret(_rows(store=False), "rows", x=np.ones((4, 64), np.float16),
                             y=np.zeros((4, 64), np.float16))
    # Unchecked, unwritten LX reads as zeros on every core.
    out = spyre_mlir.interpret(_rows(store=False), "rows", x=np.ones((4, 64), np.float16),
                               y=np.ones((4, 64), np.float16), options=InterpreterOptions(check_uninitialized=False))
    np.testing.assert_array_equal(np.asarray(out["y"]), np.zeros((4, 64), np.float16))
    assert point_path_in_lx == []


def test_planned_layernorm_runs_lx_batched(point_path_in_lx):
    """The planned corpus layernorm: every LX intermediate takes the box path, and the
    outputs are the source's."""
    from conftest import CORPUS

    path = CORPUS / "layernorm_fwd_ktir.mlir"
    if not path.exists():
        pytest.skip(f"{path} not present")
    arguments = kernel_arguments(path, seed=0)
    expected = _run(spyre_mlir.parse(path.read_text()), arguments)
    module = spyre_mlir.parse(path.read_text())
    spyre_mlir.PassManager.parse(PREFIX + ",spyre-plan-scratchpad").run(module)
    assert any(LX_OFFSET_ATTR in op.attributes for op in module.walk())
    got = _run(module, arguments)
    assert point_path_in_lx == []
    for k in expected:
        np.testing.assert_array_equal(got[k], expected[k], err_msg=f"layernorm_fwd_ktir: output {k!r}")


# ---------------------------------------------------------------------------
# The LX budget and the alignment are the target's; `lx-bytes=` overrides the budget.


def _planned(passes: str, target=None) -> str:
    from pathlib import Path

    from spyre_mlir.ir import print_ir
    from spyre_mlir.target import set_target

    text = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "bundle" / "spyre-plan-scratchpad.mlir").read_text()
    module = spyre_mlir.parse(text.split("\n// -----\n")[0])  # @chain: four intermediates
    if target is not None:
        set_target(module, target)
    # Not tiled first: a small target LX would make spyre-coarse-tile tile the group as well.
    spyre_mlir.PassManager.parse(f"ktdp-extract-compute-groups,{passes}").run(module)
    return print_ir(module)


def test_the_lx_budget_and_alignment_come_from_the_target():
    import re

    from spyre_mlir.target import SPYRE

    def offsets(printed: str) -> list[int]:
        return [int(n) for n in re.findall(r"spyre.lx_offset = (\d+)", printed)]

    assert offsets(_planned("spyre-plan-scratchpad")) == [0, 128, 256, 0]
    # A 300-byte LX spills the third buffer, whether the target or the option says so.
    small = _planned("spyre-plan-scratchpad", SPYRE.replace(lx_bytes=300))
    assert offsets(small) == [0, 128, 0] and "spyre.lx_spilled" in small
    assert offsets(_planned("spyre-plan-scratchpad{lx-bytes=300}")) == [0, 128, 0]
    assert offsets(_planned("spyre-plan-scratchpad{lx-bytes=4096}", SPYRE.replace(lx_bytes=300))) == [0, 128, 256, 0]
    # Buffers start on the target's alignment.
    assert offsets(_planned("spyre-plan-scratchpad", SPYRE.replace(alignment_bytes=512))) == [0, 512, 1024, 0]
