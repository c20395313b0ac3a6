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
