// RUN: %spyre-opt %s --split-input-file --verify-diagnostics -p spatial-tile

// A view whose strides place two elements at one address: a store through it
// would depend on the order of its writes. Refused at the view.
func.func @overlap(%x: index, %z: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  // expected-error@+1 {{spatial-tile: this memory view is not one address per element: its strides [4, 1] place two of its elements (sizes [4, 8]) at one address}}
  %zv = ktdp.construct_memory_view %z, sizes: [4, 8], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x8xf32> -> !ktdp.access_tile<4x8xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
  %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x8xf32> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %xd, %zt : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
  return
}

// -----

// The spatial.tensor verifier: a strided tensor's strides place every element
// at its own address.
spatial.program @p attributes {spatial.phase = "tiled"} {
  // expected-error@+1 {{tensor @z: its strides [4, 1] place two of its elements (sizes [4, 8]) at one address}}
  spatial.tensor @z : memref<4x8xf32, strided<[4, 1]>>
}

// -----

spatial.program @p attributes {spatial.phase = "tiled"} {
  // expected-error@+1 {{tensor @z: a strided tensor starts at its argument's first element (offset 0)}}
  spatial.tensor @z : memref<4x8xf32, strided<[1, 4], offset: 2>>
}
