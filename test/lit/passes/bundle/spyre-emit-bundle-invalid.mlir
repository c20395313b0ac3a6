// RUN: not %spyre-opt %s --split-input-file -p ktdp-extract-compute-groups,spyre-emit-bundle 2>&1 | %FileCheck %s --check-prefix=NODIR
// RUN: not %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-emit-bundle{out-dir="%t" kernel="third"}' 2>&1 | %FileCheck %s --check-prefix=NAMED
// RUN: not %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-emit-bundle{out-dir="%s"}' 2>&1 | %FileCheck %s --check-prefix=NOTDIR -DFILE=%s
// RUN: rm -rf %t && %spyre-opt %s --split-input-file --verify-diagnostics -p 'ktdp-extract-compute-groups,spyre-emit-bundle{format=ktir out-dir="%t"}'
// RUN: rm -rf %t.raw && not %spyre-opt %s --split-input-file -p 'spyre-emit-bundle{format=ktir out-dir="%t.raw"}' 2>&1 | %FileCheck %s --check-prefix=RAW
// RUN: rm -rf %t.twice && not %spyre-opt %s --split-input-file -p 'ktdp-extract-compute-groups,spyre-emit-bundle{format=ktir out-dir="%t.twice"},spyre-emit-bundle{format=ktir out-dir="%t.twice"}' 2>&1 | %FileCheck %s --check-prefix=TWICE

// Every refusal of spyre-emit-bundle is an error, located where there is a
// place to point at.
// NODIR: error: spyre-emit-bundle needs out-dir=DIR: where to write bundle.mlir and its SDSC files
// NAMED: error: no kernel @third in the module (kernels: @first, @second)
// NOTDIR: error: spyre-emit-bundle: cannot write to '[[FILE]]': File exists

// Two kernels: a bundle holds one (located at the second).
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @first(%x: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %a = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  ktdp.store %e, %t : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
// expected-error @+1 {{a bundle holds one kernel; the module has 2 (@first, @second): choose one with kernel=NAME}}
func.func @second(%x: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %a = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.sqrt %a : tensor<64xf32>
  ktdp.store %e, %t : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}

// -----

// A symbolic trip count: located at the loop.
builtin.module {
  builtin.module {
    func.func @symbolic(%x: index, %n: index) {
      func.call @local_schedule_0(%x, %n) : (index, index) -> ()
      func.return
    }
    func.func private @local_schedule_0(index, index) -> ()
  }
  builtin.module @local_schedule_0 {
    func.func @local_schedule_0(%x: index, %n: index) attributes {spyre.compute_group} {
      // expected-error @+1 {{a symbolic trip count cannot go into the bundle: its loops are counted at compile time}}
      spyre_loop.loop count(%n) tiled_dims [0] tile_sizes [2] {
      ^bb0(%k: index):
        %c0 = arith.constant 0 : index
        %v = ktdp.construct_memory_view %x, sizes: [2, 4], strides: [4, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<2x4xf32>
        %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 3 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x4xf32> -> !ktdp.access_tile<2x4xindex>
        %a = ktdp.load %t : !ktdp.access_tile<2x4xindex> -> tensor<2x4xf32>
        %e = math.exp %a : tensor<2x4xf32>
        ktdp.store %e, %t : tensor<2x4xf32>, !ktdp.access_tile<2x4xindex>
      }
      func.return
    }
  }
}

// -----

// The kernel calls a function that is not an extracted compute group.
builtin.module {
  builtin.module {
    func.func @calls_helper(%x: index) {
      // expected-error @+1 {{the kernel calls @helper, which is not an extracted compute group}}
      func.call @helper(%x) : (index) -> ()
      func.return
    }
    func.func private @helper(%x: index) {
      func.return
    }
  }
}

// -----

// A kernel that was never split into compute groups: its loads, computes
// and stores would stay in @sdsc_bundle, which only dispatches SDSC files.
// Refused at its first memory access, pointing at ktdp-extract-compute-groups
// (RAW); with the extraction (the RUN line with --verify-diagnostics) it is
// fine. Emitting the emitted bundle again is refused too (TWICE).
// RAW: [[# @LINE + 8]]:3: error: pass 'spyre-emit-bundle' needs extracted compute groups: run 'ktdp-extract-compute-groups' first
// TWICE: [[# @LINE + 3]]:1: error: pass 'spyre-emit-bundle' needs extracted compute groups, but this module is already an emitted bundle: 'spyre-emit-bundle' has run on it already
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @raw(%x: index) {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %a = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  ktdp.store %e, %t : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
