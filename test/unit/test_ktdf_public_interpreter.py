"""The interpreter on dataflow-scheduler's public-form schedule IR (docs/ktdf.md, "Execution").

Public form: tile loops (`scf.for {loop_type = ...}`) around `ktdf.pipeline`,
memrefs addressed through `memref.memory_space_cast` / `reinterpret_cast` /
`cast` / `subview`, L1 buffers of `memref.alloc` in `ktdf.private`, memref
to memref transfers, double buffering (`buffer_phase`, `select_memref`),
`ktdf.parallel`, `tiling.*`. Hand-written schedules in that form (the
outputs their passes print, made runnable) equal NumPy on seeded inputs,
batched and per core; every public-form schedule of their tests that we
parse runs without an internal error; a deadlock, a FIFO overflow, a read
before a write and an out-of-bounds transfer are located errors.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED

import spyre_mlir
from spyre_mlir.interpreter import Interpreter, InterpreterOptions

BATCHED = InterpreterOptions(execution="batched")
PER_CORE = InterpreterOptions(execution="per-core")
MODES = [pytest.param(BATCHED, id="batched"), pytest.param(PER_CORE, id="per-core")]

SCHEDULER_TESTS = SHARED / "corpus" / "dataflow-scheduler" / "test"
SAMPLE_DEVICE = SCHEDULER_TESTS / "Dialect" / "KTDFArch" / "sample_device.mlir"


def _run(text: str, func: str | None = None, options: InterpreterOptions | None = None, **kw):
    return spyre_mlir.interpret(text, func, options=options, **kw)


def _error(text: str, func: str | None = None, **kw) -> spyre_mlir.DiagnosticError:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        _run(text, func, **kw)
    return info.value


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i + 1 for i, line in enumerate(text.splitlines()) if needle in line][nth]


# -- a tiled add: construct-three-stage-pipeline's output (ConstructThreeStagePipeline/basic.mlir) ----

THREE_STAGE = """
module {
  func.func @local_schedule_1(%arg0: index) attributes {grid = [32]} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c3 = arith.constant 3 : index
    %c1024 = arith.constant 1024 : index
    %c12288 = arith.constant 12288 : index
    %c18432 = arith.constant 18432 : index
    %id = ktdp.get_compute_tile_id : index
    %0 = arith.muli %id, %c3 : index
    %row = arith.addi %0, %arg0 : index
    %c0 = arith.constant 0 : index
    %A = ktdp.construct_memory_view %c1024, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
    %B = ktdp.construct_memory_view %c12288, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
    %C = ktdp.construct_memory_view %c18432, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
    %oa = arith.muli %row, %c64 : index
    %Ad = memref.memory_space_cast %A : memref<96x64xf16> to memref<96x64xf16, "DDR">
    %At = memref.reinterpret_cast %Ad to offset: [%oa], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
    %ob = arith.muli %row, %c64 : index
    %Bd = memref.memory_space_cast %B : memref<96x64xf16> to memref<96x64xf16, "DDR">
    %Bt = memref.reinterpret_cast %Bd to offset: [%ob], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
    %oc = arith.muli %row, %c64 : index
    %Cd = memref.memory_space_cast %C : memref<96x64xf16> to memref<96x64xf16, "DDR">
    %Ct = memref.reinterpret_cast %Cd to offset: [%oc], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
    scf.for %i = %c0 to %c1 step %c1 {
      scf.for %j = %c0 to %c64 step %c64 {
        ktdf.pipeline {
          %p:6 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token) {
            %f0:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
            %f1 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
            %t0 = ktdf.create_token : !ktdf.token
            %t1 = ktdf.create_token : !ktdf.token
            %t2 = ktdf.create_token : !ktdf.token
            ktdf.private_yield %f0#0, %f0#1, %f1, %t0, %t1, %t2 : !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token
          }
          ktdf.stage depends_in(none) depends_out(%p#3) {
            ktdf.data_transfer from %At[%i, %j] size [1, 64] to %p#0 size [1, 64] : memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
            ktdf.data_transfer from %Bt[%i, %j] size [1, 64] to %p#1 size [1, 64] : memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          }
          ktdf.stage depends_in(%p#3) depends_out(%p#4) {
            %x = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
            %y = ktdf.read_from_fifo %p#1 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
            %e = tensor.empty() : tensor<1x64xf16>
            %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) {
            ^bb0(%a: f16, %b: f16, %o: f16):
              %r = arith.addf %a, %b : f16
              linalg.yield %r : f16
            } -> tensor<1x64xf16>
            ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
          } {applicable_units = ["SFU"]}
          ktdf.stage depends_in(%p#4) depends_out(%p#5) {
            ktdf.data_transfer from %p#2 size [1, 64] to %Ct[%i, %j] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
          }
        }
      } {loop_type = #ktdf.loop_type<parallel_loop>}
    } {loop_type = #ktdf.loop_type<parallel_loop>}
    return
  }
}
"""


def _ab(seed: int, shape):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float16), rng.standard_normal(shape).astype(np.float16)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("i", [0, 2])
def test_a_tiled_add_in_their_three_stage_form_equals_numpy(options, i):
    """Each of the 32 tiles adds row 3 * id + i through its three stages."""
    a, b = _ab(i, (96, 64))
    out = _run(THREE_STAGE, options=options, arg0=i, hbm={1024: a, 12288: b, 18432: np.zeros_like(a)})
    want = np.zeros_like(a)
    want[i::3] = a[i::3] + b[i::3]
    np.testing.assert_array_equal(out["hbm@18432"], want)
    assert out.report.mode == options.execution


# -- a reduction through L1 buffers: reduction-loop-exposure's output (ReductionLoopExposure/basic.mlir) ----

REDUCTION = """
module {
  module {
    func.func @sum_1core() attributes {grid = [1]} {
      call @local_schedule_0() : () -> ()
      return
    }
    func.func private @local_schedule_0()
  }
  module @local_schedule_0 {
    func.func @local_schedule_0() attributes {grid = [1]} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8589934592 = arith.constant 8589934592 : index
      %c2 = arith.constant 2 : index
      %0 = ktdp.construct_memory_view %c0, sizes: [2, 256, 64], strides: [16384, 64, 1] {coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 255 >= 0, d2 >= 0, -d2 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x256x64xf16>
      %1 = ktdp.construct_memory_view %c8589934592, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf16>
      %memspacecast = memref.memory_space_cast %0 : memref<2x256x64xf16> to memref<2x256x64xf16, "DDR">
      %reinterpret_cast = memref.reinterpret_cast %memspacecast to offset: [0], sizes: [2, 256, 64], strides: [16384, 64, 1] : memref<2x256x64xf16, "DDR"> to memref<2x256x64xf16, strided<[16384, 64, 1]>, "DDR">
      %cast = memref.cast %reinterpret_cast : memref<2x256x64xf16, strided<[16384, 64, 1]>, "DDR"> to memref<2x256x64xf16, strided<[16384, 64, 1], offset: ?>, "DDR">
      %memspacecast_0 = memref.memory_space_cast %1 : memref<2x64xf16> to memref<2x64xf16, "DDR">
      %reinterpret_cast_1 = memref.reinterpret_cast %memspacecast_0 to offset: [0], sizes: [2, 64], strides: [64, 1] : memref<2x64xf16, "DDR"> to memref<2x64xf16, strided<[64, 1]>, "DDR">
      %cast_2 = memref.cast %reinterpret_cast_1 : memref<2x64xf16, strided<[64, 1]>, "DDR"> to memref<2x64xf16, strided<[64, 1], offset: ?>, "DDR">
      ktdf.pipeline {
        %2:4 = ktdf.private -> (memref<2x1x256x64xf16, "L1">, memref<2x1x64xf16, "L1">, !ktdf.token, !ktdf.token) {
          %alloc = memref.alloc() : memref<2x1x256x64xf16, "L1">
          %alloc_3 = memref.alloc() : memref<2x1x64xf16, "L1">
          %3 = ktdf.create_token : !ktdf.token
          %4 = ktdf.create_token : !ktdf.token
          ktdf.private_yield %alloc, %alloc_3, %3, %4 : memref<2x1x256x64xf16, "L1">, memref<2x1x64xf16, "L1">, !ktdf.token, !ktdf.token
        }
        ktdf.stage depends_in(none) depends_out(%2#2) {
          scf.for %arg0 = %c0 to %c2 step %c1 {
            %3 = arith.subi %arg0, %c0 : index
            %4 = arith.divsi %3, %c1 : index
            ktdf.data_transfer from %cast[%arg0, 0, %c0 * 64] size [1, 256, 64] to %2#0[%4, 0, 0, 0] size [1, 1, 256, 64] : memref<2x256x64xf16, strided<[16384, 64, 1], offset: ?>, "DDR">, memref<2x1x256x64xf16, "L1">
          } {loop_type = #ktdf.loop_type<parallel_loop>}
        } {applicable_units = ["MNILU"]}
        ktdf.stage depends_in(%2#2) depends_out(%2#3) {
          scf.for %arg0 = %c0 to %c2 step %c1 {
            %c0_4 = arith.constant 0 : index
            %c1_5 = arith.constant 1 : index
            %c255 = arith.constant 255 : index
            ktdf.pipeline {
              %3:4 = ktdf.private -> (!ktdf.fifo.slot<"L1LU" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "L1SU", 64xf16>, !ktdf.token, !ktdf.token) {
                %4 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"L1LU" -> "SFU", 64xf16>
                %5 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "L1SU", 64xf16>
                %6 = ktdf.create_token : !ktdf.token
                %7 = ktdf.create_token : !ktdf.token
                ktdf.private_yield %4, %5, %6, %7 : !ktdf.fifo.slot<"L1LU" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "L1SU", 64xf16>, !ktdf.token, !ktdf.token
              }
              ktdf.stage depends_in(none) depends_out(%3#2) {
                %4 = arith.subi %arg0, %c0 : index
                %5 = arith.divsi %4, %c1 : index
                %c256 = arith.constant 256 : index
                scf.for %arg1 = %c0_4 to %c256 step %c1_5 {
                  ktdf.data_transfer from %2#0[%5, 0, %arg1, 0] size [1, 1, 1, 64] to %3#0 size [64] : memref<2x1x256x64xf16, "L1">, !ktdf.fifo.slot<"L1LU" -> "SFU", 64xf16>
                } {loop_type = #ktdf.loop_type<reduction_loop>}
              } {applicable_units = ["L1LU"]}
              ktdf.stage depends_in(%3#2) depends_out(%3#3) {
                %4 = tensor.empty() : tensor<1x64xf16>
                %c256 = arith.constant 256 : index
                %5 = scf.for %arg1 = %c0_4 to %c256 step %c1_5 iter_args(%arg2 = %4) -> (tensor<1x64xf16>) {
                  %6 = ktdf.read_from_fifo %3#0 : <"L1LU" -> "SFU", 64xf16> -> tensor<1x1x64xf16>
                  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%6 : tensor<1x1x64xf16>) outs(%arg2 : tensor<1x64xf16>) {
                  ^bb0(%in: f16, %out: f16):
                    %9 = arith.addf %in, %out : f16
                    linalg.yield %9 : f16
                  } -> tensor<1x64xf16>
                  %8 = arith.cmpi eq, %arg1, %c255 : index
                  scf.if %8 {
                    ktdf.write_to_fifo %7, %3#1 : tensor<1x64xf16>, <"SFU" -> "L1SU", 64xf16>
                  }
                  scf.yield %7 : tensor<1x64xf16>
                } {loop_type = #ktdf.loop_type<reduction_loop>}
              } {applicable_units = ["SFU"]}
              ktdf.stage depends_in(%3#3) depends_out(none) {
                %c256 = arith.constant 256 : index
                scf.for %arg1 = %c0_4 to %c256 step %c1_5 {
                  %4 = arith.subi %arg0, %c0 : index
                  %5 = arith.divsi %4, %c1 : index
                  %6 = arith.cmpi eq, %arg1, %c255 : index
                  scf.if %6 {
                    ktdf.data_transfer from %3#1 size [64] to %2#1[%5, 0, 0] size [1, 1, 64] : !ktdf.fifo.slot<"SFU" -> "L1SU", 64xf16>, memref<2x1x64xf16, "L1">
                  }
                } {loop_type = #ktdf.loop_type<reduction_loop>}
              } {applicable_units = ["L1SU"]}
            }
          } {loop_type = #ktdf.loop_type<parallel_loop>}
        } {applicable_units = ["L1LU", "SFU", "L1SU"]}
        ktdf.stage depends_in(%2#3) depends_out(none) {
          scf.for %arg0 = %c0 to %c2 step %c1 {
            %3 = arith.subi %arg0, %c0 : index
            %4 = arith.divsi %3, %c1 : index
            ktdf.data_transfer from %2#1[%4, 0, 0] size [1, 1, 64] to %cast_2[%arg0, %c0 * 64] size [1, 64] : memref<2x1x64xf16, "L1">, memref<2x64xf16, strided<[64, 1], offset: ?>, "DDR">
          } {loop_type = #ktdf.loop_type<parallel_loop>}
        } {applicable_units = ["MNISU"]}
      }
      return
    }
  }
}
"""

OUT = 8589934592  # the element address of the result view


def _small_ints(seed: int, shape) -> np.ndarray:
    """f16 values whose sums are exact: the oracle is NumPy's sum, order free."""
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float16)


@pytest.mark.parametrize("options", MODES)
def test_a_reduction_through_l1_buffers_equals_numpy(options):
    """DDR -> L1 buffer; per row a nested pipeline streams 256 tiles of 64 through
    one FIFO slot into the SFU's reduction (they queue: FIFOs are unbounded);
    the sum goes to a second L1 buffer, then to DDR. Reached through a call."""
    x = _small_ints(3, (2, 256, 64))
    out = _run(REDUCTION, "sum_1core", options=options, hbm={0: x, OUT: np.zeros((2, 64), np.float16)})
    np.testing.assert_array_equal(out[f"hbm@{OUT}"], x.sum(axis=1, dtype=np.float32).astype(np.float16))


def test_l1_buffers_count_against_the_lx_scratchpad():
    """The two buffers take 65,792 bytes of L1 per core: a 64 KiB LX refuses the second."""
    x = _small_ints(0, (2, 256, 64))
    options = InterpreterOptions(lx_limit=65536)
    err = _error(REDUCTION, "sum_1core", options=options, hbm={0: x, OUT: np.zeros((2, 64), np.float16)})
    assert err.diagnostic.message == (
        "allocating L1 buffer %alloc_3 in L1 (256 bytes) on core 0 would hold 65792 bytes of L1 buffers, over "
        "the target's 65536-byte LX scratchpad"
    )
    assert err.diagnostic.location.line == _line_of(REDUCTION, "%alloc_3 = memref.alloc()")
    fits = _run(REDUCTION, "sum_1core", options=InterpreterOptions(lx_limit=65792),
                hbm={0: x, OUT: np.zeros((2, 64), np.float16)})
    assert fits.runtime.find_state("memref").peak == 65792


# -- double buffering: double-buffering's output form (DoubleBuffering/basic.mlir), with a compute stage ----

GLOBAL = "#ktdp.memory_space<global>"
LOCAL = "#ktdp.memory_space<ct_local>"
ROWS = f"memref<8x64xf16, {GLOBAL}>"
BUF = f"memref<1x64xf16, {LOCAL}>"
SLOT = '!ktdf.fifo.slot<"L1" -> "SFU", 64xf16>'
BACK = '!ktdf.fifo.slot<"SFU" -> "L1", 64xf16>'

DOUBLE_BUFFERED = f"""
func.func @double_buffered(%src: {ROWS}, %dst: {ROWS}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x0 = memref.alloc() : {BUF}
  %x1 = memref.alloc() : {BUF}
  scf.for %i = %c0 to %c8 step %c1 {{
    %phase = ktdf.buffer_phase(%i) {{num_phases = 2 : i64}} : index
    %sel = ktdf.select_memref %phase[%x0, %x1] : {BUF}
    ktdf.pipeline modulo(size: 2) {{
      %p:6 = ktdf.private -> ({SLOT}, {BACK}, !ktdf.token, !ktdf.token, !ktdf.token, !ktdf.token) {{
        %in = ktdf.fifo.allocate() -> {SLOT}
        %out = ktdf.fifo.allocate() -> {BACK}
        %t0 = ktdf.create_token : !ktdf.token
        %t1 = ktdf.create_token : !ktdf.token
        %t2 = ktdf.create_token : !ktdf.token
        %t3 = ktdf.create_token : !ktdf.token
        ktdf.private_yield %in, %out, %t0, %t1, %t2, %t3 : {SLOT}, {BACK}, !ktdf.token, !ktdf.token, !ktdf.token, !ktdf.token
      }}
      ktdf.stage depends_in(none) depends_out(%p#2) {{
        ktdf.data_transfer from %src[%i, %c0] size [1, 64] to %sel[%c0, %c0] size [1, 64] : {ROWS}, {BUF}
      }}
      ktdf.stage depends_in(%p#2) depends_out(%p#3) {{
        ktdf.data_transfer from %sel[%c0, %c0] size [1, 64] to %p#0 size [64] : {BUF}, {SLOT}
      }}
      ktdf.stage depends_in(%p#3) depends_out(%p#4) {{
        %x = ktdf.read_from_fifo %p#0 : <"L1" -> "SFU", 64xf16> -> tensor<64xf16>
        %e = tensor.empty() : tensor<64xf16>
        %y = ktdf.opaque "ADD" -> tensor<64xf16> ins(%x, %x : tensor<64xf16>, tensor<64xf16>) outs(%e : tensor<64xf16>)
        ktdf.write_to_fifo %y, %p#1 : tensor<64xf16>, <"SFU" -> "L1", 64xf16>
      }} {{applicable_units = ["SFU"]}}
      ktdf.stage depends_in(%p#4) depends_out(%p#5) {{
        ktdf.data_transfer from %p#1 size [64] to %dst[%i, %c0] size [1, 64] : {BACK}, {ROWS}
      }}
    }}
  }} {{loop_type = #ktdf.loop_type<parallel_loop>}}
  memref.dealloc %x0 : {BUF}
  memref.dealloc %x1 : {BUF}
  return
}}
"""


@pytest.mark.parametrize("options", MODES)
def test_double_buffering_equals_numpy(options):
    """DDR -> the phase's L1 buffer -> FIFO -> SFU (an opaque ADD) -> FIFO -> DDR,
    memref parameters placed as arrays."""
    src = _small_ints(5, (8, 64))
    out = _run(DOUBLE_BUFFERED, options=options, src=src, dst=np.zeros_like(src))
    np.testing.assert_array_equal(out["dst"], src + src)
    assert out.report.l1_buffer_peak_bytes == 256  # two 128-byte buffers


def test_the_phase_picks_the_buffer():
    """With both phases on one buffer, the rows still arrive (the buffer is
    reused); with a phase past the candidates, a located error."""
    one = DOUBLE_BUFFERED.replace("%sel = ktdf.select_memref %phase[%x0, %x1]", "%sel = ktdf.select_memref %c0[%x0, %x1]")
    src = _small_ints(6, (8, 64))
    np.testing.assert_array_equal(_run(one, src=src, dst=np.zeros_like(src))["dst"], src + src)
    bad = DOUBLE_BUFFERED.replace("%sel = ktdf.select_memref %phase[%x0, %x1]", "%sel = ktdf.select_memref %i[%x0, %x1]")
    err = _error(bad, src=src, dst=np.zeros_like(src))
    assert err.diagnostic.message == "phase 2 selects none of the 2 candidate memrefs"
    assert err.diagnostic.location.line == _line_of(bad, "ktdf.select_memref")


def test_buffer_phase_counts_the_iterations_of_its_loops():
    """phase = (linearized iteration of (i, j) over 3 x 4 iterations) mod 3, marked
    in the column of that phase of row i * 4 + j."""
    text = f"""
func.func @phases(%ones: memref<1x1xf16, {GLOBAL}>, %out: memref<12x3xf16, {GLOBAL}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c3 step %c1 {{
    scf.for %j = %c0 to %c8 step %c2 {{
      %phase = ktdf.buffer_phase(%i, %j) {{num_phases = 3 : i64}} : index
      ktdf.pipeline {{
        %t = ktdf.private -> (!ktdf.token) {{
          %t0 = ktdf.create_token : !ktdf.token
          ktdf.private_yield %t0 : !ktdf.token
        }}
        ktdf.stage depends_in(none) depends_out(%t) {{
          ktdf.data_transfer from %ones[%c0, %c0] size [1, 1] to %out[%i * 4 + %j floordiv 2, %phase] size [1, 1] : memref<1x1xf16, {GLOBAL}>, memref<12x3xf16, {GLOBAL}>
        }}
      }}
    }}
  }}
  return
}}
"""
    out = _run(text, ones=np.ones((1, 1), np.float16), out=np.zeros((12, 3), np.float16))
    want = np.zeros((12, 3), np.float16)
    want[np.arange(12), np.arange(12) % 3] = 1
    np.testing.assert_array_equal(out["out"], want)


# -- ktdf.parallel ----------------------------------------------------------------------------------

PARALLEL = f"""
func.func @parallel(%src: {ROWS}, %dst: {ROWS}, %ids: memref<8x3xf16, {GLOBAL}>, %ones: memref<1x1xf16, {GLOBAL}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  ktdf.parallel (%m, %inst) = (%c0) to (%c8) step (%c1) distribute(num_instances = 3) {{
    ktdf.pipeline {{
      %t = ktdf.private -> (!ktdf.token) {{
        %t0 = ktdf.create_token : !ktdf.token
        ktdf.private_yield %t0 : !ktdf.token
      }}
      ktdf.stage depends_in(none) depends_out(%t) {{
        ktdf.data_transfer from %src[%m, %c0] size [1, 64] to %dst[%m, %c0] size [1, 64] : {ROWS}, {ROWS}
        ktdf.data_transfer from %ones[%c0, %c0] size [1, 1] to %ids[%m, %inst] size [1, 1] : memref<1x1xf16, {GLOBAL}>, memref<8x3xf16, {GLOBAL}>
      }}
    }}
    ktdf.parallel_yield
  }}
  return
}}
"""


@pytest.mark.parametrize("options", MODES)
def test_parallel_runs_every_iteration_in_contiguous_chunks_per_instance(options):
    """8 iterations over 3 instances: chunks of ceil(8 / 3) = 3, so instances 0, 0, 0, 1, 1, 1, 2, 2."""
    src = _small_ints(7, (8, 64))
    out = _run(PARALLEL, options=options, src=src, dst=np.zeros_like(src), ids=np.zeros((8, 3), np.float16),
               ones=np.ones((1, 1), np.float16))
    np.testing.assert_array_equal(out["dst"], src)
    want = np.zeros((8, 3), np.float16)
    want[np.arange(8), [0, 0, 0, 1, 1, 1, 2, 2]] = 1
    np.testing.assert_array_equal(out["ids"], want)


# -- tiling.*: a tiled loop with an epilogue, dynamic sizes ---------------------------------------------

VEC = f"memref<23xf16, {GLOBAL}>"
DYN_SLOT = '!ktdf.fifo.slot<"DDR" -> "SFU", ?xf16>'
DYN_BACK = '!ktdf.fifo.slot<"SFU" -> "DDR", ?xf16>'

TILED = f"""
func.func @tiled(%src: {VEC}, %dst: {VEC}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c23 = arith.constant 23 : index
  %ts = ktdf.tiling.reserve_size {{divisibility = 5 : index, min_value = 4 : index}} : index
  %n = arith.ceildivui %c23, %ts : index
  scf.for %t = %c0 to %n step %c1 {{
    %x = ktdf.tiling.derive_size [%t : %ts], total_size = %c23 : index
    %base = ktdf.tiling.linearize_index [%t : %ts], [%c0 : %c1] : index
    ktdf.pipeline {{
      %p:5 = ktdf.private -> ({DYN_SLOT}, {DYN_BACK}, !ktdf.token, !ktdf.token, !ktdf.token) {{
        %in = ktdf.fifo.allocate(%x) -> {DYN_SLOT}
        %out = ktdf.fifo.allocate(%x) -> {DYN_BACK}
        %t0 = ktdf.create_token : !ktdf.token
        %t1 = ktdf.create_token : !ktdf.token
        %t2 = ktdf.create_token : !ktdf.token
        ktdf.private_yield %in, %out, %t0, %t1, %t2 : {DYN_SLOT}, {DYN_BACK}, !ktdf.token, !ktdf.token, !ktdf.token
      }}
      ktdf.stage depends_in(none) depends_out(%p#2) {{
        ktdf.data_transfer from %src[%base] size [%x] to %p#0 size [%x] : {VEC}, {DYN_SLOT}
      }}
      ktdf.stage depends_in(%p#2) depends_out(%p#3) {{
        %v = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", ?xf16> -> tensor<?xf16>
        %w = ktdf.opaque "MUL" -> tensor<?xf16> ins(%v, %v : tensor<?xf16>, tensor<?xf16>) outs(%v : tensor<?xf16>)
        ktdf.write_to_fifo %w, %p#1 : tensor<?xf16>, <"SFU" -> "DDR", ?xf16>
      }}
      ktdf.stage depends_in(%p#3) depends_out(%p#4) {{
        ktdf.data_transfer from %p#1 size [%x] to %dst[%base] size [%x] : {DYN_BACK}, {VEC}
      }}
    }}
  }}
  return
}}
"""


@pytest.mark.parametrize("options", MODES)
def test_tiling_ops_resolve_at_run_time(options):
    """reserve_size -> 5 (the least multiple of 5 that is >= 4): tiles of 5, 5, 5, 5 and an epilogue of 3."""
    src = _small_ints(8, (23,))
    out = _run(TILED, options=options, src=src, dst=np.zeros_like(src))
    np.testing.assert_array_equal(out["dst"], src * src)
    sizes = [r for r in out.runtime.stats.stages if r.index == 0]
    assert len(sizes) == 5


# -- located errors, never hangs --------------------------------------------------------------------


def _three_stage_inputs(seed: int = 0) -> dict:
    a, b = _ab(seed, (96, 64))
    return dict(arg0=0, hbm={1024: a, 12288: b, 18432: np.zeros_like(a)})


@pytest.mark.parametrize("options", MODES)
def test_a_stage_waiting_for_a_token_never_signaled_is_a_located_deadlock(options):
    text = THREE_STAGE.replace("ktdf.stage depends_in(%p#4) depends_out(%p#5)",
                               "ktdf.stage depends_in(%p#5) depends_out(%p#4)")
    d = _error(text, options=options, **_three_stage_inputs()).diagnostic
    assert d.message == "stage #2 waits for token %p#5 that no stage before it signals: it could never run"
    assert d.location.line == _line_of(text, "ktdf.stage depends_in(%p#5)")


@pytest.mark.parametrize("options", MODES)
def test_reading_a_slot_before_it_is_written_is_a_located_underflow(options):
    text = THREE_STAGE.replace(
        "%y = ktdf.read_from_fifo %p#1",
        '%y0 = ktdf.read_from_fifo %p#1 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>\n'
        "            %y = ktdf.read_from_fifo %p#1",
    )
    d = _error(text, options=options, **_three_stage_inputs()).diagnostic
    assert d.message == (
        "FIFO underflow: stage #1 reads FIFO slot %p#1, which is empty on core 0 (tile id (0)): no stage has "
        "written a tile into it since it was last read"
    )
    assert d.location.line == _line_of(text, "%y = ktdf.read_from_fifo")


def test_a_tile_larger_than_its_slot_is_a_located_overflow():
    """The slot is allocated one element short of the tile written into it."""
    text = TILED.replace("%in = ktdf.fifo.allocate(%x)", "%short = arith.subi %x, %c1 : index\n"
                         "        %in = ktdf.fifo.allocate(%short)")
    src = _small_ints(8, (23,))
    d = _error(text, src=src, dst=np.zeros_like(src)).diagnostic
    assert d.message == (
        "FIFO overflow: stage #0 writes a 5 tile (5 elements) into FIFO slot %p#0 of 4 elements: a slot holds one tile"
    )
    assert d.location.line == _line_of(text, "ktdf.data_transfer from %src")


PARTIAL = f"""
func.func @partial(%src: memref<2x48xf16, {GLOBAL}>, %dst: memref<2x48xf16, {GLOBAL}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  ktdf.pipeline {{
    %p:3 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 96xf16>, !ktdf.token, !ktdf.token) {{
      %s = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 96xf16>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s, %t0, %t1 : !ktdf.fifo.slot<"DDR" -> "SFU", 96xf16>, !ktdf.token, !ktdf.token
    }}
    ktdf.stage depends_in(none) depends_out(%p#1) {{
      ktdf.data_transfer from %src[%c0, %c0] size [1, 48] to %p#0 size [48] : memref<2x48xf16, {GLOBAL}>, !ktdf.fifo.slot<"DDR" -> "SFU", 96xf16>
      ktdf.data_transfer from %src[%c1, %c0] size [1, 48] to %p#0 size [48] : memref<2x48xf16, {GLOBAL}>, !ktdf.fifo.slot<"DDR" -> "SFU", 96xf16>
    }}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {{
      ktdf.data_transfer from %p#0 size [2, 48] to %dst[%c0, %c0] size [2, 48] : !ktdf.fifo.slot<"DDR" -> "SFU", 96xf16>, memref<2x48xf16, {GLOBAL}>
    }}
  }}
  return
}}
"""


@pytest.mark.parametrize("options", MODES)
def test_a_slot_fills_over_several_transfers_and_one_more_overflows(options):
    """Two rows of 48 fill one use of the 96-element slot (KTDF.td: the data of a
    use matches the slot's size); a second transfer 64 wide has room for 48."""
    src = _small_ints(9, (2, 48))
    np.testing.assert_array_equal(_run(PARTIAL, options=options, src=src, dst=np.zeros_like(src))["dst"], src)
    text = PARTIAL.replace("memref<2x48xf16", "memref<2x64xf16").replace(
        "from %src[%c1, %c0] size [1, 48] to %p#0 size [48]", "from %src[%c1, %c0] size [1, 64] to %p#0 size [64]"
    ).replace("size [2, 48] to %dst[%c0, %c0] size [2, 48]", "size [96] to %dst[%c0, %c0] size [1, 96]")
    wide = _small_ints(9, (2, 64))
    d = _error(text, options=options, src=wide, dst=np.zeros_like(wide)).diagnostic
    assert d.message == (
        "FIFO overflow: stage #0 writes 64 elements into FIFO slot %p#0 on core 0 (tile id (0)), which has room "
        "for 48 of its 96 (the data of one use of a slot fills it exactly)"
    )
    assert d.location.line == _line_of(text, "from %src[%c1, %c0]")


@pytest.mark.parametrize("options", MODES)
def test_reading_an_l1_buffer_nobody_wrote_is_a_located_error(options):
    """Stage 0 always fills %x1; on phase 0 stage 1 reads %x0, never written."""
    text = DOUBLE_BUFFERED.replace("size [1, 64] to %sel[%c0, %c0]", "size [1, 64] to %x1[%c0, %c0]")
    src = _small_ints(5, (8, 64))
    d = _error(text, options=options, src=src, dst=np.zeros_like(src)).diagnostic
    assert d.message == (
        f"read of uninitialized L1 buffer %x0 in {LOCAL} of core 0: byte address 0 (element address 0) was never "
        "written"
    )
    assert d.location.line == _line_of(text, "ktdf.data_transfer from %sel")


@pytest.mark.parametrize("options", MODES)
def test_a_transfer_outside_its_memref_is_a_located_error_even_with_masking_on(options):
    """Masking (the default) is KTDP's rule for access tiles; a memref transfer is strict."""
    text = THREE_STAGE.replace("from %At[%i, %j]", "from %At[%i, %j + 1]")
    assert options.mask_out_of_bounds
    d = _error(text, options=options, **_three_stage_inputs()).diagnostic
    assert d.message == (
        "access outside the view: coordinate (0, 64) is outside the 1x64xf16 view (valid: 0 <= c0 < 1, "
        "0 <= c1 < 64) on core 0 (tile id (0))"
    )
    assert d.location.line == _line_of(text, "from %At[%i, %j + 1]")


def test_a_transfer_whose_sides_move_different_counts_is_a_located_error():
    text = TILED.replace("to %p#0 size [%x]", "to %p#0 size [%ts]")
    src = _small_ints(8, (23,))
    d = _error(text, src=src, dst=np.zeros_like(src), options=InterpreterOptions(verify=False)).diagnostic
    assert d.message == (
        "the transfer moves 3 elements (3) out of %src but 5 (5) into %p#0: both sides move the same elements"
    )


# -- stage order, splat, memref.load/store ------------------------------------------------------------


def test_stages_run_in_token_order_not_text_order():
    """KTDF.td's example puts the stage waiting for the others first."""
    text = DOUBLE_BUFFERED
    first = text.index("      ktdf.stage depends_in(none) depends_out(%p#2)")
    last = text.index("      ktdf.stage depends_in(%p#4) depends_out(%p#5)")
    end = text.index("    }}\n  }} {{loop_type") if "{{loop_type" in text else text.index("    }\n  } {loop_type")
    reordered = text[:first] + text[last:end] + text[first:last] + text[end:]
    assert reordered.index("depends_in(%p#4)") < reordered.index("depends_in(none)")
    src = _small_ints(10, (8, 64))
    out = _run(reordered, src=src, dst=np.zeros_like(src))
    np.testing.assert_array_equal(out["dst"], src + src)
    order = [r.index for r in out.runtime.stats.stages[:4]]
    assert order == [1, 2, 3, 0]  # textual indices, run in token order


def test_a_splat_transfer_broadcasts_one_element():
    """scalar-broadcast-legalization's output: one element into a 64-element slot."""
    text = f"""
func.func @splat(%s: memref<1x1xf16, {GLOBAL}>, %dst: memref<1x64xf16, {GLOBAL}>) {{
  %c0 = arith.constant 0 : index
  ktdf.pipeline {{
    %p:3 = ktdf.private -> ({SLOT}, !ktdf.token, !ktdf.token) {{
      %f = ktdf.fifo.allocate() -> {SLOT}
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %f, %t0, %t1 : {SLOT}, !ktdf.token, !ktdf.token
    }}
    ktdf.stage depends_in(none) depends_out(%p#1) {{
      ktdf.data_transfer from %s[%c0, %c0] size [1, 1] to %p#0 size [64] {{transfer_mode = "splat"}} : memref<1x1xf16, {GLOBAL}>, {SLOT}
    }}
    ktdf.stage depends_in(%p#1) depends_out(%p#2) {{
      ktdf.data_transfer from %p#0 size [64] to %dst[%c0, %c0] size [1, 64] : {SLOT}, memref<1x64xf16, {GLOBAL}>
    }}
  }}
  return
}}
"""
    out = _run(text, s=np.full((1, 1), 3, np.float16), dst=np.zeros((1, 64), np.float16))
    np.testing.assert_array_equal(out["dst"], np.full((1, 64), 3, np.float16))
    plain = text.replace(' {transfer_mode = "splat"}', "")
    d = _error(plain, s=np.full((1, 1), 3, np.float16), dst=np.zeros((1, 64), np.float16)).diagnostic
    assert d.message == (
        'the transfer moves 1 elements (1x1) out of %s but 64 (64) into %p#0: both sides move the same elements '
        '(one element broadcasts with {transfer_mode = "splat"})'
    )


@pytest.mark.parametrize("options", MODES)
def test_memref_load_and_store_address_a_subview(options):
    """A subview of rows 2..5, columns 1, 3, 5 of a 6x6 buffer; store doubles what load reads."""
    text = f"""
func.func @copy(%src: memref<6x6xf32, {GLOBAL}>, %dst: memref<4x3xf32, {GLOBAL}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %sub = memref.subview %src[2, 1] [4, 3] [1, 2] : memref<6x6xf32, {GLOBAL}> to memref<4x3xf32, strided<[6, 2], offset: 13>, {GLOBAL}>
  scf.for %i = %c0 to %c4 step %c1 {{
    scf.for %j = %c0 to %c3 step %c1 {{
      %v = memref.load %sub[%i, %j] : memref<4x3xf32, strided<[6, 2], offset: 13>, {GLOBAL}>
      %w = arith.addf %v, %v : f32
      memref.store %w, %dst[%i, %j] : memref<4x3xf32, {GLOBAL}>
    }}
  }}
  return
}}
"""
    src = np.random.default_rng(11).standard_normal((6, 6)).astype(np.float32)
    out = _run(text, options=options, src=src, dst=np.zeros((4, 3), np.float32))
    np.testing.assert_array_equal(out["dst"], 2 * src[2:6, 1:6:2])


# -- their tests' schedules -------------------------------------------------------------------------

# Sections of dataflow-scheduler's tests (inputs of their passes) that hold a
# `ktdf.pipeline` and that the interpreter runs to the end with seeded
# arguments (memref parameters: small integers; HBM nobody placed: zeros).
# The others of those we read stop at a located error that says why: an
# intermediate form whose transfer sizes disagree (MapReductionPartials,
# StageCoarsening/imperfectly-nested, the one-element source that
# ScalarBroadcastLegalization turns into a splat), a stage waiting for a
# token no stage signals (NormalizeSCFForLoops strips the middle stages),
# a tile loop reading row 1 of a 1x64 view (StageCoarsening/basic-fifo-tiled).
# Never an internal error, never a hang.
RUNS_TO_THE_END = {
    "Transforms/AddressAssignment/basic.mlir",
    "Transforms/BroadcastPromotion/no-hoist-fifo-destination.mlir",
    "Transforms/BroadcastPromotion/robust-pipeline-no-stages.mlir",
    "Transforms/DoubleBuffering/basic.mlir",
    "Transforms/DoubleBuffering/consumer-in-nested-pipeline.mlir",
    "Transforms/DoubleBuffering/debug-log.mlir",
    "Transforms/DoubleBuffering/idempotent.mlir",
    "Transforms/DoubleBuffering/multiple-candidates.mlir",
    "Transforms/DoubleBuffering/multiple-consumers.mlir",
    "Transforms/DoubleBuffering/producer-in-nested-pipeline.mlir",
    "Transforms/MapReductionPartials/multi_dim_reduction.mlir",
    "Transforms/ReductionLoopExposure/basic.mlir",
    "Transforms/ReductionLoopExposure/multi_dim_reduction.mlir",
    "Transforms/StageCoarsening/basic-fifo.mlir",
    "Transforms/StageCoarsening/broadcast-add.mlir",
    "Transforms/StageCoarsening/unequal-sizes-memref-shape-after-coarsening-bug.mlir",
    "Transforms/TileSizeSelection/basic.mlir",
}


def _schedule_sections() -> list:
    if not SCHEDULER_TESTS.is_dir():
        return [pytest.param(None, 0, marks=pytest.mark.skip(reason="../shared/corpus/dataflow-scheduler not present"))]
    found = []
    for path in sorted(SCHEDULER_TESTS.rglob("*.mlir")):
        sections = re.split(r"^// -----\s*$", path.read_text(), flags=re.M)
        for k, section in enumerate(sections):
            if "ktdf.pipeline" in re.sub(r"//.*", "", section):  # in the IR, not only in CHECK lines
                name = str(path.relative_to(SCHEDULER_TESTS)) + (f"#{k}" if len(sections) > 1 else "")
                found.append(pytest.param(path, k, id=name))
    return found


def _arguments(func_op) -> dict:
    from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType

    from spyre_mlir.interpreter.dtypes import element_format

    args = {}
    rng = np.random.default_rng(0)
    for i, arg in enumerate(func_op.body.blocks[0].args):
        ty = arg.type
        name = arg.name_hint or f"arg{i}"
        if isinstance(ty, MemRefType):
            shape = [d if d >= 0 else 4 for d in ty.get_shape()]
            args[name] = rng.integers(-3, 4, shape).astype(element_format(ty.get_element_type()).compute)
        elif isinstance(ty, IndexType | IntegerType):
            args[name] = 0
        else:
            args[name] = 0.0
    return args


@pytest.mark.filterwarnings("ignore::spyre_mlir.interpreter.InterpreterWarning")
@pytest.mark.parametrize(("path", "section"), _schedule_sections())
def test_their_schedules_run_or_stop_at_a_located_error(path: Path, section: int):
    sections = re.split(r"^// -----\s*$", path.read_text(), flags=re.M)
    source = path if len(sections) == 1 else sections[section]  # a file: its device import resolves
    options = InterpreterOptions(check_uninitialized=False, timeout=60)
    try:
        interpreter = Interpreter(source, options)
    except spyre_mlir.DiagnosticError as exc:
        assert "internal error" not in exc.diagnostic.message
        pytest.skip(f"not read yet: {exc.diagnostic.message[:120]}")
    kernels = [f for f in interpreter.functions.values() if f.body.blocks and any(
        op.name == "ktdf.pipeline" for op in f.walk())]
    assert kernels
    ran = []
    for kernel in kernels:
        name = kernel.sym_name.data
        try:
            interpreter.run(name, _arguments(kernel))
            ran.append(name)
        except spyre_mlir.DiagnosticError as exc:
            d = exc.diagnostic
            assert "internal error" not in d.message, str(exc)
            assert d.location is not None, d.message
    relative = str(path.relative_to(SCHEDULER_TESTS))
    if relative in RUNS_TO_THE_END:
        assert ran == [k.sym_name.data for k in kernels]


def test_the_schedules_we_run_to_the_end_are_there():
    if not SCHEDULER_TESTS.is_dir():
        pytest.skip("../shared/corpus/dataflow-scheduler not present")
    assert all((SCHEDULER_TESTS / p).is_file() for p in RUNS_TO_THE_END)


@pytest.mark.parametrize("options", MODES)
def test_each_core_has_its_own_l1_buffers(options):
    """4 cores, 2 rows each, through the same double-buffered schedule: batched, the
    cores' buffers are one box each; a shared buffer would mix their rows."""
    text = DOUBLE_BUFFERED.replace(
        "func.func @double_buffered(", "func.func @double_buffered_cores("
    ).replace(
        "  scf.for %i = %c0 to %c8 step %c1 {\n    %phase = ktdf.buffer_phase(%i)",
        "  %id = ktdp.get_compute_tile_id : index\n  %c2 = arith.constant 2 : index\n  %first = arith.muli %id, %c2 : index\n"
        "  scf.for %k = %c0 to %c2 step %c1 {\n    %i = arith.addi %first, %k : index\n    %phase = ktdf.buffer_phase(%k)",
    ).replace(") {\n  %c0 = arith.constant 0", ") attributes {grid = [4]} {\n  %c0 = arith.constant 0", 1)
    assert "grid = [4]" in text and "buffer_phase(%k)" in text
    src = _small_ints(12, (8, 64))
    out = _run(text, options=options, src=src, dst=np.zeros_like(src))
    assert out.report.mode == options.execution
    np.testing.assert_array_equal(out["dst"], src + src)
    assert out.report.l1_buffer_peak_bytes == 256  # per core


def test_the_cost_model_runs_on_the_public_form_and_leaves_dynamic_transfers_unpriced():
    """A transfer of dynamic size is not priced (it once counted DYNAMIC_INDEX elements: negative cycles)."""
    src = _small_ints(8, (23,))
    estimate = _run(TILED, src=src, dst=np.zeros_like(src), options=InterpreterOptions(cost_model=True)).report.estimate
    figures = estimate.to_json()
    assert figures["sequential_cycles"] >= 0 and figures["pipelined_cycles"] >= 0
    src = _small_ints(5, (8, 64))
    out = _run(DOUBLE_BUFFERED, src=src, dst=np.zeros_like(src), options=InterpreterOptions(cost_model=True))
    assert out.report.estimate.to_json()["sequential_cycles"] > 0


# -- their passes' CHECKed outputs --------------------------------------------------------------------

_CAPTURE_DEF = re.compile(r"%\[\[([A-Za-z0-9_$]+):[^\]]*\]\]")
_CAPTURE_USE = re.compile(r"%\[\[([A-Za-z0-9_$]+)\]\]")


def checked_output(path: Path) -> str | None:
    """The IR a test's CHECK lines spell (their pass's output), or None when they
    leave parts to patterns. `%[[X:.*]]` defines `%X`; a capture defined where a
    value is used and followed by `#n` (`depends_out(%[[VAL_0:.*]]#2)`) names
    the results of the `ktdf.private` in scope; device imports resolve beside
    the test file."""
    lines: list[str] = []
    for line in path.read_text().splitlines():
        m = re.match(r"\s*//\s*CHECK(-NEXT|-SAME|-LABEL|-DAG)?:\s?(.*)$", line)
        if m is None:
            continue
        if m.group(1) == "-SAME" and lines:
            lines[-1] += m.group(2)
        else:
            lines.append(m.group(2))
    out: list[str] = []
    depth = 0
    privates: list[tuple[int, str]] = []  # (brace depth, name) of the ktdf.private results in scope
    alias: dict[str, str] = {}
    for body in lines:
        defines = body.lstrip().startswith("%") and "=" in body

        def capture(m: re.Match, body=body, defines=defines) -> str:
            name = m.group(1)
            if defines and m.start() < body.index("="):
                return f"%{name}"
            if body[m.end() : m.end() + 1] == "#" and privates:
                alias[name] = privates[-1][1]
            return f"%{alias.get(name, name)}"

        body = _CAPTURE_DEF.sub(capture, body)
        body = _CAPTURE_USE.sub(lambda m: f"%{alias.get(m.group(1), m.group(1))}", body)
        body = re.sub(r"#\[\[\$?([A-Za-z0-9_]+)(:[^\]]*)?\]\]", r"#\1", body)
        body = body.replace("{{\\[}}", "[").replace("{{\\]}}", "]")
        if "{{" in body or "[[" in body:
            return None
        private = re.match(r"\s*%([A-Za-z0-9_]+):\d+ = ktdf\.private", body)
        if private:
            privates.append((depth, private.group(1)))
        depth += body.count("{") - body.count("}")
        while privates and privates[-1][0] > depth:
            privates.pop()
        out.append(body)
    text = "\n".join(out)
    return re.sub(r'import\("([^"]+)"\)', lambda m: f'import("{(path.parent / m.group(1)).resolve()}")', text)


def _checked_files() -> list:
    if not SCHEDULER_TESTS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/dataflow-scheduler not present"))]
    found = []
    for path in sorted(SCHEDULER_TESTS.rglob("*.mlir")):
        text = path.read_text()
        if "// -----" not in text and re.search(r"//\s*CHECK.*ktdf\.pipeline", text) and checked_output(path):
            found.append(pytest.param(path, id=str(path.relative_to(SCHEDULER_TESTS))))
    return found


# CHECKed outputs that run to the end; the others we read stop at a located
# error: a stage waiting for a token nobody signals (NormalizeSCFForLoops),
# `builtin.unrealized_conversion_cast` (AddressAssignment), a tile loop
# reading row 1 of a 1x64 view (StageCoarsening/basic-fifo-tiled), sides of
# different sizes (StageCoarsening/imperfectly-nested: their output moves 64
# elements into a 49152-element box; MapReductionPartials/basic: 16384 into 64).
CHECKED_RUNS = {
    "Conversion/frontend/KTIRToScheduleIR/ConstructThreeStagePipeline/arith_math.mlir",
    "Conversion/frontend/KTIRToScheduleIR/ConstructThreeStagePipeline/basic.mlir",
    "Conversion/frontend/KTIRToScheduleIR/ConstructThreeStagePipeline/basic_2.mlir",
    "Conversion/frontend/KTIRToScheduleIR/ConstructThreeStagePipeline/multiple_compute_ops.mlir",
    "Transforms/BroadcastPromotion/robust-pipeline-no-stages.mlir",
    "Transforms/MapReductionPartials/multi_dim_reduction.mlir",
    "Transforms/ReductionLoopExposure/basic.mlir",
    "Transforms/ReductionLoopExposure/multi_dim_reduction.mlir",
    "Transforms/ScalarBroadcastLegalization/sub_scalar_broadcast.mlir",
    "Transforms/StageCoarsening/basic-fifo.mlir",
    "Transforms/TileSizeSelection/basic.mlir",
}


@pytest.mark.filterwarnings("ignore::spyre_mlir.interpreter.InterpreterWarning")
@pytest.mark.parametrize("path", _checked_files())
def test_their_checked_outputs_run_or_stop_at_a_located_error(path: Path):
    relative = str(path.relative_to(SCHEDULER_TESTS))
    text = checked_output(path)
    assert text is not None
    try:
        interpreter = Interpreter(text, InterpreterOptions(check_uninitialized=False, timeout=60))
    except spyre_mlir.DiagnosticError as exc:
        assert "internal error" not in exc.diagnostic.message
        pytest.skip(f"not read yet: {exc.diagnostic.message[:120]}")
    kernels = [f for f in interpreter.functions.values() if f.body.blocks and any(
        op.name == "ktdf.pipeline" for op in f.walk())]
    ran = []
    for kernel in kernels:
        try:
            interpreter.run(kernel.sym_name.data, _arguments(kernel))
            ran.append(kernel)
        except spyre_mlir.DiagnosticError as exc:
            assert "internal error" not in exc.diagnostic.message, str(exc)
            assert exc.diagnostic.location is not None
    if relative in CHECKED_RUNS:
        assert kernels and ran == kernels


def _global_views(module) -> dict[int, np.ndarray]:
    """Seeded f16 arrays covering the module's views at constant addresses (overlapping ones merged)."""
    from xdsl.dialects.arith import ConstantOp

    from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp

    rng = np.random.default_rng(1)
    found: dict[int, int] = {}
    for op in module.walk():
        if isinstance(op, ConstructMemoryViewOp) and isinstance(op.offset.owner, ConstantOp) and not op.sizes:
            sizes, strides = op.static_sizes.get_values(), op.static_strides.get_values()
            extent = 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
            address = op.offset.owner.value.value.data
            found[address] = max(found.get(address, 0), extent)
    merged: list[list[int]] = []  # [start, end) element ranges, overlapping views merged
    for address, extent in sorted(found.items()):
        if merged and address < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], address + extent)
        else:
            merged.append([address, address + extent])
    return {a: rng.integers(-3, 4, end - a).astype(np.float16) for a, end in merged}


@pytest.mark.filterwarnings("ignore::spyre_mlir.interpreter.InterpreterWarning")
@pytest.mark.parametrize("name", ["arith_math", "basic", "multiple_compute_ops"])
@pytest.mark.parametrize("options", MODES)
def test_their_three_stage_pipelines_compute_what_their_ktir_input_does(name, options):
    """construct-three-stage-pipeline's CHECKed output against its KTIR input, on 4 cores:
    the same HBM after the run (translation validation of their pass)."""
    path = SCHEDULER_TESTS / "Conversion" / "frontend" / "KTIRToScheduleIR" / "ConstructThreeStagePipeline"
    path = path / f"{name}.mlir"
    if not path.is_file():
        pytest.skip("../shared/corpus/dataflow-scheduler not present")
    before = Interpreter(path, options)
    after = Interpreter(checked_output(path), options)
    (kernel,) = [f for f in before.functions.values() if f.body.blocks]
    hbm = _global_views(before.module)
    assert hbm
    index = {a.name_hint or "arg0": 1 for a in kernel.body.blocks[0].args}
    want = before.run(kernel.sym_name.data, index, hbm, grid=4)
    (scheduled,) = [f for f in after.functions.values() if f.body.blocks]
    got = after.run(scheduled.sym_name.data, {a.name_hint or f"arg{i}": 1 for i, a in
                                              enumerate(scheduled.body.blocks[0].args)}, hbm, grid=4)
    assert any(s.index == 2 for s in got.runtime.stats.stages)
    for address in hbm:
        np.testing.assert_array_equal(got[f"hbm@{address}"], want[f"hbm@{address}"])


@pytest.mark.filterwarnings("ignore::spyre_mlir.interpreter.InterpreterWarning")
def test_their_basic_2_output_reads_past_the_view_where_the_ktir_masks():
    """basic_2's KTIR anchors its 2x4x32 tiles at column 1 of 32 (`%c0_1 = arith.constant 1`):
    the last column lies outside the view, which KTIR masks (loads 0, skips the store)
    and strict bounds refuse. Their output turns the tile into a reinterpret_cast at
    row * 128 + 1 with strides [128, 32, 1]: in bounds of the memref, it reads and
    writes the next row's first element instead. A finding about their pass."""
    path = SCHEDULER_TESTS / "Conversion" / "frontend" / "KTIRToScheduleIR" / "ConstructThreeStagePipeline"
    path = path / "basic_2.mlir"
    if not path.is_file():
        pytest.skip("../shared/corpus/dataflow-scheduler not present")
    hbm = _global_views(Interpreter(path).module)
    strict = Interpreter(path, InterpreterOptions(mask_out_of_bounds=False))
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        strict.run("local_schedule_1", {"i": 1}, hbm, grid=4)
    assert info.value.diagnostic.message.startswith("access outside the view: coordinate (1, 0, 32)")
    masked = Interpreter(path).run("local_schedule_1", {"i": 1}, hbm, grid=4)
    scheduled = Interpreter(checked_output(path)).run("local_schedule_1", {"ARG0": 1}, hbm, grid=4)
    (address,) = hbm
    differs = np.flatnonzero(masked[f"hbm@{address}"] != scheduled[f"hbm@{address}"])
    assert differs.size and all((i - 18432 + address) % 32 == 0 for i in differs)


@pytest.mark.parametrize("options", MODES)
def test_a_fifo_read_into_a_memref_is_a_buffer_holding_the_tile(options):
    """Upstream's unrealized buffer: read into memref<64xf16>, then written onwards
    from that memref; not counted as L1."""
    text = DOUBLE_BUFFERED.replace(
        '''        %x = ktdf.read_from_fifo %p#0 : <"L1" -> "SFU", 64xf16> -> tensor<64xf16>
        %e = tensor.empty() : tensor<64xf16>
        %y = ktdf.opaque "ADD" -> tensor<64xf16> ins(%x, %x : tensor<64xf16>, tensor<64xf16>) outs(%e : tensor<64xf16>)
        ktdf.write_to_fifo %y, %p#1 : tensor<64xf16>, <"SFU" -> "L1", 64xf16>''',
        '''        %x = ktdf.read_from_fifo %p#0 : <"L1" -> "SFU", 64xf16> -> memref<64xf16, "SFU_REG">
        ktdf.write_to_fifo %x, %p#1 : memref<64xf16, "SFU_REG">, <"SFU" -> "L1", 64xf16>''',
    )
    assert "-> memref<64xf16" in text
    src = _small_ints(13, (8, 64))
    out = _run(text, options=options, src=src, dst=np.zeros_like(src))
    np.testing.assert_array_equal(out["dst"], src)
    assert out.report.l1_buffer_peak_bytes == 256
    assert not out.runtime.find_state("memref").buffers  # freed with their pipeline instances and deallocs


def test_two_stages_waiting_for_each_other_are_a_located_deadlock():
    """Stage #1 waits for stage #2's token and stage #2 for stage #1's: neither can run."""
    text = THREE_STAGE.replace("ktdf.stage depends_in(%p#3) depends_out(%p#4)", "ktdf.stage depends_in(%p#5) depends_out(%p#4)")
    d = _error(text, **_three_stage_inputs()).diagnostic
    assert d.message == "stage #1 waits for token %p#5 that no stage before it signals: it could never run"
    assert d.location.line == _line_of(text, "ktdf.stage depends_in(%p#5)")
