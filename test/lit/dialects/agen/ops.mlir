// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op and attribute of dataflow-scheduler's Agen.td, in its assembly formats
// (yield, vector_load, vector_store) and Agen.cpp's custom ones (the others).
// vector_load's and vector_store's first forms are the .td's description examples.

#set8 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 == 0)>
#t = affine_set<(t0) : (t0 >= 0, -t0 + 2 >= 0)>
// CHECK-LABEL: func.func @ops
func.func @ops(%l1_view: memref<8x16xi8>, %dst: memref<8x16xi8>, %data: vector<8xi8>, %i: index, %j: index, %mc: index, %idx: memref<16xindex>) {
  // CHECK: %{{[a-z0-9_]+}} = agen.vector_load %{{[a-z0-9_]+}}[0, 0] {load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}} : memref<8x16xi8>, vector<8xi8>
  %v = agen.vector_load %l1_view[0, 0]
    {load_order = affine_map<(d0, d1) -> (d1, d0)>,
     load_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 == 0)>}
    : memref<8x16xi8>, vector<8xi8>
  // CHECK: %{{[a-z0-9_]+}} = agen.vector_load %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}} + 1, symbol(%{{[a-z0-9_]+}}) * 2] multicast_info = %{{[a-z0-9_]+}} {dbgName = "ld", load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}} : memref<8x16xi8>, vector<8xi8>
  %v2 = agen.vector_load %l1_view[%i + 1, symbol(%j) * 2] multicast_info = %mc {dbgName = "ld", load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8} : memref<8x16xi8>, vector<8xi8>
  // CHECK: agen.vector_store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[0, 0] {store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}} : memref<8x16xi8>, vector<8xi8>
  agen.vector_store %data, %l1_view[0, 0]
    {store_order = affine_map<(d0, d1) -> (d1, d0)>,
     store_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 == 0)>}
    : memref<8x16xi8>, vector<8xi8>
  // CHECK: agen.composite_load_and_store src:%{{[a-z0-9_]+}}[0, 0] dst:%{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}, 0] time_symbols(%{{[a-z0-9_]+}}), load_iv(%{{[a-z0-9_]+}}:vector<8xi8>), multicast_info = %{{[a-z0-9_]+}} {dir = #agen.direction<Clockwise>, load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}, load_time_addr_map = #{{map[0-9]*}}, store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}, store_time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
  agen.composite_load_and_store src:%l1_view[0, 0] dst:%dst[%i, 0] time_symbols(%j), load_iv(%load:vector<8xi8>), multicast_info = %mc {dir = #agen.direction<Clockwise>, load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8, load_time_addr_map = affine_map<(t0) -> (0, t0)>, store_order = affine_map<(d0, d1) -> (d1, d0)>, store_set = #set8, store_time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    // CHECK: agen.yield %{{[a-z0-9_]+}} : vector<8xi8>
    agen.yield %load : vector<8xi8>
  } : memref<8x16xi8>, memref<8x16xi8>
  // CHECK: agen.composite_load %{{[a-z0-9_]+}}[0, 0] time_symbols()(%{{[a-z0-9_]+}}:vector<8xi8>) {load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}, time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
  agen.composite_load %l1_view[0, 0] time_symbols()(%ld:vector<8xi8>) {load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8, time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    // CHECK: agen.yield
    agen.yield
  } : memref<8x16xi8>
  // CHECK: agen.composite_store %{{[a-z0-9_]+}}[0, 0] time_symbols() {store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}, time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
  agen.composite_store %dst[0, 0] time_symbols() {store_order = affine_map<(d0, d1) -> (d1, d0)>, store_set = #set8, time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    // CHECK: agen.yield
    agen.yield
  } : memref<8x16xi8>
  // CHECK: agen.composite_store %{{[a-z0-9_]+}}[0, 0] input_vector=%{{[a-z0-9_]+}} time_symbols(%{{[a-z0-9_]+}}) {time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} : memref<8x16xi8> , vector<8xi8>
  agen.composite_store %dst[0, 0] input_vector=%data time_symbols(%i) {time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} : memref<8x16xi8> , vector<8xi8>
  // CHECK: agen.composite_indirect_load_and_store indirect_src:%{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}] direct_src:%{{[a-z0-9_]+}}[0, 0] direct_dst:%{{[a-z0-9_]+}}[0, 0] multicast_info = %{{[a-z0-9_]+}} time_symbols(), load_iv(%{{[a-z0-9_]+}}:vector<8xi8>) {load_direct_time_addr_map = #{{map[0-9]*}}, load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}, store_direct_time_addr_map = #{{map[0-9]*}}, store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
  agen.composite_indirect_load_and_store indirect_src:%idx[%i] direct_src:%l1_view[0, 0] direct_dst:%dst[0, 0] multicast_info = %mc time_symbols(), load_iv(%x:vector<8xi8>) {load_direct_time_addr_map = affine_map<(t0) -> (0, t0)>, load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8, store_direct_time_addr_map = affine_map<(t0) -> (0, t0)>, store_order = affine_map<(d0, d1) -> (d1, d0)>, store_set = #set8, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    // CHECK: agen.yield
    agen.yield
  } : memref<16xindex>, memref<8x16xi8>, memref<8x16xi8>
  // CHECK: agen.composite_indirect_load indirect:%{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}] direct:%{{[a-z0-9_]+}}[0, 0] time_symbols(), load_iv(%{{[a-z0-9_]+}}:vector<8xi8>) {load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}, time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
  agen.composite_indirect_load indirect:%idx[%i] direct:%l1_view[0, 0] time_symbols(), load_iv(%y:vector<8xi8>) {load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8, time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    // CHECK: agen.yield
    agen.yield
  } : memref<16xindex>, memref<8x16xi8>
  // CHECK: agen.composite_indirect_store indirect:%{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}] direct:%{{[a-z0-9_]+}}[0, 0] multicast_info = %{{[a-z0-9_]+}} time_symbols(%{{[a-z0-9_]+}}) {store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}, time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
  agen.composite_indirect_store indirect:%idx[%i] direct:%dst[0, 0] multicast_info = %mc time_symbols(%j) {store_order = affine_map<(d0, d1) -> (d1, d0)>, store_set = #set8, time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
    // CHECK: agen.yield
    agen.yield
  } : memref<16xindex>, memref<8x16xi8>
  // CHECK: %{{[a-z0-9_]+}} = agen.indirect_vector_load indirect:%{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}] direct:%{{[a-z0-9_]+}}[0, 0] {load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}} : memref<16xindex>, memref<8x16xi8>, vector<8xi8>
  %iv = agen.indirect_vector_load indirect:%idx[%i] direct:%l1_view[0, 0] {load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8} : memref<16xindex>, memref<8x16xi8>, vector<8xi8>
  // CHECK: agen.indirect_vector_store %{{[a-z0-9_]+}} indirect:%{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}] direct:%{{[a-z0-9_]+}}[0, 0] multicast_info = %{{[a-z0-9_]+}} {store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}} : vector<8xi8>, memref<16xindex>, memref<8x16xi8>
  agen.indirect_vector_store %data indirect:%idx[%i] direct:%dst[0, 0] multicast_info = %mc {store_order = affine_map<(d0, d1) -> (d1, d0)>, store_set = #set8} : vector<8xi8>, memref<16xindex>, memref<8x16xi8>
  // CHECK: agen.composite_memory_interleave {granularity = 64 : i32} {
  agen.composite_memory_interleave {granularity = 64 : i32} {
    // CHECK: agen.composite_load %{{[a-z0-9_]+}}[0, 0] time_symbols()(%{{[a-z0-9_]+}}:vector<8xi8>) {load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}, time_addr_map = #{{map[0-9]*}}, time_order = #{{map[0-9]*}}, time_set = #{{set[0-9]*}}} {
    agen.composite_load %l1_view[0, 0] time_symbols()(%a:vector<8xi8>) {load_order = affine_map<(d0, d1) -> (d1, d0)>, load_set = #set8, time_addr_map = affine_map<(t0) -> (0, t0)>, time_order = affine_map<(t0) -> (t0)>, time_set = #t} {
      // CHECK: agen.yield
      agen.yield
    } : memref<8x16xi8>
  }
  // CHECK: agen.composite_memory_interleave {} {
  agen.composite_memory_interleave {} {
  }
  // CHECK: %{{[a-z0-9_]+}} = agen.set_transfer_mask_state mask_value(%{{[a-z0-9_]+}}) { num_slices = 8 : i32, slice_mask_map = "(A)(A)(A)(A)(A)(A|B)(1)(1)", maskA = "(unmasked = 6, masked = 2)", maskB = "(unmasked = 1, masked = 1)" } :  index , vector<64xf16>
  %mask = agen.set_transfer_mask_state mask_value(%i) { num_slices = 8 : i32, slice_mask_map = "(A)(A)(A)(A)(A)(A|B)(1)(1)", maskA = "(unmasked = 6 : i32, masked = 2 : i32)", maskB = "(unmasked = 1 : i32, masked = 1 : i32)" } : index, vector<64xf16>
  // CHECK: %{{[a-z0-9_]+}} = agen.set_transfer_mask_state mask_value(%{{[a-z0-9_]+}}) { num_slices = 8 : i32, slice_mask_map = "(0)(0)(0)(0)(0)(0)(0)(0)", dbgName = "reset" } :  index , vector<64xf16>
  %mask2 = agen.set_transfer_mask_state mask_value(%i) {num_slices = 8 : i32, slice_mask_map = "(0)(0)(0)(0)(0)(0)(0)(0)", dbgName = "reset"} : index, vector<64xf16>
  return
}
// CHECK-LABEL: func.func @symbolic
func.func @symbolic(%u: index, %s: index, %mc: index, %d: vector<128xi8>) {
  // CHECK: %{{[a-z0-9_]+}} = dataflow.get_logical_memory_view %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {layout_map = #{{map[0-9]*}}} : index, index, memref<128xi8>
  %m = dataflow.get_logical_memory_view %u, %s {layout_map = affine_map<(d0) -> (d0)>} : index, index, memref<128xi8>
  // CHECK: %{{[a-z0-9_]+}} = agen.symbolic_vector_load %{{[a-z0-9_]+}}[indices:(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}), strides:(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})], multicast_info(%{{[a-z0-9_]+}}) {load_order = #{{map[0-9]*}}, load_set = #{{set[0-9]*}}} : memref<128xi8>, vector<128xi8>
  %0 = agen.symbolic_vector_load %m[indices:(%u, %s), strides:(%s, %u)], multicast_info(%mc) {load_order = affine_map<(d0) -> (d0)>, load_set = affine_set<(d0) : (d0 >= 0)>} : memref<128xi8>, vector<128xi8>
  // CHECK: agen.symbolic_vector_store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[indices:(%{{[a-z0-9_]+}}), strides:(%{{[a-z0-9_]+}})] {store_order = #{{map[0-9]*}}, store_set = #{{set[0-9]*}}} : memref<128xi8>, vector<128xi8>
  agen.symbolic_vector_store %d, %m[indices:(%u), strides:(%s)] {store_order = affine_map<(d0) -> (d0)>, store_set = affine_set<(d0) : (d0 >= 0)>} : memref<128xi8>, vector<128xi8>
  return
}

