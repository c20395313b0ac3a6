// C = A + B on a 96x64 f16 tensor, 32 tiles of 3 rows, each row through a
// three-stage pipeline (load A and B into FIFOs, add on the SFU, store C):
// the output form of dataflow-scheduler's --construct-three-stage-pipeline
// (../shared/corpus/reference/construct-three-stage-pipeline-basic.mlir),
// written with our dialects: the transfers address the ktdp views directly.
#row = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_rows(%a: index, %b: index, %c: index) attributes {grid = [32]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %id = ktdp.get_compute_tile_id : index
  %start_row = arith.muli %id, %c3 : index
  %A = ktdp.construct_memory_view %a, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %B = ktdp.construct_memory_view %b, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  %C = ktdp.construct_memory_view %c, sizes: [96, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 95 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<96x64xf16>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c64 step %c64 {
      ktdf.pipeline {
        %p:6 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token) {
          %in:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          %out = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
          %t0 = ktdf.create_token : !ktdf.token
          %t1 = ktdf.create_token : !ktdf.token
          %t2 = ktdf.create_token : !ktdf.token
          ktdf.private_yield %in#0, %in#1, %out, %t0, %t1, %t2 : !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token
        }
        ktdf.stage depends_in(none) depends_out(%p#3) {
          ktdf.data_transfer from %A[%start_row + %i, %j] size [1, 64] to %p#0 size [1, 64] : memref<96x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
          ktdf.data_transfer from %B[%start_row + %i, %j] size [1, 64] to %p#1 size [1, 64] : memref<96x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
        }
        ktdf.stage depends_in(%p#3) depends_out(%p#4) {
          %x = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
          %y = ktdf.read_from_fifo %p#1 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
          %e = tensor.empty() : tensor<1x64xf16>
          %s = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) {
          ^bb0(%u: f16, %v: f16, %w: f16):
            %sum = arith.addf %u, %v : f16
            linalg.yield %sum : f16
          } -> tensor<1x64xf16>
          ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
        } {applicable_units = ["SFU"]}
        ktdf.stage depends_in(%p#4) depends_out(%p#5) {
          ktdf.data_transfer from %p#2 size [1, 64] to %C[%start_row + %i, %j] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, memref<96x64xf16>
        }
      }
    } {loop_type = #ktdf.loop_type<parallel_loop>}
  } {loop_type = #ktdf.loop_type<parallel_loop>}
  return
}
