// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

func.func @no_results() {
  // expected-error @+1 {{expects at least one result}}
  ktdp.get_compute_tile_id : 
  return
}

// -----

func.func @bad_space(%a: index) {
  // expected-error @+1 {{unknown memory space 'HBM', expected one of: global, ct_local}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<HBM>} : memref<8xf32>
  return
}

// -----

func.func @ct_id_on_global(%a: index) {
  // expected-error @+1 {{'ct_id' is only allowed on the ct_local memory space}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global, ct_id = 1>} : memref<8xf32>
  return
}

// -----

func.func @core_on_hbm(%a: index) {
  // expected-error @+1 {{'core' is only allowed on the LX and L0 memory spaces}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.spyre_memory_space<HBM, core = 1>} : memref<8xf32>
  return
}

// -----

func.func @sizes_vs_strides(%a: index) {
  // expected-error @+1 {{expected as many sizes (2) as strides (1)}}
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  return
}

// -----

func.func @size_vs_type(%a: index) {
  // expected-error @+1 {{size 16 of dim 0 disagrees with the result type's dim 8}}
  %v = ktdp.construct_memory_view %a, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}

// -----

func.func @coordinate_set_rank(%a: index) {
  // expected-error @+1 {{coordinate_set has 2 dims but the view has rank 1}}
  %v = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  return
}

// -----

func.func @distributed_element_type(%a: index) {
  %p = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  // expected-error @+1 {{partition #0 element type f32 differs from the result's}}
  %g = ktdp.construct_distributed_memory_view (%p : memref<8xf32>) : memref<8xf16>
  return
}

// -----

func.func @tile_set_rank(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{access_tile_set dimensions (1) must match base_map results (2)}}
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8x8xf32> -> !ktdp.access_tile<4xindex>
  return
}

// -----

func.func @base_map_rank(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{base_map has 1 results but the base has rank 2}}
  %t = ktdp.construct_access_tile %v[%i] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8x8xf32> -> !ktdp.access_tile<4xindex>
  return
}

// -----

func.func @tile_shape_vs_set(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{result shape 2x4 does not match the access_tile_set box 4x2 under access_tile_order}}
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  return
}

// -----

func.func @order_not_permutation(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{access_tile_order must be a permutation of its dims}}
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d0)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  return
}

// -----

func.func @symbol_count(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{access_tile_set has 1 symbols but got 0 symbol operands}}
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<?x4xindex>
  return
}

// -----

func.func @tile_element_type() {
  // expected-error @+1 {{access tile element type must be 'index', got i32}}
  %t = "test.op"() : () -> !ktdp.access_tile<4xi32>
  return
}

// -----

func.func @load_shape(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  // expected-error @+1 {{result shape 4x2 must match the access tile shape 2x4}}
  %d = ktdp.load %t : !ktdp.access_tile<2x4xindex> -> tensor<4x2xf32>
  return
}

// -----

func.func @load_element_type(%a: index, %i: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-note @+1 {{access tile on a view of f32 built here}}
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  // expected-error @+1 {{result element type f16 must match the element type f32 of the view the access tile reads}}
  %d = ktdp.load %t : !ktdp.access_tile<2x4xindex> -> tensor<2x4xf16>
  return
}

// -----

func.func @store_shape(%a: index, %i: index, %d: tensor<8xf32>) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  %t = ktdp.construct_access_tile %v[%i, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<2x4xindex>
  // expected-error @+1 {{data tile shape 8 must match the access tile shape 2x4}}
  ktdp.store %d, %t : tensor<8xf32>, !ktdp.access_tile<2x4xindex>
  return
}

// -----

