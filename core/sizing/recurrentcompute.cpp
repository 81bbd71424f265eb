// Which replay a model gets and the dimensions it reads. Dimensions llama.cpp takes from keys
// ModelInfo does not keep (Mamba-2 heads, Mamba-1 dt rank, RWKV-7 LoRA ranks) are read from the
// tensors that carry them, as the model loaders check them (src/models/<arch>.cpp).
#include "core/sizing/recurrentcompute.h"

#include "core/sizing/recurrentreplay.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <string_view>

namespace llamafit {
namespace {

RecurrentBlockKind kindOf(std::string_view arch) {
    if (arch == "mamba" || arch == "jamba") {
        return RecurrentBlockKind::Mamba1;
    }
    if (arch == "mamba2" || arch == "granitehybrid" || arch == "nemotron_h" || arch == "nemotron_h_moe" ||
        arch == "falcon-h1") {
        return RecurrentBlockKind::Mamba2;
    }
    if (arch == "qwen35" || arch == "qwen35moe") {
        return RecurrentBlockKind::DeltaNet;
    }
    if (arch == "qwen3next") {
        return RecurrentBlockKind::DeltaNetFusedQkvz;
    }
    if (arch == "rwkv7") {
        return RecurrentBlockKind::Rwkv7;
    }
    return RecurrentBlockKind::None;
}

// The tensors of one block, by the name after "blk.N.".
class BlockTensors {
  public:
    BlockTensors(const ModelInfo& model, int layer) : m_model(model), m_layer(layer) {}

    const TensorSummary* find(std::string_view suffix) const {
        const std::string prefix = "blk." + std::to_string(m_layer) + ".";
        for (const auto& tensor : m_model.tensors) {
            if (tensor.layer == m_layer && tensor.name.size() == prefix.size() + suffix.size() &&
                std::string_view(tensor.name).substr(prefix.size()) == suffix) {
                return &tensor;
            }
        }
        return nullptr;
    }
    std::uint64_t rowValues(std::string_view suffix) const {
        const TensorSummary* tensor = find(suffix);
        return tensor ? tensor->rowValues : 0;
    }
    std::uint64_t rows(std::string_view suffix) const {
        const TensorSummary* tensor = find(suffix);
        return tensor ? tensor->rows() : 0;
    }

  private:
    const ModelInfo& m_model;
    int m_layer;
};

int firstRecurrentLayer(const ModelInfo& model, int from) {
    for (std::size_t il = static_cast<std::size_t>(from); il < model.layers.size(); ++il) {
        if (model.layers[il].recurrent && !model.layers[il].nextn) {
            return static_cast<int>(il);
        }
    }
    return -1;
}

bool complete(const RecurrentBlockShape& s) {
    switch (s.kind) {
    case RecurrentBlockKind::Mamba1:
        return s.inner > 0 && s.state > 0 && s.convKernel > 0 && s.dtRank > 0;
    case RecurrentBlockKind::Mamba2:
    case RecurrentBlockKind::DeltaNet:
    case RecurrentBlockKind::DeltaNetFusedQkvz:
        return s.inner > 0 && s.state > 0 && s.convKernel > 0 && s.groups > 0 && s.heads > 0;
    case RecurrentBlockKind::Rwkv7:
        return s.headSize > 0 && s.embd % s.headSize == 0 && s.feedForward > 0;
    case RecurrentBlockKind::None:
        return false;
    }
    return false;
}

} // namespace

RecurrentBlockShape recurrentBlockShape(const ModelInfo& model) {
    RecurrentBlockShape s;
    const int layer = firstRecurrentLayer(model, 0);
    if (layer < 0) {
        return s;
    }
    s.kind = kindOf(model.architecture);
    s.embd = model.embeddingLength;
    s.inner = model.ssmInnerSize;
    s.state = model.ssmStateSize;
    s.groups = model.ssmGroupCount;
    s.convKernel = model.ssmConvKernel;
    // mamba.cpp / mamba2.cpp: every block is the SSM block alone.
    s.layers = model.architecture == "mamba" || model.architecture == "mamba2" ? 2 : 1;
    const BlockTensors tensors(model, layer);
    const LayerInfo& info = model.layers[static_cast<std::size_t>(layer)];
    switch (s.kind) {
    case RecurrentBlockKind::Mamba1:
        s.dtRank = tensors.rowValues("ssm_dt.weight"); // {dt_rank, d_inner}
        s.normedDtBc = tensors.find("ssm_dt_norm.weight") != nullptr;
        break;
    case RecurrentBlockKind::Mamba2:
    case RecurrentBlockKind::DeltaNet:
    case RecurrentBlockKind::DeltaNetFusedQkvz:
        s.heads = tensors.rowValues("ssm_dt.bias"); // {n_head}: ssm.time_step_rank
        if (model.architecture == "falcon-h1") {
            s.parallelQueryValues = std::uint64_t{info.headCount} * info.keyHeadDim;
            s.parallelKvValues = std::uint64_t{info.headCountKv} * info.keyHeadDim;
        }
        break;
    case RecurrentBlockKind::Rwkv7: {
        // The second block's ranks: block 0 uses the iclr rank for its value LoRA.
        const int second = std::max(firstRecurrentLayer(model, layer + 1), layer);
        const BlockTensors later(model, second);
        s.headSize = s.embd > 0 ? info.recurrentStateWidth / s.embd : 0; // n_embd_s = n_embd * head_size
        s.decayLora = later.rows("time_mix_w1.weight");
        s.iclrLora = later.rows("time_mix_a1.weight");
        s.valueLora = later.rows("time_mix_v1.weight");
        s.gateLora = later.rows("time_mix_g1.weight");
        s.feedForward = later.rows("channel_mix_key.weight");
        break;
    }
    case RecurrentBlockKind::None:
        break;
    }
    if (!complete(s)) {
        return RecurrentBlockShape{};
    }
    return s;
}

std::uint64_t recurrentBlockBytes(const RecurrentBlockShape& shape, std::uint32_t ubatchTokens,
                                  std::uint32_t sequences, std::uint32_t stateRowsPerSequence) {
    if (shape.kind == RecurrentBlockKind::None || ubatchTokens == 0) {
        return 0;
    }
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    r.stateRows = r.seqs * std::max<std::uint64_t>(stateRowsPerSequence, 1);
    const AllocatorReplay::Block embeddings = replayGraphStart(r, shape.embd);
    switch (shape.kind) {
    case RecurrentBlockKind::Mamba1:
        replayMamba1(r, shape);
        break;
    case RecurrentBlockKind::Mamba2:
        if (shape.parallelQueryValues > 0) {
            replayParallelAttention(r, shape);
        }
        replayMamba2(r, shape, embeddings);
        break;
    case RecurrentBlockKind::DeltaNet:
        replayDeltaNet(r, shape);
        break;
    case RecurrentBlockKind::DeltaNetFusedQkvz:
        replayDeltaNetFusedQkvz(r, shape);
        break;
    case RecurrentBlockKind::Rwkv7:
        replayRwkv7(r, shape, embeddings);
        break;
    case RecurrentBlockKind::None:
        break;
    }
    // The token ids and the slot bytes of replayGraphStart (16 per token) are graph inputs, which
    // computebuffer.cpp counts itself.
    return r.alloc.peakBytes() - 16 * r.tokens;
}

} // namespace llamafit
