// RUN: %spyre-opt %s --split-input-file -p 'spyre-raise-counted-loops{remarks=true}' --verify-diagnostics
// RUN: %spyre-opt %s --split-input-file -p spyre-raise-counted-loops | %FileCheck %s

// Every loop here is outside the exact counted-loop projection: it stays
// scf.while, unchanged, and with remarks=true says why.

// Non-landing step: 0, 3, 6, 9, 12, ... never equals 10 (the latch is met,
// if ever, only after wrapping around index).
// CHECK-LABEL: func.func @non_landing_step
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @non_landing_step(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{scf.while not raised: non-landing step: 3 does not divide upper - lower = 10}}
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c3 : index
    %more = arith.cmpi ne, %next, %c10 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  return %r#1 : f32
}

// -----

// A dynamic upper bound with no enclosing scf.if proving it positive: with
// %n <= 0 the loop would run until `next` wraps around to %n.
// CHECK-LABEL: func.func @unproven_dynamic_bound
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @unproven_dynamic_bound(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{scf.while not raised: unproven dynamic bound: no enclosing scf.if proves the upper bound > 0}}
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %n : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  return %r#1 : f32
}

// -----

// `ugt %n, 0` proves only %n != 0: a %n negative as a signed value runs the
// while (next <u %n) but would run no scf.for (its bounds compare signed).
// The loop in the else-branch of `sgt %n, 0` is not proven either.
// CHECK-LABEL: func.func @unsigned_proof
// CHECK:       scf.while
// CHECK-NOT:   scf.for
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @unsigned_proof(%n: i32, %x: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %p = arith.cmpi ugt, %n, %c0 : i32
  %a = scf.if %p -> i32 {
    // expected-remark @+1 {{scf.while not raised: unproven dynamic bound: no enclosing scf.if proves the upper bound > 0}}
    %r:2 = scf.while (%i = %c0, %acc = %x) : (i32, i32) -> (i32, i32) {
      %s = arith.addi %acc, %i : i32
      %next = arith.addi %i, %c1 : i32
      %more = arith.cmpi ult, %next, %n : i32
      scf.condition(%more) %next, %s : i32, i32
    } do {
    ^bb0(%i2: i32, %acc2: i32):
      scf.yield %i2, %acc2 : i32, i32
    }
    scf.yield %r#1 : i32
  } else {
    scf.yield %x : i32
  }
  %q = arith.cmpi sgt, %n, %c0 : i32
  %b = scf.if %q -> i32 {
    scf.yield %x : i32
  } else {
    // expected-remark @+1 {{scf.while not raised: unproven dynamic bound: no enclosing scf.if proves the upper bound > 0}}
    %r:2 = scf.while (%i = %c0, %acc = %x) : (i32, i32) -> (i32, i32) {
      %s = arith.addi %acc, %i : i32
      %next = arith.addi %i, %c1 : i32
      %more = arith.cmpi ne, %next, %n : i32
      scf.condition(%more) %next, %s : i32, i32
    } do {
    ^bb0(%i2: i32, %acc2: i32):
      scf.yield %i2, %acc2 : i32, i32
    }
    scf.yield %r#1 : i32
  }
  return %a, %b : i32, i32
}

// -----

// A dynamic upper bound needs lower bound 0 and step 1, even when proven > 0.
// CHECK-LABEL: func.func @dynamic_bound_step_2
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @dynamic_bound_step_2(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = arith.cmpi sgt, %n, %c0 : index
  %out = scf.if %p -> f32 {
    // expected-remark @+1 {{scf.while not raised: unproven dynamic bound: a dynamic upper bound needs lower bound 0 and step 1 (here 0 and 2)}}
    %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
      %s = arith.addf %acc, %acc : f32
      %next = arith.addi %i, %c2 : index
      %more = arith.cmpi ne, %next, %n : index
      scf.condition(%more) %next, %s : index, f32
    } do {
    ^bb0(%i2: index, %acc2: f32):
      scf.yield %i2, %acc2 : index, f32
    }
    scf.yield %r#1 : f32
  } else {
    scf.yield %x : f32
  }
  return %out : f32
}

