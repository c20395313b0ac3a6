// A 64x256 @ B 256x128 on a 2x2 grid: block (m, n) computes C[32m:32m+32, 64n:64n+64]
// over 4 K steps. Blocks of one row read the same A tiles, blocks of one
// column the same B tiles: spatial-fuse-readers multicasts them.
module {
  func.func @matmul(%a: index, %b: index, %c: index, %K: index, %BK: index) attributes {grid = [2, 2]} {
    %m, %n = ktdp.get_compute_tile_id : index, index
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %av = ktdp.construct_memory_view %a, sizes: [64, 256], strides: [256, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 255 >= 0)>, memory_space = #ktdp.memory_space<global>
    } : memref<64x256xf32>
    %bv = ktdp.construct_memory_view %b, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 127 >= 0)>, memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf32>
    %cv = ktdp.construct_memory_view %c, sizes: [64, 128], strides: [128, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 127 >= 0)>, memory_space = #ktdp.memory_space<global>
    } : memref<64x128xf32>
    %row = arith.muli %m, %c32 : index
    %col = arith.muli %n, %c64 : index
    %zero = arith.constant dense<0.0> : tensor<32x64xf32>
    %acc = scf.for %k = %c0 to %K step %BK iter_args(%sum = %zero) -> (tensor<32x64xf32>) {
      %at = ktdp.construct_access_tile %av[%row, %k] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<64x256xf32> -> !ktdp.access_tile<32x64xindex>
      %bt = ktdp.construct_access_tile %bv[%k, %col] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<256x128xf32> -> !ktdp.access_tile<64x64xindex>
      %x = ktdp.load %at : !ktdp.access_tile<32x64xindex> -> tensor<32x64xf32>
      %y = ktdp.load %bt : !ktdp.access_tile<64x64xindex> -> tensor<64x64xf32>
      %init = tensor.empty() : tensor<32x64xf32>
      %p = linalg.matmul ins(%x, %y : tensor<32x64xf32>, tensor<64x64xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
      %next = arith.addf %sum, %p : tensor<32x64xf32>
      scf.yield %next : tensor<32x64xf32>
    }
    %ct = ktdp.construct_access_tile %cv[%row, %col] {
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 63 >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
    } : memref<64x128xf32> -> !ktdp.access_tile<32x64xindex>
    ktdp.store %acc, %ct : tensor<32x64xf32>, !ktdp.access_tile<32x64xindex>
    return
  }
}
