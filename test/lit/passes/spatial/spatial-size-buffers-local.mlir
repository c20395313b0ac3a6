// RUN: %spyre-opt %s -p spatial-size-buffers | %FileCheck %s
// RUN: %spyre-opt %s -p spatial-size-buffers,spatial-synthesize-handshakes | %FileCheck %s --check-prefix=SYNTH
// RUN: %spyre-opt %s -p spatial-size-buffers,spatial-synthesize-handshakes,spatial-verify | %FileCheck %s --check-prefix=VERIFIED

// Local buffers (one engine's variables) keep depth 1 and share LX bytes
// where their live ranges are disjoint. The compute engine runs, in order:
// 0 @mk (writes @scale), 1 @init1 (writes @acc1), 2 a loop of @add1 (reads
// and writes @acc1), 3 @out1 (reads @acc1), 4 @init2, 5 a loop of @add2,
// 6 @out2 (reads @acc2 and @scale). Live ranges: @scale 0..6, @acc1 1..3,
// @acc2 4..6: @acc1 and @acc2 share their bytes, @scale overlaps both. The
// FIFO buffers come first and never share; @spare, a local no stage touches,
// gets bytes of its own. A 16x16xf32 tile is 1024 bytes.

// CHECK-LABEL: spatial.program @locals attributes {grid = [1], spatial.lx_bytes_used = {s0 = 9216 : i64}, spatial.phase = "sized"} {
// CHECK:         spatial.buffer @bx on @s0 : !spatial.tile<16x16xf32> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @by on @s0 : !spatial.tile<16x16xf32> depth 2 offset 2048
// CHECK-NEXT:    spatial.buffer @acc1 on @s0 : !spatial.tile<16x16xf32> depth 1 local offset 8192
// CHECK-NEXT:    spatial.buffer @acc2 on @s0 : !spatial.tile<16x16xf32> depth 1 local offset 8192
// CHECK-NEXT:    spatial.buffer @bz1 on @s0 : !spatial.tile<16x16xf32> depth 1 offset 4096
// CHECK-NEXT:    spatial.buffer @bz2 on @s0 : !spatial.tile<16x16xf32> depth 1 offset 5120
// CHECK-NEXT:    spatial.buffer @scale on @s0 : !spatial.tile<16x16xf32> depth 1 local offset 7168
// CHECK-NEXT:    spatial.buffer @spare on @s0 : !spatial.tile<16x16xf32> depth 1 local offset 6144

// Locals get no semaphore and no handshake: @add1 waits for its FIFO input only.
// SYNTH-NOT:     spatial.semaphore @acc
// SYNTH-NOT:     spatial.semaphore @scale
// SYNTH:         spatial.engine @s0 "compute" {
// SYNTH-NEXT:      spatial.compute_step @mk
// SYNTH-NEXT:      spatial.compute_step @init1
// SYNTH-NEXT:      spatial.loop %{{.*}} = 0 to 4 {
// SYNTH-NEXT:        spatial.wait @bx_full >= 1
// SYNTH-NEXT:        spatial.compute_step @add1
// SYNTH-NEXT:        spatial.signal @bx_empty += 1
// SYNTH-NEXT:      }
// SYNTH-NEXT:      spatial.wait @bz1_empty >= 1
// SYNTH-NEXT:      spatial.compute_step @out1
// SYNTH-NEXT:      spatial.signal @bz1_full += 1

// VERIFIED-LABEL: spatial.program @locals attributes {{[{].*}}spatial.phase = "verified"
spatial.program @locals attributes {spatial.phase = "fused", grid = [1]} {
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
  spatial.buffer @scale on @s0 : !spatial.tile<16x16xf32> depth 1 local
  spatial.buffer @spare on @s0 : !spatial.tile<16x16xf32> depth 1 local
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @mk compute() -> @scale on @s0 engine "compute" {
    %two = arith.constant dense<2.000000e+00> : tensor<16x16xf32>
    spatial.yield %two : tensor<16x16xf32>
  }
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
  spatial.stage @out2 compute(@acc2, @scale) -> @bz2 on @s0 engine "compute" {
  ^bb0(%a: tensor<16x16xf32>, %s: tensor<16x16xf32>):
    %m = arith.mulf %a, %s : tensor<16x16xf32>
    spatial.yield %m : tensor<16x16xf32>
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
    spatial.compute_step @mk
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
