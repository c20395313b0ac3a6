// RUN: %spyre-opt --mlir-print-local-scope %s -p spatial-tile | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s -p spatial-tile | %spyre-opt --mlir-print-local-scope | %FileCheck %s

// Strided and transposed views become strided tensors: the strides go into the
// tensor's type, the tiles keep the view's coordinates. @x is read every other
// element of 128-element rows; @z is a transposed store (strides [1, 32]); the
// row-major @y keeps a plain memref.

// CHECK:     spatial.tensor @x : memref<32x64xf32, strided<[128, 2]>>
// CHECK:     spatial.tensor @y : memref<32x64xf32>{{$}}
// CHECK:     spatial.tensor @z : memref<32x64xf32, strided<[1, 32]>>
// CHECK:     spatial.stage @b0_ld0 load @x -> @b0_in0 on @b0 engine "load" origin affine_map<() -> (0, 0)>{{$}}
// CHECK:     spatial.stage @b1_st0 store @b1_out0 -> @z on @b1 engine "store" origin affine_map<() -> (16, 0)>{{$}}
func.func @strided(%x: index, %y: index, %z: index) attributes {grid = [2]} {
  %pid = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 64], strides: [128, 2] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32x64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [32, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32x64xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [32, 64], strides: [1, 32] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32x64xf32>
  %r = arith.muli %pid, %c16 : index
  %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<32x64xf32> -> !ktdp.access_tile<16x64xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<32x64xf32> -> !ktdp.access_tile<16x64xindex>
  %yd = ktdp.load %yt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %s = arith.addf %xd, %yd : tensor<16x64xf32>
  %zt = ktdp.construct_access_tile %zv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<32x64xf32> -> !ktdp.access_tile<16x64xindex>
  ktdp.store %s, %zt : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  return
}
