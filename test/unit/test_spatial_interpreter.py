"""Running `spatial.program`s (interpreter/ops_spatial.py; docs/spatial.md, "Executing it")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.dialects.spatial import ProgramOp

LIT = Path(__file__).resolve().parents[1] / "lit" / "dialects" / "spatial" / "ops.mlir"


def _program_text(name: str) -> str:
    """The text of program @name of the lit file (which holds several)."""
    module = spyre_mlir.parse(LIT)
    found = [op for op in module.walk() if isinstance(op, ProgramOp) and op.sym_name.data == name]
    assert len(found) == 1
    return str(found[0])


VADD = LIT.read_text()


def _error(text: str, name: str, **args) -> str:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, name, **args)
    return info.value.diagnostic.message


def _vadd_inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 64)).astype(np.float16)
    y = rng.standard_normal((64, 64)).astype(np.float16)
    return x, y


def test_vadd_of_the_lit_file_equals_numpy():
    x, y = _vadd_inputs()
    out = spyre_mlir.interpret(VADD, "vadd", x=x, y=y, z=np.zeros((64, 64), np.float16))
    assert set(out) == {"x", "y", "z"}
    np.testing.assert_array_equal(out["z"], x + y)
    np.testing.assert_array_equal(out["x"], x)  # inputs are read back unchanged


def test_vadd_alone_parsed_from_its_program_text():
    x, y = _vadd_inputs(1)
    out = spyre_mlir.interpret(_program_text("vadd"), "vadd", x=x, y=y, z=np.zeros((64, 64), np.float16))
    np.testing.assert_array_equal(out["z"], x + y)


def test_a_program_before_synthesized_is_refused():
    message = _error(VADD, "shared", w=np.zeros((32, 64), np.uint16), o=np.zeros((64, 64), np.uint16))
    assert 'phase "fused"' in message


def test_a_wrongly_shaped_argument_is_refused():
    x, y = _vadd_inputs()
    message = _error(VADD, "vadd", x=x[:32], y=y, z=np.zeros((64, 64), np.float16))
    assert "argument 'x'" in message and "64x64" in message


# The compute engine's `signal @empty_in` moved out of its loop (so the program
# still verifies: @empty_in is signalled somewhere): after the two initial
# slots, the load engine waits for @empty_in forever.
DEADLOCK = VADD.replace(
    """      spatial.compute_step @add
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
""",
    """      spatial.compute_step @add
      spatial.signal @full_out += 1
    }
    spatial.signal @empty_in += 1
