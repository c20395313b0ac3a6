// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// ktdf.opaque (KTDF.td): destination passing style, ins and outs each on a
// line of their own.

// CHECK-LABEL: func.func @pure
// CHECK: %[[R:.*]] = ktdf.opaque "ADD" -> tensor<64xf16>
// CHECK-NEXT: {{^}}      ins(%{{.*}}, %{{.*}}, %{{.*}}: tensor<64xf16>, tensor<64xf16>, f32)
// CHECK-NEXT: {{^}}      outs(%{{.*}}: tensor<64xf16>)
// CHECK-NEXT: return %[[R]] : tensor<64xf16>
func.func @pure(%arg0: tensor<64xf16>) -> tensor<64xf16> {
  %c1 = arith.constant dense<1.0> : tensor<64xf16>
  %eps = arith.constant 1.0e-5 : f32
  %out = tensor.empty() : tensor<64xf16>
  %0 = ktdf.opaque "ADD" -> tensor<64xf16>
    ins(%c1, %arg0, %eps: tensor<64xf16>, tensor<64xf16>, f32)
    outs(%out: tensor<64xf16>)
  return %0 : tensor<64xf16>
}

// CHECK-LABEL: func.func @side_effecting
// CHECK: ktdf.opaque "COPY" {tag}
// CHECK-NEXT: {{^}}      ins(%{{.*}}: memref<64xf16, "L1">)
// CHECK-NEXT: {{^}}      outs(%{{.*}}: memref<64xf16, "L1">)
// CHECK: ktdf.opaque "NOP"
// CHECK-NEXT: {{^}}      ins()
// CHECK-NEXT: {{^}}      outs()
func.func @side_effecting(%arg0: memref<64xf16, "L1">, %arg1: memref<64xf16, "L1">) {
  ktdf.opaque "COPY" {tag} ins(%arg0: memref<64xf16, "L1">) outs(%arg1: memref<64xf16, "L1">)
  ktdf.opaque "NOP" ins() outs()
  return
}
