// RUN: %spyre-opt --mlir-print-local-scope %s | %spyre-opt --mlir-print-local-scope | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --mlir-print-op-generic | %spyre-opt --mlir-print-local-scope | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --mlir-print-op-generic | %FileCheck %s --check-prefix=GENERIC

// The extensions of the spatial dialect (docs/spatial.md), in one program
// that runs (test/unit/test_spatial_dialect_ext.py): two sites, each owning
// 32 rows of @x, compute z = (x[:, 0:128] * 1 + x[:, 128:256] * 2) * w.
// - spatial.scalar: the program is specialized for K = 256 (and eps);
// - a local buffer @acc0 / @acc1: the accumulator, one compute engine's
//   variable (set by @init, read and overwritten by @step);
// - tile origins: each site's x tiles start at its own rows;
// - index arguments: @step's body takes the step's index %j;
// - multicast: @ldw on @s0 reads the @w tile once and delivers it into @w0
//   and, through receive stage @rvw1, into @w1 on @s1.

// CHECK-LABEL: spatial.program @ext attributes {spatial.phase = "synthesized"} {
// CHECK-NEXT:    spatial.tensor @x : memref<64x256xf32>
// CHECK-NEXT:    spatial.tensor @w : memref<32x128xf32>
// CHECK-NEXT:    spatial.tensor @z : memref<64x128xf32>
// CHECK-NEXT:    spatial.scalar @K : index = 256
// CHECK-NEXT:    spatial.scalar @eps : f32 = 1.000000e-05
// CHECK-NEXT:    spatial.scalar @bias : i8 = -3 attributes {note = "unused"}
// CHECK-NEXT:    spatial.site @s0 at [0] engines ["load", "compute", "store"]
// CHECK-NEXT:    spatial.site @s1 at [1] engines ["load", "compute", "store"]
// CHECK-NEXT:    spatial.buffer @x0 on @s0 : !spatial.tile<32x128xf32> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @acc0 on @s0 : !spatial.tile<32x128xf32> depth 1 local offset 32768
// CHECK-NEXT:    spatial.buffer @w0 on @s0 : !spatial.tile<32x128xf32> depth 1 offset 49152
// CHECK-NEXT:    spatial.buffer @z0 on @s0 : !spatial.tile<32x128xf32> depth 1 offset 65536
// CHECK-NEXT:    spatial.buffer @x1 on @s1 : !spatial.tile<32x128xf32> depth 2 offset 0
// CHECK-NEXT:    spatial.buffer @acc1 on @s1 : !spatial.tile<32x128xf32> depth 1 local offset 32768
// CHECK-NEXT:    spatial.buffer @w1 on @s1 : !spatial.tile<32x128xf32> depth 1 offset 49152
// CHECK-NEXT:    spatial.buffer @z1 on @s1 : !spatial.tile<32x128xf32> depth 1 offset 65536
// CHECK-NEXT:    spatial.buffer @spare on @s1 : !spatial.tile<8xf32> depth 1 local offset 81920
// CHECK-NEXT:    spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
// CHECK-NEXT:    spatial.multicast @g reader @ldw to [@s1]
// CHECK-NEXT:    spatial.stage @rvw1 receive @g -> @w1 on @s1 engine "load"
// CHECK-NEXT:    spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (0, d0 * 128)>
// CHECK-NEXT:    spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (32, d0 * 128)>
// CHECK-NEXT:    spatial.stage @init0 compute() -> @acc0 on @s0 engine "compute" {
// CHECK-NEXT:      %{{.*}} = arith.constant dense<0.000000e+00> : tensor<32x128xf32>
// CHECK-NEXT:      spatial.yield %{{.*}} : tensor<32x128xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.stage @step0 compute(@x0, @acc0) -> @acc0 on @s0 engine "compute" {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<32x128xf32>, %{{.*}}: tensor<32x128xf32>, %[[J:.*]]: index):
// CHECK:           arith.index_cast %[[J]] : index to i64
// CHECK:           spatial.yield %{{.*}} : tensor<32x128xf32>
// CHECK-NEXT:    }
// CHECK:         spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
// CHECK:         spatial.edge @ew1 from @rvw1 to @fin1 via @w1 : !spatial.tile<32x128xf32>
// CHECK:         spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.load_step @ldw
// CHECK-NEXT:      spatial.signal @w0_full += 1
// CHECK-NEXT:      spatial.signal @w1_full += 1
// CHECK-NEXT:      spatial.loop %[[K:.*]] = 0 to 2 {
// CHECK-NEXT:        spatial.wait @x0_empty >= 1
// CHECK-NEXT:        spatial.load_step @ldx0 [%[[K]]]
// CHECK:         spatial.engine @s0 "compute" {
// CHECK-NEXT:      spatial.compute_step @init0
// CHECK-NEXT:      spatial.loop %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:        spatial.wait @x0_full >= 1
// CHECK-NEXT:        spatial.compute_step @step0 [%[[I]]]
// CHECK:         spatial.engine @s0 "store" {
// CHECK-NEXT:      spatial.wait @z0_full >= 1
// CHECK-NEXT:      spatial.store_step @st0