""",
)


def test_a_missing_signal_is_a_located_deadlock():
    assert DEADLOCK != VADD
    x, y = _vadd_inputs()
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(DEADLOCK, "vadd", x=x, y=y, z=np.zeros((64, 64), np.float16))
    diagnostic = info.value.diagnostic
    assert diagnostic.message.startswith("deadlock")
    assert "@empty_in >= 1" in diagnostic.message and "its value is 0" in diagnostic.message
    assert 'engine "load" of site @s0' in diagnostic.message and 'engine "compute" of site @s0' in diagnostic.message
    assert diagnostic.location is not None
    line = VADD.splitlines()[diagnostic.location.line - 1]
    assert "spatial.wait @empty_in >= 1" in line


# Depth-1 buffers and a load engine that loads two tiles in a row, waiting for nothing.
OVERFLOW = """
spatial.program @ovf attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<32x8xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x8xf32> depth 1 offset 0
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ldx to @st via @bx : !spatial.tile<16x8xf32>
  spatial.semaphore @full on @s0 init 0
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.load_step @ldx [%k]
      spatial.signal @full += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 2 {
      spatial.wait @full >= 1
      spatial.store_step @st [%k]
    }
  }
}
"""


def test_a_full_buffer_written_again_is_a_located_overflow():
    x = np.arange(32 * 8, dtype=np.float32).reshape(32, 8)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(OVERFLOW, "ovf", x=x, z=np.zeros_like(x))
    diagnostic = info.value.diagnostic
    assert "overflow" in diagnostic.message and "@bx" in diagnostic.message and "@ldx" in diagnostic.message
    assert "load_step @ldx" in OVERFLOW.splitlines()[diagnostic.location.line - 1]


def test_the_same_program_with_depth_2_runs():
    x = np.arange(32 * 8, dtype=np.float32).reshape(32, 8)
    text = OVERFLOW.replace("depth 1", "depth 2")
    np.testing.assert_array_equal(spyre_mlir.interpret(text, "ovf", x=x, z=np.zeros_like(x))["z"], x)


def test_reading_an_empty_buffer_is_a_located_underflow():
    x = np.ones((32, 8), np.float32)
    text = OVERFLOW.replace("      spatial.wait @full >= 1\n", "").replace("spatial.loop %k = 0 to 2 {\n      spatial.load_step", "spatial.loop %k = 0 to 0 {\n      spatial.load_step")
    message = _error(text, "ovf", x=x, z=np.zeros_like(x))
    assert "underflow" in message and "@bx" in message and "@st" in message


# A compute stage doing exp, double-buffered, on rank-1 tiles.
EXP = """
spatial.program @vexp attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @a : memref<256xf32>
  spatial.tensor @b : memref<256xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @ba on @s0 : !spatial.tile<64xf32> depth 2 offset 0
  spatial.buffer @bb on @s0 : !spatial.tile<64xf32> depth 2 offset 512
  spatial.stage @ld load @a -> @ba on @s0 engine "load"
  spatial.stage @ex compute(@ba) -> @bb on @s0 engine "compute" {
  ^bb0(%t: tensor<64xf32>):
    %e = math.exp %t : tensor<64xf32>
    spatial.yield %e : tensor<64xf32>
  }
  spatial.stage @st store @bb -> @b on @s0 engine "store"
  spatial.edge @e0 from @ld to @ex via @ba : !spatial.tile<64xf32>
  spatial.edge @e1 from @ex to @st via @bb : !spatial.tile<64xf32>
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 2
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ld [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @ex
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}
"""


def test_a_compute_stage_doing_exp_equals_numpy():
    a = np.random.default_rng(2).standard_normal(256).astype(np.float32)
    out = spyre_mlir.interpret(EXP, "vexp", a=a, b=np.zeros(256, np.float32))
    np.testing.assert_allclose(out["b"], np.exp(a), rtol=1e-6)


def test_a_tile_outside_the_tensor_is_a_located_error():
    a = np.zeros(256, np.float32)
    text = EXP.replace("spatial.loop %k = 0 to 4 {\n      spatial.wait @empty_in", "spatial.loop %k = 1 to 5 {\n      spatial.wait @empty_in")
    assert text != EXP
    message = _error(text, "vexp", a=a, b=np.zeros(256, np.float32))
    assert "outside the tensor" in message and "@a" in message


# Trips (seed 004's `Trip`): a ragged double-and-copy whose three engines run
# their loops to a count read from the program's own data, element 1 of @n:
# ceil((v + 0) / 8) tiles of 8 rows, v admitted from 1 to 48 (at most 6 of the
# tensor's 8 tiles).
TRIP = """
spatial.program @ragged attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<2xi32>
  spatial.tensor @x : memref<64x8xf32>
  spatial.tensor @z : memref<64x8xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.buffer @bz on @s0 : !spatial.tile<8x8xf32> depth 2 offset 512
  spatial.stage @ld load @x -> @bx on @s0 engine "load"
  spatial.stage @dbl compute(@bx) -> @bz on @s0 engine "compute" {
  ^bb0(%t: tensor<8x8xf32>):
    %d = arith.addf %t, %t : tensor<8x8xf32>
    spatial.yield %d : tensor<8x8xf32>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @e0 from @ld to @dbl via @bx : !spatial.tile<8x8xf32>
  spatial.edge @e1 from @dbl to @st via @bz : !spatial.tile<8x8xf32>
  spatial.trip @rows from @n[1] per 8 bias 0 admit [1, 48]
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 2
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @empty_in >= 1
      spatial.load_step @ld [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @dbl
      spatial.signal @empty_in += 1
      spatial.signal @full_out += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @full_out >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty_out += 1
    }
  }
}
"""

_SENTINEL = -7.0


def _trip_run(v: int, text: str = TRIP):
    x = np.random.default_rng(3).standard_normal((64, 8)).astype(np.float32)
    n = np.array([999, v], np.int32)  # element 0 is not the trip's: never read
    out = spyre_mlir.interpret(text, "ragged", n=n, x=x, z=np.full((64, 8), _SENTINEL, np.float32))
    return x, out["z"]


def _expected(x: np.ndarray, tiles: int) -> np.ndarray:
    want = np.full_like(x, _SENTINEL)
    want[: 8 * tiles] = x[: 8 * tiles] + x[: 8 * tiles]
    return want


@pytest.mark.parametrize("v, tiles", [(1, 1), (8, 1), (9, 2), (30, 4), (47, 6), (48, 6)])
def test_a_trip_inside_its_range_processes_exactly_that_many_tiles(v, tiles):
    x, z = _trip_run(v)
    np.testing.assert_array_equal(z, _expected(x, tiles))  # tiles beyond the count untouched


def _count_steps(monkeypatch) -> list:
    from spyre_mlir.interpreter import ops_spatial

    steps: list = []
    original = ops_spatial._Run.step

    def counted(self, op, *args):
        steps.append(op)
        return original(self, op, *args)

    monkeypatch.setattr(ops_spatial._Run, "step", counted)
    return steps


@pytest.mark.parametrize("v", [49, 56, 1000, 0, -3, -(2**31)])
def test_a_trip_outside_its_range_is_refused_before_anything_runs(v, monkeypatch):
    # 56 would be 7 tiles, inside the tensor: it is refused, not clamped to 6;
    # -2**31 is not wrapped into the range either.
    steps = _count_steps(monkeypatch)
    x = np.ones((64, 8), np.float32)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(TRIP, "ragged", n=np.array([5, v], np.int32), x=x, z=np.zeros_like(x))
    diagnostic = info.value.diagnostic
    assert f"trip @rows reads {v} from @n[1], outside the admitted range [1, 48]" in diagnostic.message
    assert "spatial.trip @rows" in TRIP.splitlines()[diagnostic.location.line - 1]
    assert steps == []  # no engine took a single step: no tile was loaded, computed or written


def test_the_steps_run_when_the_trip_is_admitted(monkeypatch):
    steps = _count_steps(monkeypatch)
    _trip_run(17)
    assert len(steps) == 3 * 3  # 3 tiles, each loaded, doubled and stored


def test_a_trip_count_with_bias_at_or_below_zero_runs_no_iteration():
    text = TRIP.replace("per 8 bias 0 admit [1, 48]", "per 8 bias -16 admit [0, 60]")
    assert text != TRIP
    for v, tiles in [(0, 0), (16, 0), (17, 1), (24, 1), (25, 2), (60, 6)]:
        x, z = _trip_run(v, text)
        np.testing.assert_array_equal(z, _expected(x, tiles))


# -- the extensions (docs/spatial.md): scalars, locals, origins, index arguments, multicast, measurements --

EXT_PATH = LIT.parent / "ext.mlir"
EXT = EXT_PATH.read_text()
TILE_BYTES = 32 * 128 * 4  # one 32x128xf32 tile


def _ext_inputs(seed: int = 5):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 256)).astype(np.float32)
    w = rng.standard_normal((32, 128)).astype(np.float32)
    return {"x": x, "w": w, "z": np.zeros((64, 128), np.float32), "K": 256, "eps": 1e-5, "bias": -3}


def _ext_expected(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """What @ext computes, in its own order and in f32: per site, acc = 0; acc += x_j * (j + 1); z = acc * w."""
    rows = []
    for r in (0, 32):
        acc = np.zeros((32, 128), np.float32)
        for j in range(2):
            acc = acc + x[r : r + 32, 128 * j : 128 * (j + 1)] * np.float32(j + 1)
        rows.append(acc * w)
    return np.concatenate(rows)


def _lines(text: str, needle: str) -> list[int]:
    """The lines of `text` holding `needle`, comments (the lit file's CHECK lines) left out."""
    return [i + 1 for i, t in enumerate(text.splitlines()) if needle in t and not t.lstrip().startswith("//")]


def _line(text: str, needle: str) -> int:
    (line,) = _lines(text, needle)
    return line


def test_the_extensions_program_equals_numpy():
    args = _ext_inputs()
    out = spyre_mlir.interpret(EXT, "ext", **args)
    np.testing.assert_array_equal(out["z"], _ext_expected(args["x"], args["w"]))
    np.testing.assert_array_equal(out["w"], args["w"])  # the multicast tile is only read


def test_a_scalar_other_than_the_specialized_one_is_refused_before_anything_runs(monkeypatch):
    steps = _count_steps(monkeypatch)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(EXT, "ext", **{**_ext_inputs(), "K": 1024})
    diagnostic = info.value.diagnostic
    assert diagnostic.message == "program @ext is specialized for K = 256, called with K = 1024"
    assert diagnostic.location.line == _line(EXT, "spatial.scalar @K : index = 256")
    assert steps == []


def test_a_float_scalar_is_compared_in_its_type(monkeypatch):
    # 1.00000001e-05 is 1e-05 in f32: the same program; 1.0000001e-05 (the next f32) and 1e-04 are not.
    assert np.float32(1.00000001e-05) == np.float32(1e-05) != np.float32(1.0000001e-05)
    out = spyre_mlir.interpret(EXT, "ext", **{**_ext_inputs(), "eps": 1.00000001e-05})
    assert out["z"].any()
    steps = _count_steps(monkeypatch)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(EXT, "ext", **{**_ext_inputs(), "eps": 1e-4})
    assert info.value.diagnostic.message == "program @ext is specialized for eps = 1e-05, called with eps = 1e-04"
    assert info.value.diagnostic.location.line == _line(EXT, "spatial.scalar @eps")
    message = _error(EXT, "ext", **{**_ext_inputs(), "eps": 1.0000001e-05})
    assert message == "program @ext is specialized for eps = 1e-05, called with eps = 1.0000001e-05"
    assert steps == []


def test_a_scalar_is_an_argument_of_the_program():
    args = _ext_inputs()
    del args["K"]
    message = _error(EXT, "ext", **args)
    assert "missing argument(s) K for @ext" in message


def test_a_local_read_before_it_is_written_is_a_located_underflow():
    text = EXT.replace("    spatial.compute_step @init1\n", "")
    assert text != EXT
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, "ext", **_ext_inputs())
    diagnostic = info.value.diagnostic
    assert diagnostic.message == (
        "buffer underflow: compute stage @step1 reads local buffer @acc1, which was never written"
    )
    assert diagnostic.location.line == _line(text, "spatial.compute_step @step1 [%j]")


