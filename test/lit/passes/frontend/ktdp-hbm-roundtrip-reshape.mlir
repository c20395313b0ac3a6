// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip | %FileCheck %s
// RUN: %spyre-opt %s -p ktdp-hbm-roundtrip,ktdp-extract-compute-groups | %FileCheck %s --check-prefix=GROUPS
// RUN: %spyre-opt %s --pipeline ktir-to-schedule | %FileCheck %s --check-prefix=SCHED
// The rewritten kernels compute what the sources do:
// RUN: %spyre-run %s --func through_collapse --arg x=random:8x2x8xf32:1 --arg out=zeros:8x16xf32 --print-outputs > %t.c.before
// RUN: %spyre-opt %s --pipeline ktir-to-schedule -o %t.mlir
// RUN: %spyre-run %t.mlir --func through_collapse --arg x=random:8x2x8xf32:1 --arg out=zeros:8x16xf32 --print-outputs | grep -v hbm_scratch > %t.c.after
// RUN: diff %t.c.before %t.c.after
// RUN: %spyre-run %s --func shared_load_through_expand --arg x=random:8x16xf32:2 --arg out=zeros:8x2x8xf32 --print-outputs > %t.e.before
// RUN: %spyre-run %t.mlir --func shared_load_through_expand --arg x=random:8x16xf32:2 --arg out=zeros:8x2x8xf32 --print-outputs | grep -v hbm_scratch > %t.e.after
// RUN: diff %t.e.before %t.e.after

// A reshape between two computes is part of the edge. `flat = collapse(x * x)`
// feeds the reduce and the subtraction: the product goes to scratch once, each
// consumer loads it back and applies the collapse itself (the original collapse
// is gone), so both reads are round trips and no group waits in its middle for
// another's: the groups stay whole and pass nothing but HBM (no call returns a
// value or takes a tensor); the GROUPS run: this pass, then extraction.
// ktir-to-schedule no longer runs this pass (c0d640f): there the kernel stays one
// group whose computes share one compute stage, the collapse between the mulf
// and its two readers, and no scratch argument (SCHED, body checked below).
// CHECK-LABEL: func.func @through_collapse(
// CHECK:         %sq = arith.mulf %xd, %xd : tensor<8x2x8xf32>
// CHECK:         ktdp.store %sq, %[[SQT:[0-9]+]] : tensor<8x2x8xf32>
// CHECK-NOT:     tensor.collapse_shape %sq
// CHECK:         %sq_hbm = ktdp.load %[[SQT]] : <8x2x8xindex> -> tensor<8x2x8xf32>
// CHECK-NEXT:    %flat = tensor.collapse_shape %sq_hbm {{\[\[}}0], [1, 2]] : tensor<8x2x8xf32> into tensor<8x16xf32>
// CHECK-NEXT:    %sum = linalg.reduce { arith.addf } ins(%flat : tensor<8x16xf32>)
// CHECK:         %sq_hbm_1 = ktdp.load %[[SQT]] : <8x2x8xindex> -> tensor<8x2x8xf32>
// CHECK-NEXT:    %flat_1 = tensor.collapse_shape %sq_hbm_1 {{\[\[}}0], [1, 2]] : tensor<8x2x8xf32> into tensor<8x16xf32>
// CHECK-NEXT:    %b_hbm = ktdp.load
// CHECK-NEXT:    %r = arith.subf %flat_1, %b_hbm : tensor<8x16xf32>
// GROUPS-LABEL: func.func @through_collapse(
// GROUPS-NOT:     {{= (func\.)?call}}
// GROUPS:         call @local_schedule_{{[0-9]+}}(%x, %hbm_scratch) : (index, index) -> ()
// GROUPS-NOT:     {{= (func\.)?call}}
// GROUPS-NOT:     tensor<
// GROUPS:         call @local_schedule_{{[0-9]+}}(%hbm_scratch, %out) : (index, index) -> ()
// GROUPS-NEXT:    return
// SCHED-LABEL: func.func @through_collapse(%x: index, %out: index) {
// SCHED-NEXT:    call @local_schedule_{{[0-9]+}}(%x, %out) : (index, index) -> ()
// SCHED-NEXT:    return

