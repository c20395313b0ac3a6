// Kernels for coarse tiling and the bundle (issue 11), one per case the
// seed's users hit. Each states its hint, and its expected outputs as NumPy
// expressions of the inputs (test_coarse_tiling.py: ORACLES).

#v512 = affine_set<(d0) : (d0 >= 0, -d0 + 511 >= 0)>
#m8x128 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#m4x64 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#v128 = affine_set<(d0) : (d0 >= 0, -d0 + 127 >= 0)>
#v8 = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// flat: z = x + y over [512], one loop of 4 tiles of 128.
func.func @flat(%x: index, %y: index, %z: index) attributes {spyre.slices = 4} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [512], strides: [1] {coordinate_set = #v512, memory_space = #ktdp.memory_space<global>} : memref<512xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [512], strides: [1] {coordinate_set = #v512, memory_space = #ktdp.memory_space<global>} : memref<512xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [512], strides: [1] {coordinate_set = #v512, memory_space = #ktdp.memory_space<global>} : memref<512xf32>
  %xt = ktdp.construct_access_tile %xv[%c0] {access_tile_set = #v512, access_tile_order = #id1} : memref<512xf32> -> !ktdp.access_tile<512xindex>
  %yt = ktdp.construct_access_tile %yv[%c0] {access_tile_set = #v512, access_tile_order = #id1} : memref<512xf32> -> !ktdp.access_tile<512xindex>
  %zt = ktdp.construct_access_tile %zv[%c0] {access_tile_set = #v512, access_tile_order = #id1} : memref<512xf32> -> !ktdp.access_tile<512xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<512xindex> -> tensor<512xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<512xindex> -> tensor<512xf32>
  %s = arith.addf %a, %b : tensor<512xf32>
  ktdp.store %s, %zt : tensor<512xf32>, !ktdp.access_tile<512xindex>
  return
}

// two_groups: y = a + b (rows in 2) and w = exp(c) (columns in 4): two
// independent groups, each with its own hint on its store.
func.func @two_groups(%a: index, %b: index, %c: index, %y: index, %w: index) {
  %c0 = arith.constant 0 : index
  %av = ktdp.construct_memory_view %a, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %at = ktdp.construct_access_tile %av[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %ct = ktdp.construct_access_tile %cv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %wt = ktdp.construct_access_tile %wv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %bd = ktdp.load %bt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %sum = arith.addf %ad, %bd : tensor<8x128xf32>
  ktdp.store %sum, %yt {spyre.slices = [[2, [0]]]} : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  %cd = ktdp.load %ct : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %e = math.exp %cd : tensor<8x128xf32>
  ktdp.store %e, %wt {spyre.slices = [[4, [1]]]} : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}

// size_one: out = exp(x) * 2 over [4, 64], rows in 4: tiles of one row.
func.func @size_one(%x: index, %out: index) attributes {spyre.slices = [[4, [0]]]} {
  %c0 = arith.constant 0 : index
  %two = arith.constant dense<2.0> : tensor<4x64xf32>
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = #m4x64, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 64], strides: [64, 1] {coordinate_set = #m4x64, memory_space = #ktdp.memory_space<global>} : memref<4x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #m4x64, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<4x64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #m4x64, access_tile_order = #id2} : memref<4x64xf32> -> !ktdp.access_tile<4x64xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf32>
  %e = math.exp %xd : tensor<4x64xf32>
  %r = arith.mulf %e, %two : tensor<4x64xf32>
  ktdp.store %r, %ot : tensor<4x64xf32>, !ktdp.access_tile<4x64xindex>
  return
}

// two_dims: out = x * y over [8, 128], columns in 2 (outer) and rows in 4
// (inner): the addresses must move in both loops.
func.func @two_dims(%x: index, %y: index, %out: index) attributes {spyre.slices = [[2, [1]], [4, [0]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %yd = ktdp.load %yt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %p = arith.mulf %xd, %yd : tensor<8x128xf32>
  ktdp.store %p, %ot : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}

// inside_outside: y = a + b is stored (an output) and consumed by z = y * c
// inside the loop: an LX buffer for y, and its store copies it out. Nested:
// rows in 2 (outer), columns in 2 (inner).
func.func @inside_outside(%a: index, %b: index, %c: index, %y: index, %z: index) attributes {spyre.slices = [[2, [0]], [2, [1]]]} {
  %c0 = arith.constant 0 : index
  %av = ktdp.construct_memory_view %a, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %bv = ktdp.construct_memory_view %b, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %cv = ktdp.construct_memory_view %c, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %zv = ktdp.construct_memory_view %z, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %at = ktdp.construct_access_tile %av[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %bt = ktdp.construct_access_tile %bv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %ct = ktdp.construct_access_tile %cv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %zt = ktdp.construct_access_tile %zv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %bd = ktdp.load %bt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %sum = arith.addf %ad, %bd : tensor<8x128xf32>
  ktdp.store %sum, %yt : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  %cd = ktdp.load %ct : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %prod = arith.mulf %sum, %cd : tensor<8x128xf32>
  ktdp.store %prod, %zt : tensor<8x128xf32>, !ktdp.access_tile<8x128xindex>
  return
}

// broadcast_reduce: out[i] = sum_j (x[i, j] * w[j]); rows in 2 and columns
// kept whole (the reduction dim is not tiled), w broadcast along rows.
func.func @broadcast_reduce(%x: index, %w: index, %out: index) attributes {spyre.slices = [[2, [0]]]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 128], strides: [128, 1] {coordinate_set = #m8x128, memory_space = #ktdp.memory_space<global>} : memref<8x128xf32>
  %wv = ktdp.construct_memory_view %w, sizes: [128], strides: [1] {coordinate_set = #v128, memory_space = #ktdp.memory_space<global>} : memref<128xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8], strides: [1] {coordinate_set = #v8, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #m8x128, access_tile_order = #id2} : memref<8x128xf32> -> !ktdp.access_tile<8x128xindex>
  %wt = ktdp.construct_access_tile %wv[%c0] {access_tile_set = #v128, access_tile_order = #id1} : memref<128xf32> -> !ktdp.access_tile<128xindex>
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #v8, access_tile_order = #id1} : memref<8xf32> -> !ktdp.access_tile<8xindex>
  %xd = ktdp.load %xt : !ktdp.access_tile<8x128xindex> -> tensor<8x128xf32>
  %wd = ktdp.load %wt : !ktdp.access_tile<128xindex> -> tensor<128xf32>
  %e = tensor.empty() : tensor<8x128xf32>
  %wb = linalg.broadcast ins(%wd : tensor<128xf32>) outs(%e : tensor<8x128xf32>) dimensions = [0]
  %p = arith.mulf %xd, %wb : tensor<8x128xf32>
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.splat %zero : tensor<8xf32>
  %r = linalg.reduce ins(%p : tensor<8x128xf32>) outs(%acc0 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  ktdp.store %r, %ot : tensor<8xf32>, !ktdp.access_tile<8xindex>
  return
}
