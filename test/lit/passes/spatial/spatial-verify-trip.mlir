// RUN: %spyre-opt %s -p spatial-verify | %FileCheck %s
// RUN: %spyre-opt %s -p spatial-verify,spatial-verify | %FileCheck %s

// A ragged copy whose loops run to a trip: a count the program reads from its
// data (element 1 of @n), ceil((v + 4) / 8) tiles, v admitted from 1 to 44.
// spatial-verify simulates every loop run to the trip at its greatest count,
// ceil((44 + 4) / 8) = 6 iterations: 6 x 3 = 18 steps on each engine, 36 in
// all (never the count of some smaller value of the range).

// CHECK-LABEL: spatial.program @ragged attributes {spatial.certificate = {cycles = 56 : i64, engines = {s0.load = 18 : i64, s0.store = 18 : i64}, hbm_read_bytes = 1536 : i64, hbm_written_bytes = 1536 : i64, max_full = {bx = 1 : i64}, steps = 36 : i64}, spatial.phase = "verified"} {
// CHECK:         spatial.trip @rows from @n[1] per 8 bias 4 admit [1, 44]
// CHECK:         spatial.engine @s0 "load" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to trip(@rows) {
// CHECK:         spatial.engine @s0 "store" {
// CHECK-NEXT:      spatial.loop %{{.*}} = 0 to trip(@rows) {
spatial.program @ragged attributes {spatial.phase = "synthesized"} {
  spatial.tensor @n : memref<2xi32>
  spatial.tensor @x : memref<64x8xf32>
  spatial.tensor @z : memref<64x8xf32>
  spatial.site @s0 at [0] engines ["load", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<8x8xf32> depth 2 offset 0
  spatial.stage @ld load @x -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ld to @st via @bx : !spatial.tile<8x8xf32>
  spatial.trip @rows from @n[1] per 8 bias 4 admit [1, 44]
  spatial.semaphore @full on @s0 init 0
  spatial.semaphore @empty on @s0 init 2
  spatial.engine @s0 "load" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @empty >= 1
      spatial.load_step @ld [%k]
      spatial.signal @full += 1
    }
  }
  spatial.engine @s0 "store" {
    spatial.loop %k = 0 to trip(@rows) {
      spatial.wait @full >= 1
      spatial.store_step @st [%k]
      spatial.signal @empty += 1
    }
  }
}
