// RUN: %spyre-opt %s -p spyre-raise-counted-loops | %FileCheck %s
// RUN: %spyre-opt %s -p spyre-raise-counted-loops | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s -p spyre-raise-counted-loops | %FileCheck %s --check-prefix=NOWHILE

// Each loop here is a latch-tested counted scf.while (the exact counted-loop
// projection) and becomes scf.for. test/unit/test_raise_counted_loops.py
// runs these functions before and after the pass; the rejected shapes are in
// spyre-raise-counted-loops-remarks.mlir.

// NOWHILE-NOT: scf.while

// Constant bounds, `next != upper`: 0, 2, 4, 6, 8 (5 trips). The induction
// lane's result (the last `next`) is the upper bound.
// CHECK-LABEL: func.func @const_ne
// CHECK-SAME:  (%[[X:.*]]: f32)
// CHECK:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[C10:.*]] = arith.constant 10 : index
// CHECK:       %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C10]] step %[[C2]] iter_args(%[[ACC:.*]] = %[[X]]) -> (f32) {
// CHECK-NEXT:    arith.index_cast %[[I]] : index to i32
// CHECK:         %[[M:.*]] = arith.mulf %[[ACC]], %{{.*}} : f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[M]], %{{.*}} : f32
// CHECK-NEXT:    scf.yield %[[S]] : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[C10]], %[[R]] : index, f32
func.func @const_ne(%x: f32) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  %half = arith.constant 5.000000e-01 : f32
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %m = arith.mulf %acc, %half : f32
    %s = arith.addf %m, %f : f32
    %next = arith.addi %i, %c2 : index
    %more = arith.cmpi ne, %next, %c10 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  return %r#0, %r#1 : index, f32
}

// `slt` latch, i32, lower bound 3, step 4, upper bound 15 (3, 7, 11), the
// bound and step defined inside the loop: copied before it; the bound's
// original, left without uses, is erased, the step's (used) is kept.
// CHECK-LABEL: func.func @slt_latch
// CHECK:       %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[R:.*]] = scf.for %[[I:.*]] = %[[C3]] to %[[C15]] step %[[C4]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (i32) : i32 {
// CHECK-NEXT:    %[[C4B:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[ACC]], %[[I]] : i32
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[M]], %[[C4B]] : i32
// CHECK-NEXT:    scf.yield %[[S]] : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[C15]], %[[R]] : i32, i32
func.func @slt_latch(%x: i32) -> (i32, i32) {
  %c3 = arith.constant 3 : i32
  %r:2 = scf.while (%i = %c3, %acc = %x) : (i32, i32) -> (i32, i32) {
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %m = arith.muli %acc, %i : i32
    %s = arith.addi %m, %c4 : i32
    %next = arith.addi %c4, %i : i32
    %more = arith.cmpi slt, %next, %c15 : i32
    scf.condition(%more) %next, %s : i32, i32
  } do {
  ^bb0(%i2: i32, %acc2: i32):
    scf.yield %i2, %acc2 : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// `ult` latch spelled `ugt upper, next`, i64: 0 to 8 step 1; the latch's
// `next` is also used by the body (kept).
// CHECK-LABEL: func.func @ult_latch
// CHECK:       %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i64
// CHECK-NEXT:  %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (i64) : i64 {
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[I]], %[[C1]] : i64
// CHECK-NEXT:    %[[SQ:.*]] = arith.muli %[[NEXT]], %[[NEXT]] : i64
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[ACC]], %[[SQ]] : i64
// CHECK-NEXT:    scf.yield %[[S]] : i64
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[R]] : i64
func.func @ult_latch(%x: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c8 = arith.constant 8 : i64
  %r:2 = scf.while (%i = %c0, %acc = %x) : (i64, i64) -> (i64, i64) {
    %next = arith.addi %i, %c1 : i64
    %sq = arith.muli %next, %next : i64
    %s = arith.addi %acc, %sq : i64
    %more = arith.cmpi ugt, %c8, %next : i64
    scf.condition(%more) %next, %s : i64, i64
  } do {
  ^bb0(%i2: i64, %acc2: i64):
    scf.yield %i2, %acc2 : i64, i64
  }
  return %r#1 : i64
}

