// RUN: %spyre-opt %s --split-input-file -p spatial-tile | %FileCheck %s
// RUN: %spyre-opt %s --split-input-file -p spatial-tile | %spyre-opt --split-input-file | %FileCheck %s
// RUN: %spyre-opt %s --split-input-file --pipeline ktir-to-spatial | %FileCheck %s --check-prefix=VERIFIED

// Scalar arguments are runtime inputs of the spatial program (issue 22), never
// a reason to specialize. A float scalar is a parameter the compute stages read:
// scalars(@alpha), one body argument of its type after the tiles.

// CHECK-LABEL: spatial.program @axpy
// CHECK:         spatial.scalar @alpha : f32{{$}}
// CHECK:         spatial.stage @b0_cp0 compute(@b0_in0, @b0_in1) -> @b0_out0 on @b0 engine "compute" scalars(@alpha) {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<32x16xf32>, %{{.*}}: tensor<32x16xf32>, %[[A:.*]]: f32):
// CHECK-NEXT:      tensor.splat %[[A]] : tensor<32x16xf32>
// CHECK:         spatial.stage @b1_cp0 {{.*}} scalars(@alpha) {
// VERIFIED-LABEL: spatial.program @axpy
// VERIFIED-SAME:  spatial.phase = "verified"
func.func @axpy(%x: index, %y: index, %alpha: f32) attributes {grid = [2]} {
  %c = ktdp.get_compute_tile_id : index
  %c32 = arith.constant 32 : index
  %row = arith.muli %c, %c32 : index
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<64x16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [64, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<64x16xf32>
  %xt = ktdp.construct_access_tile %xv[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<64x16xf32> -> !ktdp.access_tile<32x16xindex>
  %yt = ktdp.construct_access_tile %yv[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<64x16xf32> -> !ktdp.access_tile<32x16xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<32x16xindex> -> tensor<32x16xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<32x16xindex> -> tensor<32x16xf32>
  %s = tensor.splat %alpha : tensor<32x16xf32>
  %ax = arith.mulf %s, %a : tensor<32x16xf32>
  %r = arith.addf %ax, %b : tensor<32x16xf32>
  ktdp.store %r, %yt : tensor<32x16xf32>, !ktdp.access_tile<32x16xindex>
  return
}

// -----

// An index scalar bounding a loop is a trip: per site, ceil((n_rows - lb) / 16)
// iterations (bias -lb), admitted while the loop's 8-row tiles overlap their
// 128-row views (n_rows <= 128 on every site).

// CHECK-LABEL: spatial.program @rows
// CHECK:         spatial.scalar @n_rows : index{{$}}
// CHECK:         spatial.trip @trip_n_rows from @n_rows per 16 bias 0 admit [0, 128]{{$}}
// CHECK-NEXT:    spatial.trip @trip_n_rows_1 from @n_rows per 16 bias -8 admit [0, 128]{{$}}
// CHECK:         spatial.engine @b0 "load" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to trip(@trip_n_rows) {
// CHECK:         spatial.engine @b1 "store" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to trip(@trip_n_rows_1) {
// VERIFIED-LABEL: spatial.program @rows
// VERIFIED-SAME:  spatial.phase = "verified"
func.func @rows(%x: index, %z: index, %n_rows: index) attributes {grid = [2]} {
  %c = ktdp.get_compute_tile_id : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %lb = arith.muli %c, %c8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [128, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x16xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [128, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x16xf32>
  scf.for %i = %lb to %n_rows step %c16 {
  %xt = ktdp.construct_access_tile %xv[%i, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<128x16xf32> -> !ktdp.access_tile<8x16xindex>
  %zt = ktdp.construct_access_tile %zv[%i, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<128x16xf32> -> !ktdp.access_tile<8x16xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %e = math.exp %a : tensor<8x16xf32>
  ktdp.store %e, %zt : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>
  }
  return
}

// -----

// A spyre.admit argument attribute states the range and the granularity.

// CHECK-LABEL: spatial.program @rows
// CHECK:         spatial.trip @trip_n_rows from @n_rows per 16 bias 0 admit [0, 64] granularity 16{{$}}
// CHECK-NEXT:    spatial.trip @trip_n_rows_1 from @n_rows per 16 bias -8 admit [0, 64] granularity 16{{$}}
// VERIFIED-LABEL: spatial.program @rows
func.func @rows(%x: index, %z: index, %n_rows: index {spyre.admit = {upperbound = 64 : i64, granularity = 16 : i64}}) attributes {grid = [2]} {
  %c = ktdp.get_compute_tile_id : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %lb = arith.muli %c, %c8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [128, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x16xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [128, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x16xf32>
  scf.for %i = %lb to %n_rows step %c16 {
  %xt = ktdp.construct_access_tile %xv[%i, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<128x16xf32> -> !ktdp.access_tile<8x16xindex>
  %zt = ktdp.construct_access_tile %zv[%i, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<128x16xf32> -> !ktdp.access_tile<8x16xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %e = math.exp %a : tensor<8x16xf32>
  ktdp.store %e, %zt : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>
  }
  return
}

// -----

// So does a !ktdp.runtime_arg's upperbound and granularity; the program's
// parameter is its underlying value.

// CHECK-LABEL: spatial.program @rows
// CHECK:         spatial.scalar @M : index{{$}}
// CHECK:         spatial.trip @trip_M from @M per 16 bias 0 admit [0, 96] granularity 16{{$}}
// VERIFIED-LABEL: spatial.program @rows
func.func @rows(%x: index, %z: index, %M: !ktdp.runtime_arg<index, granularity=16, upperbound=96>) attributes {grid = [2]} {
  %c = ktdp.get_compute_tile_id : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %lb = arith.muli %c, %c8 : index
  %n_rows = ktdp.runtime_arg_extract value from %M : !ktdp.runtime_arg<index, granularity=16, upperbound=96> -> index
  %xv = ktdp.construct_memory_view %x, sizes: [128, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x16xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [128, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x16xf32>
  scf.for %i = %lb to %n_rows step %c16 {
  %xt = ktdp.construct_access_tile %xv[%i, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<128x16xf32> -> !ktdp.access_tile<8x16xindex>
  %zt = ktdp.construct_access_tile %zv[%i, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<128x16xf32> -> !ktdp.access_tile<8x16xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %e = math.exp %a : tensor<8x16xf32>
  ktdp.store %e, %zt : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>
  }
  return
}
