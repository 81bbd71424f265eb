// Pipeline-parallel copies. Every term names the runs it was measured on: the RPC matrix of
// tests/support/rpccases.cpp (qwen2, qwen3, gemma3, lfm2, granitehybrid, mamba2; -c 4096/8192,
// 1/4/auto slots, -fa on/off, f16/q8_0 caches, ubatch 512/1024), where a hidden-state row is
// R = n_embd x n_ubatch x 4 B.
#include "core/sizing/pipelinecopies.h"

#include "core/sizing/reservetokens.h"

#include <algorithm>

namespace llamafit {
namespace {

constexpr std::uint32_t kSchedMaxCopies = 4; // ggml/src/ggml-backend.cpp GGML_SCHED_MAX_COPIES

// Without flash attention V is stored transposed and written element by element: the cache's
// v_idxs input is n_embd_v_gqa x n_ubatch int64 (src/llama-kv-cache.cpp build_input_v_idxs), for
// the widest V row of the cache's layers. One per cache.
std::uint64_t valueIndexBytes(const ModelInfo& model, const ResolvedContext& context, const KvPlan& kv) {
    if (context.flashAttention) {
        return 0;
    }
    std::uint64_t bytes = 0;
    for (const auto& cache : kv.caches) {
        std::uint64_t widest = 0;
        for (const auto& layer : model.layers) {
            if (layer.hasKv && layer.inSwaCache() == cache.swa) {
                widest =
                    std::max<std::uint64_t>(widest, std::uint64_t{layer.headCountKv} * layer.valueHeadDim);
            }
        }
        bytes += widest * reserveTokens(context) * 8;
    }
    return bytes;
}

// Attention and recurrent blocks in one model (granitehybrid, lfm2): with flash attention their
// one-copy figure has a hidden-state row of slack that the first extra copy fills (measured: 11 R
// on the first device and 2 R on the next where attention-only and recurrent-only models take
// 12 R and 3 R; without flash attention lfm2 takes 12 R and 3 R too).
bool isHybrid(const ModelInfo& model) {
    const bool recurrent = std::any_of(model.layers.begin(), model.layers.end(),
                                       [](const LayerInfo& layer) { return layer.recurrent; });
    const bool attention = std::any_of(model.layers.begin(), model.layers.end(),
                                       [](const LayerInfo& layer) { return layer.hasKv; });
    return recurrent && attention;
}

// A device whose first block is a Mamba-2 block. src/llama-graph.cpp build_rs expands the copy of
// the states it does not update into the graph when the block is built, before the rest of the
// previous block, which only enters the graph with the block's own state write-back
// (ggml_build_forward_expand). The copy's destination is in the new device's RS buffer, so the
// scheduler (ggml-backend.cpp: a view of an allocated buffer runs on that buffer's backend) goes
// previous device -> new device -> previous device -> new device: two more splits ("splits = 5"
// where an attention block at the border gives 3). Measured at 4 copies with R = 1.5 MiB:
// granitehybrid -ts 3,1 (border before block 25) 12.00 MiB more on the previous device and 26.34
// on the new one, mamba2 -ts 1,1 next to Vulkan0 12.00 and 27.15, where the Mamba-2 input
// projection (2 d_inner + 2 n_group d_state + n_head floats a token) is 6.59 MiB a copy.
void addMamba2Boundaries(PipelineCopyBytes& out, const ModelInfo& model, const RecurrentBlockShape& block,
                         const LayerPlacement& layers, std::uint64_t copies, std::uint64_t row) {
    if (block.kind != RecurrentBlockKind::Mamba2) {
        return;
    }
    const std::uint64_t tokens = row / 4 / std::max<std::uint64_t>(model.embeddingLength, 1);
    const std::uint64_t inputProjection =
        tokens * 4 * (2 * block.inner + 2 * block.groups * block.state + block.heads);
    for (std::size_t il = 1; il < layers.layerDevice.size() && il < model.layers.size(); ++il) {
        const int previous = layers.layerDevice[il - 1];
        const int device = layers.layerDevice[il];
        if (device == previous || device == kHostDevice || previous == kHostDevice ||
            !model.layers[il].recurrent) {
            continue;
        }
        out.deviceBytes[static_cast<std::size_t>(previous)] += copies * 2 * row;
        out.deviceBytes[static_cast<std::size_t>(device)] += copies * inputProjection;
    }
}

} // namespace

std::uint32_t schedulerCopies(const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                              const LayerPlacement& layers) {
    const bool allOffloaded = layers.outputDevice != kHostDevice &&
                              std::none_of(layers.layerDevice.begin(), layers.layerDevice.end(),
                                           [](int device) { return device == kHostDevice; });
    const bool overrides = !settings.tensorOverrides.empty() || settings.cpuMoe || settings.cpuMoeLayers > 0;
    const bool parallel = gpus.size() > 1 && allOffloaded && settings.kvOffload && !overrides;
    return parallel ? kSchedMaxCopies : 1;
}

PipelineCopyBytes pipelineCopyBytes(const ModelInfo& model, const RecurrentBlockShape& recurrentBlock,
                                    const ResolvedContext& context, const KvPlan& kv,
                                    const LayerPlacement& layers, std::size_t gpuCount,
                                    std::uint32_t copies) {
    PipelineCopyBytes out;
    out.deviceBytes.assign(gpuCount, 0);
    if (copies <= 1 || layers.layerDevice.empty()) {
        return out;
    }
    const std::uint64_t extra = copies - 1;
    const std::uint64_t row = reserveTokens(context) * model.embeddingLength * 4;
    const std::uint64_t valueIndices = valueIndexBytes(model, context, kv);

    // Host: the graph inputs' extra copies: the embedding input and the token lookup it is mixed
    // with (2 R; measured 6 R at 4 copies on every shape, fa on or off), and without flash
    // attention each cache's v_idxs (qwen3 -fa off: +12.00 MiB = 3 x 4 MiB). The masks' copies are
    // in gpucompute's host inputs already.
    out.hostBytes = extra * (2 * row + valueIndices);

    // Devices: the first block's device receives the token embeddings and their mix from the host
    // (4 R a copy: 12 R measured on qwen2, qwen3, gemma3, mamba2 with the first device anywhere in
    // the -ts order); every later device the previous one's hidden state (1 R a copy: 3 R). Both
    // read the v_idxs of their caches without flash attention.
    const int firstDevice = layers.layerDevice.front();
    const std::uint64_t hybridSlack = isHybrid(model) && context.flashAttention ? row : 0;
    for (std::size_t i = 0; i < gpuCount; ++i) {
        const int device = static_cast<int>(i);
        const bool runsBlocks = std::find(layers.layerDevice.begin(), layers.layerDevice.end(), device) !=
                                layers.layerDevice.end();
        if (!runsBlocks) {
            continue;
        }
        const std::uint64_t rows = device == firstDevice ? 4 * row : row;
        const std::uint64_t bytes = extra * (rows + valueIndices);
        out.deviceBytes[i] = bytes - std::min(bytes, hybridSlack);
    }
    addMamba2Boundaries(out, model, recurrentBlock, layers, copies, row);
    return out;
}

std::uint64_t outputSplitComputeBytes(const ModelInfo& model, const ResolvedContext& context,
                                      std::uint32_t copies, bool logitsHere) {
    const std::uint64_t outputs = std::min<std::uint64_t>(context.nOutputs, reserveTokens(context));
    const std::uint64_t rowBytes = outputs * model.embeddingLength * 4;
    // The copies of the incoming rows, the output norm, and the logits [n_vocab, n_outputs] f32.
    return (copies + 1) * rowBytes + (logitsHere ? std::uint64_t{model.vocabularySize} * outputs * 4 : 0);
}

std::int64_t splitInputAdjustmentBytes(const ComputeBreakdown& block, const ModelInfo& model,
                                       const ServerSettings& settings, const ResolvedContext& context,
                                       const LayerPlacement& layers, int device) {
    bool attention = false;
    bool hostBlocks = false;
    for (std::size_t il = 0; il < layers.layerDevice.size() && il < model.layers.size(); ++il) {
        attention = attention || (layers.layerDevice[il] == device && model.layers[il].hasKv);
        hostBlocks = hostBlocks || layers.layerDevice[il] == kHostDevice;
    }
    const auto row = static_cast<std::int64_t>(reserveTokens(context) * model.embeddingLength * 4);
    std::int64_t bytes = attention ? 0 : -static_cast<std::int64_t>(block.maskBytes);
    if (hostBlocks) {
        bytes -= 2 * row;
    }
    const bool firstBlocks = !layers.layerDevice.empty() && layers.layerDevice.front() == device;
    if (!settings.kvOffload && firstBlocks) {
        bytes += row;
    }
    return bytes;
}

} // namespace llamafit
