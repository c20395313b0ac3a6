// RUN: %spyre-opt --mlir-print-local-scope %s | %spyre-opt --mlir-print-local-scope | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s --mlir-print-op-generic | %spyre-opt --mlir-print-local-scope | %FileCheck %s

// A bundle in the shape spyre-emit-bundle writes (docs/bundle.md): a loop of
// sdsc_execute ops on per-tile HBM byte addresses (and the kernel's scalars).
// The op has no custom syntax: it is read and printed in MLIR's generic form
// only, so that upstream MLIR reads it with --allow-unregistered-dialect.

// CHECK-LABEL: func.func @sdsc_bundle
// CHECK-SAME:    attributes {grid = [2, 1], spyre.kernel = "add"}
// CHECK:         scf.for %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %addr = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 1024)>(%i)[%bytes]
// CHECK-NEXT:      "sdscbundle.sdsc_execute"(%addr, %addr, %n) {sdsc_filename = "sdsc_0.json"} : (index, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    "sdscbundle.sdsc_execute"(%eps, %k) {sdsc_filename = "sdsc_1.json"} : (f32, i32) -> ()
// CHECK-NEXT:    return
#map = affine_map<(d0)[s0] -> (s0 + 1024 * d0)>
builtin.module {
  func.func @sdsc_bundle(%a: index, %n: index, %eps: f32, %k: i32) attributes {grid = [2 : i64, 1 : i64], spyre.kernel = "add"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %bytes = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%a]
    scf.for %i = %c0 to %c2 step %c1 {
      %addr = affine.apply #map(%i)[%bytes]
      "sdscbundle.sdsc_execute"(%addr, %addr, %n) {sdsc_filename = "sdsc_0.json"} : (index, index, index) -> ()
    }
    "sdscbundle.sdsc_execute"(%eps, %k) {sdsc_filename = "sdsc_1.json"} : (f32, i32) -> ()
    func.return
  }
}
