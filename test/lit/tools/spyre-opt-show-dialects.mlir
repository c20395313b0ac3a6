// RUN: %spyre-opt --show-dialects | %FileCheck %s
// mlir-opt's --show-dialects: every registered dialect on one line, ours and
// dataflow-scheduler's among them.
// CHECK: Available Dialects:
// CHECK-SAME: agen,
// CHECK-SAME: dataflow,
// CHECK-SAME: ktdf,
// CHECK-SAME: ktdf_arch,
// CHECK-SAME: ktdp,
// CHECK-SAME: spyreop,
// CHECK-SAME: uniform,
// CHECK-SAME: vectorchain
