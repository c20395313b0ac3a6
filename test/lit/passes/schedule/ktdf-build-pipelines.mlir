// RUN: %spyre-opt %s --split-input-file -p ktdp-extract-compute-groups,ktdf-build-pipelines | %FileCheck %s

// The public three-stage case (dataflow-scheduler's
// construct-three-stage-pipeline basic.mlir): C = A + B on a row of 64 f16
// per iteration. The loop stays in the kernel and calls the group. In the
// group, each view is cast to "DDR" and reinterpreted at the row; a nest of
// parallel loops over the row's chunks (one SIMD vector of 64 f16: one trip
// each) holds the pipeline: a load stage moving both chunks into FIFO slots
// (allocated together: one route), a compute stage on the SFU (linalg.add
// as a linalg.generic), a store stage.
// CHECK-LABEL: func.func @add()
// CHECK:         scf.for %i = %c0 to %tile_size step %c1 {
// CHECK-NEXT:      func.call @local_schedule_0(%i) : (index) -> ()
// CHECK-LABEL: module @local_schedule_0 {
// CHECK:         func.func @local_schedule_0(%i: index)
// CHECK-NEXT:      arith.constant 1 : index
// CHECK-NEXT:      arith.constant 64 : index
// CHECK:           %[[OFF:.*]] = arith.muli %start_row_i, %{{.*}} : index
// CHECK-NEXT:      %[[CAST:.*]] = memref.memory_space_cast %A_view : memref<96x64xf16> to memref<96x64xf16, "DDR">
// CHECK-NEXT:      %[[A:.*]] = memref.reinterpret_cast %[[CAST]] to offset: [%[[OFF]]], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
// CHECK:           %[[B:.*]] = memref.reinterpret_cast
// CHECK:           %[[C:.*]] = memref.reinterpret_cast
// CHECK-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          ktdf.pipeline {
// CHECK-NEXT:            %[[P:.*]]:6 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token) {
// CHECK-NEXT:              %{{.*}}:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
// CHECK-NEXT:              %{{.*}} = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
// CHECK:                   ktdf.private_yield
// CHECK-NEXT:            }
// CHECK-NEXT:            ktdf.stage depends_in(none) depends_out(%[[P]]#3) {
// CHECK-NEXT:              ktdf.data_transfer from %[[A]][%[[I]], %[[J]]] size [1, 64] to %[[P]]#0 size [1, 64] : memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
// CHECK-NEXT:              ktdf.data_transfer from %[[B]][%[[I]], %[[J]]] size [1, 64] to %[[P]]#1 size [1, 64] : memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
// CHECK-NEXT:            }
// CHECK-NEXT:            ktdf.stage depends_in(%[[P]]#3) depends_out(%[[P]]#4) {
// CHECK-NEXT:              %[[X:.*]] = ktdf.read_from_fifo %[[P]]#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
// CHECK-NEXT:              %[[Y:.*]] = ktdf.read_from_fifo %[[P]]#1 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
// CHECK-NEXT:              %[[E:.*]] = tensor.empty() : tensor<1x64xf16>
// CHECK-NEXT:              %[[R:.*]] = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] : tensor<1x64xf16>, tensor<1x64xf16>) outs(%[[E]] : tensor<1x64xf16>) {
// CHECK-NEXT:              ^bb0(%[[BA:.*]]: f16, %[[BB:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:                %[[SUM:.*]] = arith.addf %[[BA]], %[[BB]] : f16
// CHECK-NEXT:                linalg.yield %[[SUM]] : f16
// CHECK-NEXT:              } -> tensor<1x64xf16>
// CHECK-NEXT:              ktdf.write_to_fifo %[[R]], %[[P]]#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
// CHECK-NEXT:            } {applicable_units = ["SFU"]}
// CHECK-NEXT:            ktdf.stage depends_in(%[[P]]#4) depends_out(%[[P]]#5) {
// CHECK-NEXT:              ktdf.data_transfer from %[[P]]#2 size [1, 64] to %[[C]][%[[I]], %[[J]]] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        } {loop_type = #ktdf.loop_type<parallel_loop>}
// CHECK-NEXT:      } {loop_type = #ktdf.loop_type<parallel_loop>}
func.func @add() attributes {grid = [32]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tile_size = arith.constant 3 : index
  %A_start_address = arith.constant 1024 : index
  %B_start_address = arith.constant 12288 : index
  %C_start_address = arith.constant 18432 : index
  %id = ktdp.get_compute_tile_id : index
  %start_row = arith.muli %id, %tile_size : index
  %A_view = ktdp.construct_memory_view %A_start_address, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %B_view = ktdp.construct_memory_view %B_start_address, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %C_view = ktdp.construct_memory_view %C_start_address, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  scf.for %i = %c0 to %tile_size step %c1 {
    %start_row_i = arith.addi %start_row, %i : index
    %A_access_tile = ktdp.construct_access_tile %A_view[%start_row_i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
    %B_access_tile = ktdp.construct_access_tile %B_view[%start_row_i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
    %A_data_tile = ktdp.load %A_access_tile : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %B_data_tile = ktdp.load %B_access_tile : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %C_data_tile = tensor.empty() : tensor<1x64xf16>
    %result = linalg.add ins(%A_data_tile, %B_data_tile : tensor<1x64xf16>, tensor<1x64xf16>) outs(%C_data_tile: tensor<1x64xf16>) -> tensor<1x64xf16>
    %C_access_tile = ktdp.construct_access_tile %C_view[%start_row_i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<96x64xf16> -> !ktdp.access_tile<1x64xindex>
    ktdp.store %result, %C_access_tile : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  }
  return
}

// -----

// A body that is not one load -> compute -> store pass stays KTIR: a loop
// carrying a value (the reduction; ktdf-expose-reduction-loops moves the
// carried value to LX first in ktir-to-schedule). What follows the loop, the
// store of its result, is a pass of its own: a pipeline after the loop.
// CHECK-LABEL: module @local_schedule_0 {
// CHECK-NOT:     ktdf.pipeline
// CHECK:         scf.for {{.*}} iter_args
// CHECK-NOT:     ktdf.pipeline
// CHECK:         scf.yield
// CHECK-NEXT:    }
// CHECK:         ktdf.pipeline {
// CHECK:           ktdf.write_to_fifo %s,
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#one = affine_set<(d0) : (d0 == 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @reduction(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [256], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 255 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<256xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<64xf32>) {
    %c64 = arith.constant 64 : index
    %off = arith.muli %i, %c64 : index
    %t = ktdp.construct_access_tile %xv[%off] {access_tile_set = #all, access_tile_order = #id1} : memref<256xf32> -> !ktdp.access_tile<64xindex>
    %d = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
    %n = arith.addf %a, %d : tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  ktdp.store %s, %ot : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
