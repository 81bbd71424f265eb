#pragma once
// Falcon-H1 (attention beside Mamba-2 in every layer, then a gated FFN) with every block on one
// Vulkan GPU: the GPU's compute buffer. In ggml-vulkan's node order the attention's output waits
// while the SSM runs, and x * D is computed before the scan; without flash attention KQ (which the
// GPU must accept) is taken before ssm_in and dies before the conv. Read from the server's own
// plans on lavapipe (scripts/alloc-plan/run-case.sh falcon_h1_ngl_all_np1_faon: "Vulkan0 compute
// buffer size = 30.58 MiB", falcon_h1_ngl_all_np1_faoff: 91.06); graph: src/models/falcon-h1.cpp and
// build_mamba2_layer in src/models/mamba-base.cpp. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/recurrentcompute.h"

#include <cstdint>
#include <optional>

namespace llamafit {

struct ParallelMambaShape {
    RecurrentBlockShape ssm;       // its Mamba-2 block; parallelQueryValues/KvValues the attention's
    std::uint64_t feedForward = 0; // n_ff
    std::uint64_t maskCells = 0;   // the KV cache's cells per stream
    std::uint64_t heads = 0;       // the attention's n_head
    std::uint64_t valueRow = 0;    // n_head_kv * head_dim_v: the V row the store indexes without FA
    bool flashAttention = true;
    std::uint32_t blocks = 0;
};

// The shape of a falcon-h1 model with one cache; nullopt otherwise.
std::optional<ParallelMambaShape> parallelMambaShape(const ModelInfo& model, const KvPlan& kv,
                                                     bool flashAttention);

// `outputs` = the output rows the reserve asks for.
std::uint64_t parallelMambaDeviceBytes(const ParallelMambaShape& shape, std::uint32_t ubatchTokens,
                                       std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit
