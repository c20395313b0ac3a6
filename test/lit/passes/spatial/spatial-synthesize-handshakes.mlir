// RUN: %spyre-opt %s --split-input-file -p spatial-synthesize-handshakes | %FileCheck %s
// RUN: %spyre-opt %s --split-input-file -p spatial-synthesize-handshakes,spatial-verify | %FileCheck %s --check-prefix=VERIFIED

// One site, a vector add over 4 row tiles, sized: @bx and @by double
// buffered, @bz single. Per buffer B of depth D two semaphores on its site,
// @B_full init 0 and @B_empty init D, declared before the engines. The
// producer's step waits for a free slot and signals a full one, the
// consumer's step waits for a full slot and signals a free one; the compute
// step, reading two buffers and writing one, takes all its waits before it
// and gives all its signals after it.

// CHECK-LABEL: spatial.program @vadd attributes {grid = [1], spatial.phase = "synthesized"} {
// CHECK:         spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
// CHECK-NEXT:    spatial.semaphore @bx_full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @bx_empty on @s0 init 2
// CHECK-NEXT:    spatial.semaphore @by_full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @by_empty on @s0 init 2
// CHECK-NEXT:    spatial.semaphore @bz_full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @bz_empty on @s0 init 1
// CHECK-NEXT:    spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %[[K:.*]] = 0 to 4 {
// CHECK-NEXT:        spatial.wait @bx_empty >= 1
// CHECK-NEXT:        spatial.load_step @ldx [%[[K]]]
// CHECK-NEXT:        spatial.signal @bx_full += 1
// CHECK-NEXT:        spatial.wait @by_empty >= 1
// CHECK-NEXT:        spatial.load_step @ldy [%[[K]]]
// CHECK-NEXT:        spatial.signal @by_full += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s0 "compute" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 4 {
// CHECK-NEXT:        spatial.wait @bx_full >= 1
// CHECK-NEXT:        spatial.wait @by_full >= 1
// CHECK-NEXT:        spatial.wait @bz_empty >= 1
// CHECK-NEXT:        spatial.compute_step @add
// CHECK-NEXT:        spatial.signal @bx_empty += 1
// CHECK-NEXT:        spatial.signal @by_empty += 1
// CHECK-NEXT:        spatial.signal @bz_full += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s0 "store" {
// CHECK-NEXT:      spatial.loop %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        spatial.wait @bz_full >= 1
// CHECK-NEXT:        spatial.store_step @st [%[[J]]]
// CHECK-NEXT:        spatial.signal @bz_empty += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// The handshakes keep every slot of every buffer in bounds: spatial-verify
// certifies the program (with its round-robin schedule @bx fills both its
// slots: the load engine runs ahead of the compute engine).
// VERIFIED-LABEL: spatial.program @vadd attributes {{[{]}}
// VERIFIED-SAME:    max_full = {bx = 2 : i64, by = 1 : i64, bz = 1 : i64}
// VERIFIED-SAME:    spatial.phase = "verified"
spatial.program @vadd attributes {spatial.phase = "sized", grid = [1]} {
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

// A semaphore name already taken (here by a tensor @bx_full) gets a suffix;
// steps outside any loop are wrapped as well.

// CHECK-LABEL: spatial.program @taken attributes {grid = [1], spatial.phase = "synthesized"} {
// CHECK:         spatial.semaphore @bx_full_1 on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @bx_empty on @s0 init 1
// CHECK-NEXT:    spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.wait @bx_empty >= 1
// CHECK-NEXT:      spatial.load_step @ldx
// CHECK-NEXT:      spatial.signal @bx_full_1 += 1
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s0 "store" {
// CHECK-NEXT:      spatial.wait @bx_full_1 >= 1
// CHECK-NEXT:      spatial.store_step @st
// CHECK-NEXT:      spatial.signal @bx_empty += 1
// CHECK-NEXT:    }
// VERIFIED-LABEL: spatial.program @taken attributes {{[{].*}}spatial.phase = "verified"
spatial.program @taken attributes {spatial.phase = "sized", grid = [1]} {
  spatial.tensor @bx_full : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1 offset 0
  spatial.stage @ldx load @bx_full -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ldx to @st via @bx : !spatial.tile<25xf32>
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st
  }
}
