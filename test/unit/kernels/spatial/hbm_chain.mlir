// Loads of what the kernel stored: the load engine runs ahead of the store
// engine, so spatial-tile orders each such (store, load) pair with a semaphore.
// A running sum through HBM: row i of y is row i-1 of y (stored by the
// previous iteration) plus row i of x; then the whole of y is read back
// (after the loop's stores) and doubled into z.
module {
  func.func @running_sum(%x: index, %y: index, %z: index) attributes {grid = [1]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %xv = ktdp.construct_memory_view %x, sizes: [8, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
    %yv = ktdp.construct_memory_view %y, sizes: [8, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
    %zv = ktdp.construct_memory_view %z, sizes: [8, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
    scf.for %i = %c1 to %c8 step %c1 {
      %p = arith.subi %i, %c1 : index
      %pt = ktdp.construct_access_tile %yv[%p, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<1x4xindex>
      %xt = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<1x4xindex>
      %prev = ktdp.load %pt : !ktdp.access_tile<1x4xindex> -> tensor<1x4xf32>
      %cur = ktdp.load %xt : !ktdp.access_tile<1x4xindex> -> tensor<1x4xf32>
      %s = arith.addf %prev, %cur : tensor<1x4xf32>
      %yt = ktdp.construct_access_tile %yv[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<1x4xindex>
      ktdp.store %s, %yt : tensor<1x4xf32>, !ktdp.access_tile<1x4xindex>
    }
    %all = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<8x4xindex>
    %ys = ktdp.load %all : !ktdp.access_tile<8x4xindex> -> tensor<8x4xf32>
    %d = arith.addf %ys, %ys : tensor<8x4xf32>
    %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<8x4xindex>
    ktdp.store %d, %zt : tensor<8x4xf32>, !ktdp.access_tile<8x4xindex>
    return
  }
}
