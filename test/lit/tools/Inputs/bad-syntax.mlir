func.func @f(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8] strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}
