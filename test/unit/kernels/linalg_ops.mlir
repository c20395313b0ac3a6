// linalg: generic (elementwise with a broadcast operand and linalg.index, a
// reduction the interpreter folds loop by loop, a contraction), named ops,
// fill, broadcast, transpose, reduce (short and long form), matmul.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @structured(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %v: tensor<8xf32>, %m: tensor<8x3xf32>)
    -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4x3xf32>, tensor<3x4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  // a + v (broadcast over rows) + column index
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %jf = arith.sitofp %j32 : i32 to f32
    %s = arith.addf %x, %y : f32
    %r = arith.addf %s, %jf : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  // acc = acc * 0.5 + x over each row: not a plain combiner, folded in order
  %fold = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %h = arith.mulf %acc, %half : f32
    %r = arith.addf %h, %x : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // sum of squares per row: a reduction of x * x
  %ssq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %add = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sub = linalg.sub ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mul = linalg.mul ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %max = linalg.max ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %exp = linalg.exp ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %bc = linalg.broadcast ins(%v : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %et = tensor.empty() : tensor<8x4xf32>
  %tr = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %ninf = arith.constant 0xFF800000 : f32
  %mi = tensor.splat %ninf : tensor<4xf32>
  %rmax = linalg.reduce { arith.maxnumf } ins(%a : tensor<4x8xf32>) outs(%mi : tensor<4xf32>) dimensions = [1]
  %rsum = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  %em = tensor.empty() : tensor<4x3xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%a, %m : tensor<4x8xf32>, tensor<8x3xf32>) outs(%zm : tensor<4x3xf32>) -> tensor<4x3xf32>
  %e3 = tensor.empty() : tensor<3x4x8xf32>
  %bc3 = linalg.broadcast ins(%a : tensor<4x8xf32>) outs(%e3 : tensor<3x4x8xf32>) dimensions = [0]
  return %g, %fold, %ssq, %add, %sub, %mul, %max, %exp, %bc, %tr, %rmax, %rsum, %mm, %bc3
      : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4x3xf32>, tensor<3x4x8xf32>
}

// A matrix-vector contraction written as a generic, in f16 (accumulated in f32).
func.func @matvec(%a: tensor<4x8xf16>, %v: tensor<8xf16>, %init: tensor<4xf16>) -> tensor<4xf16> {
  %r = linalg.generic {indexing_maps = [#id, #col, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : tensor<4x8xf16>, tensor<8xf16>) outs(%init : tensor<4xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %p, %acc : f16
    linalg.yield %s : f16
  } -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// The same ops on per-core data: core c loads block c (4x8) of a 16x8 input.
func.func @per_core(%x: index, %w: index, %out: index, %rows: index, %mm: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r0 = arith.muli %core, %c4 : index
  %x_view = ktdp.construct_memory_view %x, sizes: [16, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<16x8xf32>
  %t = ktdp.construct_access_tile %x_view[%r0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
  %w_view = ktdp.construct_memory_view %w, sizes: [8, 3], strides: [3, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 2 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x3xf32>
  %wt = ktdp.construct_access_tile %w_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 2 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x3xf32> -> !ktdp.access_tile<8x3xindex>
  %m = ktdp.load %wt : !ktdp.access_tile<8x3xindex> -> tensor<8x3xf32>
  %zero = arith.constant 0.0 : f32
  %core32 = arith.index_cast %core : index to i32
  %cf = arith.sitofp %core32 : i32 to f32
  %e = tensor.empty() : tensor<4x8xf32>
  // a * core + column index (a captured per-core scalar inside the body)
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x0: f32, %o: f32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %jf = arith.sitofp %j32 : i32 to f32
    %p = arith.mulf %x0, %cf : f32
    %r = arith.addf %p, %jf : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %et = tensor.empty() : tensor<8x4xf32>
  %tr = linalg.transpose ins(%g : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %back = linalg.transpose ins(%tr : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %out_view = ktdp.construct_memory_view %out, sizes: [16, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<16x8xf32>
  %ot = ktdp.construct_access_tile %out_view[%r0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %back, %ot : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
  // row sums (folded: acc * 0.5 + x) and max, broadcast back to a 4x2 tile
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %half = arith.constant 0.5 : f32
  %fold = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%x0: f32, %acc: f32):
    %h = arith.mulf %acc, %half : f32
    %r = arith.addf %h, %x0 : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %rmax = linalg.reduce { arith.maximumf } ins(%a : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) dimensions = [1]
  %e42 = tensor.empty() : tensor<2x4xf32>
  %fold_b = linalg.broadcast ins(%fold : tensor<4xf32>) outs(%e42 : tensor<2x4xf32>) dimensions = [0]
  %max_b = linalg.broadcast ins(%rmax : tensor<4xf32>) outs(%e42 : tensor<2x4xf32>) dimensions = [0]
  %both = tensor.concat dim(0) %fold_b, %max_b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %rows_view = ktdp.construct_memory_view %rows, sizes: [4, 4, 4], strides: [16, 4, 1] {
    coordinate_set = affine_set<(d0, d1, d2) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4x4xf32>
  %rt = ktdp.construct_access_tile %rows_view[%core, %c0, %c0] {
    access_tile_set = affine_set<(d0, d1, d2) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0, d2 >= 0, -d2 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : memref<4x4x4xf32> -> !ktdp.access_tile<1x4x4xindex>
  %both3 = tensor.expand_shape %both [[0, 1], [2]] output_shape [1, 4, 4] : tensor<4x4xf32> into tensor<1x4x4xf32>
  ktdp.store %both3, %rt : tensor<1x4x4xf32>, !ktdp.access_tile<1x4x4xindex>
  // per-core matmul with a shared weight
  %em = tensor.empty() : tensor<4x3xf32>
  %p = linalg.matmul ins(%a, %m : tensor<4x8xf32>, tensor<8x3xf32>) outs(%em : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm_view = ktdp.construct_memory_view %mm, sizes: [16, 3], strides: [3, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 2 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<16x3xf32>
  %mt = ktdp.construct_access_tile %mm_view[%r0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 2 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<16x3xf32> -> !ktdp.access_tile<4x3xindex>
  ktdp.store %p, %mt : tensor<4x3xf32>, !ktdp.access_tile<4x3xindex>
  return
}

// A contraction whose only per-core operand is the init: out[c] = a @ v + c.
func.func @contraction_core_init(%a: tensor<4x8xf32>, %v: tensor<8xf32>, %out: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %i = arith.index_cast %core : index to i32
  %f = arith.sitofp %i : i32 to f32
  %init = tensor.splat %f : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : tensor<4x8xf32>, tensor<8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %view = ktdp.construct_memory_view %out, sizes: [2, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x4xf32>
  %t = ktdp.construct_access_tile %view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x4xf32> -> !ktdp.access_tile<1x4xindex>
  %r2 = tensor.expand_shape %r [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
  ktdp.store %r2, %t : tensor<1x4xf32>, !ktdp.access_tile<1x4xindex>
  return
}
