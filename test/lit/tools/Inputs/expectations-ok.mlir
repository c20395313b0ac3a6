// Every form of annotation, met: `spyre-opt --split-input-file --verify-diagnostics` exits 0.
func.func @plain(%a: index) {
  // expected-error @+1 {{coordinate_set has 2 dims but the view has rank 1}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}
// -----
func.func @regex(%a: index) {
  // expected-error-re @+1 {{coordinate_set has {{[0-9]+}} dims but the view has rank {{[[:digit:]]}}}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}
// -----
func.func @below(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  // @below: the next line that is not an annotation.
  // expected-note @below {{access tile on a view of f32 built here}}
  // expected-error @+2 {{result element type f16 must match the element type f32}}
  %t = ktdp.construct_access_tile %v[0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<4xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf16>
  return
}
// -----
func.func @above(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  // expected-error@above {{coordinate_set has 2 dims}}
  return
}
// -----
func.func @same_line(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32> // expected-error {{has 2 dims}}
  return
}
// -----
// Text in a string literal is data, not an annotation (unmet, it would fail the run).
func.func @strings() attributes {doc = "// expected-error {{not an annotation}}", more = "expected-error {{nor this}}"} {
  return
}
// -----
// -----
// A parse error is a diagnostic like any other; the other chunks still run.
func.func @syntax(%a: index) {
  // expected-error @+1 {{Expected ','}}
  %v = ktdp.construct_memory_view %a, sizes: [8] strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}
