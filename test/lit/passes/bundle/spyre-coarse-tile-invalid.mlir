// RUN: not %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-coarse-tile{slices=0}' 2>&1 | %FileCheck %s --check-prefix=ZERO
// RUN: not %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-coarse-tile{lx-bytes=0}' 2>&1 | %FileCheck %s --check-prefix=LX
// RUN: not %spyre-opt %s --split-input-file -p spyre-coarse-tile 2>&1 | %FileCheck %s --check-prefix=UNGROUPED
// RUN: %spyre-opt %s --split-input-file --verify-diagnostics -p ktdp-extract-compute-groups,spyre-coarse-tile

// Every refusal of a hinted tiling is a located error at the op that makes
// it impossible, with a note at the hint, raised before anything changes.
// The option checks and the ungrouped input run first (the last RUN line
// checks every chunk's diagnostics).
// ZERO: error: spyre-coarse-tile: slices must be positive, got 0
// LX: error: spyre-coarse-tile: lx-bytes must be positive, got 0
// UNGROUPED: spyre-coarse-tile-invalid.mlir:[[# @LINE + 13]]:3: error: pass 'spyre-coarse-tile' needs extracted compute groups: run 'ktdp-extract-compute-groups' first

// A tiled reduction dim: the rows are what the column sum reduces.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @tiled_reduction(%x: index, %out: index) attributes {spyre.slices = 2} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %init = tensor.splat %zero : tensor<32xf32>
  // expected-error @+1 {{tiling dim 0 tiles a dim that 'linalg.reduce' reduces; a tiled reduction is not supported}}
  %sum = linalg.reduce { arith.addf } ins(%a : tensor<8x32xf32>) outs(%init : tensor<32xf32>) dimensions = [0]
  %e = tensor.empty() : tensor<8x32xf32>
  %b = linalg.broadcast ins(%sum : tensor<32xf32>) outs(%e : tensor<8x32xf32>) dimensions = [0]
  %d = arith.subf %a, %b : tensor<8x32xf32>
  ktdp.store %d, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A matmul inside the loop.
#a = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#b = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#o = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul(%x: index, %w: index, %out: index) attributes {spyre.slices = 2} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 16], strides: [16, 1] {coordinate_set = #a, memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [16, 32], strides: [32, 1] {coordinate_set = #b, memory_space = #ktdp.memory_space<global>} : memref<16x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #o, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #a, access_tile_order = #id2} : memref<8x16xf32> -> !ktdp.access_tile<8x16xindex>
  %wt = ktdp.construct_access_tile %wv[%c0, %c0] {access_tile_set = #b, access_tile_order = #id2} : memref<16x32xf32> -> !ktdp.access_tile<16x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #o, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>
  %b = ktdp.load %wt : !ktdp.access_tile<16x32xindex> -> tensor<16x32xf32>
  %init = tensor.empty() : tensor<8x32xf32>
  // expected-error @+1 {{'linalg.matmul' inside a tiling loop is not supported (as in seed 000, coarse tiling does not tile contractions)}}
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%init : tensor<8x32xf32>) -> tensor<8x32xf32>
  ktdp.store %r, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A count that does not divide the dim: 3 slices of 8 rows.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_divide(%x: index, %out: index) attributes {spyre.slices = 3} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  // expected-error @+1 {{3 slices do not divide dim 0 of extent 8}}
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// An inner level that does not divide what the outer one left: 8 rows in
// 2 tiles of 4, then 3 slices of 4.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_divide_inner(%x: index, %out: index) attributes {spyre.slices = [[2, [0]], [3, [0]]]} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  // expected-error @+1 {{3 slices do not divide dim 0 of extent 4}}
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A dim out of range: the iteration space has 2 dims.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @out_of_range(%x: index, %out: index) attributes {spyre.slices = [[2, [2]]]} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  // expected-error @+1 {{cannot tile dim 2: the group's iteration space [8, 32] has 2 dims}}
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// One loop cannot tile two dims: its iterations would visit only the
// diagonal tiles. The message gives the nest to write instead.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_dims_one_loop(%x: index, %out: index) attributes {spyre.slices = [[2, [0, 1]]]} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  // expected-error @+1 {{one loop cannot tile dims [0, 1] together: its 2 iterations would cover only the diagonal tiles; nest one loop per dim instead: [[2, [0]], [2, [1]]]}}
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// Bad hint syntax: a level is [count, [dims]] inside the list of levels.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{'spyre.slices' is a count (dim 0) or [[count, [dims]], ...] outermost first, got 2 : i64}}
func.func @flat_level(%x: index, %out: index) attributes {spyre.slices = [2, [0]]} {
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

// Bad hint syntax on an op: located at the op.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @string_hint(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  // expected-error @+1 {{'spyre.slices' is a count (dim 0) or [[count, [dims]], ...] outermost first, got "two"}}
  %e = math.exp %a {spyre.slices = "two"} : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A count must be positive.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{'spyre.slices' asks for 0 slices: a count must be positive}}
