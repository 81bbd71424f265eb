#pragma once
// The compute buffer of the MTP draft context (mtpcontext.h): the graph llama-server 0.7.0
// (b11669) reserves for a Qwen3.5 NextN block (src/models/qwen35moe.cpp and qwen35.cpp
// graph_mtp), written node by node and planned with ggml-alloc's rules (graphreplay.h). The
// block's own buffers are small next to what the allocator's holes make of them, so no single
// width per token follows it: the routed experts' down projection lands above the attention's
// leftovers or in a hole depending on n_ubatch and the slots. Checked against the server's own
// plans (scripts/alloc-plan) on the qwen35moe shape; the dense Qwen3.5 block is written from
// the source and unmeasured. Pure function; bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"

#include <cstdint>
#include <optional>

namespace llamafit {

// The MTP context's compute buffer on the CPU backend, or nullopt for an architecture whose
// NextN graph is not written here. `context` is the draft context (n_ubatch, one output per
// sequence, flash attention); `kv` its cache (cells and streams).
std::optional<std::uint64_t> mtpGraphBytes(const ModelInfo& model, const ResolvedContext& context,
                                           const KvCacheEstimate& kv);

} // namespace llamafit
