// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// A branch passes its target block exactly its arguments (dialects/cf.py);
// real MLIR meets the same expectations (test/unit/test_verifier_parity.py).

func.func @too_few(%c: i1) {
  // expected-error @+1 {{branch has 0 operands for successor #0, but target block has 1}}
  cf.br ^a
^a(%x: i32):
  return
}

// -----

func.func @wrong_type(%v: f32) {
  // expected-error @+1 {{type mismatch for bb argument #0 of successor #0}}
  cf.br ^a(%v : f32)
^a(%x: i32):
  return
}

// -----

func.func @too_many_on_else(%c: i1, %v: i32) {
  // expected-error @+1 {{branch has 1 operands for successor #1, but target block has 0}}
  cf.cond_br %c, ^a(%v : i32), ^b(%v : i32)
^a(%x: i32):
  return
^b:
  return
}
