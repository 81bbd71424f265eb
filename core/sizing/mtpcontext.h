#pragma once
// The MTP (NextN) side of speculative decoding, as llama-server 0.7.0 (b11669) sizes it:
// which weights load, the RS rows the main context adds, and the MTP draft context's own
// buffers. Used by estimateMemory() (estimator.cpp); pure functions of the model and the
// settings, any thread. Bytes.
//
// - Weights: without --spec-type draft-mtp the loader skips every tensor of the NextN blocks
//   (the file's last nextn_predict_layers blocks); with it they load like any layer.
// - Main context: n_rs_seq = --spec-draft-n-max, so the RS buffer holds (1 + n_rs_seq) rows per
//   sequence, and n_outputs_max = n_seq_max * (1 + n_rs_seq).
// - The MTP draft context ("creating MTP draft context against the target model"): the same
//   n_ctx and n_seq_max, n_rs_seq 0, its own logits (one row per sequence), a KV cache of the
//   NextN layers only (--spec-draft-type-k/v, f16 by default), and a compute
//   buffer for the NextN block's graph at --spec-draft-n-ubatch (else -ub), replayed through
//   ggml-alloc by mtpgraph.h for the Qwen3.5 families.
// - A file without NextN blocks: llama-server refuses draft-mtp ("failed to create MTP context").

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>

namespace llamafit {

// Whether the settings build the MTP draft context (--spec-type lists draft-mtp).
bool buildsMtpContext(const ServerSettings& settings);

// settings.error for draft-mtp on a model without NextN blocks; ok otherwise.
Result<bool> checkMtpModel(const ModelInfo& model, const ServerSettings& settings);

// The model without its NextN blocks' tensors: what the loader reads when MTP is off.
// Layers stay as they are (llama.cpp still counts the blocks).
ModelInfo withoutNextnTensors(const ModelInfo& model);

// Whether the estimate must drop the NextN tensors (the model has some and MTP is off).
bool skipsNextnTensors(const ModelInfo& model, const ServerSettings& settings);

// The main context's RS rows per sequence beyond the first: --spec-draft-n-max with MTP, else 0.
std::uint32_t mainRsSeq(const ServerSettings& settings);

// The MTP draft context's buffers, all in host memory on a CPU-only run (buffer type "CPU").
struct MtpContextBuffers {
    ResolvedContext context; // n_ctx and n_seq_max of the main context, the draft's n_ubatch
    KvCacheEstimate kv;      // the NextN layers' K/V
    std::uint64_t kvBytes = 0;
    std::uint64_t outputBytes = 0;
    std::uint64_t computeBytes = 0;
};

MtpContextBuffers sizeMtpContext(const ModelInfo& model, const ServerSettings& settings,
                                 const ResolvedContext& mainContext);

} // namespace llamafit
