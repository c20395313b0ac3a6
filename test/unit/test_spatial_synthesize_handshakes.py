"""Unit tests of spatial-synthesize-handshakes (passes/spatial/spatial_synthesize_handshakes.py).

On a sized spatial program the pass adds, per FIFO buffer, a full semaphore
(init 0) and an empty one (init its depth), and wraps the step filling the
buffer in `wait empty` / `signal full` and the step draining it in
`wait full` / `signal empty` (a multicast reader fills its receivers'
buffers too); local buffers get nothing. It refuses, before changing
anything, a program in another phase, a choreography that already waits or
signals, and FIFOs without one producer and one consumer.

Tested: the semaphores and the exact wait/step/signal order on every engine
of a program with a FIFO fed in a loop and a local accumulator, a fresh name
where `B_full` is taken, the multicast reader's waits and signals, that the
result verifies and runs equal to NumPy, translation validation (the
synthesized program of a kernel against the source kernel on seeded inputs),
and the located refusals (out of phase, hand-written handshakes, nothing
changed when one of two programs is refused).
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.dialects import spatial
from spyre_mlir.ir import print_ir

PASS = "spatial-synthesize-handshakes"

# z = the sum of the four 16x16 row tiles of x, in a local accumulator of the compute engine.
SUMS = """
spatial.program @sums attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<64x16xf32>
  spatial.tensor @z : memref<16x16xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.buffer @acc on @s0 : !spatial.tile<16x16xf32> depth 1 local
  spatial.buffer @bz on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @init compute() -> @acc on @s0 engine "compute" {
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    spatial.yield %zero : tensor<16x16xf32>
  }
  spatial.stage @add compute(@bx, @acc) -> @acc on @s0 engine "compute" {
  ^bb0(%t: tensor<16x16xf32>, %a: tensor<16x16xf32>):
    %s = arith.addf %a, %t : tensor<16x16xf32>
    spatial.yield %s : tensor<16x16xf32>
  }
  spatial.stage @out compute(@acc) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x16xf32>):
    spatial.yield %a : tensor<16x16xf32>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x16xf32>
  spatial.edge @ez from @out to @st via @bz : !spatial.tile<16x16xf32>
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.load_step @ldx [%k]
    }
  }
  spatial.engine @s0 "compute" {
    spatial.compute_step @init
    spatial.loop %k = 0 to 4 {
      spatial.compute_step @add
    }
    spatial.compute_step @out
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st
  }
}
"""

# A copy through two FIFOs, the second named @bx_full: the first one's full semaphore needs another name.
CLASH = """
spatial.program @copy attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<16xf32>
  spatial.tensor @z : memref<16xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16xf32> depth 1
  spatial.buffer @bx_full on @s0 : !spatial.tile<16xf32> depth 1
  spatial.stage @ld load @x -> @bx on @s0 engine "load"
  spatial.stage @neg compute(@bx) -> @bx_full on @s0 engine "compute" {
  ^bb0(%t: tensor<16xf32>):
    %n = arith.negf %t : tensor<16xf32>
    spatial.yield %n : tensor<16xf32>
  }
  spatial.stage @st store @bx_full -> @z on @s0 engine "store"
  spatial.edge @e1 from @ld to @neg via @bx : !spatial.tile<16xf32>
  spatial.edge @e2 from @neg to @st via @bx_full : !spatial.tile<16xf32>
  spatial.engine @s0 "load" {
    spatial.load_step @ld
  }
  spatial.engine @s0 "compute" {
    spatial.compute_step @neg
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st
  }
}
"""

# Two blocks add the same bias row to their own rows of x (the bias tile is multicast after fusing).
ADD_BIAS = """
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#two = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_bias(%x: index, %w: index, %y: index) attributes {grid = [2]} {
  %r = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 8], strides: [8, 1] {coordinate_set = #two, memory_space = #ktdp.memory_space<global>} : memref<2x8xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [1, 8], strides: [8, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x8xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 8], strides: [8, 1] {coordinate_set = #two, memory_space = #ktdp.memory_space<global>} : memref<2x8xf32>
  %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<2x8xf32> -> !ktdp.access_tile<1x8xindex>
  %wt = ktdp.construct_access_tile %wv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x8xf32> -> !ktdp.access_tile<1x8xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %b = ktdp.load %wt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %s = arith.addf %a, %b : tensor<1x8xf32>
  %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<2x8xf32> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %s, %yt : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>
  func.return
}
"""
SIZED_KERNEL = "spatial-tile,spatial-place,spatial-fuse-readers,spatial-size-buffers"


def _run(text: str, passes: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(passes).run(module)
    return module


def _sized(text: str):
    return _run(text, "spatial-size-buffers")


def _synthesized(text: str):
    return _run(text, f"spatial-size-buffers,{PASS}")


def _semaphores(module) -> dict[str, int]:
    return {op.sym_name.data: op.init.value.data for op in module.walk() if isinstance(op, spatial.SemaphoreOp)}


def _sym(ref) -> str:
    return ref.root_reference.data


def _choreography(module, site: str, engine: str) -> list[str]:
    """The engine's steps, waits and signals in order ("wait bx_empty", "load ldx", "signal bx_full")."""
    (eng,) = [e for e in module.walk() if isinstance(e, spatial.EngineOp) and _sym(e.site) == site and e.engine.data == engine]
    out = []
    for op in eng.walk():
        if isinstance(op, spatial.WaitOp):
            out.append(f"wait {_sym(op.semaphore)}")
        elif isinstance(op, spatial.SignalOp):
            out.append(f"signal {_sym(op.semaphore)}")
        elif isinstance(op, spatial.STEPS):
            out.append(f"{op.name.removeprefix('spatial.').removesuffix('_step')} {_sym(op.stage)}")
    return out


