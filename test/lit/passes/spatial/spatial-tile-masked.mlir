// RUN: %spyre-opt --mlir-print-local-scope %s -p spatial-tile | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s -p spatial-tile | %spyre-opt --mlir-print-local-scope | %FileCheck %s

// A tail tile: 8-row tiles of a 13-row view, one per block. Block 1's tile
// covers rows [8, 16): its load and store stages are masked (elements outside
// the tensor load 0 and are not stored); block 0's stay inside and are not.

// CHECK:     spatial.stage @b0_ld0 load @x -> @b0_in0 on @b0 engine "load" origin affine_map<() -> (0, 0)>{{$}}
// CHECK:     spatial.stage @b0_st0 store @b0_out0 -> @out on @b0 engine "store" origin affine_map<() -> (0, 0)>{{$}}
// CHECK:     spatial.stage @b1_ld0 load @x -> @b1_in0 on @b1 engine "load" origin affine_map<() -> (8, 0)> attributes {masked}
// CHECK:     spatial.stage @b1_st0 store @b1_out0 -> @out on @b1 engine "store" origin affine_map<() -> (8, 0)> attributes {masked}
func.func @tail(%x: index, %out: index) attributes {grid = [2]} {
  %pid = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [13, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 12 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<13x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [13, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 12 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<13x64xf32>
  %r = arith.muli %pid, %c8 : index
  %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<13x64xf32> -> !ktdp.access_tile<8x64xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %e = math.exp %xd : tensor<8x64xf32>
  %ot = ktdp.construct_access_tile %ov[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<13x64xf32> -> !ktdp.access_tile<8x64xindex>
  ktdp.store %e, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
