// torch-spyre's `add_3d` example as KTIR: z = a + b over [4, 256, 512] f16 in their default device
// layout ([256, 512/64, 4, 64]: the markers), 32 cores split 1 x 4 x 8 (mb x x x out) as theirs;
// dims mb, x, out (test_superdsc_bundle.py). Grid order is column-major: core c = (c mod 4, c div 4).
#all = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 255 >= 0, d2 >= 0, -d2 + 511 >= 0)>
#mine = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0, d2 >= 0, -d2 + 63 >= 0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @add_3d(%a: index, %b: index, %z: index) attributes {grid = [4, 8]} {
  %x, %o = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %x, %c64 : index
  %col = arith.muli %o, %c64 : index
  %av = ktdp.construct_memory_view %a, sizes: [4, 256, 512], strides: [131072, 512, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x256x512xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 2, 0, 2>, phys_op = array<i64: 0, 1, 0, 2>, phys_arg = array<i64: 0, 64, 0, 64>} : memref<4x256x512xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [4, 256, 512], strides: [131072, 512, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x256x512xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 2, 0, 2>, phys_op = array<i64: 0, 1, 0, 2>, phys_arg = array<i64: 0, 64, 0, 64>} : memref<4x256x512xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [4, 256, 512], strides: [131072, 512, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x256x512xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 2, 0, 2>, phys_op = array<i64: 0, 1, 0, 2>, phys_arg = array<i64: 0, 64, 0, 64>} : memref<4x256x512xf16>
  %at = ktdp.construct_access_tile %av[%c0, %row, %col] {access_tile_set = #mine, access_tile_order = #id3} : memref<4x256x512xf16> -> !ktdp.access_tile<4x64x64xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %row, %col] {access_tile_set = #mine, access_tile_order = #id3} : memref<4x256x512xf16> -> !ktdp.access_tile<4x64x64xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %row, %col] {access_tile_set = #mine, access_tile_order = #id3} : memref<4x256x512xf16> -> !ktdp.access_tile<4x64x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<4x64x64xindex> -> tensor<4x64x64xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<4x64x64xindex> -> tensor<4x64x64xf16>
  %y = arith.addf %ad, %bd : tensor<4x64x64xf16>
  ktdp.store %y, %zt : tensor<4x64x64xf16>, !ktdp.access_tile<4x64x64xindex>
  return
}
