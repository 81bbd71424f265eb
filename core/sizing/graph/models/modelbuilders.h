#pragma once
// The per-architecture graph builders, one per llama.cpp src/models/<arch>.cpp family; each takes
// an LlmGraph and builds the whole graph, returning the logits. modelgraph.cpp picks one by
// general.architecture. Internal to core/sizing/graph.

#include "core/sizing/graph/llmgraph.h"

namespace llamafit::graph {

TensorId buildLlamaGraph(
    LlmGraph& graph); // llama, qwen2, qwen3, mistral3 (dense), seed_oss, smollm3, ernie4_5, internlm2
// qwen2vl and qwen3vl (qwen2's or qwen3's layers, M-RoPE positions, qwen3vl's deepstack)
TensorId buildQwenVlGraph(LlmGraph& graph);
TensorId buildPhi3Graph(LlmGraph& graph);  // phi3, dense (phi3.cpp)
TensorId buildGlm4Graph(LlmGraph& graph);  // glm4 (glm4.cpp)
TensorId buildOlmo2Graph(LlmGraph& graph); // olmo2, with Olmo 3's sliding windows (olmo2.cpp)
// No experts, no recurrent layers; sliding-window layers allowed.
bool denseAttentionWithSlidingWindows(const ModelInfo& model);
TensorId buildQwen3MoeGraph(LlmGraph& graph);   // qwen3moe
TensorId buildQwen3VlMoeGraph(LlmGraph& graph); // qwen3vlmoe (qwen3moe with M-RoPE and the deepstack)
TensorId buildQwen2MoeGraph(LlmGraph& graph);   // qwen2moe (qwen2moe.cpp)
// Routed experts (with or without a shared one); no recurrent or sliding-window layers.
bool routedAndSharedExperts(const ModelInfo& model);
TensorId buildGraniteGraph(LlmGraph& graph); // granite and granitemoe (granite.cpp)
// Granite's layers: attention, then a dense or routed (and shared) feed-forward; no recurrent or
// sliding-window layers.
bool graniteLayers(const ModelInfo& model);
// Granite's output head (granite.cpp, granite-hybrid.cpp): the output norm, then the logits scaled by
// 1 / f_logit_scale, which the loader requires.
TensorId graniteOutputHead(LlmGraph& graph, TensorId x);
// Granite's token rows, scaled by f_embedding_scale where the file sets it and expanded; and a residual
// branch scaled by f_residual_scale where the file sets it.
TensorId graniteInputEmbeddings(LlmGraph& graph);
TensorId graniteResidualScaled(LlmGraph& graph, TensorId x);
TensorId buildGptOssGraph(LlmGraph& graph); // gpt-oss (gptoss.cpp)
// Routed experts without a shared expert, no recurrent layers, standard sliding windows beside the
// global layers (or none): the gpt-oss builder's variant.
bool slidingWindowExperts(const ModelInfo& model);
TensorId buildDeepseek2Graph(LlmGraph& graph); // deepseek2 with multi-head latent attention (deepseek2.cpp)
// Latent attention (K-only cache) with routed and shared experts, no expert-selection bias: the
// DeepSeek-V2 builder's variant.
bool latentAttentionExperts(const ModelInfo& model);

TensorId buildGlm4MoeGraph(LlmGraph& graph);    // glm4moe (glm4moe.cpp)
TensorId buildErnie45MoeGraph(LlmGraph& graph); // ernie4_5-moe (denseleadexperts.cpp)
TensorId buildDots1Graph(LlmGraph& graph);      // dots1 (denseleadexperts.cpp)
// dots1's variant: routedAndSharedExperts with a gating function in the file (gatingOfFile).
bool denseLeadExpertsWithFileGating(const ModelInfo& model);
TensorId buildMinimaxM2Graph(LlmGraph& graph);  // minimax-m2 (normedprojectionmoe.cpp)
TensorId buildOlmoeGraph(LlmGraph& graph);      // olmoe (normedprojectionmoe.cpp)
TensorId buildHunyuanMoeGraph(LlmGraph& graph); // hunyuan-moe (hunyuanmoe.cpp)
// Routed experts on every layer, gated as the file's expert_gating_func says (softmax, sigmoid or
// softmax over the selected weights), no recurrent or sliding-window layers: MiniMax-M2's variant.
bool routedExpertsWithFileGating(const ModelInfo& model);
// Routed experts with sigmoid gating and a selection bias, a shared expert, leading dense layers,
// no recurrent or sliding-window layers: the GLM-4.5 builder's variant.
bool routedExpertsWithDenseLead(const ModelInfo& model);

TensorId buildGemmaGraph(LlmGraph& graph);    // gemma (gemma.cpp)
TensorId buildGemma2Graph(LlmGraph& graph);   // gemma2 (gemma.cpp)
TensorId buildGemma3Graph(LlmGraph& graph);   // gemma3 (gemma.cpp)
TensorId buildCohere2Graph(LlmGraph& graph);  // cohere2
TensorId buildCommandRGraph(LlmGraph& graph); // command-r
// Dense, with standard sliding-window layers beside the global ones (the iSWA builders' variant).
bool slidingWindowDense(const ModelInfo& model);

TensorId buildMambaGraph(LlmGraph& graph); // mamba, mamba2 (mamba.cpp)
// Recurrent layers only (no attention, no experts): the Mamba builder's variant.
bool recurrentOnly(const ModelInfo& model);
TensorId buildGraniteHybridGraph(LlmGraph& graph); // granitehybrid (granitehybrid.cpp)
// Recurrent layers beside attention ones, dense feed-forward: the Granite hybrid builder's variant.
bool denseRecurrentHybrid(const ModelInfo& model);
TensorId buildFalconH1Graph(LlmGraph& graph); // falcon-h1 (falconh1.cpp)
// Attention and a recurrent block in every layer, dense feed-forward: the Falcon-H1 builder's variant.
bool parallelRecurrentHybrid(const ModelInfo& model);
TensorId buildNemotronHGraph(LlmGraph& graph); // nemotron_h, nemotron_h_moe (nemotronh.cpp)
// Recurrent, attention and feed-forward-only layers, no experts: the Nemotron-H builder's variant.
bool denseRecurrentStack(const ModelInfo& model);
// The same with routed experts in the feed-forward layers: the Nemotron-H MoE variant.
bool recurrentMoeStack(const ModelInfo& model);
TensorId buildJambaGraph(LlmGraph& graph); // jamba (jamba.cpp)
TensorId buildLfm2Graph(LlmGraph& graph);  // lfm2, lfm2moe (lfm2.cpp)
// Short-convolution layers beside attention ones, dense feed-forward, no sliding window: the LFM2
// builder's variant.
bool denseShortConvHybrid(const ModelInfo& model);
// The same with routed experts past the leading dense layers: lfm2moe (lfm2.cpp builds both).
bool shortConvHybridExperts(const ModelInfo& model);
TensorId buildQwen3NextGraph(LlmGraph& graph); // qwen3next (qwen3next.cpp)
TensorId buildQwen35Graph(LlmGraph& graph);    // qwen35 and qwen35moe (qwen3next.cpp)
// Gated delta-net layers beside gated attention ones, a dense FFN or routed (and shared) experts, no
// sliding window, a head size the fused GATED_DELTA_NET runs on every backend table: the Qwen3-Next
// builders' variant.
bool deltaNetHybrid(const ModelInfo& model);
TensorId buildRwkv6Graph(LlmGraph& graph); // rwkv6 (rwkv6.cpp)
TensorId buildRwkv7Graph(LlmGraph& graph); // rwkv7 (rwkv7.cpp)
// Recurrent layers only, each with two token shifts of n_embd and a WKV state of n_embd * head
// size (rwkv6.cpp and rwkv7.cpp assert token_shift_count == 2): the RWKV builders' variant.
bool rwkvRecurrentOnly(const ModelInfo& model);

} // namespace llamafit::graph
