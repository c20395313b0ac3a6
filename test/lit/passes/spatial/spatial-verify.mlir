// RUN: %spyre-opt %s -p spatial-verify | %FileCheck %s
// RUN: %spyre-opt %s -p spatial-verify,spatial-verify | %FileCheck %s

// The one-site vector add of test/lit/dialects/spatial/ops.mlir, synthesized:
// simulating its choreography on counts finds no deadlock, no overflow or
// underflow, and every tile consumed once; the program moves to phase
// "verified" with a certificate (steps per engine, peak fill per buffer).
// Verifying a verified program again re-checks it and gives the same
// certificate.

// CHECK-LABEL: spatial.program @vadd attributes {grid = [1], spatial.certificate = {cycles = 160 : i64, engines = {s0.compute = 20 : i64, s0.load = 16 : i64, s0.store = 12 : i64}, hbm_read_bytes = 16384 : i64, hbm_written_bytes = 8192 : i64, max_full = {bx = 2 : i64, by = 2 : i64, bz = 1 : i64}, steps = 48 : i64}, spatial.phase = "verified"} {
// CHECK-NEXT:    spatial.tensor @x : memref<64x64xf16>
// CHECK:         spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 4 {
// CHECK-NEXT:        spatial.wait @empty_in >= 1
// CHECK-NEXT:        spatial.load_step @ldx [%{{.*}}]
// CHECK-NEXT:        spatial.load_step @ldy [%{{.*}}]
// CHECK-NEXT:        spatial.signal @full_in += 1
spatial.program @vadd attributes {spatial.phase = "synthesized", grid = [1]} {
  spatial.tensor @x : memref<64x64xf16>
  spatial.tensor @y : memref<64x64xf16>
  spatial.tensor @z : memref<64x64xf16>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
  spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
  spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
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
  spatial.semaphore @full_in on @s0 init 0
  spatial.semaphore @empty_in on @s0 init 2
  spatial.semaphore @full_out on @s0 init 0
  spatial.semaphore @empty_out on @s0 init 1
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @empty_in >= 1
      spatial.load_step @ldx [%k]
      spatial.load_step @ldy [%k]
      spatial.signal @full_in += 1
    }
  }
  spatial.engine @s0 "compute" {
    spatial.loop %k = 0 to 4 {
      spatial.wait @full_in >= 1
      spatial.wait @empty_out >= 1
      spatial.compute_step @add
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
