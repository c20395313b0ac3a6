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