def test_a_tile_origin_outside_the_tensor_is_a_located_error():
    text = EXT.replace("affine_map<(d0) -> (32, d0 * 128)>", "affine_map<(d0) -> (48, d0 * 128)>")
    assert text != EXT
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, "ext", **_ext_inputs())
    diagnostic = info.value.diagnostic
    assert diagnostic.message == (
        "stage @ldx1: the tile of indices [0] (origin [48, 0] = (d0) -> (48, d0 * 128), tiles 32x128) is outside "
        "the tensor @x (64x256): along dim 0 it covers [48, 80), the tensor [0, 64)"
    )
    assert diagnostic.location.line == _line(text, "spatial.load_step @ldx1 [%k]")


def test_a_step_whose_index_count_differs_from_its_origin_is_refused_by_the_interpreter_too():
    # The verifier refuses it first; unverified, the interpreter does not guess either.
    from spyre_mlir.interpreter import InterpreterOptions

    text = EXT.replace("affine_map<(d0) -> (32, d0 * 128)>", "affine_map<(d0, d1) -> (32, d0 * 128)>")
    message = _error(text, "ext", **_ext_inputs())
    assert "the origin of stage @ldx1 is a map of 2 index(es)" in message
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, "ext", options=InterpreterOptions(verify=False), **_ext_inputs())
    assert info.value.diagnostic.message == (
        "stage @ldx1: its origin (d0, d1) -> (32, d0 * 128) takes 2 index(es), the step gives 1"
    )


