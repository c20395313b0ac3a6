// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// scf.forall's verifier (dialects/scf.py). Every message is MLIR's but for the
// static step (MLIR accepts a zero or negative one) and the refused parts of
// the op (shared_outs, mapping).

func.func @upper_bounds_of_another_rank(%n: index) {
  // expected-error @+1 {{expected 2 upper bound values, got 1}}
  scf.forall (%i, %j) in (%n) {
  }
  return
}

// -----

func.func @steps_of_another_rank(%n: index) {
  // expected-error @+1 {{expected 2 step values, got 1}}
  "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: -9223372036854775808, 4>}> ({
  ^bb0(%a: index, %b: index):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @steps_of_another_rank_custom(%n: index) {
  // expected-error @+1 {{expected 1 step values, got 2}}
  scf.forall (%i) = (0) to (%n) step (1, 1) {
  }
  return
}

// -----

func.func @more_operands_than_placeholders(%n: index) {
  // expected-error @+1 {{expected 0 dynamic upper bound values}}
  "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 1, 1>, staticUpperBound = array<i64: 4, 4>}> ({
  ^bb0(%a: index, %b: index):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @fewer_block_arguments_than_dimensions(%n: index) {
  // expected-error @+1 {{'scf.forall' op region expects 2 arguments}}
  "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 1, 1>, staticUpperBound = array<i64: -9223372036854775808, 4>}> ({
  ^bb0(%a: index):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @a_block_argument_that_is_not_an_index(%n: index) {
  // expected-error @+1 {{'scf.forall' op expects 1-th block argument to be an index}}
  "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 1, 1>, staticUpperBound = array<i64: -9223372036854775808, 4>}> ({
  ^bb0(%a: index, %b: i32):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @a_bound_that_is_not_an_index(%n: i32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  scf.forall (%i) in (%n) {
  }
  return
}

// -----

func.func @ops_in_the_terminator(%n: index) {
  scf.forall (%i) in (%n) {
    // expected-error @+1 {{'scf.forall.in_parallel' op expected only ParallelCombiningOpInterface ops}}
    scf.forall.in_parallel {
      %c = arith.constant 0 : index
    }
  }
  return
}

// -----

func.func @terminator_outside_forall(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{'scf.forall.in_parallel' op expects parent op 'scf.forall'}}
    scf.forall.in_parallel {
    }
  }
  return
}

// -----

// Ours only: MLIR accepts these.

func.func @zero_step() {
  // expected-error @+1 {{'scf.forall' op expected a positive step, got 0 for dimension #0}}
  scf.forall (%i) = (0) to (8) step (0) {
  }
  return
}

// -----

func.func @negative_step(%n: index) {
  // expected-error @+1 {{'scf.forall' op expected a positive step, got -1 for dimension #1}}
  scf.forall (%i, %j) = (0, 8) to (%n, 0) step (1, -1) {
  }
  return
}

// -----

func.func @mapping(%n: index) {
  // expected-error @+1 {{'scf.forall' op the mapping attribute (device ids) is not supported}}
  scf.forall (%i) in (%n) {
  } {mapping = []}
  return
}

// -----

func.func @shared_outs(%t: tensor<4xf32>) {
  // expected-error @+1 {{'scf.forall' with shared_outs (results) is not supported}}
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4xf32>) {
  }
  return
}
