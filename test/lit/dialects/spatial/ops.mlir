// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// A one-site vector add, synthesized: two load stages fill double-buffered
// LX tiles, a compute stage adds them, a store stage drains the sum; three
// engines' choreographies hand the buffer slots over with full/empty
// semaphores.

// CHECK-LABEL: spatial.program @vadd attributes {grid = [1], spatial.phase = "synthesized"} {
// CHECK-NEXT:    spatial.tensor @x : memref<64x64xf16>
// CHECK-NEXT:    spatial.tensor @y : memref<64x64xf16>
// CHECK-NEXT:    spatial.tensor @z : memref<64x64xf16>
// CHECK-NEXT:    spatial.site @s0 at [0] engines ["load", "compute", "store"]
// CHECK-NEXT:    spatial.buffer @bx on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @by on @s0 : !spatial.tile<16x64xf16> depth 2 offset 4096
// CHECK-NEXT:    spatial.buffer @bz on @s0 : !spatial.tile<16x64xf16> depth 1 offset 8192
// CHECK-NEXT:    spatial.stage @ldx load @x -> @bx on @s0 engine "load"
// CHECK-NEXT:    spatial.stage @ldy load @y -> @by on @s0 engine "load"
// CHECK-NEXT:    spatial.stage @add compute(@bx, @by) -> @bz on @s0 engine "compute" {
// CHECK-NEXT:    ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>):
// CHECK-NEXT:      %c = arith.addf %a, %b : tensor<16x64xf16>
// CHECK-NEXT:      spatial.yield %c : tensor<16x64xf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.stage @st store @bz -> @z on @s0 engine "store"
// CHECK-NEXT:    spatial.edge @ex from @ldx to @add via @bx : !spatial.tile<16x64xf16>
// CHECK-NEXT:    spatial.edge @ey from @ldy to @add via @by : !spatial.tile<16x64xf16>
// CHECK-NEXT:    spatial.edge @ez from @add to @st via @bz : !spatial.tile<16x64xf16>
// CHECK-NEXT:    spatial.semaphore @full_in on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @empty_in on @s0 init 2
// CHECK-NEXT:    spatial.semaphore @full_out on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @empty_out on @s0 init 1
// CHECK-NEXT:    spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %[[K:.*]] = 0 to 4 {
// CHECK-NEXT:        spatial.wait @empty_in >= 1
// CHECK-NEXT:        spatial.load_step @ldx [%[[K]]]
// CHECK-NEXT:        spatial.load_step @ldy [%[[K]]]
// CHECK-NEXT:        spatial.signal @full_in += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s0 "compute" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 4 {
// CHECK-NEXT:        spatial.wait @full_in >= 1
// CHECK-NEXT:        spatial.wait @empty_out >= 1
// CHECK-NEXT:        spatial.compute_step @add
// CHECK-NEXT:        spatial.signal @empty_in += 1
// CHECK-NEXT:        spatial.signal @full_out += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s0 "store" {
// CHECK-NEXT:      spatial.loop %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        spatial.wait @full_out >= 1
// CHECK-NEXT:        spatial.store_step @st [%[[J]]]
// CHECK-NEXT:        spatial.signal @empty_out += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
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

// Two sites after spatial-fuse-readers, before sizing: one load of @w read by
// both sites through a multicast group (each site takes it with a receive
// stage), buffers without offsets, a stage without a body yet, an LX budget
// on the program, and a receive step.

