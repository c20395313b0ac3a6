// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op, enum and attribute of dataflow-scheduler's VectorChain.td, in its
// assembly formats (constant_bitstream and shuffle: VectorChain.cpp's). Attribute
// dictionaries print sorted, as MLIR's; constant_bitstream's values in hex.

#id = affine_map<(d0) -> (d0)>
#set = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
// CHECK-LABEL: func.func @ops
func.func @ops(%a: vector<64xf16>, %b: vector<64xf16>, %m: vector<64xi1>, %i: index, %c: !dataflow.custom_vector<64xf16>, %x: vector<128xi8>) {
  // CHECK-NEXT: %{{.*}} = vectorchain.select %{{.*}} {selection_map = #{{map[0-9]*}}} : vector<64xf16>, vector<64xf16>
  %0 = vectorchain.select %a {selection_map = #id} : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.multiply %{{.*}}, %{{.*}}[%{{.*}} : vector<64xi1>] {reduction_map = #{{map[0-9]*}}} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  %1 = vectorchain.multiply %a, %b [%m : vector<64xi1>] {reduction_map = #id} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.binary %{{.*}}, %{{.*}} {binary_op = #vectorchain.binary_operator<add>, dbgName = "sum", op_specific_map = #{{map[0-9]*}}} : vector<64xf16>, !dataflow.custom_vector<64xf16>, vector<64xf16>
  %2 = vectorchain.binary %a, %c {binary_op = #vectorchain.binary_operator<add>, op_specific_map = #id, dbgName = "sum"} : vector<64xf16>, !dataflow.custom_vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.element_wise_compare %{{.*}}, %{{.*}}[%{{.*}} : vector<64xi1>] {compare_op = #vectorchain.element_wise_compare_operator<compare_lt>} : vector<64xf16>, vector<64xf16>, vector<64xi1>
  %3 = vectorchain.element_wise_compare %a, %b [%m : vector<64xi1>] {compare_op = #vectorchain.element_wise_compare_operator<compare_lt>} : vector<64xf16>, vector<64xf16>, vector<64xi1>
  // CHECK-NEXT: %{{.*}} = vectorchain.merge %{{.*}}, %{{.*}} {access_function_A = #{{map[0-9]*}}, access_function_B = #{{map[0-9]*}}, access_function_CA = #{{map[0-9]*}}, access_function_CB = #{{map[0-9]*}}, iteration_space_CA = #{{set[0-9]*}}, iteration_space_CB = #{{set[0-9]*}}} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  %4 = vectorchain.merge %a, %b {iteration_space_CA = #set, access_function_CA = #id, access_function_A = #id, iteration_space_CB = #set, access_function_CB = #id, access_function_B = #id} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.create_affine_mask %{{.*}} {mask_set = #{{set[0-9]*}}} : vector<64xi1>
  %5 = vectorchain.create_affine_mask %i {mask_set = #set} : vector<64xi1>
  // CHECK-NEXT: %{{.*}} = vectorchain.create_affine_mask {mask_set = #{{set[0-9]*}}} : vector<64xi1>
  %6 = vectorchain.create_affine_mask {mask_set = #set} : vector<64xi1>
  // CHECK-NEXT: %{{.*}} = vectorchain.pack %{{.*}}, %{{.*}} {indices = [0, 1], repetition = 32 : index} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  %7 = vectorchain.pack %a, %b {indices = [0, 1], repetition = 32 : index} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.pack %{{.*}}, %{{.*}} {indices = [0, 1], repetition = 32 : index, sign_extend = true} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  %8 = vectorchain.pack %a, %b {indices = [0, 1], repetition = 32 : index, sign_extend = true} : vector<64xf16>, vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.cast %{{.*}}[%{{.*}} : vector<64xi1>] : vector<64xf16>, vector<64xf32>
  %9 = vectorchain.cast %a [%m : vector<64xi1>] : vector<64xf16>, vector<64xf32>
  // CHECK-NEXT: %{{.*}} = vectorchain.fast_exp %{{.*}}[%{{.*}} : vector<64xi1>] : vector<64xf16>, vector<64xf16>
  %10 = vectorchain.fast_exp %a [%m : vector<64xi1>] : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.exp_estimate %{{.*}} {version = #vectorchain.exp_estimate<b>} : vector<64xf16>, vector<64xf16>
  %11 = vectorchain.exp_estimate %a {version = #vectorchain.exp_estimate<b>} : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.floor %{{.*}} : vector<64xf16>, vector<64xf16>
  %12 = vectorchain.floor %a : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.rec_estimate %{{.*}} : vector<64xf16>, vector<64xf16>
  %13 = vectorchain.rec_estimate %a : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.ln_estimate %{{.*}} : vector<64xf16>, vector<64xf16>
  %14 = vectorchain.ln_estimate %a : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.rsqrt_estimate %{{.*}} : vector<64xf16>, vector<64xf16>
  %15 = vectorchain.rsqrt_estimate %a : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.sigmoid_estimate %{{.*}} {version = #vectorchain.estimate_versions<slope>} : vector<64xf16>, vector<64xf16>
  %16 = vectorchain.sigmoid_estimate %a {version = #vectorchain.estimate_versions<slope>} : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.tanh_estimate %{{.*}} {version = #vectorchain.estimate_versions<offset>} : vector<64xf16>, vector<64xf16>
  %17 = vectorchain.tanh_estimate %a {version = #vectorchain.estimate_versions<offset>} : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.neg %{{.*}}[%{{.*}} : vector<64xi1>] : vector<64xf16>, vector<64xf16>
  %18 = vectorchain.neg %a [%m : vector<64xi1>] : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.multiply_and_accumulate %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}} : vector<64xi1>] {reduction_map = #{{map[0-9]*}}} : vector<64xf16>, vector<64xf16>, vector<64xf16>, vector<64xf16>
  %19 = vectorchain.multiply_and_accumulate %a, %b, %a [%m : vector<64xi1>] {reduction_map = #id} : vector<64xf16>, vector<64xf16>, vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.element_wise_selection %{{.*}} ? %{{.*}} : %{{.*}} : vector<64xi1>, vector<64xf16>, vector<64xf16>, vector<64xf16>
  %20 = vectorchain.element_wise_selection %m ? %a : %b : vector<64xi1>, vector<64xf16>, vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.constant_bitstream {value = [0x1, 0xFF, 0x10, 0x0]} : vector<4xi8>
  %21 = vectorchain.constant_bitstream {value = [0x1, 0xFF, 16, 0]} : vector<4xi8>
  // CHECK-NEXT: %{{.*}} = vectorchain.shuffle input(%{{.*}}), pad(%{{.*}}) {indices = [0, 1, -1, -1], repetition = 16 : i32} : vector<64xf16>, index, vector<64xf16>
  %22 = vectorchain.shuffle input(%a), pad(%i) {indices = [0, 1, -1, -1], repetition = 16 : i32} : vector<64xf16>, index, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.shuffle input(%{{.*}}), variable(%{{.*}}, %{{.*}}), pad(%{{.*}}), mask(%{{.*}}) {indices = [-1, -2, -3, 63], repetition = 16 : i32} : vector<64xf16>, index, index, index, vector<64xi1>, vector<64xf16>
  %23 = vectorchain.shuffle input(%a), variable(%i, %i), pad(%i), mask(%m) {indices = [-1, -2, -3, 63], repetition = 16 : i32} : vector<64xf16>, index, index, index, vector<64xi1>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.scan_with_gap %{{.*}} {eval_order = #vectorchain.eval_order<right_to_left>, gap = 2 : index, reduction_op = #vectorchain.binary_operator<max>} : vector<64xf16>, vector<64xf16>
  %24 = vectorchain.scan_with_gap %a {reduction_op = #vectorchain.binary_operator<max>, gap = 2 : index, eval_order = #vectorchain.eval_order<right_to_left>} : vector<64xf16>, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.rotate %{{.*}}, %{{.*}} : vector<64xf16>, index, vector<64xf16>
  %25 = vectorchain.rotate %a, %i : vector<64xf16>, index, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.rotate %{{.*}}, %{{.*}} {right_shift = false} : vector<64xf16>, index, vector<64xf16>
  %26 = vectorchain.rotate %a, %i {right_shift = false} : vector<64xf16>, index, vector<64xf16>
  // CHECK-NEXT: %{{.*}} = vectorchain.constant_bitstream {is_symbol = true, value = [7, 8]} : !dataflow.custom_vector<2xi8>
  %27 = vectorchain.constant_bitstream {is_symbol = true, value = [7, 8]} : !dataflow.custom_vector<2xi8>
  return
}
// CHECK-LABEL: func.func @more
func.func @more() {
  // CHECK-NEXT: %{{.*}} = vectorchain.constant_bitstream {is_symbol = false, note = "n", value = [0xFFFFFFFFFFFFFFFF, 0x8]} : vector<2xi64>
  %27 = vectorchain.constant_bitstream {is_symbol = false, value = [-1, 8], note = "n"} : vector<2xi64>
  return
}

