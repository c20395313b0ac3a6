// Upstream syntax that KTIR uses and xDSL 0.75 lacks (dialects/upstream.py).
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

// CHECK-LABEL: func.func @arith_on_tensors
func.func @arith_on_tensors(%a: tensor<4xi32>, %b: tensor<4xi32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xindex>, tensor<4xi64>, tensor<4xi16>, tensor<4xi32>) {
  // CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<4xi32>
  %c = arith.cmpi slt, %a, %b : tensor<4xi32>
  // CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : tensor<4xf32>
  %d = arith.cmpf olt, %x, %y : tensor<4xf32>
  // CHECK: arith.select %[[C]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
  %s = arith.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>
  // CHECK: arith.sitofp %{{.*}} : tensor<4xi32> to tensor<4xf32>
  %f = arith.sitofp %a : tensor<4xi32> to tensor<4xf32>
  // CHECK: arith.index_cast %{{.*}} : tensor<4xi32> to tensor<4xindex>
  %i = arith.index_cast %a : tensor<4xi32> to tensor<4xindex>
  // CHECK: arith.extsi %{{.*}} : tensor<4xi32> to tensor<4xi64>
  %e = arith.extsi %a : tensor<4xi32> to tensor<4xi64>
  // CHECK: arith.trunci %{{.*}} : tensor<4xi32> to tensor<4xi16>
  %t = arith.trunci %a : tensor<4xi32> to tensor<4xi16>
  // CHECK: arith.trunci %{{.*}} overflow<nsw> : tensor<4xi32> to tensor<4xi16>
  %t2 = arith.trunci %a overflow<nsw> : tensor<4xi32> to tensor<4xi16>
  // CHECK: arith.fptosi %{{.*}} : tensor<4xf32> to tensor<4xi32>
  %g = arith.fptosi %x : tensor<4xf32> to tensor<4xi32>
  // Scalars keep their one-type select.
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
  %p = arith.constant 1 : i1
  %z = arith.constant 1.0 : f32
  %q = arith.select %p, %z, %z : f32
  return %s, %d, %i, %e, %t, %g : tensor<4xf32>, tensor<4xi1>, tensor<4xindex>, tensor<4xi64>, tensor<4xi16>, tensor<4xi32>
}
