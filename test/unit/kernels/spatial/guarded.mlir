// Per-site guards (Triton's `if pid < n` masks): conditions fixed per site
// (tile coordinate, scalar) choose a branch when the spatial program is built.
// Blocks 0..n-1 double their tile, the others copy it; only block 0 writes
// the flag tile.
module {
  func.func @guarded(%x: index, %y: index, %flag: index, %n: index) attributes {grid = [4]} {
    %c = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %o = arith.muli %c, %c4 : index
    %xv = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
    %yv = ktdp.construct_memory_view %y, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
    %fv = ktdp.construct_memory_view %flag, sizes: [4], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf32>
    %t = ktdp.construct_access_tile %xv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
    %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
    %inside = arith.cmpi slt, %c, %n : index
    %r = scf.if %inside -> (tensor<4xf32>) {
      %b = arith.addf %a, %a : tensor<4xf32>
      scf.yield %b : tensor<4xf32>
    } else {
      scf.yield %a : tensor<4xf32>
    }
    %u = ktdp.construct_access_tile %yv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
    ktdp.store %r, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
    %first = arith.cmpi eq, %c, %c0 : index
    scf.if %first {
      %one = arith.constant dense<1.0> : tensor<4xf32>
      %w = ktdp.construct_access_tile %fv[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf32> -> !ktdp.access_tile<4xindex>
      ktdp.store %one, %w : tensor<4xf32>, !ktdp.access_tile<4xindex>
    }
    return
  }
}
