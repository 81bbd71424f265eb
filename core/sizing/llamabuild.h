#pragma once
// The llama.cpp build an estimate sizes for. llama.cpp changed how it reserves its worst-case
// graph several times (LlamaGeneration, serversettings.h); a build number says which of those
// changes a llama-server has. Build numbers are llama.cpp's own (`git rev-list --count HEAD` at
// the commit, printed by `llama-server --version` as "version: N (commit)" or, for a release,
// "version: 0.7.0 (build 11669, ...)"), so the boundaries below are the build numbers of the
// pull requests that made each change.
//
// Error codes: settings.bad-value (not "bNNNN" or "NNNN").

#include "core/common/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llamafit {

// The build whose rules the core restates and checks against the real server: llama.cpp 0.7.0.
inline constexpr std::uint32_t kReferenceLlamaBuild = 11669;

// The builds of the pull requests whose changes the graph builders follow (llama.cpp's history, the
// commit count at each merge):
// - #18550 "ggml : add ggml_build_forward_select" (2026-01-19): the token lookup and the embeddings
//   input are both in every graph, one selected by the batch (before: only the batch's own);
inline constexpr std::uint32_t kInputSelectBuild = 7774;
// - #21038 "llama : rotate activations for better quantization" (2026-04-01): a quantized K or V
//   cache rotates what it stores and reads (attn_inp_k_rot, attn_inp_v_rot);
inline constexpr std::uint32_t kKvRotationBuild = 8619;
// - #23764 "llama: use f16 mask for FA to save VRAM" (2026-05-29): under flash attention the KQ mask
//   input is f16 (before: an f32 input, cast to f16 for the flash attention nodes);
inline constexpr std::uint32_t kF16FlashMaskBuild = 9410;
// - #23907 "cuda: reserve space for quantize kv-cache at startup" (2026-06-03): CUDA's flash
//   attention keeps its f16 copies of a quantized K/V in the compute buffer (get_alloc_size; before:
//   in the CUDA memory pool, outside every logged buffer);
inline constexpr std::uint32_t kCudaFlashAttnCopiesBuild = 9489;
// - #27390 "metal : dequantize quantized KV to F16 before flash attention" (2026-08-20): Metal's
//   flash attention reserves f16 K and V behind its result (get_alloc_size);
inline constexpr std::uint32_t kMetalFlashAttnF16Build = 10532;
// - the mixed token/embedding input: after b11151 (the last build a public log shows without it)
//   and in b11669, so builds between the two are taken to be without it.
inline constexpr std::uint32_t kMixedInputBuild = kReferenceLlamaBuild;

// The llama.cpp generation whose worst-case graph is sized (sched_reserve), newest first; the
// compute terms of each are in core/sizing/backendcompute.h (the closed forms; the graph builders
// read the build itself). Not a flag: a property of the build.
enum class LlamaGeneration {
    Current,          // b11669 (llama.cpp 0.7.0) and later: a third, mixed token/embedding input
    BeforeMixedInput, // June 2026 to at least b11151: two selectable inputs, f16 masks
    // Before three memory PRs of late May 2026: #23764 (the KQ mask input is f16 under flash
    // attention; before, an f32 input was cast to f16 on the device), #23907 (CUDA flash attention's
    // f16 copies of a quantized K/V live in the compute buffer; before, in the CUDA memory pool,
    // outside every logged buffer) and #23861 (logits rows, which are OutputReserve's: such a log
    // sets both).
    BeforeJune2026,
    BeforeInputSelect, // before llama.cpp PR #18550 (early 2026): one input, tokens or embeddings
};

// The generation of llama.cpp's reserve a build has.
LlamaGeneration generationOfBuild(std::uint32_t build);

// "b11669" or "11669" (as --llama-build takes it).
Result<std::uint32_t> parseLlamaBuild(std::string_view text);

// What an estimate for `build` restates, for the user: "b11669". The graph builders and backend
// tables follow the build's own changes (the constants above); the closed forms, for what the
// engine does not replay, its generation's.
std::string sizedForText(std::uint32_t build);

} // namespace llamafit
