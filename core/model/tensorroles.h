#pragma once
// Tensor roles: sorts the tensors of a GGUF into input embeddings (always on the CPU),
// output head, repeating blocks (blk.N.*) and the rest, and flags routed-expert tensors,
// the way llama.cpp places them (src/llama-arch.cpp LLM_TENSOR_INFOS layer classes,
// common/common.h --cpu-moe pattern). Used by the model interpreter. Sizes in bytes.

#include "core/gguf/gguffile.h"
#include "core/model/modelinfo.h"

#include <array>
#include <string_view>
#include <vector>

namespace llamafit {

// `architecture` matters for names llama.cpp reuses (LFM2's token_embd_norm is its output norm).
TensorSummary summarizeTensor(const GgufTensorInfo& tensor, std::string_view architecture);
std::vector<TensorSummary> summarizeTensors(const GgufFile& file, std::string_view architecture);

// "blk.12.attn_q.weight" -> 12; -1 if the name is not a block tensor.
int blockIndex(std::string_view name);

// The RoPE frequency factors (rope_freqs, rope_factors_long, rope_factors_short): one tensor in the
// file, which llama.cpp loads for every layer, TENSOR_DUPLICATED into each buffer type the layers
// use; summarizeTensor places the file's tensor with block 0.
bool isPerLayerCopiedWeight(std::string_view name);
// The one of them the builders read, among those a file has: llama_model::get_rope_factors
// (llama-model.cpp) gives rope_freqs where the file has it, else LongRoPE's rope_factors_long past
// n_ctx_orig_yarn tokens per sequence and rope_factors_short within. Long and short have one shape
// and each layer's copies of both sit in one buffer, so the graph and its sizes are the same with
// either; the builders read the long ones. (Only a -ot pattern naming one of them could part them.)
inline constexpr std::array<std::string_view, 2> kRopeFactorsNames = {"rope_freqs.weight",
                                                                      "rope_factors_long.weight"};

// True for names --cpu-moe / --n-cpu-moe move: regex \.ffn_(up|down|gate|gate_up)_(ch|)exps.
bool isRoutedExpertTensor(std::string_view name);

} // namespace llamafit
