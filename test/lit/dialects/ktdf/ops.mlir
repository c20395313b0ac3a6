// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// The output form of dataflow-scheduler's --construct-three-stage-pipeline,
// with our views: every op, type and attribute of the dialect.
// CHECK-LABEL: func.func @three_stages
func.func @three_stages(%a: index, %b: index, %c: index, %row: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %A = ktdp.construct_memory_view %a, sizes: [96, 64], strides: [64, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %B = ktdp.construct_memory_view %b, sizes: [96, 64], strides: [64, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %C = ktdp.construct_memory_view %c, sizes: [96, 64], strides: [64, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  // CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
  scf.for %i = %c0 to %c1 step %c1 {
    scf.for %j = %c0 to %c64 step %c64 {
      // CHECK: ktdf.pipeline {
      ktdf.pipeline {
        // CHECK-NEXT: %[[P:[^:]*]]:6 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token) {
        %p:6 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token) {
          // CHECK-NEXT: %[[F:[^:]*]]:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          %f0:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          // CHECK-NEXT: %[[F2:.*]] = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
          %f1 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
          // CHECK-NEXT: %[[T0:.*]] = ktdf.create_token : !ktdf.token
          %t0 = ktdf.create_token : !ktdf.token
          %t1 = ktdf.create_token : !ktdf.token
          %t2 = ktdf.create_token : !ktdf.token
          // CHECK: ktdf.private_yield %[[F]]#0, %[[F]]#1, %[[F2]], %[[T0]], %{{.*}}, %{{.*}} : !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token
          ktdf.private_yield %f0#0, %f0#1, %f1, %t0, %t1, %t2 : !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token
        }
        // CHECK: ktdf.stage depends_in(none) depends_out(%[[P]]#3) {
        ktdf.stage depends_in(none) depends_out(%p#3) {
          // CHECK-NEXT: ktdf.data_transfer from %{{.*}}[%{{.*}} + %[[I]], %{{.*}}] size [1, 64] to %[[P]]#0 size [1, 64] : memref<96x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          ktdf.data_transfer from %A[%row + %i, %j] size [1, 64] to %p#0 size [1, 64] : memref<96x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          // The short slot type is read here too; the slot side's size may be left out.
          // CHECK-NEXT: ktdf.data_transfer from %{{.*}}[%{{.*}}, %{{.*}}] size [1, 64] to %[[P]]#1 : memref<96x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          ktdf.data_transfer from %B[%i, %j] size [1, 64] to %p#1 : memref<96x64xf16>, <"DDR" -> "SFU", 64xf16>
        }
        // CHECK: ktdf.stage depends_in(%[[P]]#3) depends_out(%[[P]]#4) {
        ktdf.stage depends_in(%p#3) depends_out(%p#4) {
          // CHECK-NEXT: %[[X:.*]] = ktdf.read_from_fifo %[[P]]#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
          %x = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
          // CHECK-NEXT: %[[Y:.*]] = ktdf.read_from_fifo %[[P]]#1 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
          %y = ktdf.read_from_fifo %p#1 : !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
          %e = tensor.empty() : tensor<1x64xf16>
          %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) {
          ^bb0(%u: f16, %v: f16, %w: f16):
            %sum = arith.addf %u, %v : f16
            linalg.yield %sum : f16
          } -> tensor<1x64xf16>
          // CHECK: ktdf.write_to_fifo %{{.*}}, %[[P]]#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
          ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
        // CHECK-NEXT: } {applicable_units = ["SFU"]}
        } {applicable_units = ["SFU"]}
        // CHECK: ktdf.stage depends_in(%[[P]]#4) depends_out(%[[P]]#5) {
        ktdf.stage depends_in(%p#4) depends_out(%p#5) {
          // CHECK-NEXT: ktdf.data_transfer from %[[P]]#2 size [1, 64] to %{{.*}}[%{{.*}} + %[[I]], %{{.*}}] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, memref<96x64xf16>
          ktdf.data_transfer from %p#2 size [1, 64] to %C[%row + %i, %j] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, memref<96x64xf16>
        }
      }
    // CHECK: } {loop_type = #ktdf.loop_type<parallel_loop>}
    } {loop_type = #ktdf.loop_type<parallel_loop>}
  // CHECK: } {loop_type = #ktdf.loop_type<reduction_loop>}
  } {loop_type = #ktdf.loop_type<reduction_loop>}
  return
}

// Tokens created outside the pipeline, two of them awaited, a modulo depth,
// a private region without results (its terminator implicit), other
// attributes of a stage.
// CHECK-LABEL: func.func @tokens_and_modulo
func.func @tokens_and_modulo() attributes {loop = #ktdf.loop_type<reduction_loop>} {
  // CHECK: %[[A:.*]] = ktdf.create_token : !ktdf.token
  %ta = ktdf.create_token : !ktdf.token
  %tb = ktdf.create_token : !ktdf.token
  %tc = ktdf.create_token {note = "last"} : !ktdf.token
  // CHECK: ktdf.pipeline modulo(size: 2) {
  ktdf.pipeline modulo(size: 2) {
    // CHECK-NEXT: ktdf.private {
    // CHECK-NEXT: }
    ktdf.private {
    }
    // CHECK-NEXT: ktdf.stage depends_in(none) depends_out(%[[A]]) {
    // CHECK-NEXT: }
    ktdf.stage depends_in(none) depends_out(%ta) {
    }
    ktdf.stage depends_in(none) depends_out(%tb) {
    }
    // CHECK: ktdf.stage depends_in(%[[A]], %{{.*}}) depends_out(%{{.*}}) {
    // CHECK-NEXT: } {applicable_units = ["PT", "SFU"], cost = 3 : i64}
    ktdf.stage depends_in(%ta, %tb) depends_out(%tc) {
    } {cost = 3, applicable_units = ["PT", "SFU"]}
  // CHECK-NEXT: } {tag}
  } {tag}
  return
}

// A slot of dynamic size, a 1-d transfer with an affine subscript.
// CHECK-LABEL: func.func @dynamic_slot
func.func @dynamic_slot(%base: index, %n: index, %k: index) {
  %v = ktdp.construct_memory_view %base, sizes: [128], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>, memory_space = #ktdp.memory_space<ct_local>} : memref<128xf32>
  ktdf.pipeline {
    %p:4 = ktdf.private -> (!ktdf.fifo.slot<"L1" -> "PT", ?xf32>, !ktdf.fifo.slot<"L1" -> "PT", 32xf32>, !ktdf.token, !ktdf.token) {
      // CHECK: ktdf.fifo.allocate(%{{.*}}) -> !ktdf.fifo.slot<"L1" -> "PT", ?xf32>, !ktdf.fifo.slot<"L1" -> "PT", 32xf32>
      %s:2 = ktdf.fifo.allocate(%n) -> !ktdf.fifo.slot<"L1" -> "PT", ?xf32>, !ktdf.fifo.slot<"L1" -> "PT", 32xf32>
      %t0 = ktdf.create_token : !ktdf.token
      %t1 = ktdf.create_token : !ktdf.token
      ktdf.private_yield %s#0, %s#1, %t0, %t1 : !ktdf.fifo.slot<"L1" -> "PT", ?xf32>, !ktdf.fifo.slot<"L1" -> "PT", 32xf32>, !ktdf.token, !ktdf.token
    }
    ktdf.stage depends_in(none) depends_out(%p#2) {
      // CHECK: ktdf.write_to_fifo %{{.*}}, %{{.*}} : tensor<?xf32>, <"L1" -> "PT", ?xf32>
      %d = tensor.empty(%n) : tensor<?xf32>
      ktdf.write_to_fifo %d, %p#0 : tensor<?xf32>, <"L1" -> "PT", ?xf32>
      // CHECK: ktdf.data_transfer from %{{.*}}[%{{.*}} * 32 + 16] size [32] to %{{.*}} size [32] : memref<128xf32>, !ktdf.fifo.slot<"L1" -> "PT", 32xf32>
      ktdf.data_transfer from %v[%k * 32 + 16] size [32] to %p#1 size [32] : memref<128xf32>, !ktdf.fifo.slot<"L1" -> "PT", 32xf32>
    }
    ktdf.stage depends_in(%p#2) depends_out(%p#3) {
      // CHECK: ktdf.read_from_fifo %{{.*}} : <"L1" -> "PT", ?xf32> -> tensor<?xf32>
      %r = ktdf.read_from_fifo %p#0 : <"L1" -> "PT", ?xf32> -> tensor<?xf32>
      %q = ktdf.read_from_fifo %p#1 : <"L1" -> "PT", 32xf32> -> tensor<4x8xf32>
    }
  }
  return
}

// The types stand on their own.
// CHECK-LABEL: func.func private @types
// CHECK-SAME: (!ktdf.token, !ktdf.fifo.slot<"a" -> "b", 8xbf16>, !ktdf.fifo.slot<"a" -> "b", ?xi32>)
func.func private @types(!ktdf.token, !ktdf.fifo.slot<"a" -> "b", 8xbf16>, !ktdf.fifo.slot<"a" -> "b", ?xi32>)
