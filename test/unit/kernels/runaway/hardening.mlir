// Kernels for test_interpreter_hardening.py: names, undefined behaviour,
// overflowing loops, runaway loops and recursion, memory limits, scattered
// stores, a tile id without a grid. Some never end by design (@spin,
// @forever), so they live outside test/unit/kernels/*.mlir, the fuzzer's seeds.

// Parameters are bound by their exact names (`a_1` is not `a`).
func.func @exact_names(%a_1: i32, %a_2: i32) -> i32 {
  %d = arith.subi %a_1, %a_2 : i32
  return %d : i32
}

// Signed division and remainder: INT_MIN / -1 and / 0 are undefined behaviour.
func.func @divisions(%a: i32, %b: i32) -> (i32, i32, i32, i32) {
  %q = arith.divsi %a, %b : i32
  %f = arith.floordivsi %a, %b : i32
  %c = arith.ceildivsi %a, %b : i32
  %r = arith.remsi %a, %b : i32
  return %q, %f, %c, %r : i32, i32, i32, i32
}

func.func @remainder(%a: i32, %b: i32) -> i32 {
  %r = arith.remsi %a, %b : i32
  return %r : i32
}

func.func @floor_division(%a: index, %b: index) -> index {
  %f = arith.floordivsi %a, %b : index
  return %f : index
}

func.func @tensor_division(%a: tensor<3xi8>, %b: tensor<3xi8>) -> tensor<3xi8> {
  %q = arith.ceildivsi %a, %b : tensor<3xi8>
  return %q : tensor<3xi8>
}

func.func @unsigned_division(%a: i32, %b: i32) -> i32 {
  %q = arith.divui %a, %b : i32
  return %q : i32
}

// Overflow flags: a result that wraps is poison.
func.func @flags(%a: i8, %b: i8) -> (i8, i8, i8, i8) {
  %x = arith.addi %a, %b overflow<nsw> : i8
  %y = arith.muli %a, %b overflow<nuw> : i8
  %z = arith.shli %a, %b overflow<nsw> : i8
  %w = arith.addi %a, %b : i8
  return %x, %y, %z, %w : i8, i8, i8, i8
}

func.func @shift(%a: i16, %b: i16) -> i16 {
  %s = arith.shrui %a, %b : i16
  return %s : i16
}

func.func @float_to_int(%x: f32) -> i32 {
  %i = arith.fptosi %x : f32 to i32
  return %i : i32
}

