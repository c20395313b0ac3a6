// Seed 001 (../shared/seeds/001_*.txt): out = sqrt(exp(x)) with exp(x) written
// to a scratch pointer and loaded back by the author, and variants with two
// and three round trips. x, out and every scratch: f32[4, 32] (4x32 as in the
// seed); one core, the whole 4x32 tile.
// Expected: out == f_n(...f_1(x)) in f32 (NumPy), where the functions are
//   @round_trip_1: exp, sqrt           @round_trip_2: exp, sqrt, exp
//   @round_trip_3: exp, sqrt, exp, sqrt
// The author writes each access tile twice (the store's and the load's, with
// their own index arithmetic) and one tensor.empty per compute: CSE merges them.

#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @round_trip_1(%x: index, %s0: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  %x_v = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %s0_v = ktdp.construct_memory_view %s0, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %o_v = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt_r = arith.muli %c0, %c128 : index
  %xt_i = arith.divsi %xt_r, %c32 : index
  %xt_q = arith.muli %c0, %c128 : index
  %xt_j = arith.remsi %xt_q, %c32 : index
  %xt = ktdp.construct_access_tile %x_v[%xt_i, %xt_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %v0 = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e0 = tensor.empty() : tensor<4x32xf32>
  %f0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<4x32xf32>) outs(%e0 : tensor<4x32xf32>) {
  ^bb0(%a0: f32, %b0: f32):
    %r0 = math.exp %a0 : f32
    linalg.yield %r0 : f32
  } -> tensor<4x32xf32>
  %st0_r = arith.muli %c0, %c128 : index
  %st0_i = arith.divsi %st0_r, %c32 : index
  %st0_q = arith.muli %c0, %c128 : index
  %st0_j = arith.remsi %st0_q, %c32 : index
  %st0 = ktdp.construct_access_tile %s0_v[%st0_i, %st0_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f0, %st0 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt0_r = arith.muli %c0, %c128 : index
  %lt0_i = arith.divsi %lt0_r, %c32 : index
  %lt0_q = arith.muli %c0, %c128 : index
  %lt0_j = arith.remsi %lt0_q, %c32 : index
  %lt0 = ktdp.construct_access_tile %s0_v[%lt0_i, %lt0_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l0 = ktdp.load %lt0 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e1 = tensor.empty() : tensor<4x32xf32>
  %f1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0 : tensor<4x32xf32>) outs(%e1 : tensor<4x32xf32>) {
  ^bb0(%a1: f32, %b1: f32):
    %r1 = math.sqrt %a1 : f32
    linalg.yield %r1 : f32
  } -> tensor<4x32xf32>
  %ot_r = arith.muli %c0, %c128 : index
  %ot_i = arith.divsi %ot_r, %c32 : index
  %ot_q = arith.muli %c0, %c128 : index
  %ot_j = arith.remsi %ot_q, %c32 : index
  %ot = ktdp.construct_access_tile %o_v[%ot_i, %ot_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f1, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  return
}

func.func @round_trip_2(%x: index, %s0: index, %s1: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  %x_v = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %s0_v = ktdp.construct_memory_view %s0, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %s1_v = ktdp.construct_memory_view %s1, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %o_v = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt_r = arith.muli %c0, %c128 : index
  %xt_i = arith.divsi %xt_r, %c32 : index
  %xt_q = arith.muli %c0, %c128 : index
  %xt_j = arith.remsi %xt_q, %c32 : index
  %xt = ktdp.construct_access_tile %x_v[%xt_i, %xt_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %v0 = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e0 = tensor.empty() : tensor<4x32xf32>
  %f0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<4x32xf32>) outs(%e0 : tensor<4x32xf32>) {
  ^bb0(%a0: f32, %b0: f32):
    %r0 = math.exp %a0 : f32
    linalg.yield %r0 : f32
  } -> tensor<4x32xf32>
  %st0_r = arith.muli %c0, %c128 : index
  %st0_i = arith.divsi %st0_r, %c32 : index
  %st0_q = arith.muli %c0, %c128 : index
  %st0_j = arith.remsi %st0_q, %c32 : index
  %st0 = ktdp.construct_access_tile %s0_v[%st0_i, %st0_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f0, %st0 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt0_r = arith.muli %c0, %c128 : index
  %lt0_i = arith.divsi %lt0_r, %c32 : index
  %lt0_q = arith.muli %c0, %c128 : index
  %lt0_j = arith.remsi %lt0_q, %c32 : index
  %lt0 = ktdp.construct_access_tile %s0_v[%lt0_i, %lt0_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l0 = ktdp.load %lt0 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e1 = tensor.empty() : tensor<4x32xf32>
  %f1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0 : tensor<4x32xf32>) outs(%e1 : tensor<4x32xf32>) {
  ^bb0(%a1: f32, %b1: f32):
    %r1 = math.sqrt %a1 : f32
    linalg.yield %r1 : f32
  } -> tensor<4x32xf32>
  %st1_r = arith.muli %c0, %c128 : index
  %st1_i = arith.divsi %st1_r, %c32 : index
  %st1_q = arith.muli %c0, %c128 : index
  %st1_j = arith.remsi %st1_q, %c32 : index
  %st1 = ktdp.construct_access_tile %s1_v[%st1_i, %st1_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f1, %st1 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt1_r = arith.muli %c0, %c128 : index
  %lt1_i = arith.divsi %lt1_r, %c32 : index
  %lt1_q = arith.muli %c0, %c128 : index
  %lt1_j = arith.remsi %lt1_q, %c32 : index
  %lt1 = ktdp.construct_access_tile %s1_v[%lt1_i, %lt1_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l1 = ktdp.load %lt1 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x32xf32>
  %f2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1 : tensor<4x32xf32>) outs(%e2 : tensor<4x32xf32>) {
  ^bb0(%a2: f32, %b2: f32):
    %r2 = math.exp %a2 : f32
    linalg.yield %r2 : f32
  } -> tensor<4x32xf32>
  %ot_r = arith.muli %c0, %c128 : index
  %ot_i = arith.divsi %ot_r, %c32 : index
  %ot_q = arith.muli %c0, %c128 : index
  %ot_j = arith.remsi %ot_q, %c32 : index
  %ot = ktdp.construct_access_tile %o_v[%ot_i, %ot_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f2, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  return
}

func.func @round_trip_3(%x: index, %s0: index, %s1: index, %s2: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  %x_v = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %s0_v = ktdp.construct_memory_view %s0, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %s1_v = ktdp.construct_memory_view %s1, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %s2_v = ktdp.construct_memory_view %s2, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %o_v = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt_r = arith.muli %c0, %c128 : index
  %xt_i = arith.divsi %xt_r, %c32 : index
  %xt_q = arith.muli %c0, %c128 : index
  %xt_j = arith.remsi %xt_q, %c32 : index
  %xt = ktdp.construct_access_tile %x_v[%xt_i, %xt_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %v0 = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e0 = tensor.empty() : tensor<4x32xf32>
  %f0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%v0 : tensor<4x32xf32>) outs(%e0 : tensor<4x32xf32>) {
  ^bb0(%a0: f32, %b0: f32):
    %r0 = math.exp %a0 : f32
    linalg.yield %r0 : f32
  } -> tensor<4x32xf32>
  %st0_r = arith.muli %c0, %c128 : index
  %st0_i = arith.divsi %st0_r, %c32 : index
  %st0_q = arith.muli %c0, %c128 : index
  %st0_j = arith.remsi %st0_q, %c32 : index
  %st0 = ktdp.construct_access_tile %s0_v[%st0_i, %st0_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f0, %st0 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt0_r = arith.muli %c0, %c128 : index
  %lt0_i = arith.divsi %lt0_r, %c32 : index
  %lt0_q = arith.muli %c0, %c128 : index
  %lt0_j = arith.remsi %lt0_q, %c32 : index
  %lt0 = ktdp.construct_access_tile %s0_v[%lt0_i, %lt0_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l0 = ktdp.load %lt0 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e1 = tensor.empty() : tensor<4x32xf32>
  %f1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0 : tensor<4x32xf32>) outs(%e1 : tensor<4x32xf32>) {
  ^bb0(%a1: f32, %b1: f32):
    %r1 = math.sqrt %a1 : f32
    linalg.yield %r1 : f32
  } -> tensor<4x32xf32>
  %st1_r = arith.muli %c0, %c128 : index
  %st1_i = arith.divsi %st1_r, %c32 : index
  %st1_q = arith.muli %c0, %c128 : index
  %st1_j = arith.remsi %st1_q, %c32 : index
  %st1 = ktdp.construct_access_tile %s1_v[%st1_i, %st1_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f1, %st1 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt1_r = arith.muli %c0, %c128 : index
  %lt1_i = arith.divsi %lt1_r, %c32 : index
  %lt1_q = arith.muli %c0, %c128 : index
  %lt1_j = arith.remsi %lt1_q, %c32 : index
  %lt1 = ktdp.construct_access_tile %s1_v[%lt1_i, %lt1_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l1 = ktdp.load %lt1 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x32xf32>
  %f2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1 : tensor<4x32xf32>) outs(%e2 : tensor<4x32xf32>) {
  ^bb0(%a2: f32, %b2: f32):
    %r2 = math.exp %a2 : f32
    linalg.yield %r2 : f32
  } -> tensor<4x32xf32>
  %st2_r = arith.muli %c0, %c128 : index
  %st2_i = arith.divsi %st2_r, %c32 : index
  %st2_q = arith.muli %c0, %c128 : index
  %st2_j = arith.remsi %st2_q, %c32 : index
  %st2 = ktdp.construct_access_tile %s2_v[%st2_i, %st2_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f2, %st2 : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  %lt2_r = arith.muli %c0, %c128 : index
  %lt2_i = arith.divsi %lt2_r, %c32 : index
  %lt2_q = arith.muli %c0, %c128 : index
  %lt2_j = arith.remsi %lt2_q, %c32 : index
  %lt2 = ktdp.construct_access_tile %s2_v[%lt2_i, %lt2_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %l2 = ktdp.load %lt2 : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e3 = tensor.empty() : tensor<4x32xf32>
  %f3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l2 : tensor<4x32xf32>) outs(%e3 : tensor<4x32xf32>) {
  ^bb0(%a3: f32, %b3: f32):
    %r3 = math.sqrt %a3 : f32
    linalg.yield %r3 : f32
  } -> tensor<4x32xf32>
  %ot_r = arith.muli %c0, %c128 : index
  %ot_i = arith.divsi %ot_r, %c32 : index
  %ot_q = arith.muli %c0, %c128 : index
  %ot_j = arith.remsi %ot_q, %c32 : index
  %ot = ktdp.construct_access_tile %o_v[%ot_i, %ot_j] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  ktdp.store %f3, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  return
}