func.func @zero_slices(%x: index, %out: index) attributes {spyre.slices = [[0, [0]]]} {
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

// A dim is an integer or a name.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{a dim in 'spyre.slices' is an integer or a name, got 1.500000e+00 : f64}}
func.func @float_dim(%x: index, %out: index) attributes {spyre.slices = [[2, [1.5]]]} {
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

// A name that spyre.dims does not list.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{'spyre.slices' names dim "lanes", which 'spyre.dims' does not list ['rows', 'cols']}}
func.func @unknown_name(%x: index, %out: index) attributes {spyre.dims = ["rows", "cols"], spyre.slices = [[2, ["lanes"]]]} {
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

// spyre.dims must hold names.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{'spyre.dims' must be an array of dim names (strings), got [0 : i64, 1 : i64]}}
func.func @numbered_dims(%x: index, %out: index) attributes {spyre.dims = [0, 1], spyre.slices = [[2, [0]]]} {
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

// A non-splat dense constant reached by the tiled dim (the rows).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 1 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @dense_constant(%x: index, %out: index) attributes {spyre.slices = 2} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 2], strides: [2, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x2xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 2], strides: [2, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x2xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x2xf32> -> !ktdp.access_tile<4x2xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x2xf32> -> !ktdp.access_tile<4x2xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<4x2xindex> -> tensor<4x2xf32>
  // expected-error @+1 {{tiling dim 0: a constant tensor that is not a splat cannot be cut into tiles}}
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %s = arith.addf %a, %w : tensor<4x2xf32>
  ktdp.store %s, %ot : tensor<4x2xf32>, !ktdp.access_tile<4x2xindex>
  return
}

// -----

// A group with an scf.for (a loop-carried accumulator).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @with_loop(%x: index, %sum: index) attributes {spyre.slices = [[2, [1]]]} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %sv = ktdp.construct_memory_view %sum, sizes: [1, 32], strides: [32, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<1x32xf32>
  %zero = arith.constant dense<0.0> : tensor<1x32xf32>
  // expected-error @+1 {{'scf.for' has regions: a group with loops or branches is not tiled}}
  %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<1x32xf32>) {
    %t = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<1x32xindex>
    %r = ktdp.load %t : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %n = arith.addf %a, %r : tensor<1x32xf32>
    scf.yield %n : tensor<1x32xf32>
  }
  %st = ktdp.construct_access_tile %sv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<1x32xf32> -> !ktdp.access_tile<1x32xindex>
  ktdp.store %acc, %st : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  return
}

// -----

// Two hints in one group.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_hints(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  // expected-note @+1 {{the other hint}}
  %a = ktdp.load %xt {spyre.slices = 2} : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  // expected-error @+1 {{a group takes one 'spyre.slices' hint; another op of the group has one}}
  %e = math.exp %a {spyre.slices = 4} : tensor<8x32xf32>
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// A dim listed twice in one level is a mistake in the hint, not a request
// for a diagonal; the message must not suggest dividing dim 0 twice.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// expected-error-re @+1 {{'spyre.slices' lists dim 0 {{.*}}twice}}
func.func @repeated_dim(%x: index, %out: index) attributes {spyre.slices = [[2, [0, 0]]]} {
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

// Two dims in an inner level: the suggested nest keeps the outer level.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_dims_inner(%x: index, %out: index) attributes {spyre.slices = [[2, [0]], [4, [0, 1]]]} {
// expected-note @-1 {{the tiling was asked for here}}
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<8x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>
  %e = math.exp %a : tensor<8x32xf32>
  // expected-error @+1 {{one loop cannot tile dims [0, 1] together: its 4 iterations would cover only the diagonal tiles; nest one loop per dim instead: [[2, [0]], [4, [0]], [4, [1]]]}}
  ktdp.store %e, %ot : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>
  return
}

// -----

// Sizing the working set needs each tensor's element width: an element type
// without one is a located error (it used to count 64 bits).
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_width(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x8xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x8xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x8xf16> -> !ktdp.access_tile<4x8xindex>
  %d = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf16>
  // expected-error @+1 {{cannot size a tensor<4x8xcomplex<f32>>: no byte width for element type complex<f32>}}
  %e = tensor.empty() : tensor<4x8xcomplex<f32>>
  %i = tensor.empty() : tensor<4x8xf16>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%d, %e : tensor<4x8xf16>, tensor<4x8xcomplex<f32>>) outs(%i : tensor<4x8xf16>) {
  ^bb0(%a: f16, %b: complex<f32>, %o: f16):
    linalg.yield %a : f16
  } -> tensor<4x8xf16>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x8xf16> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %r, %ot : tensor<4x8xf16>, !ktdp.access_tile<4x8xindex>
  return
}
