// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// A loop with an empty body prints without a block label, so that it reads
// back (the loop's number is its region's argument either way).

// CHECK-LABEL: spatial.program @idle
// CHECK:         spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to 0 {
// CHECK-NEXT:      }
// CHECK-NEXT:    }
spatial.program @idle attributes {spatial.phase = "synthesized"} {
  spatial.site @s0 at [0] engines ["load"]
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to 0 {
    }
  }
}
