// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of agen: Agen.cpp's verifiers and the checks its
// parsers make (verifier rules here, so that the generic form is checked too),
// with its messages; and the restrictions composite_memory_interleave's
// description states.

#s2 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 == 0)>
#o2 = affine_map<(d0, d1) -> (d1, d0)>
func.func @map_operands(%m: memref<8x16xi8>, %i: index) {
  // expected-error @+1 {{expected 2 map operands, but got 1}}
  %v = "agen.vector_load"(%m, %i) <{affine_map = affine_map<(d0, d1) -> (d0, d1)>, load_order = #o2, load_set = #s2, operandSegmentSizes = array<i32: 1, 1, 0>}> : (memref<8x16xi8>, index) -> vector<8xi8>
  return
}

// -----

#s1 = affine_set<(d0) : (d0 >= 0)>
#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>
func.func @load_set_span(%m: memref<8x16xi8>) {
  // expected-error @+1 {{load set and src array dimensions should match}}
  agen.composite_load_and_store src:%m[0, 0] dst:%m[0, 0] time_symbols(), load_iv(%v:vector<8xi8>) {load_order = affine_map<(d0) -> (d0)>, load_set = #s1, load_time_addr_map = affine_map<(t0) -> (0, t0)>, store_order = affine_map<(d0, d1) -> (d1, d0)>, store_set = affine_set<(d0, d1) : (d0 >= 0, d1 == 0)>, store_time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    agen.yield
  } : memref<8x16xi8>, memref<8x16xi8>
  return
}

// -----

#s2 = affine_set<(d0, d1) : (d0 >= 0, d1 == 0)>
#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>
func.func @store_order_dims(%m: memref<8x16xi8>) {
  // expected-error @+1 {{store set and order dimensions should match}}
  agen.composite_load_and_store src:%m[0, 0] dst:%m[0, 0] time_symbols(), load_iv(%v:vector<8xi8>) {load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #s2, load_time_addr_map = affine_map<(t0) -> (0, t0)>, store_order = affine_map<(d0) -> (d0)>, store_set = #s2, store_time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    agen.yield
  } : memref<8x16xi8>, memref<8x16xi8>
  return
}

// -----

#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>
func.func @composite_load_order(%m: memref<8x16xi8>) {
  // expected-error @+1 {{load set and order dimensions should match}}
  agen.composite_load %m[0, 0] time_symbols()(%v:vector<8xi8>) {load_order = affine_map<(d0) -> (d0)>, load_set = affine_set<(d0, d1) : (d0 >= 0, d1 == 0)>, time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    agen.yield
  } : memref<8x16xi8>
  return
}

// -----

#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>
func.func @composite_store_neither(%m: memref<8x16xi8>) {
  // expected-error @+1 {{either store_set/order or input vector has to be present in composite store}}
  agen.composite_store %m[0, 0] time_symbols() {time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    agen.yield
  } : memref<8x16xi8>
  return
}

// -----

#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>
func.func @composite_store_both(%m: memref<8x16xi8>, %d: vector<8xi8>) {
  // expected-error @+1 {{for composite_store, input_vector and region can't co-exist}}
  agen.composite_store %m[0, 0] input_vector=%d time_symbols() {time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    agen.yield
  } : memref<8x16xi8> , vector<8xi8>
  return
}

// -----

func.func @indirect_span(%idx: memref<16xindex>, %m: memref<8x16xi8>, %i: index) {
  // expected-error @+1 {{load set and direct array dimensions should match}}
  %v = agen.indirect_vector_load indirect:%idx[%i] direct:%m[0, 0] {load_order = affine_map<(d0) -> (d0)>, load_set = affine_set<(d0) : (d0 >= 0)>} : memref<16xindex>, memref<8x16xi8>, vector<8xi8>
  return
}

// -----

func.func @unmasked_only(%c: index) {
  // expected-error @+1 {{cannot have unmasked values if there are no masked values}}
  %m = "agen.set_transfer_mask_state"(%c) <{num_slices = 8 : i32, slice_mask_map = "(A)", num_unmasked_elements = [1 : i32]}> : (index) -> vector<64xf16>
  return
}

// -----

func.func @mask_counts(%c: index) {
  // expected-error @+1 {{number of unmasked values and number of masked values must match}}
  %m = "agen.set_transfer_mask_state"(%c) <{num_slices = 8 : i32, slice_mask_map = "(A)", num_unmasked_elements = [1 : i32], num_masked_elements = [1 : i32, 2 : i32]}> : (index) -> vector<64xf16>
  return
}

// -----

func.func @mask_pattern(%c: index) {
  // expected-error @+1 {{cannot determine where unmasked/masked values are}}
  %m = agen.set_transfer_mask_state mask_value(%c) { num_slices = 8 : i32, slice_mask_map = "(A)", maskA = "6 of 8" } : index, vector<64xf16>
  return
}

// -----

func.func @mask_labels(%c: index) {
  // expected-error @+1 {{masks are labeled A, B, ... in order: expected maskA}}
  %m = agen.set_transfer_mask_state mask_value(%c) { num_slices = 8 : i32, slice_mask_map = "(B)", maskB = "(unmasked = 1, masked = 1)" } : index, vector<64xf16>
  return
}

// -----

func.func @symbolic_not_a_view(%m: memref<128xi8>, %i: index) {
  // expected-error @+1 {{memref should be a dataflow.get_logical_memory_view}}
  %v = agen.symbolic_vector_load %m[indices:(%i), strides:(%i)] {load_order = affine_map<(d0) -> (d0)>, load_set = affine_set<(d0) : (d0 >= 0)>} : memref<128xi8>, vector<128xi8>
  return
}

// -----

func.func @symbolic_layout(%u: index) {
  %m = dataflow.get_logical_memory_view %u, %u {layout_map = affine_map<(d0) -> (d0 * 2)>} : index, index, memref<128xi8>
  // expected-error @+1 {{memref layout map should be an identity map}}
  %v = agen.symbolic_vector_load %m[indices:(%u), strides:(%u)] {load_order = affine_map<(d0) -> (d0)>, load_set = affine_set<(d0) : (d0 >= 0)>} : memref<128xi8>, vector<128xi8>
  return
}

// -----

func.func @symbolic_element(%u: index) {
  %m = dataflow.get_logical_memory_view %u, %u {layout_map = affine_map<(d0) -> (d0)>} : index, index, memref<128xi8>
  // expected-error @+1 {{result type does not match memref element type}}
  %v = agen.symbolic_vector_load %m[indices:(%u), strides:(%u)] {load_order = affine_map<(d0) -> (d0)>, load_set = affine_set<(d0) : (d0 >= 0)>} : memref<128xi8>, vector<128xf16>
  return
}

// -----

func.func @symbolic_strides(%u: index, %d: vector<128xi8>) {
  %m = dataflow.get_logical_memory_view %u, %u {layout_map = affine_map<(d0) -> (d0)>} : index, index, memref<128xi8>
  // expected-error @+1 {{strides should be the same size as indices}}
  agen.symbolic_vector_store %d, %m[indices:(%u, %u), strides:(%u)] {store_order = affine_map<(d0) -> (d0)>, store_set = affine_set<(d0) : (d0 >= 0)>} : memref<128xi8>, vector<128xi8>
  return
}

// -----

func.func @interleave_other_ops() {
  // expected-error @+1 {{only composite memory operations are allowed in the region, found 'arith.constant'}}
  agen.composite_memory_interleave {granularity = 64 : i32} {
    %c = arith.constant 0 : index
  }
  return
}

// -----

func.func @direction(%m: memref<8x16xi8>) {
  // expected-error @+1 {{Expected `PseudoRandom`, `CounterClockwise`, `Clockwise`, or `BothWays`.}}
  %v = agen.vector_load %m[0, 0] {dir = #agen.direction<Left>} : memref<8x16xi8>, vector<8xi8>
  return
}
