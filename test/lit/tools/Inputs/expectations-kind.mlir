// The pass warns; the annotation expects an error: a near miss, reported as MLIR does.
func.func @f(%a: index) {
  // expected-error @+1 {{has no #ktdp.memory_space equivalent}}
  %u = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.spyre_memory_space<unspecified>} : memref<8xf32>
  return
}
