// RUN: %spyre-opt %s --split-input-file -p spatial-size-buffers --verify-diagnostics
// RUN: not %spyre-opt %s --split-input-file -p 'spatial-size-buffers{depth=0}' 2>&1 | %FileCheck %s --check-prefix=DEPTH

// RUN: not %spyre-opt %S/spatial-size-buffers.mlir --split-input-file -p 'spatial-size-buffers{lx-bytes=10000}' 2>&1 | %FileCheck %s --check-prefix=LX

// DEPTH: error: spatial-size-buffers: depth must be at least 1, got 0

// lx-bytes replaces the program's budget: the double-buffered vector add
// of spatial-size-buffers.mlir needs 12288 bytes.
// LX: spatial-size-buffers.mlir:{{[0-9]+}}:1: error: spatial-size-buffers: site @s0 needs 12288 bytes of LX for its buffers (@bx: 2 x 2048, @by: 2 x 2048, @bz: 2 x 2048), more than its 10000
// LX-NEXT: spatial.program @vadd

// spatial-size-buffers refuses a program in another phase than "fused".

// expected-error @+1 {{spatial-size-buffers needs a program in phase fused, got placed (program @early); run spatial-fuse-readers first}}
spatial.program @early attributes {spatial.phase = "placed", grid = [1]} {
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
}

// -----

// expected-error @+1 {{spatial-size-buffers needs a program in phase fused, got sized (program @late); the program is past this phase}}
spatial.program @late attributes {spatial.phase = "sized", grid = [1]} {
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
}

// -----

// The tiles of @x are 512x1024xf16 (1 MiB) and filled in a loop of 2:
// double buffered, @b3_x alone takes the 2 MiB of LX; with @b3_z (two
// slots of 128 KiB) site @b3 needs more than it has. The error is at the
// program and gives the figures, the biggest buffers first.

// expected-error @+1 {{spatial-size-buffers: site @b3 needs 2359296 bytes of LX for its buffers (@b3_x: 2 x 1048576, @b3_z: 2 x 131072), more than its 2097152}}
spatial.program @big attributes {spatial.phase = "fused", grid = [4]} {
  spatial.tensor @x : memref<1024x1024xf16>
  spatial.tensor @z : memref<128x1024xf16>
  spatial.site @b3 at [3] engines ["load", "compute", "store"]
  spatial.buffer @b3_x on @b3 : !spatial.tile<512x1024xf16> depth 1
  spatial.buffer @b3_z on @b3 : !spatial.tile<64x1024xf16> depth 1
  spatial.stage @b3_ld load @x -> @b3_x on @b3 engine "load"
  spatial.stage @b3_cp compute(@b3_x) -> @b3_z on @b3 engine "compute" {
  ^bb0(%a: tensor<512x1024xf16>):
    %s = tensor.extract_slice %a[0, 0] [64, 1024] [1, 1] : tensor<512x1024xf16> to tensor<64x1024xf16>
    spatial.yield %s : tensor<64x1024xf16>
  }
  spatial.stage @b3_st store @b3_z -> @z on @b3 engine "store"
  spatial.edge @b3_e0 from @b3_ld to @b3_cp via @b3_x : !spatial.tile<512x1024xf16>
  spatial.edge @b3_e1 from @b3_cp to @b3_st via @b3_z : !spatial.tile<64x1024xf16>
  spatial.engine @b3 "load" {
    spatial.loop %k = 0 to 2 {
      spatial.load_step @b3_ld [%k]
    }
  }
  spatial.engine @b3 "compute" {
    spatial.loop %k = 0 to 2 {
      spatial.compute_step @b3_cp
    }
  }
  spatial.engine @b3 "store" {
    spatial.loop %k = 0 to 2 {
      spatial.store_step @b3_st [%k]
    }
  }
}

// -----

// The buffers' bytes add up to the program's lx_bytes (2000 + 100 = 2100),
// but the second one starts at the next 128-byte boundary (2048): the
// placed buffers need 2148.

// expected-error @+1 {{spatial-size-buffers: site @s0 needs 2148 bytes of LX for its buffers (@bx: 1 x 2000, @bz: 1 x 100), more than its 2100}}
spatial.program @small attributes {spatial.phase = "fused", grid = [1], lx_bytes = 2100} {
  spatial.tensor @x : memref<500xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  spatial.buffer @bx on @s0 : !spatial.tile<500xf32> depth 1
  spatial.buffer @bz on @s0 : !spatial.tile<25xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @cp compute(@bx) -> @bz on @s0 engine "compute" {
  ^bb0(%a: tensor<500xf32>):
    %s = tensor.extract_slice %a[0] [25] [1] : tensor<500xf32> to tensor<25xf32>
    spatial.yield %s : tensor<25xf32>
  }
  spatial.stage @st store @bz -> @z on @s0 engine "store"
  spatial.edge @ex from @ldx to @cp via @bx : !spatial.tile<500xf32>
  spatial.edge @ez from @cp to @st via @bz : !spatial.tile<25xf32>
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
  }
  spatial.engine @s0 "compute" {
    spatial.compute_step @cp
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st
  }
}

// -----

// A FIFO buffer nobody reads: its depth and its handshakes have no consumer
// to pair with. The error is at the buffer.

spatial.program @dangling attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  // expected-error @+1 {{spatial-size-buffers: buffer @bx (a FIFO) has no consumer stage: a FIFO buffer has exactly one stage reading it}}
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
  }
}

// -----

// A FIFO buffer whose consumer stage is never stepped.

spatial.program @unstepped attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  // expected-error @+1 {{spatial-size-buffers: buffer @bx: stage @st, which drains it, has no step in any engine (no 'store_step @st')}}
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ldx to @st via @bx : !spatial.tile<25xf32>
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
  }
}

// -----

// A FIFO buffer two stages read.

spatial.program @two_readers attributes {spatial.phase = "fused", grid = [1]} {
  spatial.tensor @x : memref<25xf32>
  spatial.tensor @z : memref<25xf32>
  spatial.site @s0 at [0] engines ["load", "compute", "store"]
  // expected-error @+1 {{spatial-size-buffers: buffer @bx (a FIFO) has 2 consumer stages (@st, @st2): a FIFO buffer has exactly one stage reading it}}
  spatial.buffer @bx on @s0 : !spatial.tile<25xf32> depth 1
  spatial.stage @ldx load @x -> @bx on @s0 engine "load"
  spatial.stage @st store @bx -> @z on @s0 engine "store"
  spatial.stage @st2 store @bx -> @z on @s0 engine "store"
  spatial.edge @e from @ldx to @st via @bx : !spatial.tile<25xf32>
  spatial.engine @s0 "load" {
    spatial.load_step @ldx
  }
  spatial.engine @s0 "store" {
    spatial.store_step @st
    spatial.store_step @st2
  }
}
