// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// MLIR's scf.if checks (dialects/scf.py); real MLIR meets the same
// expectations (test/unit/test_verifier_parity.py).

func.func @if_results_without_else(%c: i1) -> f32 {
  // expected-error @+1 {{'scf.if' op must have an else block if defining values}}
  %0 = scf.if %c -> f32 {
    %x = arith.constant 1.0 : f32
    scf.yield %x : f32
  }
  return %0 : f32
}

// -----

func.func @if_yield_type(%c: i1) -> f32 {
  // expected-error @+1 {{'scf.if' op along control flow edge from Operation scf.yield to Operation scf.if: successor operand type #0 'i32' should match successor input type #0 'f32'}}
  %0 = scf.if %c -> (f32) {
    %x = arith.constant 1 : i32
    // expected-note @+1 {{region branch point}}
    scf.yield %x : i32
  } else {
    %y = arith.constant 1.0 : f32
    scf.yield %y : f32
  }
  return %0 : f32
}

// -----

func.func @if_yield_count(%c: i1) -> f32 {
  // expected-error @+1 {{'scf.if' op along control flow edge from Operation scf.yield to Operation scf.if: region branch point has 0 operands, but region successor needs 1 inputs}}
  %0 = scf.if %c -> (f32) {
    %y = arith.constant 1.0 : f32
    scf.yield %y : f32
  } else {
    // expected-note @+1 {{region branch point}}
    scf.yield
  }
  return %0 : f32
}

// -----

// Terminators in the wrong parent: MLIR's HasParent wording, at the
// terminator (checked before the parent's terminator trait, as in MLIR).
func.func @condition_outside_while(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{'scf.condition' op expects parent op 'scf.while'}}
    scf.condition(%c)
  }
  return
}

// -----

func.func @yield_in_generic(%a: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'scf.yield' op expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'}}
    scf.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @return_in_if(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    func.return
  }
  return
}

// -----

func.func @if_body_first(%c: i1, %m: tensor<4x4xf32>, %n: index) -> f32 {
  %0 = scf.if %c -> f32 {
    // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
    %x = tensor.extract %m[%n] : tensor<4x4xf32>
    scf.yield
  } else {
    %y = arith.constant 1.0 : f32
    scf.yield %y : f32
  }
  return %0 : f32
}

// -----

// scf.while: MLIR's checks of the values along each control-flow edge (xDSL
// raised an internal error on some, accepted others).
func.func @while_condition_type(%n: i32, %f: f32) -> i32 {
  // expected-error @+1 {{'scf.while' op along control flow edge from Operation scf.condition to Operation scf.while: successor operand type #0 'f32' should match successor input type #0 'i32'}}
  %r = scf.while (%a = %n) : (i32) -> i32 {
    %c = arith.cmpi slt, %a, %n : i32
    // expected-note @+1 {{region branch point}}
    scf.condition(%c) %f : f32
  } do {
  ^bb0(%b: i32):
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

func.func @while_yield_count(%n: i32) -> i32 {
  // expected-error @+1 {{'scf.while' op along control flow edge from Operation scf.yield to Region #0: region branch point has 0 operands, but region successor needs 1 inputs}}
  %r = scf.while (%a = %n) : (i32) -> i32 {
    %c = arith.cmpi slt, %a, %n : i32
    scf.condition(%c) %a : i32
  } do {
  ^bb0(%b: i32):
    // expected-note @+1 {{region branch point}}
    scf.yield
  }
  return %r : i32
}

// -----

func.func @while_after_arguments(%n: i32) -> i32 {
  // expected-error @+1 {{'scf.while' op along control flow edge from Operation scf.condition to Region #1: region branch point has 1 operands, but region successor needs 0 inputs}}
  %r = scf.while (%a = %n) : (i32) -> i32 {
    %c = arith.cmpi slt, %a, %n : i32
    // expected-note @+1 {{region branch point}}
    scf.condition(%c) %a : i32
  } do {
    scf.yield %n : i32
  }
  return %r : i32
}

// -----

func.func @while_before_arguments(%n: i32) -> i32 {
  // expected-error @+2 {{'scf.while' op along control flow edge from parent to Region #0: successor operand type #0 'i32' should match successor input type #0 'f32'}}
  // expected-note @+1 {{region branch point}}
  %r = "scf.while"(%n) ({
  ^bb0(%a: f32):
    %c = arith.constant true
    scf.condition(%c) %n : i32
  }, {
  ^bb0(%b: i32):
    scf.yield %n : i32
  }) : (i32) -> i32
  return %r : i32
}

// -----

func.func @while_before_terminator(%n: i32) -> i32 {
  // expected-error @+1 {{'scf.while' op expects the 'before' region to terminate with 'scf.condition'}}
  %r = "scf.while"(%n) ({
  ^bb0(%a: i32):
    // expected-note @+1 {{terminator here}}
    scf.yield %a : i32
  }, {
  ^bb0(%b: i32):
    scf.yield %b : i32
  }) : (i32) -> i32
  return %r : i32
}

// -----

func.func @switch_duplicate(%i: index) {
  // expected-error @+1 {{'scf.index_switch' op has duplicate case value: 2}}
  scf.index_switch %i
  case 2 {
    scf.yield
  }
  case 2 {
    scf.yield
  }
  default {
  }
  return
}

// -----

func.func @switch_yield_type(%i: index) -> i32 {
  // expected-error @+1 {{'scf.index_switch' op expected result #0 of each region to be 'i32'}}
  %r = scf.index_switch %i -> i32
  case 2 {
    %c = arith.constant 1 : i32
    scf.yield %c : i32
  }
  default {
    %c = arith.constant 2.0 : f32
    // expected-note @+1 {{default region returns 'f32' here}}
    scf.yield %c : f32
  }
  return %r : i32
}

// -----

func.func @switch_terminator(%i: index) -> i32 {
  // expected-error @+1 {{'scf.index_switch' op expected region to end with scf.yield, but got func.return}}
  %r = scf.index_switch %i -> i32
  case 2 {
    %c = arith.constant 1 : i32
    scf.yield %c : i32
  }
  default {
    %c = arith.constant 2 : i32
    func.return %c : i32
  }
  return %r : i32
}