// Lower bound 0, step 1, a dynamic upper bound proven > 0 by the enclosing
// `scf.if` (`sgt %n, 0`); the induction result becomes %n.
// CHECK-LABEL: func.func @dynamic_ub(
// CHECK-SAME:  %[[N:[^:]*]]: index, %[[X:[^:]*]]: f32)
// CHECK:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : index
// CHECK:       scf.if
// CHECK-NEXT:    %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[X]]) -> (f32) {
// CHECK:           scf.yield %{{.*}} : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %[[N]], %[[R]] : index, f32
// CHECK-NOT:   scf.while
func.func @dynamic_ub(%n: index, %x: f32) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.cmpi sgt, %n, %c0 : index
  %out:2 = scf.if %p -> (index, f32) {
    %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %s = arith.addf %acc, %f : f32
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ne, %next, %n : index
      scf.condition(%more) %next, %s : index, f32
    } do {
    ^bb0(%i2: index, %acc2: f32):
      scf.yield %i2, %acc2 : index, f32
    }
    scf.yield %r#0, %r#1 : index, f32
  } else {
    scf.yield %c0, %x : index, f32
  }
  return %out#0, %out#1 : index, f32
}

// The proof two regions up (`slt 0, %n`, i32), an `slt` latch, and a lane
// (%k) forwarded unchanged: it stays an iter_arg that yields itself.
// CHECK-LABEL: func.func @dynamic_ub_outer_proof
// CHECK-SAME:  (%[[N:[^:]*]]: i32, %[[K0:[^:]*]]: i32, %[[X:[^:]*]]: i32)
// CHECK:       scf.execute_region
// CHECK-NEXT:    %[[RS:[^:]*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[K:.*]] = %[[K0]], %[[ACC:.*]] = %[[X]]) -> (i32, i32) : i32 {
// CHECK-NEXT:      %[[T:.*]] = arith.muli %[[I]], %[[K]] : i32
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[ACC]], %[[T]] : i32
// CHECK-NEXT:      scf.yield %[[K]], %[[S]] : i32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %[[RS]]#0, %[[RS]]#1 : i32, i32
// CHECK-NOT:   scf.while
func.func @dynamic_ub_outer_proof(%n: i32, %k0: i32, %x: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p = arith.cmpi slt, %c0, %n : i32
  %out:2 = scf.if %p -> (i32, i32) {
    %inner:2 = scf.execute_region -> (i32, i32) {
      %r:3 = scf.while (%i = %c0, %k = %k0, %acc = %x) : (i32, i32, i32) -> (i32, i32, i32) {
        %t = arith.muli %i, %k : i32
        %s = arith.addi %acc, %t : i32
        %next = arith.addi %i, %c1 : i32
        %more = arith.cmpi slt, %next, %n : i32
        scf.condition(%more) %next, %k, %s : i32, i32, i32
      } do {
      ^bb0(%i2: i32, %k2: i32, %acc2: i32):
        scf.yield %i2, %k2, %acc2 : i32, i32, i32
      }
      scf.yield %r#1, %r#2 : i32, i32
    }
    scf.yield %inner#0, %inner#1 : i32, i32
  } else {
    scf.yield %k0, %x : i32, i32
  }
  return %out#0, %out#1 : i32, i32
}

// Duplicate lanes: %i and %j start at %c0 and are both fed %next by
// identity, so %j is %i; merged first, then raised (0 to 4 step 1).
// CHECK-LABEL: func.func @duplicate_lanes
// CHECK:       %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:    arith.index_cast %[[I]] : index to i32
// CHECK:         scf.yield %{{.*}} : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[C4]], %[[C4]], %[[R]] : index, index, f32
func.func @duplicate_lanes(%x: f32) -> (index, index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:3 = scf.while (%i = %c0, %j = %c0, %acc = %x) : (index, index, f32) -> (index, index, f32) {
    %jj = arith.index_cast %j : index to i32
    %f = arith.sitofp %jj : i32 to f32
    %s = arith.addf %acc, %f : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %next, %s : index, index, f32
  } do {
  ^bb0(%i2: index, %j2: index, %acc2: f32):
    scf.yield %i2, %j2, %acc2 : index, index, f32
  }
  return %r#0, %r#1, %r#2 : index, index, f32
}

