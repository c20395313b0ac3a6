// RUN: %spyre-opt %s -p spatial-verify | %FileCheck %s
// RUN: %spyre-opt %s -p spatial-verify,spatial-verify | %FileCheck %s

// Locals and multicast on counts: two sites each sum two 8x8 tiles of @x
// into a local accumulator @a0 / @a1 that starts as the @w tile. @ldw on
// @s0 reads @w once and delivers it into @w0 and, through receive stage
// @rv1, into @w1 on @s1: its load step fills both (and counts as the run of
// @rv1 that edge @ew1 needs). The locals need no semaphore: written by
// @init, read and overwritten by @step, read by @fin, never left over and
// absent from max_full. HBM: @w read once (256 bytes), four @x tiles (1024),
// two @z tiles written (512).

// CHECK-LABEL: spatial.program @acc attributes {spatial.certificate = {cycles = 65 : i64, engines = {s0.compute = 10 : i64, s0.load = 9 : i64, s0.store = 2 : i64, s1.compute = 10 : i64, s1.load = 6 : i64, s1.store = 2 : i64}, hbm_read_bytes = 1280 : i64, hbm_written_bytes = 512 : i64, max_full = {w0 = 1 : i64, w1 = 1 : i64, x0 = 1 : i64, x1 = 2 : i64, z0 = 1 : i64, z1 = 1 : i64}, steps = 39 : i64}, spatial.phase = "verified"} {
// CHECK-NEXT:    spatial.tensor @w : memref<8x8xf32>
// CHECK:         spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 768
// CHECK:         spatial.multicast @g reader @ldw to [@s1]
spatial.program @acc attributes {spatial.phase = "synthesized"} {
  spatial.tensor @w : memref<8x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<16x8xf32>
  spatial.scalar @rows : index = 32
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a0 on @s0 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 256
  spatial.buffer @a1 on @s1 : !spatial.tile<8x8xf32> depth 1 local offset 768
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rv1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (d0 * 8, 0)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (d0 * 8 + 16, 0)>
  spatial.stage @init0 compute(@w0) -> @a0 on @s0 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step0 compute(@x0, @a0) -> @a0 on @s0 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin0 compute(@a0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute(@w1) -> @a1 on @s1 engine "compute" {
  ^bb0(%w: tensor<8x8xf32>):
    spatial.yield %w : tensor<8x8xf32>
  }
  spatial.stage @step1 compute(@x1, @a1) -> @a1 on @s1 engine "compute" {
  ^bb0(%x: tensor<8x8xf32>, %a: tensor<8x8xf32>):
    %s = arith.addf %a, %x : tensor<8x8xf32>
    spatial.yield %s : tensor<8x8xf32>
  }
  spatial.stage @fin1 compute(@a1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>):
    spatial.yield %a : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (8, 0)>
  spatial.edge @ew0 from @ldw to @init0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @ew1 from @rv1 to @init1 via @w1 : !spatial.tile<8x8xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @w1_full on @s1 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @z1_full on @s1 init 0
  spatial.engine @s0 "load" {
    spatial.load_step @ldw
    spatial.signal @w0_full += 1
    spatial.signal @w1_full += 1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_empty >= 1
      spatial.load_step @ldx0 [%k]
      spatial.signal @x0_full += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.wait @w0_full >= 1
    spatial.compute_step @init0
    spatial.loop %k = 0 to 2 {
      spatial.wait @x0_full >= 1
      spatial.compute_step @step0
      spatial.signal @x0_empty += 1
    }
    spatial.compute_step @fin0
    spatial.signal @z0_full += 1
  }
  spatial.engine @s0 "store" {
    spatial.wait @z0_full >= 1
    spatial.store_step @st0
  }
  spatial.engine @s1 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_empty >= 1
      spatial.load_step @ldx1 [%k]
      spatial.signal @x1_full += 1
    }
  }
  spatial.engine @s1 "compute" {
    spatial.wait @w1_full >= 1
    spatial.compute_step @init1
    spatial.loop %k = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1
      spatial.signal @x1_empty += 1
    }
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}
