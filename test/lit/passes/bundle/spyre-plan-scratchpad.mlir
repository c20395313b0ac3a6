// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p ktdp-extract-compute-groups,spyre-coarse-tile,spyre-plan-scratchpad | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-coarse-tile,spyre-plan-scratchpad{lx-bytes=300}' --verify-diagnostics | %FileCheck %s --check-prefix=SMALL
// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p ktdp-extract-compute-groups,spyre-coarse-tile,spyre-plan-scratchpad,spyre-plan-scratchpad | %FileCheck %s --check-prefix=TWICE

// spyre-plan-scratchpad stores each intermediate of a compute group (a
// tensor a compute produces and another compute consumes) to a ct_local
// view at a fixed LX byte offset (`spyre.lx_offset`; the view's base is the
// offset in elements) and reads it back for its consumers. Offsets are
// first fit over the buffers live at once, 128-byte aligned.

// p and q (3 x 20 f16 = 120 bytes each) are live at once: offsets 0 and
// 128 (120 rounded up to a stick). r is produced while p and q are still
// read by it: 256. s is produced after p and q died: it reuses offset 0.
// t is consumed only by a store: no LX buffer, it goes straight to %ot.
// The peak is r's end, 256 + 120 = 376 bytes.
// With lx-bytes=300 (SMALL) r does not fit beside p and q (256 + 120 > 300):
// it stays a value (marked spyre.lx_spilled) with a remark; s still reuses
// offset 0; the peak is q's end, 128 + 120 = 248.
// CHECK-LABEL: func.func @chain(
// CHECK:       func.func @local_schedule_0(%x: index, %y: index, %out: index) attributes {spyre.compute_group, spyre.peak_lx_bytes = 376 : i64} {
// CHECK:         %p = arith.addf %a, %b : tensor<3x20xf16>
// CHECK-NEXT:    %[[PO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[PV:.*]] = ktdp.construct_memory_view %[[PO]], sizes: [3, 20], strides: [20, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 19 >= 0)>, memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 0 : i64} : memref<3x20xf16>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[PT:.*]] = ktdp.construct_access_tile %[[PV]][%[[Z]], %[[Z]]] {{.*}} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
// CHECK-NEXT:    ktdp.store %p, %[[PT]] : tensor<3x20xf16>, <3x20xindex>
// CHECK-NEXT:    %[[PL:.*]] = ktdp.load %[[PT]] : <3x20xindex> -> tensor<3x20xf16>
// CHECK-NEXT:    %q = arith.mulf %a, %b : tensor<3x20xf16>
// CHECK-NEXT:    %[[QO:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[QV:.*]] = ktdp.construct_memory_view %[[QO]], sizes: [3, 20], strides: [20, 1] {{.*}}memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 128 : i64}
// CHECK:         ktdp.store %q,
// CHECK-NEXT:    %[[QL:.*]] = ktdp.load
// CHECK-NEXT:    %r = arith.subf %[[PL]], %[[QL]] : tensor<3x20xf16>
// CHECK-NEXT:    %[[RO:.*]] = arith.constant 128 : index
// CHECK-NEXT:    ktdp.construct_memory_view %[[RO]], {{.*}}memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 256 : i64}
// CHECK:         ktdp.store %r,
// CHECK-NEXT:    %[[RL:.*]] = ktdp.load
// CHECK-NEXT:    %s = math.exp %[[RL]] : tensor<3x20xf16>
// CHECK-NEXT:    %[[SO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    ktdp.construct_memory_view %[[SO]], {{.*}}memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 0 : i64}
// CHECK:         ktdp.store %s,
// CHECK-NEXT:    %[[SL:.*]] = ktdp.load
// CHECK-NEXT:    %t = math.sqrt %[[SL]] : tensor<3x20xf16>
// CHECK-NEXT:    %ov = ktdp.construct_memory_view %out, {{.*}}memory_space = #ktdp.memory_space<global>}
// CHECK-NEXT:    %ot = ktdp.construct_access_tile %ov[
// CHECK-NEXT:    ktdp.store %t, %ot : tensor<3x20xf16>, <3x20xindex>
// CHECK-NEXT:    return
// SMALL-LABEL: func.func @chain(
// SMALL:       func.func @local_schedule_0(%x: index, %y: index, %out: index) attributes {spyre.compute_group, spyre.peak_lx_bytes = 248 : i64} {
// SMALL:         spyre.lx_offset = 0 : i64
// SMALL:         spyre.lx_offset = 128 : i64
// SMALL:         %r = arith.subf %{{.*}}, %{{.*}} {spyre.lx_spilled} : tensor<3x20xf16>
// SMALL-NEXT:    %s = math.exp %r : tensor<3x20xf16>
// SMALL-NEXT:    arith.constant 0 : index
// SMALL-NEXT:    ktdp.construct_memory_view {{.*}}spyre.lx_offset = 0 : i64}
// SMALL-NOT:     spyre.lx_offset
// SMALL:         return
// TWICE-LABEL: func.func @chain(
// TWICE-COUNT-4: spyre.lx_offset
// TWICE-NOT:     spyre.lx_offset
// TWICE:         // -----
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 19 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [3, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<3x20xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [3, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<3x20xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [3, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<3x20xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<3x20xindex> -> tensor<3x20xf16>
  %b = ktdp.load %yt : !ktdp.access_tile<3x20xindex> -> tensor<3x20xf16>
  %p = arith.addf %a, %b : tensor<3x20xf16>
  %q = arith.mulf %a, %b : tensor<3x20xf16>
  // expected-remark @+1 {{intermediate of 120 bytes does not fit in LX (300 bytes, 256 in use by the buffers live with it): it falls back to HBM}}
  %r = arith.subf %p, %q : tensor<3x20xf16>
  %s = math.exp %r : tensor<3x20xf16>
  %t = math.sqrt %s : tensor<3x20xf16>
  ktdp.store %t, %ot : tensor<3x20xf16>, !ktdp.access_tile<3x20xindex>
  return
}

// -----

// The same chain tiled by spyre-coarse-tile into 3 tiles of one row
// (1 x 20 f16 = 40 bytes): inside the loop the offsets are constants, not
// functions of the tile number; the same first fit gives 0, 128, 256, 0 and
// a peak of 256 + 40 = 296 bytes, which fits lx-bytes=300 (no remark there).
// CHECK-LABEL: func.func @in_loop(
// CHECK:       func.func @local_schedule_0(%x: index, %y: index, %out: index) attributes {spyre.compute_group, spyre.peak_lx_bytes = 296 : i64} {
// CHECK-NEXT:    spyre_loop.loop count(3) tiled_dims [0] tile_sizes [1] {
// CHECK-NEXT:    ^bb0(%[[K:.*]]: index):
// CHECK:           %p = arith.addf %a, %b : tensor<1x20xf16>
// CHECK-NEXT:      %[[PO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      ktdp.construct_memory_view %[[PO]], sizes: [1, 20], strides: [20, 1] {{.*}}memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 0 : i64} : memref<1x20xf16>
// CHECK:           %q = arith.mulf %a, %b : tensor<1x20xf16>
// CHECK-NEXT:      %[[QO:.*]] = arith.constant 64 : index
// CHECK-NEXT:      ktdp.construct_memory_view %[[QO]], {{.*}}spyre.lx_offset = 128 : i64}
// CHECK:           %r = arith.subf
// CHECK-NEXT:      %[[RO:.*]] = arith.constant 128 : index
// CHECK-NEXT:      ktdp.construct_memory_view %[[RO]], {{.*}}spyre.lx_offset = 256 : i64}
// CHECK:           %s = math.exp
// CHECK-NEXT:      %[[SO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      ktdp.construct_memory_view %[[SO]], {{.*}}spyre.lx_offset = 0 : i64}
// CHECK:           %t = math.sqrt %{{.*}} : tensor<1x20xf16>
// CHECK-NEXT:      affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 20)>(%[[K]])[%out]
// CHECK:           ktdp.store %t,
// CHECK-NEXT:    }
// SMALL-LABEL: func.func @in_loop(
// SMALL:       attributes {spyre.compute_group, spyre.peak_lx_bytes = 296 : i64}
// SMALL-NOT:   spyre.lx_spilled
// SMALL:       spyre.lx_offset = 256 : i64
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 19 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @in_loop(%x: index, %y: index, %out: index) attributes {spyre.slices = 3} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [3, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<3x20xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [3, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<3x20xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [3, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<3x20xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<3x20xf16> -> !ktdp.access_tile<3x20xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<3x20xindex> -> tensor<3x20xf16>
  %b = ktdp.load %yt : !ktdp.access_tile<3x20xindex> -> tensor<3x20xf16>
  %p = arith.addf %a, %b : tensor<3x20xf16>
  %q = arith.mulf %a, %b : tensor<3x20xf16>
  %r = arith.subf %p, %q : tensor<3x20xf16>
  %s = math.exp %r : tensor<3x20xf16>
  %t = math.sqrt %s : tensor<3x20xf16>
  ktdp.store %t, %ot : tensor<3x20xf16>, !ktdp.access_tile<3x20xindex>
  return
}

// -----

// A tensor consumed by a compute and a store gets an LX buffer (1 x 20 f32 =
// 80 bytes at 0); the store copies the LX copy out to %mid. The output n is
// consumed only by its store: no buffer. (The group body is in
// dataflow-scheduler's order: each output view is built right before the ops
// that read it, and the copy-out to %mid now follows the negf.)
// CHECK-LABEL: func.func @both(
// CHECK:       func.func @local_schedule_0(%x: index, %mid: index, %out: index) attributes {spyre.compute_group, spyre.peak_lx_bytes = 80 : i64} {
// CHECK:         %e = math.exp %a : tensor<1x20xf32>
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    ktdp.construct_memory_view {{.*}}memory_space = #ktdp.memory_space<ct_local>, spyre.lx_offset = 0 : i64} : memref<1x20xf32>
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    %[[ET:.*]] = ktdp.construct_access_tile
// CHECK-NEXT:    ktdp.store %e, %[[ET]] :
// CHECK-NEXT:    %[[EL:.*]] = ktdp.load %[[ET]] :
// CHECK-NEXT:    %mv = ktdp.construct_memory_view %mid, {{.*}}memory_space = #ktdp.memory_space<global>}
// CHECK-NEXT:    %mt = ktdp.construct_access_tile %mv[
// CHECK-NEXT:    %n = arith.negf %[[EL]] : tensor<1x20xf32>
// CHECK-NEXT:    %ov = ktdp.construct_memory_view %out, {{.*}}memory_space = #ktdp.memory_space<global>}
// CHECK-NEXT:    %ot = ktdp.construct_access_tile %ov[
// CHECK-NEXT:    ktdp.store %[[EL]], %mt : tensor<1x20xf32>, <1x20xindex>
// CHECK-NEXT:    ktdp.store %n, %ot : tensor<1x20xf32>, <1x20xindex>
// CHECK-NEXT:    return
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 19 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @both(%x: index, %mid: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [1, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1x20xf32>
  %mv = ktdp.construct_memory_view %mid, sizes: [1, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1x20xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [1, 20], strides: [20, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<1x20xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<1x20xf32> -> !ktdp.access_tile<1x20xindex>
  %mt = ktdp.construct_access_tile %mv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<1x20xf32> -> !ktdp.access_tile<1x20xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<1x20xf32> -> !ktdp.access_tile<1x20xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<1x20xindex> -> tensor<1x20xf32>
  %e = math.exp %a : tensor<1x20xf32>
  ktdp.store %e, %mt : tensor<1x20xf32>, !ktdp.access_tile<1x20xindex>
  %n = arith.negf %e : tensor<1x20xf32>
  ktdp.store %n, %ot : tensor<1x20xf32>, !ktdp.access_tile<1x20xindex>
  return
}
