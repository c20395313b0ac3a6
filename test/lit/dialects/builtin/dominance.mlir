// RUN: %spyre-opt %s --split-input-file --allow-unregistered-dialect | %FileCheck %s
// What MLIR's dominance rule accepts (spyre_mlir/dominance.py): graph regions
// (module bodies, unregistered ops), uses in blocks unreachable from the
// entry, values of a dominating block, outer values inside nested regions.

// CHECK-LABEL: module
// CHECK: "test.use"(%[[V:.*]]) : (i32) -> i32
// CHECK: %[[V]] = "test.def"() : () -> i32
%0 = "test.use"(%1) : (i32) -> i32
%1 = "test.def"() : () -> i32

// -----

// CHECK-LABEL: func.func @unregistered_op_region
func.func @unregistered_op_region() {
  "test.region"() ({
    %0 = "test.use"(%1) : (i32) -> i32
    %1 = "test.def"() : () -> i32
  }) : () -> ()
  return
}

// -----

// CHECK-LABEL: func.func @unreachable_block
func.func @unreachable_block() -> i32 {
  %z = arith.constant 0 : i32
  return %z : i32
^dead:
  %a = arith.addi %b, %b : i32
  %b = arith.constant 1 : i32
  return %a : i32
}

// -----

// CHECK-LABEL: func.func @dominating_block
func.func @dominating_block(%c: i1) -> i32 {
  %x = arith.constant 1 : i32
  cf.cond_br %c, ^a, ^b
^a:
  cf.br ^join(%x : i32)
^b:
  %y = arith.addi %x, %x : i32
  cf.br ^join(%y : i32)
^join(%r: i32):
  %s = arith.addi %r, %x : i32
  return %s : i32
}

// -----

// CHECK-LABEL: func.func @nested_uses
// CHECK: scf.if %{{.*}} -> (i32)
func.func @nested_uses(%c: i1) -> i32 {
  %z = arith.constant 0 : i32
  %r = scf.if %c -> i32 {
    %q = arith.addi %z, %z : i32
    scf.yield %q : i32
  } else {
    scf.yield %z : i32
  }
  return %r : i32
}
