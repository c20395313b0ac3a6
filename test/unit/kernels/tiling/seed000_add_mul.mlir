// Seed 000's canonical example: y = a + b; z = y * c over [1024, 4096] f16 in
// the stick layout ([M, N] -> [N/64, M, 64]), 32 cores each taking 32 rows.
// After physicalization the group's iteration space is [64, 32, 64] per core
// (column sticks, rows, lanes); the hint asks for 2 slices of the rows
// (outer) and 4 of the column sticks (inner): tiles of [16, 16, 64] per core,
// [16, 512, 64] over the 32 cores, as the seed's SDSC device_size.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1023 >= 0, d1 >= 0, -d1 + 4095 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 4095 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_mul(%a: index, %b: index, %c: index, %z: index) attributes {grid = [32, 1], spyre.slices = [[2, [1]], [4, [0]]]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %core = ktdp.get_compute_tile_id : index
  %row = arith.muli %core, %c32 : index
  %av = ktdp.construct_memory_view %a, sizes: [1024, 4096], strides: [4096, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1024x4096xf16>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1024x4096xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [1024, 4096], strides: [4096, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1024x4096xf16>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1024x4096xf16>
  %cv = ktdp.construct_memory_view %c, sizes: [1024, 4096], strides: [4096, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1024x4096xf16>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1024x4096xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [1024, 4096], strides: [4096, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1024x4096xf16>
  spyre.tensor_layout %zv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1024x4096xf16>
  %at = ktdp.construct_access_tile %av[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<1024x4096xf16> -> !ktdp.access_tile<32x4096xindex>
  %bt = ktdp.construct_access_tile %bv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<1024x4096xf16> -> !ktdp.access_tile<32x4096xindex>
  %ct = ktdp.construct_access_tile %cv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<1024x4096xf16> -> !ktdp.access_tile<32x4096xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<1024x4096xf16> -> !ktdp.access_tile<32x4096xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<32x4096xindex> -> tensor<32x4096xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<32x4096xindex> -> tensor<32x4096xf16>
  %y = arith.addf %ad, %bd : tensor<32x4096xf16>
  %cd = ktdp.load %ct : !ktdp.access_tile<32x4096xindex> -> tensor<32x4096xf16>
  %zz = arith.mulf %y, %cd : tensor<32x4096xf16>
  ktdp.store %zz, %zt : tensor<32x4096xf16>, !ktdp.access_tile<32x4096xindex>
  return
}
