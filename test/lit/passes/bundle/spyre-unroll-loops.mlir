// RUN: %spyre-opt --mlir-print-local-scope %s -p spyre-unroll-loops | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s -p spyre-unroll-loops | %spyre-opt --mlir-print-local-scope | %FileCheck %s

// A 2x3 nest: 6 copies of the inner body, outer-major; each copy's tile
// numbers are constants. The HBM tile is anchored at [4 i, 8 j] (affine in
// both tile numbers, so it moves from copy to copy); the loop-internal LX
// buffer sits at the fixed offset 512 in every copy.

// CHECK-LABEL: func.func @nest
// CHECK-SAME:  (%[[X:.*]]: index, %[[OUT:.*]]: index)
// CHECK:       %[[XV:.*]] = ktdp.construct_memory_view %[[X]]
// CHECK-NOT:   spyre_loop.loop
// CHECK:       %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[J0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[R0:.*]] = affine.apply affine_map<(d0) -> (d0 * 4)>(%[[I0]])
// CHECK-NEXT:  %[[C0:.*]] = arith.muli %[[J0]], %[[C8:.*]] : index
// CHECK-NEXT:  ktdp.construct_access_tile %[[XV]][%[[R0]], %[[C0]]]
// CHECK:       %[[LX0:.*]] = arith.constant 512 : index
// CHECK-NEXT:  ktdp.construct_memory_view %[[LX0]], {{.*}}memory_space = #ktdp.memory_space<ct_local>
// CHECK:       %[[B0:.*]] = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 96 + d1 * 8)>(%[[I0]], %[[J0]])[%[[OUT]]]
// CHECK-NEXT:  ktdp.construct_memory_view %[[B0]], {{.*}}memory_space = #ktdp.memory_space<global>
// CHECK:       ktdp.store
// CHECK-NEXT:  %[[J1:.*]] = arith.constant 1 : index
// CHECK-NEXT:  affine.apply affine_map<(d0) -> (d0 * 4)>(%[[I0]])
// CHECK-NEXT:  arith.muli %[[J1]], %[[C8]] : index
// CHECK:       arith.constant 512 : index
// CHECK:       affine.apply {{.*}}(%[[I0]], %[[J1]])[%[[OUT]]]
// CHECK:       %[[J2:.*]] = arith.constant 2 : index
// CHECK-NEXT:  affine.apply affine_map<(d0) -> (d0 * 4)>(%[[I0]])
// CHECK-NEXT:  arith.muli %[[J2]], %[[C8]] : index
// CHECK:       arith.constant 512 : index
// CHECK:       affine.apply {{.*}}(%[[I0]], %[[J2]])[%[[OUT]]]
// CHECK:       %[[I1:.*]] = arith.constant 1 : index
// CHECK-NEXT:  %[[J3:.*]] = arith.constant 0 : index
// CHECK-NEXT:  affine.apply affine_map<(d0) -> (d0 * 4)>(%[[I1]])
// CHECK-NEXT:  arith.muli %[[J3]], %[[C8]] : index
// CHECK:       arith.constant 512 : index
// CHECK:       affine.apply {{.*}}(%[[I1]], %[[J3]])[%[[OUT]]]
// CHECK:       %[[J4:.*]] = arith.constant 1 : index
// CHECK-NEXT:  affine.apply affine_map<(d0) -> (d0 * 4)>(%[[I1]])
// CHECK-NEXT:  arith.muli %[[J4]], %[[C8]] : index
// CHECK:       arith.constant 512 : index
// CHECK:       affine.apply {{.*}}(%[[I1]], %[[J4]])[%[[OUT]]]
// CHECK:       %[[J5:.*]] = arith.constant 2 : index
// CHECK-NEXT:  affine.apply affine_map<(d0) -> (d0 * 4)>(%[[I1]])
// CHECK-NEXT:  arith.muli %[[J5]], %[[C8]] : index
// CHECK:       %[[LX5:.*]] = arith.constant 512 : index
// CHECK-NEXT:  ktdp.construct_memory_view %[[LX5]], {{.*}}memory_space = #ktdp.memory_space<ct_local>
// CHECK:       affine.apply {{.*}}(%[[I1]], %[[J5]])[%[[OUT]]]
// CHECK:       ktdp.store
// CHECK-NEXT:  return
// CHECK-NOT:   arith.constant 3 : index
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 23 >= 0)>
#box = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @nest(%x: index, %out: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 24], strides: [24, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x24xf32>
  spyre_loop.loop count(2) tiled_dims [0] tile_sizes [4] {
  ^bb0(%i: index):
    spyre_loop.loop count(3) tiled_dims [1] tile_sizes [8] {
    ^bb1(%j: index):
      %row = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
      %col = arith.muli %j, %c8 : index
      %xt = ktdp.construct_access_tile %xv[%row, %col] {access_tile_set = #box, access_tile_order = #id2} : memref<8x24xf32> -> !ktdp.access_tile<4x8xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
      %e = math.exp %a : tensor<4x8xf32>
      %lx = arith.constant 512 : index
      %buf = ktdp.construct_memory_view %lx, sizes: [4, 8], strides: [8, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<ct_local>} : memref<4x8xf32>
      %bt = ktdp.construct_access_tile %buf[%c0, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<4x8xf32> -> !ktdp.access_tile<4x8xindex>
      ktdp.store %e, %bt : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
      %b = ktdp.load %bt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
      %base = affine.apply affine_map<(d0, d1)[s0] -> (s0 + d0 * 96 + d1 * 8)>(%i, %j)[%out]
      %ov = ktdp.construct_memory_view %base, sizes: [4, 8], strides: [24, 1] {coordinate_set = #box, memory_space = #ktdp.memory_space<global>} : memref<4x8xf32>
      %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #box, access_tile_order = #id2} : memref<4x8xf32> -> !ktdp.access_tile<4x8xindex>
      ktdp.store %b, %ot : tensor<4x8xf32>, !ktdp.access_tile<4x8xindex>
    }
  }
  return
}

// The tile number unused: the body is copied, no constant is made; an op
// that does not depend on it is copied unchanged.

// CHECK-LABEL: func.func @unused
// CHECK-SAME:  (%[[A:.*]]: index)
// CHECK-NEXT:  arith.addi %[[A]], %[[A]] : index
// CHECK-NEXT:  arith.addi %[[A]], %[[A]] : index
// CHECK-NEXT:  arith.addi %[[A]], %[[A]] : index
// CHECK-NEXT:  return
func.func @unused(%a: index) {
  spyre_loop.loop count(3) tiled_dims [0] tile_sizes [1] {
  ^bb0(%k: index):
    %b = arith.addi %a, %a : index
  }
  return
}

// A loop inside another region (scf.if) is unrolled in place.

// CHECK-LABEL: func.func @in_if
// CHECK:       scf.if
// CHECK-NEXT:    %[[K0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    arith.addi %[[K0]], %[[K0]] : index
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    arith.addi %[[K1]], %[[K1]] : index
// CHECK-NEXT:  }
func.func @in_if(%c: i1) {
  scf.if %c {
    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [1] {
    ^bb0(%k: index):
      %d = arith.addi %k, %k : index
    }
  }
  return
}
