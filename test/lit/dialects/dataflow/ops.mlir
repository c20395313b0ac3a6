// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op, type and attribute of dataflow-scheduler's dataflow dialect
// (Dataflow/*.td), in upstream's syntax (the declarative formats of
// Dataflow.td, the parsers of DataflowOps.cpp). The .td's examples are used
// verbatim where they are valid IR; where they are not (pseudo-IR such as
// `{ #region }`, or types the format does not print) the same op is written
// as upstream prints it.

// CHECK-DAG: #[[$VIEW:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 8)>
// CHECK-DAG: #[[$PAGES:.*]] = affine_map<(d0, d1) -> (d0 * 4 + d1)>
// CHECK-DAG: #[[$PAGE0:.*]] = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 1 >= 0)>
// CHECK-DAG: #[[$PAGE1:.*]] = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 - 2 >= 0, -d1 + 3 >= 0)>

// CHECK-LABEL: func.func @units
func.func @units(%id: index) {
  // Dataflow.td's example, verbatim: the dictionary prints sorted, as in MLIR.
  // CHECK-NEXT: %[[L1LU:.*]] = dataflow.get_unit {core = 0 : i64, corelet = 0 : i64, name = "L1-LU", type = "L1LU"} : index
  %l1lu = dataflow.get_unit {core = 0, corelet = 0, type = "L1LU", name = "L1-LU"} : index
  // One result per program time step.
  // CHECK-NEXT: %[[U:[^:]*]]:2 = dataflow.get_unit {core = 1 : i32, name = "C1-mnilu", type = "mnilu"} : index, index
  %u:2 = dataflow.get_unit {core = 1 : i32, name = "C1-mnilu", type = "mnilu"} : index, index
  // CHECK-NEXT: %{{.*}} = dataflow.get_local_unit %{{.*}} {name = "L1-LU"} : index
  %unit = dataflow.get_local_unit %id {name="L1-LU"} : index
  // CHECK-NEXT: %[[G:.*]] = dataflow.create_group(%[[U]]#0, %[[U]]#1 : index, index) : index
  %group = dataflow.create_group(%u#0, %u#1 : index, index) : index
  // CHECK-NEXT: %{{.*}} = dataflow.create_group() : index
  %none = dataflow.create_group() : index
  // Dataflow.td's example, verbatim (upstream checks no count against num_consumers).
  %1 = arith.constant 1 : index
  %2 = arith.constant 2 : index
  %3 = arith.constant 3 : index
  %4 = arith.constant 4 : index
  // CHECK: %{{.*}} = dataflow.create_multicast_group(%{{.*}} -> (%{{.*}}, %{{.*}}, %{{.*}})) {count = 0 : i32, group_id = 1 : i32, num_consumers = 2 : i32} : index
  %mgroup = dataflow.create_multicast_group (%1 -> (%2, %3, %4)) {count = 0 : i32, group_id = 1 : i32, num_consumers = 2 : i32} : index
  // CHECK-NEXT: %{{.*}} = dataflow.create_multicast_group(%[[L1LU]] -> ()) {count = 0 : i32, group_id = 0 : i32, num_consumers = 1 : i32} : index
  %lone = dataflow.create_multicast_group(%l1lu -> ()) {count = 0 : i32, group_id = 0 : i32, num_consumers = 1 : i32} : index
  return
}

// CHECK-LABEL: func.func @programs
func.func @programs(%data: vector<128xi8>, %cv: !dataflow.custom_vector<64xf16>, %buffer: memref<4xi8>) {
  %l1lu = dataflow.get_unit {core = 0 : i32, name = "C0-l1lu", type = "l1lu"} : index
  %l1su0 = dataflow.get_unit {core = 0 : i32, name = "C0-l1su", type = "l1su"} : index
  %l0su = dataflow.get_unit {core = 0 : i32, name = "C0-l0su", type = "l0su"} : index
  %l1_mem = dataflow.get_unit {core = 0 : i32, name = "C0-l1", type = "l1"} : index
  %l1lu0, %l1lu1 = dataflow.get_unit {name = "L1-LU", type = "L1LU"} : index, index
  // One unit; the implicit dataflow.return is not printed.
  // CHECK: dataflow.program_unit %{{.*}} : {
  // CHECK-NEXT:   dataflow.sync_send %{{.*}} {wait_immediately_for_async_transfers = false} : index
  // CHECK-NEXT:   dataflow.sync_recv %{{.*}} : index
  // CHECK-NEXT:   dataflow.sync_recv %{{.*}} {dbgName = "wait for l1su"} : index
  // CHECK-NEXT:   dataflow.send %{{.*}}, %{{.*}} : vector<128xi8>
  // CHECK-NEXT:   %{{.*}} = dataflow.receive %{{.*}} : vector<128xi8>
  // CHECK-NEXT: }
  dataflow.program_unit %l1lu : {
    dataflow.sync_send %l1su0 {wait_immediately_for_async_transfers = false} : index
    dataflow.sync_recv %l1su0 : index
    dataflow.sync_recv %l1su0 {dbgName = "wait for l1su"} : index
    dataflow.send %l0su, %data : vector<128xi8>
    %received = dataflow.receive %l1lu : vector<128xi8>
  }
  // Several units through the region's argument, with a precision.
  // CHECK: dataflow.program_unit iter_arg : %[[UNIT:.*]] -> (%{{.*}}, %{{.*}}) {precision = "fp16"} : {
  dataflow.program_unit iter_arg : %unit -> (%l1lu0, %l1lu1) {precision = "fp16"} : {
    // CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
    // CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
    %start_address = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    // Dataflow.td's example, verbatim.
    // CHECK-NEXT: %{{.*}} = dataflow.get_logical_memory_view %{{.*}}, %[[C0]] {layout_map = #[[$VIEW]]} : index, index, memref<8x16xi8>
    %l1_view = dataflow.get_logical_memory_view %l1_mem, %start_address
        {layout_map = affine_map<(i, j) -> (i + j * 8)>}
        : index, index, memref<8x16xi8>
    // Upstream's printed layout: the segments, then one page a line.
    // CHECK-NEXT: %{{.*}} = dataflow.get_paged_logical_memory_view %[[UNIT]], %[[C0]] {layout_map = #[[$PAGES]]}
    // CHECK-NEXT:   {segments =
    // CHECK-NEXT:     page0: (idx_set = #[[$PAGE0]], start_addr = %[[C0]]),
    // CHECK-NEXT:     page1: (idx_set = #[[$PAGE1]], start_addr = %[[C64]])} : index, index, memref<64x4xf16>
    %paged = dataflow.get_paged_logical_memory_view %unit, %start_address {layout_map = affine_map<(d0, d1) -> (d0 * 4 + d1)>}
      {segments =
        page0: (idx_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 1 >= 0)>, start_addr = %start_address),
        page1: (idx_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 - 2 >= 0, -d1 + 3 >= 0)>, start_addr = %c64)} : index, index, memref<64x4xf16>
    // CHECK-NEXT: dataflow.implicit_sync_on_streaming_buffer %{{.*}}, %[[UNIT]], %[[C64]] {dbgName = "stream"} : memref<4xi8>, index, index
    dataflow.implicit_sync_on_streaming_buffer %buffer, %unit, %c64 {dbgName = "stream"} : memref<4xi8>, index, index
    // CHECK-NEXT: dataflow.send %{{.*}}, %{{.*}} {dbgName = "to l0su", dir = #dataflow<direction CounterClockwise>} : !dataflow.custom_vector<64xf16>
    dataflow.send %l0su, %cv {dir = #dataflow<direction CounterClockwise>, dbgName = "to l0su"} : !dataflow.custom_vector<64xf16>
    // CHECK-NEXT: dataflow.send %{{.*}}, %{{.*}} {dir = #dataflow<direction PseudoRandom>} : vector<128xi8>
    // CHECK-NEXT: dataflow.send %{{.*}}, %{{.*}} {dir = #dataflow<direction Clockwise>} : vector<128xi8>
    // CHECK-NEXT: dataflow.send %{{.*}}, %{{.*}} {dir = #dataflow<direction BothWays>} : vector<128xi8>
    dataflow.send %l0su, %data {dir = #dataflow<direction PseudoRandom>} : vector<128xi8>
    dataflow.send %l0su, %data {dir = #dataflow<direction Clockwise>} : vector<128xi8>
    dataflow.send %l0su, %data {dir = #dataflow<direction BothWays>} : vector<128xi8>
    // CHECK-NEXT: %{{.*}} = dataflow.receive %{{.*}} : !dataflow.custom_vector<32x!dataflow.mxfp<4>>
    %mx = dataflow.receive %l1lu : !dataflow.custom_vector<32x!dataflow.mxfp<4>>
    // Dataflow.td's example, verbatim.
    // CHECK-NEXT: dataflow.opaque {func_name = "reciprocal", parameter_dictionary = {unroll_factor = "2"}, read_only_register_dictionary = {c0 = "R2"}, read_write_register_dictionary = {p0 = "R0", p1 = "R1"}}
    dataflow.opaque {func_name = "reciprocal",
                     read_write_register_dictionary = {p0="R0",p1="R1"},
                     read_only_register_dictionary = {c0="R2"},
                     parameter_dictionary = {unroll_factor="2"}}
    // A return with attributes is printed (generic: it has no custom syntax).
    // CHECK-NEXT: "dataflow.return"() {last} : () -> ()
    // CHECK-NEXT: }
    "dataflow.return"() {last} : () -> ()
  }
  return
}

// The types: custom vectors and MX types, in both of the dialect's spellings.
// CHECK-LABEL: func.func private @types
// CHECK-SAME: (!dataflow.custom_vector<64xf16>, !dataflow.mxfp<16>, !dataflow.mxint<8>, !dataflow.custom<mxfp4>, !dataflow.custom<mxfp8>, !dataflow.custom<mxint4>, memref<64x!dataflow.custom<mxfp8>>, memref<8x!dataflow.mxint<4>>)
func.func private @types(!dataflow.custom_vector<64xf16>, !dataflow.mxfp<16>, !dataflow.mxint<8>, !dataflow.custom<mxfp4>, !dataflow.custom<mxfp8>, !dataflow.custom<mxint4>, memref<64x!dataflow.custom<mxfp8>>, memref<8x!dataflow.mxint<4>>)
