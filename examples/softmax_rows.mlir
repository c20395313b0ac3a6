// Row softmax of a 256x128 f16 matrix on 8 Spyre cores: core c handles rows
// c, c+8, c+16, ... Written the way a naive frontend emits it: the input
// row's access tile is built twice, the row goes through a no-op
// collapse/expand pair, and the input view uses the older memory-space
// spelling. `spyre-opt --pipeline default` cleans all three up.
module {
  func.func @softmax_rows(%out: index, %in: index) attributes {grid = [8]} {
    %core = ktdp.get_compute_tile_id : index
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %rows = arith.constant 256 : index
    %in_view = ktdp.construct_memory_view %in, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
      memory_space = #ktdp.spyre_memory_space<HBM>
    } : memref<256x128xf16>
    %out_view = ktdp.construct_memory_view %out, sizes: [256, 128], strides: [128, 1] {
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 255 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
      memory_space = #ktdp.memory_space<global>
    } : memref<256x128xf16>
    scf.for %row = %core to %rows step %c8 {
      %x_tile = ktdp.construct_access_tile %in_view[%row, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<256x128xf16> -> !ktdp.access_tile<1x128xindex>
      %x = ktdp.load %x_tile : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf16>
      %flat = tensor.collapse_shape %x [[0, 1]] : tensor<1x128xf16> into tensor<128xf16>
      %x2 = tensor.expand_shape %flat [[0, 1]] output_shape [1, 128] : tensor<128xf16> into tensor<1x128xf16>

      %ninf = arith.constant 0xFC00 : f16
      %max_init = tensor.splat %ninf : tensor<1xf16>
      %max = linalg.reduce { arith.maximumf } ins(%x2 : tensor<1x128xf16>) outs(%max_init : tensor<1xf16>) dimensions = [1]
      %m = tensor.extract %max[%c0] : tensor<1xf16>
      %m_row = tensor.splat %m : tensor<1x128xf16>

      %x_tile_again = ktdp.construct_access_tile %in_view[%row, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<256x128xf16> -> !ktdp.access_tile<1x128xindex>
      %x_again = ktdp.load %x_tile_again : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf16>
      %shifted = arith.subf %x_again, %m_row : tensor<1x128xf16>
      %num = math.exp %shifted : tensor<1x128xf16>

      %zero = arith.constant 0.0 : f16
      %sum_init = tensor.splat %zero : tensor<1xf16>
      %sum = linalg.reduce { arith.addf } ins(%num : tensor<1x128xf16>) outs(%sum_init : tensor<1xf16>) dimensions = [1]
      %s = tensor.extract %sum[%c0] : tensor<1xf16>
      %s_row = tensor.splat %s : tensor<1x128xf16>
      %y = arith.divf %num, %s_row : tensor<1x128xf16>

      %y_tile = ktdp.construct_access_tile %out_view[%row, %c0] {
        access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
        access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
      } : memref<256x128xf16> -> !ktdp.access_tile<1x128xindex>
      ktdp.store %y, %y_tile : tensor<1x128xf16>, !ktdp.access_tile<1x128xindex>
    }
    return
  }
}
