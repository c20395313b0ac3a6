// torch-spyre's `add_fp32` example as KTIR: z = a + b over [512, 1024] f32 in their default device
// layout (sticks of 32 f32: [1024/32, 512, 32]), 32 cores each taking one column stick of every row
// (their 1 x 32 split) (test_superdsc_bundle.py).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 1023 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 511 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_fp32(%a: index, %b: index, %z: index) attributes {grid = [32]} {
  %o = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %col = arith.muli %o, %c32 : index
  %av = ktdp.construct_memory_view %a, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf32>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<512x1024xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf32>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<512x1024xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [512, 1024], strides: [1024, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<512x1024xf32>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<512x1024xf32>
  %at = ktdp.construct_access_tile %av[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf32> -> !ktdp.access_tile<512x32xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf32> -> !ktdp.access_tile<512x32xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<512x1024xf32> -> !ktdp.access_tile<512x32xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<512x32xindex> -> tensor<512x32xf32>
  %bd = ktdp.load %bt : !ktdp.access_tile<512x32xindex> -> tensor<512x32xf32>
  %y = arith.addf %ad, %bd : tensor<512x32xf32>
  ktdp.store %y, %zt : tensor<512x32xf32>, !ktdp.access_tile<512x32xindex>
  return
}
