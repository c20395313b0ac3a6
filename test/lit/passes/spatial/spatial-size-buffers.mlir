// RUN: %spyre-opt %s --split-input-file -p spatial-size-buffers | %FileCheck %s
// RUN: %spyre-opt %s --split-input-file -p 'spatial-size-buffers{depth=3 lx-bytes=65536}' | %FileCheck %s --check-prefix=OPTS
// RUN: %spyre-opt %s --split-input-file -p spatial-size-buffers,spatial-synthesize-handshakes,spatial-verify | %FileCheck %s --check-prefix=VERIFIED

// One site, a vector add over 4 row tiles: every FIFO buffer is filled by a
// step inside a loop of 4 iterations, so it is double buffered (depth 2);
// the buffers get their own bytes, first fit, 128-byte aligned (a 16x64xf16
// tile is 2048 bytes). The site's peak is recorded on the program.

// CHECK-LABEL: spatial.program @vadd attributes {grid = [1], spatial.lx_bytes_used = {s0 = 12288 : i64}, spatial.phase = "sized"} {
// CHECK:         spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
// CHECK-NEXT:    spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 2 offset 8192
// CHECK-NOT:     spatial.semaphore
// CHECK:         spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 4 {
// CHECK-NEXT:        spatial.load_step @ldx [%{{.*}}]
// CHECK-NEXT:        spatial.load_step @ldy [%{{.*}}]

// depth=3: three slots each; lx-bytes=65536 replaces the program's budget
// and is recorded on it.
// OPTS-LABEL: spatial.program @vadd attributes {grid = [1], lx_bytes = 65536 : i64, spatial.lx_bytes_used = {s0 = 18432 : i64}, spatial.phase = "sized"} {
// OPTS:         spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 3 offset 0
// OPTS-NEXT:    spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 3 offset 6144
// OPTS-NEXT:    spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 3 offset 12288

// VERIFIED-LABEL: spatial.program @vadd attributes {{[{]}}
// VERIFIED-SAME:    max_full = {bx = 2 : i64, by = 1 : i64, bz = 1 : i64}
// VERIFIED-SAME:    spatial.phase = "verified"
spatial.program @vadd attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @ldy load @y -> @by on @s0 engine "load"
  spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
    %c = arith.addf %a, %b : tensor<16x64xf16>
    spatial.yield %c : tensor<16x64xf16>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
  spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
  spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
    }
  }
  spatial.engine @s0 "compute" {
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

// -----

// A single tile (no loop), and a loop of one iteration around the other
// step: one slot is enough, whatever `depth` says. A tile of 100 bytes is
// followed by the next buffer at the next 128-byte boundary.

// CHECK-LABEL: spatial.program @once attributes {grid = [1], spatial.lx_bytes_used = {s0 = 228 : i64}, spatial.phase = "sized"} {
// CHECK:         spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1 offset 0
// CHECK-NEXT:    spatial.buffer @bz on @s0 : !spatial.tile<25xf32> depth 1 offset 128
// OPTS-LABEL:  spatial.program @once
// OPTS:          spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1 offset 0
// OPTS-NEXT:     spatial.buffer @bz on @s0 : !spatial.tile<25xf32> depth 1 offset 128
// VERIFIED-LABEL: spatial.program @once attributes {{[{].*}}spatial.phase = "verified"
spatial.program @once attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1
  spatial.buffer @bz on @s0 : !spatial.tile<25xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @neg compute(@bx) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<25xf32>):
    %c = arith.negf %a : tensor<25xf32>
    spatial.yield %c : tensor<25xf32>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @neg via @bx : !spatial.tile<25xf32>
  spatial.edge @ez from @neg to @st via @bz : !spatial.tile<25xf32>
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 1 {
      spatial.compute_step @neg
    }
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st
  }
}
