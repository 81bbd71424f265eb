// resolveContext(): n_ctx, n_ctx_seq, slots, unified KV, batch sizes and flash attention as
// llama-server 0.7.0 resolves them. Restates llama.cpp tools/server/server.cpp (-np auto) and
// src/llama-context.cpp (llama_context constructor, §2.2 of llama-cpp-memory.md).
#include "core/sizing/estimator.h"

#include "core/common/units.h"
#include "core/sizing/mtpcontext.h"

#include <algorithm>

namespace llamafit {

// llama-server: -np auto (-1) means 4 slots sharing one unified KV cache.
inline constexpr std::uint32_t kAutoSlots = 4;

Result<ResolvedContext> resolveContext(const ModelInfo& model, const ServerSettings& settings) {
    ResolvedContext ctx;
    if (settings.parallelSlots && *settings.parallelSlots == 0) {
        return makeError("settings.bad-value", "-np 0: at least one slot is needed", {Setting::Parallel});
    }
    if (settings.batchTokens == 0 || settings.ubatchTokens == 0) {
        return makeError("settings.bad-value",
                         "-b and -ub must be at least 1 (got -b " + std::to_string(settings.batchTokens) +
                             " -ub " + std::to_string(settings.ubatchTokens) + ")",
                         {settings.batchTokens == 0 ? Setting::Batch : Setting::Ubatch,
                          settings.batchTokens == 0 ? Setting::Ubatch : Setting::Batch});
    }
    ctx.nSeqMax = settings.parallelSlots.value_or(kAutoSlots);
    // tools/server/server.cpp: "n_parallel is set to auto, using n_parallel = 4 and kv_unified = true"
    // overwrites kv_unified after the flags are parsed, so -np auto is unified even with -no-kvu.
    // An explicit -np leaves kv_unified at its default (false) unless -kvu is given.
    ctx.kvUnified = !settings.parallelSlots.has_value() || settings.kvUnified.value_or(false);

    // llama-context.cpp: n_ctx = params.n_ctx == 0 ? n_ctx_train : params.n_ctx. Without -c the
    // server passes 0 too (and --fit may then shrink it; the estimate keeps the training context).
    const std::uint64_t requested =
        settings.contextTokens.value_or(0) == 0 ? model.trainingContext : *settings.contextTokens;
    if (requested == 0) {
        return makeError("settings.bad-value", "-c is 0 (or not set) and the model has no training context",
                         {Setting::Context});
    }
    if (requested > 0xFFFFFF00u) {
        return makeError("settings.bad-value",
                         "context of " + std::to_string(requested) + " tokens is too large",
                         {Setting::Context});
    }

    // llama-context.cpp: n_batch = min(n_ctx, n_batch) for causal models -- taken before n_ctx is
    // padded; n_ubatch = min(n_batch, n_ubatch).
    ctx.nBatch = static_cast<std::uint32_t>(std::min<std::uint64_t>(requested, settings.batchTokens));
    ctx.nUbatch = std::min(ctx.nBatch, settings.ubatchTokens);

    // llama-context.cpp: n_ctx = GGML_PAD(n_ctx, 256); not unified: n_ctx_seq = GGML_PAD(n_ctx / n_seq, 256)
    // and n_ctx = n_ctx_seq * n_seq ("n_ctx is not divisible by n_seq_max - rounding down to ...").
    std::uint64_t nCtx = padTo(requested, 256);
    std::uint64_t nCtxSeq = nCtx;
    if (!ctx.kvUnified) {
        nCtxSeq = padTo(nCtx / ctx.nSeqMax, 256);
        if (nCtxSeq == 0) {
            return makeError("settings.bad-value",
                             "n_ctx_seq == 0: -c is too small for " + std::to_string(ctx.nSeqMax) + " slots",
                             {Setting::Parallel, Setting::Context});
        }
        nCtx = nCtxSeq * ctx.nSeqMax;
    }
    if (nCtx > 0xFFFFFFFFu) {
        return makeError("settings.bad-value", "context of " + std::to_string(nCtx) + " tokens is too large",
                         {Setting::Context});
    }
    ctx.nCtx = static_cast<std::uint32_t>(nCtx);
    ctx.nCtxSeq = static_cast<std::uint32_t>(nCtxSeq);

    // -fa auto resolves to on when the device supports FA for the model (the CPU backend and the
    // common GPU backends do); a quantized V forces it on (llama-context.cpp). -fa off stays off.
    // "flash_attn is not compatible with Grok - forcing off" (llama-context.cpp).
    ctx.flashAttention = settings.flashAttention != FlashAttention::Off && model.architecture != "grok";
    ctx.valueCacheTransposed = !ctx.flashAttention;

    // The server reserves one logits row per slot (server-context.cpp: n_outputs_max = n_parallel);
    // llama.cpp's default, which llama-fit-params keeps, is n_outputs_max = n_batch
    // (src/llama-context.cpp), so its worst-case graph holds n_ubatch logits rows.
    ctx.nOutputs = settings.outputReserve == OutputReserve::PerSlot ? ctx.nSeqMax : ctx.nBatch;
    // Speculative decoding (speculative.h): the target verifies 1 + draft.n_max tokens per slot,
    // so the server reserves that many outputs; MTP also keeps n_rs_seq = draft.n_max RS rows more.
    ctx.nOutputs *= verifiedTokensPerSequence(settings.speculative);
    ctx.nRsSeq = mainRsSeq(settings);
    return ctx;
}

} // namespace llamafit
