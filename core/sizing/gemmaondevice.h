#pragma once
// Gemma 3 (sliding-window and global layers, Q and K norms, post norms, a GEGLU FFN) with every block on
// one Vulkan GPU, without flash attention, when the GPU accepts each layer's KQ: the GPU's compute
// buffer. Each layer's KQ (its cache's cells x tokens x n_head, f32) takes the hole the previous FFN left,
// and the FFN's gate, up and GLU stack above the graph inputs (both caches' row indices and f32 masks)
// and the attention's output projection. Read from the server's own plan on lavapipe
// (scripts/alloc-plan/run-case.sh gemma3_ngl_all_np1_faoff: "Vulkan0 compute buffer size = 63.77 MiB",
// where the closed form said 61.77; with a q8_0 K's rotations, gemma3_ngl_all_np1_faoff_kq8_0: 64.27);
// graph: src/models/gemma3.cpp. Internal to core/sizing
// (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct GemmaShape {
    std::uint64_t embd = 0;
    std::uint64_t heads = 0;                  // n_head
    std::uint64_t queryValues = 0;            // n_head * head_dim per token
    std::uint64_t keyValues = 0;              // n_head_kv * head_dim
    std::uint64_t feedForward = 0;            // n_ff
    std::vector<std::uint64_t> maskCells;     // per cache (KvPlan order): cells per stream
    std::vector<std::size_t> layerCache;      // per block: its cache
    std::vector<std::uint64_t> rotationBytes; // per cache: a quantized K's rotation matrix (kvrotation.h)
    bool rotatedKeys = false;                 // Q and K rotated before KQ
};

// The shape of a gemma3 model without flash attention; nullopt otherwise, and for a quantized V cache
// (not read from a plan).
std::optional<GemmaShape> gemmaShape(const ModelInfo& model, const KvPlan& kv, const ServerSettings& settings,
                                     bool flashAttention);

// `tokens` = the reserve's token count; `outputs` = the output rows the reserve asks for.
std::uint64_t gemmaDeviceBytes(const GemmaShape& shape, std::uint64_t tokens, std::uint64_t outputs);

} // namespace llamafit
