#pragma once
// Host-side terms: memory llama-server takes from SYSTEM RAM that is not one of the buffers
// estimateMemory() sizes, and that matters on an APU where every byte comes out of one DRAM:
//   - the mmap double mapping: with mmap on an integrated GPU the weights copied into the GPU
//     buffer stay in the page cache too (the seed's reason for --no-mmap; -lm none in 0.7.0, and
//     the Vulkan iGPU default since ggml-vulkan reports mmap_support=false);
//   - the prompt cache (--cache-ram, default 8192 MiB): grows at run time, counted "up to";
//   - context checkpoints of hybrid/recurrent and SWA models (--ctx-checkpoints, default 32 per
//     slot), each the size of one slot's partial state (RS rows + SWA cells): "up to".
// The host device's own buffers (CPU weights, output buffer, host compute) are already in the
// estimate, and the OS's use is the pool's reservation (memorypools.h); placeOnMachine() puts
// all of them together. Pure; bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizerule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

enum class HostTermKind { MmapPageCache, PromptCache, ContextCheckpoints };

struct HostTerm {
    HostTermKind kind = HostTermKind::PromptCache;
    std::uint64_t bytes = 0; // at load, or the bound for upTo terms
    bool upTo = false;       // grows at run time up to `bytes`; absent right after load
    bool unbounded = false;  // no limit at all (--cache-ram -1): grows until memory runs out
    SizeRule rule;           // what it is and the llama.cpp source behind it, for the front ends to word
    bool operator==(const HostTerm&) const = default;
};

// One slot's checkpoint: the state llama_state_seq_get_data writes with
// LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY -- the recurrent rows of one sequence plus its SWA cells;
// 0 for models that never checkpoint (plain full-attention transformers, or --swa-full).
std::uint64_t checkpointBytesPerSlot(const MemoryEstimate& estimate, const ServerSettings& settings);

std::vector<HostTerm> hostTerms(const MemoryEstimate& estimate, const ServerSettings& settings,
                                const ModelInfo& model, const std::vector<GpuDevice>& gpus);

} // namespace llamafit
