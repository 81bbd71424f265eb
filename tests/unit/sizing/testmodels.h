#pragma once
// ModelInfo values for the sizing tests, built directly (not through the GGUF interpreter) with
// the shapes of the measured vectors in llama-cpp-memory.md §7 and a realistic tensor table,
// so the weight sizing sees the same tensors llama-server loaded; the realistic shapes of
// tests/data/shapes read through the interpreter (interpretedShape); and the RPC tests' settings.
// Test support only.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit::test {

// §7 row 1: llama, n_embd 2048, 16 blocks, 32 heads, 8 KV heads x 64, n_ff 8192, vocab 128256,
// tied output (no output.weight); matrices in `weights` (F16 in row 1, Q8_0 row 10, Q4_0 row 11).
ModelInfo llama1B(GgmlType weights = GgmlType::F16);

// §7 row 19: llama, 4096, 32 blocks, 32 heads, 8 KV heads x 128, n_ff 14336, vocab 128256, untied, Q4_K.
ModelInfo llama3_8B(GgmlType weights = GgmlType::Q4_K);

// §7 row 14: qwen35moe with Qwen3.5-35B-A3B dims: 2048, 40 blocks (every 4th attends), 16 heads,
// 2 KV heads x 256, 256 experts / 8 used, expert n_ff 512, shared expert 512, SSM conv 4,
// inner 4096, state 128, groups 16, dt rank 32, vocab 248320, Q8_0.
ModelInfo qwen35_35B_A3B();

// §7 row 17: gemma3, 1152, 26 blocks (5 of every 6 sliding, n_swa 512), 4 heads, 1 KV head x 256,
// n_ff 6912, vocab 262144, tied, Q8_0.
ModelInfo gemma3_1B();

// A DeepSeek-V2-Lite-like MLA model: 2048, 27 blocks (block 0 dense), 16 heads, the cache holds
// one 576-wide latent (kv_lora_rank 512 + rope 64) per layer, 64 experts / 6 used, Q4_K.
ModelInfo deepseekMlaLite();

// A plain llama of any shape (untied, F16, 2 blocks unless told), for the compute-buffer sweeps.
struct LlamaLikeShape {
    std::uint32_t embd = 2048;
    std::uint32_t heads = 32;
    std::uint32_t kvHeads = 8;
    std::uint32_t headDim = 64;
    std::uint32_t feedForward = 8192;
    std::uint32_t vocab = 32000;
    std::uint32_t blocks = 2;
};
ModelInfo llamaLike(const LlamaLikeShape& shape);

// qwen35 / qwen35moe of any shape (experts = 0: the dense qwen35 with feedForward), every
// interval-th block attends; 4 blocks and vocab 32000 unless told.
struct Qwen35Shape {
    std::uint32_t embd = 2048;
    std::uint32_t heads = 16;
    std::uint32_t kvHeads = 2;
    std::uint32_t headDim = 256;
    std::uint32_t experts = 256;
    std::uint32_t used = 8;
    std::uint32_t expertFeedForward = 512;
    std::uint32_t sharedFeedForward = 512;
    std::uint32_t feedForward = 0;
    std::uint32_t inner = 4096;
    std::uint32_t groups = 16;
    std::uint32_t dtRank = 32;
    std::uint32_t vocab = 32000;
    std::uint32_t blocks = 4;
};
ModelInfo qwen35Like(const Qwen35Shape& shape);

// qwen3moe (attention only, no shared expert) of any shape; 2 blocks, vocab 32000.
struct Qwen3MoeShape {
    std::uint32_t embd = 2048;
    std::uint32_t heads = 32;
    std::uint32_t kvHeads = 4;
    std::uint32_t headDim = 128;
    std::uint32_t experts = 128;
    std::uint32_t used = 8;
    std::uint32_t expertFeedForward = 768;
};
ModelInfo qwen3MoeLike(const Qwen3MoeShape& shape);

// §7 rows 12/13: llama with head dim 80 (n_embd 2560, 32 heads), 4 blocks of 8 KV heads, vocab 32000, F16.
ModelInfo llamaHeadDim80();

// The spec tests/data/shapes/`file` (e.g. "qwen3.json", "mtp/qwen35moe-mtp.json") built in memory
// and read by the GGUF interpreter, as llama-server's loader sees it; a failure fails the test
// and gives an empty ModelInfo. `blocks`: only the first ones, as the Vulkan matrix cuts a shape
// (tests/support/shapecut.h).
ModelInfo interpretedShape(const std::string& file, std::optional<std::uint32_t> blocks = std::nullopt);

// interpretedShape with its KV plan at -c `contextTokens` and `slots` (nullopt: the server's 4 slots in
// one unified cache), as the compute-buffer replays' tests size them.
struct SizedShape {
    ModelInfo model;
    KvPlan kv;
};
SizedShape sizedShape(const std::string& file, std::optional<std::uint32_t> blocks,
                      std::optional<std::uint32_t> slots, std::uint32_t contextTokens = 4096);

// The first `hostBlocks` blocks in host memory and the rest on GPU 0: llama.cpp's -ngl keeps the
// last blocks on the GPU.
LayerPlacement leadingOnHost(const ModelInfo& model, std::size_t hostBlocks);

// A run over ggml-rpc-servers: -c 4096 -np 1 -ngl all --rpc SERVERS (the RPC tests' settings).
ServerSettings rpcSettings(std::vector<std::string> servers);

} // namespace llamafit::test