def test_fifo_buffers_get_full_and_empty_semaphores_and_locals_none():
    sized = _sized(SUMS)
    depths = {b.sym_name.data: b.depth_value for b in sized.walk() if isinstance(b, spatial.BufferOp)}
    module = _synthesized(SUMS)
    assert _semaphores(module) == {"bx_full": 0, "bx_empty": depths["bx"], "bz_full": 0, "bz_empty": depths["bz"]}
    assert depths["bx"] == 2  # filled in a repeating loop: the empty semaphore starts at 2 free slots
    (program,) = [op for op in module.walk() if isinstance(op, spatial.ProgramOp)]
    assert program.phase == "synthesized"


def test_every_fill_and_drain_is_wrapped_in_its_handshake():
    module = _synthesized(SUMS)
    assert _choreography(module, "s0", "load") == ["wait bx_empty", "load ldx", "signal bx_full"]
    assert _choreography(module, "s0", "compute") == [
        "compute init",  # it only writes the local: no handshake
        "wait bx_full", "compute add", "signal bx_empty",
        "wait bz_empty", "compute out", "signal bz_full",
    ]
    assert _choreography(module, "s0", "store") == ["wait bz_full", "store st", "signal bz_empty"]


def test_a_taken_name_gets_a_suffix():
    module = _synthesized(CLASH)
    assert set(_semaphores(module)) == {"bx_full_1", "bx_empty", "bx_full_full", "bx_full_empty"}
    assert _choreography(module, "s0", "compute") == [
        "wait bx_full_1", "wait bx_full_empty", "compute neg", "signal bx_empty", "signal bx_full_full",
    ]


def test_sums_verify_and_run_equal_to_numpy():
    module = _run(SUMS, f"spatial-size-buffers,{PASS},spatial-verify")
    x = np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32)
    out = spyre_mlir.interpret(module, "sums", x=x, z=np.zeros((16, 16), np.float32))
    np.testing.assert_allclose(out["z"], x.reshape(4, 16, 16).sum(0), rtol=1e-5, atol=1e-6)


def test_the_multicast_reader_also_fills_its_receivers_buffers():
    module = _run(ADD_BIAS, f"{SIZED_KERNEL},{PASS}")
    (group,) = [op for op in module.walk() if isinstance(op, spatial.MulticastOp)]
    stages = {op.sym_name.data: op for op in module.walk() if isinstance(op, spatial.StageOp)}
    reader = stages[_sym(group.reader)]
    (receiver,) = [s for s in stages.values() if s.kind_name == "receive"]
    own, theirs = reader.output_names[0], receiver.output_names[0]
    load = _choreography(module, _sym(reader.site), "load")
    at = load.index(f"load {reader.sym_name.data}")
    assert load[at - 2: at] == [f"wait {own}_empty", f"wait {theirs}_empty"]
    assert load[at + 1: at + 3] == [f"signal {own}_full", f"signal {theirs}_full"]
    # The receiving site has no step for it; its consumer drains the delivered buffer.
    assert not any(receiver.sym_name.data in s for s in _choreography(module, _sym(receiver.site), "load"))
    assert f"wait {theirs}_full" in _choreography(module, _sym(receiver.site), "compute")


@pytest.mark.parametrize("seed", [0, 1])
def test_synthesized_program_computes_the_source_kernel_and_numpy(seed):
    rng = np.random.default_rng(seed)
    args = dict(x=rng.standard_normal((2, 8)).astype(np.float32), w=rng.standard_normal((1, 8)).astype(np.float32),
                y=np.zeros((2, 8), np.float32))
    source = spyre_mlir.interpret(ADD_BIAS, "add_bias", **{k: v.copy() for k, v in args.items()})["y"]
    got = spyre_mlir.interpret(_run(ADD_BIAS, f"{SIZED_KERNEL},{PASS}"), "add_bias", **args)["y"]
    np.testing.assert_array_equal(got, source)
    np.testing.assert_allclose(got, args["x"] + args["w"], rtol=1e-6)


def _refused(module, passes: str = PASS) -> spyre_mlir.DiagnosticError:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(passes).run(module)
    return info.value


def test_a_fused_program_is_refused_naming_the_pass_to_run_first():
    exc = _refused(spyre_mlir.parse(SUMS))
    assert exc.diagnostic.message == (
        f"{PASS} needs a program in phase sized, got fused (program @sums); run spatial-size-buffers first")
    assert exc.diagnostic.location is not None
    assert "spatial.program @sums" in SUMS.splitlines()[exc.diagnostic.location.line - 1]


def test_hand_written_handshakes_are_refused_at_the_signal_and_nothing_changes():
    good = print_ir(_sized(CLASH))
    bad = print_ir(_sized(SUMS)).replace("spatial.load_step @ldx [%k]", "spatial.load_step @ldx [%k]\n      spatial.signal @bx_sem += 1")
    bad = bad.replace("spatial.engine @s0 \"load\"", "spatial.semaphore @bx_sem on @s0 init 0\n  spatial.engine @s0 \"load\"", 1)
    bad = bad.replace("spatial.compute_step @add", "spatial.wait @bx_sem >= 1\n      spatial.compute_step @add")
    text = "builtin.module {\n" + good + "\n" + bad + "\n}\n"
    module = spyre_mlir.parse(text)
    exc = _refused(module)
    assert "the choreography of program @sums already has its handshakes ('spatial.signal @bx_sem')" in exc.diagnostic.message
    assert exc.diagnostic.location is not None
    assert "spatial.signal @bx_sem" in text.splitlines()[exc.diagnostic.location.line - 1]
    # Both programs are planned before either changes: the good one is left as it was.
    assert not [op for op in module.walk() if isinstance(op, spatial.SemaphoreOp) and op.sym_name.data != "bx_sem"]
