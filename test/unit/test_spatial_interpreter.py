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

    def counted(self, op, env):
        steps.append(op)
        return original(self, op, env)

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
