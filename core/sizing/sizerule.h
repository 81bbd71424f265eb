#pragma once
// SizeRule: why a number is what it is -- the llama.cpp rule behind one buffer of a
// MemoryEstimate or one term of a machine pool (poolusage.h), as an id plus the numbers and
// names its sentence needs. The core only records it; the front ends word it (the CLI in
// English, app/cli/ruletext.h; the GUI with tr(), ui/charts/ruletext.h), so the Japanese window
// is Japanese. sizeRuleSource() is the llama.cpp source the rule restates: a path, not wording.

#include "core/gguf/ggmltype.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llamafit {

enum class SizeRuleId {
    // A device's model buffers (core/sizing/weightplacement.cpp); SizeRule::tiedOutput applies.
    OffloadedWeights,    // a GPU's weights: blocks and the output layer placed by -ngl/-ts/-ot
    MappedHostWeights,   // CPU_Mapped: the GGUF file mapped (page cache)
    RepackedHostWeights, // CPU_REPACK: matmul weights repacked for the CPU kernels
    CopiedHostWeights,   // CPU: weights read into RAM (-lm none)
    PinnedHostWeights,   // CUDA_Host and the like: weights in the first GPU's pinned host buffer
    // The other buffers (core/sizing/estimator.cpp).
    Logits,               // the output buffer
    KvCache,              // swa, cells, streams, typeK, typeV
    RecurrentState,       // cells (rows per recurrent layer)
    ComputeGraph,         // a compute buffer: ggml-alloc's worst-case graph
    TokenEmbeddingLookup, // the host compute buffer when every block is offloaded
    // The vision projector (core/sizing/projectorbuffers.cpp).
    ProjectorWeights, // every tensor of the --mmproj file, read into its backend's buffer
    ProjectorCompute, // the warm-up graph of one image (cells: its side in pixels)
    // Machine pool terms (core/machine/poolusage.cpp, hostterms.cpp).
    DeviceBuffers,      // a device's buffers of one component in its pool; hostDevice
    HostReservation,    // system RAM the OS and other programs use
    GpuReservation,     // VRAM the desktop and other GPU users hold
    SharedMemoryCopy,   // a shared/GTT pool's buffers counted again in system RAM; pool
    MmapDoubleMapping,  // an iGPU's weights held a second time by the page cache
    PromptCache,        // --cache-ram: limitMiB
    ContextCheckpoints, // --ctx-checkpoints: perSlot, slotCount
};

struct SizeRule {
    SizeRuleId id = SizeRuleId::OffloadedWeights;
    // What the sentence of `id` needs; the ids above say which fields they read.
    bool tiedOutput = false;        // weights: the buffer also holds the tied output (token_embd again)
    bool swa = false;               // KvCache: the sliding-window cache
    std::uint32_t cells = 0;        // KvCache: cells per stream; RecurrentState: rows per layer
    std::uint32_t streams = 0;      // KvCache
    GgmlType typeK = GgmlType::F16; // KvCache
    GgmlType typeV = GgmlType::F16; // KvCache
    bool hostDevice = false;        // DeviceBuffers: the host device ("CPU"), not a GPU
    std::string pool{};             // SharedMemoryCopy: the shared pool's name
    std::int64_t limitMiB = 0;      // PromptCache: --cache-ram (-1: no limit)
    std::uint32_t perSlot = 0;      // ContextCheckpoints: --ctx-checkpoints
    std::uint32_t slotCount = 0;    // ContextCheckpoints: slots holding them
    bool operator==(const SizeRule&) const = default;
};

// The llama.cpp source the rule restates ("src/llama-kv-cache.cpp"), empty where the rule is
// LlamaFit's own bookkeeping (DeviceBuffers, reservations, shared-memory copies) or the
// sentence cites several sources itself (MmapDoubleMapping, PromptCache, ContextCheckpoints).
std::string_view sizeRuleSource(SizeRuleId id);

} // namespace llamafit
