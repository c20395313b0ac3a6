"""spyre_mlir.analysis.flows: the producer, filler and consumer stages of each buffer of a spatial program."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.analysis.flows import flows, steps_by_stage
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.spatial import ProgramOp

# Site 0 loads @w and multicasts it to site 1 (receive stage @rvw); each site adds
# its row of @x into a local accumulator @acc and stores it.
PROGRAM = """
spatial.program @mc attributes {spatial.phase = "sized"} {
  spatial.tensor @w : memref<16x8xf32>
  spatial.tensor @x : memref<16x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 512
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.buffer @acc on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 512
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 768
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.stage @cp0 compute(@w0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store"
  spatial.stage @rvw receive @g0 -> @w1 on @s1 engine "load"
  spatial.stage @cp1 compute(@w1, @acc) -> @acc, @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %c = arith.addf %a, %b : tensor<8x8xf32>
    spatial.yield %c, %c : tensor<8x8xf32>, tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store"
  spatial.multicast @g0 reader @ldw to [@s1]
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.load_step @ldw [%k]
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 2 {
      spatial.compute_step @cp0
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to 2 {
      spatial.store_step @st0 [%k]
    }
  }
  spatial.engine @s1 "compute" {
    spatial.loop %k = 0 to 2 {
      spatial.compute_step @cp1
    }
  }
  spatial.engine @s1 "store" {
    spatial.loop %k = 0 to 2 {
      spatial.store_step @st1 [%k]
      STEP
    }
  }
}
"""


def _program(step: str = "") -> ProgramOp:
    module = spyre_mlir.parse(PROGRAM.replace("STEP", step))
    return next(op for op in module.walk() if isinstance(op, ProgramOp))


def _names(stage) -> str | None:
    return None if stage is None else stage.sym_name.data


def test_fifo_buffers_have_producer_filler_and_consumer():
    flow = flows(_program(), "test")
    assert set(flow) == {"w0", "z0", "w1", "acc", "z1"}
    got = {name: (_names(f.producer), _names(f.filler), _names(f.consumer)) for name, f in flow.items() if not f.local}
    assert got == {
        "w0": ("ldw", "ldw", "cp0"),
        "z0": ("cp0", "cp0", "st0"),
        # A receive buffer is produced by its receive stage but filled by the group's reader.
        "w1": ("rvw", "ldw", "cp1"),
        "z1": ("cp1", "cp1", "st1"),
    }


def test_a_local_buffer_lists_the_compute_stages_touching_it():
    acc = flows(_program(), "test")["acc"]
    assert acc.local and [s.sym_name.data for s in acc.touching] == ["cp1"]
    assert acc.producer is None and acc.consumer is None


def test_steps_by_stage_in_program_order():
    steps = steps_by_stage(_program("spatial.store_step @st1 [%k]"))
    assert {name: len(ops) for name, ops in steps.items()} == {"ldw": 1, "cp0": 1, "st0": 1, "cp1": 1, "st1": 2}


def test_a_fifo_whose_filler_has_no_step_is_refused_naming_the_pass():
    program = _program()
    step = next(op for op in program.walk() if op.name == "spatial.load_step")
    step.detach()
    step.erase()
    with pytest.raises(DiagnosticError, match=r"my-pass: buffer @w0: stage @ldw, which fills it, has no step"):
        flows(program, "my-pass")
