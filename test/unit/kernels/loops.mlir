// scf.for with iter_args whose trip count depends on the core
// (`%core to %n step 8`: cores below n mod 8 run one more iteration),
// and scf.if / scf.while whose conditions depend on the core.

// out[c] = sum of rows c, c + 8, ... of x (in f32, in row order); counts[c] = number of rows.
func.func @strided_rows(%x: index, %out: index, %counts: index, %n: index) attributes {grid = [8]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : tensor<1x16xf32>
  %x_view = ktdp.construct_memory_view %x, sizes: [%n, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<?x16xf32>
  %sum, %rows = scf.for %r = %core to %n step %c8 iter_args(%acc = %zero, %k = %c0) -> (tensor<1x16xf32>, index) {
    %tile = ktdp.construct_access_tile %x_view[%r, %c0] {
      access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<?x16xf32> -> !ktdp.access_tile<1x16xindex>
    %row = ktdp.load %tile : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
    %next = arith.addf %acc, %row : tensor<1x16xf32>
    %k1 = arith.addi %k, %c1 : index
    scf.yield %next, %k1 : tensor<1x16xf32>, index
  }
  %out_view = ktdp.construct_memory_view %out, sizes: [8, 16], strides: [16, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x16xf32>
  %out_tile = ktdp.construct_access_tile %out_view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 15 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x16xf32> -> !ktdp.access_tile<1x16xindex>
  ktdp.store %sum, %out_tile : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
  %rows32 = arith.index_cast %rows : index to i32
  %count = tensor.splat %rows32 : tensor<1xi32>
  %counts_view = ktdp.construct_memory_view %counts, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xi32>
  %counts_tile = ktdp.construct_access_tile %counts_view[%core] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xi32> -> !ktdp.access_tile<1xindex>
  ktdp.store %count, %counts_tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
  return
}

// Even cores store 2 * row, odd cores -row (scf.if with a result);
// steps[c] = smallest k with k * k >= 5 * c, by scf.while, where every
// iteration whose k is odd adds 10 (an scf.if inside the while).
func.func @branches(%x: index, %out: index, %steps: index) attributes {grid = [6]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %x_view = ktdp.construct_memory_view %x, sizes: [6, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 5 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<6x8xf32>
  %tile = ktdp.construct_access_tile %x_view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<6x8xf32> -> !ktdp.access_tile<1x8xindex>
  %row = ktdp.load %tile : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %parity = arith.remsi %core, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %res = scf.if %even -> (tensor<1x8xf32>) {
    %d = arith.addf %row, %row : tensor<1x8xf32>
    scf.yield %d : tensor<1x8xf32>
  } else {
    %n = arith.negf %row : tensor<1x8xf32>
    scf.yield %n : tensor<1x8xf32>
  }
  %out_view = ktdp.construct_memory_view %out, sizes: [6, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 5 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<6x8xf32>
  %out_tile = ktdp.construct_access_tile %out_view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<6x8xf32> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %res, %out_tile : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>

  %limit = arith.muli %core, %c5 : index
  %k_final, %bonus = scf.while (%k = %c0, %b = %c0) : (index, index) -> (index, index) {
    %sq = arith.muli %k, %k : index
    %more = arith.cmpi slt, %sq, %limit : index
    scf.condition(%more) %k, %b : index, index
  } do {
  ^bb0(%k: index, %b: index):
    %k1 = arith.addi %k, %c1 : index
    %odd = arith.remsi %k1, %c2 : index
    %is_odd = arith.cmpi eq, %odd, %c1 : index
    %b1 = scf.if %is_odd -> (index) {
      %c10 = arith.constant 10 : index
      %bb = arith.addi %b, %c10 : index
      scf.yield %bb : index
    } else {
      scf.yield %b : index
    }
    scf.yield %k1, %b1 : index, index
  }
  %total = arith.addi %k_final, %bonus : index
  %total32 = arith.index_cast %total : index to i32
  %t = tensor.splat %total32 : tensor<1xi32>
  %steps_view = ktdp.construct_memory_view %steps, sizes: [6], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 5 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<6xi32>
  %steps_tile = ktdp.construct_access_tile %steps_view[%core] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<6xi32> -> !ktdp.access_tile<1xindex>
  ktdp.store %t, %steps_tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
  return
}

// A helper called with the core id, returning a row offset and a scaled tile.
func.func @row_of(%core: index, %rows_per_core: index) -> index {
  %r = arith.muli %core, %rows_per_core : index
  return %r : index
}

func.func @scaled(%t: tensor<2x4xf32>, %f: f32) -> tensor<2x4xf32> {
  %s = tensor.splat %f : tensor<2x4xf32>
  %m = arith.mulf %t, %s : tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

func.func @calls(%x: index, %out: index, %f: f32) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %row = func.call @row_of(%core, %c2) : (index, index) -> index
  %x_view = ktdp.construct_memory_view %x, sizes: [8, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
  %tile = ktdp.construct_access_tile %x_view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<2x4xindex>
  %v = ktdp.load %tile : !ktdp.access_tile<2x4xindex> -> tensor<2x4xf32>
  %s = func.call @scaled(%v, %f) : (tensor<2x4xf32>, f32) -> tensor<2x4xf32>
  %out_view = ktdp.construct_memory_view %out, sizes: [8, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<8x4xf32>
  %out_tile = ktdp.construct_access_tile %out_view[%row, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<8x4xf32> -> !ktdp.access_tile<2x4xindex>
  ktdp.store %s, %out_tile : tensor<2x4xf32>, !ktdp.access_tile<2x4xindex>
  return
}

// Values the analysis marks as core-dependent that turn out not to be: a
// select of a shared operand, an affine map that drops the core id, a tile
// anchored by it. Every core stores row 0 of x plus 1 into its row of out.
func.func @uniform_after_all(%x: index, %out: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %pick = arith.select %true, %c1, %core : index
  %zero = affine.apply affine_map<(d0, d1) -> (d0)>(%c0, %core)
  %x_view = ktdp.construct_memory_view %x, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %t = ktdp.construct_access_tile %x_view[%zero, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<1x4xindex>
  %row = ktdp.load %t : !ktdp.access_tile<1x4xindex> -> tensor<1x4xf32>
  %p32 = arith.index_cast %pick : index to i32
  %pf = arith.sitofp %p32 : i32 to f32
  %ps = tensor.splat %pf : tensor<1x4xf32>
  %sum = arith.addf %row, %ps : tensor<1x4xf32>
  %out_view = ktdp.construct_memory_view %out, sizes: [4, 4], strides: [4, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 3 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<4x4xf32>
  %o = ktdp.construct_access_tile %out_view[%core, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x4xf32> -> !ktdp.access_tile<1x4xindex>
  ktdp.store %sum, %o : tensor<1x4xf32>, !ktdp.access_tile<1x4xindex>
  return
}

// Core c sums the first c + 1 elements of x: the slice's shape depends on the
// core, so the cores cannot share one array; they run one after another.
func.func @ragged(%x: index, %out: index) attributes {grid = [4]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.addi %core, %c1 : index
  %x_view = ktdp.construct_memory_view %x, sizes: [1, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<1x8xf32>
  %t = ktdp.construct_access_tile %x_view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<1x8xf32> -> !ktdp.access_tile<1x8xindex>
  %row = ktdp.load %t : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>
  %head = tensor.extract_slice %row[0, 0] [1, %n] [1, 1] : tensor<1x8xf32> to tensor<1x?xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %sum = linalg.reduce { arith.addf } ins(%head : tensor<1x?xf32>) outs(%zero : tensor<1xf32>) dimensions = [1]
  %out_view = ktdp.construct_memory_view %out, sizes: [4], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  %o = ktdp.construct_access_tile %out_view[%core] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf32> -> !ktdp.access_tile<1xindex>
  ktdp.store %sum, %o : tensor<1xf32>, !ktdp.access_tile<1xindex>
  return
}
