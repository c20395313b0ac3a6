// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op of dataflow-scheduler's uniform dialect (Uniform.td), in upstream's
// syntax (Uniform.cpp): the .td's examples verbatim, and the form
// dataflow-scheduler's --ktdflowering-to-dfir prints.

// CHECK-LABEL: func.func @td_examples
func.func @td_examples(%8: index, %9: index) {
  %0 = dataflow.get_unit {core = 0 : i32, name = "C0-l1", type = "l1"} : index
  // CHECK: %[[MAP:.*]] = uniform.def_immutable_mapping([%{{.*}} -> %[[U:.*]]], [%{{.*}} -> %[[U]]]):index
  %map = uniform.def_immutable_mapping([%8 -> %0], [%9 -> %0]) : index
  scf.for %arg0 = %8 to %9 step %9 {
    // CHECK: %{{.*}} = uniform.query_map(map:%[[MAP]], key:%{{.*}}) : index
    %v = uniform.query_map(map: %map, key: %arg0) : index
  }
  return
}

// CHECK-LABEL: func.func @ring_pair
func.func @ring_pair() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[SU0:.*]] = dataflow.get_unit {core = 0 : i32, corelet = 0 : i32, name = "C0-mnisu", type = "mnisu"} : index
  // CHECK: %[[SU1:.*]] = dataflow.get_unit {core = 1 : i32, corelet = 0 : i32, name = "C1-mnisu", type = "mnisu"} : index
  // CHECK: %[[MEM0:.*]] = dataflow.get_unit {core = 0 : i32, name = "C0-l1", type = "l1"} : index
  // CHECK: %[[MEM1:.*]] = dataflow.get_unit {core = 1 : i32, name = "C1-l1", type = "l1"} : index
  %su0 = dataflow.get_unit {core = 0 : i32, corelet = 0 : i32, name = "C0-mnisu", type = "mnisu"} : index
  %su1 = dataflow.get_unit {core = 1 : i32, corelet = 0 : i32, name = "C1-mnisu", type = "mnisu"} : index
  %mem0 = dataflow.get_unit {core = 0 : i32, name = "C0-l1", type = "l1"} : index
  %mem1 = dataflow.get_unit {core = 1 : i32, name = "C1-l1", type = "l1"} : index
  // CHECK: %[[GROUP:.*]] = dataflow.create_group(%[[SU0]], %[[SU1]] : index, index) : index
  %group = dataflow.create_group(%su0, %su1 : index, index) : index
  // CHECK: dataflow.program_unit iter_arg : %[[PU:.*]] -> (%[[SU0]], %[[SU1]]) : {
  dataflow.program_unit iter_arg : %pu -> (%su0, %su1) : {
    // CHECK-NEXT: %[[MEM_MAP:.*]] = uniform.def_immutable_mapping([%[[SU0]] -> %[[MEM0]]], [%[[SU1]] -> %[[MEM1]]]):index
    // CHECK-NEXT: %{{.*}} = uniform.query_map(map:%[[MEM_MAP]], key:%[[PU]]) : index
    %mem_map = uniform.def_immutable_mapping([%su0 -> %mem0], [%su1 -> %mem1]):index
    %mem = uniform.query_map(map:%mem_map, key:%pu) : index
    // Values of another type than the result: named after it.
    // CHECK:      %[[F_MAP:.*]] = uniform.def_immutable_mapping([%[[SU0]] -> %{{.*}}], [%[[SU1]] -> %{{.*}}]):index, f32
    // CHECK-NEXT: %{{.*}} = uniform.query_map(map:%[[F_MAP]], key:%[[PU]]) : f32
    %f0 = arith.constant 0.0 : f32
    %f1 = arith.constant 1.0 : f32
    %f_map = uniform.def_immutable_mapping([%su0 -> %f0], [%su1 -> %f1]):index, f32
    %f = uniform.query_map(map:%f_map, key:%pu) : f32
    // Scalar values (symbol.create_symbol) may be mixed.
    // CHECK: uniform.def_immutable_mapping([%[[SU0]] -> %{{.*}}], [%[[SU1]] -> %{{.*}}]):index
    %s0 = symbol.create_symbol : index
    %s1 = symbol.create_symbol {SymbolId = 1 : i64} : index
    %s_map = uniform.def_immutable_mapping([%su0 -> %s0], [%su1 -> %s1]):index
    // One region per unit list; every terminator printed, the attributes after.
    // CHECK:      %{{.*}} = uniform.uniformize_regions -> index {
    // CHECK-NEXT:   (%[[A0:.*]] -> %[[SU0]]){
    // CHECK-NEXT:     %{{.*}} = uniform.query_map(map:%[[MEM_MAP]], key:%[[A0]]) : index
    // CHECK-NEXT:     uniform.yield %{{.*}} : index
    // CHECK-NEXT:   }
    // CHECK-NEXT:   (%{{.*}} -> %[[SU1]]){
    // CHECK-NEXT:     uniform.yield %[[C0:.*]] : index
    // CHECK-NEXT:   }
    // CHECK-NEXT: } {regIndices = [0 : i32, 1 : i32], regLocales = ["a", "b"]}
    %r = uniform.uniformize_regions -> (index) {
      (%arg0 -> %su0){
        %m = uniform.query_map(map:%mem_map, key:%arg0) : index
        uniform.yield %m : index
      }
      (%arg1 -> %su1){
        uniform.yield %c0 : index
      }
    } {regIndices = [0 : i32, 1 : i32], regLocales = ["a", "b"]}
    // No results, a group, the implicit yield made explicit.
    // CHECK:      uniform.uniformize_regions -> () {
    // CHECK-NEXT:   (%{{.*}} -> %[[GROUP]]){
    // CHECK-NEXT:     dataflow.sync_send %[[SU0]] : index
    // CHECK-NEXT:     uniform.yield
    // CHECK-NEXT:   }
    // CHECK-NEXT: }
    uniform.uniformize_regions -> () {
      (%arg2 -> %group){
        dataflow.sync_send %su0 : index
      }
    }
    // Several results; several units in one list.
    // CHECK: %{{.*}}:2 = uniform.uniformize_regions -> (index, i32) {
    // CHECK-NEXT: (%{{.*}} -> %[[SU0]], %[[SU1]]){
    %r2:2 = uniform.uniformize_regions -> (index, i32) {
      (%a -> %su0, %su1){
        %x = arith.constant 3 : i32
        uniform.yield %c1, %x : index, i32
      }
    }
    // CHECK:      uniform.equalize_pattern {
    // CHECK-NEXT:   (%{{.*}} -> %[[SU0]]){
    // CHECK-NEXT:     dataflow.sync_send %[[SU1]] : index
    // CHECK-NEXT:     uniform.yield
    // CHECK-NEXT:   }
    // CHECK-NEXT:   (%{{.*}} -> %[[SU1]]){
    // CHECK-NEXT:     dataflow.sync_send %[[SU0]] : index
    // CHECK-NEXT:     uniform.yield
    // CHECK-NEXT:   }
    // CHECK-NEXT: }
    uniform.equalize_pattern {
      (%e0 -> %su0){
        dataflow.sync_send %su1 : index
      }
      (%e1 -> %su1){
        dataflow.sync_send %su0 : index
        uniform.yield
      }
    }
  }
  return
}

// uniform.yield needs no parent of the dialect: here it ends a function
// (upstream's test/Dialect/Uniform/yield.mlir).
// CHECK-LABEL: func.func @yield_test
// CHECK-NEXT: uniform.yield{{$}}
func.func @yield_test() {
  uniform.yield
}

// CHECK-LABEL: func.func @yield_values
// CHECK: uniform.yield %{{.*}}, %{{.*}} : index, f32
func.func @yield_values(%a: index, %b: f32) {
  uniform.yield %a, %b : index, f32
}