// A KTIR kernel: per iteration, load a 4x8 row block of %x, store exp of it
// to %out, and carry a tensor accumulator, stored to %sum after the loop.
// Rows 0, 4, 8, 12 of a 16x8 input.
// CHECK-LABEL: func.func @tensor_acc
// CHECK:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK:       %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C16]] step %[[C4]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<4x8xf32>) {
// CHECK-NEXT:    ktdp.construct_access_tile %{{.*}}[%[[I]], %[[C0]]]
// CHECK-NEXT:    %[[A:.*]] = ktdp.load
// CHECK-NEXT:    math.exp %[[A]]
// CHECK-NEXT:    ktdp.construct_access_tile %{{.*}}[%[[I]], %[[C0]]]
// CHECK-NEXT:    ktdp.store
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : tensor<4x8xf32>
// CHECK-NEXT:    scf.yield %[[S]] : tensor<4x8xf32>
// CHECK-NEXT:  }
// CHECK:       ktdp.store %[[R]], %{{.*}} : tensor<4x8xf32>
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @tensor_acc(%x: index, %out: index, %sum: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [16, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x8xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x8xf32>
  %sv = ktdp.construct_memory_view %sum, sizes: [4, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
  %r:2 = scf.while (%i = %c0, %acc = %zero) : (index, tensor<4x8xf32>) -> (index, tensor<4x8xf32>) {
    %xt = ktdp.construct_access_tile %xv[%i, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
    %e = math.exp %a : tensor<4x8xf32>
    %ot = ktdp.construct_access_tile %ov[%i, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
    ktdp.store %e, %ot : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
    %s = arith.addf %acc, %a : tensor<4x8xf32>
    %next = arith.addi %i, %c4 : index
    %more = arith.cmpi ne, %next, %c16 : index
    scf.condition(%more) %next, %s : index, tensor<4x8xf32>
  } do {
  ^bb0(%i2: index, %acc2: tensor<4x8xf32>):
    scf.yield %i2, %acc2 : index, tensor<4x8xf32>
  }
  %st = ktdp.construct_access_tile %sv[%c0, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<4x8xf32> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %r#1, %st : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
  return
}

// Nested counted loops: both raised (the inner one first).
// CHECK-LABEL: func.func @nested
// CHECK:       %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT:  %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:  %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (i32) : i32 {
// CHECK-NEXT:    %[[Q:.*]] = scf.for %[[J:.*]] = %[[C0]] to %[[C5]] step %[[C1]] iter_args(%[[A:.*]] = %[[ACC]]) -> (i32) : i32 {
// CHECK-NEXT:      %[[T:.*]] = arith.muli %[[I]], %[[J]] : i32
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[A]], %[[T]] : i32
// CHECK-NEXT:      scf.yield %[[S]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield %[[Q]] : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[R]] : i32
func.func @nested(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %r:2 = scf.while (%i = %c0, %acc = %x) : (i32, i32) -> (i32, i32) {
    %q:2 = scf.while (%j = %c0, %a = %acc) : (i32, i32) -> (i32, i32) {
      %t = arith.muli %i, %j : i32
      %s = arith.addi %a, %t : i32
      %nj = arith.addi %j, %c1 : i32
      %mj = arith.cmpi ne, %nj, %c5 : i32
      scf.condition(%mj) %nj, %s : i32, i32
    } do {
    ^bb0(%j2: i32, %a2: i32):
      scf.yield %j2, %a2 : i32, i32
    }
    %ni = arith.addi %i, %c1 : i32
    %mi = arith.cmpi ne, %ni, %c3 : i32
    scf.condition(%mi) %ni, %q#1 : i32, i32
  } do {
  ^bb0(%i2: i32, %acc2: i32):
    scf.yield %i2, %acc2 : i32, i32
  }
  return %r#1 : i32
}
