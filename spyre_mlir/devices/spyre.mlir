// The Spyre card as a `ktdf_arch.device` (docs/ktdf_arch.md): spyre-mlir's
// default target. `spyre_mlir.target.SPYRE` holds the facts this device
// states (test/unit/test_target.py reads this file and checks that they are
// equal); docs/target.md says which field sets which fact:
//
//   cores                    32 core groups, each with its own LX memory
//   lx_bytes                 the size of LX, the kind mem_space_mapping gives
//                            #ktdp.memory_space<ct_local>
//   stick_bytes              the transfer granularity of the HBM datapaths
//   alignment_bytes          word_size x align_in_words of the DMA units for HBM
//   simd_elements_per_cycle  the f16 lanes of the compute unit (PT)
//
// The rates and the clock are not part of the device model; they stay
// target.py's. HBM has no size here: no fact of the target reads one.
// `spyre-opt --device FILE` and `spyre-run --device FILE` take a file like
// this one to compile for, or run on, another device.

#HBM = {kind = "HBM"}
#LX = {kind = "LX", size = 2097152}

#DMA_LOAD = {
  kind = "DMA_LOAD",
  ktdf_arch.features = {
    ktdf_arch.feature.load = {
      word_size = #ktdf_arch.map<"HBM" = 128, "LX" = 128>,
      access_granularity = #ktdf_arch.map<"HBM" = [{size_in_words = 1, align_in_words = 1}],
                                          "LX" = [{size_in_words = 1, align_in_words = 1}]>
    }
  }
}
#DMA_STORE = {
  kind = "DMA_STORE",
  ktdf_arch.features = {
    ktdf_arch.feature.store = {
      word_size = #ktdf_arch.map<"HBM" = 128, "LX" = 128>,
      access_granularity = #ktdf_arch.map<"HBM" = [{size_in_words = 1, align_in_words = 1}],
                                          "LX" = [{size_in_words = 1, align_in_words = 1}]>
    }
  }
}
#PT = {
  kind = "PT",
  ktdf_arch.features = {
    ktdf_arch.feature.compute,
    ktdf_arch.feature.simd = {lanes = #ktdf_arch.map<f16 = 64, f32 = 32>}
  }
}

// One stick (128 bytes) per HBM transfer.
#HBM_LINK = {ktdf_arch.transfer_granularity = array<i64: 128>}
#LX_LINK = {ktdf_arch.transfer_granularity = array<i64: 128>}
// The inter-core ring, one direction.
#RING = {kind = "ring"}

ktdf_arch.device @spyre attributes {
  mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<global> = "HBM", #ktdp.memory_space<ct_local> = "LX">
} {
  %hbm = memory #HBM

  %core0 = group @core0 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core1 = group @core1 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core2 = group @core2 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core3 = group @core3 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core4 = group @core4 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core5 = group @core5 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core6 = group @core6 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core7 = group @core7 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core8 = group @core8 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core9 = group @core9 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core10 = group @core10 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core11 = group @core11 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core12 = group @core12 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core13 = group @core13 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core14 = group @core14 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core15 = group @core15 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core16 = group @core16 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core17 = group @core17 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core18 = group @core18 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core19 = group @core19 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core20 = group @core20 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core21 = group @core21 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core22 = group @core22 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core23 = group @core23 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core24 = group @core24 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core25 = group @core25 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core26 = group @core26 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core27 = group @core27 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core28 = group @core28 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core29 = group @core29 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core30 = group @core30 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  %core31 = group @core31 {kind = "core"} share(%hbm) {
    %lx = memory #LX
    %load = exec_unit #DMA_LOAD
    %store = exec_unit #DMA_STORE
    %pt = exec_unit #PT
    datapath #HBM_LINK %hbm to %load : memory, exec_unit
    datapath #LX_LINK %load to %lx : exec_unit, memory
    datapath #LX_LINK %lx to %store : memory, exec_unit
    datapath #HBM_LINK %store to %hbm : exec_unit, memory
    datapath %lx to %pt : memory, exec_unit
    datapath %pt to %lx : exec_unit, memory
    yield %pt
  } -> exec_unit

  // The ring: core i to core i + 1, the last to the first.
  datapath #RING %core0 to %core1 : exec_unit, exec_unit
  datapath #RING %core1 to %core2 : exec_unit, exec_unit
  datapath #RING %core2 to %core3 : exec_unit, exec_unit
  datapath #RING %core3 to %core4 : exec_unit, exec_unit
  datapath #RING %core4 to %core5 : exec_unit, exec_unit
  datapath #RING %core5 to %core6 : exec_unit, exec_unit
  datapath #RING %core6 to %core7 : exec_unit, exec_unit
  datapath #RING %core7 to %core8 : exec_unit, exec_unit
  datapath #RING %core8 to %core9 : exec_unit, exec_unit
  datapath #RING %core9 to %core10 : exec_unit, exec_unit
  datapath #RING %core10 to %core11 : exec_unit, exec_unit
  datapath #RING %core11 to %core12 : exec_unit, exec_unit
  datapath #RING %core12 to %core13 : exec_unit, exec_unit
  datapath #RING %core13 to %core14 : exec_unit, exec_unit
  datapath #RING %core14 to %core15 : exec_unit, exec_unit
  datapath #RING %core15 to %core16 : exec_unit, exec_unit
  datapath #RING %core16 to %core17 : exec_unit, exec_unit
  datapath #RING %core17 to %core18 : exec_unit, exec_unit
  datapath #RING %core18 to %core19 : exec_unit, exec_unit
  datapath #RING %core19 to %core20 : exec_unit, exec_unit
  datapath #RING %core20 to %core21 : exec_unit, exec_unit
  datapath #RING %core21 to %core22 : exec_unit, exec_unit
  datapath #RING %core22 to %core23 : exec_unit, exec_unit
  datapath #RING %core23 to %core24 : exec_unit, exec_unit
  datapath #RING %core24 to %core25 : exec_unit, exec_unit
  datapath #RING %core25 to %core26 : exec_unit, exec_unit
  datapath #RING %core26 to %core27 : exec_unit, exec_unit
  datapath #RING %core27 to %core28 : exec_unit, exec_unit
  datapath #RING %core28 to %core29 : exec_unit, exec_unit
  datapath #RING %core29 to %core30 : exec_unit, exec_unit
  datapath #RING %core30 to %core31 : exec_unit, exec_unit
  datapath #RING %core31 to %core0 : exec_unit, exec_unit
}