// -----

// Reordered feedback: the after-region swaps two lanes.
// CHECK-LABEL: func.func @reordered_feedback
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @reordered_feedback(%x: i32, %y: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark @+1 {{scf.while not raised: the after-region does not return every lane by identity (lane #1 gets argument #2)}}
  %r:3 = scf.while (%i = %c0, %a = %x, %b = %y) : (index, i32, i32) -> (index, i32, i32) {
    %s = arith.addi %a, %b : i32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %s, %b : index, i32, i32
  } do {
  ^bb0(%i2: index, %a2: i32, %b2: i32):
    scf.yield %i2, %b2, %a2 : index, i32, i32
  }
  return %r#1, %r#2 : i32, i32
}

// -----

// A side effect in the after-region (a store per iteration), and a pure op
// there: the after-region must be empty.
// CHECK-LABEL: func.func @after_region_effects
// CHECK:       scf.while
// CHECK-NOT:   scf.for
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @after_region_effects(%m: memref<8xf32>, %x: f32) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-remark @+1 {{scf.while not raised: the after-region has side effects (`memref.store`)}}
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c8 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    memref.store %acc2, %m[%i2] : memref<8xf32>
    scf.yield %i2, %acc2 : index, f32
  }
  // expected-remark @+1 {{scf.while not raised: the after-region is not empty (`arith.addf`)}}
  %q:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c8 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    %unused = arith.addf %acc2, %acc2 : f32
    scf.yield %i2, %acc2 : index, f32
  }
  return %r#1, %q#1 : f32, f32
}

// -----

// Wrapping bounds: in i8, 0, 64, then `next` = 128 wraps to -128, the upper
// bound: two trips, but `0 to -128` is an empty scf.for. In index, an upper
// bound below the lower one is met only after 2^64 wraps of `next`.
// CHECK-LABEL: func.func @wrapping_bound
// CHECK:       scf.while
// CHECK-NOT:   scf.for
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @wrapping_bound(%x: i8) -> (i8, i8) {
  %c0 = arith.constant 0 : i8
  %c64 = arith.constant 64 : i8
  %c128 = arith.constant 128 : i8
  // expected-remark @+1 {{scf.while not raised: wrapping bound: the upper bound -128 is not greater than the lower bound 0}}
  %r:2 = scf.while (%i = %c0, %acc = %x) : (i8, i8) -> (i8, i8) {
    %s = arith.addi %acc, %i : i8
    %next = arith.addi %i, %c64 : i8
    %more = arith.cmpi ne, %next, %c128 : i8
    scf.condition(%more) %next, %s : i8, i8
  } do {
  ^bb0(%i2: i8, %acc2: i8):
    scf.yield %i2, %acc2 : i8, i8
  }
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{scf.while not raised: wrapping bound: the upper bound 4 is not greater than the lower bound 8}}
  %q:2 = scf.while (%i = %c8, %acc = %x) : (index, i8) -> (index, i8) {
    %s = arith.addi %acc, %acc : i8
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %s : index, i8
  } do {
  ^bb0(%i2: index, %acc2: i8):
    scf.yield %i2, %acc2 : index, i8
  }
  return %r#1, %q#1 : i8, i8
}

// -----

// Non-latch conditions: a header test of the current %i (the body would
// also run for %i = 10), a condition that is no comparison, and a latch whose
// `next` is not what the induction lane forwards.
// CHECK-LABEL: func.func @non_latch_condition
// CHECK:       scf.while
// CHECK-NOT:   scf.for
// CHECK:       scf.while
// CHECK-NOT:   scf.for
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @non_latch_condition(%x: f32, %go: i1) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{scf.while not raised: the condition is not a latch test `next != upper`: no operand of its `cmpi` is `next = iv + step` forwarded on the lane of `iv`}}
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %i, %c10 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  // expected-remark @+1 {{scf.while not raised: the condition is not a latch test `next != upper` (it is a result of `arith.andi`)}}
  %q:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %ne = arith.cmpi ne, %next, %c10 : index
    %more = arith.andi %ne, %go : i1
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  // expected-remark @+1 {{scf.while not raised: the condition is not a latch test `next != upper`: no operand of its `cmpi` is `next = iv + step` forwarded on the lane of `iv`}}
  %t:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c10 : index
    scf.condition(%more) %i, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  return %r#1, %q#1, %t#1 : f32, f32, f32
}

