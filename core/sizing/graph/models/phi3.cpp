// Phi-3 and Phi-4 (llama.cpp src/models/phi3.cpp, dense layers): pre-norm attention over the KV
// cache with a fused QKV projection read as three views (build_qkv), RoPE with the LongRoPE factors
// and Q scaled by 1/sqrt(head_dim) before build_attn; then build_ffn's LLM_FFN_SWIGLU over ffn_up,
// whose rows hold the gate and the up halves, and ffn_down; both residual, the last layer keeping
// only the output rows.
#include "core/sizing/graph/models/modelbuilders.h"

namespace llamafit::graph {

TensorId buildPhi3Graph(LlmGraph& g) {
    GraphBuilder& b = g.builder();
    const ModelInfo& model = g.model();
    TensorId inpL = g.inputEmbeddings();
    const TensorId positions = g.inputPositions();
    const std::uint32_t layers = model.trunkLayerCount();
    for (std::uint32_t il = 0; il < layers; ++il) {
        const LayerInfo& info = model.layers.at(il);
        TensorId residual = inpL;
        const TensorId factors = g.ropeFactors(il);
        TensorId cur =
            g.norm(inpL, g.blockWeight(il, "attn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        const LlmGraph::QueryKeyValue qkv =
            g.queryKeyValue(il, cur, info.headCount, info.headCountKv, info.valueHeadDim);
        const TensorId q = b.scale(b.rope(qkv.q, positions, factors));
        const TensorId k = b.rope(qkv.k, positions, factors);
        cur = g.attention(il, q, k, qkv.v);

        if (il + 1 == layers) {
            cur = b.getRows(cur, g.outputIds());
            residual = b.getRows(residual, g.outputIds());
        }
        cur = b.add(cur, residual);
        residual = cur;
        cur = g.norm(cur, g.blockWeight(il, "ffn_norm.weight"), kNoTensor, true, static_cast<int>(il));
        cur = b.gluHalves(g.project(g.blockWeight(il, "ffn_up.weight"), cur), GluOp::Swiglu);
        cur = g.project(g.blockWeight(il, "ffn_down.weight"), cur);
        inpL = b.add(residual, cur);
    }
    return g.outputHead(inpL);
}

} // namespace llamafit::graph
