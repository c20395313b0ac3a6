// The upstream extensions come with the xdsl.universe plugin, so a stock
// xdsl-opt reads what spyre-opt reads: MLIR ops xDSL lacks (arith.remf) and
// MLIR's verifiers xDSL lacks (tensor.extract's index count).
// RUN: %xdsl-opt %s --split-input-file --verify-diagnostics 2>&1 | %FileCheck %s
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
// CHECK: incorrect number of indices for extract_element

func.func @rem(%a: f32, %b: f32) -> f32 {
  %r = arith.remf %a, %b : f32
  return %r : f32
}

// -----

func.func @extract(%t: tensor<4x4xf16>, %i: index) -> f16 {
  // expected-error @+1 {{incorrect number of indices for extract_element}}
  %e = tensor.extract %t[%i] : tensor<4x4xf16>
  return %e : f16
}
