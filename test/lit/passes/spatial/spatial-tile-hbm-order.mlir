// RUN: %spyre-opt %S/../../../unit/kernels/spatial/hbm_chain.mlir -p 'spatial-tile' | %FileCheck %s
// RUN: %spyre-opt %S/../../../unit/kernels/spatial/hbm_chain.mlir --pipeline ktir-to-spatial | %FileCheck %s --check-prefix=VERIFIED

// A load of what the kernel stored: the load engine runs ahead of the store
// engine, so each (store, load) pair of one tensor gets a semaphore
// (`hbm_order`): the store engine signals after the construct holding the
// store, the load engine waits before the one holding the load, at the
// innermost loop enclosing both. In the loop, the load of row i-1 comes
// before the store of row i in the body: init 1, so iteration k waits for
// iteration k-1's store. After the loop, the read-back of the whole of y
// waits (init 0) for the loop's stores. Synthesizing the FIFO handshakes
// leaves these alone; spatial-verify simulates them with the rest.

// CHECK:      spatial.semaphore @b0_hbm0 on @b0 init 1 attributes {hbm_order}
// CHECK-NEXT: spatial.semaphore @b0_hbm1 on @b0 init 0 attributes {hbm_order}
// CHECK:      spatial.engine @b0 "load" {
// CHECK-NEXT:   spatial.loop %[[I:.*]] = 0 to 7 {
// CHECK-NEXT:     spatial.wait @b0_hbm0 >= 1
// CHECK-NEXT:     spatial.load_step @b0_ld0 [%[[I]]]
// CHECK-NEXT:     spatial.load_step @b0_ld1 [%[[I]]]
// CHECK-NEXT:   }
// CHECK-NEXT:   spatial.wait @b0_hbm1 >= 1
// CHECK-NEXT:   spatial.load_step @b0_ld2
// CHECK-NEXT: }
// CHECK:      spatial.engine @b0 "store" {
// CHECK-NEXT:   spatial.loop %[[J:.*]] = 0 to 7 {
// CHECK-NEXT:     spatial.store_step @b0_st0 [%[[J]]]
// CHECK-NEXT:     spatial.signal @b0_hbm0 += 1
// CHECK-NEXT:   }
// CHECK-NEXT:   spatial.signal @b0_hbm1 += 1
// CHECK-NEXT:   spatial.store_step @b0_st1
// CHECK-NEXT: }

// VERIFIED: spatial.program @running_sum attributes {{[{].*}}spatial.phase = "verified"
