// arith on tensors, as MLIR allows it (dialects/arith.py).
// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

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
