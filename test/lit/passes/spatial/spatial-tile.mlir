// RUN: %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile{scalars="K=64"}' | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile{scalars="K=64"}' | %spyre-opt --mlir-print-local-scope | %FileCheck %s

// spatial-tile writes one site per grid point with load, compute and store
// engines: loads and stores become stages whose origin is an affine map of
// the step's loop numbers (the tile coordinate and the scalar K evaluated
// per site), the scf.for a spatial.loop in every engine, the loop-carried
// sum a local of the compute engine (initialized before the loop, read and
// written by the loop's compute stage, read after it), the scalar K a
// spatial.scalar the program checks when run.

// CHECK-LABEL: spatial.program @rowsum attributes {grid = [2], spatial.phase = "tiled"} {
// CHECK-NEXT:    spatial.scalar @K : index = 64
// CHECK-NEXT:    spatial.tensor @x : memref<2x64xf32>
// CHECK-NEXT:    spatial.tensor @y : memref<2x16xf32>
// CHECK-NEXT:    spatial.site @b0 at [0] engines ["load", "compute", "store"]
// CHECK-NEXT:    spatial.buffer @b0_v0 on @b0 : !spatial.tile<1x16xf32> depth 1 local
// CHECK-NEXT:    spatial.buffer @b0_in0 on @b0 : !spatial.tile<1x16xf32> depth 1
// CHECK-NEXT:    spatial.buffer @b0_out0 on @b0 : !spatial.tile<1x16xf32> depth 1
// CHECK-NEXT:    spatial.stage @b0_cp0 compute() -> @b0_v0 on @b0 engine "compute" {
// CHECK-NEXT:      %{{.*}} = arith.constant dense<0.000000e+00> : tensor<1x16xf32>
// CHECK-NEXT:      spatial.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.stage @b0_ld0 load @x -> @b0_in0 on @b0 engine "load" origin affine_map<(d0) -> (0, d0 * 16)>
// CHECK-NEXT:    spatial.stage @b0_cp1 compute(@b0_in0, @b0_v0) -> @b0_v0 on @b0 engine "compute" {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<1x16xf32>, %[[S:.*]]: tensor<1x16xf32>, %{{.*}}: index):
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[S]], %[[A]] : tensor<1x16xf32>
// CHECK-NEXT:      spatial.yield %[[N]] : tensor<1x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.stage @b0_cp2 compute(@b0_v0) -> @b0_out0 on @b0 engine "compute" {
// CHECK:         spatial.stage @b0_st0 store @b0_out0 -> @y on @b0 engine "store" origin affine_map<() -> (0, 0)>
// CHECK-NEXT:    spatial.edge @b0_e0 from @b0_ld0 to @b0_cp1 via @b0_in0 : !spatial.tile<1x16xf32>
// CHECK-NEXT:    spatial.edge @b0_e1 from @b0_cp2 to @b0_st0 via @b0_out0 : !spatial.tile<1x16xf32>
// CHECK-NEXT:    spatial.engine @b0 "load" {
// CHECK-NEXT:      spatial.loop %[[K:.*]] = 0 to 4 {
// CHECK-NEXT:        spatial.load_step @b0_ld0 [%[[K]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @b0 "compute" {
// CHECK-NEXT:      spatial.compute_step @b0_cp0
// CHECK-NEXT:      spatial.loop %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:        spatial.compute_step @b0_cp1 [%[[J]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      spatial.compute_step @b0_cp2
// CHECK-NEXT:    }
// CHECK-NEXT:    spatial.engine @b0 "store" {
// CHECK-NEXT:      spatial.store_step @b0_st0
// CHECK-NEXT:    }
// CHECK:         spatial.site @b1 at [1] engines ["load", "compute", "store"]
// CHECK:         spatial.stage @b1_ld0 load @x -> @b1_in0 on @b1 engine "load" origin affine_map<(d0) -> (1, d0 * 16)>
// CHECK:         spatial.stage @b1_st0 store @b1_out0 -> @y on @b1 engine "store" origin affine_map<() -> (1, 0)>
// CHECK-NOT:     func.func

func.func @rowsum(%x: index, %y: index, %K: index) attributes {grid = [2]} {
  %row = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 16], strides: [16, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %sum = scf.for %j = %c0 to %K step %c16 iter_args(%acc = %zero) -> (tensor<1x16xf32>) {
    %t = ktdp.construct_access_tile %xv[%row, %j] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x64xf32> -> !ktdp.access_tile<1x16xindex>
    %a = ktdp.load %t : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
    %n = arith.addf %acc, %a : tensor<1x16xf32>
    scf.yield %n : tensor<1x16xf32>
  }
  %twice = arith.addf %sum, %sum : tensor<1x16xf32>
  %u = ktdp.construct_access_tile %yv[%row, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %twice, %u : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  func.return
}
