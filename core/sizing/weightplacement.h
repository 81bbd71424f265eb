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
#include "core/sizing/sizerule.h"
#include "core/sizing/weightclass.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct WeightBuffer {
    int device = kHostDevice;
    std::string bufferType; // as the log names it: "CPU_Mapped", "CPU_REPACK", "CPU", "CUDA_Host", "CUDA0"
    std::uint64_t bytes = 0;
    SizeRule rule;
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

// The same plan from groupWeights(model) (weightclass.h): per group, or per tensor when -ot
// patterns need the names. Same errors.
Result<WeightPlan> placeWeights(const ModelInfo& model, const WeightGroups& groups,
                                const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                                const LayerPlacement& layers);

// One weight's buffer, as the graph builders need it for their leafs (core/sizing/graph).
struct TensorBuffer {
    int device = kHostDevice;
    std::string bufferType; // as the log names it
    bool operator==(const TensorBuffer&) const = default;
};

// Where each weight lives, tensor by tensor: `tensors[i]` is model.tensors[i]'s buffer, and
// `tiedOutput` the buffer of the tied output's own copy of token_embd (nullopt where the output
// reads token_embd itself). The same rules as placeWeights; the same errors.
// `ropeFactors[il]` the buffer of layer il's copy of rope_freqs.weight (tensorroles.h
// isPerLayerCopiedWeight; empty where the model has none): each layer reads the copy in its own
// buffer type.
struct TensorPlacements {
    std::vector<TensorBuffer> tensors;
    std::optional<TensorBuffer> tiedOutput;
    std::vector<TensorBuffer> ropeFactors;
    bool operator==(const TensorPlacements&) const = default;
};
Result<TensorPlacements> placeEachWeight(const ModelInfo& model, const ServerSettings& settings,
                                         const std::vector<GpuDevice>& gpus, const LayerPlacement& layers);

} // namespace llamafit
