// MTP / NextN sizing; see mtpcontext.h for the rules and their llama.cpp sources.
#include "core/sizing/mtpcontext.h"

#include "core/sizing/computebuffer.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/mtpgraph.h"

#include <algorithm>

namespace llamafit {
namespace {

bool isNextnTensor(const ModelInfo& model, const TensorSummary& tensor) {
    return tensor.layer >= 0 && static_cast<std::uint32_t>(tensor.layer) >= model.trunkLayerCount() &&
           static_cast<std::uint32_t>(tensor.layer) < model.blockCount;
}

// The NextN blocks as a model of their own: the graph the MTP context reserves runs only them
// (src/models/qwen35moe.cpp graph_mtp: one full-attention block with the MoE FFN, then the
// shared output head), and its KV cache holds only them (src/llama-model.cpp create_memory
// for the MTP context type filters on il >= n_layer()).
ModelInfo nextnBlocksAsModel(const ModelInfo& model) {
    ModelInfo blocks = model;
    const std::uint32_t trunk = model.trunkLayerCount();
    blocks.blockCount = model.nextnLayerCount;
    blocks.nextnLayerCount = 0;
    blocks.ssmConvKernel = blocks.ssmInnerSize = blocks.ssmStateSize = blocks.ssmGroupCount = 0;
    blocks.layers.assign(model.layers.begin() + trunk, model.layers.end());
    for (LayerInfo& layer : blocks.layers) {
        layer.nextn = false;
        layer.recurrent = false;
        layer.hasKv = layer.attention != AttentionKind::None;
    }
    blocks.tensors.clear();
    for (const TensorSummary& tensor : model.tensors) {
        if (tensor.layer < 0) {
            blocks.tensors.push_back(tensor);
        } else if (isNextnTensor(model, tensor)) {
            TensorSummary renumbered = tensor;
            renumbered.layer = tensor.layer - static_cast<int>(trunk);
            blocks.tensors.push_back(std::move(renumbered));
        }
    }
    return blocks;
}

} // namespace

bool buildsMtpContext(const ServerSettings& settings) {
    return settings.speculative.uses(SpeculativeType::DraftMtp);
}

Result<bool> checkMtpModel(const ModelInfo& model, const ServerSettings& settings) {
    if (buildsMtpContext(settings) && model.nextnLayerCount == 0) {
        // common/speculative.cpp: llama_init_from_model refuses the MTP context type ("model doesn't
        // contain MTP layers") and llama-server exits with "failed to create MTP context".
        return makeError(
            "settings.unsupported",
            "--spec-type draft-mtp needs a model with NextN/MTP layers (nextn_predict_layers > 0); " +
                model.name + " has none, and llama-server refuses it (\"failed to create MTP context\")",
            {Setting::SpeculativeType}, "--spec-type");
    }
    return true;
}

bool skipsNextnTensors(const ModelInfo& model, const ServerSettings& settings) {
    return model.nextnLayerCount > 0 && !buildsMtpContext(settings);
}

ModelInfo withoutNextnTensors(const ModelInfo& model) {
    // src/llama-model.cpp create_tensor: a tensor of a block il >= n_layer() is TENSOR_SKIP unless
    // the MTP context was asked for, so the loader neither maps nor allocates it.
    ModelInfo trunk = model;
    std::erase_if(trunk.tensors, [&](const TensorSummary& tensor) { return isNextnTensor(model, tensor); });
    return trunk;
}

std::uint32_t mainRsSeq(const ServerSettings& settings) {
    // common/speculative.cpp: with an MTP draft the target context keeps n_rs_seq = draft.n_max
    // extra recurrent-state rows per sequence, so a rejected draft can roll the state back.
    return buildsMtpContext(settings) ? settings.speculative.draftMax : 0;
}

MtpContextBuffers sizeMtpContext(const ModelInfo& model, const ServerSettings& settings,
                                 const ResolvedContext& mainContext) {
    MtpContextBuffers out;
    // common/speculative.cpp common_speculative_init_result: the draft context copies the target's
    // cparams (n_ctx, n_seq_max, n_batch, flash attention), sets n_ubatch from --spec-draft-n-ubatch
    // when given, and asks for one output per sequence with no RS rows.
    out.context = mainContext;
    if (settings.speculative.draftUbatch > 0) {
        out.context.nUbatch = std::min(settings.speculative.draftUbatch, mainContext.nBatch);
    }
    out.context.nOutputs = mainContext.nSeqMax;
    out.context.nRsSeq = 0;
    ServerSettings draftSettings = settings;
    // --spec-draft-type-k/v (-ctkd/-ctvd, f16 by default; common/common.h): the draft's cache
    // types, the same ones a -md draft model takes (draftmodel.h); measured at f16 only for MTP.
    draftSettings.cacheTypeK = settings.draftModel.cacheTypeK;
    draftSettings.cacheTypeV = settings.draftModel.cacheTypeV;
    draftSettings.ubatchTokens = out.context.nUbatch;
    // The quantized main V forces FA on there (llama-context.cpp), not in the F16 draft; -fa off holds.
    out.context.flashAttention =
        settings.flashAttention != FlashAttention::Off && model.architecture != "grok";

    const ModelInfo blocks = nextnBlocksAsModel(model);
    const KvPlan kv = sizeKvCaches(blocks, draftSettings, out.context);
    if (!kv.caches.empty()) {
        out.kv = kv.caches.front();
    }
    for (const std::uint64_t bytes : kv.layerBytes) {
        out.kvBytes += bytes;
    }
    // llama-context.cpp output_reserve: n_vocab f32 logits per output row, one per sequence.
    out.outputBytes = std::uint64_t{model.vocabularySize} * out.context.nSeqMax * 4;
    // The NextN graph as ggml-alloc plans it (mtpgraph.h); an architecture whose graph is not
    // written there falls back to the closed form over the NextN blocks as a model.
    const std::optional<std::uint64_t> graphBytes = mtpGraphBytes(model, out.context, out.kv);
    out.computeBytes =
        graphBytes
            ? *graphBytes
            : blockComputeBytes(blocks, draftSettings, out.context, kv, {Backend::Cpu, 1, 0}).totalBytes;
    return out;
}

} // namespace llamafit
