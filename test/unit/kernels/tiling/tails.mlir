// Tail tiles under coarse tiling (test_coarse_tiling.py: TAILS): an access
// tile that runs past its view's end is masked there (KTDP-SEMANTICS §4:
// those elements load 0 and are not stored). Each slice's tile view must
// keep that: the rows of a slice inside the original view load and store,
// the others stay masked, a slice wholly past the end masks everything.
// The arrays are larger than the views: the rows past a view's end hold a
// sentinel no store may touch.

#v13 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 12 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#v16 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#v5 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 4 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#v20 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 19 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#v6x40 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 5 >= 0, d1 >= 0, -d1 + 39 >= 0)>
#t16 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#t8x64 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// tail_rows: out = x * 2 + y, one 16-row tile; x and out are 13-row views
// (rows 13..15 masked), y a 16-row view (all rows inside). slices=2: the
// second slice (rows 8..15) straddles the end of x and out.
func.func @tail_rows(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [13, 64], strides: [64, 1] {coordinate_set = #v13, memory_space = #ktdp.memory_space<global>} : memref<13x64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [16, 64], strides: [64, 1] {coordinate_set = #v16, memory_space = #ktdp.memory_space<global>} : memref<16x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [13, 64], strides: [64, 1] {coordinate_set = #v13, memory_space = #ktdp.memory_space<global>} : memref<13x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<13x64xf32> -> !ktdp.access_tile<16x64xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<16x64xf32> -> !ktdp.access_tile<16x64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<13x64xf32> -> !ktdp.access_tile<16x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %two = arith.constant dense<2.0> : tensor<16x64xf32>
  %m = arith.mulf %a, %two : tensor<16x64xf32>
  %s = arith.addf %m, %b : tensor<16x64xf32>
  ktdp.store %s, %ot : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  return
}

// short_view: out = x * 3, a 16-row tile on 5-row views. slices=2: the
// first slice straddles the end, the second lies wholly past it (used to
// be a view of size -3); slices=4: slices 2 and 3 wholly past.
func.func @short_view(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [5, 64], strides: [64, 1] {coordinate_set = #v5, memory_space = #ktdp.memory_space<global>} : memref<5x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [5, 64], strides: [64, 1] {coordinate_set = #v5, memory_space = #ktdp.memory_space<global>} : memref<5x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<5x64xf32> -> !ktdp.access_tile<16x64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<5x64xf32> -> !ktdp.access_tile<16x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %three = arith.constant dense<3.0> : tensor<16x64xf32>
  %m = arith.mulf %a, %three : tensor<16x64xf32>
  ktdp.store %m, %ot : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  return
}

// grid_tail: out[r, c] = x[r, c] + (r mod 16) on a grid of 2, each core one
// 16-row tile at row pid * 16 of 20-row views (Triton's tail: core 1 has 4
// valid rows). The anchor is not a constant: with slices=2 core 1's first
// slice straddles the end and its second lies wholly past it. The row
// position is the tile-local linalg.index (the tiling adds the slice origin).
func.func @grid_tail(%x: index, %out: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = ktdp.get_compute_tile_id : index
  %row = arith.muli %pid, %c16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [20, 64], strides: [64, 1] {coordinate_set = #v20, memory_space = #ktdp.memory_space<global>} : memref<20x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [20, 64], strides: [64, 1] {coordinate_set = #v20, memory_space = #ktdp.memory_space<global>} : memref<20x64xf32>
  %xt = ktdp.construct_access_tile %xv[%row, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<20x64xf32> -> !ktdp.access_tile<16x64xindex>
  %ot = ktdp.construct_access_tile %ov[%row, %c0] {access_tile_set = #t16, access_tile_order = #id2} : memref<20x64xf32> -> !ktdp.access_tile<16x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %v, %f : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  ktdp.store %r, %ot : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  return
}

// two_dim_tail: out = x - y, an [8, 64] tile on [6, 40] views (row stride
// 64), columns in 2 (outer) and rows in 2 (inner): the second slice of each
// straddles its dim's end (a view with two per-slice sizes).
func.func @two_dim_tail(%x: index, %y: index, %out: index) attributes {spyre.slices = [[2, [1]], [2, [0]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [6, 40], strides: [64, 1] {coordinate_set = #v6x40, memory_space = #ktdp.memory_space<global>} : memref<6x40xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [6, 40], strides: [64, 1] {coordinate_set = #v6x40, memory_space = #ktdp.memory_space<global>} : memref<6x40xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [6, 40], strides: [64, 1] {coordinate_set = #v6x40, memory_space = #ktdp.memory_space<global>} : memref<6x40xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #t8x64, access_tile_order = #id2} : memref<6x40xf32> -> !ktdp.access_tile<8x64xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #t8x64, access_tile_order = #id2} : memref<6x40xf32> -> !ktdp.access_tile<8x64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #t8x64, access_tile_order = #id2} : memref<6x40xf32> -> !ktdp.access_tile<8x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %s = arith.subf %a, %b : tensor<8x64xf32>
  ktdp.store %s, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