// Bounds near the top of index and i32: the induction variable would wrap
// past the upper bound. out[core] = trip count of core's loop.
func.func @trips_index(%lo: index, %hi: index, %step: index, %out: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %start = arith.subi %lo, %core : index
  %n = scf.for %i = %start to %hi step %step iter_args(%k = %c0) -> (index) {
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  %n32 = arith.index_cast %n : index to i32
  %t = tensor.splat %n32 : tensor<1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [2], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2xi32>
  %tile = ktdp.construct_access_tile %view[%core] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<2xi32> -> !ktdp.access_tile<1xindex>
  ktdp.store %t, %tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
  return
}

// The same in i32; out[core] also gets the last induction value.
func.func @trips_i32(%lo: i32, %hi: i32, %step: i32, %out: index) attributes {grid = [2]} {
  %core = ktdp.get_compute_tile_id : index
  %core32 = arith.index_cast %core : index to i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %start = arith.subi %lo, %core32 : i32
  %n, %last = scf.for %i = %start to %hi step %step iter_args(%k = %c0, %l = %c0) -> (i32, i32) : i32 {
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %k1, %i : i32, i32
  }
  %t = tensor.from_elements %n, %last : tensor<1x2xi32>
  %view = ktdp.construct_memory_view %out, sizes: [2, 2], strides: [2, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 1 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x2xi32>
  %c0i = arith.constant 0 : index
  %tile = ktdp.construct_access_tile %view[%core, %c0i] {
    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x2xi32> -> !ktdp.access_tile<1x2xindex>
  ktdp.store %t, %tile : tensor<1x2xi32>, !ktdp.access_tile<1x2xindex>
  return
}

// Never ends.
func.func @spin(%n: index) -> index {
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %r = scf.while (%i = %n) : (index) -> index {
    scf.condition(%true) %i : index
  } do {
  ^bb0(%j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return %r : index
}

// A loop of n iterations inside a loop of n iterations.
func.func @long_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%a = %acc) -> (index) {
      %a1 = arith.addi %a, %c1 : index
      scf.yield %a1 : index
    }
    scf.yield %s : index
  }
  return %r : index
}

// sum(n) = n + sum(n - 1): n + 1 nested calls.
func.func @sum(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi sle, %n, %c0 : index
  %r = scf.if %done -> (index) {
    scf.yield %c0 : index
  } else {
    %m = arith.subi %n, %c1 : index
    %s = func.call @sum(%m) : (index) -> index
    %t = arith.addi %s, %n : index
    scf.yield %t : index
  }
  return %r : index
}

func.func @forever(%n: index) -> index {
  %r = func.call @forever(%n) : (index) -> index
  return %r : index
}

// n single-element stores to addresses `stride` elements apart, where nothing was placed.
func.func @scattered_stores(%n: index, %stride: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant dense<1.5> : tensor<1xf32>
  scf.for %i = %c0 to %n step %c1 {
    %base = arith.muli %i, %stride : index
    %view = ktdp.construct_memory_view %base, sizes: [1], strides: [1] {
      coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<global>} : memref<1xf32>
    %t = ktdp.construct_access_tile %view[%c0] {
      access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xf32> -> !ktdp.access_tile<1xindex>
    ktdp.store %v, %t : tensor<1xf32>, !ktdp.access_tile<1xindex>
  }
  return
}

// One store of 20000 elements at the addresses in idx (a view of all HBM from 0), then a load back.
func.func @scattered_tile(%idx: index) -> tensor<20000xf32> {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<2.5> : tensor<20000xf32>
  %view = ktdp.construct_memory_view %c0, sizes: [1099511627776], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1099511627775 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1099511627776xf32>
  %idx_view = ktdp.construct_memory_view %idx, sizes: [20000], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 19999 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<20000xi64>
  %t = ktdp.construct_indirect_access_tile intermediate_variables(%b)
       %view[ind(%idx_view[%b])] {
       variables_space_set = affine_set<(d0) : (d0 >= 0, -d0 + 19999 >= 0)>,
       variables_space_order = affine_map<(d0) -> (d0)>}
     : memref<1099511627776xf32>, memref<20000xi64> -> !ktdp.access_tile<20000xindex>
  ktdp.store %v, %t : tensor<20000xf32>, !ktdp.access_tile<20000xindex>
  %r = ktdp.load %t : !ktdp.access_tile<20000xindex> -> tensor<20000xf32>
  return %r : tensor<20000xf32>
}

// Memory: a huge static tensor, a huge dynamic one, a tile of 10^8 points,
// a view whose stride spans terabytes.
func.func @huge_empty() -> tensor<100000x100000xf32> {
  %e = tensor.empty() : tensor<100000x100000xf32>
  return %e : tensor<100000x100000xf32>
}

func.func @dynamic_empty(%n: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%n, %n) : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}

func.func @huge_tile(%x: index) -> tensor<10000x10000xf32> {
  %c0 = arith.constant 0 : index
  %view = ktdp.construct_memory_view %x, sizes: [10000, 10000], strides: [10000, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 9999 >= 0, d1 >= 0, -d1 + 9999 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<10000x10000xf32>
  %t = ktdp.construct_access_tile %view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 9999 >= 0, d1 >= 0, -d1 + 9999 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<10000x10000xf32> -> !ktdp.access_tile<10000x10000xindex>
  %v = ktdp.load %t : !ktdp.access_tile<10000x10000xindex> -> tensor<10000x10000xf32>
  return %v : tensor<10000x10000xf32>
}

// A 2x2 store through a view whose row stride is 2^40 elements (4 TiB), at a constant address.
func.func @wide_stride() -> tensor<2x2xf32> {
  %c0 = arith.constant 0 : index
  %base = arith.constant 4096 : index
  %v = arith.constant dense<3.0> : tensor<2x2xf32>
  %view = ktdp.construct_memory_view %base, sizes: [2, 2], strides: [1099511627776, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 1 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x2xf32>
  %t = ktdp.construct_access_tile %view[%c0, %c0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 1 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x2xf32> -> !ktdp.access_tile<2x2xindex>
  ktdp.store %v, %t : tensor<2x2xf32>, !ktdp.access_tile<2x2xindex>
  %r = ktdp.load %t : !ktdp.access_tile<2x2xindex> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// Reads the tile id, but has no grid attribute.
func.func @no_grid(%out: index) {
  %id = ktdp.get_compute_tile_id : index
  %id32 = arith.index_cast %id : index to i32
  %t = tensor.splat %id32 : tensor<1xi32>
  %view = ktdp.construct_memory_view %out, sizes: [1], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<global>} : memref<1xi32>
  %c0 = arith.constant 0 : index
  %tile = ktdp.construct_access_tile %view[%c0] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xi32> -> !ktdp.access_tile<1xindex>
  ktdp.store %t, %tile : tensor<1xi32>, !ktdp.access_tile<1xindex>
  return
}

// Dynamic shapes that disagree at run time are the kernel's error.
func.func @dynamic_mismatch(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = arith.addf %a, %b : tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @math_on_specials(%x: tensor<8xf16>, %y: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf16>) {
  %e = math.exp %x : tensor<8xf16>
  %l = math.log %x : tensor<8xf16>
  %p = math.powf %y, %y : tensor<8xf32>
  %d = arith.divf %y, %y : tensor<8xf32>
  %b = arith.truncf %y : tensor<8xf32> to tensor<8xbf16>
  %h = arith.truncf %y : tensor<8xf32> to tensor<8xf16>
  return %e, %l, %p, %d, %b, %h : tensor<8xf16>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf16>
}

// A tile whose shape comes from a run-time symbol.
func.func @dynamic_tile(%x: index, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %view = ktdp.construct_memory_view %x, sizes: [%n], strides: [1] {
    coordinate_set = affine_set<(d0)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<?xf32>
  %t = ktdp.construct_access_tile %view[%c0] symbols(%n) {
    access_tile_set = affine_set<(d0)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0)>,
    access_tile_order = affine_map<(d0) -> (d0)>} : memref<?xf32> -> !ktdp.access_tile<?xindex>
  %v = ktdp.load %t : !ktdp.access_tile<?xindex> -> tensor<?xf32>
  return %v : tensor<?xf32>
}

// A reduction evaluated over a 256x256x256 domain: out[i, j] = sum_k exp(a[i, k]).
func.func @wide_reduction(%a: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %init = tensor.empty() : tensor<256x256xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %e = math.exp %x : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