def test_a_delivery_into_a_full_receive_buffer_is_a_located_overflow():
    # The reader loads @w twice: @w0 has room (depth 2), @w1 on @s1 does not.
    text = EXT.replace(
        "spatial.buffer @w0 on @s0 : !spatial.tile<32x128xf32> depth 1 offset 49152",
        "spatial.buffer @w0 on @s0 : !spatial.tile<32x128xf32> depth 2 offset 81920",
    ).replace('"load" {\n    spatial.load_step @ldw\n', '"load" {\n    spatial.load_step @ldw\n    spatial.load_step @ldw\n')
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, "ext", **_ext_inputs())
    diagnostic = info.value.diagnostic
    assert diagnostic.message == (
        "buffer overflow: load stage @ldw (multicast to receive stage @rvw1) writes buffer @w1, all 1 slot(s) "
        "of which are full"
    )
    assert diagnostic.location.line == _lines(text, "spatial.load_step @ldw")[1]


def test_a_recv_step_is_a_marker_refused_when_run():
    text = EXT.replace(
        '  spatial.engine @s1 "load" {\n', '  spatial.engine @s1 "load" {\n    spatial.recv_step @rvw1\n'
    )
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, "ext", **_ext_inputs())
    assert info.value.diagnostic.message.startswith("recv_step @rvw1 does not run")
    assert info.value.diagnostic.location.line == _line(text, "spatial.recv_step @rvw1")


