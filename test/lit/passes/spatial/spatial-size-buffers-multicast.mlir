// RUN: %spyre-opt %s -p spatial-size-buffers | %FileCheck %s
// RUN: %spyre-opt %s -p 'spatial-size-buffers{depth=3}' | %FileCheck %s --check-prefix=OPTS

// Two sites and a multicast group: @ldw on @s0 reads each tile of @w once
// and delivers it into @w0 (its own buffer) and @w1 (the buffer of receive
// stage @rvw on @s1). @w1 is filled by the reader's steps, inside a loop
// of 2: double buffered like @w0. Offsets are per site.

// CHECK-LABEL: spatial.program @mc attributes {grid = [2], spatial.lx_bytes_used = {s0 = 1536 : i64, s1 = 1536 : i64}, spatial.phase = "sized"} {
// CHECK:         spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 512
// CHECK-NEXT:    spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 2 offset 1024
// CHECK-NEXT:    spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 512
// CHECK-NEXT:    spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 2 offset 1024
// OPTS-LABEL:  spatial.program @mc
// OPTS:          spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 3 offset 0
// OPTS:          spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 3 offset 0
spatial.program @mc attributes {spatial.phase = "fused", grid = [2]} {
  spatial.tensor @w : memref<16x8xf32>
  spatial.tensor @x : memref<32x8xf32>
  spatial.tensor @z : memref<32x8xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @w0 on @s0 : !spatial.tile<8x8xf32> depth 1
  spatial.buffer @x0 on @s0 : !spatial.tile<8x8xf32> depth 1
  spatial.buffer @z0 on @s0 : !spatial.tile<8x8xf32> depth 1
  spatial.buffer @w1 on @s1 : !spatial.tile<8x8xf32> depth 1
  spatial.buffer @x1 on @s1 : !spatial.tile<8x8xf32> depth 1
  spatial.buffer @z1 on @s1 : !spatial.tile<8x8xf32> depth 1
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