// CHECK-LABEL: spatial.program @shared attributes {lx_bytes = 65536 : i64, spatial.phase = "fused"} {
// CHECK-NEXT:    spatial.tensor @w : memref<32x64xbf16>
// CHECK-NEXT:    spatial.tensor @o : memref<64x64xbf16>
// CHECK-NEXT:    spatial.site @s0 at [0, 0] engines ["load", "compute", "store"]
// CHECK-NEXT:    spatial.site @s1 at [0, 1] engines ["load", "compute", "store"]
// CHECK-NEXT:    spatial.buffer @w1 on @s1 : !spatial.tile<32x64xbf16> depth 1
// CHECK-NEXT:    spatial.buffer @o1 on @s1 : !spatial.tile<32x64xbf16> depth 2
// CHECK-NEXT:    spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
// CHECK-NEXT:    spatial.buffer @w0 on @s0 : !spatial.tile<32x64xbf16> depth 1
// CHECK-NEXT:    spatial.multicast @g0 reader @ldw to [@s1]
// CHECK-NEXT:    spatial.stage @rv1 receive @g0 -> @w1 on @s1 engine "load" attributes {note = "from @s0"}
// CHECK-NEXT:    spatial.stage @cp1 compute(@w1) -> @o1 on @s1 engine "compute"
// CHECK-NEXT:    spatial.edge @e1 from @rv1 to @cp1 via @w1 : !spatial.tile<32x64xbf16>
// CHECK-NEXT:    spatial.semaphore @got on @s1 init 0
// CHECK-NEXT:    spatial.engine @s1 "load" {
// CHECK-NEXT:      spatial.recv_step @rv1
// CHECK-NEXT:      spatial.signal @got += 1
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s1 "compute" {
// CHECK-NEXT:      spatial.wait @got >= 1
// CHECK-NEXT:      spatial.compute_step @cp1
// CHECK-NEXT:    }
// CHECK-NEXT:  }
spatial.program @shared attributes {spatial.phase = "fused", lx_bytes = 65536} {
  spatial.tensor @w : memref<32x64xbf16>
  spatial.tensor @o : memref<64x64xbf16>
  spatial.site @s0 at [0, 0] engines ["load", "compute", "store"]
  spatial.site @s1 at [0, 1] engines ["load", "compute", "store"]
  spatial.buffer @w1 on @s1 : !spatial.tile<32x64xbf16> depth 1
  spatial.buffer @o1 on @s1 : !spatial.tile<32x64xbf16> depth 2
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.buffer @w0 on @s0 : !spatial.tile<32x64xbf16> depth 1
  spatial.multicast @g0 reader @ldw to [@s1]
  spatial.stage @rv1 receive @g0 -> @w1 on @s1 engine "load" attributes {note = "from @s0"}
  spatial.stage @cp1 compute(@w1) -> @o1 on @s1 engine "compute"
  spatial.edge @e1 from @rv1 to @cp1 via @w1 : !spatial.tile<32x64xbf16>
  spatial.semaphore @got on @s1 init 0
  spatial.engine @s1 "load" {
    spatial.recv_step @rv1
    spatial.signal @got += 1
  }
  spatial.engine @s1 "compute" {
    spatial.wait @got >= 1
    spatial.compute_step @cp1
  }
}

// A ragged copy: the loops run to a trip, a count the program reads from its
// own data (element 1 of @n gives v; ceil((v + 0) / 8) tiles, v admitted
// from 1 to 48).

// CHECK-LABEL: spatial.program @ragged attributes {spatial.phase = "synthesized"} {
// CHECK-NEXT:    spatial.tensor @n : memref<2xi32>
// CHECK-NEXT:    spatial.tensor @x : memref<64x8xf32>
// CHECK-NEXT:    spatial.tensor @z : memref<64x8xf32>
// CHECK-NEXT:    spatial.site @s0 at [0] engines ["load", "store"]
// CHECK-NEXT:    spatial.buffer @bx on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
// CHECK-NEXT:    spatial.stage @ld load @x -> @bx on @s0 engine "load"
// CHECK-NEXT:    spatial.stage @st store @bx -> @z on @s0 engine "store"
// CHECK-NEXT:    spatial.edge @e from @ld to @st via @bx : !spatial.tile<8x8xf32>
// CHECK-NEXT:    spatial.trip @rows from @n[1] per 8 bias 0 admit [1, 48]
// CHECK-NEXT:    spatial.trip @back from @n[0] per 2 bias -3 admit [-5, 5] attributes {note = "unused"}
// CHECK-NEXT:    spatial.semaphore @full on @s0 init 0
// CHECK-NEXT:    spatial.semaphore @empty on @s0 init 2
// CHECK-NEXT:    spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %[[K:.*]] = 0 to trip(@rows) {
// CHECK-NEXT:        spatial.wait @empty >= 1
// CHECK-NEXT:        spatial.load_step @ld [%[[K]]]
// CHECK-NEXT:        spatial.signal @full += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @s0 "store" {
// CHECK-NEXT:      spatial.loop %[[J:.*]] = 0 to trip(@rows) {
// CHECK-NEXT:        spatial.wait @full >= 1
// CHECK-NEXT:        spatial.store_step @st [%[[J]]]
// CHECK-NEXT:        spatial.signal @empty += 1
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
spatial.program @ragged attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<2xi32>
  spatial.tensor @x : memref<64x8xf32>
  spatial.tensor @z : memref<64x8xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.stage @ld load @x -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ld to @st via @bx : !spatial.tile<8x8xf32>
  spatial.trip @rows from @n[1] per 8 bias 0 admit [1, 48]
  spatial.trip @back from @n[0] per 2 bias -3 admit [-5, 5] attributes {note = "unused"}
  spatial.semaphore @full on @s0 init 0
  spatial.semaphore @empty on @s0 init 2
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @empty >= 1
      spatial.load_step @ld [%k]
      spatial.signal @full += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @full >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty += 1
    }
  }
}
