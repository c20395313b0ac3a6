// stdin, -o, --split-input-file output separators.
// RUN: cat %s | %spyre-opt - --split-input-file | %FileCheck %s --check-prefix=SPLIT
// SPLIT: func.func @first
// SPLIT: // -----
// SPLIT: func.func @second
// RUN: %spyre-opt %s --split-input-file -o %t.mlir && %FileCheck %s --check-prefix=SPLIT < %t.mlir

// Named pipelines, per-pass IR dumps and timing (to stderr).
// RUN: %spyre-opt %s --split-input-file --pipeline default --mlir-print-ir-after-all --mlir-timing 2>&1 >/dev/null | %FileCheck %s --check-prefix=DUMP
// DUMP: // -----// IR Dump After {{.*}} (ktdp-normalize-memory-space) //----- //
// DUMP: // -----// IR Dump After {{.*}} (cse) //----- //
// DUMP: // -----// IR Dump After {{.*}} (canonicalize) //----- //
// DUMP: Execution time report
// DUMP: Parser
// DUMP: cse
// DUMP: Total

// -p with options; --list-passes and --list-pipelines.
// RUN: %spyre-opt %s --split-input-file -p 'scf-parallel-loop-tiling{parallel_loop_tile_sizes=4,4},cse' | %FileCheck %s --check-prefix=SPLIT
// RUN: %spyre-opt --list-passes | %FileCheck %s --check-prefix=LIST
// LIST-DAG: ktdp-normalize-memory-space
// LIST-DAG: spyre-fold-reshapes
// LIST-DAG: cse
// RUN: %spyre-opt --list-pipelines | %FileCheck %s --check-prefix=PIPES
// PIPES: default: ktdp-normalize-memory-space,spyre-fold-reshapes,cse,canonicalize
// PIPES: physicalize: spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize

// The default pipeline CSEs duplicate pure index math.
// RUN: %spyre-opt %s --split-input-file --pipeline default | %FileCheck %s --check-prefix=CSE
// CSE-LABEL: func.func @second
// CSE-COUNT-1: arith.muli
// CSE-NOT: arith.muli

func.func @first() {
  return
}

// -----

func.func @second(%a: index, %b: index) -> (index, index) {
  %x = arith.muli %a, %b : index
  %y = arith.muli %a, %b : index
  return %x, %y : index, index
}
