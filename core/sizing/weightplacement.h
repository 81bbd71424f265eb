#pragma once
// Weight placement: which llama.cpp buffer each tensor of the model lands in, summed per
// device and buffer type ("CPU_Mapped", "CPU_REPACK", "CUDA0", ...), with the rule that put
// it there. Internal to core/sizing (estimator.cpp); restates llama.cpp
// src/llama-model-loader.cpp create_tensor / select_weight_buft. Bytes are tensor bytes
// (ggml_nbytes), which is what the model buffer lines of the log sum.

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct WeightBuffer {
    int device = kHostDevice;
    std::string bufferType; // as the log names it: "CPU_Mapped", "CPU_REPACK", "CPU", "CUDA_Host", "CUDA0"
    std::uint64_t bytes = 0;
    std::string rule;
    bool operator==(const WeightBuffer&) const = default;
};

struct WeightPlan {
    std::vector<WeightBuffer> buffers; // one entry per (device, buffer type), in first-use order
    // The largest block weight left in host memory while GPUs are present: the scheduler copies
    // it into the GPU compute buffer to run big batches there (op offload).
    std::uint64_t largestHostBlockWeightBytes = 0;
    bool operator==(const WeightPlan&) const = default;
};

// Errors: settings.bad-value for a -ot pattern that is not a valid regex or names an unknown
// buffer type.
Result<WeightPlan> placeWeights(const ModelInfo& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const LayerPlacement& layers);

// --cpu-moe's pattern (common/common.h LLM_FFN_EXPS_REGEX) as regex_search would match it; with
// a block, --n-cpu-moe's "blk\\.<block>" variant. Tested against std::regex by the unit tests.
bool matchesExpertsPattern(std::string_view name, std::optional<std::uint32_t> block);

// Whether the haswell CPU backend repacks this weight into CPU_REPACK (tested by the unit tests).
bool cpuRepacks(const TensorSummary& tensor);

} // namespace llamafit
