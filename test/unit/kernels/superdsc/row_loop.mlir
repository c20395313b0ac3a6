// A per-core row loop, as Triton writes one: core c handles rows c, c + 4, c + 8, ... of a
// row-major [16, 64] f16 tensor, y = x * exp(x) a row at a time. %n_rows is known only when the
// kernel runs; its spyre.specialize (or ktir-to-bundle{scalars="n_rows=16"}) has ktir-to-bundle
// write the bundle for 16 rows: one scf.for of 4 iterations around the SuperDSCs, core c at row
// 4 i + c (test_superdsc_bundle.py). With scalars="n_rows=14", cores 0 and 1 run 4 iterations
// and cores 2 and 3 run 3: refused.
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @row_loop(%x: index, %y: index, %n_rows: index) attributes {grid = [4], spyre.specialize = {n_rows = 16 : index}} {
  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x64xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [16, 64], strides: [64, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<16x64xf16>
  scf.for %r = %core to %n_rows step %c4 {
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x64xf16> -> !ktdp.access_tile<1x64xindex>
    %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<16x64xf16> -> !ktdp.access_tile<1x64xindex>
    %xd = ktdp.load %xt : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = math.exp %xd : tensor<1x64xf16>
    %p = arith.mulf %xd, %e : tensor<1x64xf16>
    ktdp.store %p, %yt : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  }
  return
}
