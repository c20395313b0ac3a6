// RUN: %spyre-opt %s | %FileCheck %s
// RUN: %spyre-opt %s | %spyre-opt | %FileCheck %s
// RUN: %spyre-opt %s --mlir-print-op-generic | %spyre-opt | %FileCheck %s

// Every op, type and attribute of ktdf_arch (docs/ktdf_arch.md), in upstream's
// custom syntax: a resource's attributes as a dictionary or an alias of one,
// ops inside a device without the `ktdf_arch.` prefix, a group's shared
// memories under the names they have outside.

#L1 = {kind = "L1", size = 1048576}
#QUEUE = {ktdf_arch.features = {ktdf_arch.feature.queue = {depth = 16, ordered}}, ktdf_arch.transfer_granularity = array<i64: 64, 2>}

// CHECK-LABEL: ktdf_arch.device @every_op attributes {mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<global> = "DDR", #ktdp.memory_space<ct_local> = "L1">, version = 1 : i64} {
ktdf_arch.device @every_op attributes {version = 1, mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<global> = "DDR", #ktdp.memory_space<ct_local> = "L1">} {
  // CHECK-NEXT: %ddr = memory @main {kind = "DDR", size = 1073741824 : i64}
  %ddr = memory @main {kind = "DDR", size = 1073741824}
  // CHECK-NEXT: %core = group @core0 {kind = "core"} share(%ddr) {
  %core = group @core0 {kind = "core"} share(%ddr) {
    // CHECK-NEXT: %l1 = memory {kind = "L1", size = 1048576 : i64}
    %l1 = memory #L1
    // CHECK-NEXT: %dma = exec_unit {kind = "DMA", ktdf_arch.features = {ktdf_arch.feature.load = {access_granularity = #ktdf_arch.map<"DDR" = [{align_in_words = 1 : i64, size_in_words = 1 : i64}]>, word_size = #ktdf_arch.map<"DDR" = 64 : i64>}}}
    %dma = exec_unit {kind = "DMA", ktdf_arch.features = {ktdf_arch.feature.load = {word_size = #ktdf_arch.map<"DDR" = 64>, access_granularity = #ktdf_arch.map<"DDR" = [{size_in_words = 1, align_in_words = 1}]>}}}
    // CHECK-NEXT: %sfu = exec_unit {kind = "SFU", ktdf_arch.features = {ktdf_arch.feature.compute, ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<f16 = 64 : i64>, splat}}}
    %sfu = exec_unit {kind = "SFU", ktdf_arch.features = {ktdf_arch.feature.compute, ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<f16 = 64>, splat}}}
    // CHECK-NEXT: datapath @in {ktdf_arch.bandwidth = 256 : i64, ktdf_arch.transfer_granularity = array<i64: 64>} %ddr to %dma : memory, exec_unit
    datapath @in {ktdf_arch.transfer_granularity = array<i64: 64>, ktdf_arch.bandwidth = 256} %ddr to %dma : memory, exec_unit
    // CHECK-NEXT: datapath %dma to %l1 : exec_unit, memory
    datapath %dma to %l1 : exec_unit, memory
    // CHECK-NEXT: datapath {ktdf_arch.features = {ktdf_arch.feature.queue = {depth = 16 : i64, ordered}}, ktdf_arch.transfer_granularity = array<i64: 64, 2>} %l1 to %sfu : memory, exec_unit
    datapath #QUEUE %l1 to %sfu : memory, exec_unit
    // A nested group sees the captured memory under its name; names of the
    // enclosing region may be defined again inside (an isolated scope).
    // CHECK-NEXT: %sub = group share(%l1) {
    %sub = group share(%l1) {
      // CHECK-NEXT: %sfu_1 = exec_unit
      %sfu = exec_unit
      // CHECK-NEXT: datapath %l1 to %sfu_1 : memory, exec_unit
      datapath %l1 to %sfu : memory, exec_unit
      // CHECK-NEXT: yield %sfu_1
      yield %sfu
    // CHECK-NEXT: } -> exec_unit
    } -> exec_unit
    // A group that yields nothing prints no terminator.
    // CHECK-NEXT: group share() {
    // CHECK-NEXT: %exec_unit = exec_unit
    // CHECK-NEXT: }
    group share() {
      exec_unit
    }
    // CHECK-NEXT: yield %sfu
    yield %sfu
  // CHECK-NEXT: } -> exec_unit
  } -> exec_unit
  // A switch of N ports: full connectivity is the default and is not printed.
  // Its ports are one group of results, `%switch:2`, as MLIR prints them.
  // CHECK-NEXT: %switch:2 = switch [2]
  switch [2]
  // CHECK-NEXT: %sw:2 = switch [2] {connectivity = dense<{{\[\[}}false, true], [true, false]]> : tensor<2x2xi1>}
  %sw:2 = switch [2] {connectivity = dense<[[false, true], [true, false]]> : tensor<2x2xi1>}
  // CHECK-NEXT: datapath {kind = "fifo"} %core to %sw#0 : exec_unit, port
  datapath {kind = "fifo"} %core to %sw#0 : exec_unit, port
  // CHECK-NEXT: patterns {
  // CHECK-NEXT: }
  patterns {}
  // CHECK-NEXT: patterns ["a", "b"] {
  patterns ["a", "b"] {}
}

// An imported device: read when a target is asked for (docs/target.md).
// CHECK-LABEL: ktdf_arch.device @imported import("Inputs/card.mlir")
ktdf_arch.device @imported attributes {} import("Inputs/card.mlir")

// Full type names are read too.
// CHECK-LABEL: ktdf_arch.device @full_types
// CHECK: datapath %exec_unit to %memory : exec_unit, memory
ktdf_arch.device @full_types {
  %exec_unit = ktdf_arch.exec_unit
  %memory = ktdf_arch.memory {kind = 0}
  ktdf_arch.datapath %exec_unit to %memory : !ktdf_arch.exec_unit, !ktdf_arch.memory
}

// `#ktdf_arch.map` keys any attribute, types included.
// CHECK-LABEL: func.func private @map_attr() attributes {map = #ktdf_arch.map<f32 = 1 : i64, {hello} = "world">}
func.func private @map_attr() attributes {map = #ktdf_arch.map<f32 = 1, { hello } = "world">}
