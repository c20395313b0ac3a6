// RUN: %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-place{cores=2}' | %FileCheck %s
// RUN: %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-place' | %FileCheck %s --check-prefix=ROOM
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spatial-place' 2>&1 | %FileCheck %s --check-prefix=NOPROG
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-place,spatial-place' 2>&1 | %FileCheck %s --check-prefix=TWICE
// RUN: not %spyre-opt --mlir-print-local-scope %s -p 'spatial-tile,spatial-place{cores=0}' 2>&1 | %FileCheck %s --check-prefix=ZERO

// spatial-place pins the grid's blocks to cores: block i on core i mod cores.
// With 4 blocks and 2 cores, blocks 2 and 3 join the sites of blocks 0 and 1:
// their buffers and stages move there and each engine runs the blocks' steps
// one after the other. With room for every block (32 cores), each keeps its
// own site.

// CHECK-LABEL: spatial.program @scale attributes {grid = [4], spatial.phase = "placed"} {
// CHECK:         spatial.site @b0 at [0] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[0], [2]], core = 0 : i64}
// CHECK:         spatial.stage @b2_ld0 load @x -> @b2_in0 on @b0 engine "load" origin affine_map<() -> (8)>
// CHECK:         spatial.engine @b0 "load" {
// CHECK-NEXT:      spatial.load_step @b0_ld0
// CHECK-NEXT:      spatial.load_step @b2_ld0
// CHECK-NEXT:    }
// CHECK:         spatial.site @b1 at [1] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[1], [3]], core = 1 : i64}
// CHECK-NOT:     spatial.site

// ROOM: spatial.site @b3 at [3] engines ["load", "compute", "store"] attributes {blocks = {{\[}}[3]], core = 3 : i64}

// NOPROG: error: spatial-place needs a spatial.program in phase tiled; the module has none
// TWICE: error: spatial-place needs a program in phase tiled, got placed (program @scale); the program is past this phase
// ZERO: error: spatial-place: cores must be at least 1, got 0

func.func @scale(%x: index, %y: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %o = arith.muli %c, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %t = ktdp.construct_access_tile %xv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %b = arith.addf %a, %a : tensor<4xf32>
  %u = ktdp.construct_access_tile %yv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %b, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
  func.return
}
