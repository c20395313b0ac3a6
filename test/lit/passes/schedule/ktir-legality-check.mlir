// RUN: %spyre-opt %s --split-input-file -p ktir-legality-check --verify-diagnostics | %FileCheck %s

// ktir-legality-check changes no IR: a kernel V1 can lower prints unchanged;
// the first construct it cannot lower is an error at that op.

// A tiled add over the grid: index math, a plain loop, views, loads, a named
// add and a generic whose body multiplies and subtracts.
// CHECK-LABEL: func.func @tiled_add
// CHECK: scf.for
// CHECK: linalg.add
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: ktdp.store
#map = affine_map<(d0, d1) -> (d0, d1)>
#view = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 63 >= 0)>
func.func @tiled_add() attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c3 = arith.constant 3 : index
  %a = arith.constant 1024 : index
  %b = arith.constant 12288 : index
  %id = ktdp.get_compute_tile_id : index
  %va = ktdp.construct_memory_view %a, sizes: [96, 64], strides: [64, 1] {coordinate_set = #view, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %vb = ktdp.construct_memory_view %b, sizes: [96, 64], strides: [64, 1] {coordinate_set = #view, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  scf.for %i = %c0 to %c8 step %c1 {
    %base = arith.muli %id, %c8 : index
    %row = arith.addi %base, %i : index
    %start = arith.muli %row, %c3 : index
    %ta = ktdp.construct_access_tile %va[%start, %c0] {access_tile_order = #map, access_tile_set = #tile} : memref<96x64xf16> -> !ktdp.access_tile<3x64xindex>
    %tb = ktdp.construct_access_tile %vb[%start, %c0] {access_tile_order = #map, access_tile_set = #tile} : memref<96x64xf16> -> !ktdp.access_tile<3x64xindex>
    %x = ktdp.load %ta : !ktdp.access_tile<3x64xindex> -> tensor<3x64xf16>
    %e = tensor.empty() : tensor<3x64xf16>
    %s = linalg.add ins(%x, %x : tensor<3x64xf16>, tensor<3x64xf16>) outs(%e : tensor<3x64xf16>) -> tensor<3x64xf16>
    %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%s, %x : tensor<3x64xf16>, tensor<3x64xf16>) outs(%e : tensor<3x64xf16>) {
    ^bb0(%p: f16, %q: f16, %out: f16):
      %m = arith.mulf %p, %q : f16
      %d = arith.subf %m, %q : f16
      linalg.yield %d : f16
    } -> tensor<3x64xf16>
    ktdp.store %r, %tb : tensor<3x64xf16>, !ktdp.access_tile<3x64xindex>
  }
  return
}

// -----

// A row maximum: the fill that initializes the reduction and the maximumf that
// combines are both lowered by V1.
// CHECK-LABEL: func.func @row_max
// CHECK: linalg.fill
// CHECK: linalg.reduce
func.func @row_max(%x: tensor<4x64xf32>) -> tensor<4xf32> {
  %low = arith.constant -1.0e+30 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%low : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce { arith.maximumf } ins(%x : tensor<4x64xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
  return %r : tensor<4xf32>
}

// -----

// A softmax's exponential written with math.exp: V1 has it only as an intrinsic.
#map = affine_map<(d0) -> (d0)>
func.func @exp(%x: tensor<64xf16>, %o: tensor<64xf16>) -> tensor<64xf16> {
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf16>) outs(%o : tensor<64xf16>) {
  ^bb0(%in: f16, %out: f16):
    // expected-error @+1 {{V1 only supports add/mul/sub compute ops; found unsupported compute op}}
    %v = math.exp %in : f16
    linalg.yield %v : f16
  } -> tensor<64xf16>
  return %r : tensor<64xf16>
}

// -----

// A matmul: no named contraction in V1.
func.func @matmul(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %o: tensor<16x16xf16>) -> tensor<16x16xf16> {
  // expected-error @+1 {{V1 only supports add/mul/sub/reduce compute ops; found unsupported compute op}}
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%o : tensor<16x16xf16>) -> tensor<16x16xf16>
  return %r : tensor<16x16xf16>
}

// -----

// An accumulation over K tiles carried by the loop.
func.func @accumulate(%init: tensor<64xf32>, %t: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{V1 does not support scf.for with loop-carried arguments (iter_args)}}
  %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> tensor<64xf32> {
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.add ins(%acc, %t : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// A countdown loop the raising pass has not turned into a for.
func.func @countdown(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{V1 does not support scf.while loops}}
  %r = scf.while (%i = %n) : (index) -> index {
    %more = arith.cmpi sgt, %i, %c0 : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%j: index):
    %next = arith.subi %j, %c1 : index
    scf.yield %next : index
  }
  return
}