# The same computation without multicast: @s1 loads the @w tile itself.
UNFUSED = (
    EXT.replace("  spatial.multicast @g reader @ldw to [@s1]\n", "")
    .replace('spatial.stage @rvw1 receive @g -> @w1 on @s1 engine "load"', 'spatial.stage @rvw1 load @w -> @w1 on @s1 engine "load"')
    .replace("    spatial.signal @w0_full += 1\n    spatial.signal @w1_full += 1\n", "    spatial.signal @w0_full += 1\n")
    .replace('  spatial.engine @s1 "load" {\n', '  spatial.engine @s1 "load" {\n    spatial.load_step @rvw1\n    spatial.signal @w1_full += 1\n')
)


def test_simulate_measures_hbm_bytes_and_cycles():
    from spyre_mlir.interpreter.ops_spatial import SpatialRunStats, simulate

    args = _ext_inputs()
    out, stats = simulate(EXT, "ext", **args)
    np.testing.assert_array_equal(out["z"], _ext_expected(args["x"], args["w"]))
    assert isinstance(stats, SpatialRunStats)
    # @w once (multicast), four @x tiles; two @z tiles.
    assert stats.hbm_read_bytes == 5 * TILE_BYTES and stats.hbm_written_bytes == 2 * TILE_BYTES
    assert stats.steps == 15  # 5 loads, 8 compute steps, 2 stores
    # Two sites share 128 B/cycle: a tile load or store is 16384 / 64 = 256 cycles; @step is an addf and a
    # mulf of 4096 elements (64 + 64 cycles), @fin a mulf (64), @init a constant (0). @s0: loads end at 256,
    # 512, 768; @step0 waits for them: 512..640, 768..896; @fin0 896..960; @st0 960..1216.
    assert stats.engine_cycles == {
        "s0.load": 768.0, "s0.compute": 960.0, "s0.store": 1216.0,
        "s1.load": 512.0, "s1.compute": 704.0, "s1.store": 960.0,
    }
    assert stats.cycles == 1216.0
    ev = [(e.site, e.engine, e.stage, e.start, e.end, e.indices) for e in stats.events if e.site == "s1"]
    assert ev[:5] == [
        ("s1", "load", "ldx1", 0.0, 256.0, (0,)),
        ("s1", "load", "ldx1", 256.0, 512.0, (1,)),
        ("s1", "compute", "init1", 0.0, 0.0, ()),
        ("s1", "compute", "step1", 256.0, 384.0, (0,)),
        ("s1", "compute", "step1", 512.0, 640.0, (1,)),
    ]
    # @fin1 waits for @w1_full, signalled by @s0's load engine at 256: no later than the clock it has.
    assert ev[5] == ("s1", "compute", "fin1", 640.0, 704.0, ())


