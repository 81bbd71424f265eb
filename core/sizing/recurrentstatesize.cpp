// RS bytes. Restates llama.cpp src/llama-memory-recurrent.cpp (constructor) with the widths of
// src/llama-hparams.cpp n_embd_r / n_embd_s, which the model interpreter already computed.
#include "core/sizing/recurrentstatesize.h"

#include <algorithm>

namespace llamafit {

RsPlan sizeRecurrentState(const ModelInfo& model, const ResolvedContext& context) {
    RsPlan plan;
    plan.layerBytes.assign(model.layers.size(), 0);
    // llama-memory-recurrent.cpp: mem_size = max(1, n_seq_max) cells, one per sequence; rows =
    // mem_size * (1 + n_rs_seq), and n_rs_seq is 0 unless MTP drafting is on (mtpcontext.h).
    const std::uint64_t cells = std::max<std::uint32_t>(1, context.nSeqMax);
    const std::uint64_t rows = cells * (1 + std::uint64_t{context.nRsSeq});
    bool any = false;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        const LayerInfo& layer = model.layers[il];
        if (!layer.recurrent || layer.nextn) {
            continue;
        }
        any = true;
        // create_memory hard-codes GGML_TYPE_F32 for R and S: the -ctk/-ctv types do not apply.
        const std::uint64_t rBytes = 4 * rows * layer.recurrentConvWidth;
        const std::uint64_t sBytes = 4 * rows * layer.recurrentStateWidth;
        plan.rs.layers += 1;
        plan.rs.rBytes += rBytes;
        plan.rs.sBytes += sBytes;
        plan.layerBytes[il] = rBytes + sBytes;
    }
    plan.rs.cells = any ? static_cast<std::uint32_t>(cells) : 0;
    plan.rs.rsSeq = any ? context.nRsSeq : 0;
    return plan;
}

} // namespace llamafit
