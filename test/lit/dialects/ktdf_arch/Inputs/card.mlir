// A two-core device for the ktdf_arch and --device tests.
ktdf_arch.device @imported attributes {mem_space_mapping = #ktdf_arch.map<#ktdp.memory_space<global> = "HBM", #ktdp.memory_space<ct_local> = "LX">} {
  %hbm = memory {kind = "HBM"}
  group {kind = "core"} share(%hbm) {
    %lx = memory {kind = "LX", size = 65536}
    %dma = exec_unit {ktdf_arch.features = {ktdf_arch.feature.load = {word_size = #ktdf_arch.map<"HBM" = 64>, access_granularity = #ktdf_arch.map<"HBM" = [{size_in_words = 1, align_in_words = 1}]>}}}
    datapath {ktdf_arch.transfer_granularity = array<i64: 64>} %hbm to %dma : memory, exec_unit
    datapath %dma to %lx : exec_unit, memory
  }
  group {kind = "core"} share(%hbm) {
    %lx = memory {kind = "LX", size = 65536}
    %dma = exec_unit {ktdf_arch.features = {ktdf_arch.feature.load = {word_size = #ktdf_arch.map<"HBM" = 64>, access_granularity = #ktdf_arch.map<"HBM" = [{size_in_words = 1, align_in_words = 1}]>}}}
    datapath {ktdf_arch.transfer_granularity = array<i64: 64>} %hbm to %dma : memory, exec_unit
    datapath %dma to %lx : exec_unit, memory
  }
}