def test_a_multicast_reads_hbm_once():
    from spyre_mlir.interpreter.ops_spatial import simulate

    args = _ext_inputs()
    fused_out, fused = simulate(EXT, "ext", **args)
    plain_out, plain = simulate(UNFUSED, "ext", **_ext_inputs())
    np.testing.assert_array_equal(fused_out["z"], plain_out["z"])
    assert plain.hbm_read_bytes == fused.hbm_read_bytes + TILE_BYTES
    assert plain.hbm_written_bytes == fused.hbm_written_bytes


def test_the_cost_estimate_of_a_program_prices_its_steps():
    from spyre_mlir.interpreter import InterpreterOptions
    from spyre_mlir.interpreter.ops_spatial import spatial_stats

    out = spyre_mlir.interpret(EXT, "ext", options=InterpreterOptions(cost_model=True), **_ext_inputs())
    estimate = out.report.estimate
    # Every step one after another: 5 loads and 2 stores of 256 cycles, the bodies 2 x (128 + 128 + 64).
    assert estimate.sequential_cycles == 7 * 256 + 2 * 320
    assert "spyre_interpreter.run_spatial_program" not in estimate.unpriced
    assert spatial_stats(out).cycles == 1216.0
    plain = spyre_mlir.interpret(EXT, "ext", **_ext_inputs())
    stats = spatial_stats(plain)  # without the cost model: bytes, no cycles
    assert stats.hbm_read_bytes == 5 * TILE_BYTES and stats.cycles is None and stats.events == []


def test_spyre_run_reports_hbm_bytes_and_cycles_and_traces_each_engine(tmp_path, capsys):
    import json

    from spyre_mlir.tools.spyre_run import main

    args = _ext_inputs()
    np.save(tmp_path / "x.npy", args["x"])
    np.save(tmp_path / "w.npy", args["w"])
    estimate, trace = tmp_path / "e.json", tmp_path / "t.json"
    code = main([
        str(EXT_PATH), "--func", "ext", "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"w={tmp_path / 'w.npy'}",
        "--arg", "z=zeros:64x128xf32", "--arg", "K=256", "--arg", "eps=1e-5", "--arg", "bias=-3",
        "--estimate", "--estimate-json", str(estimate), "--trace", str(trace),
    ])
    assert code == 0, capsys.readouterr().err
    assert "spatial program @ext: 15 steps on 6 engines of 2 sites" in capsys.readouterr().out
    data = json.loads(estimate.read_text())
    assert data["hbm_bytes"] == 7 * TILE_BYTES and data["cycles"] == 1216.0
    assert data["spatial"]["hbm_read_bytes"] == 5 * TILE_BYTES
    events = json.loads(trace.read_text())["traceEvents"]
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert processes == {0: "site @s0", 1: "site @s1"}
    assert sorted(threads.items()) == [
        ((0, 0), "load"), ((0, 1), "compute"), ((0, 2), "store"),
        ((1, 0), "load"), ((1, 1), "compute"), ((1, 2), "store"),
    ]
    slices = [e for e in events if e["ph"] == "X"]
    assert len(slices) == 15
    store = next(e for e in slices if e["name"] == "store_step @st0")
    assert (store["pid"], store["tid"], store["ts"], store["dur"]) == (0, 2, 0.96, 0.256)  # microseconds at 1 GHz
