#pragma once
// ModelInfo: what the sizing core needs to know about a model, interpreted from the
// GGUF keys of its architecture (see modelinterpreter.h). Per layer: attention kind,
// KV heads and head dims, recurrent state widths; per tensor: role, type, bytes.
// Plain value type, produced once per model, read by sizing, the CLI and the GUI.
// Counts are plain integers, sizes are bytes (std::uint64_t).

#include "core/gguf/ggmltype.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class AttentionKind {
    None,          // no attention in this layer (recurrent-only or MLP-only layer)
    Full,          // dense causal attention over the whole context
    SlidingWindow, // attends to the last n_swa tokens (llama.cpp LLAMA_SWA_TYPE_STANDARD)
    Chunked,       // Llama-4 chunked attention (LLAMA_SWA_TYPE_CHUNKED), sized like SWA
};

struct LayerInfo {
    AttentionKind attention = AttentionKind::Full;
    bool hasKv =
        true; // allocates its own K/V in the main cache (false: shared-KV, recurrent, MLP-only, NextN)
    bool recurrent = false; // allocates recurrent state (RS buffer)
    bool nextn = false;     // MTP / NextN prediction layer, excluded from the main cache
    std::uint32_t headCount = 0;
    std::uint32_t headCountKv = 0;
    std::uint32_t keyHeadDim = 0;          // per head; SWA layers already use key_length_swa when present
    std::uint32_t valueHeadDim = 0;        // per head; 0 for MLA (V is a view of K)
    std::uint64_t recurrentConvWidth = 0;  // n_embd_r: floats per sequence (conv / token-shift state)
    std::uint64_t recurrentStateWidth = 0; // n_embd_s: floats per sequence (SSM / WKV state)
    std::uint32_t feedForwardLength = 0;   // n_ff of this layer (0 for attention-only / recurrent-only)
    // llama-model.cpp: sliding-window and chunked layers keep their K/V in the second (SWA) cache
    // of llama_kv_cache_iswa.
    bool inSwaCache() const {
        return attention == AttentionKind::SlidingWindow || attention == AttentionKind::Chunked;
    }
    bool operator==(const LayerInfo&) const = default;
};

enum class TensorRole {
    TokenEmbedding, // token_embd and other input-layer tensors: always on the CPU in llama.cpp
    Output,         // output.weight (or the duplicated token_embd of a tied model), output_norm
    Layer,          // blk.N.* of a repeating layer
    Other,          // anything else (e.g. rope frequencies, vision tower left in the file)
};

struct TensorSummary {
    std::string name;
    TensorRole role = TensorRole::Other;
    int layer = -1;      // block index for blk.N.*, else -1
    bool expert = false; // routed-expert tensor (ffn_*_exps): moved by --cpu-moe / --n-cpu-moe
    GgmlType type = GgmlType::F32;
    std::uint64_t bytes = 0;
    std::uint64_t rowValues = 0; // ne[0]
    // Its rows: ne[1] * ne[2] * ne[3], from the bytes and the row length; 0 without a row length.
    std::uint64_t rows() const;
    bool operator==(const TensorSummary&) const = default;
};

struct ModelInfo {
    std::string architecture;          // general.architecture, e.g. "qwen35moe"
    std::string name;                  // general.name, or the file name
    bool knownArchitecture = true;     // false: generic transformer rules were used (see warnings)
    std::vector<std::string> warnings; // assumptions made, for people

