// z = exp(a) * b over [512, 1024] f16 in torch-spyre's default device layout, 8 cores of 64 rows,
// the column sticks tiled in 2 by a hint (spyre-coarse-tile): the bundle keeps the tile loop as an
// scf.for around the two sdsc_executes, each core's HBM starts advanced by 8 sticks (524288 bytes)
// per iteration; exp's result stays in LX at a fixed offset (test_superdsc_bundle.py).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mul_exp(%a: index, %b: index, %z: index) attributes {grid = [8], spyre.slices = [[2, [0]]]} {
  %m = ktdp.get_compute_tile_id : index
  %col = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %m, %c64 : index
  %av = ktdp.construct_memory_view %a, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<512x1024xf16>
  %at = ktdp.construct_access_tile %av[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<64x1024xindex>
  %bt = ktdp.construct_access_tile %bv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<64x1024xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf16> -> !ktdp.access_tile<64x1024xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<64x1024xindex> -> tensor<64x1024xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<64x1024xindex> -> tensor<64x1024xf16>
  %e = math.exp %ad : tensor<64x1024xf16>
  %p = arith.mulf %e, %bd : tensor<64x1024xf16>
  ktdp.store %p, %zt : tensor<64x1024xf16>, !ktdp.access_tile<64x1024xindex>
  return
}
