// Kernels whose tiles cover part of a stick (issue 22), for spyre-physicalize-layouts.
// Sticks are 128 bytes: 32 f32 or 64 f16 elements.
//   #s32: [M, N] f32 -> [N/32, M, 32]   phys_src = [1, 0, 1], phys_op = [1, 0, 2], phys_arg = [32, 0, 32]
//   #s64: [M, N] f16 -> [N/64, M, 64]   phys_src = [1, 0, 1], phys_op = [1, 0, 2], phys_arg = [64, 0, 64]
//   #r64: [M, N] f16 -> [M/64, N, 64]   phys_src = [0, 1, 0], phys_op = [1, 0, 2], phys_arg = [64, 0, 64]

#full64 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#t16 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 15 >= 0)>
#t32 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#full128x64 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#full8x48 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#t8x24 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 23 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// c = a @ b, f32 [64, 64], 16x16 tiles on a 4x4 grid: every tile covers half a stick.
func.func @matmul_f32_tiles16(%a: index, %b: index, %c: index) attributes {grid = [4, 4]} {
  %m, %n = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %av = ktdp.construct_memory_view %a, sizes: [64, 64], strides: [64, 1] {coordinate_set = #full64, memory_space = #ktdp.memory_space<global>} : memref<64x64xf32>
  spyre.tensor_layout %av {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<64x64xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [64, 64], strides: [64, 1] {coordinate_set = #full64, memory_space = #ktdp.memory_space<global>} : memref<64x64xf32>
  spyre.tensor_layout %bv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<64x64xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [64, 64], strides: [64, 1] {coordinate_set = #full64, memory_space = #ktdp.memory_space<global>} : memref<64x64xf32>
  spyre.tensor_layout %cv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<64x64xf32>
  %row = arith.muli %m, %c16 : index
  %col = arith.muli %n, %c16 : index
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %c64 step %c16 iter_args(%sum = %zero) -> (tensor<16x16xf32>) {
    %at = ktdp.construct_access_tile %av[%row, %k] {access_tile_set = #t16, access_tile_order = #id2} : memref<64x64xf32> -> !ktdp.access_tile<16x16xindex>
    %bt = ktdp.construct_access_tile %bv[%k, %col] {access_tile_set = #t16, access_tile_order = #id2} : memref<64x64xf32> -> !ktdp.access_tile<16x16xindex>
    %x = ktdp.load %at : !ktdp.access_tile<16x16xindex> -> tensor<16x16xf32>
    %y = ktdp.load %bt : !ktdp.access_tile<16x16xindex> -> tensor<16x16xf32>
    %p = linalg.matmul ins(%x, %y : tensor<16x16xf32>, tensor<16x16xf32>) outs(%sum : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %p : tensor<16x16xf32>
  }
  %ct = ktdp.construct_access_tile %cv[%row, %col] {access_tile_set = #t16, access_tile_order = #id2} : memref<64x64xf32> -> !ktdp.access_tile<16x16xindex>
  ktdp.store %acc, %ct : tensor<16x16xf32>, !ktdp.access_tile<16x16xindex>
  return
}

// out = exp(x) + y, f16 [128, 64], 32x32 blocks on a 4x2 grid. x is stick-laid on its
// rows (#r64: a 32-row block is half a stick), y and out on their columns (#s64).
func.func @grid4x2_f16_rows32(%x: index, %y: index, %out: index) attributes {grid = [4, 2]} {
  %p, %q = ktdp.get_compute_tile_id : index, index
  %c32 = arith.constant 32 : index
  %xv = ktdp.construct_memory_view %x, sizes: [128, 64], strides: [64, 1] {coordinate_set = #full128x64, memory_space = #ktdp.memory_space<global>} : memref<128x64xf16>
  spyre.tensor_layout %xv {phys_src = array<i64: 0, 1, 0>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [128, 64], strides: [64, 1] {coordinate_set = #full128x64, memory_space = #ktdp.memory_space<global>} : memref<128x64xf16>
  spyre.tensor_layout %yv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [128, 64], strides: [64, 1] {coordinate_set = #full128x64, memory_space = #ktdp.memory_space<global>} : memref<128x64xf16>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x64xf16>
  %row = arith.muli %p, %c32 : index
  %col = arith.muli %q, %c32 : index
  %xt = ktdp.construct_access_tile %xv[%row, %col] {access_tile_set = #t32, access_tile_order = #id2} : memref<128x64xf16> -> !ktdp.access_tile<32x32xindex>
  %yt = ktdp.construct_access_tile %yv[%row, %col] {access_tile_set = #t32, access_tile_order = #id2} : memref<128x64xf16> -> !ktdp.access_tile<32x32xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<32x32xindex> -> tensor<32x32xf16>
  %yd = ktdp.load %yt : !ktdp.access_tile<32x32xindex> -> tensor<32x32xf16>
  %e = math.exp %xd : tensor<32x32xf16>
  %s = arith.addf %e, %yd : tensor<32x32xf16>
  %ot = ktdp.construct_access_tile %ov[%row, %col] {access_tile_set = #t32, access_tile_order = #id2} : memref<128x64xf16> -> !ktdp.access_tile<32x32xindex>
  ktdp.store %s, %ot : tensor<32x32xf16>, !ktdp.access_tile<32x32xindex>
  return
}

// out[:, 20:44] = x[:, 20:44] * 2 (f32, sticks of 32): the tile starts 20 elements into
// a stick and ends 12 into the next one; the rest of out is left as it was.
func.func @store_spanning_two_sticks(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c20 = arith.constant 20 : index
  %two = arith.constant dense<2.0> : tensor<8x24xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c20] {access_tile_set = #t8x24, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x24xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x24xindex> -> tensor<8x24xf32>
  %r = arith.mulf %xd, %two : tensor<8x24xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c20] {access_tile_set = #t8x24, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x24xindex>
  ktdp.store %r, %ot : tensor<8x24xf32>, !ktdp.access_tile<8x24xindex>
  return
}

// out = x + 1 on [8, 48] f32 views (sticks of 32): the stick dim is a stick and a half,
// padded to two sticks in memory; the one tile covers the view.
func.func @padded_view_elementwise(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant dense<1.0> : tensor<8x48xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [8, 48], strides: [48, 1] {coordinate_set = #full8x48, memory_space = #ktdp.memory_space<global>} : memref<8x48xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<8x48xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 48], strides: [48, 1] {coordinate_set = #full8x48, memory_space = #ktdp.memory_space<global>} : memref<8x48xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<8x48xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #full8x48, access_tile_order = #id2} : memref<8x48xf32> -> !ktdp.access_tile<8x48xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x48xindex> -> tensor<8x48xf32>
  %r = arith.addf %xd, %one : tensor<8x48xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #full8x48, access_tile_order = #id2} : memref<8x48xf32> -> !ktdp.access_tile<8x48xindex>
  ktdp.store %r, %ot : tensor<8x48xf32>, !ktdp.access_tile<8x48xindex>
  return
}

// out = x - y on [4, 384] f32 with sticks of 64, 96-column tiles on a 1x4 grid: a tile
// starts at offset 0 or 32 of a stick (known at run time) and touches two sticks either
// way; its store is masked by a set whose symbol is that offset.
func.func @tiles96_at_run_time_offsets(%x: index, %y: index, %out: index) attributes {grid = [1, 4]} {
  %p, %q = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 384], strides: [384, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 383 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x384xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x384xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [4, 384], strides: [384, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 383 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x384xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 384], strides: [384, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 383 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x384xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<4x384xf32>
  %col = arith.muli %q, %c96 : index
  %xt = ktdp.construct_access_tile %xv[%c0, %col] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 95 >= 0)>, access_tile_order = #id2} : memref<4x384xf32> -> !ktdp.access_tile<4x96xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %col] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 95 >= 0)>, access_tile_order = #id2} : memref<4x384xf32> -> !ktdp.access_tile<4x96xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<4x96xindex> -> tensor<4x96xf32>
  %yd = ktdp.load %yt : !ktdp.access_tile<4x96xindex> -> tensor<4x96xf32>
  %d = arith.subf %xd, %yd : tensor<4x96xf32>
  %ot = ktdp.construct_access_tile %ov[%c0, %col] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 95 >= 0)>, access_tile_order = #id2} : memref<4x384xf32> -> !ktdp.access_tile<4x96xindex>
  ktdp.store %d, %ot : tensor<4x96xf32>, !ktdp.access_tile<4x96xindex>
  return
}

// x[r, c] = exp(x[r, c]) and out[r, c] = exp(x[r, c]) for the 4x4 box r in 8q+2..8q+5,
// c in 8q+4..8q+7 on a 1x2 grid (f32, sticks of 32): the box starts past its anchor in
// both dims, the tile is loaded and stored through.
func.func @offset_box(%x: index, %out: index) attributes {grid = [1, 2]} {
  %p, %q = ktdp.get_compute_tile_id : index, index
  %c8 = arith.constant 8 : index
  %j = arith.muli %q, %c8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16x64xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<16x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [16, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16x64xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<16x64xf32>
  %xt = ktdp.construct_access_tile %xv[%j, %j] {access_tile_set = affine_set<(d0, d1) : (d0 - 2 >= 0, -d0 + 5 >= 0, d1 - 4 >= 0, -d1 + 7 >= 0)>, access_tile_order = #id2} : memref<16x64xf32> -> !ktdp.access_tile<4x4xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<4x4xindex> -> tensor<4x4xf32>
  %e = math.exp %xd : tensor<4x4xf32>
  ktdp.store %e, %xt : tensor<4x4xf32>, !ktdp.access_tile<4x4xindex>
  %ot = ktdp.construct_access_tile %ov[%j, %j] {access_tile_set = affine_set<(d0, d1) : (d0 - 2 >= 0, -d0 + 5 >= 0, d1 - 4 >= 0, -d1 + 7 >= 0)>, access_tile_order = #id2} : memref<16x64xf32> -> !ktdp.access_tile<4x4xindex>
  ktdp.store %e, %ot : tensor<4x4xf32>, !ktdp.access_tile<4x4xindex>
  return
}

// out = 3 * x on [4, 64] f32 (sticks of 32) in 16-column tiles at q*32 + 4 - 4 + k
// (an affine.apply, a subi, a loop of step 16): the offset in a stick, 0 or 16, is
// derived through each.
func.func @anchor_arithmetic(%x: index, %out: index) attributes {grid = [1, 2]} {
  %p, %q = ktdp.get_compute_tile_id : index, index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %three = arith.constant dense<3.0> : tensor<4x16xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  spyre.tensor_layout %xv {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  spyre.tensor_layout %ov {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<4x64xf32>
  %a = affine.apply affine_map<(d0) -> (d0 * 32 + 4)>(%q)
  %b = arith.subi %a, %c4 : index
  scf.for %k = %c0 to %c32 step %c16 {
    %col = arith.addi %b, %k : index
    %xt = ktdp.construct_access_tile %xv[%c0, %col] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<4x16xindex>
    %xd = ktdp.load %xt : !ktdp.access_tile<4x16xindex> -> tensor<4x16xf32>
    %r = arith.mulf %xd, %three : tensor<4x16xf32>
    %ot = ktdp.construct_access_tile %ov[%c0, %col] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 15 >= 0)>, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<4x16xindex>
    ktdp.store %r, %ot : tensor<4x16xf32>, !ktdp.access_tile<4x16xindex>
  }
  return
}
