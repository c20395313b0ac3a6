// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// A bundle as torch-spyre writes it (its compiled bundle.mlir files, written
// exactly so: tabs, `"symbol_ids"=` quoted and unspaced): the arguments are
// !sdscbundle.input_arg<index> (a tensor's base byte address), read by
// input_arg_extract, and each sdsc_execute, in its custom form, takes index
// operands only and gives each its symbol id. We print it so (a space before
// the parenthesis as torch-spyre prints it; the attributes sorted and spaced
// as MLIR prints them, the ids an i64 array without their type); an op without symbol_ids
// (ours) has no custom form: it prints generic.

// CHECK-LABEL: func.func @sdsc_bundle
// CHECK-SAME:    (%arg_0_base_addr: !sdscbundle.input_arg<index>, %arg_1_base_addr: !sdscbundle.input_arg<index>) {
// CHECK-NEXT:    %arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
// CHECK-NEXT:    %arg_1 = sdscbundle.input_arg_extract value from %arg_1_base_addr : !sdscbundle.input_arg<index> -> index
// CHECK-NEXT:    %arg_0_core_offset_65536 = arith.constant 65536 : index
// CHECK-NEXT:    %arg_0_core_65536 = arith.addi %arg_0, %arg_0_core_offset_65536 : index
// CHECK-NEXT:    sdscbundle.sdsc_execute (%arg_0, %arg_0_core_65536, %arg_1) {sdsc_filename = "sdsc_0.json", symbol_ids = [-1, -2, -3]}
// CHECK-NEXT:    sdscbundle.sdsc_execute () {sdsc_filename = "sdsc_1.json", symbol_ids = []}
// CHECK-NEXT:    "sdscbundle.sdsc_execute"(%arg_1) {sdsc_filename = "sdsc_2.json"} : (index) -> ()
// CHECK-NEXT:    return

// Any type can be held; the result is that type.
// CHECK-LABEL: func.func @scalar
// CHECK-NEXT:    %n = sdscbundle.input_arg_extract value from %p : !sdscbundle.input_arg<i64> -> i64
module {
	func.func @sdsc_bundle(%arg_0_base_addr: !sdscbundle.input_arg<index>, %arg_1_base_addr: !sdscbundle.input_arg<index>) {
		%arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
		%arg_1 = sdscbundle.input_arg_extract value from %arg_1_base_addr : !sdscbundle.input_arg<index> -> index
		%arg_0_core_offset_65536 = arith.constant 65536 : index
		%arg_0_core_65536 = arith.addi %arg_0, %arg_0_core_offset_65536 : index
		sdscbundle.sdsc_execute (%arg_0, %arg_0_core_65536, %arg_1) {sdsc_filename="sdsc_0.json", "symbol_ids"=[-1, -2, -3]}
		sdscbundle.sdsc_execute () {sdsc_filename="sdsc_1.json", "symbol_ids"=[]}
		sdscbundle.sdsc_execute(%arg_1) {sdsc_filename = "sdsc_2.json"}
		return
	}
	func.func @scalar(%p: !sdscbundle.input_arg<i64>) {
		%n = sdscbundle.input_arg_extract value from %p : !sdscbundle.input_arg<i64> -> i64
		return
	}
}
