// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of the dataflow dialect, then its constraints
// and syntax. Messages are upstream's (DataflowOps.cpp, DataflowTypes.cpp of
// dataflow-scheduler-mlir-dialects; ODS wording for constraints), after
// MLIR's `'op' op` prefix; get_unit's is ours (upstream fails silently).

// -----
// get_unit: at least one result.
func.func @no_unit() {
  // expected-error @+1 {{'dataflow.get_unit' op expects at least one result (the unit handle)}}
  dataflow.get_unit {name = "L1-LU", type = "L1LU"} :
  return
}

// -----
// get_paged_logical_memory_view: one start address per idx_set ...
func.func @pages(%u: index, %s: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'dataflow.get_paged_logical_memory_view' op there should be a start address and idx_set for every page}}
  %v = "dataflow.get_paged_logical_memory_view"(%u, %s, %c0) <{idx_sets = [], layout_map = affine_map<(d0) -> (d0)>}> : (index, index, index) -> memref<64xf16>
  return
}

// -----
// ... each an arith.constant ...
func.func @page_address(%u: index, %s: index, %p: index) {
  // expected-error @+1 {{'dataflow.get_paged_logical_memory_view' op page start addresses should be arith::ConstantOp}}
  %v = dataflow.get_paged_logical_memory_view %u, %s {layout_map = affine_map<(d0) -> (d0)>}
    {segments =
      page0: (idx_set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>, start_addr = %p)} : index, index, memref<64xf16>
  return
}

// -----
// ... the pages integer sets ...
func.func @page_set(%u: index, %s: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'dataflow.get_paged_logical_memory_view' op idx_sets should be IntegerSetAttrs}}
  %v = dataflow.get_paged_logical_memory_view %u, %s {layout_map = affine_map<(d0) -> (d0)>}
    {segments =
      page0: (idx_set = affine_map<(d0) -> (d0)>, start_addr = %c0)} : index, index, memref<64xf16>
  return
}

// -----
// ... that are boxes: each constraint bounds one dim.
func.func @page_not_box(%u: index, %s: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'dataflow.get_paged_logical_memory_view' op idx_set should be hyper rectangular}}
  %v = dataflow.get_paged_logical_memory_view %u, %s {layout_map = affine_map<(d0, d1) -> (d0 * 4 + d1)>}
    {segments =
      page0: (idx_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, -d0 - d1 + 63 >= 0)>, start_addr = %c0)} : index, index, memref<64x4xf16>
  return
}

// -----
// Constraints: the multicast group's fields are I32Attr ...
func.func @multicast_i64(%p: index) {
  // expected-error @+1 {{'dataflow.create_multicast_group' op attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute}}
  %g = dataflow.create_multicast_group(%p -> ()) {count = 0 : i64, group_id = 0 : i32, num_consumers = 1 : i32} : index
  return
}

// -----
// ... and required.
func.func @multicast_missing(%p: index) {
  // expected-error @+1 {{'dataflow.create_multicast_group' op property 'group_id' expected in operation 'dataflow.create_multicast_group'}}
  %g = dataflow.create_multicast_group(%p -> ()) {count = 0 : i32, num_consumers = 1 : i32} : index
  return
}

// -----
// send takes a vector or a custom vector ...
func.func @send_tensor(%u: index, %t: tensor<4xf16>) {
  // expected-error @+1 {{'dataflow.send' op operand #1 must be vector of any type values or Dataflow custom vector type, but got 'tensor<4xf16>'}}
  dataflow.send %u, %t : tensor<4xf16>
  return
}

// -----
// ... and routes in one of four directions.
func.func @direction(%u: index, %d: vector<4xf16>) {
  // expected-error @+1 {{Expected `PseudoRandom`, `CounterClockwise`, `Clockwise`, or `BothWays`.}}
  dataflow.send %u, %d {dir = #dataflow<direction Sideways>} : vector<4xf16>
  return
}

// -----
// A memory view is a memref.
func.func @view_tensor(%u: index, %s: index) {
  // expected-error @+1 {{'dataflow.get_logical_memory_view' op result #0 must be memref of any type values, but got 'tensor<4xf16>'}}
  %v = dataflow.get_logical_memory_view %u, %s {layout_map = affine_map<(d0) -> (d0)>} : index, index, tensor<4xf16>
  return
}

// -----
func.func @receive_scalar(%u: index) {
  // expected-error @+1 {{'dataflow.receive' op result #0 must be vector of any type values or Dataflow custom vector type, but got 'f16'}}
  %d = dataflow.receive %u : f16
  return
}

// -----
// A streaming buffer and a paged view are memrefs too.
func.func @stream_tensor(%u: index, %t: tensor<4xi8>) {
  // expected-error @+1 {{'dataflow.implicit_sync_on_streaming_buffer' op operand #0 must be memref of any type values, but got 'tensor<4xi8>'}}
  dataflow.implicit_sync_on_streaming_buffer %t, %u, %u : tensor<4xi8>, index, index
  return
}

// -----
func.func @paged_unranked(%u: index) {
  // expected-error @+1 {{'dataflow.get_paged_logical_memory_view' op result #0 must be memref of any type values, but got 'memref<*xf16>'}}
  %v = dataflow.get_paged_logical_memory_view %u, %u {layout_map = affine_map<(d0) -> (d0)>} {segments = } : index, index, memref<*xf16>
  return
}

// -----
// Types: a custom vector is `NxT` ...
// expected-error @+1 {{expected `NxT`: a number of elements and their type}}
func.func private @vector_shape(!dataflow.custom_vector<4x4xf16>)

// -----
// ... and the short MX spellings are three.
// expected-error @+1 {{expected 'mxfp4', 'mxfp8' or 'mxint4' but got 'mxint8'}}
func.func private @mx_kind(!dataflow.custom<mxint8>)
