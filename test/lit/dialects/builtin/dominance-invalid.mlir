// RUN: %spyre-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// SSA dominance (spyre_mlir/dominance.py), with MLIR's error and notes; real MLIR
// meets the same expectations (test/unit/test_verifier_parity.py).

func.func @use_before_def() -> i32 {
  %c = arith.constant 2 : i32
  // expected-error @+1 {{operand #1 does not dominate this use}}
  %0 = arith.addi %c, %1 : i32
  // expected-note @+1 {{operand defined here (op in the same block)}}
  %1 = arith.constant 1 : i32
  return %0 : i32
}

// -----

func.func @block_does_not_dominate(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  // expected-note @+1 {{operand defined here (op in the same region)}}
  %x = arith.constant 1 : i32
  cf.br ^join
^b:
  cf.br ^join
^join:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  return %x : i32
}

// -----

// expected-note @+1 {{operand defined as a block argument (block #1 in the same region)}}
func.func @block_argument(%c: i1) -> i32 {
  %z = arith.constant 0 : i32
  cf.cond_br %c, ^a(%z : i32), ^b
^a(%y: i32):
  cf.br ^join
^b:
  cf.br ^join
^join:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  return %y : i32
}

// -----

func.func @defined_later_in_parent(%c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    // expected-error @+1 {{operand #0 does not dominate this use}}
    %q = arith.addi %z, %z : i32
    scf.yield %q : i32
  } else {
    %o = arith.constant 1 : i32
    scf.yield %o : i32
  }
  // expected-note @+1 {{operand defined here (op in a parent region)}}
  %z = arith.constant 0 : i32
  return %r : i32
}

// -----

func.func @own_result_in_own_region(%c: i1) -> i32 {
  // expected-note @+1 {{operand defined here (op in a parent region)}}
  %r = scf.if %c -> (i32) {
    // expected-error @+1 {{operand #0 does not dominate this use}}
    scf.yield %r : i32
  } else {
    %o = arith.constant 1 : i32
    scf.yield %o : i32
  }
  return %r : i32
}

// -----

func.func @unregistered_ops_in_ssacfg_region() {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %0 = "test.use"(%1) : (i32) -> i32
  // expected-note @+1 {{operand defined here (op in the same block)}}
  %1 = "test.def"() : () -> i32
  return
}

// -----

// A name not defined where it is used: MLIR's parse error at the (first)
// use, not at the end of the file.
func.func @used_outside_its_region(%c: i1) -> i32 {
  scf.if %c {
    %q = arith.constant 0 : i32
  }
  // expected-error @+1 {{use of undeclared SSA value name}}
  %s = arith.addi %q, %q : i32
  return %s : i32
}

// -----

// An op's own region does not define its operands (MLIR resolves them after
// parsing the region).
func.func @operand_named_by_own_region(%lo: index, %hi: index) -> index {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %n = scf.for %i = %lo to %hi step %lo iter_args(%k = %i) -> (index) {
    scf.yield %k : index
  }
  return %n : index
}
