// RUN: %spyre-opt %s --split-input-file --verify-diagnostics

// One chunk per verifier rule of the uniform dialect. Messages are upstream's
// (Uniform.cpp of dataflow-scheduler-mlir-dialects), after MLIR's `'op' op`
// prefix, except where upstream asserts (list_sizes against the regions and
// units, a region's unit argument) or has no check (as many keys as values):
// those are ours.

// -----
// uniformize_regions: no unit twice ...
func.func @duplicated_unit() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  // expected-error @+1 {{'uniform.uniformize_regions' op duplicated unit SSAs found!}}
  uniform.uniformize_regions -> () {
    (%a -> %u){
    }
    (%b -> %u){
    }
  }
  return
}

// -----
// ... a region's one unit is a get_unit or a create_group ...
func.func @unit_not_get_unit(%u: index) {
  // expected-error @+1 {{'uniform.uniformize_regions' op region's unit_list must be programUnitOp or createGroupOp type!}}
  uniform.uniformize_regions -> () {
    (%a -> %u){
    }
  }
  return
}

// -----
// ... several units are all get_units ...
func.func @group_in_list() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %v = dataflow.get_unit {name = "v", type = "t"} : index
  %g = dataflow.create_group(%u : index) : index
  // expected-error @+1 {{'uniform.uniformize_regions' op when unit_list size > 1, all units must be programUnitOp!}}
  uniform.uniformize_regions -> () {
    (%a -> %v, %g){
    }
  }
  return
}

// -----
// ... each region yields the results ...
func.func @yield_count() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'uniform.uniformize_regions' op The size of the operands in the yieldOp of a uniformize_regionsOp region differs from the size of its results.}}
  %r = uniform.uniformize_regions -> (index) {
    (%a -> %u){
      uniform.yield
    }
  }
  return
}

// -----
// ... list_sizes counts the units of each region (an assertion upstream) ...
func.func @list_sizes() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %v = dataflow.get_unit {name = "v", type = "t"} : index
  // expected-error @+1 {{'uniform.uniformize_regions' op unit size has to be matched to the list sizes contents.}}
  "uniform.uniformize_regions"(%u, %v) <{list_sizes = [1 : i32]}> ({
  ^bb0(%a: index):
    "uniform.yield"() : () -> ()
  }) : (index, index) -> ()
  return
}

// -----
// ... one list size per region (an assertion upstream) ...
func.func @list_per_region() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  // expected-error @+1 {{'uniform.uniformize_regions' op expects one list size per region: 2 list sizes for 1 regions}}
  "uniform.uniformize_regions"(%u) <{list_sizes = [1 : i32, 0 : i32]}> ({
  ^bb0(%a: index):
    "uniform.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----
// ... and each region's argument is its unit (upstream reads it unchecked).
func.func @region_argument() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  // expected-error @+1 {{'uniform.uniformize_regions' op each region takes one 'index' argument, the unit it runs on}}
  "uniform.uniformize_regions"(%u) <{list_sizes = [1 : i32]}> ({
    "uniform.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----
// equalize_pattern: the same rules on units ...
func.func @equalize_duplicated_unit() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  // expected-error @+1 {{'uniform.equalize_pattern' op duplicated unit SSAs found!}}
  uniform.equalize_pattern {
    (%a -> %u){
    }
    (%b -> %u){
    }
  }
  return
}

// -----
func.func @equalize_unit_not_get_unit(%u: index) {
  // expected-error @+1 {{'uniform.equalize_pattern' op region's unit_list must be programUnitOp or createGroupOp type!}}
  uniform.equalize_pattern {
    (%a -> %u){
    }
  }
  return
}

// -----
func.func @equalize_group_in_list() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %v = dataflow.get_unit {name = "v", type = "t"} : index
  %g = dataflow.create_group(%u : index) : index
  // expected-error @+1 {{'uniform.equalize_pattern' op when unit_list size > 1, all units must be programUnitOp!}}
  uniform.equalize_pattern {
    (%a -> %v, %g){
    }
  }
  return
}

// -----
// ... and its regions hold as many ops ...
func.func @equalize_sizes() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %v = dataflow.get_unit {name = "v", type = "t"} : index
  // expected-error @+1 {{'uniform.equalize_pattern' op regions have different operation size.}}
  uniform.equalize_pattern {
    (%a -> %u){
      dataflow.sync_send %v : index
    }
    (%b -> %v){
    }
  }
  return
}

// -----
// ... of the same names, in the same order.
func.func @equalize_sequences() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %v = dataflow.get_unit {name = "v", type = "t"} : index
  // expected-error @+1 {{'uniform.equalize_pattern' op Operation sequences different.}}
  uniform.equalize_pattern {
    (%a -> %u){
      dataflow.sync_send %v : index
    }
    (%b -> %v){
      dataflow.sync_recv %u : index
    }
  }
  return
}

// -----
// def_immutable_mapping: keys that start as get_units stay get_units ...
func.func @keys_mixed() {
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'uniform.def_immutable_mapping' op All Keys are not of same type}}
  %m = uniform.def_immutable_mapping([%u -> %c0], [%c0 -> %c0]):index
  return
}

// -----
// ... scalar values (symbol.create_symbol) are all scalar ...
func.func @values_not_scalar() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = symbol.create_symbol : index
  // expected-error @+1 {{'uniform.def_immutable_mapping' op All map values are expected to be scalar values.}}
  %m = uniform.def_immutable_mapping([%c0 -> %s], [%c1 -> %c1]):index
  return
}

// -----
// ... other values all come from one kind of op ...
func.func @values_mixed() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u = dataflow.get_unit {name = "u", type = "t"} : index
  // expected-error @+1 {{'uniform.def_immutable_mapping' op All map values should be of same type.}}
  %m = uniform.def_immutable_mapping([%c0 -> %u], [%c1 -> %c1]):index
  return
}

// -----
// ... and there are as many keys as values (ours: upstream's parser pairs them).
func.func @keys_values(%k: index) {
  // expected-error @+1 {{'uniform.def_immutable_mapping' op expects as many keys as values, got 1 keys and 0 values}}
  %m = "uniform.def_immutable_mapping"(%k) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> index
  return
}

// -----
// Syntax: values of one type, named after the result type.
func.func @value_type(%k: index, %f: f32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%f' expects different type than prior uses: 'index' vs 'f32'}}
  %m = uniform.def_immutable_mapping([%k -> %f]):index
  return
}