// The generic form carries the new properties (it is what real MLIR reads:
// test_real_mlir.py reads every valid lit input).
// GENERIC: "spatial.scalar"() <{sym_name = "K", type = index, value = 256 : index}> : () -> ()
// GENERIC: "spatial.scalar"() <{sym_name = "eps", type = f32, value = 1.000000e-05 : f32}> : () -> ()
// GENERIC: "spatial.buffer"() <{depth = 1 : i64, local, offset = 32768 : i64, site = @s0, sym_name = "acc0", tile = !spatial.tile<32x128xf32>}> : () -> ()
// GENERIC: "spatial.stage"() <{engine = "load", inputs = [@x], kind = "load", origin = affine_map<(d0) -> (0, d0 * 128)>, outputs = [@x0], site = @s0, sym_name = "ldx0"}> : () -> ()
spatial.program @ext attributes {spatial.phase = "synthesized"} {
  spatial.tensor @x : memref<64x256xf32>
  spatial.tensor @w : memref<32x128xf32>
  spatial.tensor @z : memref<64x128xf32>
  spatial.scalar @K : index = 256
  spatial.scalar @eps : f32 = 1.0e-05
  spatial.scalar @bias : i8 = -3 attributes {note = "unused"}
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.site @s1 at [1] engines ["load", "compute", "store"]
  spatial.buffer @x0 on @s0 : !spatial.tile<32x128xf32> depth 2 offset 0
  spatial.buffer @acc0 on @s0 : !spatial.tile<32x128xf32> depth 1 local offset 32768
  spatial.buffer @w0 on @s0 : !spatial.tile<32x128xf32> depth 1 offset 49152
  spatial.buffer @z0 on @s0 : !spatial.tile<32x128xf32> depth 1 offset 65536
  spatial.buffer @x1 on @s1 : !spatial.tile<32x128xf32> depth 2 offset 0
  // `local` is also read after the offset (it prints before it).
  spatial.buffer @acc1 on @s1 : !spatial.tile<32x128xf32> depth 1 offset 32768 local
  spatial.buffer @w1 on @s1 : !spatial.tile<32x128xf32> depth 1 offset 49152
  spatial.buffer @z1 on @s1 : !spatial.tile<32x128xf32> depth 1 offset 65536
  spatial.buffer @spare on @s1 : !spatial.tile<8xf32> depth 1 local offset 81920
  spatial.stage @ldw load @w -> @w0 on @s0 engine "load"
  spatial.multicast @g reader @ldw to [@s1]
  spatial.stage @rvw1 receive @g -> @w1 on @s1 engine "load"
  spatial.stage @ldx0 load @x -> @x0 on @s0 engine "load" origin affine_map<(d0) -> (0, d0 * 128)>
  spatial.stage @ldx1 load @x -> @x1 on @s1 engine "load" origin affine_map<(d0) -> (32, d0 * 128)>
  spatial.stage @init0 compute() -> @acc0 on @s0 engine "compute" {
    %zero = arith.constant dense<0.0> : tensor<32x128xf32>
    spatial.yield %zero : tensor<32x128xf32>
  }
  spatial.stage @step0 compute(@x0, @acc0) -> @acc0 on @s0 engine "compute" {
  ^bb0(%t: tensor<32x128xf32>, %a: tensor<32x128xf32>, %j: index):
    %c1 = arith.constant 1 : i64
    %ji = arith.index_cast %j : index to i64
    %j1 = arith.addi %ji, %c1 : i64
    %f = arith.sitofp %j1 : i64 to f32
    %fs = tensor.splat %f : tensor<32x128xf32>
    %p = arith.mulf %t, %fs : tensor<32x128xf32>
    %s = arith.addf %a, %p : tensor<32x128xf32>
    spatial.yield %s : tensor<32x128xf32>
  }
  spatial.stage @fin0 compute(@acc0, @w0) -> @z0 on @s0 engine "compute" {
  ^bb0(%a: tensor<32x128xf32>, %v: tensor<32x128xf32>):
    %r = arith.mulf %a, %v : tensor<32x128xf32>
    spatial.yield %r : tensor<32x128xf32>
  }
  spatial.stage @st0 store @z0 -> @z on @s0 engine "store" origin affine_map<() -> (0, 0)>
  spatial.stage @init1 compute() -> @acc1 on @s1 engine "compute" {
    %zero = arith.constant dense<0.0> : tensor<32x128xf32>
    spatial.yield %zero : tensor<32x128xf32>
  }
  spatial.stage @step1 compute(@x1, @acc1) -> @acc1 on @s1 engine "compute" {
  ^bb0(%t: tensor<32x128xf32>, %a: tensor<32x128xf32>, %j: index):
    %c1 = arith.constant 1 : i64
    %ji = arith.index_cast %j : index to i64
    %j1 = arith.addi %ji, %c1 : i64
    %f = arith.sitofp %j1 : i64 to f32
    %fs = tensor.splat %f : tensor<32x128xf32>
    %p = arith.mulf %t, %fs : tensor<32x128xf32>
    %s = arith.addf %a, %p : tensor<32x128xf32>
    spatial.yield %s : tensor<32x128xf32>
  }
  spatial.stage @fin1 compute(@acc1, @w1) -> @z1 on @s1 engine "compute" {
  ^bb0(%a: tensor<32x128xf32>, %v: tensor<32x128xf32>):
    %r = arith.mulf %a, %v : tensor<32x128xf32>
    spatial.yield %r : tensor<32x128xf32>
  }
  spatial.stage @st1 store @z1 -> @z on @s1 engine "store" origin affine_map<() -> (32, 0)>
  spatial.edge @ew0 from @ldw to @fin0 via @w0 : !spatial.tile<32x128xf32>
  spatial.edge @ex0 from @ldx0 to @step0 via @x0 : !spatial.tile<32x128xf32>
  spatial.edge @ez0 from @fin0 to @st0 via @z0 : !spatial.tile<32x128xf32>
  spatial.edge @ew1 from @rvw1 to @fin1 via @w1 : !spatial.tile<32x128xf32>
  spatial.edge @ex1 from @ldx1 to @step1 via @x1 : !spatial.tile<32x128xf32>
  spatial.edge @ez1 from @fin1 to @st1 via @z1 : !spatial.tile<32x128xf32>
  spatial.semaphore @x0_full on @s0 init 0
  spatial.semaphore @x0_empty on @s0 init 2
  spatial.semaphore @w0_full on @s0 init 0
  spatial.semaphore @z0_full on @s0 init 0
  spatial.semaphore @x1_full on @s1 init 0
  spatial.semaphore @x1_empty on @s1 init 2
  spatial.semaphore @w1_full on @s1 init 0
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
    spatial.compute_step @init0
    spatial.loop %j = 0 to 2 {
      spatial.wait @x0_full >= 1
      spatial.compute_step @step0 [%j]
      spatial.signal @x0_empty += 1
    }
    spatial.wait @w0_full >= 1
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
    spatial.compute_step @init1
    spatial.loop %j = 0 to 2 {
      spatial.wait @x1_full >= 1
      spatial.compute_step @step1 [%j]
      spatial.signal @x1_empty += 1
    }
    spatial.wait @w1_full >= 1
    spatial.compute_step @fin1
    spatial.signal @z1_full += 1
  }
  spatial.engine @s1 "store" {
    spatial.wait @z1_full >= 1
    spatial.store_step @st1
  }
}