// -----

// A latch that is not `next != upper` on the domain: `sle` runs one more trip.
// CHECK-LABEL: func.func @latch_predicate
// CHECK:       scf.while
// CHECK-NOT:   scf.for
func.func @latch_predicate(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{scf.while not raised: the latch `cmpi sle, next, upper` is not `next != upper`}}
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi sle, %next, %c10 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  return %r#1 : f32
}

// -----

// Bounds outside the projection: a negative lower bound, a step that is no
// constant, a lower bound that is no constant, an upper bound computed in
// the loop.
// CHECK-LABEL: func.func @other_bounds
// CHECK-COUNT-4: scf.while
// CHECK-NOT:   scf.for
func.func @other_bounds(%x: f32, %st: index, %lo: index, %n: index) -> (f32, f32, f32, f32) {
  %cm4 = arith.constant -4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  // expected-remark @+1 {{scf.while not raised: the lower bound -4 is negative}}
  %r:2 = scf.while (%i = %cm4, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c2 : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  // expected-remark @+1 {{scf.while not raised: the step is not a constant}}
  %q:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %st : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  // expected-remark @+1 {{scf.while not raised: the lower bound is not a constant}}
  %t:2 = scf.while (%i = %lo, %acc = %x) : (index, f32) -> (index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ne, %next, %c4 : index
    scf.condition(%more) %next, %s : index, f32
  } do {
  ^bb0(%i2: index, %acc2: f32):
    scf.yield %i2, %acc2 : index, f32
  }
  %p = arith.cmpi sgt, %n, %c0 : index
  %u = scf.if %p -> f32 {
    // expected-remark @+1 {{scf.while not raised: the upper bound is defined inside the loop}}
    %w:2 = scf.while (%i = %c0, %acc = %x) : (index, f32) -> (index, f32) {
      %s = arith.addf %acc, %acc : f32
      %ub = arith.addi %n, %c0 : index
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ne, %next, %ub : index
      scf.condition(%more) %next, %s : index, f32
    } do {
    ^bb0(%i2: index, %acc2: f32):
      scf.yield %i2, %acc2 : index, f32
    }
    scf.yield %w#1 : f32
  } else {
    scf.yield %x : f32
  }
  return %r#1, %q#1, %t#1, %u : f32, f32, f32, f32
}

// -----

// Duplicate lanes are merged in every scf.while, raised or not: %j is %i
// (same initial value, same forwarded %next, identity feedback). This loop
// then stays scf.while, with one lane fewer (non-landing step).
// CHECK-LABEL: func.func @merged_not_raised
// CHECK:       %[[R:[^:]*]]:2 = scf.while (%[[I:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) : (index, f32) -> (index, f32)
// CHECK:       scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : index, f32
// CHECK:       return %[[R]]#0, %[[R]]#0, %[[R]]#1 : index, index, f32
func.func @merged_not_raised(%x: f32) -> (index, index, f32) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{scf.while not raised: non-landing step: 3 does not divide upper - lower = 10}}
  %r:3 = scf.while (%i = %c0, %j = %c0, %acc = %x) : (index, index, f32) -> (index, index, f32) {
    %s = arith.addf %acc, %acc : f32
    %next = arith.addi %i, %c3 : index
    %more = arith.cmpi ne, %next, %c10 : index
    scf.condition(%more) %next, %next, %s : index, index, f32
  } do {
  ^bb0(%i2: index, %j2: index, %acc2: f32):
    scf.yield %i2, %j2, %acc2 : index, index, f32
  }
  return %r#0, %r#1, %r#2 : index, index, f32
}
