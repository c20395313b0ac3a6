// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p ktdp-extract-compute-groups,spyre-coarse-tile | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-coarse-tile{slices=2}' --verify-diagnostics | %FileCheck %s --check-prefix=OPT
// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-coarse-tile{lx-bytes=1024}' | %FileCheck %s --check-prefix=AUTO
// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p ktdp-extract-compute-groups,spyre-coarse-tile,spyre-coarse-tile | %FileCheck %s --check-prefix=TWICE

// spyre-coarse-tile turns a compute group into a spyre_loop nest over tiles:
// each access tile of the group gets a tile view (same strides, base
// advanced by an affine.apply of the tile numbers whose coefficients are
// tile size x view stride, sizes shrunk by extent - tile size so every tile
// stays inside the original view, or per slice for a tail tile (@tail),
// anchors unchanged), and every tensor the
// tiled dim reaches takes the tile's shape. A hint is consumed: a second run
// (TWICE) tiles nothing again.

// A flat loop: `spyre.slices = 4` on the kernel divides dim 0 (8 rows) into
// 4 tiles of 2 rows; the base advances 2 rows x stride 32 = 64 elements.
// The option (OPT) does not override a hint.
// CHECK-LABEL: func.func @flat(%x: index, %y: index, %out: index) {
// CHECK-NEXT:    call @local_schedule_0(%x, %y, %out)
// CHECK:       func.func @local_schedule_0(%x: index, %y: index, %out: index) attributes {spyre.compute_group} {
// CHECK-NEXT:    spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// CHECK-NEXT:    ^bb0(%[[K:.*]]: index):
// CHECK:           %[[XB:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 64)>(%[[K]])[%x]
// CHECK-NEXT:      %[[XV:.*]] = ktdp.construct_memory_view %[[XB]], sizes: [2, 32], strides: [32, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 31 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x32xf32>
// CHECK-NEXT:      %[[XT:.*]] = ktdp.construct_access_tile %[[XV]][%c0, %c0] {{.*}}access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 31 >= 0)>} : memref<2x32xf32> -> !ktdp.access_tile<2x32xindex>
// CHECK-NEXT:      %a = ktdp.load %[[XT]] : <2x32xindex> -> tensor<2x32xf32>
// CHECK-NEXT:      %[[YB:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 64)>(%[[K]])[%y]
// CHECK:           %b = ktdp.load %{{.*}} : <2x32xindex> -> tensor<2x32xf32>
// CHECK-NEXT:      %s = arith.addf %a, %b : tensor<2x32xf32>
// CHECK-NEXT:      %e = math.exp %s : tensor<2x32xf32>
// CHECK-NEXT:      %[[OB:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 64)>(%[[K]])[%out]
// CHECK-NEXT:      %[[OV:.*]] = ktdp.construct_memory_view %[[OB]], sizes: [2, 32], strides: [32, 1]
// CHECK-NEXT:      %[[OT:.*]] = ktdp.construct_access_tile %[[OV]][%c0, %c0]
// CHECK-NEXT:      ktdp.store %e, %[[OT]] : tensor<2x32xf32>, <2x32xindex>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NOT:   spyre.slices
// OPT-LABEL:   func.func @flat(
// OPT:         spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// TWICE-LABEL: func.func @flat(
// TWICE:       spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// TWICE-NOT:   spyre_loop.loop
// TWICE:       // -----
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @flat(%x: index, %y: index, %out: index) attributes {spyre.slices = 4} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %s = arith.addf %a, %b : tensor<8x32xf32>
  %e = math.exp %s : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A 2x4 nest on two dims, outermost first: 2 tiles of the 32 columns (16
// each), then 4 tiles of the 8 rows (2 each). The views (16 x 64, stride
// [64, 1]) are larger than the access tiles (8 x 32 anchored at row 8):
// the base moves 16 x 1 = 16 elements per outer step and 2 x 64 = 128 per
// inner step; the views shrink to [16 - (8 - 2), 64 - (32 - 16)] = [10, 48];
// the anchors [%c8, %c0] stay.
// CHECK-LABEL: func.func @nest(%x: index, %out: index) {
// CHECK:       func.func @local_schedule_0(%x: index, %out: index) attributes {spyre.compute_group} {
// CHECK-NEXT:    spyre_loop.loop count(2) tiled_dims [1] tile_sizes [16] {
// CHECK-NEXT:    ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:      spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// CHECK-NEXT:      ^bb0(%[[J:.*]]: index):
// CHECK:             %[[XB:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 16 + d1 * 128)>(%[[I]], %[[J]])[%x]
// CHECK-NEXT:        %[[XV:.*]] = ktdp.construct_memory_view %[[XB]], sizes: [10, 48], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 9 >= 0, d1 >= 0, -d1 + 47 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<10x48xf16>
// CHECK-NEXT:        %[[XT:.*]] = ktdp.construct_access_tile %[[XV]][%c8, %c0] {{.*}}access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>} : memref<10x48xf16> -> !ktdp.access_tile<2x16xindex>
// CHECK-NEXT:        %a = ktdp.load %[[XT]] : <2x16xindex> -> tensor<2x16xf16>
// CHECK-NEXT:        %e = math.exp %a : tensor<2x16xf16>
// CHECK-NEXT:        %[[OB:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 16 + d1 * 128)>(%[[I]], %[[J]])[%out]
// CHECK-NEXT:        %[[OV:.*]] = ktdp.construct_memory_view %[[OB]], sizes: [10, 48], strides: [64, 1]
// CHECK-NEXT:        %[[OT:.*]] = ktdp.construct_access_tile %[[OV]][%c8, %c0]
// CHECK-NEXT:        ktdp.store %e, %[[OT]] : tensor<2x16xf16>, <2x16xindex>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
#view = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @nest(%x: index, %out: index) attributes {spyre.slices = [[2, [1]], [4, [0]]]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 64], strides: [64, 1] {coordinate_set = #view, memory_space = #ktdp.memory_space<global>} : memref<16x64xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 64], strides: [64, 1] {coordinate_set = #view, memory_space = #ktdp.memory_space<global>} : memref<16x64xf16>
  %xt = ktdp.construct_access_tile %xv[%c8, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<16x64xf16> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c8, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<16x64xf16> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf16>
  %e = math.exp %a : tensor<8x32xf16>
  ktdp.store %e, %ot : tensor<8x32xf16>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// The same dim divided again by an inner loop (seed 000's nested span
// tiles): 8 rows in 2 tiles of 4 (4 x 32 = 128 elements per outer step),
// each in 2 tiles of 2 (2 x 32 = 64 per inner step).
// CHECK-LABEL: func.func @span(%x: index, %out: index) {
// CHECK:       spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// CHECK-NEXT:  ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [2] {
// CHECK-NEXT:    ^bb0(%[[J:.*]]: index):
// CHECK:           affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 128 + d1 * 64)>(%[[I]], %[[J]])[%x]
// CHECK-NEXT:      ktdp.construct_memory_view %{{.*}}, sizes: [2, 32], strides: [32, 1]
// CHECK:           ktdp.load %{{.*}} -> tensor<2x32xf32>
// CHECK:           affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 128 + d1 * 64)>(%[[I]], %[[J]])[%out]
// CHECK:           ktdp.store %{{.*}} : tensor<2x32xf32>, <2x32xindex>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @span(%x: index, %out: index) attributes {spyre.slices = [[2, [0]], [2, [0]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// Size-1 tiles: as many slices as rows (8), one row of 32 per tile.
// CHECK-LABEL: func.func @rows(%x: index, %out: index) {
// CHECK:       spyre_loop.loop count(8) tiled_dims [0] tile_sizes [1] {
// CHECK:         affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 32)>
// CHECK-NEXT:    ktdp.construct_memory_view %{{.*}}, sizes: [1, 32], strides: [32, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 31 >= 0)>
// CHECK-NEXT:    ktdp.construct_access_tile {{.*}} -> !ktdp.access_tile<1x32xindex>
// CHECK-NEXT:    %a = ktdp.load %{{.*}} -> tensor<1x32xf32>
// CHECK-NEXT:    %e = math.exp %a : tensor<1x32xf32>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: index, %out: index) attributes {spyre.slices = [[8, [0]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// Per-group dims: two independent groups, each hinted on its own store. The
// first is cut into 2 tiles of 4 rows (4 x 32 = 128 elements a step), the
// second into 4 tiles of 8 columns (8 x 1 = 8 elements a step, views
// [8, 32 - (32 - 8)] = [8, 8]). The hints are consumed.
// CHECK-LABEL: func.func @per_group(%x: index, %y: index, %o1: index, %o2: index) {
// CHECK-NEXT:    call @local_schedule_0(%x, %o1)
// CHECK-NEXT:    call @local_schedule_1(%y, %o2)
// CHECK:       func.func @local_schedule_0(%x: index, %o1: index) attributes {spyre.compute_group} {
// CHECK-NEXT:    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// CHECK:           affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%{{.*}})[%x]
// CHECK-NEXT:      ktdp.construct_memory_view %{{.*}}, sizes: [4, 32], strides: [32, 1]
// CHECK:           %ea = math.exp %a : tensor<4x32xf32>
// CHECK:           affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%{{.*}})[%o1]
// CHECK:           ktdp.store %ea, %{{.*}} : tensor<4x32xf32>, <4x32xindex>{{$}}
// CHECK:       func.func @local_schedule_1(%y: index, %o2: index) attributes {spyre.compute_group} {
// CHECK-NEXT:    spyre_loop.loop count(4) tiled_dims [1] tile_sizes [8] {
// CHECK:           affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 8)>(%{{.*}})[%y]
// CHECK-NEXT:      ktdp.construct_memory_view %{{.*}}, sizes: [8, 8], strides: [32, 1]
// CHECK:           %eb = math.sqrt %b : tensor<8x8xf32>
// CHECK:           affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 8)>(%{{.*}})[%o2]
// CHECK:           ktdp.store %eb, %{{.*}} : tensor<8x8xf32>, <8x8xindex>{{$}}
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @per_group(%x: index, %y: index, %o1: index, %o2: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %o1v = ktdp.construct_memory_view %o1, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %o2v = ktdp.construct_memory_view %o2, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %o1t = ktdp.construct_access_tile %o1v[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %o2t = ktdp.construct_access_tile %o2v[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %ea = math.exp %a : tensor<8x32xf32>
  ktdp.store %ea, %o1t {spyre.slices = [[2, [0]]]} : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  %b = ktdp.load %yt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %eb = math.sqrt %b : tensor<8x32xf32>
  ktdp.store %eb, %o2t {spyre.slices = [[4, [1]]]} : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A hint on an op of one group leaves the other group alone (no hint, no
// option, a working set of 2 KiB that fits LX). With slices=2 (OPT) the
// option tiles dim 0 of the unhinted group and the hint still wins on the
// hinted one. With lx-bytes=1024 (AUTO) the unhinted group, 2 x 1024 bytes
// live at once, is cut into the fewest slices that fit: 2.
// CHECK-LABEL: func.func @one_hinted(
// CHECK:       func.func @local_schedule_0(%x: index, %o1: index) attributes {spyre.compute_group} {
// CHECK-NEXT:    spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// CHECK:       func.func @local_schedule_1(%y: index, %o2: index) attributes {spyre.compute_group} {
// CHECK-NOT:     spyre_loop.loop
// CHECK:         %b = ktdp.load %{{.*}} -> tensor<8x32xf32>
// CHECK-NEXT:    %eb = math.sqrt %b : tensor<8x32xf32>
// CHECK-NEXT:    %o2v = ktdp.construct_memory_view %o2, sizes: [8, 32], strides: [32, 1]
// CHECK-NEXT:    %o2t = ktdp.construct_access_tile %o2v[
// CHECK-NEXT:    ktdp.store %eb, %o2t : tensor<8x32xf32>, <8x32xindex>
// CHECK-NEXT:    return
// OPT-LABEL:   func.func @one_hinted(
// OPT:         func.func @local_schedule_0(%x: index, %o1: index) attributes {spyre.compute_group} {
// OPT-NEXT:      spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// OPT:         func.func @local_schedule_1(%y: index, %o2: index) attributes {spyre.compute_group} {
// OPT-NEXT:      spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// OPT:             affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%{{.*}})[%y]
// OPT:             %eb = math.sqrt %b : tensor<4x32xf32>
// AUTO-LABEL:  func.func @one_hinted(
// AUTO:        func.func @local_schedule_0(%x: index, %o1: index) attributes {spyre.compute_group} {
// AUTO-NEXT:     spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// AUTO:        func.func @local_schedule_1(%y: index, %o2: index) attributes {spyre.compute_group} {
// AUTO-NEXT:     spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @one_hinted(%x: index, %y: index, %o1: index, %o2: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %o1v = ktdp.construct_memory_view %o1, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %o2v = ktdp.construct_memory_view %o2, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %o1t = ktdp.construct_access_tile %o1v[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %o2t = ktdp.construct_access_tile %o2v[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %ea = math.exp %a {spyre.slices = 4} : tensor<8x32xf32>
  ktdp.store %ea, %o1t : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  %b = ktdp.load %yt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %eb = math.sqrt %b : tensor<8x32xf32>
  ktdp.store %eb, %o2t : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A named dim: "cols" is dim 1 of `spyre.dims`; 2 tiles of 16 columns, the
// base moving 16 x 1 elements a step. Both attributes are consumed.
// CHECK-LABEL: func.func @named(%x: index, %out: index) {
// CHECK:       spyre_loop.loop count(2) tiled_dims [1] tile_sizes [16] {
// CHECK:         affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 16)>(%{{.*}})[%x]
// CHECK-NEXT:    ktdp.construct_memory_view %{{.*}}, sizes: [8, 16], strides: [32, 1]
// CHECK:         %e = math.exp %a : tensor<8x16xf32>
// CHECK-NOT:   spyre.dims
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @named(%x: index, %out: index) attributes {spyre.dims = ["rows", "cols"], spyre.slices = [[2, ["cols"]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A reduction over the columns and a broadcast back: the rows (dim 0) are
// not reduced, so tiling them is legal. The splat init, the reduction, the
// tensor.empty and the broadcast all shrink to 4 rows; the columns stay.
// CHECK-LABEL: func.func @center(%x: index, %out: index) {
// CHECK:       spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// CHECK:         affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%{{.*}})[%x]
// CHECK:         %a = ktdp.load %{{.*}} : <4x32xindex> -> tensor<4x32xf32>
// CHECK-NEXT:    %init = tensor.splat %zero : tensor<4xf32>
// CHECK-NEXT:    %sum = linalg.reduce { arith.addf } ins(%a : tensor<4x32xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT:    %e = tensor.empty() : tensor<4x32xf32>
// CHECK-NEXT:    %b = linalg.broadcast ins(%sum:tensor<4xf32>) outs(%e:tensor<4x32xf32>) dimensions = [1]
// CHECK-NEXT:    %d = arith.subf %a, %b : tensor<4x32xf32>
// CHECK-NEXT:    affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%{{.*}})[%out]
// CHECK:         ktdp.store %d, %{{.*}} : tensor<4x32xf32>, <4x32xindex>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @center(%x: index, %out: index) attributes {spyre.slices = 2} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %init = tensor.splat %zero : tensor<8xf32>
  %sum = linalg.reduce { arith.addf } ins(%a : tensor<8x32xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
  %e = tensor.empty() : tensor<8x32xf32>
  %b = linalg.broadcast ins(%sum : tensor<8xf32>) outs(%e : tensor<8x32xf32>) dimensions = [1]
  %d = arith.subf %a, %b : tensor<8x32xf32>
  ktdp.store %d, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// Already extracted, hinted on the group function: column sums, the
// iteration space is the stored [32] vector, whose dim 0 is the columns of
// x (not the reduced rows). x's view keeps its 8 rows and its tiles take 16
// columns (16 x 1 elements a step); the splat constant shrinks with them.
// CHECK-LABEL: func.func @colsum(%x: index, %out: index) {
// CHECK:       func.func @local_schedule_0(%x: index, %out: index) attributes {spyre.compute_group} {
// CHECK-NEXT:    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [16] {
// CHECK:           %zero = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK:           affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 16)>(%{{.*}})[%x]
// CHECK-NEXT:      ktdp.construct_memory_view %{{.*}}, sizes: [8, 16], strides: [32, 1]
// CHECK:           %a = ktdp.load %{{.*}} : <8x16xindex> -> tensor<8x16xf32>
// CHECK-NEXT:      %sum = linalg.reduce { arith.addf } ins(%a : tensor<8x16xf32>) outs(%zero : tensor<16xf32>) dimensions = [0]
// CHECK-NEXT:      affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 16)>(%{{.*}})[%out]
// CHECK-NEXT:      ktdp.construct_memory_view %{{.*}}, sizes: [16], strides: [1]
// CHECK:           ktdp.store %sum, %{{.*}} : tensor<16xf32>, <16xindex>
// CHECK-NOT:   spyre.slices
builtin.module {
  builtin.module {
    func.func @colsum(%x: index, %out: index) {
      func.call @local_schedule_0(%x, %out) : (index, index) -> ()
      func.return
    }
    func.func private @local_schedule_0(index, index) -> ()
  }
  builtin.module @local_schedule_0 {
    func.func @local_schedule_0(%x: index, %out: index) attributes {spyre.compute_group, spyre.slices = [[2, [0]]]} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant dense<0.0> : tensor<32xf32>
      %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
      %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
      %sum = linalg.reduce { arith.addf } ins(%a : tensor<8x32xf32>) outs(%zero : tensor<32xf32>) dimensions = [0]
      %ov = ktdp.construct_memory_view %out, sizes: [32], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 31 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<32xf32>
      %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 31 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<32xf32> -> !ktdp.access_tile<32xindex>
      ktdp.store %sum, %ot : tensor<32xf32>, !ktdp.access_tile<32xindex>
      func.return
    }
  }
}

// -----

// No hint: left alone by default. With slices=2 (OPT) dim 0, the rows, is
// what the column sum reduces: the group stays untiled, with a remark.
// CHECK-LABEL: func.func @colcenter(%x: index, %out: index) {
// CHECK:       func.func @local_schedule_0(
// CHECK-NOT:     spyre_loop.loop
// CHECK:         linalg.reduce {{.*}} ins(%a : tensor<8x32xf32>) outs(%init : tensor<32xf32>) dimensions = [0]
// OPT-LABEL:   func.func @colcenter(
// OPT:         func.func @local_schedule_0(
// OPT-NOT:       spyre_loop.loop
// OPT:           linalg.reduce {{.*}} ins(%a : tensor<8x32xf32>) outs(%init : tensor<32xf32>) dimensions = [0]
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @colcenter(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %init = tensor.splat %zero : tensor<32xf32>
  // expected-remark @+1 {{group @local_schedule_0 left untiled: tiling dim 0 tiles a dim that 'linalg.reduce' reduces; a tiled reduction is not supported}}
  %sum = linalg.reduce { arith.addf } ins(%a : tensor<8x32xf32>) outs(%init : tensor<32xf32>) dimensions = [0]
  %e = tensor.empty() : tensor<8x32xf32>
  %b = linalg.broadcast ins(%sum : tensor<32xf32>) outs(%e : tensor<8x32xf32>) dimensions = [0]
  %d = arith.subf %a, %b : tensor<8x32xf32>
  ktdp.store %d, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// No hint, 3 x 1024 bytes live at once (a, b, their sum): untouched by
// default; slices=2 (OPT) cuts dim 0 in 2 (4 x 32 = 128 elements a step);
// lx-bytes=1024 (AUTO) needs 4 slices (3 x 256 bytes; 2 would leave 1536).
// CHECK-LABEL: func.func @plain(
// CHECK:       func.func @local_schedule_0(
// CHECK-NOT:     spyre_loop.loop
// CHECK:         %s = arith.addf %a, %b : tensor<8x32xf32>
// OPT-LABEL:   func.func @plain(
// OPT:         spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// OPT:           affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>
// OPT:           %s = arith.addf %a, %b : tensor<4x32xf32>
// AUTO-LABEL:  func.func @plain(
// AUTO:        spyre_loop.loop count(4) tiled_dims [0] tile_sizes [2] {
// AUTO:          affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 64)>
// AUTO:          %s = arith.addf %a, %b : tensor<2x32xf32>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @plain(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %s = arith.addf %a, %b : tensor<8x32xf32>
  %e = math.exp %s : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A tail tile: an 8-row tile on a 5-row view (rows 5..7 masked, KTDP-SEMANTICS
// §4) in 2 slices. x's and out's tile views keep the view's rows from each
// slice's origin, max(0, 5 - 4 k) (slice 0: 5, its rows 0..3 all inside;
// slice 1: 1, row 4 inside, 5..7 masked); a view with a dynamic size binds it
// in its coordinate_set's symbol. y's view has 8 rows: the tile lies inside,
// one static size (4) serves every slice. 16 rows on 5 (slices wholly past
// the end) give max(0, negative) = 0: all masked.
// CHECK-LABEL: func.func @tail(
// CHECK:       spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// CHECK-NEXT:  ^bb0(%[[K:.*]]: index):
// CHECK:         %[[Z:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[R:.*]] = affine.apply affine_map<(d0) -> (d0 * -4 + 5)>(%[[K]])
// CHECK-NEXT:    %[[N:.*]] = arith.maxsi %[[R]], %[[Z]] : index
// CHECK-NEXT:    %[[XB:.*]] = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 128)>(%[[K]])[%x]
// CHECK-NEXT:    %[[XV:.*]] = ktdp.construct_memory_view %[[XB]], sizes: [%[[N]], 32], strides: [32, 1] {coordinate_set = affine_set<(d0, d1)[s0] : (d0 >= 0, s0 - 1 - d0 >= 0, d1 >= 0, -d1 + 31 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<?x32xf32>
// CHECK-NEXT:    ktdp.construct_access_tile %[[XV]][%c0, %c0] {{.*}} : memref<?x32xf32> -> !ktdp.access_tile<4x32xindex>
// CHECK:         ktdp.construct_memory_view %{{.*}}, sizes: [4, 32], strides: [32, 1] {{.*}} : memref<4x32xf32>
// CHECK:         arith.maxsi
// CHECK:         ktdp.construct_memory_view %{{.*}}, sizes: [%{{.*}}, 32], strides: [32, 1] {{.*}} : memref<?x32xf32>
// CHECK:         ktdp.store %s, %{{.*}} : tensor<4x32xf32>, <4x32xindex>
// OPT-LABEL:   func.func @tail(
// OPT:         spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
// OPT:           sizes: [%{{.*}}, 32]
#v5 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @tail(%x: index, %y: index, %out: index) attributes {spyre.slices = 2} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [5, 32], strides: [32, 1] {coordinate_set = #v5, memory_space = #ktdp.memory_space<global>} : memref<5x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [5, 32], strides: [32, 1] {coordinate_set = #v5, memory_space = #ktdp.memory_space<global>} : memref<5x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<5x32xf32> -> !ktdp.access_tile<8x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<5x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %s = arith.addf %a, %b : tensor<8x32xf32>
  ktdp.store %s, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}
