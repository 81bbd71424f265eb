#pragma once
// checkLoadable(): what llama.cpp's model loader refuses in a GGUF file that parses and that
// the interpreter can size -- so LlamaFit names the loader's own reason before launch instead
// of planning for a file that will never load. Called through interpretLoadableModel() by
// loadModel() and the library scan for files (model cards carry no tokenizer and are not
// checked). Pure: no I/O.
//
// Error codes (each message restates the loader's, with the key or tensor):
//   model.missing-key        a hyper-parameter the architecture requires in this file: DeepSeek-V2's
//                            q_lora_rank in every file that is not a Lite (src/models/deepseek2.cpp;
//                            llama-model-loader.cpp: "key not found in model: %s")
//   model.wrong-key-type     a hyper-parameter stored with another type than the loader reads
//                            (src/llama-model-loader.cpp GKV::get_kv: "key %s has wrong type %s
//                            but expected type %s"; arrays: "not a float32/int32/uint32 array")
//   model.missing-vocabulary no tokenizer.ggml.model, or no / an empty tokenizer.ggml.tokens
//                            (src/llama-vocab.cpp: "cannot find tokenizer vocab in model file")
//   model.wrong-tensor-shape token_embd.weight is not {n_embd, n_vocab}, or another tensor has
//                            not the shape its metadata implies (tensorshapechecks.h)
//                            (src/llama-model-loader.cpp check_tensor_dims: "tensor '%s' has
//                            wrong shape; expected %s, got %s")
//   model.wrong-tensor-count tensors of blocks the metadata does not have
//                            (src/llama-model-loader.cpp done_getting_tensors: "wrong number of
//                            tensors; expected %d, got %d")
//   model.missing-tensor     a block below block_count with no tensor at all, or a tensor the
//                            architecture requires is absent (tensorshapechecks.h)
//                            (src/llama-model-loader.cpp check_tensor_dims: "tensor '%s' not found")
//   model.too-many-experts   expert_count above LLAMA_MAX_EXPERTS (src/llama-hparams.h; llama.cpp
//                            aborts on GGML_ASSERT(hparams.n_expert <= LLAMA_MAX_EXPERTS))
//   model.bad-rope-dimensions rope.dimension_count differs from the head size where llama.cpp
//                            requires equality (LLaMA, DeciLM, Falcon: "invalid n_rot: %u,
//                            expected %u" in src/llama-model.cpp), or exceeds it anywhere

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/model/modelinfo.h"

#include <cstdint>

namespace llamafit {

// LLAMA_MAX_EXPERTS of the llama.cpp build LlamaFit sizes for, b11669: measured with the real
// server (1025 experts abort, 1024 load; tests/integration/refusedmodels_test.cpp). Older
// sources say 512 ("Qwen3 Next"); it was raised since.
inline constexpr std::uint32_t kLlamaMaxExperts = 1024;

Result<bool> checkLoadable(const GgufFile& file, const ModelInfo& model);

// interpretModel() with the loader's refusals around it, for a file about to be used (loadModel,
// the library scan): the key types before interpretation, so a mistyped key is named as such and
// not as missing, and the rest of checkLoadable() after it.
Result<ModelInfo> interpretLoadableModel(const GgufFile& file);

} // namespace llamafit
