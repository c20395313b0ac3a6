// RUN: %spyre-opt %s -p spatial-synthesize-handshakes | %FileCheck %s

// A multicast group: reader @ldw on @s0 delivers each tile into its own
// buffer @w0 and into @w1, the buffer of receive stage @rvw on @s1. Its
// load step waits for a free slot in both and signals a full one in both;
// the semaphores of @w1 live on @w1's site, @s1. The receive stage has no
// step: the compute stage on @s1 drains @w1 as any FIFO.

// CHECK-LABEL: spatial.program @mc attributes {grid = [2], spatial.phase = "synthesized"} {
// CHECK:         spatial.semaphore @w0_full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @w0_empty on @s0 init 2
// CHECK-NEXT:    spatial.semaphore @x0_full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @x0_empty on @s0 init 2
// CHECK-NEXT:    spatial.semaphore @z0_full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @z0_empty on @s0 init 2
// CHECK-NEXT:    spatial.semaphore @w1_full on @s1 init 0
// CHECK-NEXT:    spatial.semaphore @w1_empty on @s1 init 2
// CHECK-NEXT:    spatial.semaphore @x1_full on @s1 init 0
// CHECK-NEXT:    spatial.semaphore @x1_empty on @s1 init 2
// CHECK-NEXT:    spatial.semaphore @z1_full on @s1 init 0
// CHECK-NEXT:    spatial.semaphore @z1_empty on @s1 init 2
// CHECK-NEXT:    spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %[[K:.*]] = 0 to 2 {
// CHECK-NEXT:        spatial.wait @w0_empty >= 1
// CHECK-NEXT:        spatial.wait @w1_empty >= 1
// CHECK-NEXT:        spatial.load_step @ldw [%[[K]]]
// CHECK-NEXT:        spatial.signal @w0_full += 1
// CHECK-NEXT:        spatial.signal @w1_full += 1
// CHECK-NEXT:        spatial.wait @x0_empty >= 1
// CHECK-NEXT:        spatial.load_step @ldx0 [%[[K]]]
// CHECK-NEXT:        spatial.signal @x0_full += 1
// CHECK:         spatial.engine @s1 "load" {
// CHECK-NEXT:      spatial.loop %[[J:.*]] = 2 to 4 {
// CHECK-NEXT:        spatial.wait @x1_empty >= 1
// CHECK-NEXT:        spatial.load_step @ldx1 [%[[J]]]
// CHECK-NEXT:        spatial.signal @x1_full += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s1 "compute" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 2 {
// CHECK-NEXT:        spatial.wait @w1_full >= 1
// CHECK-NEXT:        spatial.wait @x1_full >= 1
// CHECK-NEXT:        spatial.wait @z1_empty >= 1
// CHECK-NEXT:        spatial.compute_step @cp1
// CHECK-NEXT:        spatial.signal @w1_empty += 1
// CHECK-NEXT:        spatial.signal @x1_empty += 1
// CHECK-NEXT:        spatial.signal @z1_full += 1
// CHECK-NEXT:      }
spatial.program @mc attributes {spatial.phase = "sized", grid = [2]} {
  spatial.tensor @w : memref<16x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<32x8xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 512
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 1024
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 512
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 1024
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load"
  spatial.stage @cp0 compute(@w0, @x0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %c = arith.addf %a, %b : tensor<8x8xf32>
    spatial.yield %c : tensor<8x8xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store"
  spatial.stage @rvw receive @g0 -> @w1 on @s1 engine "load"
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load"
  spatial.stage @cp1 compute(@w1, @x1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %c = arith.addf %a, %b : tensor<8x8xf32>
    spatial.yield %c : tensor<8x8xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store"
  spatial.multicast @g0 reader @ldw to [@s1]
  spatial.edge @e0 from @ldw to @cp0 via @w0 : !spatial.tile<8x8xf32>
  spatial.edge @e1 from @ldx0 to @cp0 via @x0 : !spatial.tile<8x8xf32>
  spatial.edge @e2 from @cp0 to @st0 via @z0 : !spatial.tile<8x8xf32>
  spatial.edge @e3 from @rvw to @cp1 via @w1 : !spatial.tile<8x8xf32>
  spatial.edge @e4 from @ldx1 to @cp1 via @x1 : !spatial.tile<8x8xf32>
  spatial.edge @e5 from @cp1 to @st1 via @z1 : !spatial.tile<8x8xf32>
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.load_step @ldw [%k]
      spatial.load_step @ldx0 [%k]
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
  spatial.engine @s1 "load" {
    spatial.loop %k = 2 to 4 {
      spatial.load_step @ldx1 [%k]
    }
  }
  spatial.engine @s1 "compute" {
    spatial.loop %k = 0 to 2 {
      spatial.compute_step @cp1
    }
  }
  spatial.engine @s1 "store" {
    spatial.loop %k = 2 to 4 {
      spatial.store_step @st1 [%k]
    }
  }
}
