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