    std::uint32_t blockCount = 0;      // all blocks in the file, NextN layers included
    std::uint32_t nextnLayerCount = 0; // trailing MTP layers (n_layer() = blockCount - nextn)
    std::uint64_t trainingContext = 0;
    std::uint32_t embeddingLength = 0;
    std::uint32_t headCount = 0; // largest per-layer head count
    std::uint32_t vocabularySize = 0;
    std::uint32_t slidingWindow = 0; // n_swa, 0 if none
    bool mla = false;                // multi-head latent attention: K only, V is a view of K
    bool tiedOutput = false;         // no output.weight: token_embd is duplicated on the output device
    std::uint32_t expertCount = 0;
    std::uint32_t expertUsedCount = 0;
    std::uint32_t expertFeedForwardLength = 0;
    std::uint32_t sharedExpertFeedForwardLength = 0;
    // How build_moe_ffn routes (llama-model.cpp load_hparams / load_arch_hparams), as the GGUF stores
    // it; 0 or false where the key is absent: expert_weights_scale, expert_weights_norm,
    // expert_gating_func (llama_expert_gating_func_type: 0 none, the architecture's default; 1
    // softmax, 2 sigmoid, 3 softmax over the selected weights, 4 sqrt(softplus)), expert_group_count.
    float expertWeightsScale = 0.0f;
    bool expertWeightsNorm = false;
    std::uint32_t expertGatingFunc = 0;
    std::uint32_t expertGroupCount = 0;
    // attention.temperature_scale (f_attn_temp_scale, deepseek2's optional temperature tuning), 0 if absent.
    float attentionTemperatureScale = 0.0f;
    // Granite's scales (granite.cpp and granite-hybrid.cpp load_arch_hparams, f_embedding_scale and
    // f_residual_scale), each optional there: 0 if absent, and 0 scales nothing.
    float embeddingScale = 0.0f;
    float residualScale = 0.0f;
    // logit_scale (f_logit_scale: Cohere's and Granite's logits are scaled by it), 0 if absent,
    // and 0 scales nothing ("if (f_logit_scale)").
    float logitScale = 0.0f;
    // rope.scaling.finetuned as the file stores it, true if absent: Granite's switch for RoPE
    // ("Granite uses rope_finetuned as a switch for rope, so default to true").
    bool ropeScalingFinetuned = true;
    // rope.dimension_sections with its first two sections set: hparams.use_mrope() (llama-hparams.cpp),
    // which makes glm4 and glm4moe rotate with M-RoPE, four positions per token (n_pos_per_embd).
    bool multiSectionRope = false;
    // n_deepstack_layers (Qwen3-VL's visual deepstack), 0 if absent: llama-hparams.cpp n_embd_inp()
    // widens the embedding input to n_embd x (1 + n), and the first n layers each add one more
    // n_embd slice of it to their output.
    std::uint32_t deepstackLayers = 0;
    // Mamba-2 / gated-delta-net dimensions, for the compute-buffer model.
    std::uint32_t ssmConvKernel = 0;
    std::uint32_t ssmInnerSize = 0;
    std::uint32_t ssmStateSize = 0;
    std::uint32_t ssmGroupCount = 0;
    // rescale_every_n_layers (RWKV-6): the graph halves the residual after every this many layers; 0: never.
    std::uint32_t rescaleEveryLayers = 0;

    std::vector<LayerInfo> layers; // blockCount entries
    std::vector<TensorSummary> tensors;
    std::uint64_t fileBytes = 0;

    std::uint32_t trunkLayerCount() const { return blockCount - nextnLayerCount; }
    bool hasRecurrentLayers() const;
    bool hasAttentionLayers() const;
    bool hasSlidingWindowLayers() const;
    bool isMoe() const { return expertCount > 0; }
    std::uint64_t weightBytes() const;
    // blk.<layer>.<suffix> ("attn_q.weight"), or nullptr; its bytes, 0 when the model has no such tensor.
    const TensorSummary* blockTensor(std::size_t layer, std::string_view suffix) const;
    std::uint64_t blockTensorBytes(std::size_t layer, std::string_view suffix) const;
    std::map<GgmlType, std::uint64_t> weightBytesByType() const;
    std::uint64_t parameterCount() const;       // total values over all tensors
    std::uint64_t activeParameterCount() const; // experts counted at expertUsedCount / expertCount

    bool operator==(const ModelInfo&) const = default;
};

} // namespace llamafit