func.func @indirect_index_type(%pb: index, %tb: index) {
  %pages = ktdp.construct_memory_view %pb, sizes: [16, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16x4xf16>
  %tbl = ktdp.construct_memory_view %tb, sizes: [2], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2xf32>
  // expected-error @+1 {{index view for dimension 0 must have an integer element type, got f32}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%i, %j) %pages[ind(%tbl[%i]), (%j)] {
       variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
       variables_space_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<16x4xf16>, memref<2xf32> -> !ktdp.access_tile<2x4xindex>
  return
}

// -----

func.func @indirect_subscript_count(%pb: index) {
  %pages = ktdp.construct_memory_view %pb, sizes: [16, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16x4xf16>
  // expected-error @+1 {{number of subscripts (1) must match base rank (2)}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%i) %pages[(%i)] {
       variables_space_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>,
       variables_space_order = affine_map<(d0) -> (d0)>} : memref<16x4xf16> -> !ktdp.access_tile<2xindex>
  return
}

// -----

func.func @indirect_type_count(%pb: index, %tb: index) {
  %pages = ktdp.construct_memory_view %pb, sizes: [16, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16x4xf16>
  %tbl = ktdp.construct_memory_view %tb, sizes: [2], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2xi32>
  // expected-error @+4 {{expected 2 types (base + 1 indirect memrefs), but got 1}}
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%i, %j) %pages[ind(%tbl[%i]), (%j)] {
       variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
       variables_space_order = affine_map<(d0, d1) -> (d0, d1)>}
       : memref<16x4xf16> -> !ktdp.access_tile<2x4xindex>
  return
}

// -----

// expected-error @+1 {{duplicate runtime_arg parameter 'granularity'}}
func.func @runtime_arg_dup(%M: !ktdp.runtime_arg<index, granularity=2, granularity=4>) {
  return
}

// -----

// expected-error @+1 {{runtime_arg granularity must be positive, got 0}}
func.func @runtime_arg_zero(%M: !ktdp.runtime_arg<index, granularity=0>) {
  return
}

// -----

func.func @extract_missing(%M: !ktdp.runtime_arg<index>) {
  // expected-error @+1 {{runtime_arg type has no 'upperbound' parameter to extract}}
  %u = ktdp.runtime_arg_extract upperbound from %M : !ktdp.runtime_arg<index> -> index
  return
}

// -----

func.func @extract_value_type(%M: !ktdp.runtime_arg<index>) {
  // expected-error @+1 {{result type i32 must equal the runtime_arg's underlying type index}}
  %u = ktdp.runtime_arg_extract value from %M : !ktdp.runtime_arg<index> -> i32
  return
}

// -----

func.func @extract_kind(%M: !ktdp.runtime_arg<index>) {
  // expected-error @+1 {{unknown extraction kind 'size', expected one of: value, granularity, upperbound}}
  %u = ktdp.runtime_arg_extract size from %M : !ktdp.runtime_arg<index> -> index
  return
}

// -----

func.func @unbounded_set(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // expected-error @+1 {{access_tile_set must bound every dim}}
  %t = ktdp.construct_access_tile %v[0, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<4x4xindex>
  return
}

// -----

func.func @triangle_box(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [8, 8], strides: [8, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x8xf32>
  // A triangle 0 <= d1 <= d0 <= 3 lives in a 4x4 bounding box.
  // expected-error @+1 {{result shape 4x3 does not match the access_tile_set box 4x4 under access_tile_order}}
  %t = ktdp.construct_access_tile %v[0, 0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, d0 - d1 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x8xf32> -> !ktdp.access_tile<4x3xindex>
  return
}

// -----

// A constant beyond 64 bits in a tile set is refused as MLIR refuses it in
// any affine set (the verifier crashed evaluating it over int64 coordinates).
func.func @tile_set_constant_too_large(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [4, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %t = ktdp.construct_access_tile %v[0, 0] {
    // expected-error @+1 {{constant too large for index}}
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 18446744073709551616 >= 0, d0 - d1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<4x4xindex>
  return
}

// -----

// Constants near 2^63 are 64-bit and the tile set's box is computed exactly
// (no overflow): this set is the 4x4 box at rows 2^63 - 4 .. 2^63 - 1.
func.func @tile_set_near_int64_max(%a: index) {
  %v = ktdp.construct_memory_view %a, sizes: [4, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  // expected-error @+1 {{result shape 4x3 does not match the access_tile_set box 4x4 under access_tile_order}}
  %t = ktdp.construct_access_tile %v[0, 0] {access_tile_set = affine_set<(d0, d1) : (d0 - 9223372036854775804 >= 0, -d0 + 9223372036854775807 >= 0, d1 >= 0, -d1 + 3 >= 0, d0 * 3 - d1 * 9223372036854775807 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<4x3xindex>
  return
}
