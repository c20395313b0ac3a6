// RUN: %spyre-opt %s --split-input-file -p ktdp-extract-compute-groups,spyre-coarse-tile,spyre-distribute-work | %FileCheck %s
// RUN: %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-distribute-work{cores=16}' --verify-diagnostics
// RUN: %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-distribute-work{cores=64}' | %FileCheck %s --check-prefix=BIG
// RUN: not %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-distribute-work{cores=0}' 2>&1 | %FileCheck %s --check-prefix=ZERO
// RUN: %spyre-opt %s --split-input-file -p ktdp-extract-compute-groups,spyre-distribute-work | %FileCheck %s --check-prefix=GRID2

// spyre-distribute-work records on each compute group how the kernel's grid
// splits the work: the cores used (the grid's product), the machine's core
// count (option cores=, default 32), the dims of the iteration space along
// which the core id moves the stores, the tile one core computes and the
// tile all cores compute together per iteration.
// ZERO: error: spyre-distribute-work: cores must be positive, got 0

// A vector add over 32 cores, each taking 128 elements at core_id * 128:
// the core id moves dim 0; 32 x 128 = 4096 per iteration. With cores=16 the
// grid asks for more cores than the machine has: a located error at the
// kernel (the group's function carries its location).
// CHECK-LABEL: func.func @vadd(
// CHECK:       func.func @local_schedule_0(%x: index, %y: index, %out: index) attributes {grid = [32], spyre.compute_group, spyre.core_split = {cores = 32 : i64, dims = [0], machine_cores = 32 : i64, per_core = [128], per_iteration = [4096]}} {
// BIG-LABEL:   func.func @vadd(
// BIG:         spyre.core_split = {cores = 32 : i64, dims = [0], machine_cores = 64 : i64, per_core = [128], per_iteration = [4096]}
#all = affine_set<(d0) : (d0 >= 0, -d0 + 4095 >= 0)>
#mine = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @vadd(%x: index, %y: index, %out: index) attributes {grid = [32]} {
// expected-error @-1 {{the kernel's grid [32] asks for 32 cores; the machine has 16}}
  %c128 = arith.constant 128 : index
  %core = ktdp.get_compute_tile_id : index
  %start = arith.muli %core, %c128 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4096], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4096xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [4096], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4096xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [4096], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4096xf16>
  %xt = ktdp.construct_access_tile %xv[%start] {access_tile_set = #mine, access_tile_order = #id1} : memref<4096xf16> -> !ktdp.access_tile<128xindex>
  %yt = ktdp.construct_access_tile %yv[%start] {access_tile_set = #mine, access_tile_order = #id1} : memref<4096xf16> -> !ktdp.access_tile<128xindex>
  %ot = ktdp.construct_access_tile %ov[%start] {access_tile_set = #mine, access_tile_order = #id1} : memref<4096xf16> -> !ktdp.access_tile<128xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<128xindex> -> tensor<128xf16>
  %b = ktdp.load %yt : !ktdp.access_tile<128xindex> -> tensor<128xf16>
  %s = arith.addf %a, %b : tensor<128xf16>
  ktdp.store %s, %ot : tensor<128xf16>, !ktdp.access_tile<128xindex>
  return
}

// -----

// The same split after spyre-coarse-tile cut each core's 128 elements in 2:
// the record is per iteration of the loop, 64 per core, 32 x 64 = 2048.
// CHECK-LABEL: func.func @vadd_tiled(
// CHECK:       func.func @local_schedule_0(%x: index, %out: index) attributes {grid = [32], spyre.compute_group, spyre.core_split = {cores = 32 : i64, dims = [0], machine_cores = 32 : i64, per_core = [64], per_iteration = [2048]}} {
// CHECK-NEXT:    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [64] {
#all = affine_set<(d0) : (d0 >= 0, -d0 + 4095 >= 0)>
#mine = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @vadd_tiled(%x: index, %out: index) attributes {grid = [32], spyre.slices = 2} {
// expected-error @-1 {{the kernel's grid [32] asks for 32 cores; the machine has 16}}
  %c128 = arith.constant 128 : index
  %core = ktdp.get_compute_tile_id : index
  %start = arith.muli %core, %c128 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4096], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4096xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [4096], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4096xf16>
  %xt = ktdp.construct_access_tile %xv[%start] {access_tile_set = #mine, access_tile_order = #id1} : memref<4096xf16> -> !ktdp.access_tile<128xindex>
  %ot = ktdp.construct_access_tile %ov[%start] {access_tile_set = #mine, access_tile_order = #id1} : memref<4096xf16> -> !ktdp.access_tile<128xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<128xindex> -> tensor<128xf16>
  %e = math.exp %a : tensor<128xf16>
  ktdp.store %e, %ot : tensor<128xf16>, !ktdp.access_tile<128xindex>
  return
}

// -----

// A one-core kernel that never reads its core id: one core, no dim moved by
// it, the whole vector per core and per iteration. Fits cores=16.
// CHECK-LABEL: func.func @single(
// CHECK:       func.func @local_schedule_0(%x: index, %out: index) attributes {grid = [1], spyre.compute_group, spyre.core_split = {cores = 1 : i64, dims = [], machine_cores = 32 : i64, per_core = [64], per_iteration = [64]}} {
// BIG-LABEL:   func.func @single(
// BIG:         spyre.core_split = {cores = 1 : i64, dims = [], machine_cores = 64 : i64, per_core = [64], per_iteration = [64]}
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @single(%x: index, %out: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  ktdp.store %e, %ot : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}

// -----

// A grid of 8 on the 32-core machine: 24 cores idle, which the record shows
// (cores = 8 of machine_cores = 32); 8 x 16 = 128 rows per iteration, the
// core id moving dim 0 through a chain of index arithmetic.
// CHECK-LABEL: func.func @idle(
// CHECK:       spyre.core_split = {cores = 8 : i64, dims = [0], machine_cores = 32 : i64, per_core = [16, 32], per_iteration = [128, 32]}
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @idle(%x: index, %out: index) attributes {grid = [8]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %core = ktdp.get_compute_tile_id : index
  %twice = arith.addi %core, %core : index
  %row = arith.muli %twice, %c8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [128, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<128x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [128, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<128x32xf32>
  %xt = ktdp.construct_access_tile %xv[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<128x32xf32> -> !ktdp.access_tile<16x32xindex>
  %ot = ktdp.construct_access_tile %ov[%row, %c0] {access_tile_set = #mine, access_tile_order = #id2} : memref<128x32xf32> -> !ktdp.access_tile<16x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<16x32xindex> -> tensor<16x32xf32>
  %e = math.exp %a : tensor<16x32xf32>
  ktdp.store %e, %ot : tensor<16x32xf32>, !ktdp.access_tile<16x32xindex>
  return
}

// -----

// A 2 x 16 grid: the first id moves the rows (2 cores), the second the
// columns (16 cores). Each core computes 4 x 4; together they cover
// 2 x 4 = 8 rows and 16 x 4 = 64 columns per iteration.
// GRID2-LABEL: func.func @grid2(
// GRID2:       spyre.core_split = {cores = 32 : i64, dims = [0, 1], machine_cores = 32 : i64, per_core = [4, 4], per_iteration = [8, 64]}
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @grid2(%x: index, %out: index) attributes {grid = [2, 16]} {
// expected-error @-1 {{the kernel's grid [2, 16] asks for 32 cores; the machine has 16}}
  %c4 = arith.constant 4 : index
  %i, %j = ktdp.get_compute_tile_id : index, index
  %r = arith.muli %i, %c4 : index
  %c = arith.muli %j, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%r, %c] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<4x4xindex>
  %ot = ktdp.construct_access_tile %ov[%r, %c] {access_tile_set = #mine, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<4x4xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<4x4xindex> -> tensor<4x4xf32>
  %e = math.exp %a : tensor<4x4xf32>
  ktdp.store %e, %ot : tensor<4x4xf32>, !ktdp.access_tile<4x4xindex>
  return
}
