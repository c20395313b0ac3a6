func.func @f(%a: index) {
  // The verifier reports a different message than the one expected here.
  // expected-error @+1 {{this is not what the verifier says}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}
// -----
func.func @g() {
  // expected-warning @+1 {{never emitted}}
  return
}
// -----
func.func @h(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %v[0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<4xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf16>
  return
}
