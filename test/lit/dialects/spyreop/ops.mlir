// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op and type of spyreop (ktir-mlir-frontend's SpyreOp.td; docs/spyreop.md).
// The first function is the body of dataflow-scheduler's
// accept-supported-intrinsic.mlir.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @ok_compute
func.func @ok_compute(%a: tensor<4xf16>, %b: tensor<4xf16>, %o: tensor<4xf16>) -> tensor<4xf16> {
  %r1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%a, %b : tensor<4xf16>, tensor<4xf16>) outs(%o : tensor<4xf16>) {
  ^bb0(%x: f16, %y: f16, %out: f16):
    // CHECK: %[[M:.*]] = spyreop.exp %{{.*}} : f16
    %m = spyreop.exp %x : f16
    // CHECK-NEXT: spyreop.realdiv %[[M]], %{{.*}} : f16
    %s = spyreop.realdiv %m, %y : f16
    linalg.yield %s : f16
  } -> tensor<4xf16>
  return %r1 : tensor<4xf16>
}

// CHECK-LABEL: func.func @all
func.func @all(%h: f16, %d: !spyreop.df16, %f: f32, %i: i32, %l: i64, %t: tensor<64xf16>, %p: !spyreop.fp16_fused, %q: !spyreop.df16_fused) {
  // CHECK-NEXT: spyreop.gelu %{{.*}} : !spyreop.df16
  %0 = spyreop.gelu %d : !spyreop.df16
  // CHECK-NEXT: spyreop.softplus %{{.*}} beta 1.000000e+00 threshold 2.000000e+01 : f16
  %1 = spyreop.softplus %h beta 1.0 threshold 20.0 : f16
  // CHECK-NEXT: %{{.*}}:2 = spyreop.exx2 %{{.*}} : f32
  %2:2 = spyreop.exx2 %f : f32
  // CHECK-NEXT: spyreop.exx2_fused %{{.*}} : f16 -> !spyreop.fp16_fused
  %3 = spyreop.exx2_fused %h : f16 -> !spyreop.fp16_fused
  // CHECK-NEXT: spyreop.layernormscale_fused %{{.*}} : !spyreop.fp16_fused -> f16
  %4 = spyreop.layernormscale_fused %p : !spyreop.fp16_fused -> f16
  // CHECK-NEXT: spyreop.layernormscale_fused %{{.*}} : !spyreop.df16_fused -> !spyreop.df16
  %5 = spyreop.layernormscale_fused %q : !spyreop.df16_fused -> !spyreop.df16
  // CHECK-NEXT: spyreop.layernormnorm %{{.*}} squares %{{.*}} scale %{{.*}} weight %{{.*}} bias %{{.*}} : f32
  %6 = spyreop.layernormnorm %f squares %f scale %f weight %f bias %f : f32
  // CHECK-NEXT: spyreop.layernormscale %{{.*}} squares %{{.*}} : f32
  %7 = spyreop.layernormscale %f squares %f : f32
  // CHECK-NEXT: spyreop.addi32toi32 %{{.*}}, %{{.*}}{{$}}
  %8 = spyreop.addi32toi32 %i, %i
  // CHECK-NEXT: spyreop.addi64toi64 %{{.*}}, %{{.*}}{{$}}
  %9 = spyreop.addi64toi64 %l, %l
  // CHECK-NEXT: spyreop.muli32toi32 %{{.*}}, %{{.*}}{{$}}
  %10 = spyreop.muli32toi32 %i, %i
  // CHECK-NEXT: spyreop.idx32toaddr %{{.*}} base %{{.*}} stride %{{.*}}{{$}}
  %11 = spyreop.idx32toaddr %i base %i stride %i
  // CHECK-NEXT: spyreop.slice_reduction %{{.*}} {reduction_kind = #spyreop.reduction_kind<abs_max>, reduction_scope = #spyreop.reduction_scope<across_slice>} : tensor<64xf16> -> tensor<64xf16>
  %12 = spyreop.slice_reduction %t {reduction_kind = #spyreop.reduction_kind<abs_max>, reduction_scope = #spyreop.reduction_scope<across_slice>} : tensor<64xf16> -> tensor<64xf16>
  // CHECK-NEXT: spyreop.constant 1.500000e+00 : f16
  %13 = spyreop.constant 1.5 : f16
  // CHECK-NEXT: spyreop.sigmoid %{{.*}} : f16
  %14 = spyreop.sigmoid %h : f16
  // CHECK-NEXT: spyreop.silu %{{.*}} : f16
  %15 = spyreop.silu %h : f16
  // CHECK-NEXT: spyreop.rsqrt %{{.*}} : f16
  %16 = spyreop.rsqrt %h : f16
  // CHECK-NEXT: spyreop.reciprocal %{{.*}} : !spyreop.df16
  %17 = spyreop.reciprocal %d : !spyreop.df16
  // CHECK-NEXT: spyreop.sqrt %{{.*}} : f32
  %18 = spyreop.sqrt %f : f32
  return
}
