// RUN: %spyre-opt %s --split-input-file --verify-diagnostics
// A symbol defined twice: MLIR's error at the second definition, a note at
// the first (spyre_mlir/module_checks.py).

// expected-note @+1 {{see existing symbol definition here}}
func.func @twice() {
  return
}

// expected-error @+1 {{redefinition of symbol named 'twice'}}
func.func @twice() {
  return
}

// -----

module {
  // expected-note @+1 {{see existing symbol definition here}}
  func.func private @decl()
  // expected-error @+1 {{redefinition of symbol named 'decl'}}
  func.func @decl() {
    return
  }
}

// -----

// A function without a body is a declaration: it must be private.
// expected-error @+1 {{'func.func' op symbol declaration cannot have public visibility}}
func.func @declared(%a: i32) -> i32
