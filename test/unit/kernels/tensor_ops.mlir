// tensor ops on values passed in and returned (no memory involved).
func.func @shapes(%t: tensor<4x6xf32>, %off: index, %s: f32)
    -> (tensor<2x3xf32>, tensor<4x6xf32>, tensor<2x2x6xf32>, tensor<24xf32>, tensor<3x8xf32>,
        tensor<2x2xf32>, tensor<4x6xf32>, f32, tensor<6xf32>, tensor<8x6xf32>, index, tensor<3xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %slice = tensor.extract_slice %t[1, %off] [2, 3] [1, 2] : tensor<4x6xf32> to tensor<2x3xf32>
  %zeros = tensor.empty() : tensor<4x6xf32>
  %placed = tensor.insert_slice %slice into %zeros[%c2, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  %expanded = tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  %flat = tensor.collapse_shape %t [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  %shape = arith.constant dense<[3, 8]> : tensor<2xindex>
  %reshaped = tensor.reshape %t(%shape) : (tensor<4x6xf32>, tensor<2xindex>) -> tensor<3x8xf32>
  %elems = tensor.from_elements %s, %s, %s, %s : tensor<2x2xf32>
  %inserted = tensor.insert %s into %t[%c1, %c2] : tensor<4x6xf32>
  %x = tensor.extract %t[%c2, %c1] : tensor<4x6xf32>
  %row = tensor.extract_slice %t[3, 0] [1, 6] [1, 1] : tensor<4x6xf32> to tensor<6xf32>
  %both = tensor.concat dim(0) %t, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %d = tensor.dim %t, %c1 : tensor<4x6xf32>
  %splat = tensor.splat %s : tensor<3xf32>
  return %slice, %placed, %expanded, %flat, %reshaped, %elems, %inserted, %x, %row, %both, %d, %splat
      : tensor<2x3xf32>, tensor<4x6xf32>, tensor<2x2x6xf32>, tensor<24xf32>, tensor<3x8xf32>,
        tensor<2x2xf32>, tensor<4x6xf32>, f32, tensor<6xf32>, tensor<8x6xf32>, index, tensor<3xf32>
}

// The same ops with a lane axis: core c works on rows [2c, 2c + 2) of an 8x6
// input, extracting a slice at a core-dependent offset and inserting it back.
func.func @per_core(%x: index, %y: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %row = arith.muli %core, %c2 : index
  %x_view = ktdp.construct_memory_view %x, sizes: [8, 6], strides: [6, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 5 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x6xf32>
  %t = ktdp.construct_access_tile %x_view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 5 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x6xf32> -> !ktdp.access_tile<2x6xindex>
  %v = ktdp.load %t : !ktdp.access_tile<2x6xindex> -> tensor<2x6xf32>
  %off = arith.remsi %core, %c2 : index
  %piece = tensor.extract_slice %v[0, %off] [2, 3] [1, 1] : tensor<2x6xf32> to tensor<2x3xf32>
  %doubled = arith.addf %piece, %piece : tensor<2x3xf32>
  %back = tensor.insert_slice %doubled into %v[0, %off] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
  %first = tensor.extract %v[%c0, %core] : tensor<2x6xf32>
  %updated = tensor.insert %first into %back[%c1, %c0] : tensor<2x6xf32>
  %flat = tensor.collapse_shape %updated [[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  %again = tensor.expand_shape %flat [[0, 1]] output_shape [2, 6] : tensor<12xf32> into tensor<2x6xf32>
  %y_view = ktdp.construct_memory_view %y, sizes: [8, 6], strides: [6, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 5 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x6xf32>
  %o = ktdp.construct_access_tile %y_view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 5 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x6xf32> -> !ktdp.access_tile<2x6xindex>
  ktdp.store %again, %o : tensor<2x6xf32>, !ktdp.access_tile<2x6xindex>
  return
}