// A load read by a compute and, through a reshape, by another compute is loaded
// again for the second (the reshape replayed on the new load), like a load two
// computes read directly; the sqrt reaches the add through a round trip too.
// CHECK-LABEL: func.func @shared_load_through_expand(
// CHECK:         %xd = ktdp.load %[[XT:[0-9a-z_]+]] :
// CHECK-NEXT:    %ex = math.exp %xd : tensor<8x16xf32>
// CHECK:         %sq = math.sqrt %ex_hbm : tensor<8x16xf32>
// CHECK:         ktdp.store %sq, %[[ST:[0-9]+]]
// CHECK-NEXT:    %xd_1 = ktdp.load %[[XT]] : <8x16xindex> -> tensor<8x16xf32>
// CHECK-NEXT:    %x3 = tensor.expand_shape %xd_1
// CHECK-NEXT:    %sq_hbm = ktdp.load %[[ST]] : <8x16xindex> -> tensor<8x16xf32>
// CHECK-NEXT:    %sq3 = tensor.expand_shape %sq_hbm
// CHECK-NEXT:    %r = arith.addf %x3, %sq3 : tensor<8x2x8xf32>
// GROUPS-LABEL: func.func @shared_load_through_expand(
// GROUPS-NOT:     {{= (func\.)?call}}
// GROUPS:         return
// SCHED-LABEL: func.func @shared_load_through_expand(%x: index, %out: index) {
// SCHED-NEXT:    call @local_schedule_{{[0-9]+}}(%x, %out) : (index, index) -> ()
// SCHED-NEXT:    return
// The two groups' compute stages (the first kernel's, then this one's):
// SCHED-LABEL: func.func @local_schedule_0(%x: index, %out: index)
// SCHED:         %xd = ktdf.read_from_fifo
// SCHED-NEXT:    %sq = arith.mulf %xd, %xd : tensor<8x2x8xf32>
// SCHED-NEXT:    %flat = tensor.collapse_shape %sq {{\[\[}}0], [1, 2]] : tensor<8x2x8xf32> into tensor<8x16xf32>
// SCHED:         %sum = linalg.reduce { arith.addf } ins(%flat : tensor<8x16xf32>)
// SCHED:         %r = arith.subf %flat, %b : tensor<8x16xf32>
// SCHED-NEXT:    ktdf.write_to_fifo %r,
// SCHED-LABEL: func.func @local_schedule_1(%x: index, %out: index)
// SCHED:         %xd = ktdf.read_from_fifo
// SCHED-NEXT:    %ex = math.exp %xd : tensor<8x16xf32>
// SCHED-NEXT:    %sq = math.sqrt %ex : tensor<8x16xf32>
// SCHED-NEXT:    %x3 = tensor.expand_shape %xd
// SCHED-NEXT:    %sq3 = tensor.expand_shape %sq
// SCHED-NEXT:    %r = arith.addf %x3, %sq3 : tensor<8x2x8xf32>
// SCHED-NEXT:    ktdf.write_to_fifo %r,

#x2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#x3  = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 1 >= 0, d2 >= 0, -d2 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @through_collapse(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 2, 8], strides: [16, 8, 1] {coordinate_set = #x3, memory_space = #ktdp.memory_space<global>} : memref<8x2x8xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 16], strides: [16, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0, %c0] {access_tile_set = #x3, access_tile_order = #id3} : memref<8x2x8xf32> -> !ktdp.access_tile<8x2x8xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x2x8xindex> -> tensor<8x2x8xf32>
  %sq = arith.mulf %xd, %xd : tensor<8x2x8xf32>
  %flat = tensor.collapse_shape %sq [[0], [1, 2]] : tensor<8x2x8xf32> into tensor<8x16xf32>
  %e = tensor.empty() : tensor<8xf32>
  %sum = linalg.reduce { arith.addf } ins(%flat : tensor<8x16xf32>) outs(%e : tensor<8xf32>) dimensions = [1]
  %e2 = tensor.empty() : tensor<8x16xf32>
  %b = linalg.broadcast ins(%sum : tensor<8xf32>) outs(%e2 : tensor<8x16xf32>) dimensions = [1]
  %r = arith.subf %flat, %b : tensor<8x16xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<8x16xf32> -> !ktdp.access_tile<8x16xindex>
  ktdp.store %r, %ot : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>
  return
}

func.func @shared_load_through_expand(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 16], strides: [16, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 2, 8], strides: [16, 8, 1] {coordinate_set = #x3, memory_space = #ktdp.memory_space<global>} : memref<8x2x8xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<8x16xf32> -> !ktdp.access_tile<8x16xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %ex = math.exp %xd : tensor<8x16xf32>
  %sq = math.sqrt %ex : tensor<8x16xf32>
  %sq3 = tensor.expand_shape %sq [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
  %x3 = tensor.expand_shape %xd [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
  %r = arith.addf %x3, %sq3 : tensor<8x2x8xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0, %c0] {access_tile_set = #x3, access_tile_order = #id3} : memref<8x2x8xf32> -> !ktdp.access_tile<8x2x8xindex>
  ktdp.store %r, %ot : tensor<8x2x8xf32>, !ktdp.access_tile<8x2x8xindex>
  return
}
