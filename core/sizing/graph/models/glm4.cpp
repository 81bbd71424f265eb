// GLM-4 (GLM-4-9B-0414, GLM-4-32B-0414, GLM-Z1): llama.cpp src/models/glm4.cpp. Pre-norm attention
// over the KV cache (build_qkv, fused or per tensor with biases; RoPE, M-RoPE where the file sets
// rope sections) whose output is RMS-normed again (attn_post_norm) before the residual; then
// build_ffn's LLM_FFN_SWIGLU over ffn_up, whose rows hold the gate and the up halves, and ffn_down,
// RMS-normed again (ffn_post_norm) before the residual. The NextN block the file may carry
// (GLM-OCR) is loaded and skipped. The last layer keeps only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"

namespace llamafit::graph {

TensorId buildGlm4Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    // n_pos_per_embd: four positions per token under M-RoPE.
    const TensorId positions = g.inputPositions(model.multiSectionRope ? 4 : 1);
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const int layer = static_cast<int>(il);
        TensorId inpSA = inpL;
        TensorId cur = g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, layer);
        cur = g.qkvAttention(il, cur, positions);

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            inpSA = b.getRows(inpSA, g.outputIds());
        }
        cur = g.norm(cur, g.blockWeight(il, "post_attention_norm.weight"), kNoTensor, true, layer);
        const TensorId ffnInput = b.add(cur, inpSA);
        cur = g.norm(ffnInput, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, layer);
        cur = b.gluHalves(g.project(g.blockWeight(il, "ffn_up.weight"), cur), GluOp::Swiglu);
        cur = g.project(g.blockWeight(il, "ffn_down.weight"), cur);
        cur = g.norm(cur, g.blockWeight(il, "post_ffw_norm.weight"), kNoTensor, true, layer);
        inpL = b.add(cur, ffnInput);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph
