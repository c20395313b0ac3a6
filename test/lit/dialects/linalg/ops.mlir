// linalg syntax that KTIR uses and xDSL 0.75 lacks (dialects/linalg.py).
// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// CHECK-LABEL: func.func @reduce_forms
func.func @reduce_forms(%x: tensor<4x8xf16>, %i: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  // The short form prints back short.
  // CHECK: linalg.reduce { arith.maxnumf } ins(%{{.*}} : tensor<4x8xf16>) outs(%{{.*}} : tensor<4xf16>) dimensions = [1]
  %a = linalg.reduce { arith.maxnumf } ins(%x : tensor<4x8xf16>) outs(%i : tensor<4xf16>) dimensions = [1]
  // A long form whose body is op(%init, %in) is the same op, printed short.
  // CHECK: linalg.reduce { arith.addf } ins
  %b = linalg.reduce ins(%x : tensor<4x8xf16>) outs(%i : tensor<4xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %acc, %in : f16
      linalg.yield %s : f16
    }
  return %a, %b : tensor<4xf16>, tensor<4xf16>
}

// Any other body keeps the long form.
// CHECK-LABEL: func.func @reduce_long
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf16>) outs(%{{.*}} : tensor<4xf16>) dimensions = [1] (%[[IN:.*]]: f16, %[[ACC:.*]]: f16) {
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN]], %[[ACC]] : f16
// CHECK-NEXT: linalg.yield %[[S]] : f16
func.func @reduce_long(%x: tensor<4x8xf16>, %i: tensor<4xf16>) -> tensor<4xf16> {
  %b = linalg.reduce ins(%x : tensor<4x8xf16>) outs(%i : tensor<4xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
    }
  return %b : tensor<4xf16>
}


// linalg.div, MLIR's named op (xDSL 0.75 lacks it): divf on floats, divsi on integers.
// CHECK-LABEL: func.func @div
// CHECK: linalg.div ins(%{{.*}}, %{{.*}} : tensor<4xf16>, tensor<4xf16>) outs(%{{.*}} : tensor<4xf16>) -> tensor<4xf16>
// CHECK: linalg.div ins(%{{.*}}, %{{.*}} : memref<4xi32>, memref<4xi32>) outs(%{{.*}} : memref<4xi32>)
func.func @div(%a: tensor<4xf16>, %b: tensor<4xf16>, %o: tensor<4xf16>, %p: memref<4xi32>, %q: memref<4xi32>, %r: memref<4xi32>) -> tensor<4xf16> {
  %0 = linalg.div ins(%a, %b : tensor<4xf16>, tensor<4xf16>) outs(%o : tensor<4xf16>) -> tensor<4xf16>
  linalg.div ins(%p, %q : memref<4xi32>, memref<4xi32>) outs(%r : memref<4xi32>)
  return %0 : tensor<4xf16>
}
