"""The late spatial phases: spatial-size-buffers and spatial-synthesize-handshakes.

Hand-written fused programs (one site and four sites, loops and nested
loops, a compute stage of two inputs, local accumulators sharing bytes, a
loop-invariant local, a two-site multicast group) go through
spatial-size-buffers, spatial-synthesize-handshakes and spatial-verify,
then run in the interpreter, compared with NumPy. Broken results of the
two passes (a buffer shallower than its loop needs, a removed signal) fail
spatial-verify with a located error naming the buffer or the semaphore.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, i64

import spyre_mlir
from spyre_mlir.dialects.spatial import BufferOp, EngineOp, ProgramOp, SemaphoreOp, SignalOp, WaitOp
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.spatial.spatial_size_buffers import LX_USED_ATTR
from spyre_mlir.passes.spatial.spatial_verify import verify_program

LATE = "spatial-size-buffers,spatial-synthesize-handshakes,spatial-verify"



def _run_passes(text: str, passes: str = LATE):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(passes).run(module)
    return module


def _program(module) -> ProgramOp:
    (program,) = [op for op in module.walk() if isinstance(op, ProgramOp)]
    return program


def _buffers(module) -> dict[str, BufferOp]:
    return {op.sym_name.data: op for op in module.walk() if isinstance(op, BufferOp)}


def _error(fn, *args) -> spyre_mlir.DiagnosticError:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        fn(*args)
    return info.value


def _line(text: str, diagnostic) -> str:
    assert diagnostic.location is not None, diagnostic.message
    return text.splitlines()[diagnostic.location.line - 1]


# ---------------------------------------------------------------------------
# One site: z = x * y + x over a 2x2 grid of 16x32 tiles (nested loops), one
# compute stage of two inputs.
# ---------------------------------------------------------------------------

ONE_SITE = """
spatial.program @fma attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<32x64xf32>
  spatial.tensor @y : memref<32x64xf32>
  spatial.tensor @z : memref<32x64xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x32xf32> depth 1
  spatial.buffer @by on @s0 : !spatial.tile<16x32xf32> depth 1
  spatial.buffer @bz on @s0 : !spatial.tile<16x32xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @fma compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>):
    %m = arith.mulf %a, %b : tensor<16x32xf32>
    %s = arith.addf %m, %a : tensor<16x32xf32>
    spatial.yield %s : tensor<16x32xf32>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @fma via @bx : !spatial.tile<16x32xf32>
  spatial.edge @ey from @ldy to @fma via @by : !spatial.tile<16x32xf32>
  spatial.edge @ez from @fma to @st via @bz : !spatial.tile<16x32xf32>
  spatial.engine @s0 "load" {
    spatial.loop %i = 0 to 2 {
      spatial.loop %j = 0 to 2 {
        spatial.load_step @ldx [%i, %j]
        spatial.load_step @ldy [%i, %j]
      }
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %i = 0 to 2 {
      spatial.loop %j = 0 to 2 {
        spatial.compute_step @fma
      }
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %i = 0 to 2 {
      spatial.loop %j = 0 to 2 {
        spatial.store_step @st [%i, %j]
      }
    }
  }
}
"""


def _inputs(shape, seed=0, n=2):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def test_one_site_sized_synthesized_verified_and_run_equals_numpy():
    module = _run_passes(ONE_SITE)
    program = _program(module)
    assert program.phase == "verified"
    buffers = _buffers(module)
    tile = 16 * 32 * 4
    assert {n: (b.depth_value, b.offset_value) for n, b in buffers.items()} == {
        "bx": (2, 0),
        "by": (2, 2 * tile),
        "bz": (2, 4 * tile),
    }
    assert program.attributes[LX_USED_ATTR].data["s0"].value.data == 6 * tile
    sems = {op.sym_name.data: int(op.init.value.data) for op in module.walk() if isinstance(op, SemaphoreOp)}
    assert sems == {"bx_full": 0, "bx_empty": 2, "by_full": 0, "by_empty": 2, "bz_full": 0, "bz_empty": 2}
    x, y = _inputs((32, 64))
    out = spyre_mlir.interpret(module, "fma", x=x, y=y, z=np.zeros_like(x))
    np.testing.assert_allclose(out["z"], x * y + x, rtol=1e-6)


def test_depth_1_is_single_buffered_and_still_runs():
    module = _run_passes(ONE_SITE, "spatial-size-buffers{depth=1},spatial-synthesize-handshakes,spatial-verify")
    assert {b.depth_value for b in _buffers(module).values()} == {1}
    x, y = _inputs((32, 64), seed=1)
    out = spyre_mlir.interpret(module, "fma", x=x, y=y, z=np.zeros_like(x))
    np.testing.assert_allclose(out["z"], x * y + x, rtol=1e-6)


# ---------------------------------------------------------------------------
# Four sites: each computes z = x * y + x on its two row tiles (its loop runs
# over its own tile numbers), with its own buffers and semaphores.
# ---------------------------------------------------------------------------


def _four_sites() -> str:
    lines = [
        'spatial.program @fma4 attributes {spatial.phase = "fused", grid = [4]} {',
        "  spatial.tensor @x : memref<128x32xf32>",
        "  spatial.tensor @y : memref<128x32xf32>",
        "  spatial.tensor @z : memref<128x32xf32>",
    ]
    t = "!spatial.tile<16x32xf32>"
    for s in range(4):
        lines.append(f'  spatial.site @s{s} at [{s}] engines ["load", "compute", "store"]')
    for s in range(4):
        lines += [f"  spatial.buffer @s{s}_{b} on @s{s} : {t} depth 1" for b in ("x", "y", "z")]
        lines += [
            f'  spatial.stage @s{s}_ldx load @x -> @s{s}_x on @s{s} engine "load"',
            f'  spatial.stage @s{s}_ldy load @y -> @s{s}_y on @s{s} engine "load"',
            f'  spatial.stage @s{s}_cp compute(@s{s}_x, @s{s}_y) -> @s{s}_z on @s{s} engine "compute" {{',
            "  ^bb0(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>):",
            "    %m = arith.mulf %a, %b : tensor<16x32xf32>",
            "    %s = arith.addf %m, %a : tensor<16x32xf32>",
            "    spatial.yield %s : tensor<16x32xf32>",
            "  }",
            f'  spatial.stage @s{s}_st store @s{s}_z -> @z on @s{s} engine "store"',
            f"  spatial.edge @s{s}_ex from @s{s}_ldx to @s{s}_cp via @s{s}_x : {t}",
            f"  spatial.edge @s{s}_ey from @s{s}_ldy to @s{s}_cp via @s{s}_y : {t}",
            f"  spatial.edge @s{s}_ez from @s{s}_cp to @s{s}_st via @s{s}_z : {t}",
        ]
    for s in range(4):
        lo, hi = 2 * s, 2 * s + 2
        lines += [
            f'  spatial.engine @s{s} "load" {{',
            f"    spatial.loop %k = {lo} to {hi} {{",
            f"      spatial.load_step @s{s}_ldx [%k]",
            f"      spatial.load_step @s{s}_ldy [%k]",
            "    }",
            "  }",
            f'  spatial.engine @s{s} "compute" {{',
            "    spatial.loop %k = 0 to 2 {",
            f"      spatial.compute_step @s{s}_cp",
            "    }",
            "  }",
            f'  spatial.engine @s{s} "store" {{',
            f"    spatial.loop %k = {lo} to {hi} {{",
            f"      spatial.store_step @s{s}_st [%k]",
            "    }",
            "  }",
        ]
    lines.append("}")
    return "\n".join(lines) + "\n"


FOUR_SITES = _four_sites()


def test_four_sites_sized_synthesized_verified_and_run_equals_numpy():
    module = _run_passes(FOUR_SITES)
    program = _program(module)
    assert program.phase == "verified"
    tile = 16 * 32 * 4
    used = {k: v.value.data for k, v in program.attributes[LX_USED_ATTR].data.items()}
    assert used == {f"s{s}": 6 * tile for s in range(4)}  # offsets are per site
    for name, buf in _buffers(module).items():
        assert buf.depth_value == 2, name
        assert buf.offset_value == "xyz".index(name[-1]) * 2 * tile, name
    sems = [op for op in module.walk() if isinstance(op, SemaphoreOp)]
    assert len(sems) == 4 * 3 * 2
    for sem in sems:  # each on the site of its buffer
        assert sem.site.root_reference.data == sem.sym_name.data.split("_")[0]
    x, y = _inputs((128, 32), seed=2)
    out = spyre_mlir.interpret(module, "fma4", x=x, y=y, z=np.zeros_like(x))
    np.testing.assert_allclose(out["z"], x * y + x, rtol=1e-6)


# ---------------------------------------------------------------------------
# A local accumulator: z1 = the sum of the four 16x16 row tiles of x, z2 the
# same for y. Each sum lives in a local of the compute engine, set by one
# compute stage, read and written by another inside the loop, read by a
# third; the two locals are live one after the other and share their bytes.
# ---------------------------------------------------------------------------

ACCUMULATE = """
spatial.program @sums attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<64x16xf32>
  spatial.tensor @y : memref<64x16xf32>
  spatial.tensor @z1 : memref<16x16xf32>
  spatial.tensor @z2 : memref<16x16xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.buffer @by on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.buffer @acc1 on @s0 : !spatial.tile<16x16xf32> depth 1 local
  spatial.buffer @acc2 on @s0 : !spatial.tile<16x16xf32> depth 1 local
  spatial.buffer @bz1 on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.buffer @bz2 on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @init1 compute() -> @acc1 on @s0 engine "compute" {
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    spatial.yield %zero : tensor<16x16xf32>
  }
  spatial.stage @add1 compute(@bx, @acc1) -> @acc1 on @s0 engine "compute" {
  ^bb0(%t: tensor<16x16xf32>, %a: tensor<16x16xf32>):
    %s = arith.addf %a, %t : tensor<16x16xf32>
    spatial.yield %s : tensor<16x16xf32>
  }
  spatial.stage @out1 compute(@acc1) -> @bz1 on @s0 engine "compute" {
  ^bb0(%a: tensor<16x16xf32>):
    spatial.yield %a : tensor<16x16xf32>
  }
  spatial.stage @init2 compute() -> @acc2 on @s0 engine "compute" {
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    spatial.yield %zero : tensor<16x16xf32>
  }
  spatial.stage @add2 compute(@by, @acc2) -> @acc2 on @s0 engine "compute" {
  ^bb0(%t: tensor<16x16xf32>, %a: tensor<16x16xf32>):
    %s = arith.addf %a, %t : tensor<16x16xf32>
    spatial.yield %s : tensor<16x16xf32>
  }
  spatial.stage @out2 compute(@acc2) -> @bz2 on @s0 engine "compute" {
  ^bb0(%a: tensor<16x16xf32>):
    spatial.yield %a : tensor<16x16xf32>
  }
  spatial.stage @st1 store @bz1 -> @z1 on @s0 engine "store"
  spatial.stage @st2 store @bz2 -> @z2 on @s0 engine "store"
  spatial.edge @ex from @ldx to @add1 via @bx : !spatial.tile<16x16xf32>
  spatial.edge @ey from @ldy to @add2 via @by : !spatial.tile<16x16xf32>
  spatial.edge @ez1 from @out1 to @st1 via @bz1 : !spatial.tile<16x16xf32>
  spatial.edge @ez2 from @out2 to @st2 via @bz2 : !spatial.tile<16x16xf32>
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.load_step @ldx [%k]
    }
    spatial.loop %k = 0 to 4 {
      spatial.load_step @ldy [%k]
    }
  }
  spatial.engine @s0 "compute" {
    spatial.compute_step @init1
    spatial.loop %k = 0 to 4 {
      spatial.compute_step @add1
    }
    spatial.compute_step @out1
    spatial.compute_step @init2
    spatial.loop %k = 0 to 4 {
      spatial.compute_step @add2
    }
    spatial.compute_step @out2
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st1
    spatial.store_step @st2
  }
}
"""


def test_a_local_accumulator_is_sized_shared_synthesized_verified_and_runs():
    module = _run_passes(ACCUMULATE)
    buffers = _buffers(module)
    tile = 16 * 16 * 4
    assert buffers["bx"].depth_value == buffers["by"].depth_value == 2  # filled in loops of 4
    assert buffers["bz1"].depth_value == buffers["bz2"].depth_value == 1  # filled once
    assert buffers["acc1"].depth_value == buffers["acc2"].depth_value == 1
    # The FIFOs first (2 + 2 + 1 + 1 tiles), then the locals: live one after the other, one place.
    assert buffers["acc1"].offset_value == buffers["acc2"].offset_value == 6 * tile
    assert _program(module).attributes[LX_USED_ATTR].data["s0"].value.data == 7 * tile
    # Locals get no semaphores and no handshakes.
    names = {op.sym_name.data for op in module.walk() if isinstance(op, SemaphoreOp)}
    assert names == {f"{b}_{k}" for b in ("bx", "by", "bz1", "bz2") for k in ("full", "empty")}
    assert not any("acc" in op.semaphore.root_reference.data for op in module.walk() if isinstance(op, WaitOp))
    x, y = _inputs((64, 16), seed=3)
    out = spyre_mlir.interpret(module, "sums", x=x, y=y, z1=np.zeros((16, 16), np.float32),
                               z2=np.zeros((16, 16), np.float32))
    np.testing.assert_allclose(out["z1"], x.reshape(4, 16, 16).sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(out["z2"], y.reshape(4, 16, 16).sum(axis=0), rtol=1e-5)


# ---------------------------------------------------------------------------
# Broken results fail spatial-verify, located, naming the buffer or the semaphore.
# ---------------------------------------------------------------------------


def test_a_buffer_shallower_than_its_loop_needs_fails_spatial_verify_naming_it():
    module = _run_passes(ONE_SITE, "spatial-size-buffers,spatial-synthesize-handshakes")
    bx = _buffers(module)["bx"]
    bx.depth = IntegerAttr(1, i64)  # @bx_empty still lets the loader run two tiles ahead
    err = _error(spyre_mlir.PassManager.parse("spatial-verify").run, module)
    message = err.diagnostic.message
    assert message.startswith("spatial-verify: overflow:"), message
    assert "stage @ldx writes buffer @bx, whose 1 slot(s) are all full" in message
    assert "spatial.load_step @ldx" in _line(ONE_SITE, err.diagnostic)


def test_a_removed_signal_deadlocks_in_spatial_verify_naming_the_semaphore():
    module = _run_passes(ONE_SITE, "spatial-size-buffers,spatial-synthesize-handshakes")
    (signal,) = [op for op in module.walk() if isinstance(op, SignalOp) and op.semaphore.root_reference.data == "bx_empty"]
    engine = signal.parent_op()
    while not isinstance(engine, EngineOp):
        engine = engine.parent_op()
    assert engine.engine.data == "compute"
    signal.detach()
    signal.erase()
    err = _error(verify_program, _program(module))
    message = err.diagnostic.message
    assert message.startswith("spatial-verify: deadlock:"), message
    assert "semaphore @bx_empty is 0, this wait wants 1" in message
    assert '(@s0, "load") waits on @bx_empty >= 1 (value 0)' in message
    assert "spatial.load_step @ldx" in _line(ONE_SITE, err.diagnostic)  # the wait inserted before it
    # Through the pass as well (it simulates before anything else would look at the wait).
    assert "@bx_empty" in _error(spyre_mlir.PassManager.parse("spatial-verify").run, module).diagnostic.message


# ---------------------------------------------------------------------------
# Phases and atomicity
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passes", "phase", "wanted"),
    [
        ("spatial-size-buffers", "placed", "fused"),
        ("spatial-size-buffers", "sized", "fused"),
        ("spatial-synthesize-handshakes", "fused", "sized"),
        ("spatial-synthesize-handshakes", "verified", "sized"),
    ],
)
def test_each_pass_refuses_a_program_in_another_phase(passes, phase, wanted):
    text = ONE_SITE.replace('"fused"', f'"{phase}"')
    module = spyre_mlir.parse(text)
    err = _error(spyre_mlir.PassManager.parse(passes).run, module)
    assert err.diagnostic.message.startswith(f"{passes} needs a program in phase {wanted}, got {phase}")
    assert "spatial.program @fma" in _line(text, err.diagnostic)


def test_a_module_without_a_program_is_refused():
    module = spyre_mlir.parse("builtin.module {}\n")
    for name in ("spatial-size-buffers", "spatial-synthesize-handshakes"):
        err = _error(spyre_mlir.PassManager.parse(name).run, module)
        assert "needs a spatial.program" in err.diagnostic.message


def test_a_site_that_does_not_fit_changes_nothing():
    module = spyre_mlir.parse(FOUR_SITES)
    before = print_ir(module)
    err = _error(spyre_mlir.PassManager.parse("spatial-size-buffers{lx-bytes=12000}").run, module)
    assert err.diagnostic.message == (
        "spatial-size-buffers: site @s0 needs 12288 bytes of LX for its buffers "
        "(@s0_x: 2 x 2048, @s0_y: 2 x 2048, @s0_z: 2 x 2048), more than its 12000"
    )
    assert print_ir(module) == before
    fits = _run_passes(FOUR_SITES, "spatial-size-buffers{lx-bytes=12288}")
    assert _program(fits).lx_bytes == 12288


def test_the_depth_option_sets_the_slots_and_the_empty_semaphores():
    """`depth=3`: three slots per looped FIFO, and @B_empty starts at 3 (`lx-bytes=` recorded on the program)."""
    module = _run_passes(ONE_SITE, "spatial-size-buffers{depth=3 lx-bytes=65536},spatial-synthesize-handshakes")
    assert {b.depth_value for b in _buffers(module).values()} == {3}
    assert _program(module).lx_bytes == 65536
    empties = {op.sym_name.data: int(op.init.value.data) for op in module.walk() if isinstance(op, SemaphoreOp)}
    assert empties["bx_empty"] == 3 and empties["bx_full"] == 0


# A local read in every iteration of a loop but written once, before it
# (a loop-invariant value, z_k = x_k + bias): only a local's own semantics
# (a read does not free it) run this.
BIAS = """
spatial.program @bias attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<64x16xf32>
  spatial.tensor @z : memref<64x16xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.buffer @bias on @s0 : !spatial.tile<16x16xf32> depth 1 local
  spatial.buffer @bz on @s0 : !spatial.tile<16x16xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @mk compute() -> @bias on @s0 engine "compute" {
    %b = arith.constant dense<1.500000e+00> : tensor<16x16xf32>
    spatial.yield %b : tensor<16x16xf32>
  }
  spatial.stage @add compute(@bx, @bias) -> @bz on @s0 engine "compute" {
  ^bb0(%t: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %s = arith.addf %t, %b : tensor<16x16xf32>
    spatial.yield %s : tensor<16x16xf32>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x16xf32>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x16xf32>
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.load_step @ldx [%k]
    }
  }
  spatial.engine @s0 "compute" {
    spatial.compute_step @mk
    spatial.loop %k = 0 to 4 {
      spatial.compute_step @add
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.store_step @st [%k]
    }
  }
}
"""


def test_a_loop_invariant_local_is_sized_and_synthesized():
    module = _run_passes(BIAS, "spatial-size-buffers,spatial-synthesize-handshakes")
    buffers = _buffers(module)
    assert (buffers["bias"].depth_value, buffers["bias"].offset_value) == (1, 4096)
    waits = [op.semaphore.root_reference.data for op in module.walk() if isinstance(op, WaitOp)]
    assert "bias_full" not in waits and "bias_empty" not in waits


def test_a_loop_invariant_local_verifies_and_runs():
    module = _run_passes(BIAS)
    (x,) = _inputs((64, 16), seed=4, n=1)
    out = spyre_mlir.interpret(module, "bias", x=x, z=np.zeros_like(x))
    np.testing.assert_allclose(out["z"], x + np.float32(1.5), rtol=1e-6)


# Two sites and a multicast group (test/lit/passes/spatial/spatial-size-buffers-multicast.mlir):
# reader @ldw on @s0 reads each tile of @w once, delivering it into @w0 and
# into @w1, the buffer of receive stage @rvw on @s1; each site adds its own
# tiles of @x.
MULTICAST = Path(__file__).resolve().parents[1] / "lit" / "passes" / "spatial" / "spatial-size-buffers-multicast.mlir"


def test_a_multicast_group_verifies_and_runs():
    module = _run_passes(MULTICAST)
    rng = np.random.default_rng(5)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    x = rng.standard_normal((32, 8)).astype(np.float32)
    out = spyre_mlir.interpret(module, "mc", w=w, x=x, z=np.zeros_like(x))
    np.testing.assert_allclose(out["z"], x + np.concatenate([w, w]), rtol=1e-6)
