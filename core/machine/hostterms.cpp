// Host-RAM terms outside llama.cpp's buffers; see hostterms.h.
#include "core/machine/hostterms.h"

#include "core/common/units.h"
#include "core/sizing/layerplacement.h"

#include <algorithm>

namespace llamafit {

namespace {

// Model bytes the estimate put on integrated GPUs: the part the page cache holds a second time.
std::uint64_t integratedGpuModelBytes(const MemoryEstimate& estimate, const std::vector<GpuDevice>& gpus) {
    std::uint64_t bytes = 0;
    for (const DeviceEstimate& device : estimate.devices) {
        const bool integrated = std::any_of(gpus.begin(), gpus.end(), [&](const GpuDevice& gpu) {
            return gpu.integrated && gpu.name == device.name;
        });
        if (!device.host && integrated) {
            bytes += device.bytes.modelBytes;
        }
    }
    return bytes;
}

} // namespace

std::uint64_t checkpointBytesPerSlot(const MemoryEstimate& estimate, const ServerSettings& settings) {
    const std::uint64_t slots = std::max<std::uint32_t>(1, estimate.context.nSeqMax);
    // llama.cpp src/llama-memory-hybrid.cpp state_write: PARTIAL_ONLY skips the attention cache
    // and writes the recurrent state of the sequence (src/llama-memory-recurrent.cpp: its rows).
    std::uint64_t bytes = (estimate.rs.rBytes + estimate.rs.sBytes) / slots;
    // src/llama-kv-cache-iswa.cpp state_write: PARTIAL_ONLY writes only the SWA cache. One
    // sequence holds at most its share of the SWA cells (n_swa + n_ubatch per sequence).
    // tools/server/server-context.cpp: with --swa-full there is nothing to checkpoint for SWA.
    if (!settings.swaFull) {
        for (const KvCacheEstimate& cache : estimate.kvCaches) {
            if (cache.swa) {
                bytes += (cache.kBytes + cache.vBytes) / slots;
            }
        }
    }
    return bytes;
}

std::vector<HostTerm> hostTerms(const MemoryEstimate& estimate, const ServerSettings& settings,
                                const ModelInfo& model, const std::vector<GpuDevice>& gpus) {
    std::vector<HostTerm> terms;

    const std::uint64_t igpuModel = integratedGpuModelBytes(estimate, gpus);
    if (igpuModel > 0 && weightsMapped(settings, gpus)) {
        // src/llama-model-loader.cpp load_all_data reads the GPU's weights through the mapping and
        // unmap_fragment drops the mapping, not the cached pages (llama.cpp PR #16095 comment,
        // whyvl/ollama-vulkan#18); -lm none avoids it (ggml-vulkan.cpp mmap_support=false).
        terms.push_back(HostTerm{HostTermKind::MmapPageCache, igpuModel, false, false,
                                 SizeRule{.id = SizeRuleId::MmapDoubleMapping}});
    }

    // tools/server/server-context.cpp load_model: server_prompt_cache(cache_ram_mib, n_ctx); the
    // cached prompt states are host vectors that grow up to the limit as requests come in.
    if (settings.cacheRamMiB != 0) {
        HostTerm cache{HostTermKind::PromptCache,
                       settings.cacheRamMiB > 0 ? static_cast<std::uint64_t>(settings.cacheRamMiB) * kMiB : 0,
                       true, settings.cacheRamMiB < 0,
                       SizeRule{.id = SizeRuleId::PromptCache, .limitMiB = settings.cacheRamMiB}};
        terms.push_back(cache);
    }

    // tools/server/server-context.cpp: checkpoints are made when the memory cannot roll back
    // (recurrent/hybrid) or the model has SWA layers; create_checkpoint keeps at most
    // --ctx-checkpoints per slot, each a PARTIAL_ONLY copy of the slot's state.
    const std::uint64_t perCheckpoint = checkpointBytesPerSlot(estimate, settings);
    const bool checkpoints =
        model.hasRecurrentLayers() || (model.hasSlidingWindowLayers() && !settings.swaFull);
    if (settings.contextCheckpoints > 0 && checkpoints && perCheckpoint > 0) {
        const std::uint64_t slots = std::max<std::uint32_t>(1, estimate.context.nSeqMax);
        const std::uint64_t count = static_cast<std::uint64_t>(settings.contextCheckpoints) * slots;
        terms.push_back(HostTerm{HostTermKind::ContextCheckpoints, count * perCheckpoint, true, false,
                                 SizeRule{.id = SizeRuleId::ContextCheckpoints,
                                          .perSlot = static_cast<std::uint32_t>(settings.contextCheckpoints),
                                          .slotCount = static_cast<std::uint32_t>(slots)}});
    }
    return terms;
}

} // namespace llamafit
