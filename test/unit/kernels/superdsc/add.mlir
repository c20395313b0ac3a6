// torch-spyre's `add` example as KTIR: z = a + b over [512, 1024] f16, every tensor in
// torch-spyre's default device layout ([1024/64, 512, 64]: the markers), 32 cores split 2 x 16
// (rows x column sticks) as their compiler splits it. ktir-to-bundle writes a SuperDSC equal to
// ../shared/corpus/torch-spyre-bundles/add/sdsc_0.json field by field (test_superdsc_bundle.py).
// Grid order is column-major: core c = (c mod 2, c div 2) = (row slice, column slice).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: index, %b: index, %z: index) attributes {grid = [2, 16]} {
  %m, %o = ktdp.get_compute_tile_id : index, index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %row = arith.muli %m, %c256 : index
  %col = arith.muli %o, %c64 : index
  %av = ktdp.construct_memory_view %a, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %at = ktdp.construct_access_tile %av[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<256x64xindex>
  %bt = ktdp.construct_access_tile %bv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<256x64xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<256x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<256x64xindex> -> tensor<256x64xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<256x64xindex> -> tensor<256x64xf16>
  %y = arith.addf %ad, %bd : tensor<256x64xf16>
  ktdp.store %y, %zt : tensor<256x64xf16>, !ktdp.access_tile<256x64xindex>
  return
}
