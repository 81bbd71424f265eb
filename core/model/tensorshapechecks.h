#pragma once
// checkTensorShapes(): the part of llama.cpp's model loader that compares the tensor table with
// the metadata -- each tensor it creates must exist (unless optional) with exactly the shape the
// hyper-parameters imply (src/llama-model.cpp load_tensors -> create_tensor ->
// src/llama-model-loader.cpp check_tensor_dims: "tensor '%s' not found", "tensor '%s' has wrong
// shape; expected %s, got %s"). Part of checkLoadable() (loaderchecks.h). Pure: no I/O.
//
// The rules are only those that hold for every architecture they are applied to, because a
// refusal of a model llama.cpp loads would be worse than the silence it replaces:
//   - every known architecture: token_embd.weight present; output.weight {n_embd, n_vocab} and
//     output_norm.weight {n_embd} when present; routed-expert tensors (ffn_*_exps) with n_expert
//     as their third dimension.
//   - the 24 architectures whose attention and feed-forward tensors are created with the standard
//     shapes (kStandardProjectionArchitectures in the .cpp): per attention layer, attn_k
//     {n_embd, n_head_kv * n_embd_head_k}, attn_v {n_embd, n_head_kv * n_embd_head_v} and
//     attn_output {n_head * n_embd_head_k, n_embd}, attn_k (or a fused attn_qkv) and
//     attn_output present in every layer that owns K/V; per dense feed-forward layer,
//     ffn_gate / ffn_up {n_embd, n_ff} and ffn_down {n_ff, n_embd}; the layer norms {n_embd}.
//     attn_q is not checked: gated-attention families (qwen3next, qwen35) pack a gate into it.
// Unknown architectures (generic rules, already warned about) get none of these.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/model/modelinfo.h"

#include <cstdint>

namespace llamafit {

// `vocabularySize`: the tokenizer's token count (llama.cpp's n_vocab); 0 skips the output check.
// Errors: model.missing-tensor, model.wrong-tensor-shape (see loaderchecks.h).
Result<bool> checkTensorShapes(const GgufFile& file, const ModelInfo& model, std::uint64_t vocabularySize);

} // namespace llamafit
