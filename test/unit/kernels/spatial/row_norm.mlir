// Per row (rows split over a grid of 4, two rows per block): a sum over column
// blocks carried by a loop, a mean computed between loops and used inside the
// next loop, a scalar (the row count as f32) and an index used by compute.
module {
  func.func @row_norm(%x: index, %y: index, %N: index, %BLOCK: index, %scale: f32) attributes {grid = [4]} {
    %core = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>
    } : memref<8x64xf32>
    %yv = ktdp.construct_memory_view %y, sizes: [8, 64], strides: [64, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>
    } : memref<8x64xf32>
    %zero = arith.constant dense<0.0> : tensor<1x16xf32>
    scf.for %r = %core to %c8 step %c4 {
      %sum = scf.for %j = %c0 to %N step %BLOCK iter_args(%acc = %zero) -> (tensor<1x16xf32>) {
        %t = ktdp.construct_access_tile %xv[%r, %j] {
          access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
          access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
        } : memref<8x64xf32> -> !ktdp.access_tile<1x16xindex>
        %a = ktdp.load %t : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
        %n = arith.addf %acc, %a : tensor<1x16xf32>
        scf.yield %n : tensor<1x16xf32>
      }
      %init = tensor.splat %scale : tensor<1xf32>
      %tot = linalg.reduce { arith.addf } ins(%sum : tensor<1x16xf32>) outs(%init : tensor<1xf32>) dimensions = [1]
      %c0r = arith.constant 0 : index
      %s = tensor.extract %tot[%c0r] : tensor<1xf32>
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %s2 = arith.addf %s, %rf : f32
      %mean = tensor.splat %s2 : tensor<1x16xf32>
      scf.for %j = %c0 to %N step %BLOCK {
        %t = ktdp.construct_access_tile %xv[%r, %j] {
          access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
          access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
        } : memref<8x64xf32> -> !ktdp.access_tile<1x16xindex>
        %a = ktdp.load %t : !ktdp.access_tile<1x16xindex> -> tensor<1x16xf32>
        %d = arith.subf %a, %mean : tensor<1x16xf32>
        %u = ktdp.construct_access_tile %yv[%r, %j] {
          access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
          access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
        } : memref<8x64xf32> -> !ktdp.access_tile<1x16xindex>
        ktdp.store %d, %u : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
      }
    }
    return
  }
}
