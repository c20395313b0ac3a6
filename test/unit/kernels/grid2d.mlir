// A 4x8 grid: every core writes 100 * i + j at [i, j] of a 4x8 i32 output.
func.func @tile_ids(%out: index) attributes {grid = [4, 8]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %c100 = arith.constant 100 : index
  %a = arith.muli %i, %c100 : index
  %v = arith.addi %a, %j : index
  %v32 = arith.index_cast %v : index to i32
  %t = tensor.splat %v32 : tensor<1x1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [4, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x8xi32>
  %tile = ktdp.construct_access_tile %view[%i, %j] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x8xi32> -> !ktdp.access_tile<1x1xindex>
  ktdp.store %t, %tile : tensor<1x1xi32>, !ktdp.access_tile<1x1xindex>
  return
}

// Grid order made visible: tile (0, 1) writes 42 into its own LX, then reads
// the LX of `ct_id = 1`. Row-major, core 1 *is* tile (0, 1); column-major,
// core 1 is tile (1, 0), whose LX nobody wrote.
func.func @lx_owner(%out: index) attributes {grid = [4, 8]} {
  %i, %j = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %row0 = arith.cmpi eq, %i, %c0 : index
  %col1 = arith.cmpi eq, %j, %c1 : index
  %target = arith.andi %row0, %col1 : i1
  scf.if %target {
    %c42 = arith.constant 42 : i32
    %t42 = tensor.splat %c42 : tensor<1xi32>
    %mine = ktdp.construct_memory_view %c0, sizes: [1], strides: [1] {
      coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<ct_local>} : memref<1xi32>
    %mine_tile = ktdp.construct_access_tile %mine[%c0] {
      access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xi32> -> !ktdp.access_tile<1xindex>
    ktdp.store %t42, %mine_tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
    %core1 = ktdp.construct_memory_view %c0, sizes: [1], strides: [1] {
      coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<ct_local, ct_id = 1>} : memref<1xi32>
    %core1_tile = ktdp.construct_access_tile %core1[%c0] {
      access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xi32> -> !ktdp.access_tile<1xindex>
    %v = ktdp.load %core1_tile : !ktdp.access_tile<1xindex> -> tensor<1xi32>
    %out_view = ktdp.construct_memory_view %out, sizes: [1], strides: [1] {
      coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<global>} : memref<1xi32>
    %out_tile = ktdp.construct_access_tile %out_view[%c0] {
      access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xi32> -> !ktdp.access_tile<1xindex>
    ktdp.store %v, %out_tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
  }
  return
}
