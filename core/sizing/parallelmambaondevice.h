#pragma once
// Falcon-H1 (attention beside Mamba-2 in every layer, then a gated FFN) with every block on one
// Vulkan GPU, with flash attention: the GPU's compute buffer. In ggml-vulkan's node order the
// attention's output waits while the SSM runs, and x * D is computed before the scan. Read from
// the server's own plan on lavapipe (scripts/alloc-plan/run-case.sh falcon_h1_ngl_all_np1_faon:
// "Vulkan0 compute buffer size = 30.58 MiB"); graph: src/models/falcon-h1.cpp and
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
    std::uint32_t blocks = 0;
};

// The shape of a falcon-h1 model with one cache; nullopt otherwise.
std::optional<ParallelMambaShape> parallelMambaShape(const ModelInfo& model, const KvPlan& kv);

// `outputs` = the output rows the reserve asks for.
std::uint64_t parallelMambaDeviceBytes(const ParallelMambaShape& shape, std::uint32_t ubatchTokens,
                                       std::uint32_t sequences, std::uint32_t outputs);

} // namespace llamafit
