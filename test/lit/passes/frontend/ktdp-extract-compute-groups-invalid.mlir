// RUN: %spyre-opt %s --split-input-file --allow-unregistered-dialect -p ktdp-extract-compute-groups --verify-diagnostics

// Two groups that each read what the other writes later: A reads %p before B
// writes it, B reads %q before A writes it. No order of whole groups keeps
// both reads seeing the old values: a located error, never an assertion.
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @crossing(%p: index, %q: index) {
  %c0 = arith.constant 0 : index
  %pv = ktdp.construct_memory_view %p, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %qv = ktdp.construct_memory_view %q, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %pt = ktdp.construct_access_tile %pv[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %qt = ktdp.construct_access_tile %qv[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  // expected-note @+1 {{the load it must follow}}
  %b_in = ktdp.load %qt : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %a_in = ktdp.load %pt : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %b = math.exp %b_in : tensor<64xf32>
  ktdp.store %b, %pt : tensor<64xf32>, !ktdp.access_tile<64xindex>
  %a = math.sqrt %a_in : tensor<64xf32>
  // expected-error @+1 {{cannot extract compute groups: this store must follow a load of another group, which must itself follow an access of this one (their views' address ranges are not provably disjoint): no order of whole groups keeps the program's meaning}}
  ktdp.store %a, %qt : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}

// -----

func.func @two_blocks(%p: index) {
// expected-error @-1 {{cannot extract compute groups from a function with more than one block}}
  cf.br ^bb1
^bb1:
  return
}

// -----

func.func @unknown(%p: index) {
  // expected-error @+1 {{cannot extract compute groups: 'vendor.magic' is outside the supported set (ops of affine, arith, func, ktdf, ktdp, linalg, math, scf, spyre, tensor)}}
  "vendor.magic"(%p) : (index) -> ()
  return
}
