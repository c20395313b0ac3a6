// torch-spyre's `fma` example as KTIR: z = a * b + c over [512, 1024] f16 in their default device
// layout, 8 cores each taking two column sticks of every row (their 1 x 8 split): mul writes its
// product to LX, add reads it there and writes HBM (test_superdsc_bundle.py).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @fma(%a: index, %b: index, %c: index, %z: index) attributes {grid = [8]} {
  %o = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %col = arith.muli %o, %c128 : index
  %av = ktdp.construct_memory_view %a, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %cv = ktdp.construct_memory_view %c, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %at = ktdp.construct_access_tile %av[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<512x128xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<512x128xindex>
  %ct = ktdp.construct_access_tile %cv[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<512x128xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<512x128xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<512x128xindex> -> tensor<512x128xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<512x128xindex> -> tensor<512x128xf16>
  %p = arith.mulf %ad, %bd : tensor<512x128xf16>
  %cd = ktdp.load %ct : !ktdp.access_tile<512x128xindex> -> tensor<512x128xf16>
  %s = arith.addf %p, %cd : tensor<512x128xf16>
  ktdp.store %s, %zt : tensor<512x128xf16>, !ktdp.access_tile<512x128xindex>
  return
}
