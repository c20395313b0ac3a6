// Reduce inside scf.for / scf.if / scf.while (issue 8: "a reduce inside scf.for";
// "Works inside scf.for/scf.if/scf.while"). Control flow may differ between
// groups, never within one (that is reduce_divergent_errors.mlir).
// `import functools`; R(rows) := functools.reduce(np.add, rows), the
// ascending-tile-id fold of docs/inter-tile.md §4; all f32, bitwise.
//
//   @reduce_in_for(x: f32[4, 64], out: f32[4, 64] zeros, n: index)   grid [4], one group
//     Iteration k all-reduces the partial x[c] * (k + 1) and accumulates:
//     acc = np.zeros(64, np.float32)
//     for k in range(n): acc = acc + R(x * np.float32(k + 1))
//     out[c] == acc   for every c   (with n = 0: out == 0)
//
//   @reduce_in_if(x: f32[8, 64], out: f32[8, 64] zeros)   grid [8], groups {0..3}, {4..7}
//     Only group 0 (c < 4) enters the scf.if that holds the produce/reduce pair;
//     group 1 never reaches it, which is legal: no consumer of group 1 waits.
//     out[c] == R(x[0:4])   for c < 4
//     out[c] == x[c]        for c >= 4   (else branch stores the core's own row)
//
//   @reduce_in_while(x: f32[8, 64], out: f32[8, 64] zeros)   grid [8], groups {0..3}, {4..7}
//     Group g loops g + 1 times (uniform within the group, different across groups):
//     out[c] == sum over (c // 4) + 1 rounds of R(x[4*(c//4) : 4*(c//4)+4]), i.e.
//     acc = np.zeros(64, np.float32)
//     for _ in range(c // 4 + 1): acc = acc + R(x[4 * (c // 4) : 4 * (c // 4) + 4])
//     out[c] == acc
//     (in the second round only group 1 is active; that is not a divergence error)

#one4   = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 3 >= 0)>
#g1     = affine_set<(g) : (g == 0)>
#g2     = affine_set<(g) : (g >= 0, -g + 1 >= 0)>
#row    = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id2    = affine_map<(d0, d1) -> (d0, d1)>

func.func @reduce_in_for(%x: index, %out: index, %n: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
  %row = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<1x64xf32>) {
    %k1 = arith.addi %k, %c1 : index
    %k1i = arith.index_cast %k1 : index to i32
    %k1f = arith.sitofp %k1i : i32 to f32
    %scale = tensor.splat %k1f : tensor<1x64xf32>
    %partial = arith.mulf %row, %scale : tensor<1x64xf32>
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #one4
        -> <(tensor<1x64xf32>), groups = #g1> {
    ^bb0(%gid: index):
      ktdp.yield_partial %partial : tensor<1x64xf32>
    }
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #one4, identity(%zero : tensor<1x64xf32>)
        : <(tensor<1x64xf32>), groups = #g1> -> tensor<1x64xf32> {
    ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
      %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
      ktdp.yield_reduced %s : tensor<1x64xf32>
    }
    %next = arith.addf %a, %r : tensor<1x64xf32>
    scf.yield %next : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %acc, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}

func.func @reduce_in_if(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  %row = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %first_group = arith.cmpi ult, %c, %c4 : index
  %res = scf.if %first_group -> (tensor<1x64xf32>) {
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #one4
        -> <(tensor<1x64xf32>), groups = #g2> {
    ^bb0(%gid: index):
      ktdp.yield_partial %row : tensor<1x64xf32>
    }
    %zero = arith.constant dense<0.0> : tensor<1x64xf32>
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #one4, identity(%zero : tensor<1x64xf32>)
        : <(tensor<1x64xf32>), groups = #g2> -> tensor<1x64xf32> {
    ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
      %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
      ktdp.yield_reduced %s : tensor<1x64xf32>
    }
    scf.yield %r : tensor<1x64xf32>
  } else {
    scf.yield %row : tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %res, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}

func.func @reduce_in_while(%x: index, %out: index) attributes {grid = [8]} {
  %c = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  %row = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %g = arith.divui %c, %c4 : index
  %rounds = arith.addi %g, %c1 : index
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %res:2 = scf.while (%k = %c0, %acc = %zero) : (index, tensor<1x64xf32>) -> (index, tensor<1x64xf32>) {
    %more = arith.cmpi ult, %k, %rounds : index
    scf.condition(%more) %k, %acc : index, tensor<1x64xf32>
  } do {
  ^bb0(%k2: index, %acc2: tensor<1x64xf32>):
    %f = ktdp.inter_tile_produce producer_tiles_per_group = #one4
        -> <(tensor<1x64xf32>), groups = #g2> {
    ^bb0(%gid: index):
      ktdp.yield_partial %row : tensor<1x64xf32>
    }
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = #one4, identity(%zero : tensor<1x64xf32>)
        : <(tensor<1x64xf32>), groups = #g2> -> tensor<1x64xf32> {
    ^bb0(%lhs: tensor<1x64xf32>, %rhs: tensor<1x64xf32>):
      %s = arith.addf %lhs, %rhs : tensor<1x64xf32>
      ktdp.yield_reduced %s : tensor<1x64xf32>
    }
    %next = arith.addf %acc2, %r : tensor<1x64xf32>
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3, %next : index, tensor<1x64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<1x64xindex>
  ktdp.store %res#1, %ot : tensor<1x64xf32>, !ktdp.access_tile<1x64xindex>
  return
}
