// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p spyre-physicalize-layouts | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --split-input-file -p spyre-physicalize-layouts --mlir-print-op-generic | %spyre-opt --mlir-print-local-scope --split-input-file | %FileCheck %s

// The issue's example: a marked 128x128 f32 view becomes memref<2x128x64xf32>
// with strides [8192, 64, 1]; the tile's anchors are divsi/remsi of the logical
// ones; the load yields the physical tensor; elementwise ops take its type; a
// store into an unmarked view converts back to logical (a spyre.relayout; a
// plain reshape where only axes of extent 1 move, see @one_stick). The pointer
// keeps its layout as an argument attribute.
// CHECK-LABEL: func.func @copy
// CHECK-SAME: %x: index {spyre.host_layout = {phys_arg = array<i64: 64, 0, 64>, phys_op = array<i64: 1, 0, 2>, phys_src = array<i64: 1, 0, 1>, shape = array<i64: 128, 128>}}, %out: index, %i: index, %j: index
// CHECK: %v = ktdp.construct_memory_view %x, sizes: [2, 128, 64], strides: [8192, 64, 1] {coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 127 >= 0, d2 >= 0, -d2 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x128x64xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[Q:.*]] = arith.divsi %j, %[[C64]] : index
// CHECK: %[[C64B:.*]] = arith.constant 64 : index
// CHECK: %[[R:.*]] = arith.remsi %j, %[[C64B]] : index
// CHECK: %t = ktdp.construct_access_tile %v[%[[Q]], %i, %[[R]]] {access_tile_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>, access_tile_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 63 >= 0)>} : memref<2x128x64xf32> -> !ktdp.access_tile<2x4x64xindex>
// CHECK: %d = ktdp.load %t : <2x4x64xindex> -> tensor<2x4x64xf32>
// CHECK: %e = math.exp %d : tensor<2x4x64xf32>
// CHECK: %[[L:.*]] = spyre.relayout %e {from = [array<i64: 1, 0, 1>, array<i64: 1, 0, 2>, array<i64: 64, 0, 64>], to = [array<i64: 0, 1>, array<i64: 0, 0>, array<i64: 0, 0>]} : tensor<2x4x64xf32> -> tensor<4x128xf32>
// CHECK: ktdp.store %[[L]], %{{.*}} : tensor<4x128xf32>, <4x128xindex>
// CHECK-NOT: spyre.tensor_layout
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#blk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @copy(%x: index, %out: index, %i: index, %j: index) {
  %v = ktdp.construct_memory_view %x, sizes: [128, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<128x128xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x128xf32>
  %o = ktdp.construct_memory_view %out, sizes: [128, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<128x128xf32>
  %t = ktdp.construct_access_tile %v[%i, %j] {access_tile_set = #blk, access_tile_order = #id2} : memref<128x128xf32> -> !ktdp.access_tile<4x128xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
  %e = math.exp %d : tensor<4x128xf32>
  %ot = ktdp.construct_access_tile %o[%i, %j] {access_tile_set = #blk, access_tile_order = #id2} : memref<128x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %e, %ot : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

// Broadcast of a stick-laid row vector (its carried axis split like the
// consumer's), a reduction over the stick axis (both physical parts), a
// tensor.extract (physical indices), splats built at the user's layout.
// CHECK-LABEL: func.func @broadcast_reduce_extract
// CHECK: %xd = ktdp.load %{{.*}} : <2x4x64xindex> -> tensor<2x4x64xf32>
// CHECK: %wd = ktdp.load %{{.*}} : <2x64xindex> -> tensor<2x64xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x64xf32>
// CHECK: %[[WB:.*]] = linalg.broadcast ins(%wd:tensor<2x64xf32>) outs(%[[E]]:tensor<2x4x64xf32>) dimensions = [1]
// CHECK: %m = arith.mulf %xd, %[[WB]] : tensor<2x4x64xf32>
// CHECK: %s0 = tensor.splat %zero : tensor<4xf32>
// CHECK: %sum = linalg.reduce { arith.addf } ins(%m : tensor<2x4x64xf32>) outs(%s0 : tensor<4xf32>) dimensions = [0, 2]
// CHECK: %first = tensor.extract %m[%{{.*}}, %c1, %{{.*}}] : tensor<2x4x64xf32>
// CHECK: %[[SB:.*]] = linalg.broadcast ins(%sum:tensor<4xf32>) outs(%{{.*}}:tensor<2x4x64xf32>) dimensions = [0, 2]
// CHECK: %y = arith.subf %m, %[[SB]] : tensor<2x4x64xf32>
// CHECK: %[[FY:.*]] = tensor.splat %first : tensor<2x4x64xf32>
// CHECK: %z = arith.addf %y, %[[FY]] : tensor<2x4x64xf32>
// CHECK: %[[OUT:.*]] = spyre.relayout %z {{.*}} : tensor<2x4x64xf32> -> tensor<4x128xf32>
// CHECK: return %[[OUT]] : tensor<4x128xf32>
#x2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#v1  = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast_reduce_extract(%x: index, %w: index) -> tensor<4x128xf32> {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<4x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v1, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  spyre.tensor_layout %wv {phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: 64, 64>} : memref<128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #x2, access_tile_order = #id2} : memref<4x128xf32> -> !ktdp.access_tile<4x128xindex>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v1, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %e = tensor.empty() : tensor<4x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<4x128xf32>) dimensions = [0]
  %m = arith.mulf %xd, %wb : tensor<4x128xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.splat %zero : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%m : tensor<4x128xf32>) outs(%s0 : tensor<4xf32>) dimensions = [1]
  %c1 = arith.constant 1 : index
  %first = tensor.extract %m[%c1, %c1] : tensor<4x128xf32>
  %e2 = tensor.empty() : tensor<4x128xf32>
  %sb = linalg.broadcast ins(%sum : tensor<4xf32>) outs(%e2 : tensor<4x128xf32>) dimensions = [1]
  %y = arith.subf %m, %sb : tensor<4x128xf32>
  %fy = tensor.splat %first : tensor<4x128xf32>
  %z = arith.addf %y, %fy : tensor<4x128xf32>
  return %z : tensor<4x128xf32>
}

// -----

// A matmul whose sticks agree (A on K, B and C on N): a linalg.generic over
// the split loops; B's whole K axis is expanded (a free reshape) to meet A's split.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[B:.*]] = tensor.expand_shape %bd {{\[}}[0], [1, 2], [3]] output_shape [1, 2, 64, 64] : tensor<1x128x64xf32> into tensor<1x2x64x64xf32>
// CHECK: %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d3, d0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%ad, %[[B]] : tensor<2x32x64xf32>, tensor<1x2x64x64xf32>) outs(%{{.*}} : tensor<1x32x64xf32>)
// CHECK: ktdp.store %r, %{{.*}} : tensor<1x32x64xf32>, <1x32x64xindex>
#m_a = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#m_b = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#m_c = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul(%a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %av = ktdp.construct_memory_view %a, sizes: [32, 128], strides: [128, 1] {coordinate_set = #m_a, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [128, 64], strides: [64, 1] {coordinate_set = #m_b, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [32, 64], strides: [64, 1] {coordinate_set = #m_c, memory_space = #ktdp.memory_space<global>} : memref<32x64xf32>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x64xf32>
  %at = ktdp.construct_access_tile %av[%c0, %c0] {access_tile_set = #m_a, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<32x128xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %c0] {access_tile_set = #m_b, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<128x64xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf32>
  %bd = ktdp.load %bt : !ktdp.access_tile<128x64xindex> -> tensor<128x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.matmul ins(%ad, %bd : tensor<32x128xf32>, tensor<128x64xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %ct = ktdp.construct_access_tile %cv[%c0, %c0] {access_tile_set = #m_c, access_tile_order = #id2} : memref<32x64xf32> -> !ktdp.access_tile<32x64xindex>
  ktdp.store %r, %ct : tensor<32x64xf32>, !ktdp.access_tile<32x64xindex>
  return
}

// -----

// A loop-carried value: the splat init is built at the loop's layout, the
// iter_arg, the yield and the result are physical.
// CHECK-LABEL: func.func @loop
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x4x64xf32>
// CHECK: %acc = scf.for %i = %c0 to %c32 step %c4 iter_args(%a = %[[Z]]) -> (tensor<2x4x64xf32>) {
// CHECK: %n = arith.addf %a, %xd : tensor<2x4x64xf32>
// CHECK: scf.yield %n : tensor<2x4x64xf32>
// CHECK: ktdp.store %acc, %{{.*}} : tensor<2x4x64xf32>, <2x4x64xindex>
#x2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @loop(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %xv = ktdp.construct_memory_view %x, sizes: [32, 128], strides: [128, 1] {coordinate_set = #x2, memory_space = #ktdp.memory_space<global>} : memref<32x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<32x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 128], strides: [128, 1] {coordinate_set = #row, memory_space = #ktdp.memory_space<global>} : memref<4x128xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x128xf32>
  %zero = arith.constant dense<0.0> : tensor<4x128xf32>
  %acc = scf.for %i = %c0 to %c32 step %c4 iter_args(%a = %zero) -> (tensor<4x128xf32>) {
    %xt = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %xd = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %n = arith.addf %a, %xd : tensor<4x128xf32>
    scf.yield %n : tensor<4x128xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %acc, %ot : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  return
}

// -----

// Conflicts: a pointwise op on three values, two in the stick-on-N layout and
// one logical: the logical one is converted (fewest bytes). A transpose keeps
// the physical tensor (an identity permutation under relabeled dims); the
// store into a view stick-laid on its own last dim needs a relayout.
// CHECK-LABEL: func.func @conflicts
// CHECK: %[[YL:.*]] = spyre.relayout %yd {from = [array<i64: 0, 1>, array<i64: 0, 0>, array<i64: 0, 0>], to = [array<i64: 1, 0, 1>, array<i64: 1, 0, 2>, array<i64: 64, 0, 64>]} : tensor<64x128xf32> -> tensor<2x64x64xf32>
// CHECK: %s = arith.addf %xd, %[[YL]] : tensor<2x64x64xf32>
// CHECK: %s2 = arith.addf %s, %xd : tensor<2x64x64xf32>
// CHECK: %t = linalg.transpose ins(%s2:tensor<2x64x64xf32>) outs(%{{.*}}:tensor<2x64x64xf32>) permutation = [0, 1, 2]
// CHECK: %[[TL:.*]] = spyre.relayout %t {from = [array<i64: 0, 1, 0>, array<i64: 1, 0, 2>, array<i64: 64, 0, 64>], to = [array<i64: 1, 0, 1>, array<i64: 1, 0, 2>, array<i64: 64, 0, 64>]} : tensor<2x64x64xf32> -> tensor<1x128x64xf32>
// CHECK: ktdp.store %[[TL]], %{{.*}} : tensor<1x128x64xf32>, <1x128x64xindex>
#a2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#t2  = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @conflicts(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64, 128], strides: [128, 1] {coordinate_set = #a2, memory_space = #ktdp.memory_space<global>} : memref<64x128xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<64x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [64, 128], strides: [128, 1] {coordinate_set = #a2, memory_space = #ktdp.memory_space<global>} : memref<64x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [128, 64], strides: [64, 1] {coordinate_set = #t2, memory_space = #ktdp.memory_space<global>} : memref<128x64xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #a2, access_tile_order = #id2} : memref<64x128xf32> -> !ktdp.access_tile<64x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #a2, access_tile_order = #id2} : memref<64x128xf32> -> !ktdp.access_tile<64x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>
  %yd = ktdp.load %yt : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>
  %s = arith.addf %xd, %yd : tensor<64x128xf32>
  %s2 = arith.addf %s, %xd : tensor<64x128xf32>
  %e = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%s2 : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t2, access_tile_order = #id2} : memref<128x64xf32> -> !ktdp.access_tile<128x64xindex>
  ktdp.store %t, %ot : tensor<128x64xf32>, !ktdp.access_tile<128x64xindex>
  return
}

// -----

// A tile one stick wide: its physical elements are in logical order, so the
// conversion back to logical is a reshape (no data moves), not a relayout.
// CHECK-LABEL: func.func @one_stick
// CHECK: %e = math.exp %d : tensor<1x4x64xf32>
// CHECK: %[[L:.*]] = tensor.collapse_shape %e {{\[}}[0, 1], [2]] : tensor<1x4x64xf32> into tensor<4x64xf32>
// CHECK-NOT: spyre.relayout
// CHECK: ktdp.store %[[L]], %{{.*}} : tensor<4x64xf32>, <4x64xindex>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#blk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @one_stick(%x: index, %out: index, %i: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [128, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<128x128xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x128xf32>
  %o = ktdp.construct_memory_view %out, sizes: [128, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<128x128xf32>
  %t = ktdp.construct_access_tile %v[%i, %c0] {access_tile_set = #blk, access_tile_order = #id2} : memref<128x128xf32> -> !ktdp.access_tile<4x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf32>
  %e = math.exp %d : tensor<4x64xf32>
  %ot = ktdp.construct_access_tile %o[%i, %c0] {access_tile_set = #blk, access_tile_order = #id2} : memref<128x128xf32> -> !ktdp.access_tile<4x64xindex>
  ktdp.store %e, %ot : tensor<4x64xf32>, !ktdp.access_tile<4x64xindex>
  return
}

// -----
// A function of several blocks without markers is left as it is.
// CHECK-LABEL: func.func @unstructured
// CHECK:         cf.cond_br %c, ^{{.*}}, ^{{.*}}
func.func @unstructured(%c: i1) {
  cf.cond_br %c, ^a, ^a
^a:
  return
}
